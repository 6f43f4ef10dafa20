// Every gradient function against central differences in float64
// (tests/training/grad_check.h), including broadcasting shapes and each
// attr that changes the formula.
#include "tests/training/grad_check.h"

namespace grt_test {
namespace {

const grt_dtype F64 = GRT_FLOAT64;

grt_tensor* Ints32(const std::vector<int64_t>& dims, const std::vector<double>& v) {
  return Tensor(GRT_INT32, dims, v);
}

TEST(OpGradients, BinaryWithBroadcasting) {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "SquaredDifference"}) {
    GradCheck(op).Type("T", F64).X({2, 3}).X({3}, {}, 0.5, 1.5).Check();
    GradCheck(op).Type("T", F64).X({2, 1}, {}, 0.5, 1.5).X({1, 3}, {}, 0.5, 1.5).Check();
    GradCheck(op).Type("T", F64).X({}, {}, 0.5, 1.5).X({2, 2}, {}, 0.5, 1.5).Check();
    GradCheck(op).Type("T", F64).X({2, 3}).X({2, 3}, {}, 0.5, 1.5).Check();
  }
}

TEST(OpGradients, MaximumMinimum) {
  // no ties: the derivative is undefined there
  for (const char* op : {"Maximum", "Minimum"}) {
    GradCheck(op)
        .Type("T", F64)
        .X({2, 3}, {0.1, -0.5, 0.9, 0.3, -0.2, 0.7})
        .X({3}, {0.2, 0.0, 0.5})
        .Check();
  }
}

TEST(OpGradients, Pow) {
  GradCheck("Pow").Type("T", F64).X({2, 3}, {}, 0.5, 2.0).X({3}, {}, -1.5, 2.5).Check();
  GradCheck("Pow").Type("T", F64).X({3}, {}, 0.5, 2.0).X({}, {2.5}).Check();
}

TEST(OpGradients, Unary) {
  for (const char* op : {"Neg", "Square", "Exp", "Tanh", "Sigmoid"})
    GradCheck(op).Type("T", F64).X({2, 3}, {}, -2, 2).Check();
  for (const char* op : {"Sqrt", "Rsqrt", "Log"})
    GradCheck(op).Type("T", F64).X({2, 3}, {}, 0.5, 3).Check();
  GradCheck("Abs").Type("T", F64).X({4}, {-1.5, -0.2, 0.3, 2.0}).Check();
  GradCheck("Relu").Type("T", F64).X({5}, {-1.5, -0.2, 0.3, 2.0, 0.01}).Check();
}

TEST(OpGradients, SecondOrderOfActivations) {
  for (const char* op : {"TanhGrad", "SigmoidGrad"})
    GradCheck(op).Type("T", F64).X({2, 3}, {}, 0.1, 0.9).X({2, 3}).Check();
  GradCheck("ReluGrad").Type("T", F64).X({4}).X({4}, {-1, 0.5, -0.25, 2}).Check();
}

TEST(OpGradients, SelectCastAddN) {
  GradCheck("Select")
      .Type("T", F64)
      .C(Tensor(GRT_BOOL, {2, 2}, {1, 0, 0, 1}))
      .X({2, 2})
      .X({2, 2})
      .Check();
  GradCheck("Cast").Type("SrcT", F64).Type("DstT", F64).X({3}).Check();
  GradCheck("AddN").Type("T", F64).Int("N", 3).X({2, 2}).X({2, 2}).X({2, 2}).Check();
}

TEST(OpGradients, MatMulAllTransposes) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::to_string(ta) + std::to_string(tb));
      GradCheck("MatMul")
          .Type("T", F64)
          .Bool("transpose_a", ta)
          .Bool("transpose_b", tb)
          .X(ta ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{2, 3})
          .X(tb ? std::vector<int64_t>{4, 3} : std::vector<int64_t>{3, 4})
          .Check();
    }
}

TEST(OpGradients, BatchMatMulV2WithBroadcastBatch) {
  for (bool ax : {false, true})
    for (bool ay : {false, true}) {
      SCOPED_TRACE(std::to_string(ax) + std::to_string(ay));
      GradCheck("BatchMatMulV2")
          .Type("T", F64)
          .Bool("adj_x", ax)
          .Bool("adj_y", ay)
          .X(ax ? std::vector<int64_t>{2, 3, 2} : std::vector<int64_t>{2, 2, 3})
          .X(ay ? std::vector<int64_t>{4, 3} : std::vector<int64_t>{3, 4})
          .Check();
    }
}

