// Shape functions called directly through grt_shape_ctx: element-wise,
// matrix, nn, reduction, source/state and metadata ops. (Array ops are in
// shape_fn_array_test.cc.)
#include <gtest/gtest.h>

#include "tests/ops/infer_helper.h"

namespace {

using grt_test::Infer;
using grt_test::S;
using grt_test::U;

// ---- element-wise ---------------------------------------------------------

TEST(ShapeFn, UnaryKeepsShape) {
  for (const char* op :
       {"Identity", "Neg", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Sigmoid", "Relu",
        "Abs", "ZerosLike", "OnesLike", "StopGradient", "LogicalNot", "Cast"}) {
    EXPECT_EQ(Infer(op).In(S({2, -1, 3})).Out(), "[2,?,3]") << op;
    EXPECT_EQ(Infer(op).In(U()).Out(), "<unknown>") << op;
  }
}

TEST(ShapeFn, BroadcastBinary) {
  EXPECT_EQ(Infer("Add").In(S({2, 3})).In(S({3})).Out(), "[2,3]");
  EXPECT_EQ(Infer("AddV2").In(S({4, 1, 5})).In(S({3, 1})).Out(), "[4,3,5]");
  EXPECT_EQ(Infer("Mul").In(S({})).In(S({7, 2})).Out(), "[7,2]");
  EXPECT_EQ(Infer("Sub").In(S({2, 3})).In(S({2, 3})).Out(), "[2,3]");
  EXPECT_EQ(Infer("RealDiv").In(S({0, 3})).In(S({1, 3})).Out(), "[0,3]");
  // Unknown dims: a known dim > 1 wins, 1 defers to the other side.
  EXPECT_EQ(Infer("Maximum").In(S({-1, 3})).In(S({5, -1})).Out(), "[5,3]");
  EXPECT_EQ(Infer("Minimum").In(S({-1})).In(S({1})).Out(), "[?]");
  EXPECT_EQ(Infer("Pow").In(S({-1})).In(S({-1})).Out(), "[?]");
  EXPECT_EQ(Infer("Add").In(S({-1, 4})).In(S({4})).Out(), "[?,4]");
  EXPECT_EQ(Infer("Add").In(S({-1, 1})).In(S({-1})).Out(), "[?,?]");
  EXPECT_EQ(Infer("Add").In(U()).In(S({3})).Out(), "<unknown>");
  EXPECT_EQ(Infer("Less").In(S({2, 1})).In(S({1, 6})).Out(), "[2,6]");
  EXPECT_EQ(Infer("SquaredDifference").In(S({3})).In(S({2, 1})).Out(), "[2,3]");
}

TEST(ShapeFn, BroadcastMismatchIsAnError) {
  EXPECT_EQ(Infer("Add").In(S({2, 3})).In(S({4})).Out(),
            "error: Incompatible shapes: [2,3] vs. [4]");
  Infer mul("Mul");
  mul.In(S({5, 0})).In(S({5, 2}));
  EXPECT_GRT_ERROR(mul.Run(), GRT_INVALID_ARGUMENT, "Incompatible shapes: [5,0] vs. [5,2]");
  Infer gt("Greater");
  gt.In(S({2, -1, 3})).In(S({2, 1, 4}));
  EXPECT_GRT_ERROR(gt.Run(), GRT_INVALID_ARGUMENT, "Incompatible shapes: [2,?,3] vs. [2,1,4]");
}

TEST(ShapeFn, EqualHonoursIncompatibleShapeError) {
  EXPECT_EQ(Infer("Equal").In(S({2})).In(S({3})).Out(), "error: Incompatible shapes: [2] vs. [3]");
  EXPECT_EQ(Infer("Equal").Bool("incompatible_shape_error", false).In(S({2})).In(S({3})).Out(),
            "<unknown>");
  EXPECT_EQ(Infer("Equal").Bool("incompatible_shape_error", false).In(S({2, 1})).In(S({3})).Out(),
            "[2,3]");
}

TEST(ShapeFn, MergingOps) {
  EXPECT_EQ(Infer("AddN").In(S({-1, 3})).In(S({2, -1})).In(U()).Out(), "[2,3]");
  EXPECT_EQ(Infer("ReluGrad").In(S({4, -1})).In(S({-1, 5})).Out(), "[4,5]");
  EXPECT_EQ(Infer("TanhGrad").In(U()).In(S({7})).Out(), "[7]");
  Infer bad("AddN");
  bad.In(S({2, 3})).In(S({2, 3})).In(S({3, 2}));
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT, "merging input 2");
  Infer bad2("SigmoidGrad");
  bad2.In(S({2})).In(S({2, 1}));
  EXPECT_GRT_ERROR(bad2.Run(), GRT_INVALID_ARGUMENT, "Shapes must be equal, but are [2] and [2,1]");
}

