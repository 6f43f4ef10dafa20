// Conv3D, MaxPool3D, AvgPool3D, their gradients (Conv3DBackpropInputV2,
// Conv3DBackpropFilterV2, MaxPool3DGrad, AvgPool3DGrad) and grt's
// _DilatedMaxPool on the CPU (oneDNN) against float64 loops written here
// (the backprops against the loops' adjoints): both data formats (NDHWC
// and NCDHW; NHWC and NCHW), strides, dilations, SAME/VALID (and EXPLICIT
// for _DilatedMaxPool) padding, grouped filters; and the shape and kernel
// errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tests/kernels/conv_ref.h"
#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"
#include "tests/kernels/kernel_test_util.h"

namespace grt_test {
namespace {

using Dims = std::vector<int64_t>;
using Vals = std::vector<double>;
using namespace ref;

// A window over three spatial dimensions of a channels-last tensor [n, d,
// h, w, c]; 2-D windows are the case d = 1, k[0] = 1.
struct Geom3 {
  int64_t n, ic, oc, groups;
  int64_t in[3], k[3], s[3], dil[3];
  Win win[3];
  Dims InDims() const { return {n, in[0], in[1], in[2], ic}; }
  Dims OutDims() const { return {n, win[0].out, win[1].out, win[2].out, oc}; }
};

Geom3 Make(const Dims& in, const Dims& k, const Dims& s, const Dims& d, int64_t oc, int64_t groups,
           const std::string& padding, const Dims& pads = {}) {
  Geom3 g{};
  g.n = in[0];
  g.ic = in[4];
  g.oc = oc;
  g.groups = groups;
  for (int i = 0; i < 3; i++) {
    g.in[i] = in[i + 1];
    g.k[i] = k[i];
    g.s[i] = s[i];
    g.dil[i] = d[i];
    int64_t pb = pads.empty() ? 0 : pads[2 * i], pa = pads.empty() ? 0 : pads[2 * i + 1];
    g.win[i] = Window(g.in[i], g.k[i], g.s[i], g.dil[i], padding, pb, pa);
  }
  return g;
}

// Calls f(out position, window position, input index or -1 for padding)
// for every output position and window tap, channels-last indices.
template <typename F>
void ForEachWindow(const Geom3& g, int64_t channels, F f) {
  int64_t o[3], t[3];
  for (int64_t n = 0; n < g.n; n++)
    for (o[0] = 0; o[0] < g.win[0].out; o[0]++)
      for (o[1] = 0; o[1] < g.win[1].out; o[1]++)
        for (o[2] = 0; o[2] < g.win[2].out; o[2]++)
          for (t[0] = 0; t[0] < g.k[0]; t[0]++)
            for (t[1] = 0; t[1] < g.k[1]; t[1]++)
              for (t[2] = 0; t[2] < g.k[2]; t[2]++) {
                int64_t at = n, out_at = n;
                bool inside = true;
                for (int i = 0; i < 3; i++) {
                  int64_t p = o[i] * g.s[i] - g.win[i].before + t[i] * g.dil[i];
                  inside = inside && p >= 0 && p < g.in[i];
                  at = at * g.in[i] + p;
                  out_at = out_at * g.win[i].out + o[i];
                }
                int64_t tap = (t[0] * g.k[1] + t[1]) * g.k[2] + t[2];
                f(out_at * channels, tap, inside ? at * g.ic : -1);
              }
}

// Filter DHWIO [kd, kh, kw, ic / groups, oc].
Vals Conv3DRef(const Geom3& g, const Vals& x, const Vals& f) {
  Vals y(static_cast<size_t>(Elems(g.OutDims())), 0.0);
  int64_t icg = g.ic / g.groups, ocg = g.oc / g.groups;
  ForEachWindow(g, g.oc, [&](int64_t y0, int64_t tap, int64_t x0) {
    if (x0 < 0) return;
    for (int64_t o = 0; o < g.oc; o++)
      for (int64_t fi = 0; fi < icg; fi++)
        y[y0 + o] += x[x0 + (o / ocg) * icg + fi] * f[(tap * icg + fi) * g.oc + o];
  });
  return y;
}

// Max (padding never picked) or average over the window's real elements.
Vals PoolRef(const Geom3& g, const Vals& x, bool max) {
  size_t n = static_cast<size_t>(Elems(g.OutDims()));
  Vals y(n, max ? -std::numeric_limits<double>::infinity() : 0.0), count(n, 0.0);
  ForEachWindow(g, g.ic, [&](int64_t y0, int64_t, int64_t x0) {
    if (x0 < 0) return;
    for (int64_t c = 0; c < g.ic; c++) {
      size_t at = static_cast<size_t>(y0 + c);
      y[at] = max ? std::max(y[at], x[x0 + c]) : y[at] + x[x0 + c];
      count[at] += 1;
    }
  });
  if (!max)
    for (size_t i = 0; i < n; i++) y[i] /= count[i];
  return y;
}

// Channels-last [n, ..., c] <-> channels-first [n, c, ...].
Vals ToChannelsFirst(const Vals& x, const Dims& d) {
  int64_t n = d.front(), c = d.back(), sp = Elems(d) / (n * c);
  Vals y(x.size());
  for (int64_t b = 0; b < n; b++)
    for (int64_t p = 0; p < sp; p++)
      for (int64_t k = 0; k < c; k++) y[(b * c + k) * sp + p] = x[(b * sp + p) * c + k];
  return y;
}
Dims ChannelsFirst(const Dims& d) {
  Dims out = {d.front(), d.back()};
  out.insert(out.end(), d.begin() + 1, d.end() - 1);
  return out;
}
grt_tensor* Act(const Vals& x, const Dims& d, bool first) {
  return first ? T_<float>(ChannelsFirst(d), ToChannelsFirst(x, d)) : T_<float>(d, x);
}
void ExpectAct(const grt_tensor* t, const Dims& d, const Vals& want, bool first) {
  if (first)
    ExpectNear(t, ChannelsFirst(d), ToChannelsFirst(want, d), 1e-5);
  else
    ExpectNear(t, d, want, 1e-5);
}

// A list attr of 5 in the format's order from the 3 spatial values.
Dims List5(const int64_t* v, bool first) {
  return first ? Dims{1, 1, v[0], v[1], v[2]} : Dims{1, v[0], v[1], v[2], 1};
}

// ---- Conv3D -------------------------------------------------------------------

struct ConvCase {
  Dims in;      // NDHWC
  Dims filter;  // DHWIO
  Dims s, d;
  std::string padding;
};

TEST(Conv3D, EveryCaseBothFormats) {
  const std::vector<ConvCase> cases = {
      {{1, 4, 5, 6, 3}, {2, 3, 3, 3, 4}, {1, 1, 1}, {1, 1, 1}, "SAME"},
      {{2, 5, 4, 6, 2}, {3, 2, 3, 2, 3}, {2, 1, 2}, {1, 1, 1}, "VALID"},
      {{1, 6, 6, 5, 2}, {2, 2, 3, 2, 2}, {1, 2, 1}, {2, 1, 2}, "SAME"},
      {{1, 7, 5, 6, 3}, {2, 3, 2, 3, 2}, {2, 2, 1}, {2, 2, 1}, "VALID"},
      {{1, 4, 5, 4, 6}, {3, 3, 1, 3, 4}, {1, 2, 2}, {1, 1, 1}, "SAME"},   // two groups
      {{2, 3, 4, 5, 6}, {1, 2, 2, 2, 9}, {1, 1, 1}, {1, 1, 1}, "VALID"},  // three groups
      {{1, 3, 4, 4, 4}, {2, 2, 2, 1, 8}, {1, 1, 2}, {1, 2, 1}, "SAME"},   // depthwise-like
  };
  for (const ConvCase& c : cases)
    for (bool first : {false, true}) {
      SCOPED_TRACE(::testing::PrintToString(c.in) + " f" + ::testing::PrintToString(c.filter) +
                   " " + c.padding + (first ? " NCDHW" : " NDHWC"));
      Geom3 g = Make(c.in, {c.filter[0], c.filter[1], c.filter[2]}, c.s, c.d, c.filter[4],
                     c.in[4] / c.filter[3], c.padding);
      Vals x = Rand(Elems(c.in), 1), f = Rand(Elems(c.filter), 2);
      OpRun r("Conv3D");
      r.AttrType("T", GRT_FLOAT32).AttrString("padding", c.padding.c_str());
      r.AttrString("data_format", first ? "NCDHW" : "NDHWC");
      r.AttrInts("strides", List5(g.s, first)).AttrInts("dilations", List5(g.dil, first));
      r.Input(Act(x, c.in, first)).Input(T_<float>(c.filter, f));
      ASSERT_OK(r.Run());
      ExpectAct(r.Output(0), g.OutDims(), Conv3DRef(g, x, f), first);
    }
}

TEST(Conv3D, Errors) {
  auto conv = [](Dims in, Dims f, Dims strides, const char* padding) {
    auto r = std::make_unique<FeedRun>("Conv3D");
    r->AttrType("T", GRT_FLOAT32).AttrString("padding", padding).AttrInts("strides", strides);
    r->Input(T_<float>(in, {0})).Input(T_<float>(f, {0}));
    return r;
  };
  CheckStatus(conv({1, 3, 3, 3}, {1, 1, 1, 3, 1}, {1, 1, 1, 1, 1}, "VALID")->Run(),
              GRT_INVALID_ARGUMENT, "input must be 5-dimensional: [1,3,3,3]");
  CheckStatus(conv({1, 3, 3, 3, 3}, {1, 1, 1, 2, 4}, {1, 1, 1, 1, 1}, "VALID")->Run(),
              GRT_INVALID_ARGUMENT, "input depth must be evenly divisible by filter depth: 3 vs 2");
  CheckStatus(conv({1, 3, 3, 3, 4}, {1, 1, 1, 2, 3}, {1, 1, 1, 1, 1}, "VALID")->Run(),
              GRT_INVALID_ARGUMENT, "output depth 3 is not a multiple of the number of groups 2");
  CheckStatus(conv({1, 3, 3, 3, 3}, {1, 1, 1, 3, 1}, {1, 1, 1, 1}, "VALID")->Run(),
              GRT_INVALID_ARGUMENT, "attr 'strides' is 4, must be >= 5");
  CheckStatus(conv({1, 3, 3, 3, 3}, {1, 1, 1, 3, 1}, {2, 1, 1, 1, 1}, "VALID")->Run(),
              GRT_INVALID_ARGUMENT, "strides in the batch and depth dimensions must be 1");
  CheckStatus(conv({1, 3, 3, 3, 3}, {1, 1, 1, 3, 1}, {1, 1, 1, 1, 1}, "EXPLICIT")->Run(),
              GRT_INVALID_ARGUMENT, "attr 'padding' must be SAME or VALID, got 'EXPLICIT'");
  CheckStatus(conv({1, 3, 3, 3, 3}, {5, 1, 1, 3, 1}, {1, 1, 1, 1, 1}, "VALID")->Run(),
              GRT_INVALID_ARGUMENT, "Computed output size would be negative");
  // The shape function, when the shapes are known before the run.
  OpRun known("Conv3D");
  known.AttrType("T", GRT_FLOAT32)
      .AttrString("padding", "VALID")
      .AttrInts("strides", {1, 1, 1, 1, 1});
  known.Input(T_<float>({1, 2, 2, 2, 6}, {0})).Input(T_<float>({1, 1, 1, 4, 2}, {0}));
  CheckStatus(known.Run(), GRT_INVALID_ARGUMENT,
              "Depth of input (6) is not a multiple of input depth of filter (4)");
}

TEST(Conv3D, EmptyInputGivesAnEmptyOutput) {
  OpRun r("Conv3D");
  r.AttrType("T", GRT_FLOAT32).AttrString("padding", "SAME").AttrInts("strides", {1, 1, 1, 1, 1});
  r.Input(T_<float>({0, 2, 2, 2, 3}, {})).Input(T_<float>({1, 1, 1, 3, 2}, Rand(6, 1)));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {0, 2, 2, 2, 2}, {}, 0);
}

// The adjoints of Conv3DRef: d(sum dy * y)/dx and /df.
Vals Conv3DBackpropInputRef(const Geom3& g, const Vals& f, const Vals& dy) {
  Vals dx(static_cast<size_t>(Elems(g.InDims())), 0.0);
  int64_t icg = g.ic / g.groups, ocg = g.oc / g.groups;
  ForEachWindow(g, g.oc, [&](int64_t y0, int64_t tap, int64_t x0) {
    if (x0 < 0) return;
    for (int64_t o = 0; o < g.oc; o++)
      for (int64_t fi = 0; fi < icg; fi++)
        dx[x0 + (o / ocg) * icg + fi] += dy[y0 + o] * f[(tap * icg + fi) * g.oc + o];
  });
  return dx;
}
Vals Conv3DBackpropFilterRef(const Geom3& g, const Vals& x, const Vals& dy) {
  int64_t icg = g.ic / g.groups, ocg = g.oc / g.groups;
  Vals df(static_cast<size_t>(g.k[0] * g.k[1] * g.k[2] * icg * g.oc), 0.0);
  ForEachWindow(g, g.oc, [&](int64_t y0, int64_t tap, int64_t x0) {
    if (x0 < 0) return;
    for (int64_t o = 0; o < g.oc; o++)
      for (int64_t fi = 0; fi < icg; fi++)
        df[(tap * icg + fi) * g.oc + o] += dy[y0 + o] * x[x0 + (o / ocg) * icg + fi];
  });
  return df;
}

TEST(Conv3DBackprops, MatchTheForwardAdjoint) {
  const std::vector<ConvCase> cases = {
      {{1, 4, 5, 6, 3}, {2, 3, 3, 3, 4}, {1, 1, 1}, {1, 1, 1}, "SAME"},
      {{2, 5, 4, 6, 2}, {3, 2, 3, 2, 3}, {2, 1, 2}, {1, 1, 1}, "VALID"},
      {{1, 6, 6, 5, 2}, {2, 2, 3, 2, 2}, {1, 2, 1}, {2, 1, 2}, "SAME"},
      {{1, 4, 5, 4, 6}, {3, 3, 1, 3, 4}, {1, 2, 2}, {1, 1, 1}, "SAME"},  // two groups
  };
  for (const ConvCase& c : cases)
    for (bool first : {false, true}) {
      SCOPED_TRACE(::testing::PrintToString(c.in) + " f" + ::testing::PrintToString(c.filter) +
                   " " + c.padding + (first ? " NCDHW" : " NDHWC"));
      Geom3 g = Make(c.in, {c.filter[0], c.filter[1], c.filter[2]}, c.s, c.d, c.filter[4],
                     c.in[4] / c.filter[3], c.padding);
      Vals x = Rand(Elems(c.in), 11), f = Rand(Elems(c.filter), 12);
      Vals dy = Rand(Elems(g.OutDims()), 13);
      Dims sizes = first ? ChannelsFirst(c.in) : c.in;
      for (bool int64_sizes : {false, true}) {
        OpRun bi("Conv3DBackpropInputV2");
        bi.AttrType("T", GRT_FLOAT32).AttrString("padding", c.padding.c_str());
        bi.AttrString("data_format", first ? "NCDHW" : "NDHWC");
        bi.AttrInts("strides", List5(g.s, first)).AttrInts("dilations", List5(g.dil, first));
        Vals sv(sizes.begin(), sizes.end());
        if (int64_sizes) {
          bi.AttrType("Tshape", GRT_INT64).Input(T_<int64_t>({5}, sv));
        } else {
          bi.Input(T_<int32_t>({5}, sv));
        }
        bi.Input(T_<float>(c.filter, f)).Input(Act(dy, g.OutDims(), first));
        ASSERT_OK(bi.Run());
        ExpectAct(bi.Output(0), c.in, Conv3DBackpropInputRef(g, f, dy), first);
      }
      OpRun bf("Conv3DBackpropFilterV2");
      bf.AttrType("T", GRT_FLOAT32).AttrString("padding", c.padding.c_str());
      bf.AttrString("data_format", first ? "NCDHW" : "NDHWC");
      bf.AttrInts("strides", List5(g.s, first)).AttrInts("dilations", List5(g.dil, first));
      bf.Input(Act(x, c.in, first))
          .Input(T_<int32_t>({5}, Vals(c.filter.begin(), c.filter.end())))
          .Input(Act(dy, g.OutDims(), first));
      ASSERT_OK(bf.Run());
      ExpectNear(bf.Output(0), c.filter, Conv3DBackpropFilterRef(g, x, dy), 1e-5);
    }
}

TEST(Conv3DBackprops, Errors) {
  FeedRun bi("Conv3DBackpropInputV2");
  bi.AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID").AttrInts("strides", {1, 1, 1, 1, 1});
  bi.Input(T_<int32_t>({5}, {1, 3, 3, 3, 1}))
      .Input(T_<float>({2, 2, 2, 1, 1}, {0}))
      .Input(T_<float>({1, 3, 3, 3, 1}, {0}));
  CheckStatus(bi.Run(), GRT_INVALID_ARGUMENT,
              "out_backprop has shape [1,3,3,3,1], but the convolution's output is [1,2,2,2,1]");
  FeedRun bf("Conv3DBackpropFilterV2");
  bf.AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID").AttrInts("strides", {1, 1, 1, 1, 1});
  bf.Input(T_<float>({1, 3, 3, 3, 1}, {0}))
      .Input(T_<int32_t>({4}, {2, 2, 1, 1}))
      .Input(T_<float>({1, 2, 2, 2, 1}, {0}));
  CheckStatus(bf.Run(), GRT_INVALID_ARGUMENT, "filter_sizes must have 5 elements, got 4");
}

// ---- MaxPool3D, AvgPool3D -------------------------------------------------------

struct PoolCase {
  Dims in;  // NDHWC
  Dims k, s;
  std::string padding;
};

TEST(Pool3D, MaxAndAverageEveryCaseBothFormats) {
  const std::vector<PoolCase> cases = {
      {{1, 4, 5, 6, 2}, {2, 2, 2}, {2, 2, 2}, "VALID"},
      {{2, 5, 4, 7, 3}, {3, 2, 3}, {2, 1, 2}, "SAME"},
      {{1, 3, 3, 3, 1}, {1, 1, 1}, {1, 1, 1}, "VALID"},
      {{1, 6, 5, 5, 2}, {3, 3, 3}, {3, 2, 1}, "SAME"},
  };
  for (const PoolCase& c : cases)
    for (bool max : {true, false})
      for (bool first : {false, true}) {
        SCOPED_TRACE(::testing::PrintToString(c.in) + " k" + ::testing::PrintToString(c.k) + " " +
                     c.padding + (max ? " max" : " avg") + (first ? " NCDHW" : " NDHWC"));
        Geom3 g = Make(c.in, c.k, c.s, {1, 1, 1}, c.in[4], 1, c.padding);
        Vals x = Rand(Elems(c.in), 3);
        OpRun r(max ? "MaxPool3D" : "AvgPool3D");
        r.AttrType("T", GRT_FLOAT32).AttrString("padding", c.padding.c_str());
        r.AttrString("data_format", first ? "NCDHW" : "NDHWC");
        r.AttrInts("ksize", List5(g.k, first)).AttrInts("strides", List5(g.s, first));
        r.Input(Act(x, c.in, first));
        ASSERT_OK(r.Run());
        ExpectAct(r.Output(0), g.OutDims(), PoolRef(g, x, max), first);
      }
}

// The gradients: the max's to the (first) maximum of each window, the
// average's spread over the window's real elements.
Vals PoolGradRef(const Geom3& g, const Vals& x, const Vals& dy, bool max) {
  size_t n = static_cast<size_t>(Elems(g.OutDims()));
  Vals best(n, -std::numeric_limits<double>::infinity()), count(n, 0.0);
  std::vector<int64_t> arg(n, -1);
  ForEachWindow(g, g.ic, [&](int64_t y0, int64_t, int64_t x0) {
    if (x0 < 0) return;
    for (int64_t c = 0; c < g.ic; c++) {
      size_t at = static_cast<size_t>(y0 + c);
      if (x[x0 + c] > best[at]) best[at] = x[x0 + c], arg[at] = x0 + c;
      count[at] += 1;
    }
  });
  Vals dx(static_cast<size_t>(Elems(g.InDims())), 0.0);
  if (max) {
    for (size_t i = 0; i < n; i++) dx[arg[i]] += dy[i];
    return dx;
  }
  ForEachWindow(g, g.ic, [&](int64_t y0, int64_t, int64_t x0) {
    if (x0 < 0) return;
    for (int64_t c = 0; c < g.ic; c++) dx[x0 + c] += dy[y0 + c] / count[y0 + c];
  });
  return dx;
}

TEST(Pool3DGrad, MaxAndAverageBothFormats) {
  const std::vector<PoolCase> cases = {
      {{1, 4, 5, 6, 2}, {2, 2, 2}, {2, 2, 2}, "VALID"},
      {{2, 5, 4, 7, 3}, {3, 2, 3}, {2, 1, 2}, "SAME"},
      {{1, 6, 5, 5, 2}, {3, 3, 3}, {3, 2, 1}, "SAME"},
  };
  for (const PoolCase& c : cases)
    for (bool max : {true, false})
      for (bool first : {false, true}) {
        SCOPED_TRACE(::testing::PrintToString(c.in) + " k" + ::testing::PrintToString(c.k) + " " +
                     c.padding + (max ? " max" : " avg") + (first ? " NCDHW" : " NDHWC"));
        Geom3 g = Make(c.in, c.k, c.s, {1, 1, 1}, c.in[4], 1, c.padding);
        Vals x = Rand(Elems(c.in), 14), dy = Rand(Elems(g.OutDims()), 15);
        OpRun r(max ? "MaxPool3DGrad" : "AvgPool3DGrad");
        r.AttrType("T", GRT_FLOAT32).AttrString("padding", c.padding.c_str());
        r.AttrString("data_format", first ? "NCDHW" : "NDHWC");
        r.AttrInts("ksize", List5(g.k, first)).AttrInts("strides", List5(g.s, first));
        if (max) {
          r.Input(Act(x, c.in, first)).Input(Act(PoolRef(g, x, true), g.OutDims(), first));
        } else {
          Dims sizes = first ? ChannelsFirst(c.in) : c.in;
          r.Input(T_<int32_t>({5}, Vals(sizes.begin(), sizes.end())));
        }
        r.Input(Act(dy, g.OutDims(), first));
        ASSERT_OK(r.Run());
        ExpectAct(r.Output(0), c.in, PoolGradRef(g, x, dy, max), first);
      }
}

TEST(Pool3D, Errors) {
  auto pool = [](Dims in, Dims k, const char* fmt) {
    auto r = std::make_unique<FeedRun>("MaxPool3D");
    r->AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID").AttrString("data_format", fmt);
    r->AttrInts("ksize", k).AttrInts("strides", {1, 1, 1, 1, 1});
    r->Input(T_<float>(in, {0}));
    return r;
  };
  CheckStatus(pool({1, 3, 3, 3}, {1, 1, 1, 1, 1}, "NDHWC")->Run(), GRT_INVALID_ARGUMENT,
              "input must be 5-dimensional");
  CheckStatus(pool({1, 3, 3, 3, 2}, {1, 1, 1, 1, 2}, "NDHWC")->Run(), GRT_INVALID_ARGUMENT,
              "pooling is not supported on the batch or depth dimension");
  CheckStatus(pool({1, 3, 3, 3, 2}, {1, 1, 1, 1, 1}, "NHWC")->Run(), GRT_INVALID_ARGUMENT,
              "attr 'data_format' must be NDHWC or NCDHW, got 'NHWC'");
  CheckStatus(pool({1, 3, 3, 3, 2}, {1, 1, 5, 1, 1}, "NDHWC")->Run(), GRT_INVALID_ARGUMENT,
              "Computed output size would be negative");
}

// ---- _DilatedMaxPool ------------------------------------------------------------

struct DilatedCase {
  Dims in;  // NHWC
  Dims k, s, d;
  std::string padding;
  Dims pads;  // EXPLICIT: top, bottom, left, right
};

TEST(DilatedMaxPool, EveryCaseBothFormats) {
  const std::vector<DilatedCase> cases = {
      {{1, 7, 7, 2}, {2, 2}, {1, 1}, {2, 2}, "VALID", {}},
      {{2, 8, 9, 3}, {3, 2}, {2, 1}, {2, 3}, "SAME", {}},
      {{1, 6, 7, 2}, {2, 3}, {1, 2}, {2, 2}, "EXPLICIT", {1, 1, 2, 0}},
      {{1, 5, 5, 1}, {2, 2}, {1, 1}, {1, 1}, "VALID", {}},  // undilated: MaxPool's result
  };
  for (const DilatedCase& c : cases)
    for (bool first : {false, true}) {
      SCOPED_TRACE(::testing::PrintToString(c.in) + " k" + ::testing::PrintToString(c.k) + " d" +
                   ::testing::PrintToString(c.d) + " " + c.padding + (first ? " NCHW" : " NHWC"));
      Dims in5 = {c.in[0], 1, c.in[1], c.in[2], c.in[3]};
      Dims pads = c.pads.empty() ? Dims{} : Dims{0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3]};
      Geom3 g = Make(in5, {1, c.k[0], c.k[1]}, {1, c.s[0], c.s[1]}, {1, c.d[0], c.d[1]}, c.in[3], 1,
                     c.padding, pads);
      Vals x = Rand(Elems(c.in), 4);
      OpRun r("_DilatedMaxPool");
      r.AttrType("T", GRT_FLOAT32).AttrString("padding", c.padding.c_str());
      r.AttrString("data_format", first ? "NCHW" : "NHWC");
      auto list = [&](const Dims& v) {
        return first ? Dims{1, 1, v[0], v[1]} : Dims{1, v[0], v[1], 1};
      };
      r.AttrInts("ksize", list(c.k))
          .AttrInts("strides", list(c.s))
          .AttrInts("dilations", list(c.d));
      if (c.padding == "EXPLICIT")
        r.AttrInts("explicit_paddings",
                   first ? Dims{0, 0, 0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3]}
                         : Dims{0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3], 0, 0});
      r.Input(Act(x, c.in, first));
      ASSERT_OK(r.Run());
      Dims out = {c.in[0], g.win[1].out, g.win[2].out, c.in[3]};
      ExpectAct(r.Output(0), out, PoolRef(g, x, true), first);
    }
}

