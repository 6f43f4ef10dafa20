/* Convolution, pooling and normalisation ops and their gradients. Names,
 * input order, attrs and defaults follow TensorFlow's nn_ops.cc (dtype sets
 * restricted to grt's dtypes). String attrs with a fixed set of values
 * (padding, data_format) are checked by the shape functions, which name
 * the allowed values. */
#include "ops/defs.h"
#include "ops/grad.h"
#include "ops/shape_conv.h"

/* Conv2D and its backprops share their attrs. */
#define CONV_ATTRS                                                       \
  "strides: list(int); use_cudnn_on_gpu: bool = true; padding: string; " \
  "explicit_paddings: list(int) = []; data_format: string = 'NHWC'; "    \
  "dilations: list(int) = [1, 1, 1, 1]"
#define DEPTHWISE_ATTRS                                                      \
  "strides: list(int); padding: string; explicit_paddings: list(int) = []; " \
  "data_format: string = 'NHWC'; dilations: list(int) = [1, 1, 1, 1]"
#define POOL_ATTRS "ksize: list(int) >= 4; strides: list(int) >= 4; padding: string; "
/* The 3-D ops: five-entry lists, SAME or VALID only (TensorFlow's Conv3D,
 * MaxPool3D and AvgPool3D). */
#define CONV3D_ATTRS                                                          \
  "strides: list(int) >= 5; padding: string; data_format: string = 'NDHWC'; " \
  "dilations: list(int) = [1, 1, 1, 1, 1]"
#define POOL3D_ATTRS \
  "ksize: list(int) >= 5; strides: list(int) >= 5; padding: string; data_format: string = 'NDHWC'"
#define LRN_ATTRS "depth_radius: int = 5; bias: float = 1.0; alpha: float = 1.0; beta: float = 0.5"
#define BN_ATTRS "epsilon: float = 0.0001; data_format: string = 'NHWC'; is_training: bool = true"
#define TYPES_CONV "{float16, bfloat16, float32, float64, int32}"
#define TYPES_LRN "{float16, bfloat16, float32} = float32"
#define TYPES_MAX_POOL \
  "{float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8} = float32"

static const grt_op_spec kRows[] = {
    {"Conv2D", "input: T, filter: T", "output: T", "T: " TYPES_CONV "; " CONV_ATTRS, 0,
     grt_infer_conv2d},
    {"Conv2DBackpropInput", "input_sizes: int32, filter: T, out_backprop: T", "output: T",
     "T: " TYPES_CONV "; " CONV_ATTRS, 0, grt_infer_conv2d_backprop_input},
    {"Conv2DBackpropFilter", "input: T, filter_sizes: int32, out_backprop: T", "output: T",
     "T: " GRT_TYPES_FLOAT "; " CONV_ATTRS, 0, grt_infer_conv2d_backprop_filter},
    {"DepthwiseConv2dNative", "input: T, filter: T", "output: T",
     "T: " GRT_TYPES_FLOAT "; " DEPTHWISE_ATTRS, 0, grt_infer_depthwise_conv2d},
    {"MaxPool", "input: T", "output: T",
     "T: " TYPES_MAX_POOL "; " POOL_ATTRS
     "explicit_paddings: list(int) = []; data_format: string = 'NHWC'",
     0, grt_infer_pool},
    {"AvgPool", "value: T", "output: T",
     "T: " GRT_TYPES_FLOAT "; " POOL_ATTRS "data_format: string = 'NHWC'", 0, grt_infer_pool},
    {"MaxPoolGrad", "orig_input: T, orig_output: T, grad: T", "output: T",
     POOL_ATTRS
     "explicit_paddings: list(int) = []; data_format: string = 'NHWC'; T: " GRT_TYPES_REAL
     " = float32",
     0, grt_infer_max_pool_grad},
    {"AvgPoolGrad", "orig_input_shape: int32, grad: T", "output: T",
     POOL_ATTRS "data_format: string = 'NHWC'; T: " GRT_TYPES_FLOAT, 0, grt_infer_avg_pool_grad},
    {"Conv3D", "input: T, filter: T", "output: T", "T: " GRT_TYPES_FLOAT "; " CONV3D_ATTRS, 0,
     grt_infer_conv3d},
    {"MaxPool3D", "input: T", "output: T", "T: {float16, bfloat16, float32}; " POOL3D_ATTRS, 0,
     grt_infer_pool3d},
    {"AvgPool3D", "input: T", "output: T", "T: " GRT_TYPES_FLOAT "; " POOL3D_ATTRS, 0,
     grt_infer_pool3d},
    {"Conv3DBackpropInputV2", "input_sizes: Tshape, filter: T, out_backprop: T", "output: T",
     "T: " GRT_TYPES_FLOAT "; " CONV3D_ATTRS "; Tshape: " GRT_TYPES_INDEX " = int32", 0,
     grt_infer_conv3d_backprop_input},
    {"Conv3DBackpropFilterV2", "input: T, filter_sizes: int32, out_backprop: T", "output: T",
     "T: " GRT_TYPES_FLOAT "; " CONV3D_ATTRS, 0, grt_infer_conv3d_backprop_filter},
    {"MaxPool3DGrad", "orig_input: TInput, orig_output: TInput, grad: T", "output: T",
     POOL3D_ATTRS "; T: {float16, bfloat16, float32} = float32; "
                  "TInput: {float16, bfloat16, float32} = float32",
     0, grt_infer_max_pool3d_grad},
    {"AvgPool3DGrad", "orig_input_shape: int32, grad: T", "output: T",
     POOL3D_ATTRS "; T: " GRT_TYPES_FLOAT, 0, grt_infer_avg_pool3d_grad},
    /* grt's own: MaxPool with dilations (ONNX's MaxPool has them,
     * TensorFlow's has not), so TensorFlow's MaxPool stays as it is. */
    {"_DilatedMaxPool", "input: T", "output: T",
     "T: " GRT_TYPES_FLOAT " = float32; " POOL_ATTRS
     "dilations: list(int) = [1, 1, 1, 1]; explicit_paddings: list(int) = []; "
     "data_format: string = 'NHWC'",
     0, grt_infer_pool},
    {"LRN", "input: T", "output: T", LRN_ATTRS "; T: " TYPES_LRN, 0, grt_infer_lrn},
    {"LRNGrad", "input_grads: T, input_image: T, output_image: T", "output: T",
     LRN_ATTRS "; T: " TYPES_LRN, 0, grt_infer_lrn_grad},
    {"FusedBatchNormV3", "x: T, scale: U, offset: U, mean: U, variance: U",
     "y: T, batch_mean: U, batch_variance: U, reserve_space_1: U, reserve_space_2: U, "
     "reserve_space_3: U",
     "T: {float16, bfloat16, float32}; U: {float32}; exponential_avg_factor: float = "
     "1.0; " BN_ATTRS,
     0, grt_infer_fused_batch_norm},
    {"FusedBatchNormGradV3",
     "y_backprop: T, x: T, scale: float32, reserve_space_1: U, reserve_space_2: U, "
     "reserve_space_3: U",
     "x_backprop: T, scale_backprop: U, offset_backprop: U, reserve_space_4: U, "
     "reserve_space_5: U",
     "T: {float16, bfloat16, float32}; U: {float32}; " BN_ATTRS, 0,
     grt_infer_fused_batch_norm_grad},
};

GRT_OP_TABLE_WITH_GRADS(grt_ops_conv, "conv", kRows, grt_grads_conv);
