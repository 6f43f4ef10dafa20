// grt's pointwise kernel (backends/cpu/conv_stem.c, grt_cpu_pointwise_run)
// through _FusedConv2D in a session: NHWC 1x1 convolutions of few input
// channels, and small ones of any depth, against a float64 loop
// (conv_ref.h) at each vector width the CPU runs. Output channel counts
// leave every group size, each narrower vector and a scalar tail; batches
// above 1; every activation _FusedConv2D fuses, a residual, and
// _InputScale (a squeeze-excitation block's per-channel input scale, the
// kernel run per batch element with a scaled filter). What the kernel
// does not take (a deep and large product, a stride, a 3x3 window) runs
// on oneDNN against the same reference, and the threads' split changes no
// bit. (Without the kernel the counts fail; an off-by-one in the narrow
// tails fails the 24- and 28-channel cases.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/conv_ref.h"
#include "tests/kernels/fused_conv_util.h"

extern "C" {
#include "backends/cpu/conv_stem.h"
#include "grt/grt.h"
}

namespace grt_test {
namespace {

using namespace ref;

struct Case {
  Dims in;  // NHWC
  int64_t oc;
  int64_t k = 1, stride = 1;  // window and stride (1: the kernel's)
};

std::string Name(const Case& c) {
  return ::testing::PrintToString(c.in) + " oc" + std::to_string(c.oc) + " k" +
         std::to_string(c.k) + " s" + std::to_string(c.stride);
}

const Case kCases[] = {
    {{1, 7, 9, 16}, 96},    // an expansion: 4 + 2 vectors of 16
    {{2, 5, 6, 24}, 144},   // 9 vectors
    {{1, 4, 13, 32}, 16},   // a projection to one vector
    {{3, 3, 5, 3}, 70},     // 4 + 2 + ... + a tail of 6
    {{1, 6, 6, 1}, 24},     // one input channel; 16 + 8
    {{1, 5, 7, 17}, 28},    // 16 + 8 + 4
    {{1, 8, 3, 9}, 5},      // 4 + 1
    {{2, 2, 2, 32}, 3},     // scalar only
    {{1, 1, 1, 672}, 28},   // a squeeze-excitation's reduce: deep and small
    {{4, 1, 1, 28}, 672},   // and its expand, batch 4
    {{2, 1, 1, 1152}, 48},  // deep, small, two batch elements
};

struct Epi {
  std::string act;  // "None": BiasAdd only
  bool residual;
  bool scale;  // _InputScale
};

const Epi kEpis[] = {
    {"None", false, false},      {"Relu", false, false},       {"Relu6", false, false},
    {"LeakyRelu", false, false}, {"Elu", false, false},        {"Sigmoid", false, false},
    {"Tanh", false, false},      {"_HardSwish", false, false}, {"_Swish", false, false},
    {"Relu", true, false},       {"None", true, false},        {"None", false, true},
    {"_Swish", false, true},     {"None", true, true}};

// Placeholders x, w, (s,) b (and r) into y, one _FusedConv2D.
std::string Json(const Case& c, const Epi& e) {
  std::string attrs = R"("T":"float32","padding":"SAME","data_format":"NHWC","strides":)" +
                      Ints(Dims{1, c.stride, c.stride, 1}) + R"(,"dilations":[1,1,1,1])";
  std::string ops = e.scale ? R"(["_InputScale","BiasAdd")" : R"(["BiasAdd")";
  if (e.residual) ops += R"(,"Add")";
  if (e.act != "None") ops += R"(,")" + e.act + R"(")";
  int args = 1 + e.residual + e.scale;
  attrs += R"(,"num_args":)" + std::to_string(args) + R"(,"fused_ops":)" + ops +
           R"(],"leakyrelu_alpha":)" + std::to_string(kAlpha);
  std::string inputs = R"(["x","w")";
  if (e.scale) inputs += R"(,"s")";
  inputs += R"(,"b")";
  if (e.residual) inputs += R"(,"r")";
  inputs += "]";
  std::string json = R"({"format":"grt.graph","version":1,"nodes":[)";
  for (const char* p : {"x", "w", "s", "b", "r"})
    json +=
        R"({"name":")" + std::string(p) + R"(","op":"Placeholder","attrs":{"dtype":"float32"}},)";
  return json + R"({"name":"y","op":"_FusedConv2D","inputs":)" + inputs + R"(,"attrs":{)" + attrs +
         "}}]}";
}

ConvGeom Geom(const Case& c) {
  ConvGeom g;
  g.n = c.in[0], g.ih = c.in[1], g.iw = c.in[2], g.ic = c.in[3];
  g.kh = c.k, g.kw = c.k, g.groups = 1, g.oc = c.oc;
  g.sh = c.stride, g.sw = c.stride, g.dh = 1, g.dw = 1;
  g.h = Window(g.ih, g.kh, g.sh, 1, "SAME", 0, 0);
  g.w = Window(g.iw, g.kw, g.sw, 1, "SAME", 0, 0);
  return g;
}

struct Inputs {
  ConvGeom g;
  Vals x, w, s, b, r;
};

Inputs Make(const Case& c, uint32_t seed) {
  Inputs in;
  in.g = Geom(c);
  in.x = Rand(Elems(in.g.in()), seed);
  in.w = Rand(Elems(in.g.filter()), seed + 1);
  in.s = Rand(in.g.n * in.g.ic, seed + 2);
  in.b = Rand(in.g.oc, seed + 3);
  in.r = Rand(Elems(in.g.out()), seed + 4);
  for (double& v : in.b) v *= 4;  // the activations see both sides and their tails
  return in;
}

Vals Want(const Epi& e, const Inputs& in) {
  Vals x = in.x;
  if (e.scale)  // x * s, s per batch element and channel
    for (size_t i = 0; i < x.size(); i++) {
      int64_t per = in.g.ih * in.g.iw * in.g.ic, b = static_cast<int64_t>(i) / per;
      x[i] *= in.s[b * in.g.ic + static_cast<int64_t>(i) % in.g.ic];
    }
  Vals y = ConvRef(in.g, x, in.w);
  for (size_t i = 0; i < y.size(); i++)
    y[i] = Activate(e.act, y[i] + in.b[i % in.g.oc] + (e.residual ? in.r[i] : 0.0));
  return y;
}

// Runs the graph with `threads` intra-op threads; "" or the error.
// *kernel_runs: how many times the pointwise kernel ran.
std::string RunGraph(const Case& c, const Epi& e, const Inputs& in, int threads,
                     std::vector<float>* y, int64_t* kernel_runs) {
  std::vector<grt_feed> feeds = {
      {"x", F32(in.g.in(), in.x)}, {"w", F32(in.g.filter(), in.w)}, {"b", F32({in.g.oc}, in.b)}};
  if (e.scale) feeds.push_back({"s", F32({in.g.n, 1, 1, in.g.ic}, in.s)});
  if (e.residual) feeds.push_back({"r", F32(in.g.out(), in.r)});
  return RunStep(Json(c, e), threads, feeds, {"y"}, grt_cpu_pointwise_count, y, kernel_runs);
}

// Within 2e-5 (sums of up to 1152 products).
std::string Compare(const std::vector<float>& got, const Vals& want) {
  return CompareTol(got, want, 2e-5);
}

class Pointwise : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(grt_cpu_stem_force_width(0), 0); }
};

