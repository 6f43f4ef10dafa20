// A device type registered at run time, as a backend plugin registers its
// own: "TEST" (priority 150, between GPU's 210 and CPU's 70) with rows for a
// handful of ops. The placer plans for it exactly as for CPU and GPU.
//
// Registration is global to the process: the fixture registers TEST once.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/placer/placer_helper.h"

extern "C" {
#include "base/dtype.h"
#include "base/mem.h"
#include "kernels/kernel_registry.h"
#include "ops/graph.h"
}

namespace {

using grt_test::Graph;
using grt_test::Placed;
using grt_test::Status;

const grt_kernel_spec kTestRows[] = {
    {"Const", "TEST", "dtype: {float32}", "", 0},
    {"Identity", "TEST", "T: {float32}", "", 0},
    {"Add", "TEST", "T: {float32}", "", 0},
    {"MatMul", "TEST", "T: {float32}", "", 0},
    {"Shape", "test", "T: {float32}", "output", 0},            // the device in any case
    {"Mul", "TEST", "T: {float32}", "", 1},                    // a kernel priority: TEST first
    {"Maximum", "TEST", "T: {float32}", "", -1},               // below CPU's and GPU's 0: TEST last
    {"Neg", "TEST", "T: {float32}" GRT_INT32_ON_HOST, "", 0},  // two rows: float32, int32
};
constexpr int32_t kNumTestRows = sizeof kTestRows / sizeof kTestRows[0];

grt_device_type g_test = -1;

class TestType : public ::testing::Test {
 protected:
  void SetUp() override {
    static bool registered = false;
    if (!registered) {
      GRT_ASSERT_OK(grt_device_type_register("TEST", 150, kTestRows, kNumTestRows, &g_test));
      registered = true;
    }
    ASSERT_GE(g_test, 2);
  }
  uint32_t Bit() const { return 1u << g_test; }
};

uint32_t Supported(Graph& g, const char* name, int32_t kern[GRT_MAX_DEVICE_TYPES]) {
  g.Validate();
  const grt_node* n = &g.get()->nodes[grt_graph_find_node(g.get(), name)];
  return grt_kernel_supported(n, kern);
}

std::string Capture(grt_status* (*write)(const grt_plan*, FILE*), const grt_plan* p) {
  char* text = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  Status st(write(p, f));
  fclose(f);
  EXPECT_TRUE(st.ok()) << st.msg();
  std::string out(text, len);
  free(text);
  return out;
}

TEST_F(TestType, IsRegisteredByName) {
  EXPECT_EQ(g_test, 2);  // the first type after the built-in ones
  EXPECT_GE(grt_device_type_count(), 3);
  EXPECT_STREQ(grt_device_type_name(g_test), "TEST");
  EXPECT_EQ(grt_device_type_priority(g_test), 150);
  grt_device_type t = -1;
  ASSERT_TRUE(grt_device_type_from_name("test", &t));
  EXPECT_EQ(t, g_test);
  ASSERT_TRUE(grt_device_type_from_name("Test", &t));
  EXPECT_EQ(t, g_test);
}

TEST_F(TestType, KernelSupportIncludesIt) {
  Graph g;
  g.Const("a", {2, 2}).Const("b", {2, 2}).Op("m", "MatMul", {"a", "b"});
  g.Const("ia", {2}, "", GRT_INT32).Const("ib", {2}, "", GRT_INT32);
  g.Op("iadd", "Add", {"ia", "ib"}, "", GRT_INT32);
  g.Op("sub", "Sub", {"a", "b"});
  int32_t kern[GRT_MAX_DEVICE_TYPES];
  uint32_t cpu = 1u << GRT_DEVICE_CPU, gpu = 1u << GRT_DEVICE_GPU;
  ASSERT_EQ(Supported(g, "m", kern), cpu | gpu | Bit());
  const grt_kernel_def* k = grt_kernel_at(kern[g_test]);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->device, g_test);
  EXPECT_EQ(k->spec, &kTestRows[3]);
  EXPECT_EQ(k->index, kern[g_test]);
  EXPECT_EQ(grt_kernel_find(&g.get()->nodes[grt_graph_find_node(g.get(), "m")], g_test),
            kern[g_test]);
  for (int t = 3; t < GRT_MAX_DEVICE_TYPES; t++) EXPECT_EQ(kern[t], -1);
  const grt_kernel_def* rows_of_m[GRT_MAX_DEVICE_TYPES];
  EXPECT_EQ(
      grt_kernel_supported_rows(&g.get()->nodes[grt_graph_find_node(g.get(), "m")], rows_of_m),
      cpu | gpu | Bit());
  for (int t = 0; t < GRT_MAX_DEVICE_TYPES; t++)
    EXPECT_EQ(rows_of_m[t], kern[t] < 0 ? nullptr : grt_kernel_at(kern[t])) << t;
  EXPECT_EQ(Supported(g, "iadd", kern), cpu | gpu);  // float32 only on TEST
  EXPECT_EQ(kern[g_test], -1);
  EXPECT_EQ(Supported(g, "sub", kern), cpu | gpu);  // no row at all
  // Rows by op cover every type; the new rows come after the built-in ones.
  const grt_kernel_def* const* rows;
  int32_t n = grt_kernel_find_op("MatMul", &rows);
  ASSERT_GE(n, 3);
  EXPECT_EQ(rows[n - 1]->device, g_test);
  EXPECT_GE(grt_kernel_count(), grt_kernels_cpu.n + grt_kernels_gpu.n + kNumTestRows);
  int32_t first = 0;
  while (grt_kernel_at(first) && grt_kernel_at(first)->device != g_test) first++;
  ASSERT_NE(grt_kernel_at(first), nullptr);
  EXPECT_EQ(grt_kernel_at(first)->spec, &kTestRows[0]);
  char buf[4096];
  grt_kernel_describe_op("MatMul", buf, sizeof buf);
  EXPECT_NE(std::string(buf).find("device='TEST'; T in [float32]"), std::string::npos) << buf;
}

