// The seeds' scenarios (three GPUs as in examples/three_gpus.json, model
// parallelism, towers, the greedy setter), on device sets with and without
// the GPUs they ask for.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/placer/placer_helper.h"

namespace {

using grt_test::Graph;
using grt_test::PlaceArgs;
using grt_test::Placed;

// Three GPUs each multiply their own variables; the sum is on the CPU.
void ThreeGpus(Graph& g) {
  std::vector<std::string> products, assigns;
  for (int i = 0; i < 3; i++) {
    std::string d = "/gpu:" + std::to_string(i), k = std::to_string(i);
    g.Variable("a_" + k, {2, 3}, d).Variable("b_" + k, {3, 2}, d);
    g.Op("MatMul_" + k, "MatMul", {"a_" + k + "/read", "b_" + k + "/read"}, d);
    products.push_back("MatMul_" + k);
    assigns.push_back("^a_" + k + "/Assign");
    assigns.push_back("^b_" + k + "/Assign");
  }
  g.AddN("sum", products, "/cpu:0");
  g.Node("init", "NoOp", assigns);
}

int CountCopiesTo(const Placed& p, const std::string& type, bool data_only = true) {
  const grt_device_set* ds = grt_plan_devices(p.plan());
  int n = 0;
  for (int32_t i = 0; i < grt_plan_num_copies(p.plan()); i++) {
    const grt_plan_copy* c = grt_plan_copy_at(p.plan(), i);
    if (data_only && c->port < 0) continue;
    n += grt_device_set_type(ds, c->dst_device) == type;
  }
  return n;
}

TEST(SeedsTest, ThreeGpusWithTheirGpus) {
  Graph g;
  ThreeGpus(g);
  Placed p(g, "cpu:1,gpu:3");
  ASSERT_TRUE(p.ok()) << p.error();
  for (int i = 0; i < 3; i++) {
    std::string k = std::to_string(i), d = "GPU:" + k;
    for (std::string n : {"a_" + k, "a_" + k + "/Assign", "b_" + k + "/read", "MatMul_" + k})
      EXPECT_EQ(p.Dev(n), d) << n;
  }
  EXPECT_EQ(p.Dev("sum"), "CPU:0");
  EXPECT_EQ(CountCopiesTo(p, "CPU"), 3);  // each product crosses to the CPU once
  EXPECT_EQ(CountCopiesTo(p, "GPU"), 0);
}

TEST(SeedsTest, ThreeGpusOnACpuOnlyMachine) {
  Graph g;
  ThreeGpus(g);
  Placed strict(g, "cpu:1");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().rfind("Cannot assign a device for operation a_0: Operation was "
                                 "explicitly assigned to /device:GPU:0 but available devices "
                                 "are [ /job:localhost/replica:0/task:0/device:CPU:0 ]. Make "
                                 "sure the device specification refers to a valid device.",
                                 0),
            0u)
      << strict.error();
  Placed soft(g, "cpu:1", true);
  ASSERT_TRUE(soft.ok()) << soft.error();
  for (int32_t v = 0; v < grt_graph_num_nodes(g.get()); v++)
    EXPECT_EQ(grt_plan_node_device(soft.plan(), v), 0) << grt_graph_node_name(g.get(), v);
  EXPECT_EQ(soft.Reason("MatMul_2"), GRT_REASON_SOFT_FALLBACK);
  EXPECT_EQ(soft.Cause("MatMul_2"), GRT_CAUSE_NO_SUCH_DEVICE);
  EXPECT_EQ(grt_plan_num_copies(soft.plan()), 0);
}

TEST(SeedsTest, ThreeGpusOnTwo) {
  Graph g;
  ThreeGpus(g);
  Placed strict(g, "cpu:1,gpu:2");
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.error().find("operation a_2: Operation was explicitly assigned to "
                                "/device:GPU:2"),
            std::string::npos)
      << strict.error();
  Placed soft(g, "cpu:1,gpu:2", true);
  ASSERT_TRUE(soft.ok()) << soft.error();
  EXPECT_EQ(soft.Dev("MatMul_1"), "GPU:1");
  EXPECT_EQ(soft.Dev("MatMul_2"), "GPU:0");  // kept the type, dropped the id
  EXPECT_EQ(soft.Dev("b_2/Assign"), "GPU:0");
}

// Model parallelism: GPU 0 multiplies, GPU 1 adds, the CPU sums.
void ModelParallel(Graph& g) {
  g.Variable("a", {2, 2}).Variable("b", {2, 2});
  g.Op("MatMul", "MatMul", {"a/read", "b/read"}, "/gpu:0");
  g.Op("add", "AddV2", {"a/read", "b/read"}, "/gpu:1");
  g.AddN("sum", {"MatMul", "add"}, "/cpu:0");
}

