// The channel_mean pass (optimizer/pass_channel_mean.c) and the CPU
// kernel's num_means output (backends/cpu/conv_fused.c): a
// squeeze-excitation block's Mean over H and W of a depthwise convolution's
// output becomes that convolution's second output. Each graph runs with
// the optimizer and without (rewrite=false); the means differ only by the
// order of the sums.
#include <gtest/gtest.h>

#include "tests/optimizer/conv_test_util.h"

namespace {

using namespace convtest;

// x [-1,H,W,C] NHWC -> y = act(DepthwiseConv2dNative 3x3 SAME + b) ->
// m = Mean(y, axes, keep_dims) -> s = Sigmoid(m); out = y * s (the
// block's scale, which reads m). act "" for none, else "Relu" or the SiLU
// spelled y0 * Sigmoid(y0).
std::string Block(int64_t h, int64_t w, int64_t c, const std::string& act,
                  const std::string& axes = "1,2") {
  std::string nodes = R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,)" +
                      std::to_string(h) + "," + std::to_string(w) + "," + std::to_string(c) +
                      R"(]}},)" + "\n" + Const("w", {3, 3, c, 1}, 1) + Const("b", {c}, 2) +
                      IntConst("axes", {2}, axes) +
                      R"({"name":"dw","op":"DepthwiseConv2dNative","inputs":["x","w"],"attrs":{
          "strides":[1,1,1,1],"padding":"SAME","data_format":"NHWC"}},
         {"name":"y0","op":"BiasAdd","inputs":["dw","b"]},)";
  if (act == "SiLU")
    nodes += R"({"name":"g","op":"Sigmoid","inputs":["y0"]},
         {"name":"y","op":"Mul","inputs":["y0","g"]},)";
  else if (act == "Relu")
    nodes += R"({"name":"y","op":"Relu","inputs":["y0"]},)";
  else
    nodes += R"({"name":"y","op":"Identity","inputs":["y0"]},)";
  nodes += R"({"name":"m","op":"Mean","inputs":["y","axes"],"attrs":{"keep_dims":true}},
         {"name":"s","op":"Sigmoid","inputs":["m"]},
         {"name":"out","op":"Mul","inputs":["y","s"]})";
  return Graph(nodes);
}

const char kTaken[] = "give their channel means";

TEST(ChannelMean, TheDepthwiseConvolutionGivesTheMeans) {
  struct {
    int64_t h, w, c;
    const char* act;
  } cases[] = {
      {64, 40, 32, "SiLU"},  // 81920 outputs a batch element: grt's rows, sums on the way
      {9, 7, 24, "SiLU"},    // under 2^16 outputs: grt's rows all the same, with the sums
      {16, 15, 12, "Relu"},
      {16, 15, 12, ""},
  };
  for (auto& cs : cases) {
    SCOPED_TRACE(std::to_string(cs.h) + "x" + std::to_string(cs.w) + "x" + std::to_string(cs.c) +
                 " " + cs.act);
    std::string text = Block(cs.h, cs.w, cs.c, cs.act);
    for (int64_t batch : {1, 3}) {
      grt_tensor* x = Input({batch, cs.h, cs.w, cs.c}, 3 + (uint32_t)batch);
      Result r = ExpectSame(text, {{"x", x}}, {"out", "y"});
      EXPECT_NE(r.report.find(kTaken), std::string::npos) << r.report;
      grt_tensor_free(x);
    }
    Optimized o = Optimize(text);
    EXPECT_EQ(o.count["Mean"], 0) << o.json;
    EXPECT_NE(o.json.find(R"("num_means":1)"), std::string::npos) << o.json;
  }
}

// Negative axes name the same dimensions.
TEST(ChannelMean, NegativeAxes) {
  std::string text = Block(16, 15, 12, "SiLU", "-2,-3");
  grt_tensor* x = Input({2, 16, 15, 12}, 8);
  Result r = ExpectSame(text, {{"x", x}}, {"out"});
  EXPECT_NE(r.report.find(kTaken), std::string::npos) << r.report;
  grt_tensor_free(x);
}

// A Mean over other axes, a Mean that is the model's output (nothing reads
// it), and the pass switched off: the Mean stays; fetching a Mean the pass
// took still gives its value (the session runs such a step as written).
TEST(ChannelMean, LeftWhereItDoesNotApply) {
  grt_tensor* x = Input({2, 16, 15, 12}, 9);
  {
    SCOPED_TRACE("axes 1 and 3");
    std::string text = Block(16, 15, 12, "SiLU", "1,3");
    Result r = ExpectSame(text, {{"x", x}}, {"out"});
    EXPECT_EQ(r.report.find(kTaken), std::string::npos) << r.report;
    EXPECT_EQ(Optimize(text).count["Mean"], 1);
  }
  {
    SCOPED_TRACE("switched off");
    std::string text = Block(16, 15, 12, "SiLU");
    ExpectSame(text, {{"x", x}}, {"out"}, 1e-5f, {"optimizer_off=channel_mean"});
    EXPECT_EQ(Optimize(text, {"optimizer_off=channel_mean"}).count["Mean"], 1);
  }
  {
    SCOPED_TRACE("the model's output");
    std::string text = Graph(
        R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,16,15,12]}},)" +
        std::string("\n") + Const("w", {3, 3, 12, 1}, 1) + Const("b", {12}, 2) +
        IntConst("axes", {2}, "1,2") +
        R"({"name":"dw","op":"DepthwiseConv2dNative","inputs":["x","w"],"attrs":{
          "strides":[1,1,1,1],"padding":"SAME","data_format":"NHWC"}},
         {"name":"y","op":"BiasAdd","inputs":["dw","b"]},
         {"name":"m","op":"Mean","inputs":["y","axes"],"attrs":{"keep_dims":true}})");
    ExpectSame(text, {{"x", x}}, {"m"});
    EXPECT_EQ(Optimize(text).count["Mean"], 1);
  }
  {
    SCOPED_TRACE("fetching the Mean the pass took");
    ExpectSame(Block(16, 15, 12, "SiLU"), {{"x", x}}, {"m", "out"});
  }
  grt_tensor_free(x);
}

// num_means other than 0 and 1, or 1 on an NCHW convolution, is refused by
// the kernel with a message naming it.
TEST(ChannelMean, BadNumMeansIsRefused) {
  struct {
    int64_t num_means;
    const char* format;
    std::vector<int64_t> x;
  } cases[] = {{2, "NHWC", {1, 6, 5, 4}}, {1, "NCHW", {1, 4, 6, 5}}};
  for (auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.num_means) + " " + c.format);
    std::string text =
        Graph(R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":)" + Shape(c.x) +
              R"(}},)" + "\n" + Const("w", {3, 3, 4, 1}, 1) + Const("b", {4}, 2) +
              R"({"name":"y","op":"_FusedDepthwiseConv2dNative","inputs":["x","w","b"],"attrs":{
          "T":"float32","strides":[1,1,1,1],"padding":"SAME","data_format":")" +
              c.format + R"(","fused_ops":["BiasAdd"],"num_args":1,"num_means":)" +
              std::to_string(c.num_means) + "}}");
    grt_tensor* x = Input(c.x, 3);
    Result r = RunGraph(text, {"rewrite=false"}, {{"x", x}}, {"y"});
    EXPECT_NE(r.error.find("_FusedDepthwiseConv2dNative: num_means " + std::to_string(c.num_means)),
              std::string::npos)
        << r.error;
    grt_tensor_free(x);
  }
}

}  // namespace
