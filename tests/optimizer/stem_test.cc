// The stem pass (optimizer/pass_stem.c): after layout and conv_fusion, a
// CNN's first convolution on the CPU reads its NCHW image in place
// (_FusedConv2D with input_data_format NCHW, run by grt's stem kernel)
// instead of a Transpose of it to NHWC. Each graph runs with the
// optimizer and without (rewrite=false), and the optimized graph is
// checked through grt_graph_optimize. Without the pass (optimizer_off=stem,
// as before it existed) the Transpose of x is there: the tests below that
// count it fail.
#include <gtest/gtest.h>

#include "tests/optimizer/conv_test_util.h"

namespace {

using namespace convtest;

// x [-1,C,15,14] NCHW -> Conv2D kxk stride 2 (C->20, dilation d) ->
// BiasAdd -> Relu -> MaxPool 3x3 stride 2 -> y (NCHW).
std::string Net(int64_t c, int64_t k, int64_t d) {
  std::string dil = "[1,1," + std::to_string(d) + "," + std::to_string(d) + "]";
  return Graph(R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,)" +
               std::to_string(c) + R"(,15,14]}},)" + "\n" + Const("w", {k, k, c, 20}, 1) +
               Const("b", {20}, 2) +
               R"({"name":"conv","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,1,2,2],
          "padding":"SAME","data_format":"NCHW","dilations":)" +
               dil + R"(}},
         {"name":"bias","op":"BiasAdd","inputs":["conv","b"],"attrs":{"data_format":"NCHW"}},
         {"name":"relu","op":"Relu","inputs":["bias"]},
         {"name":"y","op":"MaxPool","inputs":["relu"],"attrs":{"ksize":[1,1,3,3],
          "strides":[1,1,2,2],"padding":"SAME","data_format":"NCHW"}})");
}

TEST(Stem, FirstConvolutionReadsNchw) {
  for (int64_t k : {7, 3}) {
    SCOPED_TRACE("window " + std::to_string(k));
    std::string text = Net(3, k, 1);
    for (int64_t batch : {1, 3}) {
      grt_tensor* x = Input({batch, 3, 15, 14}, 5 + (uint32_t)batch);
      Result r = ExpectSame(text, {{"x", x}}, {"y", "relu"});
      EXPECT_NE(r.report.find("read their NCHW input in place"), std::string::npos) << r.report;
      grt_tensor_free(x);
    }
    Optimized o = Optimize(text);
    EXPECT_NE(o.json.find(R"("input_data_format":"NCHW")"), std::string::npos) << o.json;
    // The only Transpose left is y's way back to NCHW: x is read as it is.
    EXPECT_EQ(o.count["Transpose"], 1) << o.json;
    EXPECT_EQ(o.op["y"], "Transpose") << o.json;
    EXPECT_EQ(o.count["_FusedConv2D"], 1) << o.json;
  }
}

TEST(Stem, OffKeepsTheTranspose) {
  std::string text = Net(3, 7, 1);
  grt_tensor* x = Input({2, 3, 15, 14}, 9);
  ExpectSame(text, {{"x", x}}, {"y"}, 1e-5f, {"optimizer_off=stem"});
  grt_tensor_free(x);
  Optimized o = Optimize(text, {"optimizer_off=stem"});
  EXPECT_EQ(o.json.find("input_data_format"), std::string::npos) << o.json;
  EXPECT_EQ(o.count["Transpose"], 2) << o.json;  // x's to NHWC, y's back
}

// More input channels than the kernel takes, and a dilation, keep the
// Transpose and oneDNN; the results match either way.
TEST(Stem, LeavesWhatTheKernelDoesNotRun) {
  struct {
    int64_t c, d;
  } cases[] = {{5, 1}, {3, 2}};
  for (auto& cs : cases) {
    SCOPED_TRACE("channels " + std::to_string(cs.c) + " dilation " + std::to_string(cs.d));
    std::string text = Net(cs.c, 3, cs.d);
    grt_tensor* x = Input({2, cs.c, 15, 14}, 11);
    ExpectSame(text, {{"x", x}}, {"y"});
    grt_tensor_free(x);
    Optimized o = Optimize(text);
    EXPECT_EQ(o.json.find("input_data_format"), std::string::npos) << o.json;
    EXPECT_EQ(o.count["Transpose"], 2) << o.json;
  }
}

// A Transpose written in the graph (x to NHWC, then an NHWC convolution)
// is bypassed the same way; here something else (z) reads it too, so it
// stays. Feeding it by name still reaches the convolution: the optimizer
// marks it unsafe to feed, so the session runs such a step as written
// (without the mark the optimized graph's convolution reads x, which this
// run does not feed, and the run fails).
TEST(Stem, WrittenTransposeStillFeedable) {
  std::string text =
      Graph(R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,2,11,9]}},)"
            "\n" +
            Const("w", {3, 3, 2, 24}, 3) + Const("b", {24}, 4) + IntConst("perm", {4}, "0,2,3,1") +
            R"({"name":"t","op":"Transpose","inputs":["x","perm"]},
         {"name":"conv","op":"Conv2D","inputs":["t","w"],"attrs":{"strides":[1,2,2,1],
          "padding":"SAME","data_format":"NHWC"}},
         {"name":"bias","op":"BiasAdd","inputs":["conv","b"]},
         {"name":"y","op":"Relu","inputs":["bias"]},
         {"name":"z","op":"Relu","inputs":["t"]})");
  grt_tensor* x = Input({2, 2, 11, 9}, 21);
  Result r = ExpectSame(text, {{"x", x}}, {"y", "z"});
  EXPECT_NE(r.report.find("read their NCHW input in place"), std::string::npos) << r.report;
  grt_tensor_free(x);
  Optimized o = Optimize(text);
  EXPECT_EQ(o.count["Transpose"], 1) << o.json;  // z's
  EXPECT_NE(o.json.find(R"("input_data_format":"NCHW")"), std::string::npos) << o.json;
  grt_tensor* t = Input({2, 11, 9, 2}, 22);
  ExpectSame(text, {{"t", t}}, {"y"});
  grt_tensor_free(t);
}

}  // namespace