TEST_F(TestType, PinnedNodesPlaceThere) {
  Graph g;
  g.Const("a", {2, 2}, "/device:TEST:0").Const("b", {2, 2}, "/test:1");
  g.Op("m", "MatMul", {"a", "b"}, "/job:localhost/replica:0/task:0/device:TEST:1");
  g.Op("id", "Identity", {"m"}, "TEST:0");
  Placed p(g, "cpu:1,gpu:1,test:2");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("a"), "TEST:0");
  EXPECT_EQ(p.Dev("b"), "TEST:1");
  EXPECT_EQ(p.Dev("m"), "TEST:1");
  EXPECT_EQ(p.Dev("id"), "TEST:0");
  EXPECT_EQ(p.Reason("m"), GRT_REASON_EXPLICIT);
  // The set orders devices by type id: CPU, GPU, then TEST.
  const grt_device_set* ds = grt_plan_devices(p.plan());
  ASSERT_EQ(grt_device_set_count(ds), 4);
  EXPECT_STREQ(grt_device_set_type(ds, 1), "GPU");
  EXPECT_STREQ(grt_device_set_type(ds, 2), "TEST");
  EXPECT_EQ(grt_device_set_type_id(ds, 3), g_test);
  EXPECT_EQ(grt_device_set_count_type(ds, "test"), 2);
  EXPECT_EQ(grt_device_set_find(ds, "/device:TEST:1"), 3);
}

TEST_F(TestType, DefaultPreferenceFollowsPriority) {
  Graph g;
  g.Const("a", {2, 2}).Const("b", {2, 2}).Op("m", "MatMul", {"a", "b"});
  {
    Placed p(g, "cpu:1,gpu:1,test:1");  // GPU 210 > TEST 150 > CPU 70
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p.Dev("m"), "GPU:0");
    EXPECT_EQ(p.Dev("a"), "GPU:0");  // generators follow their consumer
    EXPECT_EQ(p.Reason("m"), GRT_REASON_DEFAULT);
    EXPECT_NE(p.Text("m").find("GPU before TEST before CPU"), std::string::npos) << p.Text("m");
  }
  {
    Placed p(g, "cpu:1,test:1");
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p.Dev("m"), "TEST:0");
    EXPECT_EQ(p.Dev("a"), "TEST:0");
  }
  {
    Placed p(g, "test:1,cpu:2");
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p.Dev("m"), "TEST:0");
  }
  {
    Placed p(g, "cpu:1,gpu:1");  // a set without TEST: as before TEST existed
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p.Dev("m"), "GPU:0");
    EXPECT_NE(p.Text("m").find(", GPU before CPU, lowest id first"), std::string::npos)
        << p.Text("m");
  }
  {
    Placed p(g, "cpu:1");
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p.Dev("m"), "CPU:0");
  }
}

