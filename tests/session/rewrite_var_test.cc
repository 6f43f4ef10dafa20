// Weights packed once per session when they are a variable's (marked
// `_grt_var_b` by the rewrite pass, keyed on the variable's version), the
// Conv2DBackpropInput filter packed like a forward one, and _FusedConv2D
// over empty dimensions. References are float64 loops over the same values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "grt/grt.h"
#include "backends/cpu/matmul_dnnl.h"
#include "runtime/session/session_internal.h"

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

std::vector<float> Random(size_t n, unsigned* seed) {
  std::vector<float> v(n);
  for (auto& x : v) x = (float)rand_r(seed) / (float)RAND_MAX - 0.5f;
  return v;
}

grt_tensor* Tensor(std::vector<int64_t> dims, const std::vector<float>& v) {
  grt_tensor* t = nullptr;
  grt_status_free(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &t));
  std::copy(v.begin(), v.end(), static_cast<float*>(grt_tensor_data(t)));
  return t;
}

int32_t Add(grt_graph* g, const std::string& name, const char* op,
            std::vector<std::string> inputs) {
  int32_t i = -1;
  grt_status_free(grt_graph_add_node(g, name.c_str(), op, &i));
  for (auto& in : inputs) grt_status_free(grt_graph_add_input(g, i, in.c_str()));
  if (strcmp(op, "Placeholder") && strcmp(op, "Const") && strcmp(op, "VariableV2"))
    grt_status_free(grt_graph_set_attr_type(g, i, "T", GRT_FLOAT32));
  return i;
}

void Typed(grt_graph* g, const std::string& name, const char* op, std::vector<int64_t> dims) {
  int32_t i = Add(g, name, op, {});
  grt_status_free(grt_graph_set_attr_type(g, i, "dtype", GRT_FLOAT32));
  grt_status_free(grt_graph_set_attr_shape(g, i, "shape", (int32_t)dims.size(), dims.data()));
}

void Conv(grt_graph* g, const std::string& name, const char* op, std::vector<std::string> inputs) {
  int32_t v = Add(g, name, op, inputs);
  int64_t strides[] = {1, 1, 1, 1};
  grt_status_free(grt_graph_set_attr_int_list(g, v, "strides", strides, 4));
  grt_status_free(grt_graph_set_attr_string(g, v, "padding", "SAME"));
}

void ExpectNear(const grt_tensor* t, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(grt_tensor_num_elements(t), (int64_t)want.size()) << what;
  const float* p = static_cast<const float*>(grt_tensor_data(t));
  for (size_t i = 0; i < want.size(); i++)
    ASSERT_NEAR(p[i], want[i], 1e-4 + 1e-4 * std::fabs(want[i])) << what << " element " << i;
}

grt_session* Session(grt_graph* g) {
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, nullptr, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  return s;
}

std::string RunsAs(grt_session* s, const char* name) {
  int32_t v = grt_graph_find_node(s->graph, name);
  for (grt_executable* e = s->cache; e; e = e->next)
    for (int32_t x = 0; x < e->n_nodes; x++)
      if (e->nodes[x].kind == EXEC_KERNEL && e->nodes[x].node == v)
        return e->nodes[x].rw ? e->nodes[x].rw->node->op : s->graph->nodes[v].op;
  return "";
}

std::vector<double> MatMulRef(const std::vector<float>& x, const std::vector<float>& w, int64_t m,
                              int64_t k, int64_t n) {
  std::vector<double> y((size_t)(m * n));
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double acc = 0;
      for (int64_t q = 0; q < k; q++) acc += (double)x[i * k + q] * w[q * n + j];
      y[i * n + j] = acc;
    }
  return y;
}

constexpr int64_t kM = 16, kK = 784, kN = 256;

