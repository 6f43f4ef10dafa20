// _FusedExpandDepthwise on the CPU (backends/cpu/conv_expand_dw.c) in a
// session, against float64 loops (conv_ref.h): the 1x1 expansion with its
// bias and activation, then the depthwise convolution with its own, and
// the channel means. At each vector width the CPU runs (the pointwise and
// depthwise kernels forced together), over channel counts that leave
// every vector group, narrow vector and scalar tail, windows 3x3 and 5x5,
// strides 1 and 2, a dilation, SAME, VALID and asymmetric EXPLICIT
// padding (rows whose whole window is padding among them), maps taller
// than a thread's ring (its rows moved to the front), batches above 1 and
// 1 to 4 threads (the same output bits); and inputs it refuses, with a
// message naming what is wrong. With a projection (num_project 2 or 3):
// the depthwise output projected by a 1x1 filter with its bias, a
// residual and an activation, against the same loops; and without the
// expansion (num_expand 0: the depthwise convolution of x, projected).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/conv_ref.h"
#include "tests/kernels/fused_conv_util.h"

extern "C" {
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/conv_expand_dw.h"
#include "backends/cpu/conv_stem.h"
#include "grt/grt.h"
}

namespace grt_test {
namespace {

using namespace ref;

struct Case {
  Dims in;  // NHWC [N, H, W, K]
  int64_t c, k, s;
  std::string padding;
  Dims pads;  // EXPLICIT: top, bottom, left, right
  int64_t d = 1;
};

std::string Name(const Case& c) {
  return ::testing::PrintToString(c.in) + " C" + std::to_string(c.c) + " k" + std::to_string(c.k) +
         " s" + std::to_string(c.s) + " d" + std::to_string(c.d) + " " + c.padding +
         ::testing::PrintToString(c.pads);
}

const Case kCases[] = {
    {{1, 13, 12, 16}, 96, 3, 2, "SAME", {}},  // efficientnet_b0's second block, odd sizes
    {{2, 9, 10, 24}, 144, 3, 1, "SAME", {}},
    {{1, 11, 9, 24}, 144, 5, 2, "SAME", {}},
    {{3, 7, 6, 16}, 40, 3, 1, "EXPLICIT", {0, 2, 1, 0}},  // 16 + 16 + 8
    {{1, 8, 7, 5}, 28, 3, 1, "VALID", {}, 2},             // 16 + 8 + 4, a dilation
    {{1, 4, 4, 3}, 7, 5, 1, "SAME", {}},                 // scalars only; windows wider than the map
    {{2, 26, 5, 8}, 32, 3, 1, "SAME", {}},               // taller than a ring: rows moved
    {{1, 3, 3, 4}, 16, 3, 1, "EXPLICIT", {4, 4, 1, 1}},  // output rows with no tap inside
};

struct Epi {
  std::string expand_act, act;
};

const Epi kEpis[] = {{"", ""},
                     {"Relu6", "Relu6"},
                     {"_Swish", "_Swish"},
                     {"LeakyRelu", "Sigmoid"},
                     {"_HardSwish", "Tanh"},
                     {"Relu", "LeakyRelu"}};

// The projection: output channels, whether a residual is added, the
// activation after; p 0: none.
struct Proj {
  int64_t p = 0;
  bool residual = false;
  std::string act;
};

// expand false: num_expand 0, no expand_filter or expand_bias.
std::string Json(const Case& c, const Epi& e, int64_t num_means, const std::string& format,
                 const std::string& act_override = "", const Proj& pr = Proj{},
                 bool expand = true) {
  std::string attrs = R"("T":"float32","padding":")" + c.padding + R"(","data_format":")" + format +
                      R"(","strides":)" + Ints(Dims{1, c.s, c.s, 1}) + R"(,"dilations":)" +
                      Ints(Dims{1, c.d, c.d, 1}) + R"(,"expand_act":")" + e.expand_act +
                      R"(","num_expand":)" + (expand ? "2" : "0") + R"(,"act":")" +
                      (act_override.empty() ? e.act : act_override) +
                      R"(","leakyrelu_alpha":0.25,"expand_leakyrelu_alpha":0.25,"num_means":)" +
                      std::to_string(num_means);
  if (c.padding == "EXPLICIT") {
    const Dims& p = c.pads;
    attrs += R"(,"explicit_paddings":)" + Ints(Dims{0, 0, p[0], p[1], p[2], p[3], 0, 0});
  }
  std::string inputs = expand ? R"("x","we","be","wd","bd")" : R"("x","wd","bd")";
  std::vector<std::string> names = {"x", "we", "be", "wd", "bd"};
  if (!expand) names = {"x", "wd", "bd"};
  if (pr.p) {
    attrs += R"(,"num_project":)" + std::to_string(pr.residual ? 3 : 2) + R"(,"project_act":")" +
             pr.act + R"(","project_leakyrelu_alpha":0.25)";
    names.insert(names.end(), {"wp", "bp"});
    inputs += R"(,"wp","bp")";
    if (pr.residual) {
      names.push_back("res");
      inputs += R"(,"res")";
    }
  }
  std::string json = R"({"format":"grt.graph","version":1,"nodes":[)";
  for (const std::string& p : names)
    json += R"({"name":")" + p + R"(","op":"Placeholder","attrs":{"dtype":"float32"}},)";
  return json + R"({"name":"y","op":"_FusedExpandDepthwise","inputs":[)" + inputs +
         R"(],"attrs":{)" + attrs + "}}]}";
}

