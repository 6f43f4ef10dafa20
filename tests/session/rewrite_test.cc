// The session's graph rewrite (runtime/session/rewrite_remap.c): MatMul +
// BiasAdd (+ Relu) chains run as one _FusedMatMul, constant weights are
// packed once per session, and the cases that must not fuse run as written.
// References are float64 loops over the same weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <tuple>
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

struct Layer {
  int64_t in, out;
  bool relu;
  std::vector<float> w, b;
};

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

int32_t Add(grt_graph* g, const std::string& name, const char* op, std::vector<std::string> inputs,
            const char* device = nullptr) {
  int32_t i = -1;
  grt_status_free(grt_graph_add_node(g, name.c_str(), op, &i));
  for (auto& in : inputs) grt_status_free(grt_graph_add_input(g, i, in.c_str()));
  if (device) grt_status_free(grt_graph_set_device(g, i, device));
  if (strcmp(op, "Placeholder") && strcmp(op, "Const"))
    grt_status_free(grt_graph_set_attr_type(g, i, "T", GRT_FLOAT32));
  return i;
}

void Const(grt_graph* g, const std::string& name, std::vector<int64_t> dims,
           const std::vector<float>& v) {
  int32_t i = Add(g, name, "Const", {});
  grt_tensor* t = Tensor(dims, v);
  grt_status_free(grt_graph_set_attr_type(g, i, "dtype", GRT_FLOAT32));
  grt_status_free(grt_graph_set_attr_tensor(g, i, "value", t));
  grt_tensor_free(t);
}

// x -> [MatMul mmL, BiasAdd biasL, Relu reluL] per layer; returns the last
// node's name. `devices[l]` pins layer l's BiasAdd (nullptr: free).
std::string Build(grt_graph* g, std::vector<Layer>& layers, unsigned* seed,
                  std::vector<const char*> bias_devices = {}) {
  int32_t x = Add(g, "x", "Placeholder", {});
  int64_t dims[] = {-1, layers[0].in};
  grt_status_free(grt_graph_set_attr_type(g, x, "dtype", GRT_FLOAT32));
  grt_status_free(grt_graph_set_attr_shape(g, x, "shape", 2, dims));
  std::string prev = "x";
  for (size_t l = 0; l < layers.size(); l++) {
    Layer& L = layers[l];
    L.w = Random((size_t)(L.in * L.out), seed);
    L.b = Random((size_t)L.out, seed);
    std::string s = std::to_string(l);
    Const(g, "w" + s, {L.in, L.out}, L.w);
    Const(g, "b" + s, {L.out}, L.b);
    Add(g, "mm" + s, "MatMul", {prev, "w" + s});
    Add(g, "bias" + s, "BiasAdd", {"mm" + s, "b" + s},
        l < bias_devices.size() ? bias_devices[l] : nullptr);
    prev = "bias" + s;
    if (L.relu) {
      Add(g, "relu" + s, "Relu", {prev});
      prev = "relu" + s;
    }
  }
  return prev;
}

// The float64 reference of every layer's output for input x (m rows).
std::vector<std::vector<double>> Reference(const std::vector<Layer>& layers,
                                           const std::vector<float>& x, int64_t m) {
  std::vector<std::vector<double>> outs;
  std::vector<double> cur(x.begin(), x.end());
  for (const Layer& L : layers) {
    std::vector<double> y((size_t)(m * L.out));
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < L.out; j++) {
        double acc = L.b[j];
        for (int64_t k = 0; k < L.in; k++) acc += cur[i * L.in + k] * (double)L.w[k * L.out + j];
        y[i * L.out + j] = L.relu && acc < 0 ? 0 : acc;
      }
    outs.push_back(y);
    cur = y;
  }
  return outs;
}

void ExpectNear(const grt_tensor* t, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(grt_tensor_num_elements(t), (int64_t)want.size()) << what;
  const float* p = static_cast<const float*>(grt_tensor_data(t));
  for (size_t i = 0; i < want.size(); i++)
    ASSERT_NEAR(p[i], want[i], 1e-4 + 1e-4 * std::fabs(want[i])) << what << " element " << i;
}

grt_session* Session(grt_graph* g, std::initializer_list<std::pair<const char*, const char*>> kv) {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  for (auto& p : kv) grt_status_free(grt_session_options_set(o, p.first, p.second));
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_session_options_free(o);
  return s;
}

