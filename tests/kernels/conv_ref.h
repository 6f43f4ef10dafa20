// Naive float64 references for the convolution family's kernel tests:
// TensorFlow's window arithmetic written out again, convolutions (grouped,
// depthwise), their adjoints (the backprops), pooling and its gradients.
// Activations are held in NHWC order; ToNchw/FromNchw convert for the
// NCHW runs. (In namespace ref: harness.h's Dims() is a function.)
#ifndef GRT_TESTS_KERNELS_CONV_REF_H_
#define GRT_TESTS_KERNELS_CONV_REF_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace grt_test {
namespace ref {

using Dims = std::vector<int64_t>;
using Vals = std::vector<double>;

inline int64_t Elems(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// Distinct-ish values in [-1, 1) (a linear congruential sequence).
inline Vals Rand(int64_t n, uint32_t seed) {
  Vals v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<double>(s >> 8) / static_cast<double>(1u << 24) * 2.0 - 1.0;
  }
  return v;
}

// One spatial dimension of a window: output size and padding before.
struct Win {
  int64_t out, before;
};

// padding: "SAME", "VALID" or "EXPLICIT" (with pb/pa).
inline Win Window(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                  const std::string& padding, int64_t pb = 0, int64_t pa = 0) {
  int64_t eff = (k - 1) * dilation + 1;
  if (padding == "VALID") return {in < eff ? 0 : (in - eff) / stride + 1, 0};
  if (padding == "SAME") {
    int64_t out = (in + stride - 1) / stride;
    int64_t total = std::max<int64_t>((out - 1) * stride + eff - in, 0);
    return {out, total / 2};
  }
  return {(in + pb + pa - eff) / stride + 1, pb};
}

// NHWC <-> NCHW for a [n, h, w, c] tensor.
inline Vals ToNchw(const Vals& x, const Dims& nhwc) {
  int64_t N = nhwc[0], H = nhwc[1], W = nhwc[2], C = nhwc[3];
  Vals y(x.size());
  for (int64_t n = 0; n < N; n++)
    for (int64_t h = 0; h < H; h++)
      for (int64_t w = 0; w < W; w++)
        for (int64_t c = 0; c < C; c++)
          y[((n * C + c) * H + h) * W + w] = x[((n * H + h) * W + w) * C + c];
  return y;
}
inline Vals FromNchw(const Vals& y, const Dims& nhwc) {
  int64_t N = nhwc[0], H = nhwc[1], W = nhwc[2], C = nhwc[3];
  Vals x(y.size());
  for (int64_t n = 0; n < N; n++)
    for (int64_t h = 0; h < H; h++)
      for (int64_t w = 0; w < W; w++)
        for (int64_t c = 0; c < C; c++)
          x[((n * H + h) * W + w) * C + c] = y[((n * C + c) * H + h) * W + w];
  return x;
}
inline Dims NchwDims(const Dims& nhwc) { return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]}; }

// A 2-D convolution's geometry, NHWC, filter HWIO [kh, kw, ic / groups, oc].
struct ConvGeom {
  int64_t n, ih, iw, ic, kh, kw, oc, groups;
  int64_t sh, sw, dh, dw;
  Win h, w;
  Dims in() const { return {n, ih, iw, ic}; }
  Dims out() const { return {n, h.out, w.out, oc}; }
  Dims filter() const { return {kh, kw, ic / groups, oc}; }
};

// Calls f(n, oh, ow, o, ih, iw, i, kh, kw): every (output, input, filter)
// triple the convolution multiplies, in-range input positions only; i is
// the input channel, fi the filter's input index.
template <typename F>
void ForEachTap(const ConvGeom& g, F f) {
  int64_t icg = g.ic / g.groups, ocg = g.oc / g.groups;
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t oh = 0; oh < g.h.out; oh++)
      for (int64_t ow = 0; ow < g.w.out; ow++)
        for (int64_t o = 0; o < g.oc; o++)
          for (int64_t kh = 0; kh < g.kh; kh++)
            for (int64_t kw = 0; kw < g.kw; kw++) {
              int64_t ih = oh * g.sh - g.h.before + kh * g.dh;
              int64_t iw = ow * g.sw - g.w.before + kw * g.dw;
              if (ih < 0 || ih >= g.ih || iw < 0 || iw >= g.iw) continue;
              for (int64_t fi = 0; fi < icg; fi++) {
                int64_t i = (o / ocg) * icg + fi;
                int64_t x_at = ((n * g.ih + ih) * g.iw + iw) * g.ic + i;
                int64_t y_at = ((n * g.h.out + oh) * g.w.out + ow) * g.oc + o;
                int64_t f_at = ((kh * g.kw + kw) * icg + fi) * g.oc + o;
                f(x_at, f_at, y_at);
              }
            }
}

