// The ONNX importer's refusals, one small model each (built here with
// onnx_builder.h), each checked by its whole message: the node, its op and
// what is wrong. A model an op converter cannot convert faithfully must be
// refused with words that say why, never imported as another computation:
// each case is a check that a dropped or loosened test in the converter
// (an attribute range, a dtype, a rank the lowering needs, an opset's form)
// would fail, since the model would then import, or fail further on with
// another message (a model that imports is reported as "(imported)").
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "grt/grt.h"
#include "tests/interchange/onnx_builder.h"

extern "C" {
#include "interchange/interchange.h"
}

namespace {

using namespace onnxb;  // NOLINT: the builder's vocabulary, in tables

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

std::string Import(const Model& m) {
  std::string bytes = m.Bytes();
  grt_graph* g = nullptr;
  std::string msg = Message(grt_onnx_parse(bytes.data(), bytes.size(), &g));
  if (!msg.empty()) EXPECT_EQ(g, nullptr);
  if (msg.empty()) msg = "(imported)";
  grt_graph_free(g);
  return msg;
}

// x of `dims` (float unless said), one node `op` named n on x (and more
// inputs), output y.
Model One(const std::string& op, std::vector<int64_t> dims, std::vector<Attr> attrs = {},
          int64_t opset = 13) {
  Model m;
  m.opset = opset;
  m.In("x", kFloat, dims).Op(op, {"x"}, {"y"}, attrs).Out("y");
  return m;
}

Model Unranked(const std::string& op, std::vector<Attr> attrs = {}, int64_t opset = 13) {
  Model m;
  m.opset = opset;
  m.In("x", kFloat, {}, false).Op(op, {"x"}, {"y"}, attrs).Out("y");
  return m;
}

struct Case {
  const char* what;
  Model model;
  std::string want;  // the message after "node 'n' (OP): "
};

void Check(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string op = c.model.nodes.empty() ? "" : c.model.nodes.back().op;
    std::string got = Import(c.model);
    EXPECT_EQ(got, "node 'n' (" + op + "): " + c.want);
  }
}

Model Conv(std::vector<int64_t> x, std::vector<int64_t> w, std::vector<Attr> attrs,
           const std::string& op = "Conv") {
  Model m;
  m.In("x", kFloat, x).In("w", kFloat, w).Op(op, {"x", "w"}, {"y"}, attrs).Out("y");
  return m;
}

TEST(OnnxRefusals, ConvolutionsAndPooling) {
  Check({
      {"rank 2 input", Conv({1, 4}, {4, 4}, {}),
       "only 1-D and 2-D windows are supported (input rank 2; rank needed)"},
      {"auto_pad unknown", Conv({1, 4, 5, 5}, {4, 4, 3, 3}, {S("auto_pad", "FOO")}),
       "unknown auto_pad value"},
      {"group 0", Conv({1, 4, 5, 5}, {4, 4, 3, 3}, {I("group", 0)}), "group must be positive"},
      {"group does not fit", Conv({1, 4, 5, 5}, {4, 2, 3, 3}, {I("group", 3)}),
       "group 3 does not fit: the input has 4 channels and the filter takes 2 per group"},
      {"negative pads", Conv({1, 4, 5, 5}, {4, 4, 3, 3}, {Is("pads", {-1, 0, 0, 0})}),
       "kernel_shape, strides and dilations must be positive, pads not negative"},
      {"zero dilation", Conv({1, 4, 5, 5}, {4, 4, 3, 3}, {Is("dilations", {1, 0})}),
       "kernel_shape, strides and dilations must be positive, pads not negative"},
      {"ConvTranspose group 2", Conv({1, 4, 5, 5}, {4, 2, 3, 3}, {I("group", 2)}, "ConvTranspose"),
       "group 2 is not supported"},
      {"ConvTranspose output_padding too big",
       Conv({1, 4, 5, 5}, {4, 2, 3, 3}, {Is("output_padding", {2, 2})}, "ConvTranspose"),
       "output_padding must be smaller than stride or dilation"},
      {"MaxPool without kernel_shape", One("MaxPool", {1, 2, 4, 4}), "kernel_shape is required"},
      {"AveragePool dilated",
       One("AveragePool", {1, 2, 4, 4}, {Is("kernel_shape", {2, 2}), Is("dilations", {2, 2})}),
       "dilations are not supported (TensorFlow's pooling has none)"},
      {"AveragePool count_include_pad with ceil_mode",
       One("AveragePool", {1, 2, 5, 5},
           {Is("kernel_shape", {2, 2}), I("count_include_pad", 1), I("ceil_mode", 1)}),
       "count_include_pad with ceil_mode is not supported"},
      {"MaxPool ceil_mode with SAME",
       One("MaxPool", {1, 2, 5, 5},
           {Is("kernel_shape", {2, 2}), I("ceil_mode", 1), S("auto_pad", "SAME_UPPER")}),
       "ceil_mode with auto_pad SAME is not supported"},
      {"GlobalAveragePool of rank 2", One("GlobalAveragePool", {2, 3}),
       "the input's rank (3 or more) is needed"},
      {"LRN of rank 3", One("LRN", {1, 2, 3}, {I("size", 3)}),
       "LRN needs a 4-D input of known rank"},
      {"InstanceNormalization of rank 2",
       Model()
           .In("x", kFloat, {2, 3})
           .Floats("s", {3}, {1, 1, 1})
           .Floats("b", {3}, {0, 0, 0})
           .Op("InstanceNormalization", {"x", "s", "b"}, {"y"})
           .Out("y"),
       "the input's rank (3 or more) is needed"},
      {"DepthToSpace blocksize 0", One("DepthToSpace", {1, 4, 2, 2}, {I("blocksize", 0)}),
       "blocksize must be positive"},
      {"DepthToSpace of rank 3", One("DepthToSpace", {4, 2, 2}, {I("blocksize", 2)}),
       "a 4-D input of known rank is needed"},
      {"MaxUnpool without kernel_shape",
       Model()
           .In("x", kFloat, {1, 1, 2, 2})
           .In("i", kInt64, {1, 1, 2, 2})
           .Op("MaxUnpool", {"x", "i"}, {"y"})
           .Out("y"),
       "kernel_shape is required"},
  });
}