TEST(ShapeFn, Select) {
  EXPECT_EQ(Infer("Select").In(S({2, 3}), GRT_BOOL).In(S({2, -1})).In(S({-1, 3})).Out(), "[2,3]");
  EXPECT_EQ(Infer("Select").In(S({}), GRT_BOOL).In(S({4, 5})).In(S({4, 5})).Out(), "[4,5]");
  EXPECT_EQ(Infer("Select").In(S({-1}), GRT_BOOL).In(S({4, 5})).In(S({4, 5})).Out(), "[4,5]");
  EXPECT_EQ(Infer("Select").In(S({3}), GRT_BOOL).In(S({-1, 5})).In(U()).Out(), "[3,5]");
  Infer bad("Select");
  bad.In(S({2}), GRT_BOOL).In(S({3, 5})).In(S({3, 5}));
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT, "condition vector");
  Infer bad2("Select");
  bad2.In(S({3}), GRT_BOOL).In(S({3})).In(S({4}));
  EXPECT_GRT_ERROR(bad2.Run(), GRT_INVALID_ARGUMENT, "'t' and 'e' must have the same shape");
}

// ---- matrix products -------------------------------------------------------

TEST(ShapeFn, MatMul) {
  EXPECT_EQ(Infer("MatMul").In(S({2, 3})).In(S({3, 5})).Out(), "[2,5]");
  EXPECT_EQ(Infer("MatMul").Bool("transpose_a", true).In(S({3, 2})).In(S({3, 5})).Out(), "[2,5]");
  EXPECT_EQ(Infer("MatMul").Bool("transpose_b", true).In(S({2, 3})).In(S({5, 3})).Out(), "[2,5]");
  EXPECT_EQ(Infer("MatMul")
                .Bool("transpose_a", true)
                .Bool("transpose_b", true)
                .In(S({3, 2}))
                .In(S({5, 3}))
                .Out(),
            "[2,5]");
  EXPECT_EQ(Infer("MatMul").In(S({-1, 3})).In(U()).Out(), "[?,?]");
  EXPECT_EQ(Infer("MatMul").In(U()).In(S({-1, 7})).Out(), "[?,7]");
}

