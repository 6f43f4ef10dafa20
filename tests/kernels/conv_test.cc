// Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput and
// Conv2DBackpropFilter on the CPU (oneDNN) against float64 loops written
// here: both data formats, strides, dilations, SAME/VALID/EXPLICIT
// padding, odd sizes, grouped filters; the backprops against the adjoint
// loops of the forward reference; plus the error cases and the plan cache
// (a second run with the same and with new shapes).
#include <cmath>
#include <memory>
#include <string>
#include <thread>
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
  Dims in;      // NHWC
  Dims filter;  // HWIO (depthwise: [kh, kw, ic, multiplier])
  int64_t sh, sw, dh, dw;
  std::string padding;
  Dims pads;  // EXPLICIT: top, bottom, left, right
};

std::string Name(const Case& c, bool nchw) {
  return ::testing::PrintToString(c.in) + " f" + ::testing::PrintToString(c.filter) + " s" +
         std::to_string(c.sh) + std::to_string(c.sw) + " d" + std::to_string(c.dh) +
         std::to_string(c.dw) + " " + c.padding + (nchw ? " NCHW" : " NHWC");
}

ConvGeom Geom(const Case& c, bool depthwise) {
  ConvGeom g;
  g.n = c.in[0];
  g.ih = c.in[1];
  g.iw = c.in[2];
  g.ic = c.in[3];
  g.kh = c.filter[0];
  g.kw = c.filter[1];
  g.groups = depthwise ? g.ic : g.ic / c.filter[2];
  g.oc = depthwise ? g.ic * c.filter[3] : c.filter[3];
  g.sh = c.sh;
  g.sw = c.sw;
  g.dh = c.dh;
  g.dw = c.dw;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  if (c.padding == "EXPLICIT") pt = c.pads[0], pb = c.pads[1], pl = c.pads[2], pr = c.pads[3];
  g.h = Window(g.ih, g.kh, g.sh, g.dh, c.padding, pt, pb);
  g.w = Window(g.iw, g.kw, g.sw, g.dw, c.padding, pl, pr);
  return g;
}

// Sets the window attrs in the op's format.
void Attrs(OpRun& r, const Case& c, bool nchw) {
  r.AttrType("T", GRT_FLOAT32).AttrString("padding", c.padding.c_str());
  r.AttrString("data_format", nchw ? "NCHW" : "NHWC");
  if (nchw) {
    r.AttrInts("strides", {1, 1, c.sh, c.sw}).AttrInts("dilations", {1, 1, c.dh, c.dw});
    if (c.padding == "EXPLICIT")
      r.AttrInts("explicit_paddings", {0, 0, 0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3]});
  } else {
    r.AttrInts("strides", {1, c.sh, c.sw, 1}).AttrInts("dilations", {1, c.dh, c.dw, 1});
    if (c.padding == "EXPLICIT")
      r.AttrInts("explicit_paddings", {0, 0, c.pads[0], c.pads[1], c.pads[2], c.pads[3], 0, 0});
  }
}

// An activation in the run's format.
grt_tensor* Act(const Vals& nhwc, const Dims& d, bool nchw) {
  return nchw ? T_<float>(NchwDims(d), ToNchw(nhwc, d)) : T_<float>(d, nhwc);
}
void ExpectAct(const grt_tensor* t, const Dims& d, const Vals& want_nhwc, bool nchw, double tol) {
  if (nchw)
    ExpectNear(t, NchwDims(d), ToNchw(want_nhwc, d), tol);
  else
    ExpectNear(t, d, want_nhwc, tol);
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{1, 5, 5, 3}, {3, 3, 3, 4}, 1, 1, 1, 1, "SAME", {}},
      {{2, 7, 6, 3}, {3, 2, 3, 5}, 2, 2, 1, 1, "SAME", {}},
      {{2, 7, 9, 2}, {3, 3, 2, 3}, 2, 3, 1, 1, "VALID", {}},
      {{1, 9, 8, 3}, {3, 3, 3, 2}, 1, 1, 2, 3, "SAME", {}},
      {{1, 9, 9, 2}, {2, 3, 2, 3}, 2, 1, 2, 2, "VALID", {}},
      {{2, 6, 5, 3}, {3, 3, 3, 4}, 2, 2, 1, 1, "EXPLICIT", {1, 2, 0, 3}},
      {{1, 4, 4, 1}, {1, 1, 1, 1}, 1, 1, 1, 1, "VALID", {}},
      {{3, 5, 4, 5}, {5, 4, 5, 7}, 1, 1, 1, 1, "SAME", {}},
      {{1, 6, 7, 4}, {3, 3, 2, 6}, 1, 2, 1, 1, "SAME", {}},                // two groups
      {{2, 7, 8, 6}, {3, 2, 2, 9}, 2, 1, 1, 2, "VALID", {}},               // three groups, dilated
      {{1, 8, 7, 8}, {3, 3, 2, 4}, 2, 2, 1, 1, "EXPLICIT", {1, 0, 2, 1}},  // four groups
      {{2, 5, 6, 4}, {2, 3, 1, 8}, 1, 1, 2, 1, "SAME", {}},    // groups = channels, 2 per group
      {{1, 6, 6, 12}, {1, 1, 4, 6}, 1, 1, 1, 1, "VALID", {}},  // 1x1, three groups (ShuffleNet)
  };
  return cases;
}

