// Arithmetic simplification ("arithmetic"): nodes that return their input
// unchanged go, pairs that undo each other go, chains become one node.
// Each case runs with the optimizer off and on (bitwise equal) and checks
// the optimized graph's ops.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "opt_test_util.h"

namespace {

using namespace grt_opt_test;

// Graphs here test "arithmetic" alone: folding would fold nothing (every
// node reads x), but keep the report about one pass.
const std::map<std::string, std::string> kOnly = {{"optimizer_off", "constant_folding,cse"}};

TEST(Arithmetic, NeutralOperandsOnlyWhereExact) {
  Graph g;
  g.Placeholder("x", {2, 3});
  g.ConstF("one", {1}, {1.0f});
  g.ConstF("negzero", {}, {-0.0f});
  g.ConstF("poszero", {}, {0.0f});
  g.ConstF("ones23", {2, 3}, {1, 1, 1, 1, 1, 1});
  g.Placeholder("v", {3});
  g.Node("mul", "Mul", {"x", "one"});
  g.Node("mul_l", "Mul", {"one", "x"});
  g.Node("add_negzero", "AddV2", {"x", "negzero"});
  g.Node("add_poszero", "AddV2", {"x", "poszero"});  // -0.0 + 0.0 is +0.0: stays
  g.Node("sub_poszero", "Sub", {"x", "poszero"});
  g.Node("sub_negzero", "Sub", {"x", "negzero"});  // x - -0.0 = x + 0.0: stays
  g.Node("div", "RealDiv", {"x", "one"});
  g.Node("bcast", "Mul", {"v", "ones23"});  // [3] * [2,3] is [2,3]: not v, stays
  int32_t cast = g.Node("cast", "Cast", {"x"}, GRT_FLOAT32, "SrcT");
  g.Type(cast, "DstT", GRT_FLOAT32);
  g.Node("n1", "Neg", {"x"});
  g.Node("n2", "Neg", {"n1"});
  std::vector<std::string> outs;
  for (const char* n : {"mul", "mul_l", "add_negzero", "add_poszero", "sub_poszero", "sub_negzero",
                        "div", "bcast", "cast", "n2"}) {
    std::string y = std::string(n) + "_y";
    g.Node(y.c_str(), "Relu", {n});
    outs.push_back(y);
  }
  std::string report;
  grt_graph* o = Optimized(g.g(), &report, kOnly);
  for (const char* gone : {"mul", "mul_l", "add_negzero", "sub_poszero", "div", "cast", "n2"})
    EXPECT_LT(grt_graph_find_node(o, gone), 0) << gone << " stayed\n" << report;
  for (const char* kept : {"add_poszero", "sub_negzero", "bcast"})
    EXPECT_GE(grt_graph_find_node(o, kept), 0) << kept << " went\n" << report;
  EXPECT_EQ(CountOp(o, "Neg"), 0) << "n1 is read by n2 only: it goes with it\n" << report;
  EXPECT_NE(PassLine(report, "arithmetic").find(" 7 changes"), std::string::npos) << report;
  grt_graph_free(o);

  // Signed zeros, NaN and infinities come through bitwise as written.
  grt_tensor* x = TensorF({2, 3}, {-0.0f, 0.0f, NAN, -INFINITY, 1e-40f, -2.5f});
  grt_tensor* v = TensorF({3}, {-0.0f, 1, 2});
  for (const std::string& y : outs) {
    std::string pre = y.substr(0, y.size() - 2);
    // The Relu of -0.0 is -0.0 or 0.0 by the kernel, the same both ways; the
    // values before it are compared too.
    ExpectSameBothWays(g.g(), {{"x", x}, {"v", v}}, {y}, kOnly);
    ExpectSameBothWays(g.g(), {{"x", x}, {"v", v}}, {pre}, kOnly);
  }
  // x + +0.0 at x = -0.0 is +0.0 (the node stayed): check the bit.
  grt_session* on = Session(g.g(), true, kOnly);
  std::vector<grt_tensor*> out;
  EXPECT_EQ(RunS(on, {{"x", x}, {"v", v}}, {"add_poszero", "add_negzero_y"}, &out), "");
  EXPECT_FALSE(std::signbit(((const float*)grt_tensor_data(out[0]))[0]));
  Free(&out);
  grt_session_free(on);
  grt_tensor_free(x);
  grt_tensor_free(v);
}

TEST(Arithmetic, TransposePairsCancelOrCompose) {
  Graph g;
  g.Placeholder("x", {2, 3, 4});
  g.ConstI("p120", {3}, {1, 2, 0});
  g.ConstI("p201", {3}, {2, 0, 1});
  g.ConstI("p012", {3}, {0, 1, 2});
  auto transpose = [&](const char* name, const char* in, const char* perm) {
    int32_t t = g.Node(name, "Transpose", {in, perm});
    g.Type(t, "Tperm", GRT_INT32);
  };
  transpose("ident", "x", "p012");
  g.Node("y_ident", "Relu", {"ident"});
  transpose("t1", "x", "p120");
  transpose("t2", "t1", "p201");  // back to x
  g.Node("y_cancel", "Relu", {"t2"});
  transpose("u1", "x", "p120");
  transpose("u2", "u1", "p120");  // x transposed by (2,0,1): one Transpose
  g.Node("y_compose", "Relu", {"u2"});

  std::string report;
  grt_graph* o = Optimized(g.g(), &report, kOnly);
  EXPECT_EQ(CountOp(o, "Transpose"), 1) << report;
  int32_t u2 = grt_graph_find_node(o, "u2");
  ASSERT_GE(u2, 0) << report;
  EXPECT_STREQ(grt_graph_node_input(o, u2, 0, nullptr), "x");
  grt_graph_free(o);
  std::vector<float> xv(24);
  for (int i = 0; i < 24; i++) xv[i] = (float)i - 7.5f;
  grt_tensor* x = TensorF({2, 3, 4}, xv);
  ExpectSameBothWays(g.g(), {{"x", x}}, {"y_ident", "y_cancel", "y_compose", "u2"}, kOnly);
  // The inner Transpose is bypassed: feeding it falls back and means what
  // it meant (u2 is u1's value transposed).
  grt_tensor* u1 = TensorF({3, 4, 2}, xv);
  ExpectSameBothWays(g.g(), {{"x", x}, {"u1", u1}}, {"y_compose", "y_cancel"}, kOnly);
  grt_tensor_free(u1);
  grt_tensor_free(x);
}

TEST(Arithmetic, ReshapeChains) {
  Graph g;
  g.Placeholder("x", {2, 3, 4});
  g.ConstI("s234", {3}, {2, 3, 4});
  g.ConstI("s64", {2}, {6, 4});
  g.ConstI("s46", {2}, {4, 6});
  auto reshape = [&](const char* name, const char* in, const char* shape) {
    int32_t r = g.Node(name, "Reshape", {in, shape});
    g.Type(r, "Tshape", GRT_INT32);
  };
  reshape("same", "x", "s234");
  g.Node("y_same", "Relu", {"same"});
  reshape("r1", "x", "s64");
  reshape("r2", "r1", "s46");
  g.Node("y_merged", "Relu", {"r2"});
  reshape("b1", "x", "s64");
  reshape("b2", "b1", "s234");  // back to x's shape
  g.Node("y_back", "Relu", {"b2"});
  g.Placeholder("z", {2, 1, 3});
  int32_t sq = g.Node("sq", "Squeeze", {"z"});
  g.Ints(sq, "squeeze_dims", {1});
  g.ConstI("one", {}, {1});
  int32_t ex = g.Node("ex", "ExpandDims", {"sq", "one"});
  g.Type(ex, "Tdim", GRT_INT32);
  g.Node("y_pair", "Relu", {"ex"});

  std::string report;
  grt_graph* o = Optimized(g.g(), &report, kOnly);
  EXPECT_EQ(CountOp(o, "Reshape"), 1) << report;
  EXPECT_EQ(CountOp(o, "Squeeze") + CountOp(o, "ExpandDims"), 0) << report;
  int32_t r2 = grt_graph_find_node(o, "r2");
  ASSERT_GE(r2, 0);
  EXPECT_STREQ(grt_graph_node_input(o, r2, 0, nullptr), "x");
  grt_graph_free(o);
  std::vector<float> xv(24);
  for (int i = 0; i < 24; i++) xv[i] = (float)i * 0.5f - 3;
  grt_tensor* x = TensorF({2, 3, 4}, xv);
  grt_tensor* z = TensorF({2, 1, 3}, {1, -2, 3, -4, 5, -6});
  ExpectSameBothWays(g.g(), {{"x", x}, {"z", z}}, {"y_same", "y_merged", "y_back", "y_pair", "r2"},
                     kOnly);
  // Feeding the bypassed inner Reshape falls back.
  grt_tensor* r1 = TensorF({6, 4}, std::vector<float>(24, 2.0f));
  ExpectSameBothWays(g.g(), {{"x", x}, {"z", z}, {"r1", r1}}, {"y_merged"}, kOnly);
  grt_tensor_free(r1);
  grt_tensor_free(x);
  grt_tensor_free(z);
}

// A graph output (read by nothing) keeps its name, even when it is x*1;
// a node with a control input stays.
TEST(Arithmetic, OutputsAndControlledNodesStay) {
  Graph g;
  g.Placeholder("x", {2});
  g.ConstF("one", {}, {1.0f});
  g.Node("out", "Mul", {"x", "one"});
  int32_t m = g.Node("ctl", "Mul", {"x", "one"});
  g.Control(m, "out");
  g.Node("y", "Relu", {"ctl"});
  std::string report;
  grt_graph* o = Optimized(g.g(), &report, kOnly);
  EXPECT_EQ(CountOp(o, "Mul"), 2) << report;
  grt_graph_free(o);
}

}  // namespace