// x[16,784] -> mm = MatMul(x, w/read), w a VariableV2 read through an
// Identity (TensorFlow's `w/read`); `set` assigns a fed value, `bump` adds a
// fed delta in place, and `train` adds the delta after mm has read w (a
// training step's read then write).
grt_graph* VarMatMul() {
  grt_graph* g = nullptr;
  grt_status_free(grt_graph_new(&g));
  Typed(g, "x", "Placeholder", {-1, kK});
  Typed(g, "w", "VariableV2", {kK, kN});
  Typed(g, "value", "Placeholder", {kK, kN});
  Add(g, "w/read", "Identity", {"w"});
  Add(g, "mm", "MatMul", {"x", "w/read"});
  Add(g, "set", "Assign", {"w", "value"});
  Add(g, "bump", "AssignAdd", {"w", "value"});
  Add(g, "train", "AssignAdd", {"w", "value", "^mm"});
  return g;
}

// A variable's weights are packed on the second run that sees them
// unchanged and reused after; a value assigned (a new tensor) or added in
// place (the same memory) between runs is what the next run computes with,
// and is packed again; a variable written in every run is never packed; a
// fed `w/read` is used as fed.
TEST(RewriteVariables, PackedWhileUnwrittenAndSeenAfterEachWrite) {
  unsigned seed = 11;
  std::vector<float> xv = Random(kM * kK, &seed), w1 = Random(kK * kN, &seed),
                     d = Random(kK * kN, &seed);
  grt_graph* g = VarMatMul();
  grt_session* s = Session(g);
  ASSERT_NE(s, nullptr);
  grt_tensor* x = Tensor({kM, kK}, xv);
  grt_tensor* w1t = Tensor({kK, kN}, w1);
  grt_tensor* dt = Tensor({kK, kN}, d);
  const char* fetch[] = {"mm"};
  auto assign = [&](const char* target, grt_tensor* value) {
    grt_feed f = {"value", value};
    const char* t[] = {target};
    ASSERT_OK(grt_session_run(s, &f, 1, nullptr, 0, t, 1, nullptr, nullptr));
  };
  auto run_mm = [&](const std::vector<float>& w, const char* what) {
    grt_feed f = {"x", x};
    grt_tensor* out = nullptr;
    ASSERT_OK(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, &out, nullptr));
    ExpectNear(out, MatMulRef(xv, w, kM, kK, kN), what);
    grt_tensor_free(out);
  };
  assign("set", w1t);
  int64_t p0 = grt_mm_pack_count();
  run_mm(w1, "first run");
  EXPECT_EQ(grt_mm_pack_count(), p0) << "first sight: not packed yet";
  run_mm(w1, "second run");
  // oneDNN's AVX2/AVX-512 matmul reads 784x256 weights in a blocked layout.
  EXPECT_EQ(grt_mm_pack_count(), p0 + 1);
  run_mm(w1, "third run");
  EXPECT_EQ(grt_mm_pack_count(), p0 + 1) << "reused";
  EXPECT_EQ(RunsAs(s, "mm"), "MatMul");

  // Added in place: the same memory, new contents.
  assign("bump", dt);
  std::vector<float> w2(w1);
  for (size_t i = 0; i < w2.size(); i++) w2[i] += d[i];
  run_mm(w2, "after AssignAdd");
  run_mm(w2, "after AssignAdd, packed again");
  EXPECT_EQ(grt_mm_pack_count(), p0 + 2);

  // Assigned: a new tensor.
  std::vector<float> w3 = Random(kK * kN, &seed);
  grt_tensor* w3t = Tensor({kK, kN}, w3);
  assign("set", w3t);
  run_mm(w3, "after Assign");
  run_mm(w3, "after Assign, packed again");
  run_mm(w3, "after Assign, reused");
  EXPECT_EQ(grt_mm_pack_count(), p0 + 3);

  // Read then written in every run: right each run, never packed.
  std::vector<float> w4(w3);
  for (int step = 0; step < 3; step++) {
    grt_feed f[] = {{"x", x}, {"value", dt}};
    const char* t[] = {"train"};
    grt_tensor* out = nullptr;
    ASSERT_OK(grt_session_run(s, f, 2, fetch, 1, t, 1, &out, nullptr));
    ExpectNear(out, MatMulRef(xv, w4, kM, kK, kN), "training step");
    grt_tensor_free(out);
    for (size_t i = 0; i < w4.size(); i++) w4[i] += d[i];
  }
  EXPECT_EQ(grt_mm_pack_count(), p0 + 3) << "a variable written every run is not packed";

  // Feeding the read: the fed value, not the variable's.
  grt_feed fr[] = {{"x", x}, {"w/read", w1t}};
  grt_tensor* out = nullptr;
  ASSERT_OK(grt_session_run(s, fr, 2, fetch, 1, nullptr, 0, &out, nullptr));
  ExpectNear(out, MatMulRef(xv, w1, kM, kK, kN), "fed w/read");
  grt_tensor_free(out);
  run_mm(w4, "unfed after the fed run");

  for (grt_tensor* t : {x, w1t, dt, w3t}) grt_tensor_free(t);
  grt_session_free(s);
  grt_graph_free(g);
}

