// Element-wise kernels write their output over an input nothing else
// reads (the executor's ctx->forwardable, grt_kernel_forward_or_alloc_output):
// a chain of them then needs one buffer, not two, and no value anything
// else reads is ever overwritten: a feed, a Const, a variable, a fetched
// intermediate, a value a later node still reads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

#define ASSERT_OK(expr)                                 \
  do {                                                  \
    grt_status* st_ = (expr);                           \
    ASSERT_EQ(st_, nullptr) << grt_status_message(st_); \
  } while (0)

constexpr int64_t kN = 1 << 18;  // 1 MiB of float32

grt_graph* Parse(const std::string& json) {
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_from_json(json.c_str(), json.size(), &g);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  return g;
}

std::string Node(const char* name, const char* op, std::vector<const char*> in,
                 const char* attrs = "\"T\":\"float32\"") {
  std::string s = std::string("{\"name\":\"") + name + "\",\"op\":\"" + op + "\",\"inputs\":[";
  for (size_t i = 0; i < in.size(); i++) s += (i ? ",\"" : "\"") + std::string(in[i]) + "\"";
  return s + "],\"attrs\":{" + attrs + "}}";
}

std::string Graph(const std::vector<std::string>& nodes) {
  std::string s = "{\"format\":\"grt.graph\",\"version\":1,\"nodes\":[";
  for (size_t i = 0; i < nodes.size(); i++) s += (i ? "," : "") + nodes[i];
  return s + "]}";
}

std::string Placeholder(const char* name, int64_t n) {
  return std::string("{\"name\":\"") + name +
         "\",\"op\":\"Placeholder\",\"attrs\":{\"dtype\":\"float32\",\"shape\":[" +
         std::to_string(n) + "]}}";
}

grt_session* Session(grt_graph* g, const char* memory_limit) {
  grt_session_options* o = nullptr;
  EXPECT_EQ(grt_session_options_new(&o), nullptr);
  // The optimizer would fold or merge these chains; the rewrite is beside
  // the point: both off, so each node runs its own kernel.
  EXPECT_EQ(grt_session_options_set(o, "rewrite", "false"), nullptr);
  if (memory_limit) {
    EXPECT_EQ(grt_session_options_set(o, "memory_limit", memory_limit), nullptr);
  }
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_session_options_free(o);
  return s;
}

std::vector<float> Values(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; i++) v[i] = (float)((i * 37) % 101) - 50.0f;
  return v;
}

grt_tensor* Tensor(const std::vector<float>& v) {
  grt_tensor* t = nullptr;
  int64_t dims[] = {(int64_t)v.size()};
  EXPECT_EQ(grt_tensor_new(GRT_FLOAT32, 1, dims, &t), nullptr);
  memcpy(grt_tensor_data(t), v.data(), v.size() * sizeof(float));
  return t;
}

const float* F(const grt_tensor* t) { return static_cast<const float*>(grt_tensor_data(t)); }