struct Inputs {
  bool expand = true;  // false: the depthwise convolution reads x (pw unused)
  ConvGeom pw, dw;
  Vals x, we, be, wd, bd;
  Dims we_dims;  // pw.filter() but where a test feeds a wrong one
  // The projection's (MakeProj): filter [1, 1, C, P], bias, residual.
  Proj pr;
  Vals wp, bp, res;
  Dims wp_dims, res_dims;
};

Inputs Make(const Case& c, uint32_t seed) {
  Inputs in;
  ConvGeom& p = in.pw;
  p.n = c.in[0], p.ih = c.in[1], p.iw = c.in[2], p.ic = c.in[3];
  p.kh = p.kw = 1, p.groups = 1, p.oc = c.c, p.sh = p.sw = p.dh = p.dw = 1;
  p.h = Window(p.ih, 1, 1, 1, "VALID", 0, 0);
  p.w = Window(p.iw, 1, 1, 1, "VALID", 0, 0);
  ConvGeom& g = in.dw;
  g.n = c.in[0], g.ih = c.in[1], g.iw = c.in[2], g.ic = c.c;
  g.kh = g.kw = c.k, g.groups = c.c, g.oc = c.c, g.sh = g.sw = c.s, g.dh = g.dw = c.d;
  bool ex = c.padding == "EXPLICIT";
  g.h = Window(g.ih, g.kh, g.sh, g.dh, c.padding, ex ? c.pads[0] : 0, ex ? c.pads[1] : 0);
  g.w = Window(g.iw, g.kw, g.sw, g.dw, c.padding, ex ? c.pads[2] : 0, ex ? c.pads[3] : 0);
  in.x = Rand(Elems(p.in()), seed);
  in.we = Rand(Elems(p.filter()), seed + 1);
  in.we_dims = p.filter();
  in.be = Rand(c.c, seed + 2);
  in.wd = Rand(Elems(g.filter()), seed + 3);
  in.bd = Rand(c.c, seed + 4);
  for (double& v : in.be) v *= 3;  // the activations see both sides
  return in;
}

