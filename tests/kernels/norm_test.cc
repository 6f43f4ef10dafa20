// LRN, LRNGrad, FusedBatchNormV3 and FusedBatchNormGradV3 on the CPU
// (oneDNN) against float64 formulas written here: TensorFlow's LRN over a
// depth window, batch norm in training (biased variance to normalise,
// Bessel-corrected variance reported, running averages with
// exponential_avg_factor) and inference, in channel-last and
// channel-first formats; each gradient reference is checked against
// central differences of its forward reference.
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

// ---- LRN ---------------------------------------------------------------------

// d(sum dy * y)/dx, y_c = x_c * N_c^-beta with N_c = bias + alpha * sum of
// x_k^2 over c's window: dx_k = dy_k N_k^-beta - 2 alpha beta x_k sum over
// the c whose window holds k of dy_c x_c N_c^(-beta-1).
Vals LrnGradRef(const Lrn& p, const Dims& d, const Vals& x, const Vals& dy) {
  int64_t C = d[3];
  Vals dx(x.size(), 0.0);
  for (size_t base = 0; base < x.size(); base += C) {
    Vals n(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; c++) {
      double s = 0;
      for (int64_t k = std::max<int64_t>(0, c - p.r); k <= std::min(C - 1, c + p.r); k++)
        s += x[base + k] * x[base + k];
      n[c] = p.bias + p.alpha * s;
    }
    for (int64_t c = 0; c < C; c++) {
      dx[base + c] += dy[base + c] * std::pow(n[c], -p.beta);
      double common =
          -2.0 * p.alpha * p.beta * dy[base + c] * x[base + c] * std::pow(n[c], -p.beta - 1);
      for (int64_t k = std::max<int64_t>(0, c - p.r); k <= std::min(C - 1, c + p.r); k++)
        dx[base + k] += common * x[base + k];
    }
  }
  return dx;
}

void LrnAttrs(OpRun& r, const Lrn& p) {
  r.AttrType("T", GRT_FLOAT32).AttrInt("depth_radius", p.r);
  r.AttrFloat("bias", static_cast<float>(p.bias)).AttrFloat("alpha", static_cast<float>(p.alpha));
  r.AttrFloat("beta", static_cast<float>(p.beta));
}

const std::vector<Lrn>& LrnCases() {
  // The seeds' CIFAR model: depth_radius 4, bias 1, alpha 0.001/9, beta 0.75;
  // TensorFlow's defaults; a window wider than the depth.
  static const std::vector<Lrn> cases = {{4, 1.0, 0.001 / 9.0, 0.75},
                                         {5, 1.0, 1.0, 0.5},
                                         {2, 2.0, 0.3, 0.6},
                                         {0, 1.5, 0.5, 1.0},
                                         {9, 1.0, 0.2, 0.75}};
  return cases;
}

TEST(LRN, MatchesTensorFlowsFormula) {
  Dims d = {2, 3, 4, 7};
  for (const Lrn& p : LrnCases()) {
    SCOPED_TRACE(p.r);
    Vals x = Rand(Count(d), 1);
    for (double& v : x) v *= 2;
    OpRun r("LRN");
    LrnAttrs(r, p);
    r.Input(T_<float>(d, x));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), d, LrnRef(p, d, x), 1e-5);
  }
}

TEST(LRNGrad, MatchesTheFormulasDerivative) {
  Dims d = {2, 2, 3, 9};
  for (const Lrn& p : LrnCases()) {
    SCOPED_TRACE(p.r);
    Vals x = Rand(Count(d), 2), dy = Rand(Count(d), 3);
    OpRun r("LRNGrad");
    LrnAttrs(r, p);
    r.Input(T_<float>(d, dy)).Input(T_<float>(d, x)).Input(T_<float>(d, LrnRef(p, d, x)));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), d, LrnGradRef(p, d, x, dy), 1e-4);
  }
}

TEST(LrnReference, GradientIsTheForwardsDerivative) {
  Dims d = {1, 1, 2, 6};
  Lrn p = {2, 1.5, 0.7, 0.75};
  Vals x = Rand(Count(d), 4), dy = Rand(Count(d), 5);
  Vals dx = LrnGradRef(p, d, x, dy);
  for (size_t k = 0; k < x.size(); k++) {
    Vals a = x, b = x;
    a[k] += 1e-5;
    b[k] -= 1e-5;
    Vals ya = LrnRef(p, d, a), yb = LrnRef(p, d, b);
    double num = 0;
    for (size_t i = 0; i < ya.size(); i++) num += (ya[i] - yb[i]) * dy[i] / 2e-5;
    EXPECT_NEAR(num, dx[k], 1e-7) << k;
  }
}

