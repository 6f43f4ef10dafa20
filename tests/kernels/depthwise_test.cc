// grt's own depthwise convolution (backends/cpu/conv_depthwise.c) through
// DepthwiseConv2dNative and _FusedDepthwiseConv2dNative in a session:
// against a float64 loop (conv_ref.h) and against oneDNN's kernel, at each
// vector width the CPU runs, over odd channel counts (vector tails),
// strides 1 to 3, dilations, SAME, VALID and asymmetric EXPLICIT padding,
// windows larger than the input, batches above 1, every activation it
// fuses and a residual; and that the cases it leaves to oneDNN (NCHW, a
// channel multiplier above 1, Elu) go there.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "tests/kernels/conv_ref.h"
#include "tests/kernels/fused_conv_util.h"

extern "C" {
#include "backends/cpu/conv_depthwise.h"
#include "base/threadpool.h"
#include "grt/grt.h"
}

namespace grt_test {
namespace {

using namespace ref;

struct Case {
  Dims in;  // NHWC
  int64_t kh, kw, sh, sw, dh, dw;
  std::string padding;
  Dims pads;  // EXPLICIT: top, bottom, left, right
};

std::string Name(const Case& c) {
  return ::testing::PrintToString(c.in) + " k" + std::to_string(c.kh) + "x" + std::to_string(c.kw) +
         " s" + std::to_string(c.sh) + std::to_string(c.sw) + " d" + std::to_string(c.dh) +
         std::to_string(c.dw) + " " + c.padding + ::testing::PrintToString(c.pads);
}

const Case kCases[] = {
    {{1, 7, 9, 5}, 3, 3, 1, 1, 1, 1, "SAME", {}},
    {{2, 8, 8, 19}, 3, 3, 2, 2, 1, 1, "SAME", {}},
    {{1, 11, 13, 33}, 5, 5, 1, 1, 1, 1, "SAME", {}},
    {{2, 12, 9, 17}, 5, 5, 2, 2, 1, 1, "SAME", {}},
    {{1, 6, 7, 16}, 3, 3, 1, 1, 1, 1, "VALID", {}},
    {{1, 9, 10, 20}, 3, 3, 2, 2, 1, 1, "EXPLICIT", {0, 2, 1, 0}},
    {{1, 12, 11, 40}, 3, 3, 2, 2, 1, 1, "EXPLICIT", {2, 0, 0, 3}},
    {{3, 5, 5, 3}, 1, 1, 1, 1, 1, 1, "SAME", {}},
    {{1, 10, 12, 24}, 7, 7, 1, 1, 1, 1, "SAME", {}},
    {{1, 9, 9, 16}, 3, 3, 1, 1, 2, 2, "SAME", {}},
    {{1, 11, 10, 9}, 3, 3, 2, 1, 1, 3, "VALID", {}},
    {{1, 4, 4, 8}, 5, 5, 1, 1, 1, 1, "SAME", {}},                 // window wider than the input
    {{1, 3, 3, 16}, 3, 3, 1, 1, 1, 1, "EXPLICIT", {4, 4, 4, 4}},  // rows with no tap inside
    {{2, 10, 9, 21}, 4, 2, 3, 3, 1, 1, "SAME", {}},
    {{1, 1, 1, 1}, 3, 3, 1, 1, 1, 1, "SAME", {}},
    {{2, 1, 1, 20}, 5, 5, 1, 1, 1, 1, "SAME", {}},  // left padding past the whole row
    {{1, 2, 2, 32}, 7, 7, 1, 1, 1, 1, "SAME", {}},
    {{2, 28, 28, 48}, 3, 3, 1, 1, 1, 1, "SAME", {}},
    {{1, 14, 14, 40}, 5, 5, 2, 2, 1, 1, "SAME", {}},
};

// What follows the convolution: "" for DepthwiseConv2dNative, otherwise
// _FusedDepthwiseConv2dNative's fused_ops after BiasAdd (act "None": none).
struct Epi {
  std::string op;  // "" or an activation name ("None": BiasAdd only)
  bool residual;
};

const Epi kEpis[] = {{"", false},      {"None", false},       {"Relu", false},
                     {"Relu6", false}, {"LeakyRelu", false},  {"Sigmoid", false},
                     {"Tanh", false},  {"_HardSwish", false}, {"_Swish", false},
                     {"Relu6", true},  {"None", true}};

// The graph: placeholders x, w (and b, r) into y.
std::string Json(const Case& c, const Epi& e, const std::string& format) {
  bool nchw = format == "NCHW";
  std::string attrs =
      R"("T":"float32","padding":")" + c.padding + R"(","data_format":")" + format +
      R"(","strides":)" + Ints(nchw ? Dims{1, 1, c.sh, c.sw} : Dims{1, c.sh, c.sw, 1}) +
      R"(,"dilations":)" + Ints(nchw ? Dims{1, 1, c.dh, c.dw} : Dims{1, c.dh, c.dw, 1});
  if (c.padding == "EXPLICIT") {
    const Dims& p = c.pads;
    attrs += R"(,"explicit_paddings":)" + Ints(nchw ? Dims{0, 0, 0, 0, p[0], p[1], p[2], p[3]}
                                                    : Dims{0, 0, p[0], p[1], p[2], p[3], 0, 0});
  }
  std::string inputs = R"(["x","w")";
  std::string op = "DepthwiseConv2dNative";
  if (!e.op.empty()) {
    op = "_FusedDepthwiseConv2dNative";
    inputs += e.residual ? R"(,"b","r")" : R"(,"b")";
    std::string ops = R"(["BiasAdd")";
    if (e.residual) ops += R"(,"Add")";
    if (e.op != "None") ops += R"(,")" + e.op + R"(")";
    attrs += R"(,"num_args":)" + std::to_string(e.residual ? 2 : 1) + R"(,"fused_ops":)" + ops +
             R"(],"leakyrelu_alpha":)" + std::to_string(kAlpha);
  }
  std::string json = R"({"format":"grt.graph","version":1,"nodes":[)";
  for (const char* p : {"x", "w", "b", "r"})
    json +=
        R"({"name":")" + std::string(p) + R"(","op":"Placeholder","attrs":{"dtype":"float32"}},)";
  return json + R"({"name":"y","op":")" + op + R"(","inputs":)" + inputs + R"(],"attrs":{)" +
         attrs + "}}]}";
}