TEST(OnnxRefusals, ThreeDimensionalWindows) {
  std::vector<int64_t> x = {1, 1, 4, 4, 4}, w = {1, 1, 2, 2, 2};
  Check({
      {"strides of 2 values", Conv(x, w, {Is("strides", {1, 1})}),
       "attribute 'strides' has 2 values, expected 3"},
      {"auto_pad SAME_LOWER", Conv(x, w, {S("auto_pad", "SAME_LOWER")}),
       "auto_pad SAME_LOWER is not supported for 3-D windows"},
      {"kernel of 0", Conv(x, w, {Is("kernel_shape", {2, 0, 2})}),
       "kernel_shape, strides and dilations must be positive, pads not negative"},
      {"MaxPool without kernel_shape", One("MaxPool", x), "kernel_shape is required"},
      {"MaxPool dilated",
       One("MaxPool", x, {Is("kernel_shape", {2, 2, 2}), Is("dilations", {2, 1, 1})}),
       "dilations are not supported for 3-D pooling"},
      {"MaxPool ceil_mode", One("MaxPool", x, {Is("kernel_shape", {2, 2, 2}), I("ceil_mode", 1)}),
       "ceil_mode is not supported for 3-D pooling"},
      {"MaxPool Indices",
       Model()
           .In("x", kFloat, x)
           .Op("MaxPool", {"x"}, {"y", "i"}, {Is("kernel_shape", {2, 2, 2})})
           .Out("y"),
       "the Indices output is not supported"},
      {"MaxPool of float64",
       Model()
           .In("x", kDouble, x)
           .Op("MaxPool", {"x"}, {"y"}, {Is("kernel_shape", {2, 2, 2})})
           .Out("y", kDouble),
       "3-D MaxPool of float64 is not supported"},
      {"ConvTranspose group 2",
       Conv({1, 2, 4, 4, 4}, {2, 1, 2, 2, 2}, {I("group", 2)}, "ConvTranspose"),
       "group 2 is not supported"},
      {"ConvTranspose SAME_UPPER", Conv(x, w, {S("auto_pad", "SAME_UPPER")}, "ConvTranspose"),
       "auto_pad SAME_UPPER is not supported for 3-D ConvTranspose"},
      {"ConvTranspose output_shape", Conv(x, w, {Is("output_shape", {5, 5, 5})}, "ConvTranspose"),
       "output_shape is not supported for 3-D ConvTranspose"},
  });
}