TEST(ShapeFn, MatMulErrors) {
  Infer inner("MatMul");
  inner.In(S({2, 3})).In(S({4, 5}));
  EXPECT_GRT_ERROR(inner.Run(), GRT_INVALID_ARGUMENT,
                   "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  // An empty inner dimension against a nonempty one is a mismatch too.
  Infer empty("MatMul");
  empty.In(S({2, 0})).In(S({3, 5}));
  EXPECT_GRT_ERROR(empty.Run(), GRT_INVALID_ARGUMENT,
                   "Matrix size-incompatible: In[0]: [2,0], In[1]: [3,5]");
  // Transposing makes the same shapes agree...
  EXPECT_EQ(Infer("MatMul").Bool("transpose_a", true).In(S({4, 3})).In(S({4, 5})).Out(), "[3,5]");
  // ...or disagree.
  Infer t("MatMul");
  t.Bool("transpose_b", true).In(S({2, 3})).In(S({3, 5}));
  EXPECT_GRT_ERROR(t.Run(), GRT_INVALID_ARGUMENT, "inner dimensions 3 and 5");
  Infer rank("MatMul");
  rank.In(S({2, 3, 4})).In(S({4, 5}));
  EXPECT_GRT_ERROR(rank.Run(), GRT_INVALID_ARGUMENT, "input 0 must be rank 2, but is rank 3");
}

TEST(ShapeFn, BatchMatMulV2) {
  EXPECT_EQ(Infer("BatchMatMulV2").In(S({7, 2, 3})).In(S({7, 3, 5})).Out(), "[7,2,5]");
  EXPECT_EQ(Infer("BatchMatMulV2").In(S({2, 3})).In(S({3, 5})).Out(), "[2,5]");
  // Batch dims broadcast.
  EXPECT_EQ(Infer("BatchMatMulV2").In(S({4, 1, 2, 3})).In(S({6, 3, 5})).Out(), "[4,6,2,5]");
  EXPECT_EQ(Infer("BatchMatMulV2").In(S({2, 3})).In(S({9, 3, 5})).Out(), "[9,2,5]");
  EXPECT_EQ(Infer("BatchMatMulV2")
                .Bool("adj_x", true)
                .Bool("adj_y", true)
                .In(S({8, 3, 2}))
                .In(S({8, 5, 3}))
                .Out(),
            "[8,2,5]");
  EXPECT_EQ(Infer("BatchMatMulV2").In(U()).In(S({3, 5})).Out(), "<unknown>");
  EXPECT_EQ(Infer("BatchMatMulV2").In(S({-1, 2, 3})).In(S({-1, 3, -1})).Out(), "[?,2,?]");
  Infer bad("BatchMatMulV2");
  bad.In(S({2, 2, 3})).In(S({3, 3, 5}));
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT, "Incompatible shapes: [2] vs. [3]");
  Infer inner("BatchMatMulV2");
  inner.Bool("adj_y", true).In(S({2, 3})).In(S({3, 5}));
  EXPECT_GRT_ERROR(inner.Run(), GRT_INVALID_ARGUMENT, "Matrix size-incompatible");
  Infer rank("BatchMatMulV2");
  rank.In(S({3})).In(S({3, 5}));
  EXPECT_GRT_ERROR(rank.Run(), GRT_INVALID_ARGUMENT, "must be at least rank 2");
}

// ---- nn ---------------------------------------------------------------------

TEST(ShapeFn, BiasAdd) {
  EXPECT_EQ(Infer("BiasAdd").In(S({8, 4})).In(S({4})).Out(), "[8,4]");
  EXPECT_EQ(Infer("BiasAdd").In(S({8, 5, 5, -1})).In(S({3})).Out(), "[8,5,5,3]");
  EXPECT_EQ(Infer("BiasAdd").Str("data_format", "NCHW").In(S({8, -1, 5, 5})).In(S({3})).Out(),
            "[8,3,5,5]");
  EXPECT_EQ(Infer("BiasAdd").In(U()).In(S({3})).Out(), "<unknown>");
  Infer bad("BiasAdd");
  bad.In(S({8, 4})).In(S({5}));
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT, "Dimensions must be equal, but are 4 and 5");
  Infer nchw("BiasAdd");
  nchw.Str("data_format", "NCHW").In(S({8, 4, 5, 5})).In(S({5}));
  EXPECT_GRT_ERROR(nchw.Run(), GRT_INVALID_ARGUMENT, "but are 4 and 5");
  Infer fmt("BiasAdd");
  fmt.Str("data_format", "HWCN").In(S({8, 4})).In(S({4}));
  EXPECT_GRT_ERROR(fmt.Run(), GRT_INVALID_ARGUMENT, "data_format must be NHWC or NCHW, got 'HWCN'");
  Infer rank("BiasAdd");
  rank.In(S({4})).In(S({4}));
  EXPECT_GRT_ERROR(rank.Run(), GRT_INVALID_ARGUMENT, "must be at least rank 2");
}

TEST(ShapeFn, BiasAddGrad) {
  EXPECT_EQ(Infer("BiasAddGrad").In(S({8, 5, 5, 3})).Out(), "[3]");
  EXPECT_EQ(Infer("BiasAddGrad").Str("data_format", "NCHW").In(S({8, 3, 5, 5})).Out(), "[3]");
  EXPECT_EQ(Infer("BiasAddGrad").In(U()).Out(), "[?]");
}

