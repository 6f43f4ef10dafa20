// grt's stem kernel (backends/cpu/conv_stem.c) through _FusedConv2D with
// input_data_format NCHW in a session: an NCHW image in, NHWC out,
// against a float64 loop (conv_ref.h) at each vector width the CPU runs,
// over 1 to 4 input channels, output channel counts that leave every
// group size and a scalar tail, windows 1x1 to 7x7 (the 3-channel 7x7 and
// 3x3 stride-2 stems take the kernel's compiled-in paths), strides 1 to
// 3, SAME, VALID and asymmetric EXPLICIT padding, windows larger than the
// input, batches above 1, every activation _FusedConv2D fuses and a
// residual; and that what the kernel does not run is an error naming why.
// (Before the kernel, _FusedConv2D had no input_data_format and every
// graph here was refused; a window end off by one in the kernel's interior
// fails AgainstReferenceAtEachWidth at the first 7x7 case.)
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
  Dims in;  // NHWC sizes (the tensor fed is NCHW)
  int64_t kh, kw, sh, sw, oc;
  std::string padding;
  Dims pads;  // EXPLICIT: top, bottom, left, right
  int64_t dh = 1, dw = 1;
};

std::string Name(const Case& c) {
  return ::testing::PrintToString(c.in) + " k" + std::to_string(c.kh) + "x" + std::to_string(c.kw) +
         " s" + std::to_string(c.sh) + std::to_string(c.sw) + " oc" + std::to_string(c.oc) + " " +
         c.padding + ::testing::PrintToString(c.pads);
}

const Case kCases[] = {
    {{1, 23, 21, 3}, 7, 7, 2, 2, 64, "SAME", {}},  // resnet's stem, odd sizes
    {{2, 17, 19, 3}, 3, 3, 2, 2, 32, "SAME", {}},  // mobilenet's, batch 2
    {{1, 15, 16, 3}, 7, 7, 2, 2, 64, "EXPLICIT", {3, 3, 3, 3}},
    {{1, 13, 14, 3}, 3, 3, 2, 2, 40, "EXPLICIT", {1, 0, 0, 1}},
    {{1, 9, 11, 1}, 3, 3, 1, 1, 16, "SAME", {}},
    {{2, 10, 9, 2}, 5, 5, 1, 1, 70, "SAME", {}},  // 4 + 2 + 1 vectors and a tail of 6
    {{1, 12, 13, 4}, 5, 3, 3, 3, 24, "VALID", {}},
    {{1, 11, 10, 3}, 3, 3, 1, 2, 5, "SAME", {}},  // fewer channels than a vector
    {{3, 8, 7, 4}, 1, 1, 1, 1, 17, "SAME", {}},
    {{1, 14, 15, 3}, 4, 2, 3, 1, 48, "EXPLICIT", {0, 2, 2, 0}},
    {{1, 4, 5, 3}, 7, 7, 1, 1, 32, "SAME", {}},                // window wider than the input
    {{1, 3, 3, 2}, 3, 3, 1, 1, 16, "EXPLICIT", {4, 4, 4, 4}},  // rows with no tap inside
    {{1, 1, 1, 3}, 3, 3, 2, 2, 8, "SAME", {}},
    {{2, 30, 29, 3}, 7, 7, 2, 2, 64, "SAME", {}},
};

struct Epi {
  std::string act;  // "None": BiasAdd only
  bool residual;
};

const Epi kEpis[] = {{"None", false},   {"Relu", false},    {"Relu6", false}, {"LeakyRelu", false},
                     {"Elu", false},    {"Sigmoid", false}, {"Tanh", false},  {"_HardSwish", false},
                     {"_Swish", false}, {"Relu", true},     {"None", true}};

// The graph: placeholders x (NCHW), w, b (and r) into y, a _FusedConv2D
// whose input_data_format is `in_format`.
std::string Json(const Case& c, const Epi& e, const std::string& in_format) {
  std::string attrs = R"("T":"float32","padding":")" + c.padding +
                      R"(","data_format":"NHWC","input_data_format":")" + in_format +
                      R"(","strides":)" + Ints(Dims{1, c.sh, c.sw, 1}) + R"(,"dilations":)" +
                      Ints(Dims{1, c.dh, c.dw, 1});
  if (c.padding == "EXPLICIT") {
    const Dims& p = c.pads;
    attrs += R"(,"explicit_paddings":)" + Ints(Dims{0, 0, p[0], p[1], p[2], p[3], 0, 0});
  }
  std::string ops = R"(["BiasAdd")";
  if (e.residual) ops += R"(,"Add")";
  if (e.act != "None") ops += R"(,")" + e.act + R"(")";
  attrs += R"(,"num_args":)" + std::to_string(e.residual ? 2 : 1) + R"(,"fused_ops":)" + ops +
           R"(],"leakyrelu_alpha":)" + std::to_string(kAlpha);
  std::string inputs = e.residual ? R"(["x","w","b","r"])" : R"(["x","w","b"])";
  std::string json = R"({"format":"grt.graph","version":1,"nodes":[)";
  for (const char* p : {"x", "w", "b", "r"})
    json +=
        R"({"name":")" + std::string(p) + R"(","op":"Placeholder","attrs":{"dtype":"float32"}},)";
  return json + R"({"name":"y","op":"_FusedConv2D","inputs":)" + inputs + R"(,"attrs":{)" + attrs +
         "}}]}";
}

struct Inputs {
  Dims x_dims, w_dims, r_dims;  // x NCHW
  Vals x, w, b, r;              // x NCHW, r NHWC
  Vals x_nhwc;
};

