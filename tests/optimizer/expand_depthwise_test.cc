// The expand_depthwise pass (optimizer/pass_expand_depthwise.c) and the
// CPU kernel it hands the pair to (backends/cpu/conv_expand_dw.c): an
// inverted residual block's 1x1 expansion (+ bias + activation) and the
// depthwise convolution reading it become one _FusedExpandDepthwise; then
// the depthwise_project pass (optimizer/pass_depthwise_project.c) takes
// the block's 1x1 projection (+ residual) (+ activation) into it too.
// Each graph runs with the optimizer and without (rewrite=false: oneDNN's
// convolutions, the expanded tensor written out); the results differ only
// by the order of the sums.
#include <gtest/gtest.h>

#include "tests/optimizer/conv_test_util.h"

namespace {

using namespace convtest;

struct Block {
  int64_t h, w, k, c;  // input H, W, K channels, expanded to C
  int64_t kernel = 3, stride = 1;
  std::string expand_act = "Relu6", act = "Relu6";  // "SiLU": x * Sigmoid(x); "": none
  bool mean = false;    // a squeeze-excitation Mean after the depthwise convolution
  bool shared = false;  // the expansion also read by another node
  // The projection after the depthwise convolution (p 0: none) to p
  // channels, its residual ("": none; "x": the block's input; "r": a value
  // only the projection reads, Tanh(x2)) and its activation.
  int64_t p = 0;
  std::string residual, project_act;
  bool dw_shared = false;  // the depthwise output also read by another node
  bool expand = true;      // false: no expansion, the depthwise convolution reads x (c == k)
};

std::string Act(const std::string& act, const std::string& in, const std::string& out) {
  if (act == "SiLU")
    return R"({"name":")" + out + R"(_g","op":"Sigmoid","inputs":[")" + in + R"("]},
       {"name":")" +
           out + R"(","op":"Mul","inputs":[")" + in + R"(",")" + out + R"(_g"]},)";
  if (act == "Relu6")  // as the ONNX importer writes Clip(0, 6)
    return R"({"name":")" + out + R"(_lo","op":"Maximum","inputs":[")" + in + R"(","zero"]},
       {"name":")" +
           out + R"(","op":"Minimum","inputs":[")" + out + R"(_lo","six"]},)";
  if (act.empty())
    return R"({"name":")" + out + R"(","op":"Identity","inputs":[")" + in + R"("]},)";
  return R"({"name":")" + out + R"(","op":")" + act + R"(","inputs":[")" + in + R"("]},)";
}

// x [-1,H,W,K] -> e = act(Conv2D 1x1 (K -> C) + b1) -> y = act(Depthwise
// kernel x kernel, stride, SAME + b2) -> out (y, or y * Sigmoid(Mean(y)),
// or project_act(Conv2D 1x1 (C -> P) of y + b3 (+ residual))).
std::string Graph(const Block& b) {
  std::string nodes = R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,)" +
                      std::to_string(b.h) + "," + std::to_string(b.w) + "," + std::to_string(b.k) +
                      R"(]}},)" + "\n" + Const("w1", {1, 1, b.k, b.c}, 1) + Const("b1", {b.c}, 2) +
                      Const("w2", {b.kernel, b.kernel, b.c, 1}, 3) + Const("b2", {b.c}, 4) +
                      IntConst("axes", {2}, "1,2") + Scalar("zero", 0.0f) + Scalar("six", 6.0f);
  std::string s = std::to_string(b.stride);
  if (b.expand)
    nodes += R"({"name":"pw","op":"Conv2D","inputs":["x","w1"],"attrs":{
      "strides":[1,1,1,1],"padding":"VALID","data_format":"NHWC"}},
     {"name":"e0","op":"BiasAdd","inputs":["pw","b1"]},)" +
             Act(b.expand_act, "e0", "e");
  nodes += std::string(R"({"name":"dw","op":"DepthwiseConv2dNative","inputs":[")") +
           (b.expand ? "e" : "x") + R"(","w2"],"attrs":{
      "strides":[1,)" +
           s + "," + s + R"(,1],"padding":"SAME","data_format":"NHWC"}},
     {"name":"y0","op":"BiasAdd","inputs":["dw","b2"]},)" +
           Act(b.act, "y0", "y");
  if (b.p) {
    nodes += Const("w3", {1, 1, b.c, b.p}, 6) + Const("b3", {b.p}, 7) +
             R"({"name":"pj","op":"Conv2D","inputs":["y","w3"],"attrs":{
      "strides":[1,1,1,1],"padding":"VALID","data_format":"NHWC"}},
     {"name":"p0","op":"BiasAdd","inputs":["pj","b3"]},)";
    std::string last = "p0";
    if (!b.residual.empty()) {
      if (b.residual == "r")  // SAME: ceil(size / stride)
        nodes += R"({"name":"x2","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,)" +
                 std::to_string((b.h + b.stride - 1) / b.stride) + "," +
                 std::to_string((b.w + b.stride - 1) / b.stride) + "," + std::to_string(b.p) +
                 R"(]}},
       {"name":"r","op":"Tanh","inputs":["x2"]},)";
      nodes += R"({"name":"p1","op":"AddV2","inputs":["p0",")" + b.residual + R"("]},)";
      last = "p1";
    }
    nodes += Act(b.project_act, last, "out");
  } else if (b.mean)
    nodes += R"({"name":"m","op":"Mean","inputs":["y","axes"],"attrs":{"keep_dims":true}},
       {"name":"sg","op":"Sigmoid","inputs":["m"]},
       {"name":"out","op":"Mul","inputs":["y","sg"]},)";
  else
    nodes += R"({"name":"out","op":"Identity","inputs":["y"]},)";
  if (b.shared) nodes += R"({"name":"other","op":"Neg","inputs":["e"]},)";
  if (b.dw_shared) nodes += R"({"name":"other_y","op":"Neg","inputs":["y"]},)";
  return convtest::Graph(nodes);
}

