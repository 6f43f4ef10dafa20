// Pass attention and its kernel (_ScaledDotProductAttention): the spellings
// of softmax(scale Q K^T [+ mask]) V that TensorFlow graphs and the torch
// exports use, each fused and computing what the graph as written computes;
// the runs the fusion cannot serve (a fetched, fed or shared intermediate, a
// mask that would grow the logits) falling back or left alone; the kernel
// against a double-precision reference over tiles, broadcast batches and
// masks.
#include <cmath>
#include <string>
#include <vector>

#include "tests/optimizer/seq_graph.h"

extern "C" {
#include "backends/cpu/nn.h"
}

using namespace seqtest;

namespace {

const char* kT = "\"T\":\"float32\"";

std::string Bmm(const std::string& name, const std::string& a, const std::string& b, bool adj_y,
                const char* op = "BatchMatMulV2") {
  return Node(name, op, {a, b},
              std::string(kT) + ",\"adj_x\":false,\"adj_y\":" + (adj_y ? "true" : "false"));
}

std::string Transpose(const std::string& name, const std::string& x, const std::string& perm) {
  return Node(name, "Transpose", {x, perm}, std::string(kT) + ",\"Tperm\":\"int64\"");
}

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// Q is the fed "x" [2, 3, 5, 8]; K and V constants over 7 keys.
const std::vector<int64_t> kQ = {2, 3, 5, 8};

// TensorFlow's spelling: BatchMatMulV2(q, k, adj_y) * scale [+ mask], Softmax,
// BatchMatMulV2(., v). `mask_dims` empty: no mask; mask_left: Add(mask, s).
std::vector<std::string> TfAttention(bool div, const std::vector<int64_t>& mask_dims,
                                     bool mask_left = false) {
  std::vector<std::string> g = {
      Placeholder("x", kQ), ConstF("k", {2, 3, 7, 8}, Random(2 * 3 * 7 * 8, 31)),
      ConstF("v", {2, 3, 7, 6}, Random(2 * 3 * 7 * 6, 32)), Bmm("qk", "x", "k", true)};
  if (div) {
    g.push_back(ConstF("c", {}, {2.8284271f}));
    g.push_back(Node("s", "RealDiv", {"qk", "c"}, kT));
  } else {
    g.push_back(ConstF("c", {}, {0.35355339f}));
    g.push_back(Node("s", "Mul", {"c", "qk"}, kT));
  }
  std::string logits = "s";
  if (!mask_dims.empty()) {
    std::vector<float> m = Random(Count(mask_dims), 33, 2.0f);
    m[0] = -1e9f;  // a masked-out key
    g.push_back(ConstF("mask", mask_dims, m));
    g.push_back(Node(
        "sm", "AddV2",
        mask_left ? std::vector<std::string>{"mask", "s"} : std::vector<std::string>{"s", "mask"},
        kT));
    logits = "sm";
  }
  g.push_back(Node("p", "Softmax", {logits}, kT));
  g.push_back(Bmm("y", "p", "v", false));
  g.push_back(Node("out", "Neg", {"y"}, kT));
  return g;
}

// torch's MultiheadAttention export: heads folded into the batch ([B*H, S,
// D]), Q divided by sqrt(D) before the product, K^T a Transpose [1, 2, 0] of
// the [S, B*H, D] reshape (adj_k false), or `swap`: a Transpose [0, 2, 1] of
// K [B*H, S, D] (swallowed, adj_k true). Self-attention over the fed x [6,
// 5, 8]: K and V computed from it, so constant folding leaves them alone.
std::vector<std::string> TorchAttention(bool swap) {
  std::vector<std::string> g = {Placeholder("x", {6, 5, 8}), ConstF("c", {}, {2.8284271f}),
                                Node("qs", "RealDiv", {"x", "c"}, kT)};
  if (swap) {
    g.push_back(Node("k", "Tanh", {"x"}, kT));
    g.push_back(ConstI("perm", {0, 2, 1}));
  } else {
    g.push_back(ConstI("sbd", {1, 0, 2}));
    g.push_back(Transpose("xs", "x", "sbd"));
    g.push_back(Node("k", "Tanh", {"xs"}, kT));
    g.push_back(ConstI("perm", {1, 2, 0}));
  }
  g.push_back(Transpose("kt", "k", "perm"));
  g.push_back(Node("v", "Sigmoid", {"x"}, kT));
  g.push_back(Bmm("qk", "qs", "kt", false));
  g.push_back(Node("p", "Softmax", {"qk"}, kT));
  g.push_back(Bmm("y", "p", "v", false));
  return g;
}

// The full torch MultiheadAttention shape: x [S, N, D] (the heads' reshape)
// Transposed to [N, S, D] for q and v, by [1, 2, 0] for K^T, the output
// Transposed back. `mask`: a causal [S, S] mask added to the logits.
std::vector<std::string> TorchHeads(bool mask) {
  const std::string tp = std::string(kT) + ",\"Tperm\":\"int64\"";
  std::vector<std::string> g = {Placeholder("x", {5, 6, 8}),
                                ConstI("p102", {1, 0, 2}),
                                ConstI("p120", {1, 2, 0}),
                                ConstF("c", {}, {2.8284271f}),
                                Node("q", "Transpose", {"x", "p102"}, tp),
                                Node("qs", "RealDiv", {"q", "c"}, kT),
                                Node("kx", "Tanh", {"x"}, kT),
                                Node("kt", "Transpose", {"kx", "p120"}, tp),
                                Node("vx", "Sigmoid", {"x"}, kT),
                                Node("v", "Transpose", {"vx", "p102"}, tp),
                                Bmm("qk", "qs", "kt", false)};
  std::string logits = "qk";
  if (mask) {
    std::vector<float> m(25);
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 5; j++) m[i * 5 + j] = j > i ? -1e9f : 0.0f;
    g.push_back(ConstF("mask", {5, 5}, m));
    g.push_back(Node("qkm", "AddV2", {"qk", "mask"}, kT));
    logits = "qkm";
  }
  g.push_back(Node("p", "Softmax", {logits}, kT));
  g.push_back(Bmm("pv", "p", "v", false));
  g.push_back(Node("y", "Transpose", {"pv", "p102"}, tp));
  g.push_back(Node("out", "Neg", {"y"}, kT));
  return g;
}