// The op the executable runs for graph node `name` in a run fetching
// `fetches` (after a run built it): "" when the node does not run.
std::string RunsAs(grt_session* s, const char* name) {
  int32_t v = grt_graph_find_node(s->graph, name);
  for (grt_executable* e = s->cache; e; e = e->next)
    for (int32_t x = 0; x < e->n_nodes; x++)
      if (e->nodes[x].kind == EXEC_KERNEL && e->nodes[x].node == v)
        return e->nodes[x].rw ? e->nodes[x].rw->node->op : s->graph->nodes[v].op;
  return "";
}

// fused_ops' activation of the fused node run for graph node `name` (after
// a run built it): "" when there is none.
std::string FusedActivation(grt_session* s, const char* name) {
  int32_t v = grt_graph_find_node(s->graph, name);
  for (grt_executable* e = s->cache; e; e = e->next)
    for (int32_t x = 0; x < e->n_nodes; x++)
      if (e->nodes[x].kind == EXEC_KERNEL && e->nodes[x].node == v && e->nodes[x].rw) {
        const grt_attr_value* ops = grt_node_attr(e->nodes[x].rw->node, "fused_ops");
        if (ops && ops->type == GRT_ATTR_LIST_STRING && ops->u.list.n == 2)
          return ops->u.list.v.s[1];
      }
  return "";
}

// The seeds' MLP shape (784-256-10 here, batch 4 and 1) and a small layer
// OpenBLAS runs: fused and unfused results match the float64 reference.
TEST(Rewrite, FusedMlpMatchesReferenceAndUnfused) {
  for (bool rewrite : {true, false}) {
    std::vector<Layer> layers = {{784, 256, true}, {256, 10, false}, {10, 6, true}};
    unsigned seed = 11;
    grt_graph* g = nullptr;
    ASSERT_OK(grt_graph_new(&g));
    std::string last = Build(g, layers, &seed);
    grt_session* s = Session(g, {{"rewrite", rewrite ? "true" : "false"}});
    ASSERT_NE(s, nullptr);
    for (int64_t m : {4, 1}) {
      std::vector<float> xv = Random((size_t)(m * 784), &seed);
      grt_tensor* x = Tensor({m, 784}, xv);
      grt_feed f = {"x", x};
      const char* fetch[] = {last.c_str()};
      grt_tensor* out = nullptr;
      ASSERT_OK(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, &out, nullptr));
      ExpectNear(out, Reference(layers, xv, m).back(), rewrite ? "fused" : "unfused");
      grt_tensor_free(out);
      grt_tensor_free(x);
    }
    EXPECT_EQ(RunsAs(s, "relu0"), rewrite ? "_FusedMatMul" : "Relu");
    EXPECT_EQ(RunsAs(s, "bias1"), rewrite ? "_FusedMatMul" : "BiasAdd");
    EXPECT_EQ(RunsAs(s, "mm0"), rewrite ? "" : "MatMul");
    EXPECT_EQ(RunsAs(s, "bias0"), rewrite ? "" : "BiasAdd");
    EXPECT_EQ(grt_remap_count(s->remap), rewrite ? 3 : 0);
    grt_session_free(s);
    grt_graph_free(g);
  }
}

// A trace names the op that ran: a fused chain's event carries its root's
// name and _FusedMatMul, not the root's own op (BiasAdd, Relu).
TEST(Rewrite, TraceNamesTheFusedOp) {
  std::vector<Layer> layers = {{16, 8, true}, {8, 4, false}};
  unsigned seed = 3;
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  std::string last = Build(g, layers, &seed);
  grt_session* s = Session(g, {});
  ASSERT_NE(s, nullptr);
  grt_tensor* x = Tensor({2, 16}, Random(2 * 16, &seed));
  grt_feed f = {"x", x};
  const char* fetch[] = {last.c_str()};
  grt_tensor* out = nullptr;
  grt_trace* tr = nullptr;
  ASSERT_OK(grt_trace_new(&tr));
  ASSERT_OK(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, &out, tr));
  char* buf = nullptr;
  size_t len = 0;
  FILE* mem = open_memstream(&buf, &len);
  ASSERT_OK(grt_trace_write_json(tr, mem));
  fclose(mem);
  std::string json(buf, len);
  free(buf);
  EXPECT_NE(json.find("\"name\":\"relu0\",\"pid\":0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\":\"bias1\",\"pid\":0"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"op\":\"Relu\""), std::string::npos) << json;
  EXPECT_EQ(json.find("\"op\":\"BiasAdd\""), std::string::npos) << json;
  size_t fused = 0;
  for (size_t at = json.find("\"op\":\"_FusedMatMul\""); at != std::string::npos;
       at = json.find("\"op\":\"_FusedMatMul\"", at + 1))
    fused++;
  EXPECT_EQ(fused, 2u) << json;
  grt_trace_free(tr);
  grt_tensor_free(out);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

