// Common subexpression elimination ("cse") and NoOp removal ("noop"):
// results with the optimizer off and on are bitwise equal, the optimized
// graph has one of each twin, and feeding a kept twin (now read where its
// twin was) falls back to the graph as written.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "opt_test_util.h"

namespace {

using namespace grt_opt_test;

const std::map<std::string, std::string> kNoFold = {{"optimizer_off", "constant_folding"}};

void Twins(Graph* g) {
  g->Placeholder("x", {4});
  g->ConstF("c1", {4}, {1, 2, 3, 4});
  g->ConstF("c2", {4}, {1, 2, 3, 4});
  g->ConstF("c3", {4}, {1, 2, 3, 5});  // differs in one element
  g->Node("a", "AddV2", {"x", "c1"});
  g->Node("b", "Mul", {"x", "c2"});
  g->Node("b3", "Mul", {"x", "c3"});
  g->Node("r1", "Relu", {"x"});
  g->Node("r2", "Relu", {"x"});
  g->Node("s", "AddV2", {"r1", "r2"});
  g->Node("m1", "Mul", {"a", "b"});
  g->Node("m2", "Mul", {"b", "a"});  // commutative: the same value
  g->Node("y", "Sub", {"m1", "m2"});
  g->Node("r_out", "Relu", {"x"});  // read by nothing: a graph output, keeps its name
}

TEST(Cse, IdenticalConstsAndNodesMerge) {
  Graph g;
  Twins(&g);
  std::string report;
  grt_graph* o = Optimized(g.g(), &report, kNoFold);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "Const"), 2) << report;  // c1 (or c2) and c3
  EXPECT_EQ(CountOp(o, "Relu"), 2) << report;   // r1 and r_out
  EXPECT_GE(grt_graph_find_node(o, "r_out"), 0);
  EXPECT_LT(grt_graph_find_node(o, "r2"), 0);
  EXPECT_LT(grt_graph_find_node(o, "m2"), 0) << report;
  EXPECT_NE(PassLine(report, "cse").find(" 3 changes"), std::string::npos) << report;
  grt_graph_free(o);

  grt_tensor* x = TensorF({4}, {-1, 0.5f, 2, -3});
  ExpectSameBothWays(g.g(), {{"x", x}}, {"s", "y", "b3", "r_out"}, kNoFold);
  // r2 and m2 went: fetching them falls back.
  ExpectSameBothWays(g.g(), {{"x", x}}, {"r2", "m2"}, kNoFold);
  // r1 is now read where r2 was: feeding r1 in the optimized graph would
  // change both of s's inputs; the run falls back and keeps the meaning.
  grt_tensor* r1 = TensorF({4}, {10, 20, 30, 40});
  ExpectSameBothWays(g.g(), {{"x", x}, {"r1", r1}}, {"s"}, kNoFold);
  grt_session* on = Session(g.g(), true, kNoFold);
  std::vector<grt_tensor*> out;
  EXPECT_EQ(RunS(on, {{"x", x}, {"r1", r1}}, {"s"}, &out), "");
  const float* v = (const float*)grt_tensor_data(out[0]);
  EXPECT_EQ(v[0], 10.0f);  // 10 + relu(-1)
  EXPECT_EQ(v[2], 32.0f);  // 30 + relu(2)
  Free(&out);
  grt_session_free(on);
  grt_tensor_free(r1);
  grt_tensor_free(x);
}

TEST(Cse, OffByName) {
  Graph g;
  Twins(&g);
  std::string report;
  grt_graph* o = Optimized(g.g(), &report, {{"optimizer_off", "constant_folding,cse"}});
  EXPECT_EQ(CountOp(o, "Relu"), 3) << report;
  EXPECT_EQ(CountOp(o, "Const"), 3) << report;
  grt_graph_free(o);
}

