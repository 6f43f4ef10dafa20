/* Gradients of the convolution, pooling and normalisation ops
 * (ops/defs_conv.c), TensorFlow's nn_grad.py: each is the op's own backprop
 * op with the forward attrs. The backprop ops themselves have no gradient
 * (second order is not supported). */
#include <string.h>

#include "ops/grad.h"

static const char* const kConvAttrs[] = {
    "strides",     "use_cudnn_on_gpu", "padding", "explicit_paddings",
    "data_format", "dilations",        NULL};

/* Conv2DBackpropInput(shape(x), filter, g), Conv2DBackpropFilter(x, shape(filter), g) */
static void conv2d_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), f = grt_gb_input(b, 1);
  grt_tref in[3] = {grt_gb_shape(b, x), f, dy[0]};
  int32_t di = grt_gb_add(b, "Conv2DBackpropInput", in, 3);
  grt_gb_set_type(b, di, "T", x.dtype);
  grt_gb_copy_attrs(b, di, kConvAttrs);
  grt_tref fi[3] = {x, grt_gb_shape(b, f), dy[0]};
  int32_t df = grt_gb_add(b, "Conv2DBackpropFilter", fi, 3);
  grt_gb_set_type(b, df, "T", x.dtype);
  grt_gb_copy_attrs(b, df, kConvAttrs);
  dx[0] = grt_gb_ref(di, 0, x.dtype);
  dx[1] = grt_gb_ref(df, 0, x.dtype);
}

/* Conv3DBackpropInputV2(shape(x), filter, g), Conv3DBackpropFilterV2(x,
 * shape(filter), g) */
static void conv3d_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  static const char* const attrs[] = {"strides", "padding", "data_format", "dilations", NULL};
  grt_tref x = grt_gb_input(b, 0), f = grt_gb_input(b, 1);
  grt_tref in[3] = {grt_gb_shape(b, x), f, dy[0]};
  int32_t di = grt_gb_add(b, "Conv3DBackpropInputV2", in, 3);
  grt_gb_set_type(b, di, "T", x.dtype);
  grt_gb_copy_attrs(b, di, attrs);
  grt_tref fi[3] = {x, grt_gb_shape(b, f), dy[0]};
  int32_t df = grt_gb_add(b, "Conv3DBackpropFilterV2", fi, 3);
  grt_gb_set_type(b, df, "T", x.dtype);
  grt_gb_copy_attrs(b, df, attrs);
  dx[0] = grt_gb_ref(di, 0, x.dtype);
  dx[1] = grt_gb_ref(df, 0, x.dtype);
}

static const char* const kPool3DAttrs[] = {"ksize", "strides", "padding", "data_format", NULL};

/* MaxPool3DGrad(x, y, g) */
static void max_pool3d_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref in[3] = {grt_gb_input(b, 0), grt_gb_output(b, 0), dy[0]};
  int32_t n = grt_gb_add(b, "MaxPool3DGrad", in, 3);
  grt_gb_set_type(b, n, "T", dy[0].dtype);
  grt_gb_set_type(b, n, "TInput", in[0].dtype);
  grt_gb_copy_attrs(b, n, kPool3DAttrs);
  dx[0] = grt_gb_ref(n, 0, dy[0].dtype);
}

/* AvgPool3DGrad(shape(x), g) */
static void avg_pool3d_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref in[2] = {grt_gb_shape(b, grt_gb_input(b, 0)), dy[0]};
  int32_t n = grt_gb_add(b, "AvgPool3DGrad", in, 2);
  grt_gb_set_type(b, n, "T", dy[0].dtype);
  grt_gb_copy_attrs(b, n, kPool3DAttrs);
  dx[0] = grt_gb_ref(n, 0, dy[0].dtype);
}