TEST(Conv2D, EveryCaseBothFormats) {
  for (const Case& c : Cases())
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(Name(c, nchw));
      ConvGeom g = Geom(c, false);
      Vals x = Rand(Count(c.in), 1), f = Rand(Count(c.filter), 2);
      OpRun r("Conv2D");
      Attrs(r, c, nchw);
      r.Input(Act(x, c.in, nchw)).Input(T_<float>(c.filter, f));
      ASSERT_OK(r.Run());
      ExpectAct(r.Output(0), g.out(), ConvRef(g, x, f), nchw, 1e-5);
    }
}

TEST(DepthwiseConv2dNative, EveryCaseBothFormats) {
  for (Case c : Cases())
    for (bool nchw : {false, true}) {
      c.filter[2] = c.in[3];  // [kh, kw, ic, multiplier]
      c.filter[3] = c.filter[3] % 3 + 1;
      SCOPED_TRACE(Name(c, nchw));
      ConvGeom g = Geom(c, true);
      Vals x = Rand(Count(c.in), 3), f = Rand(Count(c.filter), 4);
      OpRun r("DepthwiseConv2dNative");
      Attrs(r, c, nchw);
      r.Input(Act(x, c.in, nchw)).Input(T_<float>(c.filter, f));
      ASSERT_OK(r.Run());
      // The depthwise filter is the grouped filter [kh, kw, 1, ic * m].
      ExpectAct(r.Output(0), g.out(), ConvRef(g, x, f), nchw, 1e-5);
    }
}

TEST(Conv2DBackpropInput, MatchesTheForwardAdjoint) {
  for (const Case& c : Cases())
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(Name(c, nchw));
      ConvGeom g = Geom(c, false);
      Vals f = Rand(Count(c.filter), 5), dy = Rand(Count(g.out()), 6);
      OpRun r("Conv2DBackpropInput");
      Attrs(r, c, nchw);
      Dims sizes = nchw ? NchwDims(c.in) : c.in;
      r.Input(T_<int32_t>({4}, Vals(sizes.begin(), sizes.end())))
          .Input(T_<float>(c.filter, f))
          .Input(Act(dy, g.out(), nchw));
      ASSERT_OK(r.Run());
      ExpectAct(r.Output(0), c.in, ConvBackpropInputRef(g, f, dy), nchw, 1e-5);
    }
}

TEST(Conv2DBackpropFilter, MatchesTheForwardAdjoint) {
  for (const Case& c : Cases())
    for (bool nchw : {false, true}) {
      SCOPED_TRACE(Name(c, nchw));
      ConvGeom g = Geom(c, false);
      Vals x = Rand(Count(c.in), 7), dy = Rand(Count(g.out()), 8);
      OpRun r("Conv2DBackpropFilter");
      Attrs(r, c, nchw);
      r.Input(Act(x, c.in, nchw))
          .Input(T_<int32_t>({4}, Vals(c.filter.begin(), c.filter.end())))
          .Input(Act(dy, g.out(), nchw));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), c.filter, ConvBackpropFilterRef(g, x, dy), 1e-5);
    }
}