TEST_F(TestType, KernelPriorityPutsItsTypeFirst) {
  Graph g;
  g.Placeholder("x").Placeholder("y").Op("mul", "Mul", {"x", "y"}).Op("add", "Add", {"x", "y"});
  Placed p(g, "cpu:1,gpu:1,test:1");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("mul"), "TEST:0");  // its TEST row has priority 1, the others 0
  EXPECT_EQ(p.Dev("add"), "GPU:0");
  Placed without(g, "cpu:1,gpu:1");
  ASSERT_TRUE(without.ok()) << without.error();
  EXPECT_EQ(without.Dev("mul"), "GPU:0");
  // Colocated with a node that prefers the device types' order, the group
  // keeps the kernel's preference (as CPU_FIRST/GPU_FIRST did).
  Graph h;
  h.Placeholder("x").Placeholder("y").Op("mul", "Mul", {"x", "y"});
  h.Op("add", "Add", {"x", "y"}).ColocateWith("mul");
  Placed q(h, "cpu:1,gpu:1,test:1");
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(q.Dev("add"), "TEST:0");
  EXPECT_EQ(q.Dev("mul"), "TEST:0");
}

// A colocation group whose members' kernel priorities put different types
// first falls back to the device types' order (TensorFlow drops the
// CPU_FIRST/GPU_FIRST preference when a group's members disagree). Sub's
// TEST row (-1) puts CPU, or GPU where there is one, before TEST; Mul's
// (1) puts TEST first. Each group is formed both ways round, so that taking
// either member's order instead of the default fails one of them: returning
// the first member's order was planted by hand and caught here.
TEST_F(TestType, ColocatedKernelPrioritiesThatDisagreeFallBackToTheDefault) {
  {
    Graph g;  // alone, each keeps its kernel's preference
    g.Placeholder("x")
        .Placeholder("y")
        .Op("mul", "Mul", {"x", "y"})
        .Op("max", "Maximum", {"x", "y"});
    Placed p(g, "cpu:1,test:1");
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p.Dev("mul"), "TEST:0");
    EXPECT_EQ(p.Dev("max"), "CPU:0");
    Placed q(g, "cpu:1,gpu:1,test:1");
    ASSERT_TRUE(q.ok()) << q.error();
    EXPECT_EQ(q.Dev("mul"), "TEST:0");
    EXPECT_EQ(q.Dev("max"), "GPU:0");
  }
  // spec, the default order's first type
  const std::pair<const char*, const char*> sets[] = {{"cpu:1,test:1", "TEST:0"},
                                                      {"cpu:1,gpu:1,test:1", "GPU:0"}};
  for (bool max_first : {true, false}) {
    Graph g;
    g.Placeholder("x").Placeholder("y");
    if (max_first) {
      g.Op("max", "Maximum", {"x", "y"}).Op("mul", "Mul", {"x", "y"}).ColocateWith("max");
    } else {
      g.Op("mul", "Mul", {"x", "y"}).Op("max", "Maximum", {"x", "y"}).ColocateWith("mul");
    }
    for (const auto& [spec, want] : sets) {
      Placed p(g, spec);
      ASSERT_TRUE(p.ok()) << spec << ": " << p.error();
      EXPECT_EQ(p.Dev("mul"), want)
          << spec << (max_first ? ", mul colocated with max" : ", max colocated with mul");
      EXPECT_EQ(p.Dev("max"), want)
          << spec << (max_first ? ", mul colocated with max" : ", max colocated with mul");
    }
  }
}

