// Shape functions of array ops, called directly through grt_shape_ctx:
// reshaping, joining, splitting, slicing, tiling.
#include <gtest/gtest.h>

#include "tests/ops/infer_helper.h"

namespace {

using grt_test::Infer;
using grt_test::S;
using grt_test::U;

// ---- Reshape / Squeeze / ExpandDims -----------------------------------------

TEST(ShapeFnArray, Reshape) {
  EXPECT_EQ(Infer("Reshape").In(S({2, 3})).Const({3, 2}).Out(), "[3,2]");
  EXPECT_EQ(Infer("Reshape").In(S({2, 3})).Const({-1}).Out(), "[6]");
  EXPECT_EQ(Infer("Reshape").In(S({2, 3, 4})).Const({-1, 4}, false, GRT_INT64).Out(), "[6,4]");
  EXPECT_EQ(Infer("Reshape").In(S({2, 3})).Const({}).Out(),
            "error: Cannot reshape a tensor with 6 elements to shape [] (1 elements)");
  EXPECT_EQ(Infer("Reshape").In(S({1})).Const({}).Out(), "[]");
  // Unknown input: -1 stays unknown, the rest is taken as written.
  EXPECT_EQ(Infer("Reshape").In(S({-1, 3})).Const({-1, 3}).Out(), "[?,3]");
  EXPECT_EQ(Infer("Reshape").In(U()).Const({4, 5}).Out(), "[4,5]");
  // Shape not constant: its length still gives the rank.
  EXPECT_EQ(Infer("Reshape").In(S({2, 3})).In(S({3}), GRT_INT32).Out(), "[?,?,?]");
  EXPECT_EQ(Infer("Reshape").In(S({2, 3})).In(S({-1}), GRT_INT32).Out(), "<unknown>");
  // Empty tensors: zeros are left out of both products, as the kernel does
  // (ops/reshape.h), so a -1 next to a 0 is still told.
  EXPECT_EQ(Infer("Reshape").In(S({0, 3})).Const({-1, 0}).Out(), "[3,0]");
}

TEST(ShapeFnArray, ReshapeErrors) {
  EXPECT_EQ(Infer("Reshape").In(S({2, 3})).Const({4}).Out(),
            "error: Cannot reshape a tensor with 6 elements to shape [4] (4 elements)");
  Infer inexact("Reshape");
  inexact.In(S({2, 3})).Const({-1, 4});
  EXPECT_GRT_ERROR(inexact.Run(), GRT_INVALID_ARGUMENT, "Cannot reshape a tensor with 6 elements");
  Infer zero("Reshape");
  zero.In(S({2, 3})).Const({0, -1});
  EXPECT_GRT_ERROR(zero.Run(), GRT_INVALID_ARGUMENT, "Cannot reshape a tensor with 6 elements");
  Infer two("Reshape");
  two.In(S({2, 3})).Const({-1, -1});
  EXPECT_GRT_ERROR(two.Run(), GRT_INVALID_ARGUMENT,
                   "Only one input size may be -1, not both 0 and 1");
  Infer neg("Reshape");
  neg.In(S({2, 3})).Const({-2, 3});
  EXPECT_GRT_ERROR(neg.Run(), GRT_INVALID_ARGUMENT, "Size 0 must be non-negative, not -2");
  Infer deep("Reshape");
  deep.In(S({1})).Const({1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_GRT_ERROR(deep.Run(), GRT_INVALID_ARGUMENT, "above the maximum 8");
  Infer deep2("Reshape");
  deep2.In(U()).In(S({12}), GRT_INT32);
  EXPECT_GRT_ERROR(deep2.Run(), GRT_INVALID_ARGUMENT, "above the maximum 8");
  Infer mat("Reshape");
  mat.In(S({2, 3})).In(S({2, 2}), GRT_INT32);
  EXPECT_GRT_ERROR(mat.Run(), GRT_INVALID_ARGUMENT, "input 1 must be rank 1");
}

TEST(ShapeFnArray, Squeeze) {
  EXPECT_EQ(Infer("Squeeze").In(S({1, 3, 1})).Out(), "[3]");
  EXPECT_EQ(Infer("Squeeze").Ints("squeeze_dims", {0}).In(S({1, 3, 1})).Out(), "[3,1]");
  EXPECT_EQ(Infer("Squeeze").Ints("squeeze_dims", {-1}).In(S({1, 3, 1})).Out(), "[1,3]");
  EXPECT_EQ(Infer("Squeeze").In(S({-1, 3, 1})).Out(), "<unknown>");
  EXPECT_EQ(Infer("Squeeze").Ints("squeeze_dims", {2}).In(S({-1, 3, 1})).Out(), "[?,3]");
  EXPECT_EQ(Infer("Squeeze").Ints("squeeze_dims", {0}).In(S({-1, 3})).Out(), "[3]");
  EXPECT_EQ(Infer("Squeeze").In(U()).Out(), "<unknown>");
  Infer not_one("Squeeze");
  not_one.Ints("squeeze_dims", {1}).In(S({1, 3, 1}));
  EXPECT_GRT_ERROR(not_one.Run(), GRT_INVALID_ARGUMENT,
                   "Can not squeeze dim[1], expected a dimension of 1, got 3");
  Infer range("Squeeze");
  range.Ints("squeeze_dims", {3}).In(S({1, 3, 1}));
  EXPECT_GRT_ERROR(range.Run(), GRT_INVALID_ARGUMENT,
                   "Tried to squeeze dim index 3 for tensor with 3 dimensions");
}

TEST(ShapeFnArray, ExpandDims) {
  EXPECT_EQ(Infer("ExpandDims").In(S({2, 3})).Scalar(0).Out(), "[1,2,3]");
  EXPECT_EQ(Infer("ExpandDims").In(S({2, 3})).Scalar(-1).Out(), "[2,3,1]");
  EXPECT_EQ(Infer("ExpandDims").In(S({2, 3})).Scalar(2).Out(), "[2,3,1]");
  EXPECT_EQ(Infer("ExpandDims").In(S({2, 3})).Scalar(-3).Out(), "[1,2,3]");
  EXPECT_EQ(Infer("ExpandDims").In(S({2, 3})).Const({1}).Out(), "[2,1,3]");
  EXPECT_EQ(Infer("ExpandDims").In(S({})).Scalar(0).Out(), "[1]");
  EXPECT_EQ(Infer("ExpandDims").In(S({2, 3})).In(S({}), GRT_INT32).Out(), "[?,?,?]");
  EXPECT_EQ(Infer("ExpandDims").In(U()).Scalar(0).Out(), "<unknown>");
  Infer bad("ExpandDims");
  bad.In(S({2, 3})).Scalar(3);
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT,
                   "Tried to expand dim index 3 for tensor with 2 dimensions");
  Infer bad_neg("ExpandDims");
  bad_neg.In(S({2, 3})).Scalar(-4);
  EXPECT_GRT_ERROR(bad_neg.Run(), GRT_INVALID_ARGUMENT, "Tried to expand dim index -4");
  Infer deep("ExpandDims");
  deep.In(S({1, 1, 1, 1, 1, 1, 1, 1})).Scalar(0);
  EXPECT_GRT_ERROR(deep.Run(), GRT_INVALID_ARGUMENT, "rank 9, above the maximum 8");
  Infer two("ExpandDims");
  two.In(S({2})).Const({0, 1});
  EXPECT_GRT_ERROR(two.Run(), GRT_INVALID_ARGUMENT, "must be a scalar, got 2 values");
}

// ---- Pack / Unpack / ConcatV2 / Split ----------------------------------------

TEST(ShapeFnArray, Pack) {
  EXPECT_EQ(Infer("Pack").In(S({2, 3})).In(S({2, 3})).In(S({2, 3})).Out(), "[3,2,3]");
  EXPECT_EQ(Infer("Pack").Int("axis", 1).In(S({2, 3})).In(S({2, 3})).Out(), "[2,2,3]");
  EXPECT_EQ(Infer("Pack").Int("axis", -1).In(S({2, -1})).In(S({-1, 3})).Out(), "[2,3,2]");
  EXPECT_EQ(Infer("Pack").In(S({})).In(S({})).Out(), "[2]");
  EXPECT_EQ(Infer("Pack").In(U()).In(U()).Out(), "<unknown>");
  Infer mismatch("Pack");
  mismatch.In(S({2})).In(S({3}));
  EXPECT_GRT_ERROR(
      mismatch.Run(), GRT_INVALID_ARGUMENT,
      "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]");
  Infer axis("Pack");
  axis.Int("axis", 3).In(S({2, 3})).In(S({2, 3}));
  EXPECT_GRT_ERROR(axis.Run(), GRT_INVALID_ARGUMENT, "Invalid axis: 3; must be in [-3,3)");
  Infer deep("Pack");
  deep.In(S({1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_GRT_ERROR(deep.Run(), GRT_INVALID_ARGUMENT, "above the maximum 8");
}

TEST(ShapeFnArray, Unpack) {
  Infer u("Unpack");
  u.Int("num", 3).In(S({3, 4}));
  grt_test::Status s(u.Run(3));
  ASSERT_TRUE(s.ok()) << s.msg();
  for (size_t k = 0; k < 3; k++) EXPECT_EQ(grt_test::Str(u.out(k)), "[4]");
  EXPECT_EQ(Infer("Unpack").Int("num", 4).Int("axis", -1).In(S({3, 4})).Out(0, 4), "[3]");
  EXPECT_EQ(Infer("Unpack").Int("num", 2).In(S({-1, 5})).Out(1, 2), "[5]");
  EXPECT_EQ(Infer("Unpack").Int("num", 2).In(U()).Out(1, 2), "<unknown>");
  Infer empty("Unpack");  // a known 0 is not 2
  empty.Int("num", 2).In(S({0, 5}));
  EXPECT_GRT_ERROR(empty.Run(2), GRT_INVALID_ARGUMENT, "Dimension 0 must be 2 (attr num) but is 0");
  Infer bad("Unpack");
  bad.Int("num", 2).In(S({3, 4}));
  EXPECT_GRT_ERROR(bad.Run(2), GRT_INVALID_ARGUMENT, "Dimension 0 must be 2 (attr num) but is 3");
  Infer axis("Unpack");
  axis.Int("num", 3).Int("axis", 2).In(S({3, 4}));
  EXPECT_GRT_ERROR(axis.Run(3), GRT_INVALID_ARGUMENT, "axis = 2 not in [-2, 2)");
}

TEST(ShapeFnArray, ConcatV2) {
  EXPECT_EQ(Infer("ConcatV2").In(S({2, 3})).In(S({2, 5})).Scalar(1).Out(), "[2,8]");
  EXPECT_EQ(Infer("ConcatV2").In(S({2, 3})).In(S({4, 3})).In(S({1, 3})).Scalar(0).Out(), "[7,3]");
  EXPECT_EQ(Infer("ConcatV2").In(S({2, 3})).In(S({-1, 5})).Scalar(-1).Out(), "[2,8]");
  EXPECT_EQ(Infer("ConcatV2").In(S({2, -1})).In(S({2, 5})).Scalar(1).Out(), "[2,?]");
  EXPECT_EQ(Infer("ConcatV2").In(S({2, 3})).In(U()).Scalar(1).Out(), "[2,?]");
  EXPECT_EQ(Infer("ConcatV2").In(S({2, 3})).In(S({2, 5})).In(S({}), GRT_INT32).Out(), "[?,?]");
  EXPECT_EQ(Infer("ConcatV2").In(U()).In(U()).Scalar(0).Out(), "<unknown>");
  Infer dims("ConcatV2");
  dims.In(S({2, 3})).In(S({2, 5})).Scalar(0);
  EXPECT_GRT_ERROR(dims.Run(), GRT_INVALID_ARGUMENT,
                   "Dimension 1 in both shapes must be equal, but are 3 and 5");
  Infer rank("ConcatV2");
  rank.In(S({2, 3})).In(S({2, 3, 1})).Scalar(0);
  EXPECT_GRT_ERROR(rank.Run(), GRT_INVALID_ARGUMENT, "Shape must be rank 2 but is rank 3");
  Infer axis("ConcatV2");
  axis.In(S({2, 3})).In(S({2, 3})).Scalar(2);
  EXPECT_GRT_ERROR(axis.Run(), GRT_INVALID_ARGUMENT,
                   "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2");
  Infer scalars("ConcatV2");
  scalars.In(S({})).In(S({})).Scalar(0);
  EXPECT_GRT_ERROR(scalars.Run(), GRT_INVALID_ARGUMENT, "range [0, 0)");
}

TEST(ShapeFnArray, Split) {
  Infer sp("Split");
  sp.Int("num_split", 3).Scalar(0).In(S({6, 4}));
  grt_test::Status s(sp.Run(3));
  ASSERT_TRUE(s.ok()) << s.msg();
  for (size_t k = 0; k < 3; k++) EXPECT_EQ(grt_test::Str(sp.out(k)), "[2,4]");
  EXPECT_EQ(Infer("Split").Int("num_split", 2).Scalar(-1).In(S({6, 4})).Out(1, 2), "[6,2]");
  EXPECT_EQ(Infer("Split").Int("num_split", 2).Scalar(0).In(S({-1, 4})).Out(1, 2), "[?,4]");
  EXPECT_EQ(Infer("Split").Int("num_split", 2).In(S({}), GRT_INT32).In(S({6, 4})).Out(0, 2),
            "[?,?]");
  EXPECT_EQ(Infer("Split").Int("num_split", 2).Scalar(0).In(U()).Out(0, 2), "<unknown>");
  Infer uneven("Split");
  uneven.Int("num_split", 2).Scalar(1).In(S({6, 5}));
  EXPECT_GRT_ERROR(uneven.Run(2), GRT_INVALID_ARGUMENT,
                   "Number of ways to split should evenly divide the split dimension, but got "
                   "split_dim 1 (size = 5) and num_split 2");
  Infer axis("Split");
  axis.Int("num_split", 2).Scalar(2).In(S({6, 4}));
  EXPECT_GRT_ERROR(axis.Run(2), GRT_INVALID_ARGUMENT, "split_dim 2 must be in the range [-2, 2)");
}

// ---- Slice / StridedSlice ---------------------------------------------------

TEST(ShapeFnArray, Slice) {
  EXPECT_EQ(Infer("Slice").In(S({10, 8})).Const({2, 1}).Const({3, -1}).Out(), "[3,7]");
  EXPECT_EQ(Infer("Slice").In(S({10, 8})).In(S({2}), GRT_INT32).Const({3, -1}).Out(), "[3,?]");
  EXPECT_EQ(Infer("Slice").In(S({10, 8})).In(S({2}), GRT_INT32).In(S({2}), GRT_INT32).Out(),
            "[?,?]");
  EXPECT_EQ(Infer("Slice").In(U()).In(S({3}), GRT_INT32).In(S({-1}), GRT_INT32).Out(), "[?,?,?]");
  EXPECT_EQ(Infer("Slice").In(S({-1, 8})).Const({0, 0}).Const({-1, -1}).Out(), "[?,8]");
  EXPECT_EQ(Infer("Slice").In(U()).In(S({-1}), GRT_INT32).In(S({-1}), GRT_INT32).Out(),
            "<unknown>");
  Infer big("Slice");
  big.In(S({10})).Const({8}).Const({5});
  EXPECT_GRT_ERROR(big.Run(), GRT_INVALID_ARGUMENT, "Expected size[0] in [0, 2], but got 5");
  Infer begin("Slice");
  begin.In(S({10})).Const({11}).Const({-1});
  EXPECT_GRT_ERROR(begin.Run(), GRT_INVALID_ARGUMENT, "Expected begin[0] in [0, 10], but got 11");
  Infer count("Slice");
  count.In(S({10, 8})).Const({1}).Const({1});
  EXPECT_GRT_ERROR(count.Run(), GRT_INVALID_ARGUMENT,
                   "Expected begin and size arguments to be 1-D tensors of size 2");
  Infer neg("Slice");
  neg.In(S({10})).Const({0}).Const({-2});
  EXPECT_GRT_ERROR(neg.Run(), GRT_INVALID_ARGUMENT, "Expected size[0] >= -1, but got -2");
}

// x[begin:end:strides] with masks, as Python's slicing produces them.
struct SS {
  grt_shape in;
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
};

std::string RunSS(const SS& c) {
  Infer i("StridedSlice");
  i.Int("begin_mask", c.begin_mask)
      .Int("end_mask", c.end_mask)
      .Int("ellipsis_mask", c.ellipsis_mask)
      .Int("new_axis_mask", c.new_axis_mask)
      .Int("shrink_axis_mask", c.shrink_axis_mask)
      .In(c.in)
      .Const(c.begin)
      .Const(c.end)
      .Const(c.strides);
  return i.Out();
}

TEST(ShapeFnArray, StridedSlice) {
  EXPECT_EQ(RunSS({S({10, 8}), {1}, {5}, {1}, 0, 0, 0, 0, 0}), "[4,8]");             // x[1:5]
  EXPECT_EQ(RunSS({S({10, 8}), {0, 3}, {0, 4}, {1, 1}, 1, 1, 0, 0, 2}), "[10]");     // x[:, 3]
  EXPECT_EQ(RunSS({S({8}), {0}, {0}, {-1}, 1, 1, 0, 0, 0}), "[8]");                  // x[::-1]
  EXPECT_EQ(RunSS({S({7}), {0}, {0}, {2}, 1, 1, 0, 0, 0}), "[4]");                   // x[::2]
  EXPECT_EQ(RunSS({S({7}), {0}, {0}, {-3}, 1, 1, 0, 0, 0}), "[3]");                  // x[::-3]
  EXPECT_EQ(RunSS({S({10}), {1}, {-1}, {1}, 0, 0, 0, 0, 0}), "[8]");                 // x[1:-1]
  EXPECT_EQ(RunSS({S({10}), {5}, {1}, {1}, 0, 0, 0, 0, 0}), "[0]");                  // x[5:1]
  EXPECT_EQ(RunSS({S({10}), {5}, {1}, {-1}, 0, 0, 0, 0, 0}), "[4]");                 // x[5:1:-1]
  EXPECT_EQ(RunSS({S({10}), {-100}, {100}, {1}, 0, 0, 0, 0, 0}), "[10]");            // clamped
  EXPECT_EQ(RunSS({S({10}), {3}, {4}, {1}, 0, 0, 0, 0, 1}), "[]");                   // x[3]
  EXPECT_EQ(RunSS({S({10}), {-1}, {0}, {1}, 0, 0, 0, 0, 1}), "[]");                  // x[-1]
  EXPECT_EQ(RunSS({S({2, 3, 4}), {0, 0}, {0, 1}, {1, 1}, 0, 0, 1, 0, 2}), "[2,3]");  // x[..., 0]
  EXPECT_EQ(RunSS({S({2, 3, 4}), {1, 0}, {2, 0}, {1, 1}, 0, 0, 2, 0, 0}),
            "[1,3,4]");  // x[1:2, ...]
  EXPECT_EQ(RunSS({S({5, 6}), {0, 0, 1}, {0, 0, 3}, {1, 1, 1}, 2, 2, 0, 1, 0}),
            "[1,5,2]");  // x[None, :, 1:3]
  EXPECT_EQ(RunSS({S({5, 6}), {0, 0}, {0, 0}, {1, 1}, 0, 0, 1, 2, 0}), "[5,6,1]");  // x[..., None]
  EXPECT_EQ(RunSS({S({-1, 8}), {0, 1}, {0, 3}, {1, 1}, 1, 1, 0, 0, 0}), "[?,2]");   // x[:, 1:3]
  EXPECT_EQ(RunSS({S({-1, 8}), {2}, {0}, {1}, 0, 0, 0, 0, 1}), "[8]");  // x[2] unknown dim
}

TEST(ShapeFnArray, StridedSliceUnknowns) {
  // begin/end not constant: masked or shrunk dims are still known.
  Infer masked("StridedSlice");
  masked.Int("begin_mask", 1)
      .Int("end_mask", 1)
      .In(S({10, 8}))
      .In(S({1}), GRT_INT32)
      .In(S({1}), GRT_INT32)
      .Const({2});
  EXPECT_EQ(masked.Out(), "[5,8]");
  Infer open("StridedSlice");
  open.In(S({10, 8})).In(S({1}), GRT_INT32).In(S({1}), GRT_INT32).Const({1});
  EXPECT_EQ(open.Out(), "[?,8]");
  Infer no_strides("StridedSlice");
  no_strides.In(S({10, 8})).Const({0}).Const({1}).In(S({1}), GRT_INT32);
  EXPECT_EQ(no_strides.Out(), "<unknown>");
  EXPECT_EQ(RunSS({U(), {0}, {1}, {1}, 0, 0, 0, 0, 0}), "<unknown>");
}

TEST(ShapeFnArray, StridedSliceErrors) {
  EXPECT_EQ(RunSS({S({10}), {10}, {11}, {1}, 0, 0, 0, 0, 1}),
            "error: slice index 10 of dimension 0 out of bounds.");
  EXPECT_EQ(RunSS({S({10}), {0}, {5}, {0}, 0, 0, 0, 0, 0}), "error: strides[0] must be non-zero");
  EXPECT_EQ(RunSS({S({2, 3}), {0, 0}, {0, 0}, {1, 1}, 0, 0, 3, 0, 0}),
            "error: Multiple ellipses in slice spec not allowed");
  EXPECT_EQ(RunSS({S({10, 8}), {1, 2, 3}, {2, 3, 4}, {1, 1, 1}, 0, 0, 0, 0, 0}),
            "error: Index out of range using input dim 2; input has only 2 dims");
  EXPECT_EQ(RunSS({S({10}), {0}, {5}, {1, 1}, 0, 0, 0, 0, 0})
                .rfind("error: Expected begin, end, and strides", 0),
            0u);
  EXPECT_EQ(RunSS({S({1, 1, 1, 1, 1, 1, 1, 1}), {0, 0}, {0, 0}, {1, 1}, 0, 0, 2, 1, 0}),
            "error: result would have rank 9, above the maximum 8");
}

// ---- Tile / Transpose / Fill / OneHot / BroadcastGradientArgs -----------------

TEST(ShapeFnArray, Tile) {
  EXPECT_EQ(Infer("Tile").In(S({2, 3})).Const({2, 1}).Out(), "[4,3]");
  EXPECT_EQ(Infer("Tile").In(S({-1, 3})).Const({2, 0}).Out(), "[?,0]");
  EXPECT_EQ(Infer("Tile").In(S({2, 3})).In(S({2}), GRT_INT32).Out(), "[?,?]");
  EXPECT_EQ(Infer("Tile").In(U()).Const({2, 2, 2}).Out(), "[?,?,?]");
  Infer len("Tile");
  len.In(S({2, 3})).Const({2});
  EXPECT_GRT_ERROR(len.Run(), GRT_INVALID_ARGUMENT,
                   "Expected multiples argument to be a vector of length 2 but got length 1");
  Infer neg("Tile");
  neg.In(S({2, 3})).Const({2, -1});
  EXPECT_GRT_ERROR(neg.Run(), GRT_INVALID_ARGUMENT, "Expected multiples[1] >= 0, but got -1");
}

TEST(ShapeFnArray, Transpose) {
  EXPECT_EQ(Infer("Transpose").In(S({2, 3, 4})).Const({2, 0, 1}).Out(), "[4,2,3]");
  EXPECT_EQ(Infer("Transpose").In(S({2, -1})).Const({1, 0}).Out(), "[?,2]");
  EXPECT_EQ(Infer("Transpose").In(S({2, 3, 4})).In(S({3}), GRT_INT32).Out(), "[?,?,?]");
  EXPECT_EQ(Infer("Transpose").In(U()).Const({1, 0}).Out(), "[?,?]");
  Infer dup("Transpose");
  dup.In(S({2, 3})).Const({0, 0});
  EXPECT_GRT_ERROR(dup.Run(), GRT_INVALID_ARGUMENT, "perm is not a permutation: perm[1] = 0");
  Infer range("Transpose");
  range.In(S({2, 3})).Const({0, 2});
  EXPECT_GRT_ERROR(range.Run(), GRT_INVALID_ARGUMENT, "perm is not a permutation");
  Infer len("Transpose");
  len.In(S({2, 3})).Const({0, 1, 2});
  EXPECT_GRT_ERROR(len.Run(), GRT_INVALID_ARGUMENT, "transpose expects a vector of size 2");
}

TEST(ShapeFnArray, Fill) {
  EXPECT_EQ(Infer("Fill").Const({2, 3}).In(S({})).Out(), "[2,3]");
  EXPECT_EQ(Infer("Fill").Const({}).In(S({})).Out(), "[]");
  EXPECT_EQ(Infer("Fill").In(S({2}), GRT_INT32).In(S({})).Out(), "[?,?]");
  EXPECT_EQ(Infer("Fill").In(S({-1}), GRT_INT32).In(S({})).Out(), "<unknown>");
  Infer neg("Fill");
  neg.Const({2, -3}).In(S({}));
  EXPECT_GRT_ERROR(neg.Run(), GRT_INVALID_ARGUMENT, "Fill dimensions must be >= 0");
  Infer value("Fill");
  value.Const({2}).In(S({2}));
  EXPECT_GRT_ERROR(value.Run(), GRT_INVALID_ARGUMENT, "input 1 must be rank 0");
  Infer deep("Fill");
  deep.Const({1, 1, 1, 1, 1, 1, 1, 1, 1}).In(S({}));
  EXPECT_GRT_ERROR(deep.Run(), GRT_INVALID_ARGUMENT, "above the maximum 8");
}

TEST(ShapeFnArray, OneHot) {
  EXPECT_EQ(Infer("OneHot").In(S({4}), GRT_INT64).Scalar(10).In(S({})).In(S({})).Out(), "[4,10]");
  EXPECT_EQ(
      Infer("OneHot").Int("axis", 0).In(S({4, 2}), GRT_INT64).Scalar(10).In(S({})).In(S({})).Out(),
      "[10,4,2]");
  EXPECT_EQ(Infer("OneHot").In(S({4}), GRT_INT64).In(S({}), GRT_INT32).In(S({})).In(S({})).Out(),
            "[4,?]");
  Infer axis("OneHot");
  axis.Int("axis", 3).In(S({4}), GRT_INT64).Scalar(10).In(S({})).In(S({}));
  EXPECT_GRT_ERROR(axis.Run(), GRT_INVALID_ARGUMENT, "axis 3 is out of range");
  Infer depth("OneHot");
  depth.In(S({4}), GRT_INT64).Scalar(-1).In(S({})).In(S({}));
  EXPECT_GRT_ERROR(depth.Run(), GRT_INVALID_ARGUMENT, "depth must be non-negative");
}

TEST(ShapeFnArray, BroadcastGradientArgs) {
  Infer b("BroadcastGradientArgs");
  b.Const({2, 3}).Const({3});
  grt_test::Status s(b.Run(2));
  ASSERT_TRUE(s.ok()) << s.msg();
  EXPECT_EQ(grt_test::Str(b.out(0)), "[?]");
  EXPECT_EQ(grt_test::Str(b.out(1)), "[?]");
}

}  // namespace
