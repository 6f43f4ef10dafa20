// The placement rules (docs/placement.md) on small graphs: explicit
// requests, default priority, kernel support, colocation groups, the
// generator and metadata heuristics, copies.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tests/placer/placer_helper.h"

namespace {

using grt_test::Graph;
using grt_test::Placed;

TEST(PlacerRulesTest, ExplicitRequestIsHonoured) {
  Graph g;
  g.Const("a", {2, 2}, "/gpu:1").Const("b", {2, 2}, "/device:CPU:0");
  g.Op("m", "MatMul", {"a", "b"}, "GPU:0");
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("a"), "GPU:1");
  EXPECT_EQ(p.Dev("b"), "CPU:0");
  EXPECT_EQ(p.Dev("m"), "GPU:0");
  EXPECT_EQ(p.Reason("a"), GRT_REASON_EXPLICIT);
  EXPECT_EQ(p.Text("a"), "explicitly requested '/gpu:1'");
  EXPECT_STREQ(grt_plan_node_requested(p.plan(), p.Index("b")), "/device:CPU:0");
  EXPECT_STREQ(grt_plan_node_device_name(p.plan(), p.Index("m")),
               "/job:localhost/replica:0/task:0/device:GPU:0");
}

TEST(PlacerRulesTest, NoRequestPrefersGpuThenLowestId) {
  Graph g;
  g.Placeholder("x").Placeholder("y").Op("m", "MatMul", {"x", "y"});
  Placed gpus(g, "cpu:2,gpu:11");
  ASSERT_TRUE(gpus.ok()) << gpus.error();
  EXPECT_EQ(gpus.Dev("m"), "GPU:0");
  EXPECT_EQ(gpus.Reason("m"), GRT_REASON_DEFAULT);
  Placed cpus(g, "cpu:3");
  ASSERT_TRUE(cpus.ok());
  EXPECT_EQ(cpus.Dev("m"), "CPU:0");
}

TEST(PlacerRulesTest, PartialRequestsPickTheLowestMatchingId) {
  Graph g;
  g.Const("any_gpu", {1}, "/device:GPU").Const("wild", {1}, "/gpu:*");
  g.Const("job", {1}, "/job:localhost").Const("gpu10", {1}, "/job:localhost/device:GPU:10");
  g.Op("sum", "AddN", {"any_gpu", "wild", "job", "gpu10"}).Int("N", 4);
  Placed p(g, "cpu:1,gpu:12");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("any_gpu"), "GPU:0");
  EXPECT_EQ(p.Dev("wild"), "GPU:0");
  EXPECT_EQ(p.Dev("job"), "GPU:0");
  EXPECT_EQ(p.Dev("gpu10"), "GPU:10");
}

TEST(PlacerRulesTest, OpsWithoutAKernelForATypeNeverLandThere) {
  Graph g;
  g.Const("a", {2, 2}, "", GRT_INT32).Const("b", {2, 2}, "", GRT_INT32);
  g.Op("m", "MatMul", {"a", "b"}, "", GRT_INT32);
  g.Const("fa", {2, 2}).Const("fb", {2, 2}).Op("fm", "MatMul", {"fa", "fb"});
  Placed p(g, "cpu:1,gpu:1");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("m"), "CPU:0");  // no int32 MatMul on GPUs
  EXPECT_EQ(p.Dev("fm"), "GPU:0");
}

TEST(PlacerRulesTest, ReferenceEdgesColocateVariableAndUpdates) {
  Graph g;
  g.Var("w", {4}, "/gpu:1").Var("m", {4}).Var("v", {4});
  g.Const("lr", {}).Const("grad", {4});
  g.Op("adam", "ApplyAdam", {"w", "m", "v", "lr", "lr", "lr", "lr", "lr", "lr", "grad"});
  g.Const("init", {4}).Op("w/Assign", "Assign", {"w", "init"});
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  for (const char* n : {"w", "m", "v", "adam", "w/Assign"}) EXPECT_EQ(p.Dev(n), "GPU:1") << n;
  EXPECT_EQ(p.Reason("w"), GRT_REASON_EXPLICIT);
  EXPECT_EQ(p.Reason("m"), GRT_REASON_COLOCATION);
  EXPECT_EQ(p.Text("m"), "colocated with 'w' (which requested '/gpu:1')");
  EXPECT_EQ(p.Reason("adam"), GRT_REASON_COLOCATION);
}

TEST(PlacerRulesTest, AReferenceConsumersRequestYieldsToItsVariable) {
  // TensorFlow: "Ignoring device specification /GPU:1 for node 'a' because
  // the input edge from 'w' is a reference connection".
  Graph g;
  g.Var("w", {4}, "/gpu:0").Const("init", {4}).Op("a", "Assign", {"w", "init"}, "/gpu:1");
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("a"), "GPU:0");
  EXPECT_EQ(p.Reason("a"), GRT_REASON_COLOCATION);
  EXPECT_EQ(p.Cause("a"), GRT_CAUSE_REF_EDGE);
  EXPECT_NE(p.Text("a").find("request '/gpu:1' ignored: 'w' reaches it through a reference edge"),
            std::string::npos)
      << p.Text("a");
}

