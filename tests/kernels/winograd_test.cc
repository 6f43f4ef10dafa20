// _FusedConv2D as oneDNN's Winograd convolution (backends/cpu/
// conv_winograd.c): 3x3 stride-1 NHWC layers with 16-channel blocks run on
// it, reordered in and out of its blocked layout, with the bias, a
// residual and the activations as the direct kernel applies them, against
// float64 loops; shapes outside the rule, and the rule switched off, run
// the direct kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/conv_ref.h"
#include "tests/kernels/fused_conv_util.h"

extern "C" {
#include "backends/cpu/conv.h"
#include "grt/grt.h"
}

namespace grt_test {
namespace {

using namespace ref;

struct Case {
  Dims in;  // NHWC
  int64_t oc;
  const char* padding;
  const char* act;  // the fused activation, "" for none
  bool residual;
};

std::string Json(const Case& c) {
  std::string ops = R"(["BiasAdd")";
  if (c.residual) ops += R"(,"Add")";
  if (*c.act) ops += std::string(R"(,")") + c.act + R"(")";
  ops += "]";
  std::string json = R"({"format":"grt.graph","version":1,"nodes":[)";
  for (const char* p : {"x", "w", "b", "r"})
    json +=
        R"({"name":")" + std::string(p) + R"(","op":"Placeholder","attrs":{"dtype":"float32"}},)";
  return json + R"({"name":"y","op":"_FusedConv2D","inputs":["x","w","b")" +
         (c.residual ? R"(,"r")" : "") +
         R"(],"attrs":{"T":"float32","data_format":"NHWC","strides":[1,1,1,1],"padding":")" +
         c.padding + R"(","num_args":)" + (c.residual ? "2" : "1") + R"(,"fused_ops":)" + ops +
         "}}]}";
}

// Runs the case; *winograd_runs: how many Winograd convolutions ran.
std::vector<float> Run(const Case& c, const ConvGeom& g, const Vals& x, const Vals& w,
                       const Vals& b, const Vals& r, int64_t* winograd_runs) {
  std::string j = Json(c);
  grt_graph* gr = nullptr;
  EXPECT_EQ(grt_graph_from_json(j.c_str(), j.size(), &gr), nullptr);
  grt_session_options* o = nullptr;
  EXPECT_EQ(grt_session_options_new(&o), nullptr);
  EXPECT_EQ(grt_session_options_set(o, "intra_op_threads", "2"), nullptr);
  grt_session* s = nullptr;
  EXPECT_EQ(grt_session_new(gr, o, &s), nullptr);
  std::vector<grt_feed> feeds = {
      {"x", F32(g.in(), x)}, {"w", F32(g.filter(), w)}, {"b", F32({g.oc}, b)}};
  if (c.residual) feeds.push_back({"r", F32(g.out(), r)});
  const char* fetch = "y";
  grt_tensor* y = nullptr;
  int64_t before = grt_cpu_conv_winograd_count();
  grt_status* st = grt_session_run(s, feeds.data(), static_cast<int32_t>(feeds.size()), &fetch, 1,
                                   nullptr, 0, &y, nullptr);
  *winograd_runs = grt_cpu_conv_winograd_count() - before;
  EXPECT_EQ(st ? grt_status_message(st) : "", std::string());
  grt_status_free(st);
  std::vector<float> out;
  if (y) {
    const float* p = static_cast<const float*>(grt_tensor_data(y));
    out.assign(p, p + grt_tensor_num_elements(y));
  }
  grt_tensor_free(y);
  for (grt_feed& f : feeds) grt_tensor_free(f.value);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(gr);
  return out;
}

// Every output within 1e-5 of the largest reference magnitude (Winograd
// reassociates the sums: its error is a few 1e-7 of it here).
void Check(const Case& c, bool winograd_expected) {
  ConvGeom g{c.in[0], c.in[1], c.in[2], c.in[3], 3, 3, c.oc, 1, 1, 1, 1, 1, {}, {}};
  g.h = Window(g.ih, 3, 1, 1, c.padding);
  g.w = Window(g.iw, 3, 1, 1, c.padding);
  Vals x = Rand(Elems(g.in()), 1), w = Rand(Elems(g.filter()), 2), b = Rand(g.oc, 3),
       r = Rand(Elems(g.out()), 4);
  Vals want = ConvRef(g, x, w);
  double big = 1e-6;
  for (size_t i = 0; i < want.size(); i++) {
    want[i] = Activate(c.act, want[i] + b[i % g.oc] + (c.residual ? r[i] : 0.0));
    big = std::fmax(big, std::fabs(want[i]));
  }
  int64_t runs = -1;
  std::vector<float> got = Run(c, g, x, w, b, r, &runs);
  EXPECT_EQ(runs, winograd_expected ? 1 : 0);
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 3; i++)
    if (!(std::fabs(got[i] - want[i]) <= 1e-5 * big)) {
      bad++;
      ADD_FAILURE() << "element " << i << ": " << got[i] << ", want " << want[i];
    }
}

const Case kTaken[] = {
    {{1, 14, 14, 16}, 32, "SAME", "Relu", false},
    {{2, 9, 11, 32}, 16, "SAME", "", true},
    {{3, 9, 9, 64}, 64, "VALID", "Relu", true},     // 3 x 7 x 7 = 147 positions
    {{1, 64, 64, 16}, 16, "SAME", "_Swish", true},  // 2^16 outputs: SiLU as grt's rows after
};

TEST(Winograd, TakenShapesAgainstFloat64) {
  grt_cpu_conv_winograd_set(true);
  for (const Case& c : kTaken) {
    SCOPED_TRACE(Ints(c.in) + " -> " + std::to_string(c.oc) + " " + c.padding + " " + c.act);
    Check(c, true);
  }
}

TEST(Winograd, OffRunsTheDirectKernel) {
  grt_cpu_conv_winograd_set(false);
  for (const Case& c : kTaken) Check(c, false);
  grt_cpu_conv_winograd_set(true);
}

TEST(Winograd, ShapesOutsideTheRuleRunTheDirectKernel) {
  grt_cpu_conv_winograd_set(true);
  Check({{1, 8, 8, 8}, 16, "SAME", "Relu", false}, false);  // 8 input channels
  Check({{1, 8, 8, 16}, 24, "SAME", "", true}, false);      // 24 output channels
  Check({{1, 7, 7, 32}, 32, "SAME", "", false}, false);     // 49 positions: too few
}

}  // namespace
}  // namespace grt_test