// Fetching an intermediate value: that run keeps the chain as written (the
// value exists), a run fetching only the end fuses; both are right.
TEST(Rewrite, FetchedIntermediateIsNotFused) {
  std::vector<Layer> layers = {{64, 32, true}};
  unsigned seed = 5;
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  Build(g, layers, &seed);
  grt_session* s = Session(g, {});
  ASSERT_NE(s, nullptr);
  std::vector<float> xv = Random(8 * 64, &seed);
  grt_tensor* x = Tensor({8, 64}, xv);
  grt_feed f = {"x", x};
  const char* fetch[] = {"relu0", "bias0"};
  grt_tensor* out[2] = {nullptr, nullptr};
  ASSERT_OK(grt_session_run(s, &f, 1, fetch, 2, nullptr, 0, out, nullptr));
  std::vector<Layer> pre = layers;
  pre[0].relu = false;
  ExpectNear(out[0], Reference(layers, xv, 8).back(), "relu0");
  ExpectNear(out[1], Reference(pre, xv, 8).back(), "bias0");
  EXPECT_EQ(RunsAs(s, "relu0"), "Relu");
  EXPECT_EQ(RunsAs(s, "mm0"), "MatMul");
  for (auto* t : out) grt_tensor_free(t);
  // Feeding the MatMul's output: the BiasAdd must read the fed value.
  std::vector<float> mv = Random(8 * 32, &seed);
  grt_tensor* mm = Tensor({8, 32}, mv);
  grt_feed f2 = {"mm0", mm};
  grt_tensor* r = nullptr;
  const char* fetch2[] = {"relu0"};
  ASSERT_OK(grt_session_run(s, &f2, 1, fetch2, 1, nullptr, 0, &r, nullptr));
  const float* p = static_cast<const float*>(grt_tensor_data(r));
  for (int i = 0; i < 8 * 32; i++) {
    double want = (double)mv[i] + layers[0].b[i % 32];
    ASSERT_NEAR(p[i], want < 0 ? 0 : want, 1e-5);
  }
  grt_tensor_free(r);
  grt_tensor_free(mm);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

// A MatMul whose value has a second consumer, and a chain split over two
// devices, run unfused; the results still match.
TEST(Rewrite, SharedOrCrossDeviceChainsAreNotFused) {
  std::vector<Layer> layers = {{48, 40, true}, {40, 24, true}};
  unsigned seed = 9;
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  Build(g, layers, &seed, {nullptr, "/device:CPU:1"});
  Add(g, "also", "Neg", {"mm0"});
  grt_session* s = Session(g, {{"cpu.devices", "2"}});
  ASSERT_NE(s, nullptr);
  std::vector<float> xv = Random(3 * 48, &seed);
  grt_tensor* x = Tensor({3, 48}, xv);
  grt_feed f = {"x", x};
  const char* fetch[] = {"relu1", "also"};
  grt_tensor* out[2] = {nullptr, nullptr};
  ASSERT_OK(grt_session_run(s, &f, 1, fetch, 2, nullptr, 0, out, nullptr));
  ExpectNear(out[0], Reference(layers, xv, 3).back(), "relu1");
  EXPECT_EQ(RunsAs(s, "relu0"), "Relu");  // mm0 has two consumers
  EXPECT_EQ(RunsAs(s, "relu1"), "Relu");  // bias1 is on CPU:1, mm1 on CPU:0
  EXPECT_EQ(RunsAs(s, "mm1"), "MatMul");
  for (auto* t : out) grt_tensor_free(t);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

// Constant weights are packed once per session and shape, however many runs.
TEST(Rewrite, ConstantWeightsArePackedOnce) {
  std::vector<Layer> layers = {{784, 256, true}};
  unsigned seed = 3;
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  Build(g, layers, &seed);
  grt_session* s = Session(g, {});
  ASSERT_NE(s, nullptr);
  std::vector<float> xv = Random(16 * 784, &seed);
  grt_tensor* x = Tensor({16, 784}, xv);
  grt_feed f = {"x", x};
  const char* fetch[] = {"relu0"};
  std::vector<double> want = Reference(layers, xv, 16).back();
  int64_t before = grt_mm_pack_count(), after_first = 0;
  for (int run = 0; run < 4; run++) {
    grt_tensor* out = nullptr;
    ASSERT_OK(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, &out, nullptr));
    ExpectNear(out, want, "packed");
    grt_tensor_free(out);
    if (run == 0) after_first = grt_mm_pack_count();
  }
  // oneDNN's AVX2/AVX-512 matmul reads 784x256 weights in a blocked layout.
  EXPECT_EQ(after_first - before, 1);
  EXPECT_EQ(grt_mm_pack_count(), after_first);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

}  // namespace

namespace {

// Conv2D (NHWC, HWIO) + BiasAdd + Relu in float64: SAME or VALID, stride s.
std::vector<double> ConvRef(const std::vector<float>& x, int64_t n, int64_t h, int64_t w, int64_t c,
                            const std::vector<float>& f, int64_t k, int64_t oc,
                            const std::vector<float>& b, int64_t s, bool same, int64_t* oh,
                            int64_t* ow, bool relu = true) {
  *oh = same ? (h + s - 1) / s : (h - k) / s + 1;
  *ow = same ? (w + s - 1) / s : (w - k) / s + 1;
  int64_t pad_h = same ? std::max<int64_t>((*oh - 1) * s + k - h, 0) / 2 : 0;
  int64_t pad_w = same ? std::max<int64_t>((*ow - 1) * s + k - w, 0) / 2 : 0;
  std::vector<double> y((size_t)(n * *oh * *ow * oc));
  for (int64_t i = 0; i < n; i++)
    for (int64_t r = 0; r < *oh; r++)
      for (int64_t q = 0; q < *ow; q++)
        for (int64_t o = 0; o < oc; o++) {
          double acc = b[o];
          for (int64_t dr = 0; dr < k; dr++)
            for (int64_t dq = 0; dq < k; dq++) {
              int64_t yy = r * s + dr - pad_h, xx = q * s + dq - pad_w;
              if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
              for (int64_t ci = 0; ci < c; ci++)
                acc += (double)x[((i * h + yy) * w + xx) * c + ci] *
                       f[((dr * k + dq) * c + ci) * oc + o];
            }
          y[((i * *oh + r) * *ow + q) * oc + o] = relu && acc < 0 ? 0 : acc;
        }
  return y;
}

// Conv2D + BiasAdd + Relu fused into _FusedConv2D matches the float64
// reference and the unfused run, SAME and VALID, strides 1 and 2.
TEST(Rewrite, FusedConvMatchesReference) {
  for (bool rewrite : {true, false})
    for (int64_t stride : {1, 2})
      for (bool same : {true, false}) {
        unsigned seed = 21;
        const int64_t n = 2, h = 9, w = 7, c = 3, k = 3, oc = 8;
        std::vector<float> xv = Random(n * h * w * c, &seed), fv = Random(k * k * c * oc, &seed),
                           bv = Random(oc, &seed);
        grt_graph* g = nullptr;
        ASSERT_OK(grt_graph_new(&g));
        int32_t x = Add(g, "x", "Placeholder", {});
        int64_t dims[] = {-1, h, w, c};
        grt_status_free(grt_graph_set_attr_type(g, x, "dtype", GRT_FLOAT32));
        grt_status_free(grt_graph_set_attr_shape(g, x, "shape", 4, dims));
        Const(g, "filter", {k, k, c, oc}, fv);
        Const(g, "b", {oc}, bv);
        int32_t conv = Add(g, "conv", "Conv2D", {"x", "filter"});
        int64_t strides[] = {1, stride, stride, 1};
        ASSERT_OK(grt_graph_set_attr_int_list(g, conv, "strides", strides, 4));
        ASSERT_OK(grt_graph_set_attr_string(g, conv, "padding", same ? "SAME" : "VALID"));
        Add(g, "bias", "BiasAdd", {"conv", "b"});
        Add(g, "relu", "Relu", {"bias"});
        grt_session* s = Session(g, {{"rewrite", rewrite ? "true" : "false"}});
        ASSERT_NE(s, nullptr);
        grt_tensor* xt = Tensor({n, h, w, c}, xv);
        grt_feed f = {"x", xt};
        const char* fetch[] = {"relu"};
        grt_tensor* out = nullptr;
        ASSERT_OK(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, &out, nullptr));
        int64_t oh, ow;
        std::vector<double> want = ConvRef(xv, n, h, w, c, fv, k, oc, bv, stride, same, &oh, &ow);
        ExpectNear(out, want, rewrite ? "fused conv" : "conv");
        EXPECT_EQ(RunsAs(s, "relu"), rewrite ? "_FusedConv2D" : "Relu");
        EXPECT_EQ(RunsAs(s, "conv"), rewrite ? "" : "Conv2D");
        grt_tensor_free(out);
        grt_tensor_free(xt);
        grt_session_free(s);
        grt_graph_free(g);
      }
}

}  // namespace