// Conv2DBackpropInput (SAME, stride 1, NHWC) in float64: the adjoint of
// Conv2D for out_backprop dy[n,h,w,oc] and filter f[3,3,c,oc].
std::vector<double> BackpropInputRef(const std::vector<float>& dy, const std::vector<float>& f,
                                     int64_t n, int64_t h, int64_t w, int64_t c, int64_t oc) {
  std::vector<double> dx((size_t)(n * h * w * c), 0.0);
  for (int64_t i = 0; i < n; i++)
    for (int64_t r = 0; r < h; r++)
      for (int64_t q = 0; q < w; q++)
        for (int64_t o = 0; o < oc; o++)
          for (int64_t dr = 0; dr < 3; dr++)
            for (int64_t dq = 0; dq < 3; dq++) {
              int64_t yy = r + dr - 1, xx = q + dq - 1;
              if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
              for (int64_t ci = 0; ci < c; ci++)
                dx[((i * h + yy) * w + xx) * c + ci] += (double)dy[((i * h + r) * w + q) * oc + o] *
                                                        f[((dr * 3 + dq) * c + ci) * oc + o];
            }
  return dx;
}

// Conv2DBackpropInput's filter, a Const (cgrad) or a variable (vgrad), is
// packed once; results follow the float64 adjoint, also after the variable
// is assigned a new value.
TEST(RewriteVariables, BackpropInputFilterPacked) {
  const int64_t n = 2, h = 7, w = 6, c = 16, oc = 32;
  unsigned seed = 17;
  std::vector<float> dyv = Random(n * h * w * oc, &seed), fv = Random(9 * c * oc, &seed),
                     f2 = Random(9 * c * oc, &seed);
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  Typed(g, "dy", "Placeholder", {n, h, w, oc});
  Typed(g, "fvar", "VariableV2", {3, 3, c, oc});
  Typed(g, "value", "Placeholder", {3, 3, c, oc});
  Add(g, "set", "Assign", {"fvar", "value"});
  int32_t sizes = Add(g, "sizes", "Const", {});
  {
    grt_tensor* st = nullptr;
    int64_t d1[] = {4};
    ASSERT_OK(grt_tensor_new(GRT_INT32, 1, d1, &st));
    int32_t* p = static_cast<int32_t*>(grt_tensor_data(st));
    p[0] = (int32_t)n, p[1] = (int32_t)h, p[2] = (int32_t)w, p[3] = (int32_t)c;
    ASSERT_OK(grt_graph_set_attr_type(g, sizes, "dtype", GRT_INT32));
    ASSERT_OK(grt_graph_set_attr_tensor(g, sizes, "value", st));
    grt_tensor_free(st);
  }
  int32_t fc = Add(g, "fconst", "Const", {});
  {
    grt_tensor* ft = Tensor({3, 3, c, oc}, fv);
    ASSERT_OK(grt_graph_set_attr_type(g, fc, "dtype", GRT_FLOAT32));
    ASSERT_OK(grt_graph_set_attr_tensor(g, fc, "value", ft));
    grt_tensor_free(ft);
  }
  Conv(g, "cgrad", "Conv2DBackpropInput", {"sizes", "fconst", "dy"});
  Conv(g, "vgrad", "Conv2DBackpropInput", {"sizes", "fvar", "dy"});
  grt_session* s = Session(g);
  ASSERT_NE(s, nullptr);
  grt_tensor* dyt = Tensor({n, h, w, oc}, dyv);
  grt_tensor* ft = Tensor({3, 3, c, oc}, fv);
  grt_tensor* f2t = Tensor({3, 3, c, oc}, f2);
  auto assign = [&](grt_tensor* value) {
    grt_feed f = {"value", value};
    const char* t[] = {"set"};
    ASSERT_OK(grt_session_run(s, &f, 1, nullptr, 0, t, 1, nullptr, nullptr));
  };
  auto run = [&](const std::vector<float>& vf, const char* what) {
    grt_feed f = {"dy", dyt};
    const char* fetch[] = {"cgrad", "vgrad"};
    grt_tensor* out[2] = {};
    ASSERT_OK(grt_session_run(s, &f, 1, fetch, 2, nullptr, 0, out, nullptr));
    ExpectNear(out[0], BackpropInputRef(dyv, fv, n, h, w, c, oc), what);
    ExpectNear(out[1], BackpropInputRef(dyv, vf, n, h, w, c, oc), what);
    for (auto* t : out) grt_tensor_free(t);
  };
  assign(ft);
  int64_t p0 = grt_mm_pack_count();
  run(fv, "first run");
  int64_t p1 = grt_mm_pack_count();
  run(fv, "second run");
  int64_t p2 = grt_mm_pack_count();
  run(fv, "third run");
  // oneDNN's AVX2/AVX-512 backward-data convolution reads 16->32 filters
  // blocked: the Const's packed on the first run, the variable's on the
  // second, none after.
  EXPECT_EQ(p1 - p0, 1);
  EXPECT_EQ(p2 - p1, 1);
  EXPECT_EQ(grt_mm_pack_count(), p2);
  assign(f2t);
  run(f2, "after Assign");
  run(f2, "after Assign, packed again");
  EXPECT_EQ(grt_mm_pack_count(), p2 + 1);
  EXPECT_EQ(RunsAs(s, "vgrad"), "Conv2DBackpropInput");
  for (grt_tensor* t : {dyt, ft, f2t}) grt_tensor_free(t);
  grt_session_free(s);
  grt_graph_free(g);
}