std::string Name(const Block& b) {
  return std::to_string(b.h) + "x" + std::to_string(b.w) + "x" + std::to_string(b.k) + "->" +
         std::to_string(b.c) + " k" + std::to_string(b.kernel) + " s" + std::to_string(b.stride) +
         " " + (b.expand ? b.expand_act : "no expansion") + "/" + b.act + (b.mean ? " mean" : "") +
         (b.p ? " -> " + std::to_string(b.p) + " " + b.residual + " " + b.project_act : "");
}

const char kTaken[] = "expansions computed inside their depthwise convolution";

TEST(ExpandDepthwise, ThePairRunsAsOneNode) {
  const Block blocks[] = {
      {23, 21, 16, 96, 3, 2, "SiLU", "SiLU", true},  // efficientnet_b0's second block
      {14, 13, 24, 144, 3, 1, "SiLU", "SiLU", true},
      {15, 14, 24, 144, 5, 2, "SiLU", "SiLU", true},
      {17, 16, 16, 96, 3, 2},  // mobilenet_v2's, Relu6
      {29, 9, 32, 40, 3, 1, "", ""},
      {6, 7, 5, 24, 5, 1, "Relu", "Sigmoid"},  // windows wider than the map
  };
  for (const Block& b : blocks) {
    SCOPED_TRACE(Name(b));
    std::string text = Graph(b);
    for (int64_t batch : {1, 3}) {
      grt_tensor* x = Input({batch, b.h, b.w, b.k}, 5 + (uint32_t)batch);
      for (const char* threads : {"1", "2", "4"}) {
        Result r = ExpectSame(text, {{"x", x}}, {"out", "y"}, 1e-5f,
                              {std::string("intra_op_threads=") + threads});
        EXPECT_NE(r.report.find(kTaken), std::string::npos) << r.report;
      }
      grt_tensor_free(x);
    }
    Optimized o = Optimize(text);
    EXPECT_EQ(o.count["_FusedExpandDepthwise"], 1) << o.json;
    EXPECT_EQ(o.count["_FusedConv2D"], 0) << o.json;
    EXPECT_EQ(o.count["_FusedDepthwiseConv2dNative"], 0) << o.json;
    EXPECT_EQ(o.count["Mean"], 0) << o.json;
  }
}