TEST(SeedsTest, ModelParallelism) {
  Graph g;
  ModelParallel(g);
  Placed p(g, "cpu:1,gpu:2", true);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("a"), "GPU:0");  // variables: default priority
  EXPECT_EQ(p.Dev("b/read"), "GPU:0");
  EXPECT_EQ(p.Dev("MatMul"), "GPU:0");
  EXPECT_EQ(p.Dev("add"), "GPU:1");
  EXPECT_EQ(p.Dev("sum"), "CPU:0");
  // a/read and b/read go to GPU:1 once each; both results go to the CPU.
  EXPECT_EQ(CountCopiesTo(p, "GPU"), 2);
  EXPECT_EQ(CountCopiesTo(p, "CPU"), 2);
  Placed cpu(g, "cpu:1", true);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  EXPECT_EQ(cpu.Dev("add"), "CPU:0");
  EXPECT_EQ(grt_plan_num_copies(cpu.plan()), 0);
}

// Towers on two GPUs share variables pinned to the CPU; the CPU averages
// the gradients and applies them.
void Towers(Graph& g) {
  g.Variable("w", {4, 4}, "/cpu:0");
  g.Placeholder("x");
  std::vector<std::string> grads;
  for (int i = 0; i < 2; i++) {
    std::string d = "/gpu:" + std::to_string(i), t = "tower_" + std::to_string(i) + "/";
    g.Op(t + "y", "MatMul", {"x", "w/read"}, d);
    g.Op(t + "loss", "Square", {t + "y"}, d);
    g.Op(t + "grad", "Mul", {t + "loss", "w/read"}, d);
    grads.push_back(t + "grad");
  }
  g.AddN("avg", grads, "/cpu:0");
  g.Const("lr", {});
  g.Op("apply", "ApplyGradientDescent", {"w", "lr", "avg"});
}

TEST(SeedsTest, TowersWithVariablesPinnedToTheCpu) {
  Graph g;
  Towers(g);
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("w/read"), "CPU:0");
  EXPECT_EQ(p.Dev("tower_0/y"), "GPU:0");
  EXPECT_EQ(p.Dev("tower_1/grad"), "GPU:1");
  EXPECT_EQ(p.Dev("apply"), "CPU:0");  // through its reference input
  EXPECT_EQ(p.Reason("apply"), GRT_REASON_COLOCATION);
  EXPECT_EQ(p.Dev("lr"), "CPU:0");  // a generator with its only consumer
  EXPECT_EQ(p.Dev("x"), "GPU:0");   // consumers on two GPUs: default
  // w/read crosses to each GPU once, though two ops read it on each.
  const grt_device_set* ds = grt_plan_devices(p.plan());
  int read_copies = 0;
  for (int32_t i = 0; i < grt_plan_num_copies(p.plan()); i++) {
    const grt_plan_copy* c = grt_plan_copy_at(p.plan(), i);
    if (c->src == p.Index("w/read")) {
      read_copies++;
      EXPECT_STREQ(grt_device_set_type(ds, c->dst_device), "GPU");
    }
  }
  EXPECT_EQ(read_copies, 2);
  Placed cpu(g, "cpu:1", true);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  EXPECT_EQ(cpu.Dev("tower_1/y"), "CPU:0");
}

TEST(SeedsTest, GreedySetterOverSeveralVariableSizes) {
  // The seed's GpuParamServerDeviceSetter on a ResNet-like set of variables;
  // the expected loads follow the rule written out independently here.
  const std::vector<std::vector<int64_t>> shapes = {{3, 3, 3, 16},  {16}, {3, 3, 16, 16}, {16},
                                                    {3, 3, 16, 32}, {32}, {3, 3, 32, 32}, {32},
                                                    {3, 3, 32, 64}, {64}, {64, 10},       {10}};
  Graph g;
  for (size_t i = 0; i < shapes.size(); i++) g.Variable("v" + std::to_string(i), shapes[i]);
  Placed p(g, PlaceArgs{"cpu:1,gpu:4", false, "/gpu:0,/gpu:1,/gpu:2,/gpu:3", "greedy"});
  ASSERT_TRUE(p.ok()) << p.error();
  int64_t load[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < shapes.size(); i++) {
    int best = static_cast<int>(std::min_element(load, load + 4) - load);
    int64_t bytes = 4;
    for (int64_t d : shapes[i]) bytes *= d;
    load[best] += bytes;
    std::string v = "v" + std::to_string(i);
    EXPECT_EQ(p.Dev(v), "GPU:" + std::to_string(best)) << v;
    EXPECT_EQ(p.Dev(v + "/Assign"), "GPU:" + std::to_string(best)) << v;
  }
  // Without those GPUs the setter's requests fail like any other, or fall back.
  Placed cpu(g, PlaceArgs{"cpu:1", false, "/gpu:0,/gpu:1,/gpu:2,/gpu:3", "greedy"});
  EXPECT_FALSE(cpu.ok());
  Placed soft(g, PlaceArgs{"cpu:1", true, "/gpu:0,/gpu:1,/gpu:2,/gpu:3", "greedy"});
  ASSERT_TRUE(soft.ok()) << soft.error();
  EXPECT_EQ(soft.Dev("v4"), "CPU:0");
}

}  // namespace