// The projection's inputs for in's depthwise output.
void MakeProj(const Proj& pr, uint32_t seed, Inputs* in) {
  const ConvGeom& g = in->dw;
  in->pr = pr;
  in->wp_dims = {1, 1, g.oc, pr.p};
  in->wp = Rand(g.oc * pr.p, seed);
  for (double& v : in->wp) v /= std::sqrt(static_cast<double>(g.oc));
  in->bp = Rand(pr.p, seed + 1);
  in->res_dims = {g.n, g.h.out, g.w.out, pr.p};
  in->res = Rand(Elems(in->res_dims), seed + 2);
}

// y, then the means (batch x C) appended.
Vals Want(const Epi& e, const Inputs& in) {
  Vals x = in.x;
  if (in.expand) {
    x = ConvRef(in.pw, in.x, in.we);
    for (size_t i = 0; i < x.size(); i++) x[i] = Activate(e.expand_act, x[i] + in.be[i % in.pw.oc]);
  }
  Vals y = ConvRef(in.dw, x, in.wd);
  int64_t c = in.dw.oc, pos = in.dw.h.out * in.dw.w.out;
  Vals means(in.dw.n * c, 0.0);
  for (size_t i = 0; i < y.size(); i++) {
    y[i] = Activate(e.act, y[i] + in.bd[i % c]);
    means[(static_cast<int64_t>(i) / (pos * c)) * c + static_cast<int64_t>(i) % c] += y[i] / pos;
  }
  y.insert(y.end(), means.begin(), means.end());
  return y;
}

// With in's projection: act(y * wp + bp (+ res)), no means.
Vals WantProjected(const Epi& e, const Inputs& in) {
  Vals y = Want(e, in);
  const int64_t c = in.dw.oc, p = in.pr.p, pixels = Elems(in.res_dims) / p;
  Vals out(static_cast<size_t>(pixels * p));
  for (int64_t i = 0; i < pixels; i++)
    for (int64_t o = 0; o < p; o++) {
      double acc = in.bp[o] + (in.pr.residual ? in.res[i * p + o] : 0.0);
      for (int64_t k = 0; k < c; k++) acc += y[i * c + k] * in.wp[k * p + o];
      out[i * p + o] = Activate(in.pr.act, acc);
    }
  return out;
}

// Runs the node; "" or the error. *got: y then the means.
std::string RunNode(const std::string& json, const Inputs& in, int threads, int64_t num_means,
                    std::vector<float>* got, int64_t* runs) {
  std::vector<grt_feed> feeds = {{"x", F32(in.pw.in(), in.x)},
                                 {"we", F32(in.we_dims, in.we)},
                                 {"be", F32({in.pw.oc}, in.be)},
                                 {"wd", F32({in.dw.kh, in.dw.kw, in.dw.oc, 1}, in.wd)},
                                 {"bd", F32({in.dw.oc}, in.bd)}};
  if (!in.expand) {
    for (size_t i = 1; i < 3; i++) grt_tensor_free(feeds[i].value);
    feeds.erase(feeds.begin() + 1, feeds.begin() + 3);
  }
  if (in.pr.p) {
    feeds.push_back({"wp", F32(in.wp_dims, in.wp)});
    feeds.push_back({"bp", F32({in.pr.p}, in.bp)});
    if (in.pr.residual) feeds.push_back({"res", F32(in.res_dims, in.res)});
  }
  std::vector<const char*> fetches = {"y:0", "y:1"};
  fetches.resize(static_cast<size_t>(1 + num_means));
  return RunStep(json, threads, feeds, fetches, grt_cpu_expand_dw_count, got, runs);
}

// Within 2e-5 over want's first n.
std::string Compare(const std::vector<float>& got, const Vals& want, size_t n) {
  return CompareTol(got, want, 2e-5, n);
}