struct Inputs {
  Dims x_dims, w_dims, r_dims;
  Vals x, w, b, r;
};

// Runs the graph in a session with `threads` intra-op threads; "" or the
// error. *kernel_runs: how many times grt's depthwise kernel ran.
std::string RunGraph(const Case& c, const Epi& e, const std::string& format, const Inputs& in,
                     int threads, std::vector<float>* y, int64_t* kernel_runs) {
  std::vector<grt_feed> feeds = {{"x", F32(in.x_dims, in.x)}, {"w", F32(in.w_dims, in.w)}};
  if (!e.op.empty()) feeds.push_back({"b", F32({static_cast<int64_t>(in.b.size())}, in.b)});
  if (e.residual) feeds.push_back({"r", F32(in.r_dims, in.r)});
  return RunStep(Json(c, e, format), threads, feeds, {"y"}, grt_cpu_dw_count, y, kernel_runs);
}

ConvGeom Geom(const Case& c, int64_t multiplier = 1) {
  ConvGeom g;
  g.n = c.in[0], g.ih = c.in[1], g.iw = c.in[2], g.ic = c.in[3];
  g.kh = c.kh, g.kw = c.kw, g.groups = g.ic, g.oc = g.ic * multiplier;
  g.sh = c.sh, g.sw = c.sw, g.dh = c.dh, g.dw = c.dw;
  const Dims& p = c.pads;
  bool ex = c.padding == "EXPLICIT";
  g.h = Window(g.ih, g.kh, g.sh, g.dh, c.padding, ex ? p[0] : 0, ex ? p[1] : 0);
  g.w = Window(g.iw, g.kw, g.sw, g.dw, c.padding, ex ? p[2] : 0, ex ? p[3] : 0);
  return g;
}

