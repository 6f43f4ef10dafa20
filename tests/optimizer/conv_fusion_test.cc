// The conv_fusion pass (optimizer/pass_conv_fusion.c) and the fused
// convolution kernels (backends/cpu/conv_fused.c): each graph runs with the
// optimizer and without (rewrite=false, the ops as written), and the
// optimized graph's shape is checked through grt_graph_optimize.
#include <gtest/gtest.h>

#include "tests/optimizer/conv_test_util.h"

namespace {

using namespace convtest;

// x [2,6,6,3] NHWC -> Conv2D 3x3 (3->4) -> BiasAdd -> (+ residual r) -> tail.
std::string ConvGraph(const std::string& tail_nodes, bool depthwise = false,
                      const char* batch = "-1") {
  std::string op = depthwise ? "DepthwiseConv2dNative" : "Conv2D";
  std::vector<int64_t> fshape =
      depthwise ? std::vector<int64_t>{3, 3, 3, 1} : std::vector<int64_t>{3, 3, 3, 4};
  int64_t oc = depthwise ? 3 : 4;
  return Graph(
      std::string(R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[)") +
      batch + ",6,6,3]}},\n" + Const("w", fshape, 1) + Const("b", {oc}, 2) +
      R"({"name":"conv","op":")" + op +
      R"(","inputs":["x","w"],"attrs":{"strides":[1,1,1,1],"padding":"SAME"}},)"
      "\n"
      R"({"name":"bias","op":"BiasAdd","inputs":["conv","b"]},)"
      "\n" +
      tail_nodes);
}

// An Add whose other operand broadcasts ([1, 6, 1, 4] against the
// convolution's [2, 6, 6, 4]) is not a residual: the fused kernel adds a
// tensor of the output's shape. The bias and activation still fuse around
// it only where they touch the convolution. (Fusing it as a residual passed
// the other tests.)
TEST(ConvFusion, BroadcastAddendIsNotAResidual) {
  std::string text = ConvGraph(Const("r", {1, 6, 1, 4}, 3) +
                                   R"({"name":"sum","op":"AddV2","inputs":["bias","r"]},
         {"name":"y","op":"Relu","inputs":["sum"]})",
                               false, "2");
  grt_tensor* x = Input({2, 6, 6, 3}, 7);
  Result r = ExpectSame(text, {{"x", x}}, {"y"});
  EXPECT_NE(r.report.find("1 convolutions fused (0 with a residual Add, 0 with an activation)"),
            std::string::npos)
      << r.report;
  Optimized o = Optimize(text);
  EXPECT_EQ(o.op["y"], "Relu") << o.json;
  EXPECT_EQ(o.op["sum"], "AddV2") << o.json;
  grt_tensor_free(x);
}

TEST(ConvFusion, BiasResidualRelu) {
  std::string text = ConvGraph(Const("r", {2, 6, 6, 4}, 3) +
                                   R"({"name":"sum","op":"AddV2","inputs":["bias","r"]},
         {"name":"y","op":"Relu","inputs":["sum"]})",
                               false, "2");
  grt_tensor* x = Input({2, 6, 6, 3}, 7);
  Result r = ExpectSame(text, {{"x", x}}, {"y"});
  EXPECT_NE(r.report.find("1 convolutions fused (1 with a residual Add, 1 with an activation)"),
            std::string::npos)
      << r.report;
  Optimized o = Optimize(text);
  EXPECT_EQ(o.op["y"], "_FusedConv2D") << o.json;
  EXPECT_EQ(o.count["BiasAdd"] + o.count["AddV2"] + o.count["Relu"] + o.count["Conv2D"], 0)
      << o.json;
  EXPECT_NE(o.json.find(R"("fused_ops":["BiasAdd","Add","Relu"])"), std::string::npos) << o.json;
  // A swallowed intermediate is fetched: the run falls back to the graph as
  // written and still gets it.
  Result both = ExpectSame(text, {{"x", x}}, {"bias", "y"});
  EXPECT_EQ(both.error, "");
  // Feeding the swallowed BiasAdd: the result is relu(fed + r).
  grt_tensor* fed = Input({2, 6, 6, 4}, 9);
  Result f = ExpectSame(text, {{"bias", fed}}, {"y"});
  ASSERT_EQ(f.out.size(), 1u);
  Result plain = RunGraph(text, {"rewrite=false"}, {{"bias", fed}}, {"r"});
  ASSERT_EQ(plain.out.size(), 1u);
  const float* fv = (const float*)grt_tensor_data(fed);
  for (size_t i = 0; i < f.out[0].size(); i++)
    ASSERT_FLOAT_EQ(f.out[0][i], std::fmax(fv[i] + plain.out[0][i], 0.0f));
  grt_tensor_free(fed);
  grt_tensor_free(x);
}

