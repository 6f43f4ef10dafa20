// The input_scale pass (optimizer/pass_input_scale.c) and the CPU kernel's
// _InputScale (backends/cpu/conv_fused.c): a squeeze-excitation block's
// Mul(x, s[N,1,1,C]) before a convolution becomes the convolution's first
// arg, and each batch element runs with its filter scaled by its s. Each
// graph runs with the optimizer and without (rewrite=false); the results
// differ only by the order of the products (x*s*w against x*(s*w)).
#include <gtest/gtest.h>

#include "tests/optimizer/conv_test_util.h"

namespace {

using namespace convtest;

// x [-1,16,15,C] NHWC -> s = Sigmoid(Mean(x over H, W)) [N,1,1,C]; y =
// Relu(Conv2D(x * s, w [k,k,C,OC], stride) + b) (+ x when residual); z =
// Relu(x * s) when `second_use` (the Mul read twice).
std::string Block(int64_t k, int64_t stride, int64_t oc, bool residual, bool second_use,
                  int64_t h = 16, int64_t w = 15) {
  const int64_t c = 12;
  std::string st = std::to_string(stride);
  std::string nodes = R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,)" +
                      std::to_string(h) + "," + std::to_string(w) + "," + std::to_string(c) +
                      R"(]}},)" + "\n" + IntConst("axes", {2}, "1,2") +
                      R"({"name":"m","op":"Mean","inputs":["x","axes"],"attrs":{"keep_dims":true}},
         {"name":"s","op":"Sigmoid","inputs":["m"]},
         {"name":"xs","op":"Mul","inputs":["x","s"]},)" +
                      "\n" + Const("w", {k, k, c, oc}, 1) + Const("b", {oc}, 2) +
                      R"({"name":"conv","op":"Conv2D","inputs":["xs","w"],"attrs":{"strides":[1,)" +
                      st + "," + st + R"(,1],"padding":"SAME","data_format":"NHWC"}},
         {"name":"bias","op":"BiasAdd","inputs":["conv","b"]},)";
  if (residual) {
    nodes += R"({"name":"sum","op":"AddV2","inputs":["bias","x"]},
         {"name":"y","op":"Relu","inputs":["sum"]})";
  } else {
    nodes += R"({"name":"y","op":"Relu","inputs":["bias"]})";
  }
  if (second_use) nodes += R"(,{"name":"z","op":"Relu","inputs":["xs"]})";
  return Graph(nodes);
}

const char kTaken[] = "take their input's channel scale";

TEST(InputScale, TheScaleGoesIntoTheFilter) {
  struct {
    int64_t k, stride, oc;
    bool residual;
  } cases[] = {{1, 1, 8, false}, {3, 2, 8, false}, {1, 1, 12, true}};
  for (auto& cs : cases) {
    SCOPED_TRACE("window " + std::to_string(cs.k) + " stride " + std::to_string(cs.stride) +
                 (cs.residual ? " with a residual" : ""));
    std::string text = Block(cs.k, cs.stride, cs.oc, cs.residual, false);
    for (int64_t batch : {1, 3}) {
      grt_tensor* x = Input({batch, 16, 15, 12}, 7 + (uint32_t)batch);
      Result r = ExpectSame(text, {{"x", x}}, {"y"});
      EXPECT_NE(r.report.find(kTaken), std::string::npos) << r.report;
      grt_tensor_free(x);
    }
    Optimized o = Optimize(text);
    EXPECT_EQ(o.count["Mul"], 0) << o.json;
    EXPECT_NE(o.json.find(R"("fused_ops":["_InputScale","BiasAdd")"), std::string::npos) << o.json;
  }
}

// The Mul read by something else too, a filter too large for the input's
// few positions, and the pass switched off: the Mul stays, the results
// are the same.
TEST(InputScale, LeftWhereItDoesNotPay) {
  struct {
    const char* what;
    std::string text;
    std::vector<std::string> options;
    std::vector<int64_t> dims;
  } cases[] = {
      {"a second use", Block(1, 1, 8, false, true), {}, {2, 16, 15, 12}},
      {"few positions", Block(3, 1, 8, false, false, 3, 3), {}, {2, 3, 3, 12}},
      {"switched off",
       Block(1, 1, 8, false, false),
       {"optimizer_off=input_scale"},
       {2, 16, 15, 12}},
  };
  for (auto& cs : cases) {
    SCOPED_TRACE(cs.what);
    grt_tensor* x = Input(cs.dims, 17);
    std::vector<std::string> fetches = {"y"};
    if (std::string(cs.what) == "a second use") fetches.push_back("z");
    Result r = ExpectSame(cs.text, {{"x", x}}, fetches, 1e-5f, cs.options);
    EXPECT_EQ(r.report.find(kTaken), std::string::npos) << r.report;
    grt_tensor_free(x);
    Optimized o = Optimize(cs.text, cs.options);
    EXPECT_EQ(o.count["Mul"], 1) << o.json;
  }
}

// A scale whose shape is not the input's [N, 1, 1, C] is refused by the
// kernel, naming both shapes' roles.
TEST(InputScale, AScaleOfTheWrongShapeIsRefused) {
  std::string text = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2,4,4,3]}},
         {"name":"s","op":"Placeholder","attrs":{"dtype":"float32","shape":[2,1,1,5]}},)" +
      std::string("\n") + Const("w", {1, 1, 3, 4}, 1) + Const("b", {4}, 2) +
      R"({"name":"y","op":"_FusedConv2D","inputs":["x","w","s","b"],"attrs":{"T":"float32",
          "strides":[1,1,1,1],"padding":"VALID","fused_ops":["_InputScale","BiasAdd"],
          "num_args":2}})");
  grt_tensor* x = Input({2, 4, 4, 3}, 1);
  grt_tensor* s = Input({2, 1, 1, 5}, 2);
  Result r = RunGraph(text, {"rewrite=false"}, {{"x", x}, {"s", s}}, {"y"});
  EXPECT_NE(r.error.find("_InputScale takes an NHWC input of one group and a scale of shape [2, "
                         "1, 1, 3], got [2,1,1,5]"),
            std::string::npos)
      << r.error;
  grt_tensor_free(x);
  grt_tensor_free(s);
}

}  // namespace
