// The shape arithmetic around an unknown batch ("symbolic_shapes"): graphs
// as the ONNX importer writes torch's x.view(...) with a dynamic batch N
// run with the optimizer off and on at several batches (results bitwise
// equal), and the optimized graph is looked at: the chain is gone and the
// Reshape reads a Const with -1 at the batch's entry.
//
// Without the pass (optimizer_off=symbolic_shapes, checked below) every
// Shape, GatherV2, ConcatV2, Equal and Select stays: constant folding
// cannot fold a Shape whose input's batch is unknown.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "opt_test_util.h"

namespace {

using namespace grt_opt_test;

std::vector<float> Iota(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++) v[i] = std::sin((float)i * scale + 0.3f);
  return v;
}

int32_t I64(Graph* g, const char* name, std::vector<int64_t> dims, std::vector<int64_t> v) {
  return g->Const<int64_t>(name, GRT_INT64, dims, v);
}

int32_t ShapeOf(Graph* g, const char* name, const char* of, grt_dtype t = GRT_FLOAT32) {
  int32_t i = g->Node(name, "Shape", {of}, t);
  g->Type(i, "out_type", GRT_INT64);
  return i;
}

// dims[index] of shape vector `shape` as a scalar, as ONNX Gather is imported.
void Dim(Graph* g, const char* name, const char* shape, const char* index) {
  g->Node(name, "GatherV2", {shape, index, "axis0"}, GRT_INT64, "Tparams");
}

void Reshape(Graph* g, const char* y, const char* x, const char* shape) {
  int32_t i = g->Node(y, "Reshape", {x, shape});
  g->Type(i, "Tshape", GRT_INT64);
}

// ONNX Reshape(x, target) with its "0 copies the input's dim" rule, as
// the importer writes it: Select(target == 0, Shape(x)[:len], target).
void OnnxReshape(Graph* g, const std::string& y, const char* x, const char* target) {
  std::string p = y + "/";
  ShapeOf(g, (p + "dims").c_str(), x);
  g->Node((p + "zeros").c_str(), "ZerosLike", {target}, GRT_INT64);
  g->Node((p + "padded").c_str(), "ConcatV2", {p + "dims", p + "zeros", "axis0"}, GRT_INT64);
  ShapeOf(g, (p + "len").c_str(), target, GRT_INT64);
  g->Node((p + "copied").c_str(), "Slice", {p + "padded", "begin0", p + "len"}, GRT_INT64);
  g->Node((p + "is_zero").c_str(), "Equal", {target, "zero"}, GRT_INT64);
  g->Node((p + "shape").c_str(), "Select", {p + "is_zero", p + "copied", target}, GRT_INT64);
  Reshape(g, y.c_str(), x, (p + "shape").c_str());
}

void Common(Graph* g) {
  g->ConstI("axis0", {}, {0});
  I64(g, "i0", {}, {0});
  I64(g, "zero", {}, {0});
  I64(g, "begin0", {1}, {0});
}

// x [N,4,6] -> y = view(N*4, 6) -> y * 2, and x's last dim as a value.
void ViewGraph(Graph* g) {
  g->Placeholder("x", {-1, 4, 6});
  Common(g);
  ShapeOf(g, "xs", "x");
  Dim(g, "n", "xs", "i0");
  I64(g, "four", {}, {4});
  g->Node("n4", "Mul", {"n", "four"}, GRT_INT64);
  g->Node("u0", "ExpandDims", {"n4", "axis0"}, GRT_INT64);
  // The 6 comes from x's shape too (known though the batch is not).
  I64(g, "i2", {}, {2});
  Dim(g, "six", "xs", "i2");
  g->Node("u1", "ExpandDims", {"six", "axis0"}, GRT_INT64);
  g->Node("target", "ConcatV2", {"u0", "u1", "axis0"}, GRT_INT64);
  OnnxReshape(g, "y", "x", "target");
  g->ConstF("two", {}, {2.0f});
  g->Node("out", "Mul", {"y", "two"});
}

std::string Nodes(const grt_graph* o) {
  std::string s;
  for (int32_t i = 0; o && i < grt_graph_num_nodes(o); i++)
    s += std::string(grt_graph_node_name(o, i)) + " (" + grt_graph_node_op(o, i) + ")\n";
  return s;
}

int32_t Input(const grt_graph* o, int32_t node, int32_t k) {
  int32_t port = 0;
  const char* in = grt_graph_node_input(o, node, k, &port);
  return in ? grt_graph_find_node(o, in) : -1;
}