// The activations grt's graphs can spell (grt registers no Relu6, Elu or
// LeakyRelu op; the ONNX importer writes Clip as Maximum/Minimum), after
// Conv2D and DepthwiseConv2dNative, against the unfused ops (oneDNN's
// post-ops are the reference's formulas within float rounding).
struct ActCase {
  const char* name;
  std::string nodes;  // reading "bias", ending in "y"
  const char* fused;  // the fused_ops tail
};

std::vector<ActCase> Acts() {
  return {
      {"relu", R"({"name":"y","op":"Relu","inputs":["bias"]})", "Relu"},
      {"clip06",
       Scalar("zero", 0) + Scalar("six", 6) +
           R"({"name":"lo","op":"Maximum","inputs":["bias","zero"]},
              {"name":"y","op":"Minimum","inputs":["lo","six"]})",
       "Relu6"},
      {"max0", Scalar("zero", 0) + R"({"name":"y","op":"Maximum","inputs":["zero","bias"]})",
       "Relu"},
      {"sigmoid", R"({"name":"y","op":"Sigmoid","inputs":["bias"]})", "Sigmoid"},
      {"tanh", R"({"name":"y","op":"Tanh","inputs":["bias"]})", "Tanh"},
      {"swish",
       R"({"name":"s","op":"Sigmoid","inputs":["bias"]},
          {"name":"y","op":"Mul","inputs":["bias","s"]})",
       "_Swish"},
      {"hardswish",
       Scalar("a", 1.0f / 6.0f) + Scalar("h", 0.5f) + Scalar("one", 1) + Scalar("zero", 0) +
           R"({"name":"ax","op":"Mul","inputs":["a","bias"]},
              {"name":"lin","op":"AddV2","inputs":["ax","h"]},
              {"name":"lo","op":"Minimum","inputs":["lin","one"]},
              {"name":"hs","op":"Maximum","inputs":["lo","zero"]},
              {"name":"y","op":"Mul","inputs":["bias","hs"]})",
       "_HardSwish"},
  };
}