// A projected node (json) at each vector width the CPU runs, the pointwise
// and depthwise kernels forced together, on 2 threads, against want;
// *widths: the widest that ran.
void ExpectProjectedAtEachWidth(const std::string& json, const Inputs& in, const Vals& want,
                                int* widths) {
  for (int width : {16, 8, 4}) {
    if (grt_cpu_stem_force_width(width) != 0) continue;  // not on this CPU
    ASSERT_EQ(grt_cpu_dw_force_width(width), 0);
    *widths = std::max(*widths, width);
    SCOPED_TRACE("width " + std::to_string(width));
    std::vector<float> got;
    int64_t runs = 0;
    ASSERT_EQ(RunNode(json, in, 2, 0, &got, &runs), "");
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(Compare(got, want, want.size()), "");
  }
}

// A projected node (json) on one thread against want, and on 2, 3 and 4
// with the same output bits.
void ExpectProjectedSameOnThreads(const std::string& json, const Inputs& in, const Vals& want) {
  std::vector<float> one, got;
  int64_t runs = 0;
  ASSERT_EQ(RunNode(json, in, 1, 0, &one, &runs), "");
  EXPECT_EQ(Compare(one, want, want.size()), "");
  for (int threads : {2, 3, 4}) {
    ASSERT_EQ(RunNode(json, in, threads, 0, &got, &runs), "");
    EXPECT_EQ(got, one) << threads << " threads";
  }
}

class ExpandDepthwise : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_EQ(grt_cpu_stem_force_width(0), 0);
    EXPECT_EQ(grt_cpu_dw_force_width(0), 0);
  }
};

TEST_F(ExpandDepthwise, AgainstReferenceAtEachWidth) {
  int widths = 0;
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    for (const Epi& e : kEpis) {
      SCOPED_TRACE(Name(c) + " " + e.expand_act + "/" + e.act);
      Inputs in = Make(c, seed += 5);
      Vals want = Want(e, in);
      size_t ny = want.size() - static_cast<size_t>(in.dw.n * in.dw.oc);
      for (int width : {16, 8, 4}) {
        if (grt_cpu_stem_force_width(width) != 0) continue;  // not on this CPU
        ASSERT_EQ(grt_cpu_dw_force_width(width), 0);
        widths = std::max(widths, width);
        SCOPED_TRACE("width " + std::to_string(width));
        for (int64_t num_means : {0, 1}) {
          std::vector<float> got;
          int64_t runs = 0;
          ASSERT_EQ(RunNode(Json(c, e, num_means, "NHWC"), in, 2, num_means, &got, &runs), "");
          EXPECT_EQ(runs, 1);
          EXPECT_EQ(Compare(got, want, num_means ? want.size() : ny), "");
        }
      }
    }
  }
  EXPECT_GE(widths, 4);
}

// One to four threads (each its own block of rows and ring): the same
// output bits, and means within rounding.
TEST_F(ExpandDepthwise, ThreadsChangeNoBit) {
  Case c{{2, 30, 17, 16}, 96, 3, 1, "SAME", {}};
  Epi e{"_Swish", "_Swish"};
  Inputs in = Make(c, 42);
  Vals want = Want(e, in);
  size_t ny = want.size() - static_cast<size_t>(in.dw.n * in.dw.oc);
  std::vector<float> one, got;
  int64_t runs = 0;
  ASSERT_EQ(RunNode(Json(c, e, 1, "NHWC"), in, 1, 1, &one, &runs), "");
  EXPECT_EQ(Compare(one, want, want.size()), "");
  for (int threads : {2, 3, 4}) {
    ASSERT_EQ(RunNode(Json(c, e, 1, "NHWC"), in, threads, 1, &got, &runs), "");
    ASSERT_EQ(got.size(), one.size());
    EXPECT_TRUE(std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(ny), one.begin()))
        << threads << " threads";
    EXPECT_EQ(Compare(got, want, want.size()), "");
  }
}