// A loaded _FusedConv2D whose convolution sums nothing (EXPLICIT padding
// around an empty image) gives act(bias) everywhere, in NHWC and NCHW; with
// no output positions (batch 0, or an empty image under SAME) an empty
// output. (A zero filter depth is refused, as TensorFlow does.)
TEST(RewriteVariables, FusedConvEmptyDimensions) {
  struct Case {
    const char* format;
    std::vector<int64_t> in, filter;
    const char* padding;
    std::vector<int64_t> want;  // output shape
  };
  const std::vector<Case> cases = {
      {"NHWC", {1, 0, 0, 2}, {1, 1, 2, 5}, "EXPLICIT", {1, 2, 2, 5}},
      {"NCHW", {2, 2, 0, 0}, {1, 1, 2, 5}, "EXPLICIT", {2, 5, 2, 2}},
      {"NHWC", {0, 4, 3, 2}, {3, 3, 2, 5}, "SAME", {0, 4, 3, 5}},
      {"NHWC", {1, 0, 3, 2}, {3, 3, 2, 5}, "SAME", {1, 0, 3, 5}},
  };
  const std::vector<float> bias = {-1.5f, 0.25f, 7.0f, 0.0f, 3.0f};
  for (const char* act : {"Relu", "Relu6", "Elu"})
    for (const Case& k : cases) {
      auto shape = [](const std::vector<int64_t>& d) {
        std::string s;
        for (size_t i = 0; i < d.size(); i++) s += (i ? "," : "") + std::to_string(d[i]);
        return s;
      };
      bool nchw = strcmp(k.format, "NCHW") == 0;
      std::string text =
          "{\"format\": \"grt.graph\", \"version\": 1, \"nodes\": ["
          "{\"name\": \"x\", \"op\": \"Placeholder\", \"attrs\": {\"dtype\": \"float32\"}},"
          "{\"name\": \"f\", \"op\": \"Placeholder\", \"attrs\": {\"dtype\": \"float32\"}},"
          "{\"name\": \"b\", \"op\": \"Placeholder\", \"attrs\": {\"dtype\": \"float32\"}},"
          "{\"name\": \"y\", \"op\": \"_FusedConv2D\", \"inputs\": [\"x\", \"f\", \"b\"], "
          "\"attrs\": "
          "{\"T\": \"float32\", \"num_args\": 1, \"fused_ops\": [\"BiasAdd\", \"" +
          std::string(act) + "\"], \"strides\": [1, 1, 1, 1], \"padding\": \"" + k.padding +
          "\", \"data_format\": \"" + k.format + "\"" +
          (strcmp(k.padding, "EXPLICIT") != 0 ? ""
           : nchw                             ? ", \"explicit_paddings\": [0, 0, 0, 0, 1, 1, 1, 1]"
                  : ", \"explicit_paddings\": [0, 0, 1, 1, 1, 1, 0, 0]") +
          "}}]}";
      grt_graph* g = nullptr;
      ASSERT_OK(grt_graph_from_json(text.data(), text.size(), &g));
      grt_session* s = Session(g);
      ASSERT_NE(s, nullptr);
      int64_t nx = 1, nf = 1;
      for (int64_t d : k.in) nx *= d;
      for (int64_t d : k.filter) nf *= d;
      grt_tensor* xt = Tensor(k.in, std::vector<float>((size_t)nx, 1.0f));
      grt_tensor* ft = Tensor(k.filter, std::vector<float>((size_t)nf, 1.0f));
      grt_tensor* bt = Tensor({5}, bias);
      grt_feed feeds[] = {{"x", xt}, {"f", ft}, {"b", bt}};
      const char* fetch[] = {"y"};
      grt_tensor* out = nullptr;
      std::string what = std::string(act) + " " + k.format + " " + shape(k.in) + " " + k.padding;
      ASSERT_OK(grt_session_run(s, feeds, 3, fetch, 1, nullptr, 0, &out, nullptr));
      ASSERT_EQ(grt_tensor_rank(out), 4) << what;
      std::vector<int64_t> got;
      for (int32_t i = 0; i < 4; i++) got.push_back(grt_tensor_dim(out, i));
      ASSERT_EQ(got, k.want) << what;
      std::vector<double> want((size_t)grt_tensor_num_elements(out));
      int64_t plane = k.want[nchw ? 2 : 1] * k.want[nchw ? 3 : 2];
      for (size_t i = 0; i < want.size(); i++) {
        int64_t ch = nchw ? ((int64_t)i / plane) % 5 : (int64_t)i % 5;
        double v = bias[(size_t)ch];
        if (!strcmp(act, "Relu")) v = v < 0 ? 0 : v;
        if (!strcmp(act, "Relu6")) v = v < 0 ? 0 : v > 6 ? 6 : v;
        if (!strcmp(act, "Elu")) v = v < 0 ? std::expm1(v) : v;
        want[i] = v;
      }
      ExpectNear(out, want, what.c_str());
      grt_tensor_free(out);
      for (grt_tensor* t : {xt, ft, bt}) grt_tensor_free(t);
      grt_session_free(s);
      grt_graph_free(g);
    }
}

}  // namespace