TEST(PlacerRulesTest, ColocateWithJoinsGroupsAndMergesRequests) {
  Graph g;
  g.Var("w", {4}, "/job:localhost").Const("c", {4}, "/device:GPU:1").ColocateWith("w");
  g.Op("r", "Identity", {"w"}).ColocateWith("w");
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("w"), "GPU:1");  // /job:localhost merged with /device:GPU:1
  EXPECT_EQ(p.Dev("c"), "GPU:1");
  EXPECT_EQ(p.Dev("r"), "GPU:1");
  EXPECT_EQ(p.Reason("r"), GRT_REASON_COLOCATION);
}

TEST(PlacerRulesTest, GroupsUseOnlyTypesEveryMemberSupports) {
  Graph g;  // int32 variables have no GPU kernel, so their reads stay on the CPU
  g.Var("step", {}, "", GRT_INT32).Op("step/read", "Identity", {"step"}, "", GRT_INT32);
  g.Op("ident", "Identity", {"step/read"}, "", GRT_INT32).ColocateWith("step");
  Placed p(g, "cpu:1,gpu:1");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("step"), "CPU:0");
  EXPECT_EQ(p.Dev("ident"), "CPU:0");
  EXPECT_EQ(p.Dev("step/read"), "GPU:0");  // not in the group: int32 Identity runs on GPU
  EXPECT_TRUE(grt_plan_input_in_host_memory(p.plan(), p.Index("step/read"), 0));
}

TEST(PlacerRulesTest, GeneratorsFollowTheirConsumers) {
  Graph g;
  g.Const("c", {2, 2}).Placeholder("x", "/gpu:1").Op("m", "MatMul", {"x", "c"}, "/gpu:1");
  g.Const("shared", {2, 2})
      .Op("u", "Neg", {"shared"}, "/gpu:0")
      .Op("v", "Neg", {"shared"}, "/cpu:0");
  g.Const("partial", {2}, "/device:GPU").Op("w", "Neg", {"partial"}, "/gpu:1");
  g.Const("pinned", {2}, "/gpu:0").Op("z", "Neg", {"pinned"}, "/gpu:1");
  g.Const("alone", {2});
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("c"), "GPU:1");
  EXPECT_EQ(p.Reason("c"), GRT_REASON_CONSUMERS);
  EXPECT_EQ(p.Text("c"),
            "generator placed with its consumers, all on "
            "/job:localhost/replica:0/task:0/device:GPU:1 (first: 'm')");
  EXPECT_EQ(p.Dev("x"), "GPU:1");
  EXPECT_EQ(p.Dev("shared"), "GPU:0");  // consumers disagree: default
  EXPECT_EQ(p.Reason("shared"), GRT_REASON_DEFAULT);
  EXPECT_EQ(p.Dev("partial"), "GPU:1");  // within its own request, as TensorFlow does
  EXPECT_EQ(p.Dev("pinned"), "GPU:0");   // an exact request always wins
  EXPECT_EQ(p.Dev("alone"), "GPU:0");
}

TEST(PlacerRulesTest, ShapeSizeRankFollowTheirInput) {
  Graph g;
  g.Placeholder("x", "/cpu:0").Placeholder("y", "/gpu:1");
  g.Op("sx", "Shape", {"x"}).Op("zx", "Size", {"x"}).Op("rx", "Rank", {"x"});
  g.Op("sy", "Shape", {"y"}).Op("other", "Neg", {"x"});
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  for (const char* n : {"sx", "zx", "rx"}) {
    EXPECT_EQ(p.Dev(n), "CPU:0") << n;
    EXPECT_EQ(p.Reason(n), GRT_REASON_INPUT) << n;
  }
  EXPECT_EQ(p.Text("sx"), "Shape placed with its input 'x'");
  EXPECT_EQ(p.Dev("sy"), "GPU:1");
  EXPECT_EQ(p.Dev("other"), "GPU:0");  // not metadata: default
  EXPECT_TRUE(grt_plan_output_in_host_memory(p.plan(), p.Index("sy"), 0));
}

TEST(PlacerRulesTest, MetadataOfAGeneratorWaitsForIt) {
  // TensorFlow gives up on heuristic B when the input is a generator (not yet
  // placed); here Shape waits, and does not stop the generator from
  // following its other consumers.
  Graph g;
  g.Placeholder("z").Op("s", "Shape", {"z"}).Op("r", "Rank", {"s"}, "", GRT_INT32);
  g.Op("use", "Neg", {"z"}, "/gpu:1");
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("z"), "GPU:1");
  EXPECT_EQ(p.Reason("z"), GRT_REASON_CONSUMERS);
  EXPECT_EQ(p.Dev("s"), "GPU:1");
  EXPECT_EQ(p.Reason("s"), GRT_REASON_INPUT);
  EXPECT_EQ(p.Dev("r"), "GPU:1");  // Rank of a deferred Shape waits too
  EXPECT_EQ(p.Reason("r"), GRT_REASON_INPUT);
}