// An expansion another node reads, one of more input channels than the
// kernel expands, one with a stride, and the pass switched off: the two
// nodes stay, with the same results.
TEST(ExpandDepthwise, LeftWhereItDoesNotApply) {
  Block shared{12, 11, 16, 48};
  shared.shared = true;
  Block deep{12, 11, 40, 48};
  struct {
    const char* what;
    Block b;
    std::vector<std::string> options;
  } cases[] = {{"read twice", shared, {}},
               {"40 input channels", deep, {}},
               {"switched off", Block{12, 11, 16, 48}, {"optimizer_off=expand_depthwise"}}};
  for (auto& c : cases) {
    SCOPED_TRACE(c.what);
    std::string text = Graph(c.b);
    grt_tensor* x = Input({2, c.b.h, c.b.w, c.b.k}, 11);
    std::vector<std::string> fetch = {"out"};
    if (c.b.shared) fetch.push_back("other");
    Result r = ExpectSame(text, {{"x", x}}, fetch, 1e-5f, c.options);
    EXPECT_EQ(r.report.find(kTaken), std::string::npos) << r.report;
    Optimized o = Optimize(text, c.options);
    EXPECT_EQ(o.count["_FusedExpandDepthwise"], 0) << o.json;
    grt_tensor_free(x);
  }
}

// Pinned to two CPU devices (the expansion on /cpu:0, the depthwise
// convolution on /cpu:1; then the projection on /cpu:1 after a block on
// /cpu:0): each fusion would move a node off its device, so none is made.
TEST(ExpandDepthwise, NotAcrossDevices) {
  Block b{12, 11, 16, 48, 3, 1, "Relu6", "Relu6", false, false, 24};
  std::string split_dw = Graph(b), split_project = Graph(b);
  const std::string dw = R"({"name":"dw","op":)", pj = R"({"name":"pj","op":)";
  split_dw.replace(split_dw.find(dw), dw.size(), R"({"name":"dw","device":"/cpu:1","op":)");
  split_project.replace(split_project.find(pj), pj.size(),
                        R"({"name":"pj","device":"/cpu:1","op":)");
  grt_tensor* x = Input({2, b.h, b.w, b.k}, 17);
  const struct {
    const std::string& text;
    bool expansion_fused;
  } cases[] = {{split_dw, false}, {split_project, true}};
  for (const auto& c : cases) {
    Result r = ExpectSame(c.text, {{"x", x}}, {"out"}, 1e-5f, {"cpu.devices=2"});
    EXPECT_EQ(r.report.find(kTaken) != std::string::npos, c.expansion_fused) << r.report;
    EXPECT_EQ(r.report.find("projections computed inside"), std::string::npos) << r.report;
  }
  grt_tensor_free(x);
}

// Fetching the expansion itself runs the step as written (the fused node
// does not give it), with the same value.
TEST(ExpandDepthwise, FetchingTheExpansion) {
  Block b{10, 9, 16, 32, 3, 1, "SiLU", "SiLU", true};
  grt_tensor* x = Input({1, b.h, b.w, b.k}, 13);
  ExpectSame(Graph(b), {{"x", x}}, {"e", "out"});
  grt_tensor_free(x);
}

const char kProjected[] = "projections computed inside their block's depthwise convolution";

// Block b's graph against its unfused run at 1, 2 and 4 threads and
// batches 1 and 3 (inputs from seeds x_seed and r_seed, plus the batch),
// the projection taken into one _FusedExpandDepthwise with no
// _FusedConv2D left; the optimized graph for further checks.
Optimized ExpectProjectedInOneNode(const Block& b, uint32_t x_seed, uint32_t r_seed) {
  std::string text = Graph(b);
  int64_t oh = (b.h + b.stride - 1) / b.stride, ow = (b.w + b.stride - 1) / b.stride;
  for (int64_t batch : {1, 3}) {
    grt_tensor* x = Input({batch, b.h, b.w, b.k}, x_seed + (uint32_t)batch);
    grt_tensor* x2 = Input({batch, oh, ow, b.p}, r_seed + (uint32_t)batch);
    std::vector<std::pair<std::string, grt_tensor*>> feeds = {{"x", x}};
    if (b.residual == "r") feeds.push_back({"x2", x2});
    for (const char* threads : {"1", "2", "4"}) {
      Result r =
          ExpectSame(text, feeds, {"out"}, 1e-5f, {std::string("intra_op_threads=") + threads});
      EXPECT_NE(r.report.find(kProjected), std::string::npos) << r.report;
    }
    grt_tensor_free(x);
    grt_tensor_free(x2);
  }
  Optimized o = Optimize(text);
  EXPECT_EQ(o.count["_FusedExpandDepthwise"], 1) << o.json;
  EXPECT_EQ(o.count["_FusedConv2D"], 0) << o.json;
  return o;
}