// Four Negs in a row, each the only reader of the one before: with the
// output written over the input, one 1 MiB buffer serves the whole chain
// after the first (the feed is the user's and stays untouched), so a
// memory limit of 1.5 MiB holds; allocating each output anew needs two
// live buffers at the second Neg and fails. Without forwarding this test
// fails with RESOURCE_EXHAUSTED.
TEST(ForwardInput, AChainRunsInOneBufferAndLeavesTheFeedAlone) {
  grt_graph* g =
      Parse(Graph({Placeholder("x", kN), Node("a", "Neg", {"x"}), Node("b", "Neg", {"a"}),
                   Node("c", "Neg", {"b"}), Node("d", "Neg", {"c"})}));
  ASSERT_NE(g, nullptr);
  grt_session* s = Session(g, "1572864");  // 1.5 MiB
  ASSERT_NE(s, nullptr);
  std::vector<float> xv = Values(kN);
  grt_tensor* x = Tensor(xv);
  grt_feed feed = {"x", x};
  const char* fetch[] = {"d"};
  for (int run = 0; run < 2; run++) {
    grt_tensor* d = nullptr;
    ASSERT_OK(grt_session_run(s, &feed, 1, fetch, 1, nullptr, 0, &d, nullptr));
    ASSERT_EQ(memcmp(F(d), xv.data(), kN * sizeof(float)), 0) << "four negations give x back";
    grt_tensor_free(d);
    ASSERT_EQ(memcmp(F(x), xv.data(), kN * sizeof(float)), 0) << "the feed was written";
  }
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

// A fetched intermediate keeps its value while later nodes run over the
// chain; a value two nodes read is overwritten only by the last of them;
// a broadcast operand (the smaller side) is never the output's buffer.
TEST(ForwardInput, NothingAnotherReaderSeesIsOverwritten) {
  const int64_t rows = 64, cols = 256;
  std::string shaped =
      "{\"name\":\"x\",\"op\":\"Placeholder\",\"attrs\":{\"dtype\":\"float32\","
      "\"shape\":[" +
      std::to_string(rows) + "," + std::to_string(cols) + "]}}";
  std::string axes =
      "{\"name\":\"axes\",\"op\":\"Const\",\"attrs\":{\"dtype\":\"int32\",\"value\":{\"dtype\":"
      "\"int32\",\"shape\":[1],\"values\":[0]}}}";
  grt_graph* g = Parse(Graph(
      {shaped, axes, Node("a", "Neg", {"x"}), Node("b", "Abs", {"a"}), Node("c", "Add", {"a", "b"}),
       Node("m", "Mean", {"c", "axes"}, "\"T\":\"float32\",\"Tidx\":\"int32\",\"keep_dims\":true"),
       Node("y", "Mul", {"c", "m"}), Node("z", "Neg", {"y"})}));
  ASSERT_NE(g, nullptr);
  grt_session* s = Session(g, nullptr);
  ASSERT_NE(s, nullptr);
  std::vector<float> xv = Values(rows * cols);
  grt_tensor* x = nullptr;
  int64_t dims[] = {rows, cols};
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 2, dims, &x));
  memcpy(grt_tensor_data(x), xv.data(), xv.size() * sizeof(float));
  grt_feed feed = {"x", x};
  // The reference in double: a = -x, b = |a|, c = a + b, m = column means
  // of c, y = c * m, z = -y.
  std::vector<double> a(xv.size()), c(xv.size()), m(cols, 0.0), y(xv.size());
  for (size_t i = 0; i < xv.size(); i++) {
    a[i] = -(double)xv[i];
    c[i] = a[i] + std::fabs(a[i]);
    m[i % cols] += c[i] / rows;
  }
  for (size_t i = 0; i < xv.size(); i++) y[i] = c[i] * m[i % cols];
  const char* fetch[] = {"a", "m", "y", "z"};
  grt_tensor* out[4] = {};
  ASSERT_OK(grt_session_run(s, &feed, 1, fetch, 4, nullptr, 0, out, nullptr));
  for (size_t i = 0; i < xv.size(); i++) {
    ASSERT_EQ(F(out[0])[i], (float)a[i]) << "fetched a, element " << i;
    ASSERT_NEAR(F(out[2])[i], y[i], 1e-3 * (1 + std::fabs(y[i]))) << "y, element " << i;
    ASSERT_EQ(F(out[3])[i], -F(out[2])[i]) << "z, element " << i;
  }
  for (int64_t j = 0; j < cols; j++)
    ASSERT_NEAR(F(out[1])[j], m[j], 1e-3 * (1 + std::fabs(m[j]))) << "m, column " << j;
  for (auto* t : out) grt_tensor_free(t);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

// A Const's value and a variable's are held by the graph and the variable:
// an element-wise node reading them allocates, and the next run sees them
// as they were.
TEST(ForwardInput, ConstantsAndVariablesAreNeverOverwritten) {
  std::string k =
      "{\"name\":\"k\",\"op\":\"Const\",\"attrs\":{\"dtype\":\"float32\",\"value\":{\"dtype\":"
      "\"float32\",\"shape\":[3],\"values\":[1,-2,3]}}}";
  std::string v =
      "{\"name\":\"v\",\"op\":\"VariableV2\",\"attrs\":{\"dtype\":\"float32\",\"shape\":[3]}}";
  grt_graph* g = Parse(Graph({k, v, Node("init", "Assign", {"v", "k"}),
                              Node("read", "Identity", {"v"}), Node("nk", "Neg", {"k"}),
                              Node("nv", "Neg", {"read"}), Node("s", "Add", {"nk", "nv"})}));
  ASSERT_NE(g, nullptr);
  grt_session* s = Session(g, nullptr);
  ASSERT_NE(s, nullptr);
  const char* init[] = {"init"};
  ASSERT_OK(grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, nullptr, nullptr));
  for (int run = 0; run < 3; run++) {
    const char* fetch[] = {"s", "k", "read"};
    grt_tensor* out[3] = {};
    ASSERT_OK(grt_session_run(s, nullptr, 0, fetch, 3, nullptr, 0, out, nullptr));
    const float want_s[] = {-2, 4, -6}, want_k[] = {1, -2, 3};
    for (int i = 0; i < 3; i++) {
      EXPECT_EQ(F(out[0])[i], want_s[i]) << "run " << run;
      EXPECT_EQ(F(out[1])[i], want_k[i]) << "the Const, run " << run;
      EXPECT_EQ(F(out[2])[i], want_k[i]) << "the variable, run " << run;
    }
    for (auto* t : out) grt_tensor_free(t);
  }
  grt_session_free(s);
  grt_graph_free(g);
}