// The Const's int64 values, or {} when node is not a Const.
std::vector<int64_t> ConstInts(const grt_graph* o, int32_t node) {
  std::vector<int64_t> v;
  const grt_tensor* t = nullptr;
  if (node < 0 || strcmp(grt_graph_node_op(o, node), "Const") != 0) return v;
  grt_status* st = grt_graph_node_attr_tensor(o, node, "value", &t);
  if (st || !t) {
    grt_status_free(st);
    return v;
  }
  for (int64_t k = 0; k < grt_tensor_num_elements(t); k++)
    v.push_back(grt_tensor_dtype(t) == GRT_INT64 ? ((const int64_t*)grt_tensor_data(t))[k]
                                                 : ((const int32_t*)grt_tensor_data(t))[k]);
  return v;
}

TEST(SymbolicShapes, ViewOfTheBatchBecomesAReshapeByMinusOne) {
  Graph g;
  ViewGraph(&g);
  // Bitwise the same at every batch, empty included.
  for (int64_t n : {1, 2, 3, 0}) {
    grt_tensor* x = TensorF({n, 4, 6}, Iota((size_t)(n * 24), 0.37f));
    std::string rep = ExpectSameBothWays(g.g(), {{"x", x}}, {"out", "y"});
    EXPECT_NE(PassLine(rep, "symbolic_shapes").find("1 Reshapes given a -1"), std::string::npos)
        << rep;
    grt_tensor_free(x);
  }
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  for (const char* op : {"Shape", "GatherV2", "ConcatV2", "Equal", "Select", "ZerosLike", "Slice",
                         "ExpandDims", "Mul"})
    EXPECT_EQ(CountOp(o, op), op == std::string("Mul") ? 1 : 0) << op << "\n" << report;
  // Placeholder, the -1 shape, Reshape, the 2, Mul.
  EXPECT_EQ(grt_graph_num_nodes(o), 5) << report << Nodes(o);
  int32_t y = grt_graph_find_node(o, "y");
  ASSERT_GE(y, 0);
  EXPECT_STREQ(grt_graph_node_op(o, y), "Reshape");
  EXPECT_EQ(ConstInts(o, Input(o, y, 1)), (std::vector<int64_t>{-1, 6}));
  grt_graph_free(o);

  // Switched off, the chain stays.
  o = Optimized(g.g(), &report, {{"optimizer_off", "symbolic_shapes"}});
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "Select"), 1) << report;
  EXPECT_GE(CountOp(o, "Shape"), 1) << report;
  grt_graph_free(o);
}

// Values known whatever the batch become Consts: x's last dim, and the
// product of the dims after the batch, read by a Fill that is no shape
// Values known whatever the batch become Consts: the product of x's dims
// after the batch (torch's flatten(1)), made a Reshape's target with a -1
// before it.
TEST(SymbolicShapes, ValuesKnownDespiteTheBatchBecomeConsts) {
  Graph g;
  g.Placeholder("x", {-1, 4, 6});
  Common(&g);
  ShapeOf(&g, "xs", "x");
  I64(&g, "b1", {1}, {1});
  I64(&g, "e3", {1}, {3});
  I64(&g, "s1", {1}, {1});
  int32_t tail = g.Node("tail", "StridedSlice", {"xs", "b1", "e3", "s1"}, GRT_INT64);
  g.Type(tail, "Index", GRT_INT64);
  g.ConstI("axes", {1}, {0});
  int32_t count = g.Node("count", "Prod", {"tail", "axes"}, GRT_INT64);
  g.Type(count, "Tidx", GRT_INT32);
  g.Node("count_v", "ExpandDims", {"count", "axis0"}, GRT_INT64);
  I64(&g, "minus1", {1}, {-1});
  g.Node("target", "ConcatV2", {"minus1", "count_v", "axis0"}, GRT_INT64);
  Reshape(&g, "y", "x", "target");
  for (int64_t n : {1, 2}) {
    grt_tensor* x = TensorF({n, 4, 6}, Iota((size_t)(n * 24), 0.1f));
    ExpectSameBothWays(g.g(), {{"x", x}}, {"y", "count"});
    grt_tensor_free(x);
  }
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  for (const char* op : {"Shape", "StridedSlice", "Prod", "ExpandDims", "ConcatV2"})
    EXPECT_EQ(CountOp(o, op), 0) << op << "\n" << report << Nodes(o);
  int32_t y = grt_graph_find_node(o, "y");
  ASSERT_GE(y, 0);
  EXPECT_EQ(ConstInts(o, Input(o, y, 1)), (std::vector<int64_t>{-1, 24})) << Nodes(o);
  EXPECT_NE(PassLine(report, "symbolic_shapes").find("1 values known"), std::string::npos)
      << report;
  grt_graph_free(o);
}