TEST(ConvFusion, Activations) {
  grt_tensor* x = Input({2, 6, 6, 3}, 11);
  for (bool dw : {false, true})
    for (const ActCase& a : Acts()) {
      SCOPED_TRACE(std::string(a.name) + (dw ? " depthwise" : ""));
      std::string text = ConvGraph(a.nodes, dw);
      ExpectSame(text, {{"x", x}}, {"y"}, 2e-5f);
      Optimized o = Optimize(text);
      EXPECT_EQ(o.op["y"], dw ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D") << o.json;
      EXPECT_NE(o.json.find(std::string(R"("fused_ops":["BiasAdd",")") + a.fused + "\"]"),
                std::string::npos)
          << o.json;
      EXPECT_EQ(o.count["Conv2D"] + o.count["DepthwiseConv2dNative"] + o.count["BiasAdd"], 0);
    }
  grt_tensor_free(x);
}

// Sigmoid and SiLU run as grt's rows over oneDNN's output, split across the
// convolution's team (backends/cpu/conv_fused.c): a batch large enough for
// the rows (2^16 outputs) and a team of two, an output whose length is no
// multiple of 16, and a residual Add before the activation (oneDNN's sum
// post-op, then the rows).
TEST(ConvFusion, ActivationRowsAcrossTheTeam) {
  const int64_t n = 613;  // 613 x 6 x 6 x 3 outputs: over 2^16, and 2^20 multiply-adds
  grt_tensor* x = Input({n, 6, 6, 3}, 5);
  for (bool dw : {false, true})
    for (const char* act : {"Sigmoid", "swish"}) {
      SCOPED_TRACE(std::string(act) + (dw ? " depthwise" : ""));
      std::string tail = std::string(act) == "Sigmoid"
                             ? R"({"name":"y","op":"Sigmoid","inputs":["sum"]})"
                             : R"({"name":"s","op":"Sigmoid","inputs":["sum"]},
                                  {"name":"y","op":"Mul","inputs":["sum","s"]})";
      std::string text =
          ConvGraph(Const("r", {n, 6, 6, dw ? 3 : 4}, 3) +
                        R"({"name":"sum","op":"AddV2","inputs":["bias","r"]},)" + tail,
                    dw, std::to_string(n).c_str());
      Result r = ExpectSame(text, {{"x", x}}, {"y"}, 2e-5f, {"intra_op_threads=2"});
      EXPECT_NE(r.report.find("1 with a residual Add, 1 with an activation"), std::string::npos)
          << r.report;
    }
  grt_tensor_free(x);
}

// An intermediate with a second reader stays: nothing fuses past it.
TEST(ConvFusion, SharedIntermediateStops) {
  std::string text = ConvGraph(
      R"({"name":"y","op":"Relu","inputs":["bias"]},
         {"name":"z","op":"Neg","inputs":["bias"]})");
  grt_tensor* x = Input({1, 6, 6, 3}, 5);
  ExpectSame(text, {{"x", x}}, {"y", "z"});
  Optimized o = Optimize(text);
  EXPECT_EQ(o.op["bias"], "_FusedConv2D") << o.json;
  EXPECT_EQ(o.op["y"], "Relu");
  EXPECT_NE(o.json.find(R"("fused_ops":["BiasAdd"])"), std::string::npos) << o.json;
  grt_tensor_free(x);
}

// Without a BiasAdd, a Conv2D + Relu fuses with a zero bias made for it;
// switched off by name, nothing fuses.
TEST(ConvFusion, NoBiasAndSwitch) {
  std::string text = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,5,5,2]}},)"
      "\n" +
      Const("w", {1, 1, 2, 3}, 4) +
      R"({"name":"conv","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,2,2,1],"padding":"VALID"}},
         {"name":"y","op":"Relu","inputs":["conv"]})");
  grt_tensor* x = Input({3, 5, 5, 2}, 8);
  ExpectSame(text, {{"x", x}}, {"y"});
  EXPECT_EQ(Optimize(text).op["y"], "_FusedConv2D");
  Optimized off = Optimize(text, {"optimizer_off=conv_fusion"});
  EXPECT_EQ(off.op["y"], "Relu");
  EXPECT_EQ(off.count["_FusedConv2D"], 0);
  grt_tensor_free(x);
}

// The kernel's own checks: a residual of the wrong shape is an error naming
// both shapes, not a crash.
TEST(ConvFusion, KernelRejectsBadResidual) {
  std::string text =
      Graph(R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[1,4,4,2]}},)"
            "\n" +
            Const("w", {1, 1, 2, 2}, 4) + Const("b", {2}, 5) + Const("r", {1, 4, 4, 3}, 6) +
            R"({"name":"y","op":"_FusedConv2D","inputs":["x","w","b","r"],"attrs":{"T":"float32",
          "strides":[1,1,1,1],"padding":"VALID","num_args":2,"fused_ops":["BiasAdd","Add"]}})");
  grt_tensor* x = Input({1, 4, 4, 2}, 1);
  Result r = RunGraph(text, {}, {{"x", x}}, {"y"});
  EXPECT_NE(r.error.find("residual has shape [1,4,4,3]"), std::string::npos) << r.error;
  grt_tensor_free(x);
}

}  // namespace

