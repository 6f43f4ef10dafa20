// ONNX grouped, depthwise and 3-D convolution, 3-D ConvTranspose, 3-D
// pooling and dilated max pooling through the importer and a session,
// against NCHW loops written here (ONNX's definitions: pads as given, max
// pooling ignoring padding, average pooling with and without
// count_include_pad), and the grt ops each model becomes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "grt/grt.h"
#include "ops/graph.h"

namespace {

using Dims = std::vector<int64_t>;
using Vals = std::vector<float>;

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

int64_t Count(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

Vals Rand(int64_t n, uint32_t seed) {
  Vals v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 7u;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
  }
  return v;
}

// An ONNX window over the spatial axes of an NCHW / NCDHW tensor.
struct Win {
  Dims k, s, d, pb, pe;
  int64_t Out(size_t i, int64_t in) const {
    return (in + pb[i] + pe[i] - ((k[i] - 1) * d[i] + 1)) / s[i] + 1;
  }
};

// Calls f(output spatial offset, input spatial offset or -1 for padding,
// tap index) for every output position and tap of one plane.
template <typename F>
void ForEachTap(const Dims& in, const Win& w, Dims* out_sp, F f) {
  size_t r = in.size();
  out_sp->assign(r, 0);
  for (size_t i = 0; i < r; i++) (*out_sp)[i] = w.Out(i, in[i]);
  int64_t outs = Count(*out_sp), taps = Count(w.k);
  for (int64_t o = 0; o < outs; o++)
    for (int64_t t = 0; t < taps; t++) {
      int64_t oo = o, tt = t, at = 0, stride = 1;
      bool inside = true;
      for (size_t i = r; i-- > 0;) {
        int64_t oi = oo % (*out_sp)[i], ti = tt % w.k[i];
        oo /= (*out_sp)[i];
        tt /= w.k[i];
        int64_t p = oi * w.s[i] - w.pb[i] + ti * w.d[i];
        inside = inside && p >= 0 && p < in[i];
        at += p * stride;
        stride *= in[i];
      }
      f(o, inside ? at : -1, t);
    }
}

// Conv: x [N, C, sp...], w [O, C/group, k...], b [O] or empty.
Vals ConvRef(const Vals& x, const Dims& xd, const Vals& w, const Dims& wd, const Vals& b,
             int64_t group, const Win& win, Dims* yd) {
  int64_t n = xd[0], c = xd[1], o = wd[0], cg = c / group, og = o / group;
  Dims sp(xd.begin() + 2, xd.end()), osp;
  int64_t in_plane = Count(sp), taps = Count(win.k);
  ForEachTap(sp, win, &osp, [](int64_t, int64_t, int64_t) {});
  int64_t out_plane = Count(osp);
  Vals y(static_cast<size_t>(n * o * out_plane), 0.0f);
  for (int64_t b0 = 0; b0 < n; b0++)
    for (int64_t oc = 0; oc < o; oc++) {
      float* yp = &y[static_cast<size_t>((b0 * o + oc) * out_plane)];
      for (int64_t p = 0; p < out_plane; p++) yp[p] = b.empty() ? 0.0f : b[oc];
      for (int64_t ci = 0; ci < cg; ci++) {
        const float* xp = &x[static_cast<size_t>((b0 * c + (oc / og) * cg + ci) * in_plane)];
        const float* wp = &w[static_cast<size_t>((oc * cg + ci) * taps)];
        ForEachTap(sp, win, &osp, [&](int64_t op, int64_t ip, int64_t t) {
          if (ip >= 0) yp[op] += xp[ip] * wp[t];
        });
      }
    }
  *yd = {n, o};
  yd->insert(yd->end(), osp.begin(), osp.end());
  return y;
}

// ConvTranspose (group 1): x [N, I, sp...], w [I, O, k...]; each input
// element spreads over the output positions i*s - pad_begin + t*d, the
// output of size s*(in - 1) + output_padding + (k - 1)*d + 1 - pads.
Vals ConvTransposeRef(const Vals& x, const Dims& xd, const Vals& w, const Dims& wd, const Vals& b,
                      const Win& win, const Dims& out_pad, Dims* yd) {
  int64_t n = xd[0], ci = xd[1], o = wd[1];
  size_t r = xd.size() - 2;
  Dims sp(xd.begin() + 2, xd.end()), osp(r);
  for (size_t i = 0; i < r; i++)
    osp[i] =
        win.s[i] * (sp[i] - 1) + out_pad[i] + (win.k[i] - 1) * win.d[i] + 1 - win.pb[i] - win.pe[i];
  int64_t in_plane = Count(sp), out_plane = Count(osp), taps = Count(win.k);
  Vals y(static_cast<size_t>(n * o * out_plane), 0.0f);
  for (int64_t b0 = 0; b0 < n; b0++)
    for (int64_t oc = 0; oc < o; oc++)
      for (int64_t p = 0; p < out_plane; p++)
        y[static_cast<size_t>((b0 * o + oc) * out_plane + p)] = b.empty() ? 0.0f : b[oc];
  for (int64_t b0 = 0; b0 < n; b0++)
    for (int64_t c = 0; c < ci; c++)
      for (int64_t ip = 0; ip < in_plane; ip++)
        for (int64_t t = 0; t < taps; t++) {
          int64_t ii = ip, tt = t, at = 0, stride = 1;
          bool inside = true;
          for (size_t i = r; i-- > 0;) {
            int64_t pi = ii % sp[i], ti = tt % win.k[i];
            ii /= sp[i];
            tt /= win.k[i];
            int64_t q = pi * win.s[i] - win.pb[i] + ti * win.d[i];
            inside = inside && q >= 0 && q < osp[i];
            at += q * stride;
            stride *= osp[i];
          }
          if (!inside) continue;
          float xv = x[static_cast<size_t>((b0 * ci + c) * in_plane + ip)];
          for (int64_t oc = 0; oc < o; oc++)
            y[static_cast<size_t>((b0 * o + oc) * out_plane + at)] +=
                xv * w[static_cast<size_t>((c * o + oc) * taps + t)];
        }
  *yd = {n, o};
  yd->insert(yd->end(), osp.begin(), osp.end());
  return y;
}

enum Pool { kMax, kAvg, kAvgIncludePad };

Vals PoolRef(const Vals& x, const Dims& xd, Pool kind, const Win& win, Dims* yd) {
  Dims sp(xd.begin() + 2, xd.end()), osp;
  int64_t planes = xd[0] * xd[1], in_plane = Count(sp), taps = Count(win.k);
  ForEachTap(sp, win, &osp, [](int64_t, int64_t, int64_t) {});
  int64_t out_plane = Count(osp);
  Vals y(static_cast<size_t>(planes * out_plane));
  for (int64_t pl = 0; pl < planes; pl++) {
    std::vector<double> acc(static_cast<size_t>(out_plane),
                            kind == kMax ? -std::numeric_limits<double>::infinity() : 0.0);
    std::vector<double> real(static_cast<size_t>(out_plane), 0.0);
    const float* xp = &x[static_cast<size_t>(pl * in_plane)];
    ForEachTap(sp, win, &osp, [&](int64_t op, int64_t ip, int64_t) {
      if (ip < 0) return;
      acc[op] = kind == kMax ? std::max(acc[op], (double)xp[ip]) : acc[op] + xp[ip];
      real[op] += 1;
    });
    for (int64_t p = 0; p < out_plane; p++)
      y[static_cast<size_t>(pl * out_plane + p)] = static_cast<float>(
          kind == kMax ? acc[p] : acc[p] / (kind == kAvg ? real[p] : (double)taps));
  }
  *yd = {xd[0], xd[1]};
  yd->insert(yd->end(), osp.begin(), osp.end());
  return y;
}

struct Model {
  grt_graph* g = nullptr;
  grt_session* s = nullptr;
  explicit Model(const char* name) {
    std::string path = std::string("tests/interchange/onnx/") + name + ".onnx";
    EXPECT_EQ(Message(grt_graph_load(path.c_str(), &g)), "");
    if (g) EXPECT_EQ(Message(grt_session_new(g, nullptr, &s)), "");
  }
  ~Model() {
    grt_session_free(s);
    grt_graph_free(g);
  }
  bool HasOp(const char* op) const {
    for (int32_t i = 0; i < g->n_nodes; i++)
      if (strcmp(grt_graph_node_op(g, i), op) == 0) return true;
    return false;
  }
  // Runs with float32 feeds; checks each fetch against want (shape and
  // values).
  void Check(const std::vector<std::pair<const char*, std::pair<Dims, Vals>>>& feeds,
             const std::vector<std::pair<const char*, std::pair<Dims, Vals>>>& want) {
    ASSERT_NE(s, nullptr);
    std::vector<grt_feed> f;
    for (auto& p : feeds) {
      grt_tensor* t = nullptr;
      const Dims& d = p.second.first;
      ASSERT_EQ(Message(grt_tensor_new(GRT_FLOAT32, (int32_t)d.size(), d.data(), &t)), "");
      memcpy(grt_tensor_data(t), p.second.second.data(), grt_tensor_byte_size(t));
      f.push_back({p.first, t});
    }
    std::vector<const char*> names;
    for (auto& p : want) names.push_back(p.first);
    std::vector<grt_tensor*> out(names.size(), nullptr);
    std::string m =
        Message(grt_session_run(s, f.data(), (int32_t)f.size(), names.data(), (int32_t)names.size(),
                                nullptr, 0, out.data(), nullptr));
    for (grt_feed& x : f) grt_tensor_free(x.value);
    ASSERT_EQ(m, "");
    for (size_t k = 0; k < want.size(); k++) {
      SCOPED_TRACE(names[k]);
      const Dims& wd = want[k].second.first;
      const Vals& wv = want[k].second.second;
      ASSERT_EQ(grt_tensor_rank(out[k]), (int32_t)wd.size());
      for (size_t i = 0; i < wd.size(); i++) EXPECT_EQ(grt_tensor_dim(out[k], (int32_t)i), wd[i]);
      const float* y = static_cast<const float*>(grt_tensor_data(out[k]));
      ASSERT_EQ(grt_tensor_byte_size(out[k]), wv.size() * sizeof(float));
      for (size_t i = 0; i < wv.size(); i++) EXPECT_NEAR(y[i], wv[i], 1e-4) << i;
      grt_tensor_free(out[k]);
    }
  }
};

TEST(OnnxConv, GroupedConvIsConv2DWithAGroupedFilter) {
  Model m("conv_grouped");
  ASSERT_NE(m.g, nullptr);
  EXPECT_TRUE(m.HasOp("Conv2D"));
  EXPECT_FALSE(m.HasOp("DepthwiseConv2dNative"));
  Dims xd = {2, 4, 5, 6}, wd = {6, 2, 3, 3}, yd;
  Vals x = Rand(Count(xd), 1), w = Rand(Count(wd), 2), b = Rand(6, 3);
  Win win{{3, 3}, {1, 2}, {1, 1}, {1, 0}, {1, 2}};
  Vals y = ConvRef(x, xd, w, wd, b, 2, win, &yd);
  m.Check({{"x", {xd, x}}, {"w", {wd, w}}, {"b", {{6}, b}}}, {{"y", {yd, y}}});
}

TEST(OnnxConv, ConstantOneChannelPerGroupIsDepthwise) {
  Model m("conv_depthwise_const");
  ASSERT_NE(m.g, nullptr);
  EXPECT_TRUE(m.HasOp("DepthwiseConv2dNative"));
  // The initializer of conv_depthwise_const.textproto.
  Vals w = {0.2458f,  0.4836f,  0.5904f, 0.8849f,  0.4798f,  0.8446f,  -0.942f, -0.0688f,
            0.8867f,  0.2979f,  0.8018f, -0.7736f, -0.0619f, -0.5069f, 0.0875f, 0.1479f,
            -0.9738f, -0.5665f, -0.441f, 0.8327f,  0.5315f,  -0.6808f, 0.5943f, -0.7225f};
  Dims xd = {1, 3, 6, 5}, wd = {6, 1, 2, 2}, yd;
  Vals x = Rand(Count(xd), 4);
  Win win{{2, 2}, {1, 1}, {2, 1}, {1, 1}, {1, 1}};
  Vals y = ConvRef(x, xd, w, wd, {}, 3, win, &yd);
  m.Check({{"x", {xd, x}}}, {{"y", {yd, y}}});
}

TEST(OnnxConv, Conv3DGroupedWithPadsTensorFlowCannotExpress) {
  Model m("conv3d_grouped_pads");
  ASSERT_NE(m.g, nullptr);
  EXPECT_TRUE(m.HasOp("Conv3D"));
  EXPECT_TRUE(m.HasOp("Pad"));
  Dims xd = {1, 4, 5, 5, 6}, wd = {4, 2, 2, 3, 2}, yd;
  Vals x = Rand(Count(xd), 5), w = Rand(Count(wd), 6), b = Rand(4, 7);
  Win win{{2, 3, 2}, {1, 2, 1}, {2, 1, 1}, {1, 0, 1}, {0, 2, 1}};
  Vals y = ConvRef(x, xd, w, wd, b, 2, win, &yd);
  m.Check({{"x", {xd, x}}, {"w", {wd, w}}, {"b", {{4}, b}}}, {{"y", {yd, y}}});
}

TEST(OnnxConv, Conv3DSameUpper) {
  Model m("conv3d_same");
  ASSERT_NE(m.g, nullptr);
  EXPECT_FALSE(m.HasOp("Pad"));
  Dims xd = {2, 2, 5, 4, 5}, wd = {3, 2, 3, 2, 3}, yd;
  Vals x = Rand(Count(xd), 8), w = Rand(Count(wd), 9);
  // SAME_UPPER: out = ceil(in / stride), the odd padding at the end.
  Dims k = {3, 2, 3}, s = {2, 1, 2}, in = {5, 4, 5}, pb(3), pe(3);
  for (size_t i = 0; i < 3; i++) {
    int64_t out = (in[i] + s[i] - 1) / s[i];
    int64_t total = std::max<int64_t>((out - 1) * s[i] + k[i] - in[i], 0);
    pb[i] = total / 2;
    pe[i] = total - pb[i];
  }
  Win win{k, s, {1, 1, 1}, pb, pe};
  Vals y = ConvRef(x, xd, w, wd, {}, 1, win, &yd);
  m.Check({{"x", {xd, x}}, {"w", {wd, w}}}, {{"y", {yd, y}}});
}

TEST(OnnxConv, ConvTranspose3D) {
  Model m("conv_transpose3d");
  ASSERT_NE(m.g, nullptr);
  EXPECT_TRUE(m.HasOp("Conv3DBackpropInputV2"));
  Dims xd = {1, 2, 3, 4, 3}, wd = {2, 3, 2, 3, 2}, yd;
  Vals x = Rand(Count(xd), 12), w = Rand(Count(wd), 13), b = Rand(3, 14);
  Win win{{2, 3, 2}, {2, 1, 2}, {1, 2, 1}, {1, 0, 1}, {0, 1, 0}};
  Vals y = ConvTransposeRef(x, xd, w, wd, b, win, {1, 0, 0}, &yd);
  m.Check({{"x", {xd, x}}, {"w", {wd, w}}, {"b", {{3}, b}}}, {{"y", {yd, y}}});
}

TEST(OnnxConv, Pool3DMaxAndAverageOverPads) {
  Model m("pool3d_pads");
  ASSERT_NE(m.g, nullptr);
  EXPECT_TRUE(m.HasOp("MaxPool3D"));
  EXPECT_TRUE(m.HasOp("AvgPool3D"));
  Dims xd = {1, 2, 4, 5, 6}, yd;
  Vals x = Rand(Count(xd), 10);
  Win win{{2, 3, 2}, {1, 2, 2}, {1, 1, 1}, {1, 0, 1}, {0, 1, 1}};
  Vals ymax = PoolRef(x, xd, kMax, win, &yd);
  Vals yavg = PoolRef(x, xd, kAvg, win, &yd);
  Vals yinc = PoolRef(x, xd, kAvgIncludePad, win, &yd);
  m.Check({{"x", {xd, x}}},
          {{"y_max", {yd, ymax}}, {"y_avg", {yd, yavg}}, {"y_avg_pad", {yd, yinc}}});
}

TEST(OnnxConv, DilatedMaxPool) {
  Model m("maxpool_dilated");
  ASSERT_NE(m.g, nullptr);
  EXPECT_TRUE(m.HasOp("_DilatedMaxPool"));
  Dims xd = {2, 3, 7, 8}, yd;
  Vals x = Rand(Count(xd), 11);
  Win win{{2, 3}, {1, 2}, {2, 2}, {1, 0}, {1, 2}};
  Vals y = PoolRef(x, xd, kMax, win, &yd);
  m.Check({{"x", {xd, x}}}, {{"y", {yd, y}}});
}

}  // namespace
