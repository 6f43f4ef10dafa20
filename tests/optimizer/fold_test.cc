// Constant folding ("constant_folding"): each case runs its graph with the
// optimizer off and on (results bitwise equal) and looks at the graph
// grt_graph_optimize makes and the report line.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "opt_test_util.h"

namespace {

using namespace grt_opt_test;

std::vector<float> Iota(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++) v[i] = std::sin((float)i * scale);
  return v;
}

// x [1,5,5,3] -> Conv2D by Transpose(filter OIHW [4,3,3,3], perm HWIO),
// as the ONNX importer writes a Conv.
void FilterTransposeConv(Graph* g) {
  g->Placeholder("x", {1, 5, 5, 3});
  g->ConstF("w", {4, 3, 3, 3}, Iota(108, 0.37f));
  g->ConstI("perm", {4}, {2, 3, 1, 0});
  int32_t t = g->Node("wt", "Transpose", {"w", "perm"});
  g->Type(t, "Tperm", GRT_INT32);
  int32_t c = g->Node("conv", "Conv2D", {"x", "wt"});
  g->Ints(c, "strides", {1, 1, 1, 1});
  g->Str(c, "padding", "SAME");
}

TEST(ConstantFolding, FilterTransposeBecomesAConst) {
  Graph g;
  FilterTransposeConv(&g);
  grt_tensor* x = TensorF({1, 5, 5, 3}, Iota(75, 0.11f));
  std::string rep = ExpectSameBothWays(g.g(), {{"x", x}}, {"conv"});
  EXPECT_NE(PassLine(rep, "constant_folding").find("1 nodes evaluated"), std::string::npos) << rep;
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "Transpose"), 0) << report;
  // The folded filter keeps the Transpose's name (it computes its value).
  int32_t wt = grt_graph_find_node(o, "wt");
  ASSERT_GE(wt, 0);
  EXPECT_STREQ(grt_graph_node_op(o, wt), "Const");
  EXPECT_LT(grt_graph_find_node(o, "perm"), 0) << "the perm Const nothing reads any more";
  grt_graph_free(o);

  // Fetching the folded node works (it is there by name) and feeding the
  // folded Const's source falls back to the graph as written.
  grt_session* on = Session(g.g(), true);
  grt_session* off = Session(g.g(), false);
  std::vector<grt_tensor*> a, b;
  EXPECT_EQ(RunS(on, {{"x", x}}, {"wt", "conv"}, &a), "");
  EXPECT_EQ(RunS(off, {{"x", x}}, {"wt", "conv"}, &b), "");
  EXPECT_TRUE(BitEqual(a[0], b[0]));
  EXPECT_TRUE(BitEqual(a[1], b[1]));
  Free(&a);
  Free(&b);
  grt_tensor* w2 = TensorF({4, 3, 3, 3}, Iota(108, 0.91f));
  EXPECT_EQ(RunS(on, {{"x", x}, {"w", w2}}, {"conv"}, &a), "");
  EXPECT_EQ(RunS(off, {{"x", x}, {"w", w2}}, {"conv"}, &b), "");
  EXPECT_TRUE(BitEqual(a[0], b[0])) << "feeding the folded filter's source must change the result";
  Free(&a);
  Free(&b);
  // Feeding the folded node itself is served by the optimized graph and
  // means what it meant.
  grt_tensor* wt2 = TensorF({3, 3, 3, 4}, Iota(108, 0.53f));
  EXPECT_EQ(RunS(on, {{"x", x}, {"wt", wt2}}, {"conv"}, &a), "");
  EXPECT_EQ(RunS(off, {{"x", x}, {"wt", wt2}}, {"conv"}, &b), "");
  EXPECT_TRUE(BitEqual(a[0], b[0]));
  Free(&a);
  Free(&b);
  grt_tensor_free(wt2);
  grt_tensor_free(w2);
  grt_session_free(on);
  grt_session_free(off);
  grt_tensor_free(x);
}