namespace {

// GELU in float64: x Phi(x), or its tanh form.
double Gelu(double x, bool approximate) {
  if (approximate)
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}

// MatMul + BiasAdd + _Gelu (a transformer's feed-forward layer, as pass
// gelu and matmul_fusion leave it) runs as one _FusedMatMul on the CPU,
// fused_ops [BiasAdd, GeluExact] or [BiasAdd, GeluApproximate], at a size
// oneDNN runs (its gelu post-op) and one OpenBLAS runs (grt's loop over the
// biased rows); both match float64 and the chain as written. Before the
// remapper knew _Gelu, the chain ran as _FusedMatMul(BiasAdd) + _Gelu.
TEST(Rewrite, MatMulBiasGeluRunsFused) {
  for (bool approximate : {false, true})
    for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{8, 96, 256}, {3, 16, 4}})
      for (bool rewrite : {true, false}) {
        unsigned seed = 41;
        std::vector<float> w = Random((size_t)(k * n), &seed), b = Random((size_t)n, &seed);
        std::vector<float> xv = Random((size_t)(m * k), &seed);
        for (auto& v : xv) v *= 6;  // both tails of the GELU
        grt_graph* g = nullptr;
        ASSERT_OK(grt_graph_new(&g));
        int32_t x = Add(g, "x", "Placeholder", {});
        int64_t dims[] = {-1, k};
        ASSERT_OK(grt_graph_set_attr_type(g, x, "dtype", GRT_FLOAT32));
        ASSERT_OK(grt_graph_set_attr_shape(g, x, "shape", 2, dims));
        Const(g, "w", {k, n}, w);
        Const(g, "b", {n}, b);
        Add(g, "mm", "MatMul", {"x", "w"});
        Add(g, "bias", "BiasAdd", {"mm", "b"});
        int32_t gelu = Add(g, "gelu", "_Gelu", {"bias"});
        ASSERT_OK(grt_graph_set_attr_bool(g, gelu, "approximate", approximate));
        grt_session* s = Session(g, {{"rewrite", rewrite ? "true" : "false"}});
        ASSERT_NE(s, nullptr);
        grt_tensor* xt = Tensor({m, k}, xv);
        grt_feed f = {"x", xt};
        const char* fetch[] = {"gelu"};
        grt_tensor* out = nullptr;
        ASSERT_OK(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, &out, nullptr));
        std::vector<double> want((size_t)(m * n));
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++) {
            double acc = b[j];
            for (int64_t q = 0; q < k; q++) acc += (double)xv[i * k + q] * w[q * n + j];
            want[i * n + j] = Gelu(acc, approximate);
          }
        ExpectNear(out, want, rewrite ? "fused" : "as written");
        EXPECT_EQ(RunsAs(s, "gelu"), rewrite ? "_FusedMatMul" : "_Gelu");
        EXPECT_EQ(RunsAs(s, "bias"), rewrite ? "" : "BiasAdd");
        if (rewrite) {
          EXPECT_EQ(FusedActivation(s, "gelu"), approximate ? "GeluApproximate" : "GeluExact");
        }
        grt_tensor_free(out);
        grt_tensor_free(xt);
        grt_session_free(s);
        grt_graph_free(g);
      }
}

