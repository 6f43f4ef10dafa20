// Shape functions of the convolution family (ops/defs_conv.c): output
// sizes by TensorFlow's window arithmetic in both formats, unknown inputs
// kept unknown, and the attr and shape errors.
#include <gtest/gtest.h>

#include "tests/ops/infer_helper.h"

namespace {

using grt_test::Infer;
using grt_test::S;
using grt_test::U;

// A Conv2D node with the given padding and the NHWC strides/dilations.
Infer& Conv(Infer& i, const char* padding, std::vector<int64_t> strides = {1, 1, 1, 1},
            std::vector<int64_t> dilations = {1, 1, 1, 1}) {
  return i.Str("padding", padding).Ints("strides", strides).Ints("dilations", dilations);
}

TEST(ShapeFnConv, Conv2DSameValidExplicit) {
  Infer a("Conv2D");
  EXPECT_EQ(Conv(a, "SAME", {1, 2, 2, 1}).In(S({8, 7, 6, 3})).In(S({3, 3, 3, 16})).Out(),
            "[8,4,3,16]");
  Infer b("Conv2D");
  EXPECT_EQ(Conv(b, "VALID", {1, 2, 3, 1}).In(S({8, 7, 9, 3})).In(S({3, 3, 3, 5})).Out(),
            "[8,3,3,5]");
  Infer c("Conv2D");  // dilation 2 makes the 3x3 window 5x5
  EXPECT_EQ(
      Conv(c, "VALID", {1, 1, 1, 1}, {1, 2, 2, 1}).In(S({1, 9, 9, 2})).In(S({3, 3, 2, 4})).Out(),
      "[1,5,5,4]");
  Infer d("Conv2D");
  Conv(d, "EXPLICIT", {1, 2, 2, 1}).Ints("explicit_paddings", {0, 0, 1, 2, 0, 3, 0, 0});
  EXPECT_EQ(d.In(S({2, 6, 5, 3})).In(S({3, 3, 3, 4})).Out(),
            "[2,4,3,4]");  // (6+1+2-3)/2+1, (5+3-3)/2+1
  Infer e("Conv2D");
  Conv(e, "SAME", {1, 1, 2, 2}).Str("data_format", "NCHW");
  EXPECT_EQ(e.In(S({8, 3, 7, 6})).In(S({3, 3, 3, 16})).Out(), "[8,16,4,3]");
  Infer g("Conv2D");  // grouped: 4 input channels, filter depth 2
  EXPECT_EQ(Conv(g, "SAME").In(S({1, 5, 5, 4})).In(S({3, 3, 2, 6})).Out(), "[1,5,5,6]");
  // No input channels: zero groups, an empty output, never a division by
  // zero (found by fuzz_onnx_reader through Conv3D's shape function).
  Infer h("Conv2D");
  EXPECT_EQ(Conv(h, "SAME").In(S({1, 5, 5, 0})).In(S({3, 3, 2, 6})).Out(), "[1,5,5,6]");
  Infer k("Conv3D");
  k.Str("padding", "SAME").Ints("strides", {1, 1, 1, 1, 1}).Ints("dilations", {1, 1, 1, 1, 1});
  EXPECT_EQ(k.In(S({2, 4, 5, 4, 0})).In(S({3, 2, 3, 2, 3})).Out(), "[2,4,5,4,3]");
}

TEST(ShapeFnConv, Conv2DUnknowns) {
  Infer a("Conv2D");
  EXPECT_EQ(Conv(a, "SAME").In(U()).In(S({3, 3, 3, 16})).Out(), "[?,?,?,16]");
  Infer b("Conv2D");
  EXPECT_EQ(Conv(b, "VALID").In(S({-1, 7, -1, 3})).In(U()).Out(), "[?,?,?,?]");
  Infer c("Conv2D");
  EXPECT_EQ(Conv(c, "VALID").In(S({-1, 7, -1, 3})).In(S({3, 3, 3, 2})).Out(), "[?,5,?,2]");
}

TEST(ShapeFnConv, Conv2DErrors) {
  Infer rank("Conv2D");
  EXPECT_GRT_ERROR(Conv(rank, "SAME").In(S({7, 6, 3})).In(S({3, 3, 3, 1})).Run(),
                   GRT_INVALID_ARGUMENT, "input 0 must be rank 4");
  Infer depth("Conv2D");
  EXPECT_GRT_ERROR(Conv(depth, "SAME").In(S({1, 7, 6, 3})).In(S({3, 3, 2, 1})).Run(),
                   GRT_INVALID_ARGUMENT,
                   "Depth of input (3) is not a multiple of input depth of filter (2)");
  Infer groups("Conv2D");
  EXPECT_GRT_ERROR(Conv(groups, "SAME").In(S({1, 7, 6, 4})).In(S({3, 3, 2, 3})).Run(),
                   GRT_INVALID_ARGUMENT,
                   "Depth of output (3) is not a multiple of the number of groups (2)");
  Infer neg("Conv2D");
  EXPECT_GRT_ERROR(Conv(neg, "VALID").In(S({1, 2, 6, 3})).In(S({4, 3, 3, 1})).Run(),
                   GRT_INVALID_ARGUMENT, "Computed output size would be negative");
  Infer pad("Conv2D");
  EXPECT_GRT_ERROR(Conv(pad, "valid").In(S({1, 7, 6, 3})).In(S({3, 3, 3, 1})).Run(),
                   GRT_INVALID_ARGUMENT,
                   "attr 'padding' must be SAME, VALID or EXPLICIT, got 'valid'");
  Infer strides("Conv2D");
  EXPECT_GRT_ERROR(
      Conv(strides, "SAME", {1, 1, 1, 2}).In(S({1, 7, 6, 3})).In(S({3, 3, 3, 1})).Run(),
      GRT_INVALID_ARGUMENT, "strides in the batch and depth dimensions must be 1");
  Infer zero("Conv2D");
  EXPECT_GRT_ERROR(Conv(zero, "SAME", {1, 1, 0, 1}).In(S({1, 7, 6, 3})).In(S({3, 3, 3, 1})).Run(),
                   GRT_INVALID_ARGUMENT, "attr 'strides' must be positive, got 0 at index 2");
  Infer missing("Conv2D");  // strides has no default
  EXPECT_GRT_ERROR(missing.Str("padding", "SAME").In(S({1, 7, 6, 3})).In(S({3, 3, 3, 1})).Run(),
                   GRT_INVALID_ARGUMENT, "attr 'strides' is missing");
}

TEST(ShapeFnConv, DepthwiseMultipliesChannels) {
  Infer a("DepthwiseConv2dNative");
  EXPECT_EQ(Conv(a, "SAME", {1, 2, 2, 1}).In(S({2, 9, 9, 3})).In(S({3, 3, 3, 4})).Out(),
            "[2,5,5,12]");
  Infer b("DepthwiseConv2dNative");
  Conv(b, "VALID").Str("data_format", "NCHW");
  EXPECT_EQ(b.In(S({2, 3, 9, 8})).In(S({3, 2, 3, 2})).Out(), "[2,6,7,7]");
  Infer c("DepthwiseConv2dNative");
  EXPECT_GRT_ERROR(Conv(c, "SAME").In(S({2, 9, 9, 3})).In(S({3, 3, 4, 4})).Run(),
                   GRT_INVALID_ARGUMENT, "input depth vs. the filter's input depth");
}

TEST(ShapeFnConv, BackpropsTakeTheirShapeFromTheSizesInput) {
  Infer in("Conv2DBackpropInput");
  Conv(in, "SAME", {1, 2, 2, 1}).Const({8, 7, 6, 3}).In(S({3, 3, 3, 16})).In(S({8, 4, 3, 16}));
  EXPECT_EQ(in.Out(), "[8,7,6,3]");
  Infer unknown("Conv2DBackpropInput");
  Conv(unknown, "SAME").In(S({4})).In(S({3, 3, 3, 16})).In(S({8, 4, 3, 16}));
  EXPECT_EQ(unknown.Out(), "[?,?,?,?]");
  Infer f("Conv2DBackpropFilter");
  Conv(f, "VALID").In(S({8, 7, 6, 3})).Const({3, 3, 3, 16}).In(S({8, 5, 4, 16}));
  EXPECT_EQ(f.Out(), "[3,3,3,16]");
  Infer bad("Conv2DBackpropFilter");  // out_backprop of the wrong size
  Conv(bad, "VALID").In(S({8, 7, 6, 3})).Const({3, 3, 3, 16}).In(S({8, 7, 6, 16}));
  EXPECT_GRT_ERROR(bad.Run(), GRT_INVALID_ARGUMENT,
                   "out_backprop does not match the forward convolution's output");
  Infer three("Conv2DBackpropInput");
  Conv(three, "SAME").Const({8, 7, 6}).In(S({3, 3, 3, 16})).In(U());
  EXPECT_GRT_ERROR(three.Run(), GRT_INVALID_ARGUMENT, "input_sizes must have 4 elements, got 3");
}

Infer& Pool(Infer& i, const char* padding, std::vector<int64_t> ksize,
            std::vector<int64_t> strides) {
  return i.Str("padding", padding).Ints("ksize", ksize).Ints("strides", strides);
}

TEST(ShapeFnConv, Pooling) {
  Infer a("MaxPool");
  EXPECT_EQ(Pool(a, "SAME", {1, 3, 3, 1}, {1, 2, 2, 1}).In(S({64, 24, 24, 64})).Out(),
            "[64,12,12,64]");
  Infer b("AvgPool");
  EXPECT_EQ(Pool(b, "VALID", {1, 3, 3, 1}, {1, 2, 2, 1}).In(S({2, 7, 8, 5})).Out(), "[2,3,3,5]");
  Infer c("MaxPool");
  Pool(c, "VALID", {1, 1, 2, 2}, {1, 1, 2, 2}).Str("data_format", "NCHW");
  EXPECT_EQ(c.In(S({2, 5, 7, 8})).Out(), "[2,5,3,4]");
  Infer d("MaxPool");
  Pool(d, "EXPLICIT", {1, 3, 3, 1}, {1, 2, 2, 1})
      .Ints("explicit_paddings", {0, 0, 1, 1, 0, 2, 0, 0});
  EXPECT_EQ(d.In(S({1, 6, 5, 2})).Out(), "[1,3,3,2]");
  Infer e("AvgPool");  // no EXPLICIT for AvgPool
  EXPECT_GRT_ERROR(Pool(e, "EXPLICIT", {1, 3, 3, 1}, {1, 2, 2, 1}).In(S({1, 6, 5, 2})).Run(),
                   GRT_INVALID_ARGUMENT, "attr 'padding' must be SAME or VALID, got 'EXPLICIT'");
  Infer f("MaxPool");
  EXPECT_GRT_ERROR(Pool(f, "SAME", {1, 3, 3, 2}, {1, 2, 2, 1}).In(S({1, 6, 5, 2})).Run(),
                   GRT_INVALID_ARGUMENT,
                   "pooling is not supported on the batch or depth dimension");
  Infer g("MaxPool");
  EXPECT_EQ(Pool(g, "SAME", {1, 3, 3, 1}, {1, 2, 2, 1}).In(U()).Out(), "[?,?,?,?]");
}

TEST(ShapeFnConv, PoolingGradients) {
  Infer a("MaxPoolGrad");
  Pool(a, "SAME", {1, 3, 3, 1}, {1, 2, 2, 1})
      .In(S({2, 7, 6, 3}))
      .In(S({2, 4, 3, 3}))
      .In(S({2, 4, 3, 3}));
  EXPECT_EQ(a.Out(), "[2,7,6,3]");
  Infer b("MaxPoolGrad");
  Pool(b, "SAME", {1, 3, 3, 1}, {1, 2, 2, 1})
      .In(S({2, 7, 6, 3}))
      .In(S({2, 4, 3, 3}))
      .In(S({2, 4, 4, 3}));
  EXPECT_GRT_ERROR(b.Run(), GRT_INVALID_ARGUMENT,
                   "grad does not match the pooled shape of the input");
  Infer c("AvgPoolGrad");
  Pool(c, "VALID", {1, 2, 2, 1}, {1, 2, 2, 1}).Const({2, 7, 6, 3}).In(S({2, 3, 3, 3}));
  EXPECT_EQ(c.Out(), "[2,7,6,3]");
  Infer d("AvgPoolGrad");
  Pool(d, "VALID", {1, 2, 2, 1}, {1, 2, 2, 1}).In(S({4})).In(S({2, 3, 3, 3}));
  EXPECT_EQ(d.Out(), "[?,?,?,?]");
}

TEST(ShapeFnConv, Lrn) {
  Infer a("LRN");
  EXPECT_EQ(a.In(S({2, 3, 4, 5})).Out(), "[2,3,4,5]");
  Infer b("LRN");
  EXPECT_GRT_ERROR(b.In(S({2, 3, 4})).Run(), GRT_INVALID_ARGUMENT, "input 0 must be rank 4");
  Infer c("LRNGrad");
  EXPECT_EQ(c.In(S({2, -1, 4, 5})).In(S({-1, 3, 4, 5})).In(U()).Out(), "[2,3,4,5]");
  Infer d("LRN");
  EXPECT_GRT_ERROR(d.Int("depth_radius", -1).In(S({2, 3, 4, 5})).Run(), GRT_INVALID_ARGUMENT,
                   "attr 'depth_radius' must be >= 0");
}

TEST(ShapeFnConv, FusedBatchNorm) {
  Infer a("FusedBatchNormV3");
  a.In(S({8, 4, 4, 16})).In(S({16})).In(S({-1})).In(S({0})).In(S({0}));
  ASSERT_TRUE(grt_test::Status(a.Run(6)).ok());
  EXPECT_EQ(grt_test::Str(a.out(0)), "[8,4,4,16]");
  for (size_t k = 1; k < 5; k++) EXPECT_EQ(grt_test::Str(a.out(k)), "[16]") << k;
  EXPECT_EQ(grt_test::Str(a.out(5)), "<unknown>");
  Infer b("FusedBatchNormV3");  // inference: mean and variance must match too
  b.Bool("is_training", false).Str("data_format", "NCHW");
  b.In(S({8, 16, 4, 4})).In(S({16})).In(S({16})).In(S({0})).In(S({16}));
  EXPECT_GRT_ERROR(b.Run(6), GRT_INVALID_ARGUMENT, "input mean");
  Infer c("FusedBatchNormV3");
  c.Str("data_format", "NDHWC").In(S({2, 3, 4, 5, -1})).In(S({7})).In(U()).In(U()).In(U());
  EXPECT_EQ(c.Out(1, 6), "[7]");
  Infer d("FusedBatchNormV3");
  d.Str("data_format", "NCHW").In(S({2, 3, 4, 5, 6})).In(U()).In(U()).In(U()).In(U());
  EXPECT_GRT_ERROR(d.Run(6), GRT_INVALID_ARGUMENT, "input 0 must be rank 4");
  Infer g("FusedBatchNormGradV3");
  g.In(S({8, 4, 4, 16})).In(S({8, 4, 4, -1})).In(S({16})).In(S({16})).In(S({16})).In(U());
  ASSERT_TRUE(grt_test::Status(g.Run(5)).ok());
  EXPECT_EQ(grt_test::Str(g.out(0)), "[8,4,4,16]");
  EXPECT_EQ(grt_test::Str(g.out(1)), "[16]");
  EXPECT_EQ(grt_test::Str(g.out(2)), "[16]");
  EXPECT_EQ(grt_test::Str(g.out(3)), "[0]");
  EXPECT_EQ(grt_test::Str(g.out(4)), "[0]");
}

// The 3-D ops: five-entry lists in NDHWC or NCDHW order, SAME or VALID.
TEST(ShapeFnConv, Conv3DAndPool3D) {
  Infer a("Conv3D");
  a.Str("padding", "SAME").Ints("strides", {1, 2, 1, 2, 1});
  EXPECT_EQ(a.In(S({2, 7, 6, 5, 4})).In(S({3, 3, 3, 2, 6})).Out(), "[2,4,6,3,6]");  // 2 groups
  Infer b("Conv3D");
  b.Str("padding", "VALID").Ints("strides", {1, 1, 1, 1, 1}).Ints("dilations", {1, 1, 2, 1, 1});
  b.Str("data_format", "NCDHW");
  EXPECT_EQ(b.In(S({1, 3, 5, 6, 7})).In(S({2, 3, 1, 3, 8})).Out(), "[1,8,3,4,7]");
  Infer c("Conv3D");
  c.Str("padding", "SAME").Ints("strides", {1, 1, 1, 1, 1});
  EXPECT_EQ(c.In(U()).In(S({3, 3, 3, 2, 6})).Out(), "[?,?,?,?,6]");
  Infer d("Conv3D");
  d.Str("padding", "SAME").Ints("strides", {1, 1, 1, 1, 1});
  EXPECT_GRT_ERROR(d.In(S({1, 4, 4, 4, 3})).In(S({3, 3, 3, 2, 6})).Run(), GRT_INVALID_ARGUMENT,
                   "Depth of input (3) is not a multiple of input depth of filter (2)");
  Infer e("Conv3D");
  e.Str("padding", "EXPLICIT").Ints("strides", {1, 1, 1, 1, 1});
  EXPECT_GRT_ERROR(e.In(S({1, 4, 4, 4, 3})).In(S({3, 3, 3, 3, 6})).Run(), GRT_INVALID_ARGUMENT,
                   "attr 'padding' must be SAME or VALID, got 'EXPLICIT'");
  Infer f("Conv3D");
  f.Str("padding", "SAME").Ints("strides", {1, 1, 1, 1, 1}).Str("data_format", "NHWC");
  EXPECT_GRT_ERROR(f.In(S({1, 4, 4, 4, 3})).In(S({3, 3, 3, 3, 6})).Run(), GRT_INVALID_ARGUMENT,
                   "attr 'data_format' must be NDHWC or NCDHW, got 'NHWC'");
  Infer g("MaxPool3D");
  g.Str("padding", "SAME").Ints("ksize", {1, 2, 2, 2, 1}).Ints("strides", {1, 2, 2, 2, 1});
  EXPECT_EQ(g.In(S({2, 5, 6, 7, 3})).Out(), "[2,3,3,4,3]");
  Infer h("AvgPool3D");
  h.Str("padding", "VALID").Ints("ksize", {1, 1, 3, 2, 2}).Ints("strides", {1, 1, 1, 2, 2});
  EXPECT_EQ(h.Str("data_format", "NCDHW").In(S({2, 3, 5, 6, 7})).Out(), "[2,3,3,3,3]");
  Infer i("AvgPool3D");
  i.Str("padding", "VALID").Ints("ksize", {1, 3, 3, 3, 1}).Ints("strides", {1, 1, 1, 1, 1});
  EXPECT_GRT_ERROR(i.In(S({2, 5, 6, 7})).Run(), GRT_INVALID_ARGUMENT, "must be rank 5");
}

TEST(ShapeFnConv, Conv3DAndPool3DGradients) {
  Infer a("Conv3DBackpropInputV2");
  a.Str("padding", "SAME").Ints("strides", {1, 2, 1, 2, 1});
  a.Const({2, 7, 6, 5, 4}).In(S({3, 3, 3, 2, 6})).In(S({2, 4, 6, 3, 6}));
  EXPECT_EQ(a.Out(), "[2,7,6,5,4]");
  Infer b("Conv3DBackpropFilterV2");
  b.Str("padding", "SAME").Ints("strides", {1, 2, 1, 2, 1});
  b.In(S({2, 7, 6, 5, 4})).Const({3, 3, 3, 2, 6}).In(S({2, 4, 6, 4, 6}));
  EXPECT_GRT_ERROR(b.Run(), GRT_INVALID_ARGUMENT,
                   "out_backprop does not match the forward convolution's output");
  Infer c("Conv3DBackpropInputV2");
  c.Str("padding", "SAME").Ints("strides", {1, 1, 1, 1, 1});
  c.In(S({5})).In(S({3, 3, 3, 2, 6})).In(U());
  EXPECT_EQ(c.Out(), "[?,?,?,?,?]");
  Infer d("MaxPool3DGrad");
  d.Str("padding", "VALID").Ints("ksize", {1, 2, 2, 2, 1}).Ints("strides", {1, 2, 2, 2, 1});
  d.In(S({1, 4, 4, 5, 2})).In(S({1, 2, 2, 2, 2})).In(S({1, 2, 2, 2, 2}));
  EXPECT_EQ(d.Out(), "[1,4,4,5,2]");
  Infer e("AvgPool3DGrad");
  e.Str("padding", "VALID").Ints("ksize", {1, 2, 2, 2, 1}).Ints("strides", {1, 2, 2, 2, 1});
  e.Const({1, 4, 4, 5, 2}).In(S({1, 2, 2, 3, 2}));
  EXPECT_GRT_ERROR(e.Run(), GRT_INVALID_ARGUMENT,
                   "grad does not match the pooled shape of the input");
}

TEST(ShapeFnConv, DilatedMaxPool) {
  Infer a("_DilatedMaxPool");
  Pool(a, "VALID", {1, 3, 2, 1}, {1, 1, 2, 1}).Ints("dilations", {1, 2, 3, 1});
  EXPECT_EQ(a.In(S({2, 9, 10, 3})).Out(), "[2,5,4,3]");  // windows of 5 and 4
  Infer b("_DilatedMaxPool");
  Pool(b, "EXPLICIT", {1, 1, 2, 2}, {1, 1, 1, 1}).Ints("dilations", {1, 1, 2, 2});
  b.Str("data_format", "NCHW").Ints("explicit_paddings", {0, 0, 0, 0, 1, 0, 0, 2});
  EXPECT_EQ(b.In(S({1, 2, 6, 5})).Out(), "[1,2,5,5]");
  Infer c("_DilatedMaxPool");
  Pool(c, "SAME", {1, 3, 3, 1}, {1, 2, 2, 1}).Ints("dilations", {1, 2, 2, 2});
  EXPECT_GRT_ERROR(c.In(S({1, 6, 5, 2})).Run(), GRT_INVALID_ARGUMENT,
                   "dilations in the batch and depth dimensions must be 1");
}

}  // namespace