// The adjoint reference itself, against central differences of the
// forward reference: d/dx_k sum(dy * conv(x, f)).
TEST(ConvReference, AdjointsAreTheForwardsDerivatives) {
  Case c = Cases()[5];
  ConvGeom g = Geom(c, false);
  Vals x = Rand(Count(c.in), 9), f = Rand(Count(c.filter), 10), dy = Rand(Count(g.out()), 11);
  auto loss = [&](const Vals& xx, const Vals& ff) {
    Vals y = ConvRef(g, xx, ff);
    double s = 0;
    for (size_t i = 0; i < y.size(); i++) s += y[i] * dy[i];
    return s;
  };
  Vals dx = ConvBackpropInputRef(g, f, dy), df = ConvBackpropFilterRef(g, x, dy);
  const double h = 1e-4;
  for (size_t k = 0; k < x.size(); k += 7) {
    Vals a = x, b = x;
    a[k] += h;
    b[k] -= h;
    EXPECT_NEAR((loss(a, f) - loss(b, f)) / (2 * h), dx[k], 1e-6) << k;
  }
  for (size_t k = 0; k < f.size(); k += 5) {
    Vals a = f, b = f;
    a[k] += h;
    b[k] -= h;
    EXPECT_NEAR((loss(x, a) - loss(x, b)) / (2 * h), df[k], 1e-6) << k;
  }
}

TEST(Conv2D, RepeatedRunsReuseAndRebuildPlans) {
  // Fed through placeholders, so one node sees several input shapes: more
  // than the cache holds, then the first again.
  Case c = Cases()[1];
  for (int64_t n : {2, 1, 3, 4, 5, 2}) {
    SCOPED_TRACE(n);
    Dims in = {n, 7, 6, 3};
    Case cn = c;
    cn.in = in;
    ConvGeom g = Geom(cn, false);
    Vals x = Rand(Count(in), 20 + n), f = Rand(Count(c.filter), 2);
    OpRun r("Conv2D");
    Attrs(r, cn, false);
    r.Input(T_<float>(in, x)).Input(T_<float>(c.filter, f));
    ASSERT_OK(r.Run());
    ASSERT_OK(r.Run());  // the cached plan
    ExpectNear(r.Output(0), g.out(), ConvRef(g, x, f), 1e-5);
  }
}

TEST(Conv2D, ZeroSizedBatchGivesAnEmptyOutput) {
  Case c = Cases()[0];
  c.in[0] = 0;
  OpRun r("Conv2D");
  Attrs(r, c, false);
  r.Input(T_<float>(c.in, {})).Input(T_<float>(c.filter, Rand(Count(c.filter), 1)));
  ASSERT_OK(r.Run());
  EXPECT_EQ(grt_test::Dims(r.Output(0)), (Dims{0, 5, 5, 4}));
}

TEST(Conv2DBackpropFilter, EmptyBatchGivesZeros) {
  Case c = Cases()[0];
  c.in[0] = 0;
  OpRun r("Conv2DBackpropFilter");
  Attrs(r, c, false);
  r.Input(T_<float>(c.in, {}))
      .Input(T_<int32_t>({4}, Vals(c.filter.begin(), c.filter.end())))
      .Input(T_<float>({0, 5, 5, 4}, {}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), c.filter, Vals(static_cast<size_t>(Count(c.filter)), 0.0));
}