// Different devices or attrs do not merge.
TEST(Cse, AttrsMustMatch) {
  Graph g;
  g.Placeholder("x", {2, 3});
  g.ConstI("axis", {1}, {1});
  int32_t s1 = g.Node("s1", "Sum", {"x", "axis"});
  g.Type(s1, "Tidx", GRT_INT32);
  int32_t s2 = g.Node("s2", "Sum", {"x", "axis"});
  g.Type(s2, "Tidx", GRT_INT32);
  grt_status* st = grt_graph_set_attr_bool(g.g(), s2, "keep_dims", true);
  ASSERT_EQ(st, nullptr) << Take(st);
  g.Node("y1", "Relu", {"s1"});
  g.Node("y2", "Relu", {"s2"});
  std::string report;
  grt_graph* o = Optimized(g.g(), &report, kNoFold);
  EXPECT_EQ(CountOp(o, "Sum"), 2) << report;
  grt_graph_free(o);
  grt_tensor* x = TensorF({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectSameBothWays(g.g(), {{"x", x}}, {"y1", "y2"}, kNoFold);
  grt_tensor_free(x);
}

// x -> r (Relu) -> ^n (NoOp) -> ^y: y waits for r directly; a NoOp nothing
// waits for stays (a run's target), and one joining 3 inputs to 3 uses (9
// edges for 6) stays; one joining 2 inputs to 3 uses (6 edges for 5, the
// bound i*o <= i+o+1 exactly) goes. (A bound of i*o < i+o+1 passed this
// test before the 2-by-3 NoOp.)
TEST(NoOp, JoinedWhereFewEdges) {
  Graph g;
  g.Placeholder("x", {2});
  g.Node("r", "Relu", {"x"});
  int32_t n = g.Node("n", "NoOp", {}, GRT_FLOAT32, nullptr);
  g.Control(n, "r");
  int32_t y = g.Node("y", "Neg", {"x"});
  g.Control(y, "n");
  int32_t t = g.Node("target", "NoOp", {}, GRT_FLOAT32, nullptr);
  g.Control(t, "y");
  int32_t wide = g.Node("wide", "NoOp", {}, GRT_FLOAT32, nullptr);
  for (const char* in : {"a1", "a2", "a3"}) {
    g.Node(in, "Exp", {"x"});
    g.Control(wide, in);
  }
  for (const char* out : {"b1", "b2", "b3"}) {
    int32_t b = g.Node(out, "Abs", {"x"});
    g.Control(b, "wide");
  }
  int32_t edge = g.Node("edge", "NoOp", {}, GRT_FLOAT32, nullptr);
  // Ops unlike each other, so that cse merges none of them.
  g.Node("p1", "Sigmoid", {"x"});
  g.Node("p2", "Tanh", {"x"});
  g.Control(edge, "p1");
  g.Control(edge, "p2");
  for (const char* q : {"Floor", "Ceil", "Square"}) g.Control(g.Node(q, q, {"x"}), "edge");
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  EXPECT_LT(grt_graph_find_node(o, "n"), 0) << report;
  EXPECT_GE(grt_graph_find_node(o, "target"), 0) << report;
  EXPECT_GE(grt_graph_find_node(o, "wide"), 0) << report;
  int32_t yo = grt_graph_find_node(o, "y");
  ASSERT_GE(yo, 0);
  ASSERT_EQ(grt_graph_node_num_control_inputs(o, yo), 1);
  EXPECT_STREQ(grt_graph_node_control_input(o, yo, 0), "r");
  EXPECT_LT(grt_graph_find_node(o, "edge"), 0) << report;
  for (const char* out : {"Floor", "Ceil", "Square"}) {
    int32_t q = grt_graph_find_node(o, out);
    ASSERT_GE(q, 0);
    ASSERT_EQ(grt_graph_node_num_control_inputs(o, q), 2) << out;
    std::set<std::string> waits = {grt_graph_node_control_input(o, q, 0),
                                   grt_graph_node_control_input(o, q, 1)};
    EXPECT_EQ(waits, (std::set<std::string>{"p1", "p2"})) << out;
  }
  EXPECT_NE(PassLine(report, "noop").find(" 2 changes"), std::string::npos) << report;
  grt_graph_free(o);

  grt_tensor* x = TensorF({2}, {-1, 2});
  ExpectSameBothWays(g.g(), {{"x", x}}, {"y", "b1", "Ceil"});
  // Targeting the removed NoOp falls back; the kept one is served.
  for (const char* target : {"n", "target"}) {
    grt_session* on = Session(g.g(), true);
    std::vector<grt_tensor*> out;
    EXPECT_EQ(RunS(on, {{"x", x}}, {}, &out, {target}), "") << target;
    grt_session_free(on);
  }
  grt_tensor_free(x);
}

// A NoOp whose control input is on another device stays: that control edge
// is the message between the devices. The same graph on one device loses
// it. (Removing it anyway passed the tests above.)
TEST(NoOp, CrossDeviceControlStays) {
  for (const char* where : {"/device:CPU:1", "/device:CPU:0"}) {
    Graph g;
    g.Placeholder("x", {2});
    int32_t r = g.Node("r", "Relu", {"x"});
    EXPECT_EQ(grt_graph_set_device(g.g(), r, where), nullptr);
    int32_t n = g.Node("n", "NoOp", {}, GRT_FLOAT32, nullptr);
    EXPECT_EQ(grt_graph_set_device(g.g(), n, "/device:CPU:0"), nullptr);
    g.Control(n, "r");
    int32_t y = g.Node("y", "Neg", {"x"});
    EXPECT_EQ(grt_graph_set_device(g.g(), y, "/device:CPU:0"), nullptr);
    g.Control(y, "n");
    grt_session* s = Session(g.g(), true, {{"cpu.devices", "2"}});
    ASSERT_NE(s, nullptr);
    grt_tensor* x = TensorF({2}, {-1, 2});
    std::vector<grt_tensor*> out;
    EXPECT_EQ(RunS(s, {{"x", x}}, {"y"}, &out), "") << where;
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(((const float*)grt_tensor_data(out[0]))[1], -2.0f);
    Free(&out);
    grt_tensor_free(x);
    char buf[8192];
    grt_session_optimizer_report(s, buf, sizeof buf);
    std::string report = buf;
    grt_session_free(s);
    bool apart = !strcmp(where, "/device:CPU:1");
    EXPECT_NE(PassLine(report, "noop").find(apart ? " 0 changes" : " 1 changes"), std::string::npos)
        << where << "\n"
        << report;
  }
}

}  // namespace