TEST(ConstantFolding, ValuesOverTheCapStay) {
  Graph g;
  FilterTransposeConv(&g);  // the folded filter is 432 bytes
  std::string report;
  grt_graph* o = Optimized(g.g(), &report, {{"fold_max_bytes", "400"}});
  EXPECT_EQ(CountOp(o, "Transpose"), 1) << report;
  grt_graph_free(o);
  o = Optimized(g.g(), &report, {{"fold_max_bytes", "432"}});
  EXPECT_EQ(CountOp(o, "Transpose"), 0) << report;
  grt_graph_free(o);
  grt_tensor* x = TensorF({1, 5, 5, 3}, Iota(75, 0.11f));
  ExpectSameBothWays(g.g(), {{"x", x}}, {"conv"}, {{"fold_max_bytes", "400"}});
  grt_tensor_free(x);
}

// ONNX's shape arithmetic: Reshape(x, Concat(Gather(Shape(x), 0), -1)).
TEST(ConstantFolding, ShapeSubgraphOfAStaticPlaceholderFolds) {
  Graph g;
  g.Placeholder("x", {2, 3, 4});
  int32_t sh = g.Node("shape", "Shape", {"x"});
  g.Type(sh, "out_type", GRT_INT32);
  g.ConstI("idx", {1}, {0});
  g.ConstI("axis0", {}, {0});
  int32_t ga = g.Node("gather", "GatherV2", {"shape", "idx", "axis0"}, GRT_INT32, "Tparams");
  g.Type(ga, "Tindices", GRT_INT32);
  g.Type(ga, "Taxis", GRT_INT32);
  g.ConstI("minus1", {1}, {-1});
  int32_t cc = g.Node("concat", "ConcatV2", {"gather", "minus1", "axis0"}, GRT_INT32);
  grt_status* st = grt_graph_set_attr_int(g.g(), cc, "N", 2);
  ASSERT_EQ(st, nullptr) << Take(st);
  int32_t r = g.Node("reshape", "Reshape", {"x", "concat"});
  g.Type(r, "Tshape", GRT_INT32);
  g.Node("y", "Relu", {"reshape"});

  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  for (const char* op : {"Shape", "GatherV2", "ConcatV2"})
    EXPECT_EQ(CountOp(o, op), 0) << op << " left:\n" << report;
  EXPECT_EQ(CountOp(o, "Reshape"), 1);
  EXPECT_NE(PassLine(report, "constant_folding").find("1 shapes known"), std::string::npos)
      << report;
  grt_graph_free(o);
  grt_tensor* x = TensorF({2, 3, 4}, Iota(24, 0.7f));
  ExpectSameBothWays(g.g(), {{"x", x}}, {"y", "concat"});
  grt_tensor_free(x);
}

// An unknown batch: the Shape stays (nothing to fold), results agree.
// (symbolic_shapes, switched off here, makes the Reshape's target [-1, 3]:
// symbolic_shapes_test.)
TEST(ConstantFolding, ShapeOfAnUnknownDimensionStays) {
  Graph g;
  g.Placeholder("x", {-1, 3});
  int32_t sh = g.Node("shape", "Shape", {"x"});
  g.Type(sh, "out_type", GRT_INT32);
  int32_t r = g.Node("reshape", "Reshape", {"x", "shape"});
  g.Type(r, "Tshape", GRT_INT32);
  std::string report;
  grt_graph* o = Optimized(g.g(), &report, {{"optimizer_off", "symbolic_shapes"}});
  EXPECT_EQ(CountOp(o, "Shape"), 1) << report;
  grt_graph_free(o);
  grt_tensor* x = TensorF({2, 3}, Iota(6, 0.7f));
  ExpectSameBothWays(g.g(), {{"x", x}}, {"reshape"});
  grt_tensor_free(x);
}