// ONNX's 0-copy picking a dim that is not the batch: at N == 0 the
// written graph picks 4 where the batch entry is 0 and fails; at every
// other N the target is [4N, 6] and the -1 gives the same.
TEST(SymbolicShapes, CopiedDimOtherThanTheBatch) {
  Graph g;
  g.Placeholder("x", {-1, 4, 6});
  Common(&g);
  g.ConstI("perm", {3}, {1, 0, 2});
  g.Node("xt", "Transpose", {"x", "perm"});  // [4, N, 6]
  ShapeOf(&g, "xs", "x");
  Dim(&g, "n", "xs", "i0");
  I64(&g, "four", {}, {4});
  g.Node("n4", "Mul", {"n", "four"}, GRT_INT64);
  g.Node("u0", "ExpandDims", {"n4", "axis0"}, GRT_INT64);
  I64(&g, "six", {1}, {6});
  g.Node("target", "ConcatV2", {"u0", "six", "axis0"}, GRT_INT64);
  OnnxReshape(&g, "y", "xt", "target");
  for (int64_t n : {1, 2, 5}) {
    grt_tensor* x = TensorF({n, 4, 6}, Iota((size_t)(n * 24), 0.23f));
    ExpectSameBothWays(g.g(), {{"x", x}}, {"y"});
    grt_tensor_free(x);
  }
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "Select"), 0) << report;
  int32_t y = grt_graph_find_node(o, "y");
  ASSERT_GE(y, 0);
  EXPECT_EQ(ConstInts(o, Input(o, y, 1)), (std::vector<int64_t>{-1, 6}));
  grt_graph_free(o);
}

// Where the element count does not fix the entry, the Reshape keeps its
// computed target: x [N,6] to [N,3] fails at run time, both ways, with the
// kernel's message, and a -1 would have hidden that.
TEST(SymbolicShapes, ElementCountMustFixTheEntry) {
  Graph g;
  g.Placeholder("x", {-1, 6});
  Common(&g);
  ShapeOf(&g, "xs", "x");
  Dim(&g, "n", "xs", "i0");
  g.Node("u0", "ExpandDims", {"n", "axis0"}, GRT_INT64);
  I64(&g, "three", {1}, {3});
  g.Node("target", "ConcatV2", {"u0", "three", "axis0"}, GRT_INT64);
  Reshape(&g, "y", "x", "target");
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "ConcatV2"), 1) << report;
  EXPECT_NE(PassLine(report, "symbolic_shapes").find("0 Reshapes given a -1"), std::string::npos)
      << report;
  grt_graph_free(o);
  grt_tensor* x = TensorF({2, 6}, Iota(12, 0.5f));
  grt_session* on = Session(g.g(), true);
  grt_session* off = Session(g.g(), false);
  std::vector<grt_tensor*> a, b;
  std::string ea = RunS(on, {{"x", x}}, {"y"}, &a), eb = RunS(off, {{"x", x}}, {"y"}, &b);
  EXPECT_NE(ea, "");
  EXPECT_EQ(ea, eb);
  Free(&a);
  Free(&b);
  grt_session_free(on);
  grt_session_free(off);
  grt_tensor_free(x);
}

// Another tensor's batch is another symbol: Reshape(x, [Shape(z)[0], 6])
// is left (fed different batches, the written graph fails).
TEST(SymbolicShapes, AnotherInputsBatchIsAnotherSymbol) {
  Graph g;
  g.Placeholder("x", {-1, 6});
  g.Placeholder("z", {-1, 6});
  Common(&g);
  ShapeOf(&g, "zs", "z");
  Dim(&g, "n", "zs", "i0");
  g.Node("u0", "ExpandDims", {"n", "axis0"}, GRT_INT64);
  I64(&g, "six", {1}, {6});
  g.Node("target", "ConcatV2", {"u0", "six", "axis0"}, GRT_INT64);
  Reshape(&g, "y", "x", "target");
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "ConcatV2"), 1) << report;
  grt_graph_free(o);
  grt_tensor* x = TensorF({2, 6}, Iota(12, 0.5f));
  grt_tensor* z = TensorF({3, 6}, Iota(18, 0.5f));
  grt_session* on = Session(g.g(), true);
  std::vector<grt_tensor*> a;
  EXPECT_NE(RunS(on, {{"x", x}, {"z", z}}, {"y"}, &a), "");
  Free(&a);
  grt_session_free(on);
  grt_tensor_free(x);
  grt_tensor_free(z);
}