TEST(ShapeFn, Softmax) {
  EXPECT_EQ(Infer("Softmax").In(S({2, 10})).Out(), "[2,10]");
  Infer scalar("Softmax");
  scalar.In(S({}));
  EXPECT_GRT_ERROR(scalar.Run(), GRT_INVALID_ARGUMENT, "must be at least rank 1");
}

TEST(ShapeFn, SparseSoftmaxCrossEntropy) {
  Infer x("SparseSoftmaxCrossEntropyWithLogits");
  x.In(S({-1, 10})).In(S({32}), GRT_INT64);
  grt_test::Status s(x.Run(2));
  ASSERT_TRUE(s.ok()) << s.msg();
  EXPECT_EQ(grt_test::Str(x.out(0)), "[32]");
  EXPECT_EQ(grt_test::Str(x.out(1)), "[32,10]");
  Infer u("SparseSoftmaxCrossEntropyWithLogits");
  u.In(U()).In(U(), GRT_INT64);
  grt_test::Status s2(u.Run(2));
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(grt_test::Str(u.out(0)), "[?]");
  EXPECT_EQ(grt_test::Str(u.out(1)), "[?,?]");
  Infer bad("SparseSoftmaxCrossEntropyWithLogits");
  bad.In(S({16, 10})).In(S({32}), GRT_INT64);
  EXPECT_GRT_ERROR(bad.Run(2), GRT_INVALID_ARGUMENT, "but are 16 and 32");
  Infer rank("SparseSoftmaxCrossEntropyWithLogits");
  rank.In(S({16, 10})).In(S({16, 1}), GRT_INT64);
  EXPECT_GRT_ERROR(rank.Run(2), GRT_INVALID_ARGUMENT, "input 1 must be rank 1");
}

TEST(ShapeFn, SoftmaxCrossEntropy) {
  Infer x("SoftmaxCrossEntropyWithLogits");
  x.In(S({-1, 10})).In(S({32, -1}));
  grt_test::Status s(x.Run(2));
  ASSERT_TRUE(s.ok()) << s.msg();
  EXPECT_EQ(grt_test::Str(x.out(0)), "[32]");
  EXPECT_EQ(grt_test::Str(x.out(1)), "[32,10]");
  Infer bad("SoftmaxCrossEntropyWithLogits");
  bad.In(S({4, 10})).In(S({4, 9}));
  EXPECT_GRT_ERROR(bad.Run(2), GRT_INVALID_ARGUMENT, "Incompatible shapes");
}

// ---- reductions -------------------------------------------------------------

TEST(ShapeFn, Reductions) {
  EXPECT_EQ(Infer("Sum").In(S({2, 3, 4})).Const({1}).Out(), "[2,4]");
  EXPECT_EQ(Infer("Mean").In(S({2, 3, 4})).Const({-1, 0}).Out(), "[3]");
  EXPECT_EQ(Infer("Max").Bool("keep_dims", true).In(S({2, 3, 4})).Const({0, 2}).Out(), "[1,3,1]");
  EXPECT_EQ(Infer("Min").In(S({2, 3})).Scalar(1).Out(), "[2]");
  EXPECT_EQ(Infer("Prod").In(S({2, 3})).Const({}).Out(), "[2,3]");
  EXPECT_EQ(Infer("Sum").In(S({2, 3})).Const({1, 1, -1}).Out(), "[2]");  // duplicates allowed
  EXPECT_EQ(Infer("Sum").In(S({2, 3})).Const({0, 1}, false, GRT_INT64).Out(), "[]");
  // Axes not constant.
  EXPECT_EQ(Infer("Sum").Bool("keep_dims", true).In(S({2, 3})).In(S({1}), GRT_INT32).Out(),
            "[?,?]");
  EXPECT_EQ(Infer("Sum").In(S({2, 3})).In(S({1}), GRT_INT32).Out(), "<unknown>");
  EXPECT_EQ(Infer("Sum").In(S({2, 3})).In(S({0}), GRT_INT32).Out(), "[2,3]");
  EXPECT_EQ(Infer("Sum").In(U()).Const({0}).Out(), "<unknown>");
}