void ExpectSame(grt_graph* g, const std::vector<int64_t>& dims,
                const std::vector<std::string>& fetches, float tol = 2e-5f) {
  std::vector<float> x = Random(Count(dims), 1, 2.0f);
  Result plain = RunGraph(g, false, "x", x, dims, fetches);
  Result opt = RunGraph(g, true, "x", x, dims, fetches);
  ASSERT_TRUE(plain.ok && opt.ok);
  ASSERT_EQ(plain.values.size(), opt.values.size());
  for (size_t k = 0; k < plain.values.size(); k++) ExpectNear(plain.values[k], opt.values[k], tol);
}

void ExpectFused(const std::vector<std::string>& nodes, const std::vector<int64_t>& dims,
                 const std::string& fetch, const char* detail = "1 attention blocks") {
  grt_graph* g = Parse(Graph(nodes));
  ASSERT_NE(g, nullptr);
  std::string report;
  EXPECT_EQ(CountOps(g, "_ScaledDotProductAttention", &report), 1);
  EXPECT_NE(report.find(detail), std::string::npos) << report;
  EXPECT_EQ(CountOps(g, "Softmax"), 0);
  EXPECT_EQ(CountOps(g, "BatchMatMulV2") + CountOps(g, "MatMul"), 0);
  ExpectSame(g, dims, {fetch});
  grt_graph_free(g);
}

TEST(AttentionPass, TensorFlowFormsFuseAndMatch) {
  ExpectFused(TfAttention(false, {}), kQ, "out");
  ExpectFused(TfAttention(true, {}), kQ, "out");
  ExpectFused(TfAttention(false, {}, false), kQ, "y");
}

TEST(AttentionPass, MasksFuseAndMatch) {
  const char* masked = "1 attention blocks (1 masked)";
  ExpectFused(TfAttention(false, {5, 7}), kQ, "out", masked);
  ExpectFused(TfAttention(true, {7}), kQ, "out", masked);
  ExpectFused(TfAttention(false, {2, 1, 1, 7}), kQ, "out", masked);
  ExpectFused(TfAttention(false, {2, 3, 5, 7}, true), kQ, "out", masked);
  ExpectFused(TfAttention(false, {1, 3, 5, 1}, true), kQ, "out", masked);
}