// Feeding a node the rewrite depended on goes to the graph as written:
// h fed with another batch than x's, the written graph's target (from x)
// does not fit h and the run fails; a -1 would have fit it.
TEST(SymbolicShapes, FeedingWhatTheRewriteReadFallsBack) {
  Graph g;
  g.Placeholder("x", {-1, 4, 6});
  Common(&g);
  g.Node("h", "Relu", {"x"});
  ShapeOf(&g, "xs", "x");
  Dim(&g, "n", "xs", "i0");
  I64(&g, "four", {}, {4});
  g.Node("n4", "Mul", {"n", "four"}, GRT_INT64);
  g.Node("u0", "ExpandDims", {"n4", "axis0"}, GRT_INT64);
  I64(&g, "six", {1}, {6});
  g.Node("target", "ConcatV2", {"u0", "six", "axis0"}, GRT_INT64);
  Reshape(&g, "y", "h", "target");
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "ConcatV2"), 0) << report;
  grt_graph_free(o);
  grt_tensor* x = TensorF({2, 4, 6}, Iota(48, 0.37f));
  grt_tensor* h = TensorF({3, 4, 6}, Iota(72, 0.41f));
  grt_session* on = Session(g.g(), true);
  grt_session* off = Session(g.g(), false);
  std::vector<grt_tensor*> a, b;
  std::string ea = RunS(on, {{"x", x}, {"h", h}}, {"y"}, &a);
  std::string eb = RunS(off, {{"x", x}, {"h", h}}, {"y"}, &b);
  EXPECT_NE(eb, "");
  EXPECT_EQ(ea, eb);
  Free(&a);
  Free(&b);
  // Fed x alone, the optimized graph serves it.
  for (int64_t n : {1, 3}) {
    grt_tensor* xn = TensorF({n, 4, 6}, Iota((size_t)(n * 24), 0.19f));
    ExpectSameBothWays(g.g(), {{"x", xn}}, {"y"});
    grt_tensor_free(xn);
  }
  grt_session_free(on);
  grt_session_free(off);
  grt_tensor_free(x);
  grt_tensor_free(h);
}

// Shapes that cannot agree, found once a shape is known: z's last dim (8)
// makes x [4,6] a [8,3] that cannot be added to a [4,3]. Both ways fail,
// naming the Add; the optimizer finds it when the session is made.
TEST(SymbolicShapes, ConflictingShapesFailNamingTheNode) {
  Graph g;
  g.Placeholder("z", {-1, 8});
  g.Placeholder("x", {4, 6});
  Common(&g);
  ShapeOf(&g, "zs", "z");
  I64(&g, "one", {}, {1});
  Dim(&g, "eight", "zs", "one");
  g.Node("u0", "ExpandDims", {"eight", "axis0"}, GRT_INT64);
  I64(&g, "three", {1}, {3});
  g.Node("target", "ConcatV2", {"u0", "three", "axis0"}, GRT_INT64);
  Reshape(&g, "r", "x", "target");
  g.ConstF("c", {4, 3}, Iota(12, 0.2f));
  g.Node("y", "AddV2", {"r", "c"});
  grt_graph* o = nullptr;
  grt_session_options* opts = nullptr;
  ASSERT_EQ(grt_session_options_new(&opts), nullptr);
  std::string err = Take(grt_graph_optimize(g.g(), opts, &o, nullptr));
  grt_session_options_free(opts);
  EXPECT_EQ(o, nullptr);
  EXPECT_NE(err.find("'y'"), std::string::npos) << err;
  grt_tensor* x = TensorF({4, 6}, Iota(24, 0.5f));
  grt_tensor* z = TensorF({2, 8}, Iota(16, 0.5f));
  grt_session* off = Session(g.g(), false);
  std::vector<grt_tensor*> a;
  std::string run_err = RunS(off, {{"x", x}, {"z", z}}, {"y"}, &a);
  EXPECT_NE(run_err.find("Incompatible shapes"), std::string::npos) << run_err;
  Free(&a);
  grt_session_free(off);
  grt_tensor_free(x);
  grt_tensor_free(z);
}

}  // namespace