TEST(ShapeFn, ReductionBadAxis) {
  Infer bad("Sum");
  bad.In(S({2, 3})).Const({2});
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT,
                   "Invalid reduction dimension 2 for input with 2 dimension(s)");
  Infer neg("Mean");
  neg.In(S({2, 3})).Const({-3});
  EXPECT_GRT_ERROR(neg.Run(), GRT_INVALID_ARGUMENT, "Invalid reduction dimension -3");
}

TEST(ShapeFn, ArgMax) {
  EXPECT_EQ(Infer("ArgMax").In(S({4, 10})).Scalar(1).Out(), "[4]");
  EXPECT_EQ(Infer("ArgMax").In(S({4, 10, 3})).Scalar(-2).Out(), "[4,3]");
  EXPECT_EQ(Infer("ArgMax").In(S({4, 10})).In(S({}), GRT_INT32).Out(), "[?]");
  EXPECT_EQ(Infer("ArgMax").In(S({10})).In(S({}), GRT_INT32).Out(), "[]");
  EXPECT_EQ(Infer("ArgMax").In(U()).Scalar(0).Out(), "<unknown>");
  Infer bad("ArgMax");
  bad.In(S({4, 10})).Scalar(2);
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT,
                   "Expected dimension in the range [-2, 2), but got 2");
  Infer vec("ArgMax");
  vec.In(S({4, 10})).Const({1});
  EXPECT_GRT_ERROR(vec.Run(), GRT_INVALID_ARGUMENT, "input 1 must be rank 0");
}

// ---- sources, state, random, optimizers --------------------------------------

TEST(ShapeFn, PlaceholderAndVariables) {
  EXPECT_EQ(Infer("Placeholder").Type("dtype", GRT_FLOAT32).Out(), "<unknown>");
  EXPECT_EQ(Infer("Placeholder").Type("dtype", GRT_FLOAT32).Shape("shape", S({-1, 784})).Out(),
            "[?,784]");
  EXPECT_EQ(Infer("VariableV2").Type("dtype", GRT_FLOAT32).Shape("shape", S({784, 10})).Out(),
            "[784,10]");
  EXPECT_EQ(Infer("VariableV2").Type("dtype", GRT_FLOAT32).Shape("shape", S({})).Out(), "[]");
  // The legacy op reads a scalar shape attr as unknown, as TensorFlow does.
  EXPECT_EQ(Infer("Variable").Type("dtype", GRT_FLOAT32).Shape("shape", S({})).Out(), "<unknown>");
  EXPECT_EQ(Infer("Variable").Type("dtype", GRT_FLOAT32).Shape("shape", S({3})).Out(), "[3]");
  Infer missing("VariableV2");
  missing.Type("dtype", GRT_FLOAT32);
  EXPECT_GRT_ERROR(missing.Run(), GRT_INVALID_ARGUMENT, "attr 'shape' is missing");
  Infer wrong("VariableV2");
  wrong.Type("dtype", GRT_FLOAT32).Int("shape", 3);
  EXPECT_GRT_ERROR(wrong.Run(), GRT_INVALID_ARGUMENT, "attr 'shape' must be shape, got int");
}

TEST(ShapeFn, Const) {
  EXPECT_EQ(Infer("Const").Type("dtype", GRT_FLOAT32).Tensor("value", GRT_FLOAT32, S({2, 3})).Out(),
            "[2,3]");
  EXPECT_EQ(Infer("Const").Type("dtype", GRT_INT32).Tensor("value", GRT_INT32, S({})).Out(), "[]");
  Infer missing("Const");
  missing.Type("dtype", GRT_FLOAT32);
  EXPECT_GRT_ERROR(missing.Run(), GRT_INVALID_ARGUMENT, "attr 'value' is missing");
}

TEST(ShapeFn, Assign) {
  EXPECT_EQ(Infer("Assign").In(S({2, -1})).In(S({-1, 3})).Out(), "[2,3]");
  EXPECT_EQ(Infer("Assign").Bool("validate_shape", false).In(S({2, 3})).In(S({5})).Out(), "[5]");
  Infer bad("Assign");
  bad.In(S({2, 3})).In(S({3, 2}));
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT, "validate_shape=true");
  EXPECT_EQ(Infer("AssignAdd").In(S({2, 3})).In(U()).Out(), "[2,3]");
  Infer sub("AssignSub");
  sub.In(S({2, 3})).In(S({3}));
  EXPECT_GRT_ERROR(sub.Run(), GRT_INVALID_ARGUMENT, "Shapes must be equal");
}

