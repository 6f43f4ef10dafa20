// MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad on the CPU (oneDNN)
// against float64 loops written here, in both data formats, with strides,
// SAME/VALID (and EXPLICIT for the max ops) padding and odd sizes; the
// gradients against the loops' own backward passes (the max's gradient to
// the first maximum of each window, the average's spread over the window's
// real elements); and the error cases.
#include <algorithm>
#include <cmath>
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

struct Case {
  Dims in;  // NHWC
  int64_t kh, kw, sh, sw;
  std::string padding;
  Dims pads;  // EXPLICIT: top, bottom, left, right
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{1, 4, 4, 1}, 2, 2, 2, 2, "VALID", {}},
      {{2, 5, 7, 3}, 3, 3, 2, 2, "SAME", {}},
      {{1, 7, 6, 2}, 3, 2, 1, 2, "VALID", {}},
      {{2, 6, 6, 4}, 3, 3, 2, 2, "SAME", {}},  // the seeds' CIFAR pooling
      {{1, 5, 5, 2}, 2, 3, 3, 1, "SAME", {}},
      {{3, 3, 4, 5}, 1, 1, 1, 1, "VALID", {}},
      {{1, 6, 5, 2}, 3, 3, 2, 2, "EXPLICIT", {1, 2, 2, 0}},
      // Channels past one vector and a remainder (NHWC MaxPool is grt's
      // loop, vectorised over channels), ResNet's stem pooling.
      {{1, 12, 11, 37}, 3, 3, 2, 2, "SAME", {}},
      {{2, 9, 9, 64}, 3, 3, 2, 2, "EXPLICIT", {1, 1, 1, 1}},
  };
  return cases;
}

std::string Name(const Case& c, bool nchw) {
  return ::testing::PrintToString(c.in) + " k" + std::to_string(c.kh) + std::to_string(c.kw) +
         " s" + std::to_string(c.sh) + std::to_string(c.sw) + " " + c.padding +
         (nchw ? " NCHW" : " NHWC");
}

PoolGeom Geom(const Case& c) {
  PoolGeom g;
  g.n = c.in[0];
  g.ih = c.in[1];
  g.iw = c.in[2];
  g.c = c.in[3];
  g.kh = c.kh;
  g.kw = c.kw;
  g.sh = c.sh;
  g.sw = c.sw;
  bool ex = c.padding == "EXPLICIT";
  g.h = Window(g.ih, g.kh, g.sh, 1, c.padding, ex ? c.pads[0] : 0, ex ? c.pads[1] : 0);
  g.w = Window(g.iw, g.kw, g.sw, 1, c.padding, ex ? c.pads[2] : 0, ex ? c.pads[3] : 0);
  return g;
}

template <typename Run>
void Attrs(Run& r, const Case& c, bool nchw) {
  r.AttrType("T", GRT_FLOAT32).AttrString("padding", c.padding.c_str());
  r.AttrString("data_format", nchw ? "NCHW" : "NHWC");
  if (nchw) {
    r.AttrInts("ksize", {1, 1, c.kh, c.kw}).AttrInts("strides", {1, 1, c.sh, c.sw});
    if (!c.pads.empty())
      r.AttrInts("explicit_paddings", {0, 0, 0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3]});
  } else {
    r.AttrInts("ksize", {1, c.kh, c.kw, 1}).AttrInts("strides", {1, c.sh, c.sw, 1});
    if (!c.pads.empty())
      r.AttrInts("explicit_paddings", {0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3], 0, 0});
  }
}

grt_tensor* Act(const Vals& nhwc, const Dims& d, bool nchw) {
  return nchw ? T_<float>(NchwDims(d), ToNchw(nhwc, d)) : T_<float>(d, nhwc);
}
void ExpectAct(const grt_tensor* t, const Dims& d, const Vals& want, bool nchw, double tol = 1e-6) {
  if (nchw)
    ExpectNear(t, NchwDims(d), ToNchw(want, d), tol);
  else
    ExpectNear(t, d, want, tol);
}

// Distinct values (a shuffled ramp), so every window has one maximum.
Vals Distinct(int64_t n, uint32_t seed) {
  Vals r = Rand(n, seed), v(static_cast<size_t>(n));
  std::vector<size_t> order(r.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return r[a] < r[b]; });
  for (size_t i = 0; i < order.size(); i++) v[order[i]] = static_cast<double>(i) / 8.0 - 3.0;
  return v;
}