TEST(OnnxRefusals, DtypesAndRanks) {
  Check({
      {"Where over bool",
       Model()
           .In("c", kBool, {2})
           .In("a", kBool, {2})
           .In("b", kBool, {2})
           .Op("Where", {"c", "a", "b"}, {"y"})
           .Out("y", kBool),
       "Where over bool values is not supported"},
      {"Or of ints",
       Model()
           .In("a", kInt32, {2})
           .In("b", kInt32, {2})
           .Op("Or", {"a", "b"}, {"y"})
           .Out("y", kBool),
       "inputs must be bool"},
      {"EyeLike of rank 3", One("EyeLike", {2, 2, 2}), "the input must be 2-D"},
      {"HannWindow of a float size",
       Model().Floats("s", {}, {4}).Op("HannWindow", {"s"}, {"y"}).Out("y"),
       "size must be int32 or int64"},
      {"GridSample of rank 3",
       Model()
           .In("x", kFloat, {1, 2, 3})
           .In("g", kFloat, {1, 2, 2})
           .Op("GridSample", {"x", "g"}, {"y"})
           .Out("y"),
       "only 4-D inputs of known rank are supported"},
      {"GridSample of int32",
       Model()
           .In("x", kInt32, {1, 1, 2, 2})
           .In("g", kFloat, {1, 2, 2, 2})
           .Op("GridSample", {"x", "g"}, {"y"})
           .Out("y", kInt32),
       "X must be float32 or float64"},
      {"Gather by floats",
       Model().In("x", kFloat, {3}).In("i", kFloat, {2}).Op("Gather", {"x", "i"}, {"y"}).Out("y"),
       "indices must be int32 or int64"},
      {"GatherElements axis 5",
       Model()
           .In("x", kFloat, {2, 2})
           .In("i", kInt64, {2, 2})
           .Op("GatherElements", {"x", "i"}, {"y"}, {I("axis", 5)})
           .Out("y"),
       "axis 5 is out of range for rank 2"},
      {"GatherElements axis 2 of rank 2",
       Model()
           .In("x", kFloat, {2, 2})
           .In("i", kInt64, {2, 2})
           .Op("GatherElements", {"x", "i"}, {"y"}, {I("axis", 2)})
           .Out("y"),
       "axis 2 is out of range for rank 2"},
      {"GatherND batch_dims 5",
       Model()
           .In("x", kFloat, {2, 2})
           .In("i", kInt64, {2, 1})
           .Op("GatherND", {"x", "i"}, {"y"}, {I("batch_dims", 5)})
           .Out("y"),
       "batch_dims 5 is out of range"},
      {"TopK of unknown rank",
       Model()
           .In("x", kFloat, {}, false)
           .Ints("k", kInt64, {1}, {1})
           .Op("TopK", {"x", "k"}, {"y", "i"})
           .Out("y"),
       "TopK needs the input's rank"},
      {"TopK axis 3",
       Model()
           .In("x", kFloat, {2, 2})
           .Ints("k", kInt64, {1}, {1})
           .Op("TopK", {"x", "k"}, {"y", "i"}, {I("axis", 3)})
           .Out("y"),
       "axis out of range"},
      {"Pad mode wrap",
       Model()
           .In("x", kFloat, {2, 2})
           .Ints("p", kInt64, {4}, {1, 1, 1, 1})
           .Op("Pad", {"x", "p"}, {"y"}, {S("mode", "wrap")})
           .Out("y"),
       "mode 'wrap' is not constant, reflect or edge"},
      {"Pad with axes",
       Model()
           .In("x", kFloat, {2, 2})
           .Ints("p", kInt64, {2}, {1, 1})
           .Floats("v", {}, {0})
           .Ints("a", kInt64, {1}, {0})
           .Op("Pad", {"x", "p", "v", "a"}, {"y"})
           .Out("y"),
       "the axes input is not supported"},
      {"Trilu of rank 1", One("Trilu", {3}, {}, 14), "Trilu needs the input's rank (2 or more)"},
      {"Einsum without equation", One("Einsum", {2, 2}, {}, 12),
       "attribute 'equation' is required (at most 200 characters)"},
      {"NegativeLogLikelihoodLoss of float targets",
       Model()
           .In("x", kFloat, {2, 3})
           .In("t", kFloat, {2})
           .Op("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"})
           .Out("y"),
       "targets must be int32 or int64"},
      {"Hardmax of opset 11 over axis 0", One("Hardmax", {2, 3}, {I("axis", 0)}, 11),
       "Hardmax before opset 13 is supported over the last axis only (the rank must be known)"},
      {"Hardmax negative axis, unknown rank", Unranked("Hardmax", {I("axis", -1)}),
       "a negative axis needs the input's rank"},
      {"Slice of unknown rank",
       Model()
           .In("x", kFloat, {}, false)
           .Ints("s", kInt64, {1}, {0})
           .Ints("e", kInt64, {1}, {1})
           .Op("Slice", {"x", "s", "e"}, {"y"})
           .Out("y"),
       "Slice needs the input's rank"},
      {"LayerNormalization axis 5",
       Model()
           .In("x", kFloat, {2, 3})
           .Floats("s", {3}, {1, 1, 1})
           .Op("LayerNormalization", {"x", "s"}, {"y"}, {I("axis", 5)})
           .Out("y"),
       "axis out of range"},
      {"LayerNormalization axis 2 of rank 2",
       Model()
           .In("x", kFloat, {2, 3})
           .Floats("s", {3}, {1, 1, 1})
           .Op("LayerNormalization", {"x", "s"}, {"y"}, {I("axis", 2)})
           .Out("y"),
       "axis out of range"},
      {"LayerNormalization of unknown rank",
       Model()
           .In("x", kFloat, {}, false)
           .Floats("s", {3}, {1, 1, 1})
           .Op("LayerNormalization", {"x", "s"}, {"y"})
           .Out("y"),
       "LayerNormalization needs the input's rank"},
      {"BatchNormalization of rank 1",
       Model()
           .In("x", kFloat, {3})
           .Floats("s", {3}, {1, 1, 1})
           .Floats("b", {3}, {0, 0, 0})
           .Floats("m", {3}, {0, 0, 0})
           .Floats("v", {3}, {1, 1, 1})
           .Op("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"})
           .Out("y"),
       "BatchNormalization needs the input's rank"},
      {"OneHot of depth -1",
       Model()
           .In("i", kInt64, {2})
           .Floats("d", {}, {-1})
           .Floats("v", {2}, {0, 1})
           .Op("OneHot", {"i", "d", "v"}, {"y"})
           .Out("y"),
       "depth -1 is outside [0, 2147483647]"},
      {"OneHot negative axis, unknown rank",
       Model()
           .In("i", kInt64, {}, false)
           .Floats("d", {}, {3})
           .Floats("v", {2}, {0, 1})
           .Op("OneHot", {"i", "d", "v"}, {"y"}, {I("axis", -2)})
           .Out("y"),
       "a negative axis needs the indices' rank"},
      {"LSTM without hidden_size",
       Model()
           .In("x", kFloat, {1, 1, 2})
           .In("w", kFloat, {1, 4, 2})
           .In("r", kFloat, {1, 4, 1})
           .Op("LSTM", {"x", "w", "r"}, {"y"})
           .Out("y"),
       "attribute 'hidden_size' is required"},
      {"RNN hidden_size 0",
       Model()
           .In("x", kFloat, {1, 1, 2})
           .In("w", kFloat, {1, 1, 2})
           .In("r", kFloat, {1, 1, 1})
           .Op("RNN", {"x", "w", "r"}, {"y"}, {I("hidden_size", 0)})
           .Out("y"),
       "attribute 'hidden_size' is 0 (1 to 2^24)"},
      {"RNN clip -1",
       Model()
           .In("x", kFloat, {1, 1, 2})
           .In("w", kFloat, {1, 1, 2})
           .In("r", kFloat, {1, 1, 1})
           .Op("RNN", {"x", "w", "r"}, {"y"}, {I("hidden_size", 1), F("clip", -1)})
           .Out("y"),
       "attribute 'clip' is -1 (a positive threshold)"},
      {"RNN of int32",
       Model()
           .In("x", kInt32, {1, 1, 2})
           .In("w", kInt32, {1, 1, 2})
           .In("r", kInt32, {1, 1, 1})
           .Op("RNN", {"x", "w", "r"}, {"y"}, {I("hidden_size", 1)})
           .Out("y", kInt32),
       "X must be float16, float32 or float64, got int32"},
      {"RNN sequence_lens of floats",
       Model()
           .In("x", kFloat, {1, 1, 2})
           .In("w", kFloat, {1, 1, 2})
           .In("r", kFloat, {1, 1, 1})
           .In("l", kFloat, {1})
           .Op("RNN", {"x", "w", "r", "", "l"}, {"y"}, {I("hidden_size", 1)})
           .Out("y"),
       "sequence_lens must be int32, got float32"},
  });
}