TEST(PlacerRulesTest, ReasonTextIsSnprintfLike) {
  Graph g;
  g.Const("c", {1}, "/gpu:0");
  Placed p(g, "cpu:1,gpu:1");
  ASSERT_TRUE(p.ok()) << p.error();
  char small[10];
  size_t need = grt_plan_node_reason_text(p.plan(), 0, small, sizeof small);
  EXPECT_EQ(need, strlen("explicitly requested '/gpu:0'"));
  EXPECT_STREQ(small, "explicitl");
  EXPECT_EQ(grt_plan_node_reason_text(p.plan(), 7, small, sizeof small), 0u);
  EXPECT_STREQ(small, "");
  EXPECT_STREQ(grt_place_reason_name(GRT_REASON_CONSUMERS), "consumers");
  EXPECT_STREQ(grt_place_cause_name(GRT_CAUSE_REF_EDGE), "ref_edge");
}

TEST(PlacerRulesTest, GraphOrderNeedNotBeTopological) {
  Graph g;
  g.Op("sx", "Shape", {"x"}).Placeholder("x", "/cpu:0");
  Placed p(g, "cpu:1,gpu:1");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.Dev("sx"), "CPU:0");
  EXPECT_EQ(p.Reason("sx"), GRT_REASON_INPUT);
}

TEST(PlacerRulesTest, CopiesOnePerTensorAndDestination) {
  Graph g;
  g.Placeholder("a", "/gpu:0");
  g.Op("b", "Neg", {"a"}, "/cpu:0").Op("c", "Square", {"a"}, "/cpu:0");
  g.Op("d", "Neg", {"a"}, "/gpu:1").Op("e", "Neg", {"a"}, "/gpu:0");
  g.Node("done", "NoOp", {"^b", "^d"}, "/gpu:1");
  Placed p(g, "cpu:1,gpu:2");
  ASSERT_TRUE(p.ok()) << p.error();
  const grt_device_set* ds = grt_plan_devices(p.plan());
  ASSERT_EQ(grt_plan_num_copies(p.plan()), 3);
  const grt_plan_copy* c0 = grt_plan_copy_at(p.plan(), 0);
  const grt_plan_copy* c1 = grt_plan_copy_at(p.plan(), 1);
  const grt_plan_copy* c2 = grt_plan_copy_at(p.plan(), 2);
  EXPECT_EQ(c0->src, p.Index("a"));
  EXPECT_EQ(c0->port, 0);
  EXPECT_EQ(grt_device_set_type(ds, c0->dst_device), std::string("CPU"));
  EXPECT_EQ(grt_device_set_type(ds, c0->src_device), std::string("GPU"));
  EXPECT_EQ(c1->src, p.Index("a"));
  EXPECT_EQ(grt_device_set_id(ds, c1->dst_device), 1);
  EXPECT_FALSE(c1->src_host_memory);
  EXPECT_EQ(c2->src, p.Index("b"));  // control edge CPU:0 -> GPU:1
  EXPECT_EQ(c2->port, -1);
  EXPECT_EQ(grt_plan_copy_at(p.plan(), 3), nullptr);
}

TEST(PlacerRulesTest, CopiesOfHostMemoryTensors) {
  Graph g;
  g.Placeholder("i", "/gpu:0", GRT_INT32).Op("n", "Neg", {"i"}, "/gpu:0", GRT_INT32);
  g.Op("c", "Neg", {"n"}, "/cpu:0", GRT_INT32);
  Placed p(g, "cpu:1,gpu:1");
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_EQ(grt_plan_num_copies(p.plan()), 1);
  EXPECT_TRUE(grt_plan_copy_at(p.plan(), 0)->src_host_memory);  // int32 Neg on GPU: host memory
  EXPECT_TRUE(grt_plan_output_in_host_memory(p.plan(), p.Index("c"), 0));   // CPU: all host
  EXPECT_FALSE(grt_plan_output_in_host_memory(p.plan(), p.Index("c"), 1));  // no such output
}

TEST(PlacerRulesTest, PlacingValidatesFirst) {
  Graph g;
  g.Node("x", "NoSuchOp");
  Placed p(g, "cpu:1");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("unknown op 'NoSuchOp'"), std::string::npos) << p.error();
  EXPECT_EQ(p.plan(), nullptr);
}

TEST(PlacerRulesTest, NullArgumentsAndEmptyGraph) {
  grt_plan* plan = nullptr;
  grt_test::Status s(grt_place(nullptr, nullptr, nullptr, &plan));
  EXPECT_EQ(s.code(), GRT_INVALID_ARGUMENT);
  Graph g;
  Placed p(g, "cpu:1");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(grt_plan_num_nodes(p.plan()), 0);
  EXPECT_EQ(grt_plan_num_copies(p.plan()), 0);
  EXPECT_EQ(grt_plan_node_device(p.plan(), 0), -1);
  EXPECT_STREQ(grt_plan_node_device_name(p.plan(), 5), "");
  grt_plan_free(nullptr);
}

}  // namespace