TEST_F(TestType, NoKernelOnPinnedTypeFailsOrFallsBack) {
  Graph g;
  g.Const("a", {2}, "", GRT_INT32).Const("b", {2}, "", GRT_INT32);
  g.Op("add", "Add", {"a", "b"}, "/device:TEST:0", GRT_INT32);
  Placed hard(g, "cpu:1,test:1");
  ASSERT_FALSE(hard.ok());
  EXPECT_EQ(hard.status().code(), GRT_INVALID_ARGUMENT);
  EXPECT_NE(hard.error().find("Cannot assign a device for operation add: Could not satisfy "
                              "explicit device specification '/device:TEST:0' because no "
                              "supported kernel for TEST devices is available."),
            std::string::npos)
      << hard.error();
  EXPECT_NE(hard.error().find("add (Add) /device:TEST:0 supported: CPU\n"), std::string::npos)
      << hard.error();
  EXPECT_NE(hard.error().find("device='TEST'; T in [float32]"), std::string::npos) << hard.error();
  Placed soft(g, "cpu:1,test:1", true);
  ASSERT_TRUE(soft.ok()) << soft.error();
  EXPECT_EQ(soft.Dev("add"), "CPU:0");
  EXPECT_EQ(soft.Reason("add"), GRT_REASON_SOFT_FALLBACK);
  EXPECT_EQ(soft.Cause("add"), GRT_CAUSE_NO_KERNEL);
  // An op no type in the set runs: TensorFlow's first check lists the types.
  Graph h;
  h.Const("a", {2}, "", GRT_INT32).Const("b", {2}, "", GRT_INT32);
  h.Op("pow", "Pow", {"a", "b"}, "", GRT_INT32);
  Placed none(h, "cpu:1,test:1");
  ASSERT_TRUE(none.ok()) << none.error();  // CPU has one
  EXPECT_EQ(none.Dev("pow"), "CPU:0");
}

TEST_F(TestType, HostMemoryFollowsTheRowOffTheCpu) {
  Graph g;
  g.Const("c", {2, 2}, "/device:TEST:0");
  g.Node("shape", "Shape", {"c"}, "/device:TEST:0").T(GRT_FLOAT32);
  g.Op("id", "Identity", {"c"}, "/device:TEST:0");
  g.Node("cpu_shape", "Shape", {"c"}, "/cpu:0").T(GRT_FLOAT32);
  g.Node("use", "Identity", {"shape"}, "/cpu:0").T(GRT_INT32);
  Placed p(g, "cpu:1,test:1");
  ASSERT_TRUE(p.ok()) << p.error();
  grt_plan* plan = p.plan();
  EXPECT_TRUE(grt_plan_output_in_host_memory(plan, p.Index("shape"), 0));  // the host_memory row
  EXPECT_FALSE(grt_plan_input_in_host_memory(plan, p.Index("shape"), 0));
  EXPECT_FALSE(grt_plan_output_in_host_memory(plan, p.Index("id"), 0));
  EXPECT_FALSE(grt_plan_output_in_host_memory(plan, p.Index("c"), 0));
  EXPECT_TRUE(grt_plan_output_in_host_memory(plan, p.Index("cpu_shape"), 0));  // CPU: all host
  EXPECT_TRUE(grt_plan_input_in_host_memory(plan, p.Index("cpu_shape"), 0));
  bool found = false;
  for (int32_t i = 0; i < grt_plan_num_copies(plan); i++) {
    const grt_plan_copy* c = grt_plan_copy_at(plan, i);
    if (c->src != p.Index("shape")) continue;
    found = true;
    EXPECT_TRUE(c->src_host_memory);
  }
  EXPECT_TRUE(found);
}