Vals AvgRef(const PoolGeom& g, const Vals& x) {
  Vals y(static_cast<size_t>(Count(g.out())));
  ForEachWindow(g, [&](int64_t yi, const std::vector<int64_t>& at) {
    double s = 0;
    for (int64_t i : at) s += x[i];
    y[yi] = s / static_cast<double>(at.size());
  });
  return y;
}
Vals MaxGradRef(const PoolGeom& g, const Vals& x, const Vals& dy) {
  Vals dx(static_cast<size_t>(Count(g.in())), 0.0);
  ForEachWindow(g, [&](int64_t yi, const std::vector<int64_t>& at) {
    int64_t best = at[0];
    for (int64_t i : at)
      if (x[i] > x[best]) best = i;
    dx[best] += dy[yi];
  });
  return dx;
}
Vals AvgGradRef(const PoolGeom& g, const Vals& dy) {
  Vals dx(static_cast<size_t>(Count(g.in())), 0.0);
  ForEachWindow(g, [&](int64_t yi, const std::vector<int64_t>& at) {
    for (int64_t i : at) dx[i] += dy[yi] / static_cast<double>(at.size());
  });
  return dx;
}

TEST(MaxPool, EveryCaseBothFormats) {
  for (const Case& c : Cases())
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(Name(c, nchw));
      PoolGeom g = Geom(c);
      Vals x = Distinct(Count(c.in), 1);
      OpRun r("MaxPool");
      Attrs(r, c, nchw);
      r.Input(Act(x, c.in, nchw));
      ASSERT_OK(r.Run());
      ExpectAct(r.Output(0), g.out(), MaxRef(g, x), nchw);
    }
}

TEST(AvgPool, EveryCaseBothFormats) {
  for (const Case& c : Cases()) {
    if (c.padding == "EXPLICIT") continue;  // AvgPool takes SAME and VALID only
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(Name(c, nchw));
      PoolGeom g = Geom(c);
      Vals x = Rand(Count(c.in), 2);
      OpRun r("AvgPool");
      Attrs(r, c, nchw);
      r.Input(Act(x, c.in, nchw));
      ASSERT_OK(r.Run());
      ExpectAct(r.Output(0), g.out(), AvgRef(g, x), nchw, 1e-5);
    }
  }
}

TEST(MaxPoolGrad, GradientGoesToEachWindowsMaximum) {
  for (const Case& c : Cases())
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(Name(c, nchw));
      PoolGeom g = Geom(c);
      Vals x = Distinct(Count(c.in), 3), dy = Rand(Count(g.out()), 4);
      OpRun r("MaxPoolGrad");
      Attrs(r, c, nchw);
      r.Input(Act(x, c.in, nchw))
          .Input(Act(MaxRef(g, x), g.out(), nchw))
          .Input(Act(dy, g.out(), nchw));
      ASSERT_OK(r.Run());
      ExpectAct(r.Output(0), c.in, MaxGradRef(g, x, dy), nchw, 1e-6);
    }
}

TEST(AvgPoolGrad, GradientSpreadsOverTheWindow) {
  for (const Case& c : Cases()) {
    if (c.padding == "EXPLICIT") continue;
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(Name(c, nchw));
      PoolGeom g = Geom(c);
      Vals dy = Rand(Count(g.out()), 5);
      Dims shape = nchw ? NchwDims(c.in) : c.in;
      OpRun r("AvgPoolGrad");
      Attrs(r, c, nchw);
      r.Input(T_<int32_t>({4}, Vals(shape.begin(), shape.end()))).Input(Act(dy, g.out(), nchw));
      ASSERT_OK(r.Run());
      ExpectAct(r.Output(0), c.in, AvgGradRef(g, dy), nchw, 1e-6);
    }
  }
}

// The average's gradient reference against central differences of the
// forward reference (the max's is piecewise linear with distinct inputs,
// so its check is the same with the argmax fixed).
TEST(PoolReference, GradientsAreTheForwardsDerivatives) {
  PoolGeom g = Geom(Cases()[1]);
  Vals x = Distinct(Count(g.in()), 6), dy = Rand(Count(g.out()), 7);
  auto loss = [&](const Vals& xx, bool max) {
    Vals y = max ? MaxRef(g, xx) : AvgRef(g, xx);
    double s = 0;
    for (size_t i = 0; i < y.size(); i++) s += y[i] * dy[i];
    return s;
  };
  Vals dmax = MaxGradRef(g, x, dy), davg = AvgGradRef(g, dy);
  const double h = 1e-3;  // below half the gap between distinct values
  for (size_t k = 0; k < x.size(); k += 3) {
    Vals a = x, b = x;
    a[k] += h;
    b[k] -= h;
    EXPECT_NEAR((loss(a, true) - loss(b, true)) / (2 * h), dmax[k], 1e-9) << k;
    EXPECT_NEAR((loss(a, false) - loss(b, false)) / (2 * h), davg[k], 1e-9) << k;
  }
}

