// The convolution family through a session, as a model runs it: the
// seeds' CIFAR-10 tower (conv 5x5, bias, relu, max pool 3x3/2, LRN) built
// as a graph, run against the float64 reference, from two threads at once
// (steps in flight sharing each node's plans and the cores), and a kernel
// error that names its node; with the session's rewrite off and on. And
// _FusedConv2D with a grouped filter.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "tests/kernels/conv_ref.h"

extern "C" {
#include "grt/grt.h"
}

namespace grt_test {
namespace {

using Dims = std::vector<int64_t>;
using Vals = std::vector<double>;
using namespace ref;

#define OK(expr)                                      \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

grt_tensor* F32(const Dims& d, const Vals& v) {
  grt_tensor* t = nullptr;
  grt_status_free(grt_tensor_new(GRT_FLOAT32, static_cast<int32_t>(d.size()), d.data(), &t));
  float* p = static_cast<float*>(grt_tensor_data(t));
  for (size_t i = 0; i < v.size(); i++) p[i] = static_cast<float>(v[i]);
  return t;
}

const Dims kIn = {2, 9, 8, 3}, kFilter = {5, 5, 3, 4};
const Lrn kLrn = {4, 1.0, 0.001 / 9.0, 0.75};

// The parameter: the session option rewrite (the remapper fuses conv1,
// bias1 and relu1 into one node when on; off runs each op's own kernel).
class Tower : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    w_ = Rand(Elems(kFilter), 1);
    b_ = Rand(4, 2);
    OK(grt_graph_new(&g_));
    int32_t n;
    OK(grt_graph_add_node(g_, "x", "Placeholder", &n));
    OK(grt_graph_set_attr_type(g_, n, "dtype", GRT_FLOAT32));
    Const("w", kFilter, w_);
    Const("b", {4}, b_);
    std::vector<int64_t> ones = {1, 1, 1, 1}, pool = {1, 3, 3, 1}, pool_strides = {1, 2, 2, 1};
    OK(grt_graph_add_node(g_, "conv1", "Conv2D", &n));
    OK(grt_graph_set_attr_type(g_, n, "T", GRT_FLOAT32));
    OK(grt_graph_set_attr_string(g_, n, "padding", "SAME"));
    OK(grt_graph_set_attr_int_list(g_, n, "strides", ones.data(), 4));
    OK(grt_graph_add_input(g_, n, "x"));
    OK(grt_graph_add_input(g_, n, "w"));
    OK(grt_graph_add_node(g_, "bias1", "BiasAdd", &n));
    OK(grt_graph_set_attr_type(g_, n, "T", GRT_FLOAT32));
    OK(grt_graph_add_input(g_, n, "conv1"));
    OK(grt_graph_add_input(g_, n, "b"));
    OK(grt_graph_add_node(g_, "relu1", "Relu", &n));
    OK(grt_graph_set_attr_type(g_, n, "T", GRT_FLOAT32));
    OK(grt_graph_add_input(g_, n, "bias1"));
    OK(grt_graph_add_node(g_, "pool1", "MaxPool", &n));
    OK(grt_graph_set_attr_type(g_, n, "T", GRT_FLOAT32));
    OK(grt_graph_set_attr_string(g_, n, "padding", "SAME"));
    OK(grt_graph_set_attr_int_list(g_, n, "ksize", pool.data(), 4));
    OK(grt_graph_set_attr_int_list(g_, n, "strides", pool_strides.data(), 4));
    OK(grt_graph_add_input(g_, n, "relu1"));
    OK(grt_graph_add_node(g_, "norm1", "LRN", &n));
    OK(grt_graph_set_attr_type(g_, n, "T", GRT_FLOAT32));
    OK(grt_graph_set_attr_int(g_, n, "depth_radius", kLrn.r));
    OK(grt_graph_set_attr_float(g_, n, "alpha", static_cast<float>(kLrn.alpha)));
    OK(grt_graph_set_attr_float(g_, n, "beta", static_cast<float>(kLrn.beta)));
    OK(grt_graph_add_input(g_, n, "pool1"));
    grt_session_options* o = nullptr;
    OK(grt_session_options_new(&o));
    OK(grt_session_options_set(o, "intra_op_threads", "2"));
    OK(grt_session_options_set(o, "rewrite", GetParam() ? "true" : "false"));
    grt_status* s = grt_session_new(g_, o, &s_);
    grt_session_options_free(o);
    OK(s);
  }
  void TearDown() override {
    grt_session_free(s_);
    grt_graph_free(g_);
  }
  void Const(const char* name, const Dims& d, const Vals& v) {
    int32_t n;
    OK(grt_graph_add_node(g_, name, "Const", &n));
    OK(grt_graph_set_attr_type(g_, n, "dtype", GRT_FLOAT32));
    grt_tensor* t = F32(d, v);
    OK(grt_graph_set_attr_tensor(g_, n, "value", t));
    grt_tensor_free(t);
  }
  // The tower in float64.
  Vals Reference(const Vals& x) const {
    ConvGeom c{};
    c.n = kIn[0], c.ih = kIn[1], c.iw = kIn[2], c.ic = kIn[3], c.kh = 5, c.kw = 5, c.oc = 4,
    c.groups = 1;
    c.sh = c.sw = c.dh = c.dw = 1;
    c.h = Window(c.ih, 5, 1, 1, "SAME");
    c.w = Window(c.iw, 5, 1, 1, "SAME");
    Vals y = ConvRef(c, x, w_);
    for (size_t i = 0; i < y.size(); i++) y[i] = std::max(0.0, y[i] + b_[i % 4]);
    PoolGeom p{};
    p.n = c.n, p.ih = c.h.out, p.iw = c.w.out, p.c = 4, p.kh = p.kw = 3, p.sh = p.sw = 2;
    p.h = Window(p.ih, 3, 2, 1, "SAME");
    p.w = Window(p.iw, 3, 2, 1, "SAME");
    return LrnRef(kLrn, p.out(), MaxRef(p, y));
  }
  // Runs with x fed; "" on success with *out set, else the error message.
  std::string Run(const Dims& d, const Vals& x, Vals* out) {
    grt_tensor* xt = F32(d, x);
    grt_feed feed = {"x", xt};
    const char* fetch = "norm1";
    grt_tensor* y = nullptr;
    grt_status* s = grt_session_run(s_, &feed, 1, &fetch, 1, nullptr, 0, &y, nullptr);
    grt_tensor_free(xt);
    if (s) {
      std::string m = grt_status_message(s);
      grt_status_free(s);
      return m;
    }
    const float* p = static_cast<const float*>(grt_tensor_data(y));
    out->assign(p, p + Elems({2, 5, 4, 4}));
    grt_tensor_free(y);
    return "";
  }
  grt_graph* g_ = nullptr;
  grt_session* s_ = nullptr;
  Vals w_, b_;
};