TEST_F(TestType, WritersNameTestDevices) {
  Graph g;
  g.Const("a", {2, 2}).Const("b", {2, 2}).Op("m", "MatMul", {"a", "b"}, "/device:TEST:0");
  g.Op("id", "Identity", {"m"}, "/cpu:0");
  Placed p(g, "cpu:1,test:1");
  ASSERT_TRUE(p.ok()) << p.error();
  std::string log = Capture(grt_plan_write_log, p.plan());
  EXPECT_NE(log.find("/job:localhost/replica:0/task:0/device:TEST:0 -> device: 0, name: "
                     "logical TEST device (declared; not on this machine)\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("m: (MatMul): /job:localhost/replica:0/task:0/device:TEST:0\n"),
            std::string::npos)
      << log;
  std::string json = Capture(grt_plan_write_json, p.plan());
  EXPECT_NE(json.find("\"name\": \"/job:localhost/replica:0/task:0/device:TEST:0\", \"type\": "
                      "\"TEST\", \"id\": 0"),
            std::string::npos)
      << json;
  std::string dot = Capture(grt_plan_write_dot, p.plan());
  EXPECT_NE(dot.find("TEST:0"), std::string::npos) << dot;
}

TEST_F(TestType, SpecParseKnowsIt) {
  grt_device_count c[4];
  int32_t n = 0;
  GRT_ASSERT_OK(grt_device_spec_parse("cpu:2,test:1", c, 4, &n));
  ASSERT_EQ(n, 2);
  EXPECT_STREQ(c[1].type, "TEST");
  EXPECT_EQ(c[1].declared, 1);
  EXPECT_EQ(c[1].present, 0);
  Status bad(grt_device_spec_parse("tpu:1", c, 4, &n));
  EXPECT_NE(bad.msg().find("unknown device type 'tpu' (cpu, gpu or test)"), std::string::npos)
      << bad.msg();
  grt_device_count tpu = {"TPU", 1, 0};
  grt_device_set* ds = nullptr;
  Status bad_set(grt_device_set_new(&tpu, 1, &ds));
  EXPECT_NE(bad_set.msg().find("(known types: CPU, GPU, TEST)"), std::string::npos)
      << bad_set.msg();
}

TEST_F(TestType, RegisteringTheNameAgainFails) {
  const grt_kernel_spec other[] = {{"Const", "TEST", "dtype: {float32}", "", 0}};
  grt_device_type t = -1;
  Status again(grt_device_type_register("test", 150, other, 1, &t));
  EXPECT_EQ(again.code(), GRT_ALREADY_EXISTS);
  EXPECT_NE(again.msg().find("TEST"), std::string::npos) << again.msg();
  EXPECT_EQ(t, -1);
  // The same rows again (a plugin loaded twice): its id, nothing new.
  GRT_ASSERT_OK(grt_device_type_register("TEST", 150, kTestRows, kNumTestRows, &t));
  EXPECT_EQ(t, g_test);
  Status cpu(grt_device_type_register("Cpu", 70, other, 1, &t));
  EXPECT_EQ(cpu.code(), GRT_ALREADY_EXISTS);
}

TEST_F(TestType, Int32OnHostRowStandsForTwo) {
  // The Neg row with the int32-on-host marker: a float32 row as written and,
  // right after it, an int32 row with every argument in host memory.
  const grt_kernel_def* const* rows;
  int32_t n = grt_kernel_find_op("Neg", &rows);
  std::vector<const grt_kernel_def*> mine;
  for (int32_t i = 0; i < n; i++)
    if (rows[i]->device == g_test) mine.push_back(rows[i]);
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[1]->index, mine[0]->index + 1);
  for (const grt_kernel_def* k : mine) {
    EXPECT_EQ(k->spec, &kTestRows[kNumTestRows - 1]);
    ASSERT_EQ(k->n_constraints, 1);
    EXPECT_STREQ(k->constraints[0].attr, "T");
  }
  EXPECT_EQ(mine[0]->constraints[0].allowed, grt_dtype_bit(GRT_FLOAT32));
  EXPECT_EQ(mine[0]->host_inputs | mine[0]->host_outputs, 0u);
  EXPECT_EQ(mine[1]->constraints[0].allowed, grt_dtype_bit(GRT_INT32));
  EXPECT_EQ(mine[1]->host_inputs, 1u);   // x
  EXPECT_EQ(mine[1]->host_outputs, 1u);  // y
  char buf[4096];
  grt_kernel_describe_op("Neg", buf, sizeof buf);
  EXPECT_NE(std::string(buf).find("device='TEST'; T in [float32]\n"), std::string::npos) << buf;
  EXPECT_NE(std::string(buf).find("device='TEST'; T in [int32]; host memory: x, y\n"),
            std::string::npos)
      << buf;

  // A node picks the row by its dtype.
  Graph g;
  g.Const("i", {2}, "", GRT_INT32).Op("ineg", "Neg", {"i"}, "", GRT_INT32);
  g.Const("f", {2}).Op("fneg", "Neg", {"f"});
  g.Const("d", {2}, "", GRT_FLOAT64).Op("dneg", "Neg", {"d"}, "", GRT_FLOAT64);
  int32_t kern[GRT_MAX_DEVICE_TYPES];
  ASSERT_TRUE(Supported(g, "ineg", kern) & Bit());
  EXPECT_EQ(kern[g_test], mine[1]->index);
  const grt_node* ineg = &g.get()->nodes[grt_graph_find_node(g.get(), "ineg")];
  EXPECT_TRUE(grt_kernel_input_in_host_memory(mine[1], ineg, 0));
  EXPECT_TRUE(grt_kernel_output_in_host_memory(mine[1], ineg, 0));
  ASSERT_TRUE(Supported(g, "fneg", kern) & Bit());
  EXPECT_EQ(kern[g_test], mine[0]->index);
  EXPECT_FALSE(Supported(g, "dneg", kern) & Bit());
}