TEST(OnnxRefusals, Quantization) {
  Check({
      {"QuantizeLinear to int32",
       Model()
           .In("x", kFloat, {2})
           .Floats("s", {}, {1})
           .Ints("z", kInt32, {}, {0})
           .Op("QuantizeLinear", {"x", "s", "z"}, {"y"})
           .Out("y", kInt32),
       "the zero point must be uint8 or int8"},
      {"QuantizeLinear of int64",
       Model()
           .In("x", kInt64, {2})
           .Floats("s", {}, {1})
           .Op("QuantizeLinear", {"x", "s"}, {"y"})
           .Out("y", kUint8),
       "the input must be float32 or int32"},
      {"DequantizeLinear of floats",
       Model()
           .In("x", kFloat, {2})
           .Floats("s", {}, {1})
           .Op("DequantizeLinear", {"x", "s"}, {"y"})
           .Out("y"),
       "the input must be uint8, int8 or int32"},
      {"QuantizeLinear scale of 2-D",
       Model()
           .In("x", kFloat, {2, 2})
           .Floats("s", {1, 2}, {1, 1})
           .Op("QuantizeLinear", {"x", "s"}, {"y"})
           .Out("y", kUint8),
       "scales and zero points must be scalars or 1-D"},
      {"QuantizeLinear axis 5",
       Model()
           .In("x", kFloat, {2, 2})
           .Floats("s", {2}, {1, 1})
           .Op("QuantizeLinear", {"x", "s"}, {"y"}, {I("axis", 5)})
           .Out("y", kUint8),
       "axis is out of range"},
      {"QuantizeLinear axis 2 of rank 2",
       Model()
           .In("x", kFloat, {2, 2})
           .Floats("s", {2}, {1, 1})
           .Op("QuantizeLinear", {"x", "s"}, {"y"}, {I("axis", 2)})
           .Out("y", kUint8),
       "axis is out of range"},
      {"MatMulInteger of int32",
       Model()
           .In("a", kInt32, {2, 2})
           .In("b", kInt32, {2, 2})
           .Op("MatMulInteger", {"a", "b"}, {"y"})
           .Out("y", kInt32),
       "inputs must be uint8 or int8"},
      {"MatMulInteger of a 1-D operand",
       Model()
           .In("a", kUint8, {2})
           .In("b", kUint8, {2, 2})
           .Op("MatMulInteger", {"a", "b"}, {"y"})
           .Out("y", kInt32),
       "1-D operands of a matrix product are not supported"},
  });
}