Inputs Make(const ConvGeom& g, uint32_t seed) {
  Inputs in;
  in.x_dims = g.in();
  in.w_dims = {g.kh, g.kw, g.ic, g.oc / g.ic};
  in.r_dims = g.out();
  in.x = Rand(Elems(in.x_dims), seed);
  in.w = Rand(Elems(in.w_dims), seed + 1);
  in.b = Rand(g.oc, seed + 2);
  in.r = Rand(Elems(in.r_dims), seed + 3);
  // Spread the sums so the activations see both sides and their tails.
  for (double& v : in.b) v *= 4;
  return in;
}

Vals Want(const ConvGeom& g, const Epi& e, const Inputs& in) {
  Vals y = ConvRef(g, in.x, in.w);
  if (e.op.empty()) return y;
  for (size_t i = 0; i < y.size(); i++)
    y[i] = Activate(e.op, y[i] + in.b[i % g.oc] + (e.residual ? in.r[i] : 0.0));
  return y;
}

// Within 1e-5.
std::string Compare(const std::vector<float>& got, const Vals& want) {
  return CompareTol(got, want, 1e-5);
}

class Depthwise : public ::testing::Test {
 protected:
  void TearDown() override {
    grt_cpu_dw_set_kernel(GRT_DW_KERNEL_RULE);
    EXPECT_EQ(grt_cpu_dw_force_width(0), 0);
  }
};

// Each case and epilogue at each width against the float64 loop, run by
// grt's kernel (checked by its call count), and oneDNN's result against
// the same loop.
TEST_F(Depthwise, OwnKernelAndOneDnnAgainstReference) {
  int widths = 0;
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    ConvGeom g = Geom(c);
    for (const Epi& e : kEpis) {
      SCOPED_TRACE(Name(c) + " " + (e.op.empty() ? "DepthwiseConv2dNative" : e.op) +
                   (e.residual ? " +residual" : ""));
      Inputs in = Make(g, seed += 4);
      Vals want = Want(g, e, in);
      std::vector<float> y;
      int64_t runs = 0;
      grt_cpu_dw_set_kernel(GRT_DW_KERNEL_OWN);
      for (int width : {16, 8, 4}) {
        if (grt_cpu_dw_force_width(width) != 0) continue;  // not on this CPU
        widths = std::max(widths, width);
        SCOPED_TRACE("width " + std::to_string(width));
        ASSERT_EQ(RunGraph(c, e, "NHWC", in, 3, &y, &runs), "");
        EXPECT_EQ(runs, 1) << "grt's kernel did not run";
        EXPECT_EQ(Compare(y, want), "");
      }
      ASSERT_EQ(grt_cpu_dw_force_width(0), 0);
      grt_cpu_dw_set_kernel(GRT_DW_KERNEL_DNNL);
      ASSERT_EQ(RunGraph(c, e, "NHWC", in, 2, &y, &runs), "");
      EXPECT_EQ(runs, 0) << "oneDNN was asked for";
      EXPECT_EQ(Compare(y, want), "") << "oneDNN";
    }
  }
  EXPECT_GE(widths, 4);
}

// Rows split over threads give the same bits as one thread.
TEST_F(Depthwise, ThreadsChangeNoBit) {
  grt_cpu_dw_set_kernel(GRT_DW_KERNEL_OWN);
  Case c{{3, 17, 15, 37}, 3, 3, 2, 1, 1, 1, "SAME", {}};
  ConvGeom g = Geom(c);
  Epi e{"_Swish", true};
  Inputs in = Make(g, 99);
  std::vector<float> one, four;
  int64_t runs = 0;
  ASSERT_EQ(RunGraph(c, e, "NHWC", in, 1, &one, &runs), "");
  ASSERT_EQ(RunGraph(c, e, "NHWC", in, 4, &four, &runs), "");
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(one, four);
  EXPECT_EQ(Compare(four, Want(g, e, in)), "");
}