// A graph that holds _FusedMatMul itself (as TensorFlow's optimised graphs
// do), with each activation, at a size OpenBLAS runs (8x16x4) and one oneDNN
// runs (8x96x256), and as one row of 2^17 multiply-adds (1x512x256:
// matmul_gemv.c) with b as it is and transposed: against float64.
TEST(Rewrite, LoadedFusedMatMulActivations) {
  struct Shape {
    int64_t m, k, n;
    bool tb;
  };
  for (const char* act : {"", "Relu", "Relu6", "Elu", "GeluExact", "GeluApproximate"})
    for (Shape sh : {Shape{8, 16, 4, false}, Shape{8, 96, 256, false}, Shape{1, 512, 256, false},
                     Shape{1, 512, 256, true}}) {
      const int64_t m = sh.m, k = sh.k, n = sh.n;
      const bool tb = sh.tb;
      unsigned seed = 31;
      std::vector<float> a = Random(m * k, &seed), b = Random(k * n, &seed),
                         bias = Random(n, &seed);
      for (auto& v : a) v *= 8;  // reach Relu6's cap and Elu's negative side
      auto list = [](const std::vector<float>& v) {
        std::string s;
        for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
        return s;
      };
      auto tensor = [&](std::vector<int64_t> d, const std::vector<float>& v) {
        std::string s = "{\"dtype\": \"float32\", \"shape\": [";
        for (size_t i = 0; i < d.size(); i++) s += (i ? "," : "") + std::to_string(d[i]);
        return s + "], \"values\": [" + list(v) + "]}";
      };
      std::string ops = *act ? std::string("[\"BiasAdd\", \"") + act + "\"]" : "[\"BiasAdd\"]";
      std::string text =
          "{\"format\": \"grt.graph\", \"version\": 1, \"nodes\": ["
          "{\"name\": \"a\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"float32\", \"value\": " +
          tensor({m, k}, a) +
          "}},"
          "{\"name\": \"b\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"float32\", \"value\": " +
          (tb ? tensor({n, k}, b) : tensor({k, n}, b)) +
          "}},"
          "{\"name\": \"c\", \"op\": \"Const\", \"attrs\": {\"dtype\": \"float32\", \"value\": " +
          tensor({n}, bias) +
          "}},"
          "{\"name\": \"f\", \"op\": \"_FusedMatMul\", \"inputs\": [\"a\", \"b\", \"c\"], "
          "\"attrs\": "
          "{\"num_args\": 1, \"transpose_b\": " +
          (tb ? "true" : "false") + ", \"fused_ops\": " + ops + "}}]}";
      grt_graph* g = nullptr;
      ASSERT_OK(grt_graph_from_json(text.data(), text.size(), &g));
      grt_session* s = Session(g, {});
      ASSERT_NE(s, nullptr);
      const char* fetch[] = {"f"};
      grt_tensor* out = nullptr;
      ASSERT_OK(grt_session_run(s, nullptr, 0, fetch, 1, nullptr, 0, &out, nullptr));
      std::vector<double> want((size_t)(m * n));
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
          double acc = bias[j];
          for (int64_t q = 0; q < k; q++)
            acc += (double)a[i * k + q] * b[tb ? j * k + q : q * n + j];
          if (!strcmp(act, "Relu")) acc = acc < 0 ? 0 : acc;
          if (!strcmp(act, "Relu6")) acc = acc < 0 ? 0 : acc > 6 ? 6 : acc;
          if (!strcmp(act, "Elu")) acc = acc < 0 ? std::expm1(acc) : acc;
          if (!strcmp(act, "GeluExact") || !strcmp(act, "GeluApproximate"))
            acc = Gelu(acc, !strcmp(act, "GeluApproximate"));
          want[i * n + j] = acc;
        }
      ExpectNear(out, want, act);
      grt_tensor_free(out);
      grt_session_free(s);
      grt_graph_free(g);
    }
}

}  // namespace

