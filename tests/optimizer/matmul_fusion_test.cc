// Pass matmul_fusion: linear layers on sequences (BatchMatMulV2 of a 3-D
// activation by 2-D constant weights, + bias, + activation) become one
// MatMul between Reshapes with a BiasAdd the session fuses; results match
// the graph as written, fetched intermediates fall back, and products the
// pass must not touch (variable operands, adj_x) stay as written.
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/optimizer/seq_graph.h"

using namespace seqtest;

namespace {

const char* kT = "\"T\":\"float32\"";

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= (size_t)d;
  return n;
}

std::vector<std::string> Linear(const std::vector<int64_t>& xdims, bool adj_y, bool bias_first,
                                const char* act, std::vector<int64_t> bias_dims = {5}) {
  const int64_t d = 4, n = 5;
  std::vector<int64_t> wdims = adj_y ? std::vector<int64_t>{n, d} : std::vector<int64_t>{d, n};
  std::vector<std::string> g = {
      Placeholder("x", xdims), ConstF("w", wdims, Random(d * n, 31)),
      ConstF("b", bias_dims, Random(Count(bias_dims), 32)),
      Node("mm", "BatchMatMulV2", {"x", "w"}, std::string(kT) + (adj_y ? ",\"adj_y\":true" : ""))};
  g.push_back(Node(
      "add", "AddV2",
      bias_first ? std::vector<std::string>{"b", "mm"} : std::vector<std::string>{"mm", "b"}, kT));
  if (act) g.push_back(Node("act", act, {"add"}, kT));
  g.push_back(Node("out", "Neg", {act ? "act" : "add"}, kT));
  return g;
}

void ExpectSame(grt_graph* g, const std::vector<int64_t>& dims, const std::vector<std::string>& f,
                float tol) {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<float> x = Random(total, 5);
  Result plain = RunGraph(g, false, "x", x, dims, f);
  Result opt = RunGraph(g, true, "x", x, dims, f);
  ASSERT_TRUE(plain.ok && opt.ok);
  ASSERT_EQ(plain.values.size(), f.size());
  for (size_t k = 0; k < f.size(); k++) ExpectNear(plain.values[k], opt.values[k], tol);
}

TEST(MatMulFusionPass, SequenceLinearWithBiasAndRelu) {
  grt_graph* g = Parse(Graph(Linear({2, 3, 4}, false, false, "Relu")));
  ASSERT_NE(g, nullptr);
  std::string report;
  EXPECT_EQ(CountOps(g, "BatchMatMulV2", &report), 0);
  EXPECT_NE(report.find("1 batched products on 2-D weights as one GEMM, 1 biases as BiasAdd"),
            std::string::npos)
      << report;
  EXPECT_EQ(CountOps(g, "MatMul"), 1);
  EXPECT_EQ(CountOps(g, "BiasAdd"), 1);
  EXPECT_EQ(CountOps(g, "Relu"), 1);
  EXPECT_EQ(CountOps(g, "AddV2"), 0);
  EXPECT_EQ(CountOps(g, "Reshape"), 2);
  ExpectSame(g, {2, 3, 4}, {"out"}, 1e-5f);
  ExpectSame(g, {2, 3, 4}, {"act"}, 1e-5f);
  grt_graph_free(g);
}

// The op of the node the optimized graph's node `op` reads as input 0
// ("" when there is no such node).
std::string InputOpOf(grt_graph* g, const std::string& op) {
  grt_graph* out = nullptr;
  char* rep = nullptr;
  grt_status* st = grt_graph_optimize(g, nullptr, &out, &rep);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  free(rep);
  std::string found;
  for (int32_t i = 0; out && i < grt_graph_num_nodes(out); i++) {
    if (op != grt_graph_node_op(out, i) || grt_graph_node_num_inputs(out, i) < 1) continue;
    int32_t port = 0;
    int32_t src = grt_graph_find_node(out, grt_graph_node_input(out, i, 0, &port));
    if (src >= 0) found = grt_graph_node_op(out, src);
  }
  grt_graph_free(out);
  return found;
}

// A transformer's feed-forward layer: _Gelu (what pass gelu makes of
// ONNX's erf form) moves before the Reshape back like Relu, reading the
// BiasAdd, so the session's rewrite fuses all three into one _FusedMatMul
// on the CPU (tests/session/rewrite_test.cc). Without _Gelu in the pass's
// activations it stays after the Reshape and reads it.
TEST(MatMulFusionPass, SequenceLinearWithGeluMovesTheGeluBeforeTheReshape) {
  for (const char* attrs : {"\"T\":\"float32\"", "\"T\":\"float32\",\"approximate\":true"}) {
    std::vector<std::string> nodes = Linear({2, 3, 4}, false, false, nullptr);
    nodes.back() = Node("act", "_Gelu", {"add"}, attrs);
    nodes.push_back(Node("out", "Neg", {"act"}, kT));
    grt_graph* g = Parse(Graph(nodes));
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(CountOps(g, "BatchMatMulV2"), 0);
    EXPECT_EQ(CountOps(g, "_Gelu"), 1);
    EXPECT_EQ(InputOpOf(g, "_Gelu"), "BiasAdd") << attrs;
    ExpectSame(g, {2, 3, 4}, {"out"}, 1e-5f);
    ExpectSame(g, {2, 3, 4}, {"act"}, 1e-5f);
    grt_graph_free(g);
  }
}

