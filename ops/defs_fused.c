/* The fused ops TensorFlow's remapper makes (and grt's session rewrite,
 * runtime/session/rewrite_remap.c): a product followed by its bias and an
 * optional activation, named in fused_ops. Inputs and attrs follow
 * TensorFlow's _FusedMatMul and _FusedConv2D (args: num_args tensors, the
 * bias first), T restricted to grt's floating types (TensorFlow's GPU
 * kernels take float16 for _FusedMatMul and float64 for _FusedConv2D; the
 * CPU kernels float32 only, per their support rows), fused_ops [BiasAdd]
 * or [BiasAdd, Relu|Relu6|Elu] (checked by the kernels). */
#include "ops/defs.h"
#include "ops/shape_conv.h"
#include "ops/shape_fns.h"

#define FUSED_ATTRS                                                                              \
  "num_args: int >= 0; fused_ops: list(string) = []; epsilon: float = 0.0001; leakyrelu_alpha: " \
  "float = 0.2"
#define FUSED_CONV_ATTRS                                                 \
  "strides: list(int); use_cudnn_on_gpu: bool = true; padding: string; " \
  "explicit_paddings: list(int) = []; data_format: string = 'NHWC'; "    \
  "dilations: list(int) = [1, 1, 1, 1]"

static const grt_op_spec kRows[] = {
    {"_FusedMatMul", "a: T, b: T, args: num_args * T", "product: T",
     "transpose_a: bool = false; transpose_b: bool = false; T: {bfloat16, float16, "
     "float32}; " FUSED_ATTRS,
     0, grt_infer_matmul},
    {"_FusedConv2D", "input: T, filter: T, args: num_args * T", "output: T",
     "T: {bfloat16, float16, float32, float64}; " FUSED_ATTRS "; " FUSED_CONV_ATTRS, 0,
     grt_infer_conv2d},
};

GRT_OP_TABLE(grt_ops_fused, "fused", kRows);