TEST(OnnxRefusals, ArraysReductionsAndResize) {
  Check({
      {"Transpose without perm, unknown rank", Unranked("Transpose"),
       "Transpose without perm needs the input's rank"},
      {"Transpose perm of 9", One("Transpose", {2, 2}, {Is("perm", {0, 1, 2, 3, 4, 5, 6, 7, 8})}),
       "perm has 9 entries"},
      {"Transpose perm of 3 for rank 2", One("Transpose", {2, 2}, {Is("perm", {0, 1, 2})}),
       "perm has 3 entries for an input of rank 2"},
      {"Concat of nothing", Model().Op("Concat", {}, {"y"}, {I("axis", 0)}).Out("y"), "no inputs"},
      {"Flatten negative axis, unknown rank", Unranked("Flatten", {I("axis", -1)}),
       "a negative axis needs the input's rank"},
      {"Unsqueeze of no axes", One("Unsqueeze", {2}, {Is("axes", {})}, 11), "no axes"},
      {"Unsqueeze negative axis, unknown rank", Unranked("Unsqueeze", {Is("axes", {-1})}, 11),
       "a negative axis needs the input's rank"},
      {"Expand of bool",
       Model()
           .In("x", kBool, {2})
           .Ints("s", kInt64, {1}, {2})
           .Op("Expand", {"x", "s"}, {"y"})
           .Out("y", kBool),
       "Expand of bool is not supported"},
      {"Split with sizes, unknown rank", Unranked("Split", {Is("split", {1, 1})}, 11),
       "Split with sizes needs the input's rank"},
      {"Split axis 5", One("Split", {2}, {I("axis", 5), Is("split", {1, 1})}, 11),
       "axis 5 is out of range for rank 1 ([-1, 0])"},
      {"ReduceSum of 9 axes", One("ReduceSum", {2}, {Is("axes", {0, 0, 0, 0, 0, 0, 0, 0, 0})}, 11),
       "9 axes"},
      {"ReduceSum axes fed, unknown rank",
       Model()
           .In("x", kFloat, {}, false)
           .In("a", kInt64, {1})
           .Op("ReduceSum", {"x", "a"}, {"y"})
           .Out("y"),
       "axes fed at run time need the input's rank (an empty list reduces all)"},
      {"ArgMax select_last_index, unknown rank", Unranked("ArgMax", {I("select_last_index", 1)}),
       "select_last_index=1 needs the input's rank"},
      {"Resize cubic at opset 10",
       Model()
           .Opset(10)
           .In("x", kFloat, {1, 1, 2, 2})
           .Floats("s", {4}, {1, 1, 2, 2})
           .Op("Resize", {"x", "s"}, {"y"}, {S("mode", "cubic")})
           .Out("y"),
       "cubic needs opset 11"},
      {"Resize linear of int32",
       Model()
           .In("x", kInt32, {1, 1, 2, 2})
           .Floats("r", {0}, {})
           .Floats("s", {4}, {1, 1, 2, 2})
           .Op("Resize", {"x", "r", "s"}, {"y"}, {S("mode", "linear")})
           .Out("y", kInt32),
       "linear and cubic modes need a float32 or float64 input"},
      {"Resize mode as an int",
       Model()
           .In("x", kFloat, {1, 1, 2, 2})
           .Floats("r", {0}, {})
           .Floats("s", {4}, {1, 1, 2, 2})
           .Op("Resize", {"x", "r", "s"}, {"y"}, {I("mode", 1)})
           .Out("y"),
       "attribute 'mode' must be a string"},
  });
}