// A feed-forward block: the second product reads the first layer's
// rewritten output (a Reshape the pass itself added, with no shape until
// the pass returns); both become GEMMs with their biases.
TEST(MatMulFusionPass, SecondLayerOfAFeedForwardBlock) {
  grt_graph* g =
      Parse(Graph({Placeholder("x", {-1, 3, 4}), ConstF("w1", {4, 6}, Random(24, 41)),
                   ConstF("b1", {6}, Random(6, 42)), ConstF("w2", {6, 5}, Random(30, 43)),
                   ConstF("b2", {5}, Random(5, 44)), Node("mm1", "BatchMatMulV2", {"x", "w1"}, kT),
                   Node("add1", "AddV2", {"mm1", "b1"}, kT), Node("relu", "Relu", {"add1"}, kT),
                   Node("mm2", "BatchMatMulV2", {"relu", "w2"}, kT),
                   Node("add2", "AddV2", {"b2", "mm2"}, kT), Node("out", "Neg", {"add2"}, kT)}));
  ASSERT_NE(g, nullptr);
  std::string report;
  EXPECT_EQ(CountOps(g, "BatchMatMulV2", &report), 0) << report;
  EXPECT_NE(report.find("2 batched products on 2-D weights as one GEMM, 2 biases as BiasAdd"),
            std::string::npos)
      << report;
  EXPECT_EQ(CountOps(g, "MatMul"), 2);
  EXPECT_EQ(CountOps(g, "BiasAdd"), 2);
  EXPECT_EQ(CountOps(g, "AddV2"), 0);
  ExpectSame(g, {2, 3, 4}, {"out"}, 1e-5f);
  ExpectSame(g, {1, 3, 4}, {"out", "relu"}, 1e-5f);
  grt_graph_free(g);
}

TEST(MatMulFusionPass, BiasFirstTransposedWeightsNoActivation) {
  grt_graph* g = Parse(Graph(Linear({3, 2, 4}, true, true, nullptr, {1, 1, 5})));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "BiasAdd"), 1);
  EXPECT_EQ(CountOps(g, "MatMul"), 1);
  ExpectSame(g, {3, 2, 4}, {"out"}, 1e-5f);
  grt_graph_free(g);
}

TEST(MatMulFusionPass, UnknownBatchDim) {
  grt_graph* g = Parse(Graph(Linear({-1, 3, 4}, false, false, "Tanh")));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "BatchMatMulV2"), 0);
  ExpectSame(g, {5, 3, 4}, {"out"}, 1e-5f);
  ExpectSame(g, {1, 3, 4}, {"out"}, 1e-5f);
  grt_graph_free(g);
}

// Two unknown batch dimensions: the product cannot be reshaped back from
// [rows, N] (one -1 at most), so it stays batched. (Flattening it anyway
// passed the tests above and failed at run time.)
TEST(MatMulFusionPass, TwoUnknownBatchDimsStayBatched) {
  grt_graph* g = Parse(Graph(Linear({-1, -1, 4}, false, false, "Tanh")));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "BatchMatMulV2"), 1);
  ExpectSame(g, {2, 3, 4}, {"out"}, 1e-5f);
  grt_graph_free(g);
}

TEST(MatMulFusionPass, FetchedProductFallsBack) {
  grt_graph* g = Parse(Graph(Linear({2, 3, 4}, false, false, "Relu")));
  ASSERT_NE(g, nullptr);
  ExpectSame(g, {2, 3, 4}, {"out", "mm", "add"}, 1e-5f);
  grt_graph_free(g);
}

TEST(MatMulFusionPass, PlainMatMulBiasBecomesBiasAdd) {
  grt_graph* g =
      Parse(Graph({Placeholder("x", {3, 4}), ConstF("w", {4, 5}, Random(20, 1)),
                   ConstF("b", {5}, Random(5, 2)), Node("mm", "MatMul", {"x", "w"}, kT),
                   Node("add", "Add", {"mm", "b"}, kT), Node("act", "Relu", {"add"}, kT)}));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "BiasAdd"), 1);
  EXPECT_EQ(CountOps(g, "Add"), 0);
  ExpectSame(g, {3, 4}, {"act"}, 1e-5f);
  grt_graph_free(g);
}

TEST(MatMulFusionPass, VariableOperandsAndAdjXStay) {
  grt_graph* g = Parse(
      Graph({Placeholder("x", {2, 3, 4}), Placeholder("w", {4, 5}),
             ConstF("w2", {3, 5}, Random(15, 3)), Node("mm", "BatchMatMulV2", {"x", "w"}, kT),
             Node("mm2", "BatchMatMulV2", {"x", "w2"}, std::string(kT) + ",\"adj_x\":true")}));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "BatchMatMulV2"), 2);
  grt_graph_free(g);
}

TEST(MatMulFusionPass, BiasOfTheWrongLengthIsNotFused) {
  // A [3, 5] addend is not a bias (it varies along the rows).
  grt_graph* g = Parse(Graph(Linear({2, 3, 4}, false, false, nullptr, {3, 5})));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "BiasAdd"), 0);
  EXPECT_EQ(CountOps(g, "AddV2"), 1);
  ExpectSame(g, {2, 3, 4}, {"out"}, 1e-5f);
  grt_graph_free(g);
}

}  // namespace
