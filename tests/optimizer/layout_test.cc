// The layout pass (optimizer/pass_layout.c): NCHW chains run in NHWC on the
// CPU. Each graph runs with the optimizer and without (rewrite=false), and
// the optimized graph's shape is checked through grt_graph_optimize.
#include <gtest/gtest.h>

#include "tests/optimizer/conv_test_util.h"

namespace {

using namespace convtest;

// x [-1,3,7,7] NCHW -> Conv2D 3x3 stride 2 explicit padding (3->4) ->
// BiasAdd -> Relu -> * per-channel scale [4,1,1] -> MaxPool 2x2 ->
// Pad -> Mean over H,W (keep_dims as asked).
std::string Net(bool keep_dims) {
  return Graph(R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,3,7,7]}},)"
               "\n" +
               Const("w", {3, 3, 3, 4}, 1) + Const("b", {4}, 2) + Const("scale", {4, 1, 1}, 3) +
               IntConst("pads", {4, 2}, "0,0,0,0,1,0,0,2") + IntConst("axes", {2}, "2,3") +
               R"({"name":"conv","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,1,2,2],
          "padding":"EXPLICIT","explicit_paddings":[0,0,0,0,1,1,0,2],"data_format":"NCHW"}},
         {"name":"bias","op":"BiasAdd","inputs":["conv","b"],"attrs":{"data_format":"NCHW"}},
         {"name":"relu","op":"Relu","inputs":["bias"]},
         {"name":"scaled","op":"Mul","inputs":["relu","scale"]},
         {"name":"pool","op":"MaxPool","inputs":["scaled"],"attrs":{"ksize":[1,1,2,2],
          "strides":[1,1,1,2],"padding":"VALID","data_format":"NCHW"}},
         {"name":"padded","op":"Pad","inputs":["pool","pads"]},
         {"name":"y","op":"Mean","inputs":["padded","axes"],"attrs":{"keep_dims":)" +
               (keep_dims ? "true" : "false") + "}}");
}

TEST(Layout, ChainRunsInNhwc) {
  for (bool keep : {false, true}) {
    SCOPED_TRACE(keep ? "keep_dims" : "no keep_dims");
    std::string text = Net(keep);
    for (int64_t batch : {1, 3}) {
      grt_tensor* x = Input({batch, 3, 7, 7}, 7 + (uint32_t)batch);
      Result r = ExpectSame(text, {{"x", x}}, {"y", "pool", "relu"});
      EXPECT_NE(r.report.find("nodes to NHWC"), std::string::npos) << r.report;
      grt_tensor_free(x);
    }
    // The layout pass's own graph: the stem pass (stem_test.cc) would have
    // this 3-channel convolution read x in place, without its Transpose.
    Optimized o = Optimize(text, {"optimizer_off=stem"});
    // Every convolution and pool runs in NHWC; none is left in NCHW.
    EXPECT_EQ(o.json.find(R"("data_format":"NCHW")"), std::string::npos) << o.json;
    EXPECT_NE(o.json.find(R"("data_format":"NHWC")"), std::string::npos) << o.json;
    // The chain's nodes keep their names on Transposes back to NCHW where
    // something may fetch them; the output is the reduction itself when it
    // has no kept dims (the same value in both layouts).
    EXPECT_EQ(o.op["y"], keep ? "Transpose" : "Mean") << o.json;
    // One transpose in (of x), plus y's way back with keep_dims: the scale
    // constant's was folded (the constant_folding row after layout), the
    // intermediates' ways back are gone, nothing reads them.
    EXPECT_EQ(o.count["Transpose"], keep ? 2 : 1) << o.json;
  }
}