TEST(DilatedMaxPool, Errors) {
  FeedRun r("_DilatedMaxPool");
  r.AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID");
  r.AttrInts("ksize", {1, 2, 2, 1}).AttrInts("strides", {1, 1, 1, 1});
  r.AttrInts("dilations", {1, 3, 0, 1});
  r.Input(T_<float>({1, 5, 5, 1}, {0}));
  CheckStatus(r.Run(), GRT_INVALID_ARGUMENT, "attr 'dilations' must be positive, got 0");
  FeedRun big("_DilatedMaxPool");
  big.AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID");
  big.AttrInts("ksize", {1, 3, 1, 1}).AttrInts("strides", {1, 1, 1, 1});
  big.AttrInts("dilations", {1, 3, 1, 1});
  big.Input(T_<float>({1, 4, 5, 1}, {0}));
  CheckStatus(big.Run(), GRT_INVALID_ARGUMENT, "Computed output size would be negative");
}

TEST(ConvFamily, NewOpsHaveFloat32CpuRows) {
  for (const char* op : {"Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "MaxPool3D",
                         "AvgPool3D", "MaxPool3DGrad", "AvgPool3DGrad", "_DilatedMaxPool"})
    EXPECT_EQ(CpuDtypes(op, "T"), std::vector<grt_dtype>{GRT_FLOAT32}) << op;
}

}  // namespace
}  // namespace grt_test