// NCHW, a multiplier of 2 and Elu stay on oneDNN, and are right there.
TEST_F(Depthwise, LeavesToOneDnnWhatItDoesNotRun) {
  grt_cpu_dw_set_kernel(GRT_DW_KERNEL_OWN);
  Case c{{2, 6, 7, 5}, 3, 3, 1, 1, 1, 1, "SAME", {}};
  std::vector<float> y;
  int64_t runs = 0;
  {
    SCOPED_TRACE("NCHW");
    ConvGeom g = Geom(c);
    Epi e{"Relu6", false};
    Inputs in = Make(g, 7);
    Inputs nchw = in;
    nchw.x_dims = NchwDims(g.in());
    nchw.x = ToNchw(in.x, g.in());
    ASSERT_EQ(RunGraph(c, e, "NCHW", nchw, 2, &y, &runs), "");
    EXPECT_EQ(runs, 0);
    EXPECT_EQ(Compare(y, ToNchw(Want(g, e, in), g.out())), "");
  }
  {
    SCOPED_TRACE("multiplier 2");
    ConvGeom g = Geom(c, 2);
    Epi e{"", false};
    Inputs in = Make(g, 8);
    ASSERT_EQ(RunGraph(c, e, "NHWC", in, 2, &y, &runs), "");
    EXPECT_EQ(runs, 0);
    EXPECT_EQ(Compare(y, Want(g, e, in)), "");
  }
  {
    SCOPED_TRACE("Elu");
    ConvGeom g = Geom(c);
    Epi e{"Elu", false};
    Inputs in = Make(g, 9);
    ASSERT_EQ(RunGraph(c, e, "NHWC", in, 2, &y, &runs), "");
    EXPECT_EQ(runs, 0);
    Vals want = Want(g, Epi{"None", false}, in);
    for (double& v : want) v = v > 0 ? v : std::expm1(v);
    EXPECT_EQ(Compare(y, want), "");
  }
}