namespace {

using namespace convtest;

// bn_fold then conv_fusion: the ONNX importer's inference BatchNormalization
// ((x - mean) * rsqrt(var + eps) * scale + bias over [C,1,1] reshapes)
// after an NCHW Conv2D whose filter is a Transpose of a Const (OIHW ->
// HWIO) folds into the filter and a bias; the Relu then fuses.
TEST(BnFold, ImporterBatchNormAfterNchwConv) {
  std::string text = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,3,6,6]}},)"
      "\n" +
      Const("w_oihw", {4, 3, 3, 3}, 1) + IntConst("perm", {4}, "2,3,1,0") + Const("b", {4}, 2) +
      Const("mean", {4}, 3) + Const("scale", {4}, 5) + Const("offset", {4}, 6) +
      R"({"name":"var","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[4],"values":[0.5,1.5,2.0,0.25]}}},)"
      "\n" +
      IntConst("c11", {3}, "-1,1,1") + Scalar("eps", 1e-5f) +
      R"({"name":"w","op":"Transpose","inputs":["w_oihw","perm"]},
         {"name":"conv","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,1,1,1],"padding":"SAME","data_format":"NCHW"}},
         {"name":"bias","op":"BiasAdd","inputs":["conv","b"],"attrs":{"data_format":"NCHW"}},
         {"name":"rm","op":"Reshape","inputs":["mean","c11"]},
         {"name":"rv","op":"Reshape","inputs":["var","c11"]},
         {"name":"rs","op":"Reshape","inputs":["scale","c11"]},
         {"name":"ro","op":"Reshape","inputs":["offset","c11"]},
         {"name":"ve","op":"AddV2","inputs":["rv","eps"]},
         {"name":"inv","op":"Rsqrt","inputs":["ve"]},
         {"name":"centered","op":"Sub","inputs":["bias","rm"]},
         {"name":"normalized","op":"Mul","inputs":["centered","inv"]},
         {"name":"scaled","op":"Mul","inputs":["normalized","rs"]},
         {"name":"bn","op":"AddV2","inputs":["scaled","ro"]},
         {"name":"y","op":"Relu","inputs":["bn"]})");
  grt_tensor* x = Input({2, 3, 6, 6}, 4);
  Result r = ExpectSame(text, {{"x", x}}, {"y"}, 2e-5f);
  EXPECT_NE(r.report.find("1 scale/shift chains folded"), std::string::npos) << r.report;
  Optimized o = Optimize(text);
  EXPECT_EQ(o.count["Mul"] + o.count["Sub"] + o.count["Rsqrt"] + o.count["Conv2D"], 0) << o.json;
  EXPECT_EQ(o.count["_FusedConv2D"], 1) << o.json;
  // The batch norm's own output is still there to fetch (fallback).
  ExpectSame(text, {{"x", x}}, {"bn", "centered"}, 2e-5f);
  grt_tensor_free(x);
}

// FusedBatchNormV3 at inference after an NHWC depthwise convolution.
TEST(BnFold, FusedBatchNormV3AfterDepthwise) {
  std::string text = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,5,5,3]}},)"
      "\n" +
      Const("w", {3, 3, 3, 2}, 1) + Const("scale", {6}, 2) + Const("offset", {6}, 3) +
      Const("mean", {6}, 4) +
      R"({"name":"var","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[6],"values":[0.5,1.5,2.0,0.25,1,3]}}},
         {"name":"conv","op":"DepthwiseConv2dNative","inputs":["x","w"],"attrs":{"strides":[1,1,1,1],"padding":"VALID"}},
         {"name":"bn","op":"FusedBatchNormV3","inputs":["conv","scale","offset","mean","var"],
          "attrs":{"U":"float32","epsilon":0.001,"is_training":false}},
         {"name":"y","op":"Sigmoid","inputs":["bn"]})");
  grt_tensor* x = Input({2, 5, 5, 3}, 6);
  ExpectSame(text, {{"x", x}}, {"y"}, 2e-5f);
  Optimized o = Optimize(text);
  EXPECT_EQ(o.count["FusedBatchNormV3"], 0) << o.json;
  EXPECT_EQ(o.op["y"], "_FusedDepthwiseConv2dNative") << o.json;
  grt_tensor_free(x);
}