// Runs the graph with `threads` intra-op threads; "" or the error.
// *kernel_runs: how many times the stem kernel ran.
std::string RunGraph(const Case& c, const Epi& e, const std::string& in_format, const Inputs& in,
                     int threads, std::vector<float>* y, int64_t* kernel_runs) {
  std::vector<grt_feed> feeds = {{"x", F32(in.x_dims, in.x)},
                                 {"w", F32(in.w_dims, in.w)},
                                 {"b", F32({static_cast<int64_t>(in.b.size())}, in.b)}};
  if (e.residual) feeds.push_back({"r", F32(in.r_dims, in.r)});
  return RunStep(Json(c, e, in_format), threads, feeds, {"y"}, grt_cpu_stem_count, y, kernel_runs);
}

ConvGeom Geom(const Case& c) {
  ConvGeom g;
  g.n = c.in[0], g.ih = c.in[1], g.iw = c.in[2], g.ic = c.in[3];
  g.kh = c.kh, g.kw = c.kw, g.groups = 1, g.oc = c.oc;
  g.sh = c.sh, g.sw = c.sw, g.dh = c.dh, g.dw = c.dw;
  const Dims& p = c.pads;
  bool ex = c.padding == "EXPLICIT";
  g.h = Window(g.ih, g.kh, g.sh, g.dh, c.padding, ex ? p[0] : 0, ex ? p[1] : 0);
  g.w = Window(g.iw, g.kw, g.sw, g.dw, c.padding, ex ? p[2] : 0, ex ? p[3] : 0);
  return g;
}

Inputs Make(const ConvGeom& g, uint32_t seed) {
  Inputs in;
  in.x_dims = NchwDims(g.in());
  in.w_dims = g.filter();
  in.r_dims = g.out();
  in.x_nhwc = Rand(Elems(g.in()), seed);
  in.x = ToNchw(in.x_nhwc, g.in());
  in.w = Rand(Elems(in.w_dims), seed + 1);
  in.b = Rand(g.oc, seed + 2);
  in.r = Rand(Elems(in.r_dims), seed + 3);
  for (double& v : in.b) v *= 4;  // the activations see both sides and their tails
  return in;
}

Vals Want(const ConvGeom& g, const Epi& e, const Inputs& in) {
  Vals y = ConvRef(g, in.x_nhwc, in.w);
  for (size_t i = 0; i < y.size(); i++)
    y[i] = Activate(e.act, y[i] + in.b[i % g.oc] + (e.residual ? in.r[i] : 0.0));
  return y;
}

// Within 1e-5.
std::string Compare(const std::vector<float>& got, const Vals& want) {
  return CompareTol(got, want, 1e-5);
}

class Stem : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(grt_cpu_stem_force_width(0), 0); }
};

// Each case and epilogue at each width against the float64 loop, run by
// the stem kernel (checked by its call count).
TEST_F(Stem, AgainstReferenceAtEachWidth) {
  int widths = 0;
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    ConvGeom g = Geom(c);
    for (const Epi& e : kEpis) {
      SCOPED_TRACE(Name(c) + " " + e.act + (e.residual ? " +residual" : ""));
      Inputs in = Make(g, seed += 4);
      Vals want = Want(g, e, in);
      std::vector<float> y;
      int64_t runs = 0;
      for (int width : {16, 8, 4}) {
        if (grt_cpu_stem_force_width(width) != 0) continue;  // not on this CPU
        widths = std::max(widths, width);
        SCOPED_TRACE("width " + std::to_string(width));
        ASSERT_EQ(RunGraph(c, e, "NCHW", in, 2, &y, &runs), "");
        EXPECT_EQ(runs, 1) << "the stem kernel did not run";
        EXPECT_EQ(Compare(y, want), "");
      }
    }
  }
  EXPECT_GE(widths, 4);
}

// Rows split over threads give the same bits as one thread.
TEST_F(Stem, ThreadsChangeNoBit) {
  Case c{{3, 33, 31, 3}, 7, 7, 2, 2, 64, "SAME", {}};
  ConvGeom g = Geom(c);
  Epi e{"_Swish", true};
  Inputs in = Make(g, 99);
  std::vector<float> one, four;
  int64_t runs = 0;
  ASSERT_EQ(RunGraph(c, e, "NCHW", in, 1, &one, &runs), "");
  ASSERT_EQ(RunGraph(c, e, "NCHW", in, 4, &four, &runs), "");
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(one, four);
  EXPECT_EQ(Compare(four, Want(g, e, in)), "");
}

// What the kernel does not run (5 input channels, a dilation) runs on
// oneDNN with the NCHW input reordered in, against the same reference;
// an input_data_format other than NCHW is an error that says why; nothing
// crashes.
TEST_F(Stem, LeavesToOneDnnWhatItDoesNotRun) {
  std::vector<float> y;
  int64_t runs = 0;
  for (const Case& c : {Case{{1, 8, 8, 5}, 3, 3, 1, 1, 16, "SAME", {}},
                        Case{{1, 9, 9, 3}, 3, 3, 1, 1, 16, "SAME", {}, 2, 2}}) {
    const Epi e{"Relu", false};
    Inputs in = Make(Geom(c), 3);
    std::string err = RunGraph(c, e, "NCHW", in, 2, &y, &runs);
    EXPECT_EQ(err, "");
    EXPECT_EQ(runs, 0);
    EXPECT_EQ(Compare(y, Want(Geom(c), e, in)), "");
  }
  {
    Case c{{1, 6, 6, 3}, 3, 3, 1, 1, 16, "SAME", {}};
    std::string err = RunGraph(c, Epi{"Relu", false}, "NHWC", Make(Geom(c), 7), 2, &y, &runs);
    EXPECT_NE(err.find("input_data_format 'NHWC'"), std::string::npos) << err;
    EXPECT_EQ(runs, 0);
  }
}

}  // namespace
}  // namespace grt_test