// The default rule leaves every shape to oneDNN (DNNL.md says why).
TEST_F(Depthwise, RuleLeavesShapesToOneDnn) {
  for (int64_t batch : {1, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Case c{{batch, 9, 8, 32}, 3, 3, 1, 1, 1, 1, "SAME", {}};
    ConvGeom g = Geom(c);
    Epi e{"_Swish", false};
    Inputs in = Make(g, 11);
    std::vector<float> y;
    int64_t runs = 0;
    ASSERT_EQ(RunGraph(c, e, "NHWC", in, 2, &y, &runs), "");
    EXPECT_EQ(runs, 0);
    EXPECT_EQ(Compare(y, Want(g, e, in)), "");
  }
}

// A VALID, stride-1 kh x kw depthwise geometry on an n x h x w x c input.
grt_cpu_conv ValidGeom(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k) {
  grt_cpu_conv g = {};
  g.w.strides[0] = g.w.strides[1] = 1;
  g.w.dilations[0] = g.w.dilations[1] = 1;
  g.n = n;
  g.ih = h;
  g.iw = w;
  g.ic = g.oc = g.groups = c;
  g.kh = g.kw = k;
  g.oh = h - k + 1;
  g.ow = w - k + 1;
  return g;
}

// grt_cpu_dw_run on a pool of `threads` (0: none), after which *started
// says how many of the pool's workers the call started.
// The largest team grt_parallel_for asked for during RunDirect (0: none, the
// rows ran on the caller alone); the team itself is std::threads.
std::atomic<int> g_team{0};

void RecordingTeam(void (*body)(void*), void* arg, int threads) {
  int seen = g_team.load();
  while (threads > seen && !g_team.compare_exchange_weak(seen, threads)) {
  }
  std::vector<std::thread> others;
  for (int i = 1; i < threads; i++) others.emplace_back(body, arg);
  body(arg);
  for (auto& t : others) t.join();
}

// Runs grt_cpu_dw_run on a pool of `threads` (none for 0); *team: the team
// its rows were split over (0: the caller alone).
std::vector<float> RunDirect(const grt_cpu_conv& g, int threads, int* team) {
  std::vector<float> x(static_cast<size_t>(g.n * g.ih * g.iw * g.ic));
  std::vector<float> f(static_cast<size_t>(g.kh * g.kw * g.ic)), b(static_cast<size_t>(g.ic));
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<float>(i % 23) * 0.25f - 2.0f;
  for (size_t i = 0; i < f.size(); i++) f[i] = static_cast<float>(i % 7) * 0.5f - 1.5f;
  for (size_t i = 0; i < b.size(); i++) b[i] = static_cast<float>(i % 5) - 2.0f;
  std::vector<float> y(static_cast<size_t>(g.n * g.oh * g.ow * g.oc), -1.0f);
  grt_threadpool* pool = nullptr;
  if (threads > 0) {
    grt_status* s = grt_threadpool_new(threads, "test", &pool);
    EXPECT_EQ(s, nullptr);
    grt_status_free(s);
  }
  const grt_cpu_dw_epilogue e = {b.data(), false, GRT_DW_ACT_RELU6, 0.0f};
  grt_team_runner was = grt_threadpool_team_runner();
  grt_threadpool_set_team_runner(RecordingTeam);
  g_team = 0;
  grt_cpu_dw_run(pool, &g, x.data(), f.data(), &e, y.data());
  *team = g_team;
  grt_threadpool_set_team_runner(was);
  grt_threadpool_free(pool);
  return y;
}

// The kernel's team is oneDNN's for the layer (grt_cpu_conv_team_work,
// grt_dnnl_team): the pool's size counts the calling thread, so a pool of
// two runs a large layer on a team of two, the caller and one more. (Through
// grt_parallel_for's own estimate, as before, this layer was three shards on
// the caller and both of the pool's workers: three threads on the two cores
// intra_op_threads=2 stands for.) The rows split between them give the same
// bits as one thread.
TEST_F(Depthwise, TeamCountsTheCallerAsOneDnnDoes) {
  grt_cpu_conv g = ValidGeom(1, 58, 58, 144, 3);  // 4.1M multiply-adds: 31 threads' worth
  int team = -1;
  std::vector<float> one = RunDirect(g, 0, &team);
  EXPECT_EQ(team, 0);
  std::vector<float> two = RunDirect(g, 2, &team);
  EXPECT_EQ(team, 2) << "the caller and one more";
  EXPECT_EQ(one, two);
  std::vector<float> eight = RunDirect(g, 8, &team);  // the caller and up to 7 more
  EXPECT_GE(team, 2);
  EXPECT_LE(team, 8);
  EXPECT_EQ(one, eight);
}

// A depthwise multiply-add weighs 4 in the team's sizing (one thread per
// 2^17 of them): this 1x1 layer of 300k multiply-adds runs on two
// threads, where grt_parallel_for's own estimate (as before) and the dense
// unit of 2^19 both ran it on the caller alone; one of 100k (under 2^18)
// stays on the caller: waking a worker would cost more than it saves.
TEST_F(Depthwise, TeamWeighsDepthwiseWork) {
  int team = -1;
  grt_cpu_conv big = ValidGeom(1, 30, 30, 333, 1);
  std::vector<float> one = RunDirect(big, 0, &team);
  std::vector<float> pooled = RunDirect(big, 2, &team);
  EXPECT_EQ(team, 2);
  EXPECT_EQ(one, pooled);
  grt_cpu_conv small = ValidGeom(1, 10, 10, 1000, 1);
  one = RunDirect(small, 0, &team);
  pooled = RunDirect(small, 2, &team);
  EXPECT_EQ(team, 0);
  EXPECT_EQ(one, pooled);
}

TEST_F(Depthwise, WidthHook) {
  EXPECT_EQ(grt_cpu_dw_force_width(5), -1) << "no such copy";
  EXPECT_EQ(grt_cpu_dw_force_width(4), 0) << "the baseline runs everywhere";
}

}  // namespace
}  // namespace grt_test
