/* Internal: shape functions of the convolution, pooling and normalisation
 * ops (ops/defs_conv.c), in shape_conv.c, shape_conv3d.c, shape_pool.c and
 * shape_norm.c.
 * They follow grt_shape_fn's contract (ops/op_def.h) and the helpers of
 * ops/shape_fns.h. */
#ifndef GRT_OPS_SHAPE_CONV_H_
#define GRT_OPS_SHAPE_CONV_H_

#include "ops/op_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* shape_conv.c */
/* The grouping rule Conv2D and Conv3D share (TensorFlow's): the input's
 * depth a multiple of the filter's, the output's of the group count; -1
 * depths are unknown and pass. */
GRT_MUST_USE grt_status* grt_infer_conv_groups(int64_t in_c, int64_t f_in, int64_t out_c);
GRT_MUST_USE grt_status* grt_infer_conv2d(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_depthwise_conv2d(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_fused_depthwise_conv2d(grt_shape_ctx* c);
/* _FusedExpandDepthwise: the depthwise convolution's, of the input with
 * the expansion filter's output depth. */
GRT_MUST_USE grt_status* grt_infer_fused_expand_depthwise(grt_shape_ctx* c);
/* _FusedConv2D: Conv2D's, or with input_data_format "NCHW" (and
 * data_format "NHWC") the NHWC convolution of the input read as NCHW. */
GRT_MUST_USE grt_status* grt_infer_fused_conv2d(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_conv2d_backprop_input(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_conv2d_backprop_filter(grt_shape_ctx* c);

/* shape_conv3d.c: Conv3D, MaxPool3D, AvgPool3D and their gradients */
GRT_MUST_USE grt_status* grt_infer_conv3d(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_pool3d(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_conv3d_backprop_input(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_conv3d_backprop_filter(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_max_pool3d_grad(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_avg_pool3d_grad(grt_shape_ctx* c);

/* shape_pool.c (_DilatedMaxPool too) */
GRT_MUST_USE grt_status* grt_infer_pool(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_max_pool_grad(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_avg_pool_grad(grt_shape_ctx* c);

/* shape_norm.c */
GRT_MUST_USE grt_status* grt_infer_lrn(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_lrn_grad(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_fused_batch_norm(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_fused_batch_norm_grad(grt_shape_ctx* c);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_SHAPE_CONV_H_ */