inline Vals ConvRef(const ConvGeom& g, const Vals& x, const Vals& f) {
  Dims od = g.out();
  Vals y(static_cast<size_t>(od[0] * od[1] * od[2] * od[3]), 0.0);
  ForEachTap(g, [&](int64_t xi, int64_t fi, int64_t yi) { y[yi] += x[xi] * f[fi]; });
  return y;
}
// The adjoints: d(sum dy * y)/dx and /df.
inline Vals ConvBackpropInputRef(const ConvGeom& g, const Vals& f, const Vals& dy) {
  Vals dx(static_cast<size_t>(g.n * g.ih * g.iw * g.ic), 0.0);
  ForEachTap(g, [&](int64_t xi, int64_t fi, int64_t yi) { dx[xi] += dy[yi] * f[fi]; });
  return dx;
}
inline Vals ConvBackpropFilterRef(const ConvGeom& g, const Vals& x, const Vals& dy) {
  Vals df(static_cast<size_t>(g.kh * g.kw * (g.ic / g.groups) * g.oc), 0.0);
  ForEachTap(g, [&](int64_t xi, int64_t fi, int64_t yi) { df[fi] += dy[yi] * x[xi]; });
  return df;
}

// A depthwise filter [kh, kw, ic, m] as the grouped filter [kh, kw, 1,
// ic * m] it is (output channel c * m + j): the same memory.

// Pooling over NHWC [n, h, w, c] with a kh x kw window.
struct PoolGeom {
  int64_t n, ih, iw, c, kh, kw, sh, sw;
  Win h, w;
  Dims in() const { return {n, ih, iw, c}; }
  Dims out() const { return {n, h.out, w.out, c}; }
};

// Calls f(y_at, list of in-range x positions in scan order).
template <typename F>
void ForEachWindow(const PoolGeom& g, F f) {
  std::vector<int64_t> at;
  for (int64_t n = 0; n < g.n; n++)
    for (int64_t oh = 0; oh < g.h.out; oh++)
      for (int64_t ow = 0; ow < g.w.out; ow++)
        for (int64_t c = 0; c < g.c; c++) {
          at.clear();
          for (int64_t kh = 0; kh < g.kh; kh++)
            for (int64_t kw = 0; kw < g.kw; kw++) {
              int64_t ih = oh * g.sh - g.h.before + kh, iw = ow * g.sw - g.w.before + kw;
              if (ih >= 0 && ih < g.ih && iw >= 0 && iw < g.iw)
                at.push_back(((n * g.ih + ih) * g.iw + iw) * g.c + c);
            }
          f(((n * g.h.out + oh) * g.w.out + ow) * g.c + c, at);
        }
}

inline Vals MaxRef(const PoolGeom& g, const Vals& x) {
  Vals y(static_cast<size_t>(Elems(g.out())));
  ForEachWindow(g, [&](int64_t yi, const std::vector<int64_t>& at) {
    double m = x[at[0]];
    for (int64_t i : at) m = std::max(m, x[i]);
    y[yi] = m;
  });
  return y;
}

// TensorFlow's LRN: depth window [c - r, c + r] over the last dimension.
struct Lrn {
  int64_t r;
  double bias, alpha, beta;
};

// x is NHWC; the window runs over the last dimension.
inline Vals LrnRef(const Lrn& p, const Dims& d, const Vals& x) {
  int64_t C = d[3];
  Vals y(x.size());
  for (size_t base = 0; base < x.size(); base += C)
    for (int64_t c = 0; c < C; c++) {
      double s = 0;
      for (int64_t k = std::max<int64_t>(0, c - p.r); k <= std::min(C - 1, c + p.r); k++)
        s += x[base + k] * x[base + k];
      y[base + c] = x[base + c] / std::pow(p.bias + p.alpha * s, p.beta);
    }
  return y;
}

}  // namespace ref
}  // namespace grt_test

#endif  // GRT_TESTS_KERNELS_CONV_REF_H_