// ---- FusedBatchNorm ----------------------------------------------------------

// x as [outer, C, inner]: channel-last formats have inner 1, channel-first
// outer = N.
struct Layout {
  Dims dims;
  const char* format;
  int64_t c, outer, inner;
};

Layout Make(const Dims& dims, const char* format) {
  Layout l{dims, format, 0, 1, 1};
  bool last = std::string(format) == "NHWC" || std::string(format) == "NDHWC";
  int64_t ch = last ? static_cast<int64_t>(dims.size()) - 1 : 1;
  l.c = dims[ch];
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); i++) {
    if (i < ch) l.outer *= dims[i];
    if (i > ch) l.inner *= dims[i];
  }
  return l;
}

template <typename F>
void ForEach(const Layout& l, F f) {  // f(flat index, channel)
  for (int64_t o = 0; o < l.outer; o++)
    for (int64_t c = 0; c < l.c; c++)
      for (int64_t i = 0; i < l.inner; i++) f((o * l.c + c) * l.inner + i, c);
}

struct Stats {
  Vals mean, var;  // biased variance
};

Stats BatchStats(const Layout& l, const Vals& x) {
  Stats s{Vals(l.c, 0.0), Vals(l.c, 0.0)};
  double n = static_cast<double>(x.size() / l.c);
  ForEach(l, [&](int64_t k, int64_t c) { s.mean[c] += x[k] / n; });
  ForEach(l,
          [&](int64_t k, int64_t c) { s.var[c] += (x[k] - s.mean[c]) * (x[k] - s.mean[c]) / n; });
  return s;
}

Vals Normalise(const Layout& l, const Vals& x, const Vals& scale, const Vals& offset,
               const Stats& s, double eps) {
  Vals y(x.size());
  ForEach(l, [&](int64_t k, int64_t c) {
    y[k] = (x[k] - s.mean[c]) / std::sqrt(s.var[c] + eps) * scale[c] + offset[c];
  });
  return y;
}

struct BnCase {
  Dims dims;
  const char* format;
};

const std::vector<BnCase>& BnCases() {
  static const std::vector<BnCase> cases = {{{2, 3, 4, 5}, "NHWC"},
                                            {{2, 5, 3, 4}, "NCHW"},
                                            {{3, 1, 1, 7}, "NHWC"},
                                            {{2, 2, 3, 2, 3}, "NDHWC"},
                                            {{2, 3, 2, 2, 3}, "NCDHW"}};
  return cases;
}

void BnAttrs(OpRun& r, const char* format, bool training, double eps) {
  r.AttrType("T", GRT_FLOAT32).AttrType("U", GRT_FLOAT32).AttrString("data_format", format);
  r.AttrBool("is_training", training).AttrFloat("epsilon", static_cast<float>(eps));
}

TEST(FusedBatchNormV3, TrainingNormalisesWithTheBatchStatistics) {
  const double eps = 0.001;
  for (const BnCase& bc : BnCases())
    for (double factor : {1.0, 0.25}) {
      SCOPED_TRACE(std::string(bc.format) + " factor " + std::to_string(factor));
      Layout l = Make(bc.dims, bc.format);
      Vals x = Rand(Count(bc.dims), 1), scale = Rand(l.c, 2), offset = Rand(l.c, 3);
      for (double& v : x) v = v * 3 + 1;
      Vals run_mean = Rand(l.c, 4), run_var = Rand(l.c, 5);
      for (double& v : run_var) v = v + 1.5;
      Stats s = BatchStats(l, x);
      double n = static_cast<double>(Count(bc.dims) / l.c);
      Vals want_mean(l.c), want_var(l.c);
      for (int64_t c = 0; c < l.c; c++) {
        double unbiased = s.var[c] * n / (n - 1);
        want_mean[c] = (1 - factor) * run_mean[c] + factor * s.mean[c];
        want_var[c] = (1 - factor) * run_var[c] + factor * unbiased;
      }
      OpRun r("FusedBatchNormV3");
      BnAttrs(r, bc.format, true, eps);
      r.AttrFloat("exponential_avg_factor", static_cast<float>(factor));
      r.Input(T_<float>(bc.dims, x)).Input(T_<float>({l.c}, scale)).Input(T_<float>({l.c}, offset));
      if (factor == 1.0)  // no running statistics: empty mean and variance, as TensorFlow passes
        r.Input(T_<float>({0}, {})).Input(T_<float>({0}, {}));
      else
        r.Input(T_<float>({l.c}, run_mean)).Input(T_<float>({l.c}, run_var));
      ASSERT_OK(r.Run());
      ASSERT_EQ(r.NumOutputs(), 6);
      ExpectNear(r.Output(0), bc.dims, Normalise(l, x, scale, offset, s, eps), 2e-5);
      ExpectNear(r.Output(1), {l.c}, want_mean, 2e-5);
      ExpectNear(r.Output(2), {l.c}, want_var, 2e-5);
      ExpectNear(r.Output(3), {l.c}, s.mean, 2e-5);
      ExpectNear(r.Output(4), {l.c}, s.var, 2e-5);
      EXPECT_EQ(grt_test::Dims(r.Output(5)), Dims{});
    }
}