TEST(OnnxRefusals, TheModelsFrame) {
  struct {
    const char* what;
    Model model;
    std::string want;
  } cases[] = {
      {"initializer without a name", Model().Floats("", {1}, {1}).Out("y"),
       "an initializer has no name"},
      {"input declared twice", Model().In("x", kFloat, {1}).In("x", kFloat, {1}).Out("x"),
       "graph input 'x' is declared twice"},
      {"input of rank 9", Model().In("x", kFloat, {1, 1, 1, 1, 1, 1, 1, 1, 1}).Out("x"),
       "graph input 'x': rank 9 exceeds the maximum of 8"},
      {"initializer of rank 9", Model().Floats("c", {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1}).Out("c"),
       "rank 9 exceeds the maximum of 8"},
      {"initializer of a negative dim", Model().Floats("c", {-1}, {}).Out("c"),
       "dimension 0 is -1"},
      {"output defined twice",
       Model()
           .In("x", kFloat, {1})
           .Op("Neg", {"x"}, {"y"})
           .Op("Abs", {"x"}, {"y"}, {}, "m")
           .Out("y"),
       "value 'y' is defined twice"},
      {"a missing input", Model().In("x", kFloat, {1}).Op("Add", {"x"}, {"y"}).Out("y"),
       "input 1 is missing"},
      {"an int where a float belongs", One("LeakyRelu", {2}, {I("alpha", 1)}),
       "attribute 'alpha' must be a float"},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.what);
    std::string got = Import(c.model);
    EXPECT_NE(got.find(c.want), std::string::npos) << got;
  }
}

