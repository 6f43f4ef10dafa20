// Pass attention_heads and its kernel (_PackedQKVAttention): torch's
// MultiheadAttention as exported (one packed in-projection [S, B, 3E]
// sliced into q, k and v, each reshaped to [S, B*H, D] and transposed heads
// first, the output transposed back) becomes one node reading the heads in
// place, computing what the graph as written computes (within a tolerance:
// the sums reassociate); chains the kernel does not compute exactly as
// written are left alone; a run fetching a swallowed intermediate falls
// back; a bad packed shape is an error, not a crash.
//
// Without the pass the fusion counts fail (the slices and transposes stay);
// with the kernel's head or row strides wrong (a head's rows read
// B*E apart instead of 3*B*E, or the output written heads-major) the
// comparisons fail, B = 2 and H = 3 catching either.
#include <string>
#include <vector>

#include "tests/optimizer/seq_graph.h"

extern "C" {
#include "backends/cpu/nn.h"
}

using namespace seqtest;

namespace {

const char* kT = "\"T\":\"float32\"";

// S = 53 positions (a whole tile of 48 query rows and a partial one), B = 2,
// H = 3 heads of D = 8: E = 24, the packed row 72.
const int64_t S = 53, B = 2, H = 3, D = 8, E = H * D;
const std::vector<int64_t> kX = {S, B, 3 * E};

struct Spec {
  bool adj_k = false;   // k Transposed [1, 0, 2] and the product's adj_y, not [1, 2, 0]
  int64_t k_begin = E;  // where k's and v's slices start
  int64_t v_begin = 2 * E;
  int64_t batch_end = 1LL << 62;              // the slices' end on dim 1
  std::vector<int64_t> heads = {S, B* H, D};  // the reshape's target
  std::vector<int64_t> x = kX;                // x's declared shape
};

std::string Slice(const std::string& name, const std::string& x, int64_t begin, int64_t end,
                  int64_t batch_end, std::vector<std::string>* g) {
  g->push_back(ConstI(name + "/b", {0, 0, begin}));
  g->push_back(ConstI(name + "/e", {1LL << 62, batch_end, end}));
  g->push_back(ConstI(name + "/s", {1, 1, 1}));
  return Node(name, "StridedSlice", {x, name + "/b", name + "/e", name + "/s"},
              std::string(kT) + ",\"Index\":\"int64\"");
}

// The exported chain over the fed x: P = Tanh(x) [S, B, 3E], then as above;
// the attention output Transposed back and negated ("out").
std::vector<std::string> Exported(const Spec& sp) {
  const std::string tp = std::string(kT) + ",\"Tperm\":\"int64\"";
  std::vector<std::string> g = {Placeholder("x", sp.x),    Node("p", "Tanh", {"x"}, kT),
                                ConstI("p102", {1, 0, 2}), ConstI("p120", {1, 2, 0}),
                                ConstI("heads", sp.heads), ConstF("c", {}, {2.8284271f})};
  const char* names[3] = {"q", "k", "v"};
  const int64_t begins[3] = {0, sp.k_begin, sp.v_begin};
  for (int i = 0; i < 3; i++) {
    std::string n = names[i];
    g.push_back(Slice(n + "s", "p", begins[i], begins[i] + E, sp.batch_end, &g));
    g.push_back(
        Node(n + "r", "Reshape", {n + "s", "heads"}, std::string(kT) + ",\"Tshape\":\"int64\""));
    const char* perm = i == 1 && !sp.adj_k ? "p120" : "p102";
    g.push_back(Node(n + "t", "Transpose", {n + "r", perm}, tp));
  }
  g.push_back(Node("qd", "RealDiv", {"qt", "c"}, kT));
  g.push_back(
      Node("qk", "BatchMatMulV2", {"qd", "kt"},
           std::string(kT) + ",\"adj_x\":false,\"adj_y\":" + (sp.adj_k ? "true" : "false")));
  g.push_back(Node("sm", "Softmax", {"qk"}, kT));
  g.push_back(Node("pv", "BatchMatMulV2", {"sm", "vt"},
                   std::string(kT) + ",\"adj_x\":false,\"adj_y\":false"));
  g.push_back(Node("y", "Transpose", {"pv", "p102"}, tp));
  g.push_back(Node("out", "Neg", {"y"}, kT));
  return g;
}

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

void ExpectSame(grt_graph* g, const std::vector<std::string>& fetches) {
  std::vector<float> x = Random(Count(kX), 7, 2.0f);
  Result plain = RunGraph(g, false, "x", x, kX, fetches);
  Result opt = RunGraph(g, true, "x", x, kX, fetches);
  ASSERT_TRUE(plain.ok && opt.ok);
  ASSERT_EQ(plain.values.size(), opt.values.size());
  for (size_t k = 0; k < plain.values.size(); k++)
    ExpectNear(plain.values[k], opt.values[k], 2e-5f);
}

void ExpectPacked(const Spec& sp) {
  grt_graph* g = Parse(Graph(Exported(sp)));
  ASSERT_NE(g, nullptr);
  std::string report;
  EXPECT_EQ(CountOps(g, "_PackedQKVAttention", &report), 1);
  EXPECT_NE(report.find("1 attentions read q, k and v"), std::string::npos) << report;
  EXPECT_EQ(CountOps(g, "_ScaledDotProductAttention"), 0);
  EXPECT_EQ(CountOps(g, "StridedSlice"), 0);
  EXPECT_EQ(CountOps(g, "Transpose"), 0);
  EXPECT_EQ(CountOps(g, "Reshape"), 0);
  ExpectSame(g, {"out", "y"});
  grt_graph_free(g);
}

TEST(AttentionHeadsPass, TorchExportReadsHeadsInPlace) {
  int ran = 0;
  for (int width : {4, 8, 16}) {
    if (grt_cpu_attention_force_width(width) != 0) continue;  // not on this CPU
    SCOPED_TRACE("vector width " + std::to_string(width));
    for (bool adj_k : {false, true}) {
      Spec sp;
      sp.adj_k = adj_k;
      ExpectPacked(sp);
    }
    ran++;
  }
  ASSERT_EQ(grt_cpu_attention_force_width(0), 0);
  EXPECT_GE(ran, 1);
  // The batch unknown until run time (the heads' reshape to [S, -1, D], as
  // the exporters' shape arithmetic folds when only the batch is unknown):
  // the kernel takes B from the fed tensor.
  Spec open;
  open.x = {S, -1, 3 * E};
  open.heads = {S, -1, D};
  ExpectPacked(open);
  Spec whole;  // a known end on dim 1 that keeps it whole fuses too
  whole.batch_end = B;
  ExpectPacked(whole);
}

// Chains that are not the view the kernel reads stay as written (the
// attention itself still fuses) and compute the same.
TEST(AttentionHeadsPass, OtherChainsAreLeftAlone) {
  Spec swapped;  // k and v swapped in the packed row
  swapped.k_begin = 2 * E;
  swapped.v_begin = E;
  Spec cut;  // the slices keep one batch index of two
  cut.batch_end = 1;
  cut.heads = {S, H, D};
  Spec fold;  // the heads folded into dim 0, not dim 1
  fold.heads = {S * H, B, D};
  for (const Spec& sp : {swapped, cut, fold}) {
    std::vector<std::string> nodes = Exported(sp);
    grt_graph* g = Parse(Graph(nodes));
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(CountOps(g, "_PackedQKVAttention"), 0);
    EXPECT_EQ(CountOps(g, "_ScaledDotProductAttention"), 1);
    std::vector<float> x = Random(Count(kX), 7, 2.0f);
    Result plain = RunGraph(g, false, "x", x, kX, {"out"});
    Result opt = RunGraph(g, true, "x", x, kX, {"out"});
    ASSERT_TRUE(plain.ok && opt.ok);
    ExpectNear(plain.values[0], opt.values[0], 2e-5f);
    grt_graph_free(g);
  }
}

// A run fetching a swallowed slice or the attention's own output runs the
// graph as written.
TEST(AttentionHeadsPass, FetchedIntermediateFallsBack) {
  grt_graph* g = Parse(Graph(Exported(Spec())));
  ASSERT_NE(g, nullptr);
  ExpectSame(g, {"out", "ks"});
  ExpectSame(g, {"pv"});
  grt_graph_free(g);
}

// The kernel on its own: a packed row that is not 3 * num_heads * D is an
// error naming the shape, at run time when the shape is not declared and
// when the graph is read when it is.
TEST(PackedQKVAttentionKernel, BadShapesAreErrors) {
  std::vector<std::string> nodes = {
      Placeholder("x", {-1, -1, -1}),
      Node("y", "_PackedQKVAttention", {"x"}, std::string(kT) + ",\"num_heads\":2")};
  grt_graph* g = Parse(Graph(nodes));
  ASSERT_NE(g, nullptr);
  grt_session* s = nullptr;
  ASSERT_EQ(grt_session_new(g, nullptr, &s), nullptr);
  grt_tensor* in = nullptr;
  const int64_t dims[3] = {3, 2, 10};
  ASSERT_EQ(grt_tensor_new(GRT_FLOAT32, 3, dims, &in), nullptr);
  memset(grt_tensor_data(in), 0, sizeof(float) * 60);
  grt_feed f = {"x", in};
  const char* fetch = "y";
  grt_tensor* out = nullptr;
  grt_status* st = grt_session_run(s, &f, 1, &fetch, 1, nullptr, 0, &out, nullptr);
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::string(grt_status_message(st)).find("[3,2,10]"), std::string::npos)
      << grt_status_message(st);
  grt_status_free(st);
  grt_tensor_free(in);
  grt_session_free(s);
  grt_graph_free(g);

  nodes[0] = Placeholder("x", {3, 2, 10});
  const std::string text = Graph(nodes);
  g = nullptr;
  st = grt_graph_from_json(text.data(), text.size(), &g);
  ASSERT_NE(st, nullptr);
  EXPECT_NE(std::string(grt_status_message(st)).find("num_heads (2)"), std::string::npos)
      << grt_status_message(st);
  grt_status_free(st);
  grt_graph_free(g);
}

}  // namespace