// Several threads run one node's kernel at once with one shared state (as
// steps in flight do), over more shapes than its plan cache holds.
TEST(Conv2D, ConcurrentRunsShareTheNodesPlans) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  int32_t node = -1, p0 = -1, p1 = -1;
  ASSERT_OK(grt_graph_add_node(g, "x", "Placeholder", &p0));
  ASSERT_OK(grt_graph_set_attr_type(g, p0, "dtype", GRT_FLOAT32));
  ASSERT_OK(grt_graph_add_node(g, "f", "Placeholder", &p1));
  ASSERT_OK(grt_graph_set_attr_type(g, p1, "dtype", GRT_FLOAT32));
  ASSERT_OK(grt_graph_add_node(g, "conv", "Conv2D", &node));
  ASSERT_OK(grt_graph_set_attr_type(g, node, "T", GRT_FLOAT32));
  ASSERT_OK(grt_graph_set_attr_string(g, node, "padding", "SAME"));
  std::vector<int64_t> strides = {1, 2, 1, 1};
  ASSERT_OK(grt_graph_set_attr_int_list(g, node, "strides", strides.data(), 4));
  ASSERT_OK(grt_graph_add_input(g, node, "x"));
  ASSERT_OK(grt_graph_add_input(g, node, "f"));
  ASSERT_OK(grt_graph_validate(g));
  const grt_op_kernel* k = grt_cpu_kernel_lookup("Conv2D");
  ASSERT_NE(k, nullptr);
  void* state = nullptr;
  ASSERT_OK(k->create_state(&g->nodes[node], &state));
  grt_threadpool* pool = nullptr;
  ASSERT_OK(grt_threadpool_new(2, "conv-test", &pool));

  Case base = {{1, 6, 5, 3}, {3, 3, 3, 4}, 2, 1, 1, 1, "SAME", {}};
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 12; i++) {
        Case c = base;
        c.in[0] = 1 + (t + i) % 6;  // six batch sizes
        ConvGeom geom = Geom(c, false);
        Vals x = Rand(Count(c.in), 30 + t), f = Rand(Count(c.filter), 31);
        grt_tensor* in[2] = {T_<float>(c.in, x), T_<float>(c.filter, f)};
        grt_tensor* out[1] = {nullptr};
        grt_var* refs[2] = {nullptr, nullptr};
        grt_kernel_ctx ctx = {};
        ctx.node = &g->nodes[node];
        ctx.n_inputs = 2;
        ctx.inputs = in;
        ctx.input_refs = refs;
        ctx.n_outputs = 1;
        ctx.outputs = out;
        ctx.output_refs = refs;
        ctx.allocator = grt_host_allocator();
        ctx.intra_op = pool;
        ctx.state = state;
        grt_status* s = k->compute(&ctx);
        if (s) {
          failures[t]++;
          grt_status_free(s);
        } else {
          Vals want = ConvRef(geom, x, f);
          for (size_t j = 0; j < want.size(); j++)
            if (std::abs(At(out[0], static_cast<int64_t>(j)) - want[j]) > 1e-5) {
              failures[t]++;
              break;
            }
        }
        grt_tensor_free(out[0]);
        grt_tensor_free(in[0]);
        grt_tensor_free(in[1]);
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; t++) EXPECT_EQ(failures[t], 0) << "thread " << t;
  k->free_state(state);
  grt_threadpool_free(pool);
  grt_graph_free(g);
}

// A kernel run without state (no plan cache) builds a plan for the call
// and frees it.
TEST(Conv2D, RunsWithoutState) {
  Case c = Cases()[2];
  ConvGeom g = Geom(c, false);
  Vals x = Rand(Count(c.in), 40), f = Rand(Count(c.filter), 41);
  for (int i = 0; i < 2; i++) {
    FeedRun r("Conv2D");
    r.AttrType("T", GRT_FLOAT32)
        .AttrString("padding", "VALID")
        .AttrInts("strides", {1, c.sh, c.sw, 1});
    r.Input(T_<float>(c.in, x)).Input(T_<float>(c.filter, f));
    ASSERT_OK(r.Run(i ? TestPool() : nullptr));
    ExpectNear(r.Output(0), g.out(), ConvRef(g, x, f), 1e-5);
  }
}

// ---- errors -----------------------------------------------------------------