// The block's projection taken in: without and with a residual (the
// block's input, which the fused node also expands; a value only the
// projection reads, whose buffer the output takes), with an activation,
// at 1, 2 and 4 threads and batches 1 and 3.
TEST(DepthwiseProject, TheBlockRunsAsOneNode) {
  const Block blocks[] = {
      {17, 16, 16, 96, 3, 2, "Relu6", "Relu6", false, false, 24},  // mobilenet_v2's third block
      {14, 13, 24, 144, 3, 1, "Relu6", "Relu6", false, false, 24, "x"},
      {9, 10, 32, 192, 3, 1, "Relu6", "Relu6", false, false, 32, "r"},
      {12, 11, 8, 40, 5, 1, "SiLU", "SiLU", false, false, 20, "", "Relu"},
      {7, 6, 16, 48, 3, 1, "", "", false, false, 16, "x", "Relu6"},
  };
  for (const Block& b : blocks) {
    SCOPED_TRACE(Name(b));
    ExpectProjectedInOneNode(b, 5, 9);
  }
}

// A depthwise output something else reads, a projection filter larger
// than the kernel takes, a block whose expansion is not fused (40 input
// channels), and the pass switched off: the projection stays its own node.
TEST(DepthwiseProject, LeftWhereItDoesNotApply) {
  Block big{8, 8, 16, 192, 3, 1, "Relu6", "Relu6", false, false, 96};
  Block deep{8, 8, 40, 96, 3, 1, "Relu6", "Relu6", false, false, 24};
  Block off{8, 8, 16, 96, 3, 1, "Relu6", "Relu6", false, false, 24};
  Block shared = off;
  shared.dw_shared = true;
  struct {
    const char* what;
    Block b;
    std::vector<std::string> options;
    std::vector<std::string> fetch;
  } cases[] = {{"depthwise output read twice", shared, {}, {"out", "other_y"}},
               {"192 x 96 filter", big, {}, {"out"}},
               {"expansion not fused", deep, {}, {"out"}},
               {"switched off", off, {"optimizer_off=depthwise_project"}, {"out"}}};
  for (auto& c : cases) {
    SCOPED_TRACE(c.what);
    std::string text = Graph(c.b);
    grt_tensor* x = Input({2, c.b.h, c.b.w, c.b.k}, 11);
    Result r = ExpectSame(text, {{"x", x}}, c.fetch, 1e-5f, c.options);
    EXPECT_EQ(r.report.find(kProjected), std::string::npos) << r.report;
    grt_tensor_free(x);
  }
}

// A block without an expansion (mobilenet_v2's first: 3x3 on 32 channels,
// projected to 16), with and without a residual: the depthwise convolution
// and the projection as one _FusedExpandDepthwise (num_expand 0); one of
// 48 channels is left as it is (kTypes' max_plain_c).
TEST(DepthwiseProject, ABlockWithoutExpansion) {
  Block plain{20, 19, 32, 32, 3, 1, "", "Relu6", false, false, 16};
  plain.expand = false;
  Block residual{9, 8, 24, 24, 5, 2, "", "Relu", false, false, 12, "r", "Relu6"};
  residual.expand = false;
  for (const Block& b : {plain, residual}) {
    SCOPED_TRACE(Name(b));
    Optimized o = ExpectProjectedInOneNode(b, 15, 19);
    EXPECT_EQ(o.count["_FusedDepthwiseConv2dNative"], 0) << o.json;
    EXPECT_NE(o.json.find(R"("num_expand":0)"), std::string::npos) << o.json;
  }
  Block wide{8, 8, 48, 48, 3, 1, "", "Relu6", false, false, 16};
  wide.expand = false;
  grt_tensor* x = Input({2, wide.h, wide.w, wide.k}, 23);
  Result r = ExpectSame(Graph(wide), {{"x", x}}, {"out"}, 1e-5f);
  EXPECT_EQ(r.report.find(kProjected), std::string::npos) << r.report;
  grt_tensor_free(x);
}

// Fetching the depthwise output, which the fused node does not give, runs
// the step as written, with the same values.
TEST(DepthwiseProject, FetchingTheDepthwiseOutput) {
  Block b{10, 9, 16, 32, 3, 1, "Relu6", "Relu6", false, false, 16, "x"};
  grt_tensor* x = Input({1, b.h, b.w, b.k}, 13);
  ExpectSame(Graph(b), {{"x", x}}, {"y", "out"});
  grt_tensor_free(x);
}

}  // namespace