TEST_F(TestType, BadRowsRegisterNothing) {
  int32_t types = grt_device_type_count(), rows = grt_kernel_count();
  struct {
    const char* name;
    grt_kernel_spec row;
    const char* want;
  } bad[] = {
      {"BAD", {"NoSuchOp", "BAD", "", "", 0}, "kernel row 1 (NoSuchOp on BAD): no op 'NoSuchOp'"},
      {"BAD", {"Add", "GPU", "T: {float32}", "", 0}, "sits in the BAD table"},
      {"BAD", {"Add", "BAD", "T: {float99}", "", 0}, "unknown dtype 'float99'"},
      {"BAD", {"Add", "BAD", "N: {float32}", "", 0}, "'N' is not a type attr of Add"},
      {"BAD", {"Add", "BAD", "T: {float32}", "w", 0}, "'w' is not an argument of Add"},
      {"BAD", {"Const", "BAD", "dtype: {float32, int32}", "", 0}, "can match the same node"},
      {"BAD", {nullptr, "BAD", "", "", 0}, "kernel row 1"},
      {"BAD",
       {"Neg", "BAD", "T: {float32} + int64 on host", "", 0},
       "'+ int64 on host' after the dtypes of 'T': only '+ int32 on host' may follow"},
      {"BAD", {"Neg", "BAD", "T: {float32} int32 on host", "", 0}, "only '+ int32 on host'"},
      {"BAD",
       {"Neg", "BAD", "T: {float32, int32} + int32 on host", "", 0},
       "'T' lists int32 and '+ int32 on host'"},
      {"BAD",
       {"Sqrt", "BAD", "T: {float32} + int32 on host", "", 0},
       "'+ int32 on host' on 'T', which Sqrt does not allow to be int32"},
      {"BAD",
       {"Slice", "BAD", "T: {float32} + int32 on host; Index: {int64} + int32 on host", "", 0},
       "on more than one attr"},
      {"BAD",
       {"Sqrt", "BAD", "T: {float32, int8}", "", 0},
       "constraint on 'T' allows dtypes Sqrt does not"},
  };
  for (const auto& b : bad) {
    const grt_kernel_spec two[] = {{"Const", b.name, "dtype: {float32}", "", 0}, b.row};
    grt_device_type t = -1;
    Status st(grt_device_type_register(b.name, 10, two, 2, &t));
    ASSERT_FALSE(st.ok()) << b.want;
    EXPECT_EQ(st.code(), GRT_INVALID_ARGUMENT) << st.msg();
    EXPECT_NE(st.msg().find(b.want), std::string::npos) << st.msg();
    EXPECT_EQ(t, -1);
    EXPECT_FALSE(grt_device_type_from_name(b.name, &t));
    EXPECT_EQ(grt_device_type_count(), types);
    EXPECT_EQ(grt_kernel_count(), rows);
  }
  {
    // The int32 row a marker stands for clashes with a row written out: the
    // error names the table rows, not the parsed ones.
    const grt_kernel_spec clash[] = {{"Const", "BAD", "dtype: {int32}", "output", 0},
                                     {"Const", "BAD", "dtype: {float16} + int32 on host", "", 0}};
    grt_device_type t = -1;
    Status st(grt_device_type_register("BAD", 10, clash, 2, &t));
    EXPECT_EQ(st.code(), GRT_INVALID_ARGUMENT);
    EXPECT_NE(st.msg().find("kernel rows 0 and 1 (Const on BAD) can match the same node"),
              std::string::npos)
        << st.msg();
    EXPECT_EQ(grt_kernel_count(), rows);
  }
  // Names are shorter than GRT_DEVICE_TYPE_NAME_MAX (32): 32 and 33 letters fail.
  for (const char* name : {"", "1X", "A-B", "A B", "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF",
                           "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG"}) {
    grt_device_type t = -1;
    Status st(grt_device_type_register(name, 10, nullptr, 0, &t));
    EXPECT_EQ(st.code(), GRT_INVALID_ARGUMENT) << name;
  }
  grt_device_type t = -1;
  Status null_name(grt_device_type_register(nullptr, 10, nullptr, 0, &t));
  EXPECT_EQ(null_name.code(), GRT_INVALID_ARGUMENT);
  Status no_rows(grt_device_type_register("NOROWS", 10, nullptr, 3, &t));
  EXPECT_EQ(no_rows.code(), GRT_INVALID_ARGUMENT);
  EXPECT_EQ(grt_device_type_count(), types);
}