TEST(FusedBatchNormV3, InferenceUsesTheGivenStatistics) {
  const double eps = 0.01;
  for (const BnCase& bc : BnCases()) {
    SCOPED_TRACE(bc.format);
    Layout l = Make(bc.dims, bc.format);
    Vals x = Rand(Count(bc.dims), 6), scale = Rand(l.c, 7), offset = Rand(l.c, 8);
    Stats s{Rand(l.c, 9), Rand(l.c, 10)};
    for (double& v : s.var) v += 1.2;
    OpRun r("FusedBatchNormV3");
    BnAttrs(r, bc.format, false, eps);
    r.Input(T_<float>(bc.dims, x)).Input(T_<float>({l.c}, scale)).Input(T_<float>({l.c}, offset));
    r.Input(T_<float>({l.c}, s.mean)).Input(T_<float>({l.c}, s.var));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), bc.dims, Normalise(l, x, scale, offset, s, eps), 2e-5);
    ExpectNear(r.Output(1), {l.c}, s.mean, 1e-7);
    ExpectNear(r.Output(2), {l.c}, s.var, 1e-7);
    ExpectNear(r.Output(3), {l.c}, s.mean, 1e-7);
    ExpectNear(r.Output(4), {l.c}, s.var, 1e-7);
  }
}

// The gradient of sum(dy * y) for training (statistics depend on x) and
// inference (statistics constant).
struct BnGrad {
  Vals dx, dscale, doffset;
};

BnGrad BnGradRef(const Layout& l, const Vals& x, const Vals& dy, const Vals& scale, const Stats& s,
                 double eps, bool training) {
  BnGrad g{Vals(x.size()), Vals(l.c, 0.0), Vals(l.c, 0.0)};
  double n = static_cast<double>(x.size() / l.c);
  Vals mean_dy(l.c, 0.0), mean_dy_xc(l.c, 0.0);
  ForEach(l, [&](int64_t k, int64_t c) {
    double inv = 1 / std::sqrt(s.var[c] + eps);
    g.doffset[c] += dy[k];
    g.dscale[c] += dy[k] * (x[k] - s.mean[c]) * inv;
    mean_dy[c] += dy[k] / n;
    mean_dy_xc[c] += dy[k] * (x[k] - s.mean[c]) / n;
  });
  ForEach(l, [&](int64_t k, int64_t c) {
    double inv = 1 / std::sqrt(s.var[c] + eps);
    g.dx[k] = training ? scale[c] * inv *
                             (dy[k] - mean_dy[c] - (x[k] - s.mean[c]) * mean_dy_xc[c] * inv * inv)
                       : dy[k] * scale[c] * inv;
  });
  return g;
}