TEST(Pool, Errors) {
  auto pool = [](const char* op, const char* padding, Dims ksize, Dims in) {
    auto r = std::make_unique<FeedRun>(op);
    r->AttrType("T", GRT_FLOAT32).AttrString("padding", padding).AttrInts("ksize", ksize);
    r->AttrInts("strides", {1, 1, 1, 1}).Input(T_<float>(in, {0}));
    return r;
  };
  CheckStatus(pool("MaxPool", "VALID", {1, 2, 2, 1}, {2, 4, 4})->Run(), GRT_INVALID_ARGUMENT,
              "input must be 4-dimensional: [2,4,4]");
  CheckStatus(pool("MaxPool", "VALID", {2, 2, 2, 1}, {1, 4, 4, 1})->Run(), GRT_INVALID_ARGUMENT,
              "pooling is not supported on the batch or depth dimension");
  CheckStatus(pool("AvgPool", "EXPLICIT", {1, 2, 2, 1}, {1, 4, 4, 1})->Run(), GRT_INVALID_ARGUMENT,
              "attr 'padding' must be SAME or VALID, got 'EXPLICIT'");
  CheckStatus(pool("MaxPool", "VALID", {1, 2, 2}, {1, 4, 4, 1})->Run(), GRT_INVALID_ARGUMENT,
              "attr 'ksize' is 3, must be >= 4");
  CheckStatus(pool("MaxPool", "VALID", {1, 6, 1, 1}, {1, 4, 4, 1})->Run(), GRT_INVALID_ARGUMENT,
              "Computed output size would be negative");

  FeedRun grad("MaxPoolGrad");
  grad.AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID");
  grad.AttrInts("ksize", {1, 2, 2, 1}).AttrInts("strides", {1, 2, 2, 1});
  grad.Input(T_<float>({1, 4, 4, 1}, {0}))
      .Input(T_<float>({1, 2, 2, 1}, {0}))
      .Input(T_<float>({1, 3, 2, 1}, {0}));
  CheckStatus(grad.Run(), GRT_INVALID_ARGUMENT, "grad has shape [1,3,2,1], expected [1,2,2,1]");
  FeedRun avg("AvgPoolGrad");
  avg.AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID");
  avg.AttrInts("ksize", {1, 2, 2, 1}).AttrInts("strides", {1, 2, 2, 1});
  avg.Input(T_<int32_t>({4}, {1, 4, -4, 1})).Input(T_<float>({1, 2, 2, 1}, {0}));
  CheckStatus(avg.Run(), GRT_INVALID_ARGUMENT, "orig_input_shape must be non-negative, got -4");
}

// NHWC MaxPool: a NaN in a window wins, as in grt's Max reduction; the
// other channels of the same windows are their maxima. 17 channels: one
// block of 16 and a tail; 83: a block of 64, one of 16 and a tail, with a
// NaN in each.
TEST(MaxPool, NhwcNanWins) {
  for (int64_t C : {17, 83}) {
    OpRun r("MaxPool");
    Case c = {{1, 2, 4, C}, 2, 2, 2, 2, "VALID", {}};
    Attrs(r, c, false);
    Vals x = Distinct(Count(c.in), 7);
    std::vector<int64_t> nan_at = {3};  // pixel (1, 1): the first window
    if (C > 64) nan_at = {3, 40, 70, 81};
    for (int64_t k : nan_at) x[static_cast<size_t>(C * 5 + k)] = NAN;
    r.Input(Act(x, c.in, false));
    ASSERT_OK(r.Run());
    const float* y = static_cast<const float*>(grt_tensor_data(r.Output(0)));
    Vals want = MaxRef(Geom(c), x);
    for (int64_t i = 0; i < 2 * C; i++) {
      if (std::find(nan_at.begin(), nan_at.end(), i) != nan_at.end())
        EXPECT_TRUE(std::isnan(y[i])) << C << " " << i;
      else
        EXPECT_EQ(y[i], static_cast<float>(want[static_cast<size_t>(i)])) << C << " " << i;
    }
  }
}

TEST(Pool, EmptyInputGivesEmptyOutput) {
  OpRun r("MaxPool");
  Case c = Cases()[1];
  c.in[0] = 0;
  Attrs(r, c, false);
  r.Input(T_<float>(c.in, {}));
  ASSERT_OK(r.Run());
  EXPECT_EQ(grt_test::Dims(r.Output(0)), (Dims{0, 3, 4, 3}));
}

}  // namespace
}  // namespace grt_test