TEST(ShapeFn, RandomFromShapeInput) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    EXPECT_EQ(Infer(op).Const({3, 4}).Out(), "[3,4]") << op;
    EXPECT_EQ(Infer(op).Const({5}, false, GRT_INT64).Out(), "[5]") << op;
  }
  EXPECT_EQ(Infer("RandomUniform").In(S({3}), GRT_INT32).Out(), "[?,?,?]");
  EXPECT_EQ(Infer("RandomUniform").In(S({-1}), GRT_INT32).Out(), "<unknown>");
  EXPECT_EQ(Infer("RandomUniform").Const({2, -1}).Out(), "[2,?]");
  Infer neg("RandomUniform");
  neg.Const({2, -5});
  EXPECT_GRT_ERROR(neg.Run(), GRT_INVALID_ARGUMENT, "shape[1] = -5 is negative");
  Infer deep("RandomUniform");
  deep.Const({1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_GRT_ERROR(deep.Run(), GRT_INVALID_ARGUMENT, "above the maximum 8");
  Infer deep2("TruncatedNormal");
  deep2.In(S({9}), GRT_INT32);
  EXPECT_GRT_ERROR(deep2.Run(), GRT_INVALID_ARGUMENT, "above the maximum 8");
}

TEST(ShapeFn, ApplyOps) {
  EXPECT_EQ(Infer("ApplyGradientDescent").In(S({3, 4})).In(S({})).In(S({-1, 4})).Out(), "[3,4]");
  EXPECT_EQ(Infer("ApplyMomentum").In(S({-1, 4})).In(S({3, -1})).In(S({})).In(U()).In(S({})).Out(),
            "[3,4]");
  Infer adam("ApplyAdam");
  adam.In(S({5})).In(S({5})).In(S({5}));
  for (int i = 0; i < 6; i++) adam.In(S({}));
  adam.In(S({5}));
  EXPECT_EQ(adam.Out(), "[5]");
  Infer bad("ApplyGradientDescent");
  bad.In(S({3, 4})).In(S({1})).In(S({3, 4}));
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT, "'alpha' must be a scalar, got shape [1]");
  Infer grad("ApplyAdam");
  grad.In(S({5})).In(S({5})).In(S({5}));
  for (int i = 0; i < 6; i++) grad.In(S({}));
  grad.In(S({6}));
  EXPECT_GRT_ERROR(grad.Run(), GRT_INVALID_ARGUMENT, "'grad' must have the shape of 'var'");
  Infer slot("ApplyMomentum");
  slot.In(S({5})).In(S({4})).In(S({})).In(S({5})).In(S({}));
  EXPECT_GRT_ERROR(slot.Run(), GRT_INVALID_ARGUMENT, "'accum' must have the shape of 'var'");
}

// ---- metadata ---------------------------------------------------------------

TEST(ShapeFn, ShapeSizeRank) {
  EXPECT_EQ(Infer("Shape").In(S({2, -1, 3})).Out(), "[3]");
  EXPECT_EQ(Infer("Shape").In(U()).Out(), "[?]");
  EXPECT_EQ(Infer("Shape").In(S({})).Out(), "[0]");
  EXPECT_EQ(Infer("Size").In(S({2, 3})).Out(), "[]");
  EXPECT_EQ(Infer("Rank").In(U()).Out(), "[]");
}

TEST(ShapeFn, GuardsAgainstWrongArity) {
  Infer few("MatMul");
  few.In(S({2, 3}));
  EXPECT_GRT_ERROR(few.Run(), GRT_INTERNAL, "expects 2 inputs");
  Infer none("Identity");
  EXPECT_GRT_ERROR(none.Run(0), GRT_INTERNAL, "expects 1 inputs and 1 outputs");
}

}  // namespace