// Kernel-side checks (inputs fed, so validation cannot see the shapes).
TEST(Conv2D, KernelErrors) {
  auto conv = [](const char* op, Dims in, Dims f) {
    auto r = std::make_unique<FeedRun>(op);
    r->AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID").AttrInts("strides", {1, 1, 1, 1});
    r->Input(T_<float>(in, {0})).Input(T_<float>(f, {0}));
    return r;
  };
  CheckStatus(conv("Conv2D", {2, 3, 3}, {1, 1, 3, 1})->Run(), GRT_INVALID_ARGUMENT,
              "input must be 4-dimensional: [2,3,3]");
  CheckStatus(conv("Conv2D", {1, 3, 3, 3}, {1, 3, 1})->Run(), GRT_INVALID_ARGUMENT,
              "filter must be 4-dimensional: [1,3,1]");
  CheckStatus(conv("Conv2D", {1, 3, 3, 3}, {1, 1, 2, 4})->Run(), GRT_INVALID_ARGUMENT,
              "input depth must be evenly divisible by filter depth: 3 vs 2");
  CheckStatus(conv("Conv2D", {1, 3, 3, 3}, {5, 1, 3, 4})->Run(), GRT_INVALID_ARGUMENT,
              "Computed output size would be negative");
  CheckStatus(conv("DepthwiseConv2dNative", {1, 3, 3, 3}, {1, 1, 2, 4})->Run(),
              GRT_INVALID_ARGUMENT, "input and filter must have the same depth: 3 vs 2");
  auto f64 = std::make_unique<FeedRun>("Conv2D");
  f64->AttrType("T", GRT_FLOAT64).AttrString("padding", "VALID").AttrInts("strides", {1, 1, 1, 1});
  f64->Input(T_<double>({1, 2, 2, 1}, {0})).Input(T_<double>({1, 1, 1, 1}, {0}));
  CheckStatus(f64->Run(), GRT_UNIMPLEMENTED, "float64");

  FeedRun bpi("Conv2DBackpropInput");
  bpi.AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID").AttrInts("strides", {1, 1, 1, 1});
  bpi.Input(T_<int32_t>({4}, {1, 3, 3, 1}))
      .Input(T_<float>({2, 2, 1, 1}, {0}))
      .Input(T_<float>({1, 3, 3, 1}, {0}));
  CheckStatus(bpi.Run(), GRT_INVALID_ARGUMENT,
              "out_backprop has shape [1,3,3,1], but the convolution's output is [1,2,2,1]");
  FeedRun sizes("Conv2DBackpropFilter");
  sizes.AttrType("T", GRT_FLOAT32).AttrString("padding", "VALID").AttrInts("strides", {1, 1, 1, 1});
  sizes.Input(T_<float>({1, 3, 3, 1}, {0}))
      .Input(T_<int32_t>({3}, {2, 2, 1}))
      .Input(T_<float>({1, 2, 2, 1}, {0}));
  CheckStatus(sizes.Run(), GRT_INVALID_ARGUMENT, "filter_sizes must have 4 elements, got 3");
}

// Attr errors reach the user through validation, naming the node.
TEST(Conv2D, BadAttrsNameTheNode) {
  struct Bad {
    const char* attr;
    std::vector<int64_t> ints;
    const char* padding;
    const char* format;
    const char* message;
  };
  for (const Bad& b : std::vector<Bad>{
           {"strides", {1, 1, 1}, "SAME", "NHWC", "attr 'strides' must have 4 entries, got 3"},
           {"strides",
            {2, 1, 1, 1},
            "SAME",
            "NHWC",
            "strides in the batch and depth dimensions must be 1"},
           {"strides", {1, 0, 1, 1}, "SAME", "NHWC", "attr 'strides' must be positive"},
           {"dilations",
            {1, 1, 1, 2},
            "SAME",
            "NHWC",
            "dilations in the batch and depth dimensions must be 1"},
           {"strides",
            {1, 1, 1, 1},
            "FULL",
            "NHWC",
            "attr 'padding' must be SAME, VALID or EXPLICIT, got 'FULL'"},
           {"strides",
            {1, 1, 1, 1},
            "SAME",
            "HWCN",
            "attr 'data_format' must be NHWC or NCHW, got 'HWCN'"},
           {"explicit_paddings",
            {0, 0, 1, 1, 1, 1, 0, 0},
            "SAME",
            "NHWC",
            "must be empty if the padding attribute is not EXPLICIT"},
           {"explicit_paddings", {0, 0, 1, 1}, "EXPLICIT", "NHWC", "must have 8 entries"},
           {"explicit_paddings",
            {1, 0, 1, 1, 1, 1, 0, 0},
            "EXPLICIT",
            "NHWC",
            "nonzero padding in the batch or depth dimensions"},
       }) {
    SCOPED_TRACE(b.message);
    OpRun r("Conv2D");
    r.AttrType("T", GRT_FLOAT32)
        .AttrString("padding", b.padding)
        .AttrString("data_format", b.format);
    if (std::string(b.attr) != "strides") r.AttrInts("strides", {1, 1, 1, 1});
    r.AttrInts(b.attr, b.ints);
    r.Input(T_<float>({1, 4, 4, 2}, {0})).Input(T_<float>({2, 2, 2, 1}, {0}));
    grt_status* s = r.Run();
    ASSERT_NE(s, nullptr);
    std::string m = grt_status_message(s);
    EXPECT_NE(m.find("'op'"), std::string::npos) << m;
    CheckStatus(s, GRT_INVALID_ARGUMENT, b.message);
  }
}

}  // namespace
}  // namespace grt_test