// With a projection at each width: channel counts in and out that leave
// every vector group, narrow vector and scalar tail, with and without the
// residual, activations before and after it.
TEST_F(ExpandDepthwise, ProjectionAgainstReference) {
  const Proj kProjs[] = {
      {24, false, ""}, {16, true, ""}, {28, true, "Relu6"}, {7, false, "_Swish"}};
  const Epi kProjEpis[] = {{"Relu6", "Relu6"}, {"_Swish", "LeakyRelu"}};
  uint32_t seed = 7;
  int widths = 0;
  for (const Case& c : kCases) {
    for (const Proj& pr : kProjs) {
      for (const Epi& e : kProjEpis) {
        SCOPED_TRACE(Name(c) + " " + e.expand_act + "/" + e.act + " -> " + std::to_string(pr.p) +
                     (pr.residual ? " + residual " : " ") + pr.act);
        Inputs in = Make(c, seed += 7);
        MakeProj(pr, seed + 5, &in);
        Vals want = WantProjected(e, in);
        ExpectProjectedAtEachWidth(Json(c, e, 0, "NHWC", "", pr), in, want, &widths);
      }
    }
  }
  EXPECT_GE(widths, 4);
}

// With a projection, one to four threads: the same output bits.
TEST_F(ExpandDepthwise, ProjectionThreadsChangeNoBit) {
  Case c{{2, 30, 17, 24}, 144, 3, 1, "SAME", {}};
  Epi e{"Relu6", "Relu6"};
  Inputs in = Make(c, 43);
  MakeProj(Proj{24, true, ""}, 44, &in);
  ExpectProjectedSameOnThreads(Json(c, e, 0, "NHWC", "", in.pr), in, WantProjected(e, in));
}