namespace {

// x -> conv (Conv2D, 3x3, 16->32) and dw (DepthwiseConv2dNative, 3x3,
// multiplier 2) and fused (Conv2D + BiasAdd + Relu -> _FusedConv2D), each
// on a Const filter.
grt_graph* ConstFilterConvs(const std::vector<float>& fv, const std::vector<float>& dv,
                            const std::vector<float>& bv) {
  grt_graph* g = nullptr;
  grt_status_free(grt_graph_new(&g));
  int32_t x = Add(g, "x", "Placeholder", {});
  int64_t dims[] = {-1, 10, 9, 16};
  grt_status_free(grt_graph_set_attr_type(g, x, "dtype", GRT_FLOAT32));
  grt_status_free(grt_graph_set_attr_shape(g, x, "shape", 4, dims));
  Const(g, "filter", {3, 3, 16, 32}, fv);
  Const(g, "dfilter", {3, 3, 16, 2}, dv);
  Const(g, "ffilter", {3, 3, 16, 32}, fv);
  Const(g, "b", {32}, bv);
  int64_t strides[] = {1, 1, 1, 1};
  for (auto [name, op, filter] : {std::tuple{"conv", "Conv2D", "filter"},
                                  std::tuple{"dw", "DepthwiseConv2dNative", "dfilter"},
                                  std::tuple{"fconv", "Conv2D", "ffilter"}}) {
    int32_t v = Add(g, name, op, {"x", filter});
    grt_status_free(grt_graph_set_attr_int_list(g, v, "strides", strides, 4));
    grt_status_free(grt_graph_set_attr_string(g, v, "padding", "SAME"));
  }
  Add(g, "bias", "BiasAdd", {"fconv", "b"});
  Add(g, "relu", "Relu", {"bias"});
  return g;
}

// Const filters of Conv2D, DepthwiseConv2dNative and _FusedConv2D are
// packed once per session however many runs, and the packed runs give
// exactly what the per-call reorder gives (rewrite off: the same primitive
// reading the same weights, reordered each call).
TEST(Rewrite, ConstantConvFiltersArePackedOnce) {
  unsigned seed = 5;
  const int64_t n = 2, h = 10, w = 9, c = 16, oc = 32;
  std::vector<float> xv = Random(n * h * w * c, &seed), fv = Random(3 * 3 * c * oc, &seed),
                     dv = Random(3 * 3 * c * 2, &seed), bv = Random(oc, &seed);
  grt_tensor* xt = Tensor({n, h, w, c}, xv);
  grt_feed f = {"x", xt};
  const char* fetch[] = {"conv", "dw", "relu"};
  grt_tensor* want[3] = {};
  {
    grt_graph* g = ConstFilterConvs(fv, dv, bv);
    grt_session* s = Session(g, {{"rewrite", "false"}});
    ASSERT_NE(s, nullptr);
    int64_t before = grt_mm_pack_count();
    ASSERT_OK(grt_session_run(s, &f, 1, fetch, 3, nullptr, 0, want, nullptr));
    EXPECT_EQ(grt_mm_pack_count(), before) << "no packing without the rewrite's mark";
    grt_session_free(s);
    grt_graph_free(g);
  }
  int64_t oh, ow;
  ExpectNear(want[2], ConvRef(xv, n, h, w, c, fv, 3, oc, bv, 1, true, &oh, &ow),
             "unfused conv + bias + relu");
  grt_graph* g = ConstFilterConvs(fv, dv, bv);
  // filter and ffilter hold the same values: the optimizer's CSE would
  // merge them, then conv and fconv, leaving nothing to fuse. This test is
  // about the per-session packing, so CSE stays off.
  grt_session* s = Session(g, {{"optimizer_off", "cse"}});
  ASSERT_NE(s, nullptr);
  int64_t before = grt_mm_pack_count(), after_first = 0;
  for (int run = 0; run < 4; run++) {
    grt_tensor* out[3] = {};
    ASSERT_OK(grt_session_run(s, &f, 1, fetch, 3, nullptr, 0, out, nullptr));
    for (int k = 0; k < 2; k++) {
      ASSERT_EQ(grt_tensor_num_elements(out[k]), grt_tensor_num_elements(want[k])) << fetch[k];
      EXPECT_EQ(memcmp(grt_tensor_data(out[k]), grt_tensor_data(want[k]),
                       (size_t)grt_tensor_num_elements(out[k]) * sizeof(float)),
                0)
          << fetch[k] << " packed differs from reordered per call, run " << run;
    }
    ExpectNear(out[2], ConvRef(xv, n, h, w, c, fv, 3, oc, bv, 1, true, &oh, &ow),
               "fused conv, packed");
    for (auto* t : out) grt_tensor_free(t);
    if (run == 0) after_first = grt_mm_pack_count();
  }
  EXPECT_EQ(RunsAs(s, "conv"), "Conv2D");
  EXPECT_EQ(RunsAs(s, "dw"), "DepthwiseConv2dNative");
  EXPECT_EQ(RunsAs(s, "relu"), "_FusedConv2D");
  // oneDNN's AVX2/AVX-512 convolutions read 16->32 and depthwise filters
  // in blocked layouts: one copy per node, made on the first run only.
  EXPECT_EQ(after_first - before, 3);
  EXPECT_EQ(grt_mm_pack_count(), after_first);
  // Feeding the Const replaces the packed filter: the run uses the fed
  // values (the node runs unmarked), and the next unfed run the packed copy.
  std::vector<float> fv2 = Random(3 * 3 * c * oc, &seed), zero(oc, 0.0f);
  grt_tensor* f2 = Tensor({3, 3, c, oc}, fv2);
  grt_feed feeds[] = {{"x", xt}, {"ffilter", f2}};
  const char* fetch_fused[] = {"relu"};
  grt_tensor* fed = nullptr;
  ASSERT_OK(grt_session_run(s, feeds, 2, fetch_fused, 1, nullptr, 0, &fed, nullptr));
  ExpectNear(fed, ConvRef(xv, n, h, w, c, fv2, 3, oc, bv, 1, true, &oh, &ow), "fed filter");
  grt_tensor_free(fed);
  ASSERT_OK(grt_session_run(s, &f, 1, fetch_fused, 1, nullptr, 0, &fed, nullptr));
  ExpectNear(fed, ConvRef(xv, n, h, w, c, fv, 3, oc, bv, 1, true, &oh, &ow),
             "Const filter after a fed run");
  grt_tensor_free(fed);
  EXPECT_EQ(grt_mm_pack_count(), after_first);
  grt_tensor_free(f2);
  for (auto* t : want) grt_tensor_free(t);
  grt_tensor_free(xt);
  grt_session_free(s);
  grt_graph_free(g);
}

// A ResNet block's convolution: Conv2D + BiasAdd + residual Add + Relu,
// which the optimizer fuses into a _FusedConv2D of four inputs (x,
// filter, bias, residual). Its Const filter is packed on the first run
// only, like the three-input fusions' (it was reordered on every call
// while the session's rewrite took at most three inputs: 3 ms a run for
// each of ResNet-18's 512-channel blocks).
TEST(Rewrite, ResidualFusedConvPacksItsFilterOnce) {
  for (bool relu : {true, false}) {
    SCOPED_TRACE(relu ? "with Relu" : "without an activation (MobileNet's blocks)");
    unsigned seed = 9;
    const int64_t n = 1, h = 10, w = 9, c = 16, oc = 16;
    std::vector<float> xv = Random(n * h * w * c, &seed), fv = Random(3 * 3 * c * oc, &seed),
                       bv = Random(oc, &seed), rv = Random(n * h * w * oc, &seed);
    grt_graph* g = nullptr;
    ASSERT_OK(grt_graph_new(&g));
    int64_t dims[] = {-1, h, w, c};
    for (const char* name : {"x", "res"}) {
      int32_t v = Add(g, name, "Placeholder", {});
      ASSERT_OK(grt_graph_set_attr_type(g, v, "dtype", GRT_FLOAT32));
      ASSERT_OK(grt_graph_set_attr_shape(g, v, "shape", 4, dims));
    }
    Const(g, "filter", {3, 3, c, oc}, fv);
    Const(g, "b", {oc}, bv);
    int32_t conv = Add(g, "conv", "Conv2D", {"x", "filter"});
    int64_t strides[] = {1, 1, 1, 1};
    ASSERT_OK(grt_graph_set_attr_int_list(g, conv, "strides", strides, 4));
    ASSERT_OK(grt_graph_set_attr_string(g, conv, "padding", "SAME"));
    Add(g, "bias", "BiasAdd", {"conv", "b"});
    Add(g, "sum", "Add", {"bias", "res"});
    if (relu) Add(g, "relu", "Relu", {"sum"});
    int64_t oh, ow;
    std::vector<double> want = ConvRef(xv, n, h, w, c, fv, 3, oc, bv, 1, true, &oh, &ow, false);
    for (size_t i = 0; i < want.size(); i++)
      want[i] = relu ? std::max(want[i] + rv[i], 0.0) : want[i] + rv[i];
    grt_tensor* xt = Tensor({n, h, w, c}, xv);
    grt_tensor* rt = Tensor({n, h, w, oc}, rv);
    grt_feed feeds[] = {{"x", xt}, {"res", rt}};
    const char* fetch[] = {relu ? "relu" : "sum"};
    grt_session* s = Session(g, {});
    ASSERT_NE(s, nullptr);
    int64_t before = grt_mm_pack_count(), after_first = 0;
    for (int run = 0; run < 3; run++) {
      grt_tensor* out = nullptr;
      ASSERT_OK(grt_session_run(s, feeds, 2, fetch, 1, nullptr, 0, &out, nullptr));
      ExpectNear(out, want, "residual fused conv");
      grt_tensor_free(out);
      if (run == 0) after_first = grt_mm_pack_count();
    }
    EXPECT_EQ(RunsAs(s, fetch[0]), "_FusedConv2D");
    EXPECT_EQ(after_first - before, 1) << "the filter packed on the first run";
    EXPECT_EQ(grt_mm_pack_count(), after_first) << "and not again";
    grt_tensor_free(xt);
    grt_tensor_free(rt);
    grt_session_free(s);
    grt_graph_free(g);
  }
}

}  // namespace