// A fold the evaluator refuses (integer remainder by zero) is left in the
// graph; the session is made, and the run fails with the kernel's message,
// as it does with the optimizer off. Another fold in the same pass still
// happens.
TEST(ConstantFolding, AFoldThatFailsStaysAndFailsAtRunTime) {
  Graph g;
  g.Placeholder("x", {2}, GRT_INT32);
  g.ConstI("a", {2}, {7, 5});
  g.ConstI("z", {2}, {2, 0});
  g.Node("mod", "FloorMod", {"a", "z"}, GRT_INT32);
  g.Node("y", "AddV2", {"x", "mod"}, GRT_INT32);
  g.ConstI("b", {2}, {1, 2});
  g.Node("neg", "Neg", {"b"}, GRT_INT32);
  g.Node("y2", "AddV2", {"x", "neg"}, GRT_INT32);

  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "FloorMod"), 1) << report;
  EXPECT_EQ(CountOp(o, "Neg"), 0) << report;
  std::string line = PassLine(report, "constant_folding");
  EXPECT_NE(line.find("1 not folded, first mod (FloorMod)"), std::string::npos) << report;
  EXPECT_NE(line.find("division by zero"), std::string::npos) << report;
  grt_graph_free(o);

  grt_tensor* x = nullptr;
  int64_t two = 2;
  ASSERT_EQ(grt_tensor_new(GRT_INT32, 1, &two, &x), nullptr);
  for (bool optimize : {false, true}) {
    grt_session* s = Session(g.g(), optimize);
    ASSERT_NE(s, nullptr);
    std::vector<grt_tensor*> out;
    EXPECT_NE(RunS(s, {{"x", x}}, {"y"}, &out).find("Integer division by zero"), std::string::npos);
    Free(&out);
    EXPECT_EQ(RunS(s, {{"x", x}}, {"y2"}, &out), "");
    ASSERT_NE(out[0], nullptr);
    const int32_t* v = (const int32_t*)grt_tensor_data(out[0]);
    EXPECT_EQ(v[0], -1);
    EXPECT_EQ(v[1], -2);
    Free(&out);
    grt_session_free(s);
  }
  grt_tensor_free(x);
}

// A chain of folds gives one Const (the frontier), and a multi-output node
// (Split) one Const per output read.
TEST(ConstantFolding, ChainsAndSplits) {
  Graph g;
  g.Placeholder("x", {2, 2});
  g.ConstF("c", {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  g.ConstI("perm", {2}, {1, 0});
  int32_t t = g.Node("t", "Transpose", {"c", "perm"});
  g.Type(t, "Tperm", GRT_INT32);
  g.ConstI("dim", {}, {1});
  int32_t sp = g.Node("split", "Split", {"dim", "t"});
  grt_status* st = grt_graph_set_attr_int(g.g(), sp, "num_split", 2);
  ASSERT_EQ(st, nullptr) << Take(st);
  g.Node("e", "Exp", {"split:1"});
  g.Node("y", "Mul", {"x", "e"});
  g.Node("y0", "Mul", {"x", "split"});

  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  for (const char* op : {"Transpose", "Split", "Exp"})
    EXPECT_EQ(CountOp(o, op), 0) << op << "\n" << report;
  EXPECT_EQ(CountOp(o, "Const"), 2) << report;  // e and split:0
  grt_graph_free(o);
  grt_tensor* x = TensorF({2, 2}, {1, -2, 3, -4});
  ExpectSameBothWays(g.g(), {{"x", x}}, {"y", "y0"});
  // Fetching the Split (gone from the optimized graph) falls back.
  ExpectSameBothWays(g.g(), {{"x", x}}, {"split:0", "t"});
  grt_tensor_free(x);
}

// Switched off by name, the pass does nothing.
TEST(ConstantFolding, OptimizerOffByName) {
  Graph g;
  FilterTransposeConv(&g);
  std::string report;
  grt_graph* o = Optimized(g.g(), &report, {{"optimizer_off", "constant_folding"}});
  EXPECT_EQ(CountOp(o, "Transpose"), 1) << report;
  EXPECT_NE(PassLine(report, "constant_folding").find("off"), std::string::npos) << report;
  grt_graph_free(o);
}

}  // namespace