// Scalars take the binary engine's short path, which forwards too (the
// executor's most frequent tiny case): a value two nodes read is written
// over only by the last, and the feed and the Const stay as they were over
// runs. The executor hands the slot's reference to the output (a plain
// store when only the two are left): every value must still be freed
// exactly once (run under ASan in the suite's habit).
TEST(ForwardInput, ScalarsForwardAndTheirOperandsStay) {
  std::string x =
      "{\"name\":\"x\",\"op\":\"Placeholder\",\"attrs\":{\"dtype\":\"float32\",\"shape\":[]}}";
  std::string k =
      "{\"name\":\"k\",\"op\":\"Const\",\"attrs\":{\"dtype\":\"float32\",\"value\":{"
      "\"dtype\":\"float32\",\"shape\":[],\"values\":[2]}}}";
  grt_graph* g = Parse(
      Graph({x, k, Node("a", "Add", {"x", "k"}), Node("b", "Add", {"a", "k"}),
             Node("c", "Add", {"b", "a"}), Node("d", "Neg", {"c"}), Node("e", "Mul", {"d", "d"})}));
  ASSERT_NE(g, nullptr);
  grt_session* s = Session(g, nullptr);
  ASSERT_NE(s, nullptr);
  grt_tensor* xv = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 0, nullptr, &xv));
  *static_cast<float*>(grt_tensor_data(xv)) = 1.0f;
  grt_feed feed = {"x", xv};
  for (int run = 0; run < 3; run++) {
    const char* fetch[] = {"a", "d", "e", "k"};
    grt_tensor* out[4] = {};
    ASSERT_OK(grt_session_run(s, &feed, 1, fetch, 4, nullptr, 0, out, nullptr));
    EXPECT_EQ(F(out[0])[0], 3.0f) << "a, read by b and c, run " << run;
    EXPECT_EQ(F(out[1])[0], -8.0f) << "d = -((a + k) + a), run " << run;
    EXPECT_EQ(F(out[2])[0], 64.0f) << "e = d * d, run " << run;
    EXPECT_EQ(F(out[3])[0], 2.0f) << "the Const, run " << run;
    EXPECT_EQ(F(xv)[0], 1.0f) << "the feed, run " << run;
    for (auto* t : out) grt_tensor_free(t);
  }
  grt_tensor_free(xv);
  grt_session_free(s);
  grt_graph_free(g);
}

// ReluGrad (a training step's backward pass through a ReLU) writes its
// output over the gradient it was given when nothing else reads it: at
// ReluGrad the gradient g and the features f are live (1 MiB each, 1.25
// as the allocator rounds them), so a memory limit of 3 MiB holds only if
// the output takes g's buffer; a fresh output needs a third and fails
// with RESOURCE_EXHAUSTED (as it did
// while the same-size engine, TanhGrad's and SigmoidGrad's too, always
// allocated). The features, read by ReluGrad as its second operand, stay.
TEST(ForwardInput, ReluGradWritesOverItsGradient) {
  grt_graph* g =
      Parse(Graph({Placeholder("x", kN), Node("g", "Neg", {"x"}), Node("f", "Square", {"x"}),
                   Node("r", "ReluGrad", {"g", "f"}),
                   Node("s", "Sum", {"f", "axis"}, "\"T\":\"float32\",\"Tidx\":\"int32\""),
                   "{\"name\":\"axis\",\"op\":\"Const\",\"attrs\":{\"dtype\":"
                   "\"int32\",\"value\":{\"dtype\":\"int32\",\"shape\":[],"
                   "\"values\":[0]}}}"}));
  ASSERT_NE(g, nullptr);
  grt_session* s = Session(g, "3145728");  // 3 MiB
  ASSERT_NE(s, nullptr);
  std::vector<float> xv = Values(kN);
  grt_tensor* x = Tensor(xv);
  grt_feed feed = {"x", x};
  const char* fetch[] = {"r", "s"};
  double want_sum = 0;
  for (float v : xv) want_sum += (double)v * v;
  for (int run = 0; run < 2; run++) {
    grt_tensor* out[2] = {};
    ASSERT_OK(grt_session_run(s, &feed, 1, fetch, 2, nullptr, 0, out, nullptr));
    for (int64_t i = 0; i < kN; i++)
      ASSERT_EQ(F(out[0])[i], xv[i] * xv[i] > 0 ? -xv[i] : 0.0f) << "element " << i;
    EXPECT_NEAR(F(out[1])[0], want_sum, want_sum * 1e-5) << "the features, read after ReluGrad";
    for (auto* t : out) grt_tensor_free(t);
    ASSERT_EQ(memcmp(F(x), xv.data(), kN * sizeof(float)), 0) << "the feed was written";
  }
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

}  // namespace