TEST(FusedBatchNormGradV3, TrainingAndInference) {
  const double eps = 0.001;
  for (const BnCase& bc : BnCases())
    for (bool training : {true, false}) {
      SCOPED_TRACE(std::string(bc.format) + (training ? " training" : " inference"));
      Layout l = Make(bc.dims, bc.format);
      Vals x = Rand(Count(bc.dims), 11), dy = Rand(Count(bc.dims), 12), scale = Rand(l.c, 13);
      Stats s = training ? BatchStats(l, x) : Stats{Rand(l.c, 14), Rand(l.c, 15)};
      if (!training)
        for (double& v : s.var) v += 1.1;
      BnGrad want = BnGradRef(l, x, dy, scale, s, eps, training);
      OpRun r("FusedBatchNormGradV3");
      BnAttrs(r, bc.format, training, eps);
      r.Input(T_<float>(bc.dims, dy)).Input(T_<float>(bc.dims, x)).Input(T_<float>({l.c}, scale));
      r.Input(T_<float>({l.c}, s.mean)).Input(T_<float>({l.c}, s.var)).Input(T_<float>({}, {0}));
      ASSERT_OK(r.Run());
      ASSERT_EQ(r.NumOutputs(), 5);
      ExpectNear(r.Output(0), bc.dims, want.dx, 5e-5);
      ExpectNear(r.Output(1), {l.c}, want.dscale, 5e-5);
      ExpectNear(r.Output(2), {l.c}, want.doffset, 5e-5);
      EXPECT_EQ(grt_test::Dims(r.Output(3)), Dims{0});
      EXPECT_EQ(grt_test::Dims(r.Output(4)), Dims{0});
    }
}

TEST(BatchNormReference, TrainingGradientIsTheForwardsDerivative) {
  Layout l = Make({2, 2, 3, 3}, "NHWC");
  const double eps = 0.01;
  Vals x = Rand(Count(l.dims), 16), dy = Rand(Count(l.dims), 17), scale = Rand(3, 18),
       offset = Rand(3, 19);
  auto loss = [&](const Vals& xx, const Vals& sc) {
    Vals y = Normalise(l, xx, sc, offset, BatchStats(l, xx), eps);
    double t = 0;
    for (size_t i = 0; i < y.size(); i++) t += y[i] * dy[i];
    return t;
  };
  BnGrad g = BnGradRef(l, x, dy, scale, BatchStats(l, x), eps, true);
  const double h = 1e-5;
  for (size_t k = 0; k < x.size(); k++) {
    Vals a = x, b = x;
    a[k] += h;
    b[k] -= h;
    EXPECT_NEAR((loss(a, scale) - loss(b, scale)) / (2 * h), g.dx[k], 1e-6) << k;
  }
  for (size_t c = 0; c < scale.size(); c++) {
    Vals a = scale, b = scale;
    a[c] += h;
    b[c] -= h;
    EXPECT_NEAR((loss(x, a) - loss(x, b)) / (2 * h), g.dscale[c], 1e-6) << c;
  }
}

TEST(Norm, Errors) {
  FeedRun lrn("LRN");
  lrn.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0}));
  CheckStatus(lrn.Run(), GRT_INVALID_ARGUMENT, "input must be 4-dimensional: [2,3]");
  FeedRun grad("LRNGrad");
  grad.AttrType("T", GRT_FLOAT32).Input(T_<float>({1, 1, 1, 3}, {0}));
  grad.Input(T_<float>({1, 1, 1, 3}, {0})).Input(T_<float>({1, 1, 1, 4}, {0}));
  CheckStatus(grad.Run(), GRT_INVALID_ARGUMENT, "must have the same shape");

  auto bn = [](const char* format, Dims x, Dims scale, bool training) {
    auto r = std::make_unique<FeedRun>("FusedBatchNormV3");
    r->AttrType("T", GRT_FLOAT32).AttrType("U", GRT_FLOAT32).AttrString("data_format", format);
    r->AttrBool("is_training", training);
    r->Input(T_<float>(x, {1})).Input(T_<float>(scale, {1})).Input(T_<float>(scale, {1}));
    r->Input(T_<float>({0}, {})).Input(T_<float>({0}, {}));
    return r;
  };
  CheckStatus(bn("NHWC", {2, 3, 4}, {4}, true)->Run(), GRT_INVALID_ARGUMENT,
              "x must be 4-dimensional for data_format NHWC: [2,3,4]");
  CheckStatus(bn("NCHW", {2, 3, 4, 5}, {5}, true)->Run(), GRT_INVALID_ARGUMENT,
              "scale must be a vector of 3 channels, got [5]");
  CheckStatus(bn("NHWC", {2, 3, 4, 5}, {5}, false)->Run(), GRT_INVALID_ARGUMENT,
              "mean must be a vector of 5 channels, got [0]");
  CheckStatus(bn("CHWN", {2, 3, 4, 5}, {5}, true)->Run(), GRT_INVALID_ARGUMENT,
              "attr 'data_format' must be NHWC, NCHW, NDHWC or NCDHW, got 'CHWN'");
}

}  // namespace
}  // namespace grt_test