TEST_P(Tower, MatchesTheReference) {
  Vals x = Rand(Elems(kIn), 3), y;
  ASSERT_EQ(Run(kIn, x, &y), "");
  Vals want = Reference(x);
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); i++) EXPECT_NEAR(y[i], want[i], 1e-5) << i;
}

TEST_P(Tower, StepsInFlightFromTwoThreads) {
  Vals x0 = Rand(Elems(kIn), 4), x1 = Rand(Elems(kIn), 5);
  Vals want[2] = {Reference(x0), Reference(x1)};
  int bad[2] = {0, 0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; t++)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 8; i++) {
        Vals y;
        if (!Run(kIn, t ? x1 : x0, &y).empty()) {
          bad[t]++;
          continue;
        }
        for (size_t j = 0; j < y.size(); j++)
          if (std::abs(y[j] - want[t][j]) > 1e-5) {
            bad[t]++;
            break;
          }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad[0], 0);
  EXPECT_EQ(bad[1], 0);
}

TEST_P(Tower, KernelErrorNamesTheNode) {
  Vals y;
  std::string m = Run({2, 9, 8, 2}, Rand(2 * 9 * 8 * 2, 6), &y);
  // Fused, the convolution runs in the node that replaced the chain.
  EXPECT_NE(m.find(GetParam() ? "(_FusedConv2D)" : "node 'conv1' (Conv2D)"), std::string::npos)
      << m;
  EXPECT_NE(m.find("input depth must be evenly divisible by filter depth: 2 vs 3"),
            std::string::npos)
      << m;
  Vals x = Rand(Elems(kIn), 7);  // the session stays usable
  EXPECT_EQ(Run(kIn, x, &y), "");
}