// Branches joined by ConcatV2 on channels and by an Add of two converted
// values; a node outside the chain (Shape) reads a converted value through
// its way back.
TEST(Layout, ConcatAddAndOutsideReader) {
  std::string text = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,2,5,5]}},)"
      "\n" +
      Const("w1", {1, 1, 2, 3}, 1) + Const("w2", {3, 3, 2, 3}, 2) + Const("w3", {1, 1, 6, 6}, 4) +
      IntConst("axis", {}, "1") +
      R"({"name":"a","op":"Conv2D","inputs":["x","w1"],"attrs":{"strides":[1,1,1,1],"padding":"SAME","data_format":"NCHW"}},
         {"name":"b","op":"Conv2D","inputs":["x","w2"],"attrs":{"strides":[1,1,1,1],"padding":"SAME","data_format":"NCHW"}},
         {"name":"ab","op":"AddV2","inputs":["a","b"]},
         {"name":"cat","op":"ConcatV2","inputs":["ab","b","axis"],"attrs":{"N":2}},
         {"name":"y","op":"Conv2D","inputs":["cat","w3"],"attrs":{"strides":[1,1,1,1],"padding":"VALID","data_format":"NCHW"}},
         {"name":"shape","op":"Shape","inputs":["cat"]})");
  grt_tensor* x = Input({2, 2, 5, 5}, 3);
  ExpectSame(text, {{"x", x}}, {"y", "cat"});
  Result sh = RunGraph(text, {}, {{"x", x}}, {"shape"});
  ASSERT_EQ(sh.error, "");
  // Feeding "cat", which keeps its name on its way back to NCHW (Shape
  // reads it) while y reads the NHWC twin: the run must fall back, so y
  // and shape both see the fed value.
  grt_tensor* cat = Input({2, 6, 5, 5}, 12);
  Result fed = ExpectSame(text, {{"cat", cat}}, {"y", "shape"});
  EXPECT_EQ(fed.error, "");
  grt_tensor_free(cat);
  Optimized o = Optimize(text);
  EXPECT_EQ(o.op["cat"], "Transpose") << o.json;
  EXPECT_EQ(o.op["y"], "Transpose") << o.json;
  EXPECT_EQ(o.json.find(R"("data_format":"NCHW")"), std::string::npos) << o.json;
  grt_tensor_free(x);
}

// Switched off, or on NHWC graphs, nothing changes layout.
TEST(Layout, OffAndNhwcUntouched) {
  Optimized off = Optimize(Net(false), {"optimizer_off=layout"});
  EXPECT_EQ(off.count["Transpose"], 0) << off.json;
  EXPECT_NE(off.json.find(R"("data_format":"NCHW")"), std::string::npos);
  std::string nhwc = Graph(
      R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,5,5,2]}},)"
      "\n" +
      Const("w", {3, 3, 2, 3}, 1) +
      R"({"name":"y","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,1,1,1],"padding":"SAME"}})");
  Optimized o = Optimize(nhwc);
  EXPECT_EQ(o.count["Transpose"], 0) << o.json;
  EXPECT_EQ(o.op["y"], "Conv2D");
}

// An input of unknown rank cannot be transposed: the convolution stays
// NCHW, and runs right.
TEST(Layout, UnknownRankInputStays) {
  std::string text =
      Graph(R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float32"}},)"
            "\n" +
            Const("w", {3, 3, 2, 3}, 1) +
            R"({"name":"y","op":"Conv2D","inputs":["x","w"],"attrs":{"strides":[1,1,1,1],
          "padding":"EXPLICIT","explicit_paddings":[0,0,0,0,1,1,0,2],"data_format":"NCHW"}})");
  grt_tensor* x = Input({2, 2, 4, 5}, 3);
  Result r = ExpectSame(text, {{"x", x}}, {"y"});
  ASSERT_EQ(r.shapes.size(), 1u);
  EXPECT_EQ(r.shapes[0], (std::vector<int64_t>{2, 3, 4, 5}));
  Optimized o = Optimize(text);
  EXPECT_EQ(o.count["Transpose"], 0) << o.json;
  grt_tensor_free(x);
}

// A fed intermediate inside the chain: it has a name in the optimized graph
// (its way back), which is not safe to feed, so the run falls back, and the
// result matches the graph as written.
TEST(Layout, FeedInsideChain) {
  std::string text = Net(false);
  grt_tensor* relu = Input({2, 4, 4, 4}, 5);
  ExpectSame(text, {{"relu", relu}}, {"y"});
  grt_tensor_free(relu);
}

}  // namespace