TEST(AttentionPass, MaskThatGrowsTheLogitsIsNotFused) {
  // [2, 2, 3, 5, 7]: the sum has a dim the product lacks.
  grt_graph* g = Parse(Graph(TfAttention(false, {2, 2, 3, 5, 7})));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "_ScaledDotProductAttention"), 0);
  grt_graph_free(g);
}

TEST(AttentionPass, TorchExportFormsFuseAndMatch) {
  for (bool swap : {false, true}) {
    ExpectFused(TorchAttention(swap), {6, 5, 8}, "y");
    grt_graph* g = Parse(Graph(TorchAttention(swap)));
    ASSERT_NE(g, nullptr);
    // The swapping Transpose is swallowed (adj_k); the [1, 2, 0] one stays.
    EXPECT_EQ(CountOps(g, "Transpose"), swap ? 0 : 2);
    EXPECT_EQ(CountOps(g, "RealDiv"), 0);
    grt_graph_free(g);
  }
}

TEST(AttentionPass, TorchLayoutWithCausalMask) {
  for (bool mask : {false, true}) {
    std::vector<std::string> nodes = TorchHeads(mask);
    ExpectFused(nodes, {5, 6, 8}, "out", mask ? "(1 masked)" : "(0 masked)");
    grt_graph* g = Parse(Graph(nodes));
    ASSERT_NE(g, nullptr);
    // The heads' Transposes stay around the fused op (K^T's is its input).
    EXPECT_EQ(CountOps(g, "Transpose"), 4);
    ExpectSame(g, {5, 6, 8}, {"out", "pv"});  // pv swallowed: fallback
    grt_graph_free(g);
  }
}

TEST(AttentionPass, MatMulWithTransposeB) {
  std::vector<std::string> g = {
      Placeholder("x", {5, 8}),
      ConstF("k", {9, 8}, Random(72, 51)),
      ConstF("v", {9, 4}, Random(36, 52)),
      Node("qk", "MatMul", {"x", "k"},
           std::string(kT) + ",\"transpose_a\":false,\"transpose_b\":true"),
      ConstF("c", {}, {0.5f}),
      Node("s", "Mul", {"qk", "c"}, kT),
      Node("p", "Softmax", {"s"}, kT),
      Node("y", "MatMul", {"p", "v"},
           std::string(kT) + ",\"transpose_a\":false,\"transpose_b\":false")};
  ExpectFused(g, {5, 8}, "y");
}

TEST(AttentionPass, FetchedIntermediateFallsBack) {
  grt_graph* g = Parse(Graph(TfAttention(false, {5, 7})));
  ASSERT_NE(g, nullptr);
  // p and s are swallowed by the fusion: the run uses the graph as written.
  ExpectSame(g, kQ, {"out", "p", "s"});
  grt_graph_free(g);
}

TEST(AttentionPass, SharedIntermediateIsNotFused) {
  std::vector<std::string> nodes = TfAttention(false, {});
  nodes.push_back(Node("other", "Neg", {"p"}, kT));
  grt_graph* g = Parse(Graph(nodes));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(CountOps(g, "_ScaledDotProductAttention"), 0);
  ExpectSame(g, kQ, {"out", "other"}, 0.0f);
  grt_graph_free(g);
}

TEST(AttentionPass, FeedingAnIntermediate) {
  grt_graph* g = Parse(Graph(TfAttention(false, {5, 7})));
  ASSERT_NE(g, nullptr);
  // Feeding the probabilities: y is p times v, fused or not.
  std::vector<int64_t> pd = {2, 3, 5, 7};
  std::vector<float> p = Random(Count(pd), 61);
  Result plain = RunGraph(g, false, "p", p, pd, {"out"});
  Result opt = RunGraph(g, true, "p", p, pd, {"out"});
  ASSERT_TRUE(plain.ok && opt.ok);
  ExpectNear(plain.values[0], opt.values[0], 1e-6f);
  grt_graph_free(g);
}