/* MaxPoolGrad(x, y, g) */
static void max_pool_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  static const char* const attrs[] = {"ksize",       "strides", "padding", "explicit_paddings",
                                      "data_format", NULL};
  grt_tref in[3] = {grt_gb_input(b, 0), grt_gb_output(b, 0), dy[0]};
  int32_t n = grt_gb_add(b, "MaxPoolGrad", in, 3);
  grt_gb_set_type(b, n, "T", dy[0].dtype);
  grt_gb_copy_attrs(b, n, attrs);
  dx[0] = grt_gb_ref(n, 0, dy[0].dtype);
}

/* AvgPoolGrad(shape(x), g) */
static void avg_pool_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  static const char* const attrs[] = {"ksize", "strides", "padding", "data_format", NULL};
  grt_tref in[2] = {grt_gb_shape(b, grt_gb_input(b, 0)), dy[0]};
  int32_t n = grt_gb_add(b, "AvgPoolGrad", in, 2);
  grt_gb_set_type(b, n, "T", dy[0].dtype);
  grt_gb_copy_attrs(b, n, attrs);
  dx[0] = grt_gb_ref(n, 0, dy[0].dtype);
}

/* LRNGrad(g, x, y) */
static void lrn_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  static const char* const attrs[] = {"depth_radius", "bias", "alpha", "beta", NULL};
  grt_tref in[3] = {dy[0], grt_gb_input(b, 0), grt_gb_output(b, 0)};
  int32_t n = grt_gb_add(b, "LRNGrad", in, 3);
  grt_gb_set_type(b, n, "T", dy[0].dtype);
  grt_gb_copy_attrs(b, n, attrs);
  dx[0] = grt_gb_ref(n, 0, dy[0].dtype);
}

/* FusedBatchNormGradV3(g, x, scale, reserve spaces) for x, scale and offset.
 * In training the reserve spaces are the forward op's outputs 3..5; in
 * inference TensorFlow passes the population mean and variance instead
 * (NHWC here; TensorFlow transposes NCHW inference to NHWC first). Only
 * y's gradient is used, as in TensorFlow. */
static void fused_batch_norm_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  static const char* const attrs[] = {"epsilon", "data_format", "is_training", NULL};
  bool training = grt_gb_attr_bool(b, "is_training");
  if (!training && strcmp(grt_gb_attr_string(b, "data_format"), "NHWC") != 0) {
    grt_gb_fail(b, GRT_UNIMPLEMENTED,
                "gradient of '%s' (FusedBatchNormV3): inference mode is supported in NHWC only",
                grt_gb_node(b)->name);
    return;
  }
  grt_tref x = grt_gb_input(b, 0), scale = grt_gb_input(b, 1);
  grt_tref in[6] = {dy[0],
                    x,
                    scale,
                    training ? grt_gb_output(b, 3) : grt_gb_input(b, 3),
                    training ? grt_gb_output(b, 4) : grt_gb_input(b, 4),
                    grt_gb_output(b, 5)};
  int32_t n = grt_gb_add(b, "FusedBatchNormGradV3", in, 6);
  grt_gb_set_type(b, n, "T", x.dtype);
  grt_gb_set_type(b, n, "U", scale.dtype);
  grt_gb_copy_attrs(b, n, attrs);
  dx[0] = grt_gb_ref(n, 0, x.dtype);
  dx[1] = grt_gb_ref(n, 1, scale.dtype);
  dx[2] = grt_gb_ref(n, 2, scale.dtype);
}

static const grt_grad_entry kRows[] = {
    {"Conv2D", conv2d_grad},
    {"MaxPool", max_pool_grad},
    {"AvgPool", avg_pool_grad},
    {"Conv3D", conv3d_grad},
    {"MaxPool3D", max_pool3d_grad},
    {"AvgPool3D", avg_pool3d_grad},
    {"LRN", lrn_grad},
    {"FusedBatchNormV3", fused_batch_norm_grad},
    /* DepthwiseConv2dNative: needs DepthwiseConv2dNativeBackpropInput and
     * ...BackpropFilter, which grt lacks: no row */
};

GRT_GRAD_TABLE(grt_grads_conv, kRows);