// Each case and epilogue at each width against the float64 loop, run by
// the pointwise kernel (checked by its call count: once, or once per
// batch element with _InputScale).
TEST_F(Pointwise, AgainstReferenceAtEachWidth) {
  int widths = 0;
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    for (const Epi& e : kEpis) {
      SCOPED_TRACE(Name(c) + " " + e.act + (e.residual ? " +residual" : "") +
                   (e.scale ? " _InputScale" : ""));
      Inputs in = Make(c, seed += 5);
      Vals want = Want(e, in);
      std::vector<float> y;
      int64_t runs = 0;
      for (int width : {16, 8, 4}) {
        if (grt_cpu_stem_force_width(width) != 0) continue;  // not on this CPU
        widths = std::max(widths, width);
        SCOPED_TRACE("width " + std::to_string(width));
        ASSERT_EQ(RunGraph(c, e, in, 2, &y, &runs), "");
        EXPECT_EQ(runs, e.scale ? in.g.n : 1) << "the pointwise kernel did not run";
        EXPECT_EQ(Compare(y, want), "");
      }
    }
  }
  EXPECT_GE(widths, 4);
}

// Rows split over threads give the same bits as one thread.
TEST_F(Pointwise, ThreadsChangeNoBit) {
  Case c{{2, 13, 11, 16}, 96};
  Epi e{"_Swish", true, false};
  Inputs in = Make(c, 77);
  std::vector<float> one, four;
  int64_t runs = 0;
  ASSERT_EQ(RunGraph(c, e, in, 1, &one, &runs), "");
  ASSERT_EQ(RunGraph(c, e, in, 4, &four, &runs), "");
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(one, four);
  EXPECT_EQ(Compare(four, Want(e, in)), "");
}