TEST(AttentionPass, SwitchedOff) {
  grt_graph* g = Parse(Graph(TfAttention(false, {})));
  ASSERT_NE(g, nullptr);
  Result r = RunGraph(g, true, "x", Random(Count(kQ), 1), kQ, {"out"}, "attention");
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.report.find("attention"), std::string::npos);
  EXPECT_NE(r.report.find("off"), std::string::npos) << r.report;
  grt_graph_free(g);
}

// ---- the kernel against a double-precision reference ---------------------

// softmax(scale q k^T + mask) v for q [B, Sq, D], k [Bk, Sk, D] (Bk 1 or B),
// v [B, Sk, Dv], mask [Sq, Sk] or none.
std::vector<double> Reference(const std::vector<float>& q, const std::vector<float>& k,
                              const std::vector<float>& v, const std::vector<float>* mask,
                              int64_t b, int64_t bk, int64_t sq, int64_t sk, int64_t d, int64_t dv,
                              double scale) {
  std::vector<double> out(b * sq * dv);
  std::vector<double> row(sk);
  for (int64_t n = 0; n < b; n++)
    for (int64_t i = 0; i < sq; i++) {
      double m = -INFINITY, sum = 0;
      for (int64_t j = 0; j < sk; j++) {
        double s = 0;
        for (int64_t c = 0; c < d; c++)
          s += (double)q[(n * sq + i) * d + c] * k[((bk == 1 ? 0 : n) * sk + j) * d + c];
        row[j] = s * scale + (mask ? (*mask)[i * sk + j] : 0.0);
        m = std::max(m, row[j]);
      }
      for (int64_t j = 0; j < sk; j++) sum += row[j] = std::exp(row[j] - m);
      for (int64_t c = 0; c < dv; c++) {
        double o = 0;
        for (int64_t j = 0; j < sk; j++) o += row[j] * v[(n * sk + j) * dv + c];
        out[(n * sq + i) * dv + c] = o / sum;
      }
    }
  return out;
}

void MatchesDoubleReference();

// Every vector width the machine can run (the baseline SSE copy, AVX2's,
// AVX-512's), each against the same double-precision reference: the
// kernel picks the widest by itself, so the others run only when forced.
TEST(AttentionKernel, MatchesDoubleReference) {
  int ran = 0;
  for (int width : {4, 8, 16}) {
    if (grt_cpu_attention_force_width(width) != 0) continue;  // not on this CPU
    SCOPED_TRACE("vector width " + std::to_string(width));
    MatchesDoubleReference();
    ran++;
  }
  ASSERT_EQ(grt_cpu_attention_force_width(0), 0);
  EXPECT_GE(ran, 1) << "the baseline copy runs everywhere";
  EXPECT_EQ(grt_cpu_attention_force_width(5), -1) << "no such copy";
  MatchesDoubleReference();  // the default choice
}

void MatchesDoubleReference() {
  struct Case {
    int64_t b, bk, sq, sk, d, dv;
    bool mask;
    float qscale;
  };
  // Tiles of 32 query rows and 4 x 16 register blocks: partial tiles, key
  // counts and widths off the vector size, one batch of K broadcast, and
  // logits large enough to overflow exp without the max subtraction.
  for (Case cs : {Case{1, 1, 1, 1, 1, 1, false, 1}, Case{2, 2, 5, 7, 8, 6, true, 1},
                  Case{3, 1, 70, 37, 5, 19, true, 1}, Case{2, 2, 33, 64, 64, 64, false, 1},
                  Case{1, 1, 9, 130, 16, 17, true, 40}}) {
    std::vector<float> q = Random(cs.b * cs.sq * cs.d, 71, cs.qscale);
    std::vector<float> k = Random(cs.bk * cs.sk * cs.d, 72);
    std::vector<float> v = Random(cs.b * cs.sk * cs.dv, 73);
    std::vector<float> mask = Random(cs.sq * cs.sk, 74, 3.0f);
    const double scale = 0.3;
    std::vector<std::string> nodes = {
        Placeholder("x", {cs.b, cs.sq, cs.d}), ConstF("k", {cs.bk, cs.sk, cs.d}, k),
        ConstF("v", {cs.b, cs.sk, cs.dv}, v), ConstF("mask", {cs.sq, cs.sk}, mask)};
    std::vector<std::string> in = {"x", "k", "v"};
    if (cs.mask) in.push_back("mask");
    nodes.push_back(Node(
        "y", "_ScaledDotProductAttention", in,
        std::string(kT) + ",\"scale\":0.3,\"adj_k\":true,\"num_mask\":" + (cs.mask ? "1" : "0")));
    grt_graph* g = Parse(Graph(nodes));
    ASSERT_NE(g, nullptr);
    Result r = RunGraph(g, false, "x", q, {cs.b, cs.sq, cs.d}, {"y"});
    ASSERT_TRUE(r.ok);
    std::vector<double> want = Reference(q, k, v, cs.mask ? &mask : nullptr, cs.b, cs.bk, cs.sq,
                                         cs.sk, cs.d, cs.dv, scale);
    ASSERT_EQ(r.values[0].size(), want.size());
    for (size_t i = 0; i < want.size(); i++)
      ASSERT_NEAR(r.values[0][i], want[i], 2e-5 * (1 + std::fabs(want[i])))
          << "sq " << cs.sq << " sk " << cs.sk << " at " << i;
    grt_graph_free(g);
  }
}