// Refused with a message naming what is wrong, nothing run: an activation
// the kernels do not have, NCHW, an expansion filter of another depth.
TEST_F(ExpandDepthwise, BadNodesAreRefused) {
  Case c{{1, 6, 6, 8}, 16, 3, 1, "SAME", {}};
  Inputs in = Make(c, 3);
  std::vector<float> got;
  int64_t runs = 0;
  EXPECT_NE(RunNode(Json(c, Epi{"", ""}, 0, "NHWC", "Elu"), in, 2, 0, &got, &runs)
                .find("attr 'act' is 'Elu'"),
            std::string::npos);
  EXPECT_EQ(runs, 0);
  Case square{{1, 6, 6, 6}, 16, 3, 1, "SAME", {}};  // as NCHW, 6 channels too
  std::string err =
      RunNode(Json(square, Epi{"", ""}, 0, "NCHW"), Make(square, 4), 2, 0, &got, &runs);
  EXPECT_NE(err.find("runs in NHWC only"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
  Inputs wrong = in;
  wrong.we_dims = {1, 1, 4, 16};  // for an input of 8 channels
  wrong.we.resize(4 * 16);
  err = RunNode(Json(c, Epi{"", ""}, 0, "NHWC"), wrong, 2, 0, &got, &runs);
  EXPECT_NE(err.find("expand_filter"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
}

// A projection refused with the fault named, nothing run: means asked for
// beside it, a filter of another depth than the depthwise output, a
// residual of another shape, an activation the kernels do not have.
TEST_F(ExpandDepthwise, BadProjectionsAreRefused) {
  Case c{{1, 6, 6, 8}, 16, 3, 1, "SAME", {}};
  Epi e{"Relu6", "Relu6"};
  Inputs in = Make(c, 5);
  MakeProj(Proj{8, true, ""}, 6, &in);
  std::vector<float> got;
  int64_t runs = 0;
  std::string err = RunNode(Json(c, e, 1, "NHWC", "", in.pr), in, 2, 1, &got, &runs);
  EXPECT_NE(err.find("num_means must be 0 with a projection"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
  Inputs wrong = in;
  wrong.wp_dims = {1, 1, 12, 8};  // for a depthwise output of 16 channels
  wrong.wp.resize(12 * 8);
  err = RunNode(Json(c, e, 0, "NHWC", "", in.pr), wrong, 2, 0, &got, &runs);
  EXPECT_NE(err.find("[1, 1, 16, P]"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
  wrong = in;
  wrong.res_dims = {1, 6, 5, 8};
  wrong.res.resize(6 * 5 * 8);
  err = RunNode(Json(c, e, 0, "NHWC", "", in.pr), wrong, 2, 0, &got, &runs);
  EXPECT_NE(err.find("residual"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
  // num_project 1 (neither none nor filter and bias), given the filter
  // alone: refused as the node is read, before anything runs.
  std::string one = Json(c, e, 0, "NHWC", "", Proj{8, false, ""});
  one.replace(one.find(R"("num_project":2)"), 15, R"("num_project":1)");
  one.replace(one.find(R"(,"bp"])"), 6, "]");
  err = RunNode(one, in, 2, 0, &got, &runs);
  EXPECT_NE(err.find("num_project"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
  Proj elu = in.pr;
  elu.act = "Elu";
  err = RunNode(Json(c, e, 0, "NHWC", "", elu), in, 2, 0, &got, &runs);
  EXPECT_NE(err.find("attr 'project_act' is 'Elu'"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
}

// Without an expansion (num_expand 0, MobileNetV2's first block): x read
// by the depthwise convolution as it is, then projected; at each width,
// over the same windows and channel tails, and one to four threads giving
// the same bits.
TEST_F(ExpandDepthwise, ProjectionWithoutExpansionAgainstReference) {
  const Proj kProjs[] = {{16, false, ""}, {28, true, "Relu6"}, {7, false, "_Swish"}};
  uint32_t seed = 11;
  int widths = 0;
  for (Case c : kCases) {
    c.in[3] = c.c;  // x has the depthwise convolution's channels
    for (const Proj& pr : kProjs) {
      Epi e{"", pr.residual ? "Relu6" : "LeakyRelu"};
      SCOPED_TRACE(Name(c) + " " + e.act + " -> " + std::to_string(pr.p) +
                   (pr.residual ? " + residual " : " ") + pr.act);
      Inputs in = Make(c, seed += 7);
      in.expand = false;
      MakeProj(pr, seed + 5, &in);
      Vals want = WantProjected(e, in);
      ExpectProjectedAtEachWidth(Json(c, e, 0, "NHWC", "", pr, false), in, want, &widths);
    }
  }
  EXPECT_GE(widths, 4);
  Case c{{2, 30, 17, 32}, 32, 3, 1, "SAME", {}};
  Epi e{"", "Relu6"};
  Inputs in = Make(c, 45);
  in.expand = false;
  MakeProj(Proj{16, false, ""}, 46, &in);
  ExpectProjectedSameOnThreads(Json(c, e, 0, "NHWC", "", in.pr, false), in, WantProjected(e, in));
}

// num_expand other than 2 or 0, and 0 without a projection: refused as the
// node is read, nothing run.
TEST_F(ExpandDepthwise, BadExpansionCountsAreRefused) {
  Case c{{1, 6, 6, 16}, 16, 3, 1, "SAME", {}};
  Epi e{"", "Relu6"};
  Inputs in = Make(c, 7);
  in.expand = false;
  std::vector<float> got;
  int64_t runs = 0;
  std::string err = RunNode(Json(c, e, 0, "NHWC", "", Proj{}, false), in, 2, 0, &got, &runs);
  EXPECT_NE(err.find("without an expansion"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
  MakeProj(Proj{8, false, ""}, 8, &in);
  std::string one = Json(c, e, 0, "NHWC", "", in.pr, false);
  one.replace(one.find(R"("num_expand":0)"), 14, R"("num_expand":1)");
  one.replace(one.find(R"("inputs":["x",)"), 14, R"("inputs":["x","bd",)");  // one expansion input
  err = RunNode(one, in, 2, 0, &got, &runs);
  EXPECT_NE(err.find("num_expand is 1"), std::string::npos) << err;
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace grt_test