INSTANTIATE_TEST_SUITE_P(Rewrite, Tower, ::testing::Bool());

// _FusedConv2D with a grouped filter (input depth 6, filter depth 2: three
// groups), both formats, input, filter and bias fed: bias and Relu applied
// to the grouped convolution.
TEST(FusedConv2D, GroupedFilterBothFormats) {
  for (bool nchw : {false, true}) {
    SCOPED_TRACE(nchw ? "NCHW" : "NHWC");
    std::string fmt = nchw ? "NCHW" : "NHWC";
    std::string strides = nchw ? "[1,1,2,1]" : "[1,2,1,1]";
    const std::string json =
        R"({"format":"grt.graph","version":1,"nodes":[)"
        R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32"}},)"
        R"({"name":"w","op":"Placeholder","attrs":{"dtype":"float32"}},)"
        R"({"name":"b","op":"Placeholder","attrs":{"dtype":"float32"}},)"
        R"({"name":"y","op":"_FusedConv2D","inputs":["x","w","b"],"attrs":{"T":"float32",)"
        R"("padding":"SAME","data_format":")" +
        fmt + R"(","strides":)" + strides + R"(,"num_args":1,"fused_ops":["BiasAdd","Relu"]}}]})";
    grt_graph* g = nullptr;
    OK(grt_graph_from_json(json.c_str(), json.size(), &g));
    grt_session* s = nullptr;
    OK(grt_session_new(g, nullptr, &s));
    ConvGeom c{};
    c.n = 2, c.ih = 5, c.iw = 6, c.ic = 6, c.kh = 3, c.kw = 2, c.oc = 9, c.groups = 3;
    c.sh = 2, c.sw = 1, c.dh = c.dw = 1;
    c.h = Window(c.ih, c.kh, c.sh, 1, "SAME");
    c.w = Window(c.iw, c.kw, c.sw, 1, "SAME");
    Vals x = Rand(Elems(c.in()), 21), w = Rand(Elems(c.filter()), 22), b = Rand(c.oc, 23);
    Vals want = ConvRef(c, x, w);
    for (size_t i = 0; i < want.size(); i++) want[i] = std::max(0.0, want[i] + b[i % 9]);
    if (nchw) want = ToNchw(want, c.out());
    grt_tensor* xt = nchw ? F32(NchwDims(c.in()), ToNchw(x, c.in())) : F32(c.in(), x);
    grt_tensor* wt = F32(c.filter(), w);
    grt_tensor* bt = F32({c.oc}, b);
    grt_feed feeds[3] = {{"x", xt}, {"w", wt}, {"b", bt}};
    const char* fetch = "y";
    grt_tensor* y = nullptr;
    grt_status* st = grt_session_run(s, feeds, 3, &fetch, 1, nullptr, 0, &y, nullptr);
    grt_tensor_free(xt);
    grt_tensor_free(wt);
    grt_tensor_free(bt);
    grt_session_free(s);
    grt_graph_free(g);
    OK(st);
    ASSERT_EQ(grt_tensor_byte_size(y), want.size() * sizeof(float));
    const float* p = static_cast<const float*>(grt_tensor_data(y));
    for (size_t i = 0; i < want.size(); i++) EXPECT_NEAR(p[i], want[i], 1e-5) << i;
    grt_tensor_free(y);
  }
}

}  // namespace
}  // namespace grt_test