TEST_F(TestType, OutOfMemoryIsResourceExhaustedAndRegistersNothing) {
  static const grt_kernel_spec rows[] = {
      {"Const", "OOMTEST", "dtype: {float32}", "", 0},
      {"Add", "OOMTEST", "T: {float32, float64}", "", 0},
      {"Shape", "OOMTEST", "T: {float32}", "output", 0},
  };
  // Lists handed out before stay valid after a registration replaces them.
  const grt_kernel_def* const* before;
  int32_t n_before = grt_kernel_find_op("Const", &before);
  int32_t types = grt_device_type_count();
  grt_device_type t = -1;
  bool done = false;
  int failures = 0;
  for (int64_t n = 0; n < 1000 && !done; n++) {
    grt_mem_fail_after(n);
    grt_status* s = grt_device_type_register("OOMTEST", 20, rows, 3, &t);
    grt_mem_fail_after(-1);
    if (!s) {
      done = true;
      break;
    }
    failures++;
    EXPECT_EQ(grt_status_code(s), GRT_RESOURCE_EXHAUSTED) << n << ": " << grt_status_message(s);
    grt_status_free(s);
    EXPECT_EQ(grt_device_type_count(), types) << n;
    EXPECT_FALSE(grt_device_type_from_name("OOMTEST", &t)) << n;
  }
  ASSERT_TRUE(done);
  EXPECT_GE(failures, 4);  // the arena, the rows, the new op table...
  EXPECT_EQ(grt_device_type_count(), types + 1);
  EXPECT_STREQ(grt_device_type_name(t), "OOMTEST");
  const grt_kernel_def* const* after;
  int32_t n_after = grt_kernel_find_op("Const", &after);
  EXPECT_EQ(n_after, n_before + 1);
  for (int32_t i = 0; i < n_before; i++) {
    EXPECT_EQ(before[i], after[i]);  // the rows themselves never move
    EXPECT_STREQ(before[i]->op, "Const");
  }
}

TEST_F(TestType, LookupsRunWhileAnotherTypeRegisters) {
  Graph g;
  g.Const("a", {2, 2}).Const("b", {2, 2}).Op("m", "MatMul", {"a", "b"});
  g.Validate();
  const grt_node* m = &g.get()->nodes[grt_graph_find_node(g.get(), "m")];
  static const grt_kernel_spec rows[] = {{"MatMul", "CONC", "T: {float32}", "", 0}};
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; r++)
    readers.emplace_back([&] {
      while (!stop.load()) {
        int32_t kern[GRT_MAX_DEVICE_TYPES];
        uint32_t mask = grt_kernel_supported(m, kern);
        for (int t = 0; t < GRT_MAX_DEVICE_TYPES; t++) {
          if (!(mask & (1u << t))) continue;
          const grt_kernel_def* k = grt_kernel_at(kern[t]);
          if (!k || k->device != t || grt_device_type_name(t)[0] == '?') bad++;
        }
        const grt_kernel_def* const* list;
        int32_t n = grt_kernel_find_op("MatMul", &list);
        for (int32_t i = 0; i < n; i++)
          if (std::string(list[i]->op) != "MatMul") bad++;
      }
    });
  grt_device_type t = -1;
  Status st(grt_device_type_register("CONC", 5, rows, 1, &t));
  stop = true;
  for (auto& th : readers) th.join();
  ASSERT_TRUE(st.ok()) << st.msg();
  EXPECT_EQ(bad.load(), 0);
  int32_t kern[GRT_MAX_DEVICE_TYPES];
  EXPECT_TRUE(grt_kernel_supported(m, kern) & (1u << t));
}

}  // namespace