// The rest of the converters' refusals that the tables above leave: shapes
// known only at run time where a lowering needs them, old opsets' forms,
// attribute values outside their sets.
TEST(OnnxRefusals, RunTimeShapesOldOpsetsAndAttributeSets) {
  std::vector<int64_t> x3 = {1, 1, 4, 4, 4}, w3 = {1, 1, 2, 2, 2};
  Check({
      {"Conv SAME_LOWER, spatial size unknown",
       Conv({1, 4, -1, -1}, {4, 4, 3, 3}, {S("auto_pad", "SAME_LOWER")}),
       "auto_pad SAME_LOWER needs the input's spatial size, unknown before run time"},
      {"Conv SAME_LOWER, filter unknown",
       Model()
           .In("x", kFloat, {1, 4, 5, 5})
           .In("w", kFloat, {}, false)
           .Op("Conv", {"x", "w"}, {"y"}, {S("auto_pad", "SAME_LOWER")})
           .Out("y"),
       "auto_pad SAME_LOWER needs kernel_shape"},
      {"ConvTranspose output_shape, spatial size unknown",
       Conv({1, 4, -1, -1}, {4, 2, 3, 3}, {Is("output_shape", {7, 7})}, "ConvTranspose"),
       "output_shape and auto_pad need the input's spatial size, unknown before run time"},
      {"ConvTranspose output_shape, filter unknown",
       Model()
           .In("x", kFloat, {1, 4, 5, 5})
           .In("w", kFloat, {}, false)
           .Op("ConvTranspose", {"x", "w"}, {"y"}, {Is("output_shape", {7, 7})})
           .Out("y"),
       "output_shape and auto_pad need kernel_shape"},
      {"MaxPool ceil_mode, spatial size unknown",
       One("MaxPool", {1, 2, -1, -1}, {Is("kernel_shape", {2, 2}), I("ceil_mode", 1)}),
       "ceil_mode needs the input's spatial size, unknown before run time"},
      {"AveragePool count_include_pad SAME, spatial size unknown",
       One("AveragePool", {1, 2, -1, -1},
           {Is("kernel_shape", {2, 2}), I("count_include_pad", 1), S("auto_pad", "SAME_UPPER")}),
       "count_include_pad with SAME needs the input's spatial size, unknown before run time"},
      {"MaxPool of float64",
       Model()
           .In("x", kDouble, {1, 1, 4, 4})
           .Op("MaxPool", {"x"}, {"y"}, {Is("kernel_shape", {2, 2})})
           .Out("y", kDouble),
       "MaxPool of float64 is not supported"},
      {"AveragePool 3-D count_include_pad SAME",
       One("AveragePool", x3,
           {Is("kernel_shape", {2, 2, 2}), I("count_include_pad", 1), S("auto_pad", "SAME_UPPER")}),
       "count_include_pad with auto_pad SAME_UPPER is not supported for 3-D pooling"},
      {"ConvTranspose 3-D output_padding",
       Conv(x3, w3, {Is("output_padding", {1, 1, 1})}, "ConvTranspose"),
       "output_padding must be smaller than the stride for 3-D ConvTranspose"},
      {"NegativeLogLikelihoodLoss reduction bogus",
       Model()
           .In("x", kFloat, {2, 3})
           .In("t", kInt64, {2})
           .Op("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, {S("reduction", "bogus")})
           .Out("y"),
       "reduction must be none, sum or mean"},
      {"BitShift direction UP",
       Model()
           .In("a", kUint8, {2})
           .In("b", kUint8, {2})
           .Op("BitShift", {"a", "b"}, {"y"}, {S("direction", "UP")})
           .Out("y", kUint8),
       "direction must be LEFT or RIGHT"},
      {"QuantizeLinear scale of float64",
       Model()
           .In("x", kFloat, {2})
           .In("s", kDouble, {})
           .Op("QuantizeLinear", {"x", "s"}, {"y"})
           .Out("y", kUint8),
       "the scale must be float32"},
      {"Resize coordinate_transformation_mode bogus",
       Model()
           .In("x", kFloat, {1, 1, 2, 2})
           .Floats("r", {0}, {})
           .Floats("s", {4}, {1, 1, 2, 2})
           .Op("Resize", {"x", "r", "s"}, {"y"}, {S("coordinate_transformation_mode", "bogus")})
           .Out("y"),
       "coordinate_transformation_mode 'bogus' is not supported"},
      {"GridSample mode bogus",
       Model()
           .Opset(16)
           .In("x", kFloat, {1, 1, 2, 2})
           .In("g", kFloat, {1, 2, 2, 2})
           .Op("GridSample", {"x", "g"}, {"y"}, {S("mode", "bogus")})
           .Out("y"),
       "unknown mode"},
      {"RNN of 65 activations",
       Model()
           .In("x", kFloat, {1, 1, 2})
           .In("w", kFloat, {1, 1, 2})
           .In("r", kFloat, {1, 1, 1})
           .Op("RNN", {"x", "w", "r"}, {"y"},
               {I("hidden_size", 1), Ss("activations", std::vector<std::string>(65, "Tanh"))})
           .Out("y"),
       "attribute 'activations' lists 65 functions"},
      {"RNN of 65 alphas",
       Model()
           .In("x", kFloat, {1, 1, 2})
           .In("w", kFloat, {1, 1, 2})
           .In("r", kFloat, {1, 1, 1})
           .Op("RNN", {"x", "w", "r"}, {"y"},
               {I("hidden_size", 1), Fs("activation_alpha", std::vector<float>(65, 1.0f))})
           .Out("y"),
       "attribute 'activation_alpha' lists 65 values"},
      {"Constant without a value", Model().Op("Constant", {}, {"y"}).Out("y"),
       "Constant without a tensor, float or int value"},
      {"Slice of opset 9 without starts",
       Model().Opset(9).In("x", kFloat, {4}).Op("Slice", {"x"}, {"y"}, {Is("ends", {2})}).Out("y"),
       "Slice of opsets 1-9 needs the starts and ends attributes"},
      {"Reshape of opset 4 without shape",
       Model().Opset(4).In("x", kFloat, {4}).Op("Reshape", {"x"}, {"y"}).Out("y"),
       "Reshape of opsets 1-4 needs the shape attribute"},
      {"TopK of opset 9 without k",
       Model().Opset(9).In("x", kFloat, {4}).Op("TopK", {"x"}, {"y", "i"}).Out("y"),
       "TopK of opsets 1-9 needs the k attribute"},
      {"Add of opset 6 broadcast along an axis, rank unknown",
       Model()
           .Opset(6)
           .In("a", kFloat, {}, false)
           .In("b", kFloat, {3})
           .Op("Add", {"a", "b"}, {"y"}, {I("broadcast", 1), I("axis", 1)})
           .Out("y"),
       "broadcasting along axis 1 (opsets 1-6) needs the ranks of both inputs"},
      {"Add of opset 6 broadcast axis that does not fit",
       Model()
           .Opset(6)
           .In("a", kFloat, {2, 3})
           .In("b", kFloat, {3})
           .Op("Add", {"a", "b"}, {"y"}, {I("broadcast", 1), I("axis", 2)})
           .Out("y"),
       "broadcast axis 2 does not fit B (rank 1) into A (rank 2)"},
      {"BatchNormalization of opset 8 per activation",
       Model()
           .Opset(8)
           .In("x", kFloat, {1, 3, 2})
           .Floats("s", {3}, {1, 1, 1})
           .Floats("b", {3}, {0, 0, 0})
           .Floats("m", {3}, {0, 0, 0})
           .Floats("v", {3}, {1, 1, 1})
           .Op("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}, {I("spatial", 0)})
           .Out("y"),
       "per-activation statistics (spatial = 0, opsets 1-8) are not supported"},
      {"BatchNormalization of opset 13 with its statistics out",
       Model()
           .In("x", kFloat, {1, 3, 2})
           .Floats("s", {3}, {1, 1, 1})
           .Floats("b", {3}, {0, 0, 0})
           .Floats("m", {3}, {0, 0, 0})
           .Floats("v", {3}, {1, 1, 1})
           .Op("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"})
           .Out("y"),
       "outputs besides Y need training mode (opset 14 on)"},
  });
  // Refusals of the model's values, before any node.
  EXPECT_NE(Import(Model().Floats("c", {1 << 30, 1 << 30, 1 << 30}, {}).Out("c"))
                .find("tensor of float32 is too large"),
            std::string::npos);
}

// ---- optional attributes and opset defaults, run ----------------------

// Imports `m`, feeds x (float32 of `dims`) and fetches y.
std::vector<float> RunModel(const Model& m, std::vector<int64_t> dims, std::vector<float> x) {
  std::string bytes = m.Bytes();
  grt_graph* g = nullptr;
  EXPECT_EQ(Message(grt_onnx_parse(bytes.data(), bytes.size(), &g)), "");
  std::vector<float> out;
  if (!g) return out;
  grt_session* s = nullptr;
  EXPECT_EQ(Message(grt_session_new(g, nullptr, &s)), "");
  grt_tensor* t = nullptr;
  EXPECT_EQ(Message(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &t)), "");
  memcpy(grt_tensor_data(t), x.data(), x.size() * sizeof(float));
  grt_feed feed = {"x", t};
  const char* fetch = "y";
  grt_tensor* y = nullptr;
  EXPECT_EQ(Message(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &y, nullptr)), "");
  if (y && grt_tensor_dtype(y) == GRT_FLOAT32) {
    const float* p = static_cast<const float*>(grt_tensor_data(y));
    out.assign(p, p + grt_tensor_num_elements(y));
  } else if (y && grt_tensor_dtype(y) == GRT_INT64) {
    const int64_t* p = static_cast<const int64_t*>(grt_tensor_data(y));
    for (int64_t i = 0; i < grt_tensor_num_elements(y); i++) out.push_back((float)p[i]);
  }
  grt_tensor_free(y);
  grt_tensor_free(t);
  grt_session_free(s);
  grt_graph_free(g);
  return out;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); i++) EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
}