// The convolution on the right: k - conv folds (the scale's sign flips),
// k / conv does not (not affine in conv) and stays a RealDiv after the fold.
// (Folding k - conv as conv - k, or k / conv as conv / k, passed the tests
// above.)
TEST(BnFold, ConvOnTheRightOfSubFoldsOfRealDivStays) {
  std::string text = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[1,4,4,2]}},)"
      "\n" +
      Const("w", {1, 1, 2, 2}, 1) + Scalar("ten", 10.0f) + Const("k", {2}, 7) +
      Scalar("three", 3.0f) +
      R"({"name":"conv","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,1,1,1],"padding":"VALID"}},
         {"name":"d","op":"Sub","inputs":["ten","conv"]},
         {"name":"dk","op":"AddV2","inputs":["k","d"]},
         {"name":"y","op":"RealDiv","inputs":["three","dk"]})");
  grt_tensor* x = Input({1, 4, 4, 2}, 6);
  Result r = ExpectSame(text, {{"x", x}}, {"y", "dk"}, 2e-5f);
  EXPECT_NE(r.report.find("1 scale/shift chains folded"), std::string::npos) << r.report;
  Optimized o = Optimize(text);
  EXPECT_EQ(o.op["y"], "RealDiv") << o.json;
  EXPECT_EQ(o.count["Sub"], 0) << o.json;
  grt_tensor_free(x);
}

// FusedBatchNormV3 in training mode normalises by the batch's own
// statistics: not a per-channel constant, so it is not folded. (Folding it
// with its mean and variance inputs passed the tests above.)
TEST(BnFold, TrainingBatchNormStays) {
  std::string text = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2,4,4,2]}},)"
      "\n" +
      Const("w", {1, 1, 2, 2}, 1) + Const("scale", {2}, 2) + Const("offset", {2}, 3) +
      Const("mean", {2}, 4) +
      R"({"name":"var","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2],"values":[0.5,1.5]}}},
         {"name":"conv","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,1,1,1],"padding":"VALID"}},
         {"name":"bn","op":"FusedBatchNormV3","inputs":["conv","scale","offset","mean","var"],
          "attrs":{"U":"float32","epsilon":0.001,"is_training":true}},
         {"name":"y","op":"Relu","inputs":["bn"]})");
  grt_tensor* x = Input({2, 4, 4, 2}, 6);
  Result r = ExpectSame(text, {{"x", x}}, {"y"}, 2e-5f);
  EXPECT_EQ(r.report.find("folded into"), std::string::npos) << r.report;
  Optimized o = Optimize(text);
  EXPECT_EQ(o.count["FusedBatchNormV3"], 1) << o.json;
  grt_tensor_free(x);
}

// A scale that is not constant (fed) is not folded; nor is a chain past a
// value read twice.
TEST(BnFold, NonConstantScaleStays) {
  std::string text = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[1,4,4,2]}},
         {"name":"s","op":"Placeholder","attrs":{"dtype":"float32","shape":[2]}},)"
      "\n" +
      Const("w", {1, 1, 2, 2}, 1) +
      R"({"name":"conv","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,1,1,1],"padding":"VALID"}},
         {"name":"y","op":"Mul","inputs":["conv","s"]})");
  grt_tensor* x = Input({1, 4, 4, 2}, 6);
  grt_tensor* s = Input({2}, 2);
  ExpectSame(text, {{"x", x}, {"s", s}}, {"y"});
  Optimized o = Optimize(text);
  EXPECT_EQ(o.op["y"], "Mul");
  EXPECT_EQ(o.report.find("folded into"), std::string::npos) << o.report;
  grt_tensor_free(x);
  grt_tensor_free(s);
}

}  // namespace