TEST(OpGradients, Reductions) {
  for (const char* op : {"Sum", "Mean"}) {
    for (bool keep : {false, true}) {
      GradCheck(op).Type("T", F64).Bool("keep_dims", keep).X({2, 3, 2}).C(Ints32({1}, {1})).Check();
      GradCheck(op)
          .Type("T", F64)
          .Bool("keep_dims", keep)
          .X({2, 3})
          .C(Ints32({2}, {0, -1}))
          .Check();
      GradCheck(op).Type("T", F64).Bool("keep_dims", keep).X({2, 3}).C(Ints32({}, {-1})).Check();
      GradCheck(op).Type("T", F64).Bool("keep_dims", keep).X({2, 3}).C(Ints32({0}, {})).Check();
    }
  }
  // distinct values: the extremum is unique
  std::vector<double> v = {0.3, -0.1, 0.8, 0.5, -0.7, 0.2};
  for (const char* op : {"Max", "Min"})
    for (bool keep : {false, true}) {
      GradCheck(op).Type("T", F64).Bool("keep_dims", keep).X({2, 3}, v).C(Ints32({}, {1})).Check();
      GradCheck(op)
          .Type("T", F64)
          .Bool("keep_dims", keep)
          .X({2, 3}, v)
          .C(Ints32({2}, {0, 1}))
          .Check();
    }
}

TEST(OpGradients, ReshapingOps) {
  GradCheck("Identity").Type("T", F64).X({2, 3}).Check();
  GradCheck("Reshape").Type("T", F64).X({2, 3}).C(Ints32({2}, {3, -1})).Check();
  GradCheck("Squeeze").Type("T", F64).Ints("squeeze_dims", {1}).X({2, 1, 3}).Check();
  GradCheck("ExpandDims").Type("T", F64).X({2, 3}).C(Ints32({}, {1})).Check();
  GradCheck("Transpose").Type("T", F64).X({2, 3, 4}).C(Ints32({3}, {1, 2, 0})).Check();
  GradCheck("Tile").Type("T", F64).X({2, 3}).C(Ints32({2}, {2, 3})).Check();
  GradCheck("Fill").Type("T", F64).C(Ints32({2}, {2, 3})).X({}).Check();
  GradCheck("Slice").Type("T", F64).X({3, 4}).C(Ints32({2}, {1, 1})).C(Ints32({2}, {2, 2})).Check();
  GradCheck("Slice")
      .Type("T", F64)
      .X({2, 3, 4})
      .C(Ints32({3}, {0, 1, 2}))
      .C(Ints32({3}, {-1, 1, 2}))
      .Check();
  GradCheck("Slice").Type("T", F64).X({2, 3}).C(Ints32({2}, {0, 0})).C(Ints32({2}, {2, 3})).Check();
}

TEST(OpGradients, JoiningAndSplitting) {
  GradCheck("Pack").Type("T", F64).Int("N", 3).Int("axis", 1).X({2}).X({2}).X({2}).Check();
  for (int k : {0, 2})
    GradCheck("Unpack").Type("T", F64).Int("num", 3).Int("axis", 1).X({2, 3}).Output(k).Check();
  GradCheck("ConcatV2")
      .Type("T", F64)
      .Int("N", 3)
      .X({2, 1})
      .X({2, 3})
      .X({2, 2})
      .C(Ints32({}, {-1}))
      .Check();
  GradCheck("ConcatV2").Type("T", F64).Int("N", 2).X({1, 2}).X({3, 2}).C(Ints32({}, {0})).Check();
  for (int k : {0, 1})
    GradCheck("Split")
        .Type("T", F64)
        .Int("num_split", 2)
        .C(Ints32({}, {1}))
        .X({2, 4})
        .Output(k)
        .Check();
}

TEST(OpGradients, NeuralNetworkOps) {
  GradCheck("BiasAdd").Type("T", F64).X({2, 3}).X({3}).Check();
  GradCheck("BiasAdd").Type("T", F64).String("data_format", "NCHW").X({2, 3, 2, 2}).X({3}).Check();
  GradCheck("Softmax").Type("T", F64).X({2, 4}, {}, -2, 2).Check();
  GradCheck("SparseSoftmaxCrossEntropyWithLogits")
      .Type("T", F64)
      .Type("Tlabels", GRT_INT64)
      .X({3, 4}, {}, -2, 2)
      .C(Tensor(GRT_INT64, {3}, {1, 0, 3}))
      .Check();
  GradCheck("SoftmaxCrossEntropyWithLogits")
      .Type("T", F64)
      .X({2, 3}, {}, -2, 2)
      .X({2, 3}, {0.2, 0.5, 0.3, 0.1, 0.1, 0.8})
      .Check();
}

}  // namespace
}  // namespace grt_test