// Each default checked against the value ONNX's operator documents give
// it; a converter that reads the attribute's default wrong (or the
// present value as absent) computes another function.
TEST(OnnxDefaults, OptionalAttributesPresentAndAbsent) {
  std::vector<float> x = {-2, -0.5f, 0.5f, 2};
  // LeakyRelu: alpha 0.01 when absent.
  ExpectNear(RunModel(One("LeakyRelu", {4}), {4}, x), {-0.02f, -0.005f, 0.5f, 2});
  ExpectNear(RunModel(One("LeakyRelu", {4}, {F("alpha", 0.5f)}), {4}, x), {-1, -0.25f, 0.5f, 2});
  // Elu: alpha 1.
  ExpectNear(RunModel(One("Elu", {4}), {4}, x), {std::expm1(-2.0f), std::expm1(-0.5f), 0.5f, 2});
  // HardSigmoid: alpha 0.2, beta 0.5, clipped to [0, 1].
  ExpectNear(RunModel(One("HardSigmoid", {4}), {4}, x), {0.1f, 0.4f, 0.6f, 0.9f});
  ExpectNear(RunModel(One("HardSigmoid", {4}, {F("alpha", 1), F("beta", 0)}), {4}, x),
             {0, 0, 0.5f, 1});
  // ArgMax: the first of equal maxima unless select_last_index.
  std::vector<float> ties = {3, 1, 3, 0};
  auto argmax = [](std::vector<Attr> attrs) {
    return Model().In("x", kFloat, {4}).Op("ArgMax", {"x"}, {"y"}, attrs).Out("y", kInt64);
  };
  ExpectNear(RunModel(argmax({}), {4}, ties), {0});
  ExpectNear(RunModel(argmax({I("select_last_index", 1)}), {4}, ties), {2});
}

TEST(OnnxDefaults, SoftmaxAxisByOpset) {
  // Before opset 13 the default axis is 1 and the input is flattened to
  // 2-D there: over [1, 2, 2] one softmax of all four values. From 13 the
  // default is -1: a softmax per row of 2. Axis 1 at opset 13 normalizes
  // over the middle axis only.
  std::vector<float> x = {0, std::log(3.0f), 1, 1};
  float e = std::exp(1.0f), all = 4 + 2 * e;
  ExpectNear(RunModel(One("Softmax", {1, 2, 2}, {}, 11), {1, 2, 2}, x),
             {1 / all, 3 / all, e / all, e / all});
  ExpectNear(RunModel(One("Softmax", {1, 2, 2}, {}, 13), {1, 2, 2}, x), {0.25f, 0.75f, 0.5f, 0.5f});
  ExpectNear(RunModel(One("Softmax", {1, 2, 2}, {I("axis", 1)}, 13), {1, 2, 2}, x),
             {1 / (1 + e), 3 / (3 + e), e / (1 + e), e / (3 + e)});
}

}  // namespace