// What the kernel does not take runs on oneDNN, against the same
// reference: 40 input channels over more than GRT_CPU_POINTWISE_MAX_MACS
// multiply-adds, a stride of 2, a 3x3 window.
TEST_F(Pointwise, LeavesToOneDnnWhatItDoesNotTake) {
  for (const Case& c :
       {Case{{2, 20, 20, 40}, 240}, Case{{1, 8, 8, 16}, 32, 1, 2}, Case{{1, 6, 6, 16}, 32, 3, 1}}) {
    SCOPED_TRACE(Name(c));
    for (const Epi& e : {Epi{"_Swish", false, false}, Epi{"None", true, true}}) {
      Inputs in = Make(c, 5);
      std::vector<float> y;
      int64_t runs = 0;
      ASSERT_EQ(RunGraph(c, e, in, 2, &y, &runs), "");
      EXPECT_EQ(runs, 0);
      EXPECT_EQ(Compare(y, Want(e, in)), "");
    }
  }
}

// With _InputScale the kernel also takes projections up to
// GRT_CPU_POINTWISE_SCALED_MAX_IC x _OC channels (EfficientNet's 144 -> 24,
// 240 -> 40), once per batch element; one channel more either way goes to
// oneDNN (over GRT_CPU_POINTWISE_MAX_MACS), and without the scale those
// depths go to oneDNN too.
TEST_F(Pointwise, InputScaleTakesShallowProjections) {
  struct {
    Case c;
    bool scale, taken;
  } cases[] = {
      {{{2, 9, 10, 144}, 24}, true, true},
      {{{1, 7, 9, GRT_CPU_POINTWISE_SCALED_MAX_IC}, GRT_CPU_POINTWISE_SCALED_MAX_OC}, true, true},
      {{{1, 20, 20, GRT_CPU_POINTWISE_SCALED_MAX_IC + 1}, 24}, true, false},
      {{{1, 20, 20, 144}, GRT_CPU_POINTWISE_SCALED_MAX_OC + 1}, true, false},
      {{{2, 9, 10, 144}, 24}, false, false}};
  for (const auto& k : cases) {
    SCOPED_TRACE(Name(k.c) + (k.scale ? " _InputScale" : ""));
    for (const Epi& e : {Epi{"None", true, k.scale}, Epi{"_Swish", false, k.scale}}) {
      Inputs in = Make(k.c, 9);
      std::vector<float> y;
      int64_t runs = 0;
      ASSERT_EQ(RunGraph(k.c, e, in, 2, &y, &runs), "");
      EXPECT_EQ(runs, k.taken ? in.g.n : 0);
      EXPECT_EQ(Compare(y, Want(e, in)), "");
    }
  }
}

}  // namespace
}  // namespace grt_test