TEST(AttentionKernel, UntransposedKMatchesTransposed) {
  // k given as [B, D, Sk] (adj_k false) against the same keys as [B, Sk, D].
  const int64_t b = 2, sq = 40, sk = 21, d = 12, dv = 5;
  std::vector<float> k = Random(b * sk * d, 81), kt(k.size());
  for (int64_t n = 0; n < b; n++)
    for (int64_t j = 0; j < sk; j++)
      for (int64_t c = 0; c < d; c++) kt[(n * d + c) * sk + j] = k[(n * sk + j) * d + c];
  std::vector<std::string> nodes = {
      Placeholder("x", {b, sq, d}),
      ConstF("k", {b, sk, d}, k),
      ConstF("kt", {b, d, sk}, kt),
      ConstF("v", {b, sk, dv}, Random(b * sk * dv, 82)),
      Node("y1", "_ScaledDotProductAttention", {"x", "k", "v"},
           std::string(kT) + ",\"scale\":0.5,\"adj_k\":true,\"num_mask\":0"),
      Node("y2", "_ScaledDotProductAttention", {"x", "kt", "v"},
           std::string(kT) + ",\"scale\":0.5,\"adj_k\":false,\"num_mask\":0")};
  grt_graph* g = Parse(Graph(nodes));
  ASSERT_NE(g, nullptr);
  Result r = RunGraph(g, false, "x", Random(b * sq * d, 83), {b, sq, d}, {"y1", "y2"});
  ASSERT_TRUE(r.ok);
  ExpectNear(r.values[0], r.values[1], 0.0f);
  grt_graph_free(g);
}

TEST(AttentionKernel, MismatchedDepthIsAnError) {
  grt_graph* g = Parse(Graph({Placeholder("x", {2, 3, -1}), ConstF("k", {2, 4, 5}, Random(40, 1)),
                              ConstF("v", {2, 4, 5}, Random(40, 2)),
                              Node("y", "_ScaledDotProductAttention", {"x", "k", "v"},
                                   std::string(kT) + ",\"num_mask\":0")}));
  ASSERT_NE(g, nullptr);
  {
    grt_session* s = nullptr;
    ASSERT_EQ(grt_session_new(g, nullptr, &s), nullptr);
    int64_t dims[3] = {2, 3, 6};
    grt_tensor* in = nullptr;
    ASSERT_EQ(grt_tensor_new(GRT_FLOAT32, 3, dims, &in), nullptr);
    grt_feed f = {"x", in};
    const char* fetch = "y";
    grt_tensor* out = nullptr;
    grt_status* st = grt_session_run(s, &f, 1, &fetch, 1, nullptr, 0, &out, nullptr);
    ASSERT_NE(st, nullptr);
    EXPECT_NE(std::string(grt_status_message(st)).find("depths of q and k"), std::string::npos)
        << grt_status_message(st);
    grt_status_free(st);
    grt_tensor_free(in);
    grt_session_free(s);
  }
  grt_graph_free(g);
}

}  // namespace
