/* The fused ops TensorFlow's remapper makes (and grt's optimizer,
 * optimizer/pass_conv_fusion.c, and session rewrite,
 * runtime/session/rewrite_remap.c): a product followed by its bias and an
 * optional activation, named in fused_ops. Inputs and attrs follow
 * TensorFlow's _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative
 * (args: num_args tensors, the bias first), T restricted to grt's floating
 * types (TensorFlow's GPU kernels take float16 for _FusedMatMul and float64
 * for _FusedConv2D; the CPU kernels float32 only, per their support rows).
 * The kernels check fused_ops:
 *   _FusedMatMul: [BiasAdd] or [BiasAdd, Relu|Relu6|Elu|GeluExact|
 *   GeluApproximate] (TensorFlow's names for GELU's erf and tanh forms;
 *   the CPU only);
 *   the convolutions (CPU): [BiasAdd], then optionally Add (num_args 2: the
 *   residual, of the output's shape, summed before the activation, as
 *   TensorFlow's ["BiasAdd", "Add"]), then optionally one of Relu, Relu6,
 *   Elu, LeakyRelu (leakyrelu_alpha), Sigmoid, Tanh, or grt's own
 *   _HardSwish (x * relu6(x + 3) / 6) and _Swish (x * sigmoid(x)), which
 *   TensorFlow's remapper has no names for. grt's optimizer may put
 *   _InputScale before BiasAdd on a _FusedConv2D without
 *   input_data_format (num_args one more, the scale the first arg, [N, 1,
 *   1, C]: the input is multiplied by it per channel first;
 *   optimizer/pass_input_scale.c); the CPU kernel refuses it elsewhere as
 *   an invalid argument. The GPU's _FusedConv2D row
 *   takes only what TensorFlow's does (the optimizer makes nothing else
 *   there: pass_conv_fusion.c's table).
 * _FusedDepthwiseConv2dNative has one attr of grt's own, num_means (0 or
 * 1, default 0): with 1 a second output holds each channel's mean over
 * the output's positions (shape [N, 1, 1, C] in NHWC, [N, C, 1, 1] in
 * NCHW), what a Mean over H and W with keep_dims would give; grt's
 * optimizer asks for it (optimizer/pass_channel_mean.c) for a
 * squeeze-excitation block's Mean, which the CPU kernel computes while the
 * activation's rows are in L1.
 * _FusedConv2D has one attr of grt's own, input_data_format: "" (the
 * default) reads the input in data_format, as TensorFlow's; "NCHW" with
 * data_format "NHWC" reads an NCHW input and writes an NHWC output. The
 * optimizer's "stem" pass (optimizer/pass_stem.c) sets it on a CNN's first
 * convolution on the CPU, whose kernel for few input channels reads the
 * image in place (backends/cpu/conv_stem.h); the GPU's kernel does not
 * take it.
 * _FusedExpandDepthwise is grt's own: an inverted residual block's 1x1
 * expansion and depthwise convolution, the expanded tensor never
 * materialized (the optimizer's expand_depthwise pass,
 * optimizer/pass_expand_depthwise.c; the CPU kernel,
 * backends/cpu/conv_expand_dw.c). Inputs x [N, H, W, K], expand_filter
 * [1, 1, K, C], expand_bias [C], filter [kh, kw, C, 1], bias [C]; the
 * output is act(depthwise(expand_act(x * expand_filter + expand_bias),
 * filter) + bias), with the depthwise convolution's window attrs
 * (NHWC only) and num_means as _FusedDepthwiseConv2dNative's. expand_act
 * and act are '' (none), Relu, Relu6, LeakyRelu (expand_leakyrelu_alpha,
 * leakyrelu_alpha), Sigmoid, Tanh, _HardSwish or _Swish.
 * With num_project 2 or 3 the block's 1x1 projection follows in the same
 * node (the optimizer's depthwise_project pass): `project` holds its
 * filter [1, 1, C, P] and bias [P], and with 3 a residual [N, OH, OW, P]
 * added before project_act (as project_leakyrelu_alpha, the same names);
 * the output is then [N, OH, OW, P], the depthwise convolution's output
 * never written whole either, and num_means must be 0.
 * `expand` holds the expansion's expand_filter and expand_bias
 * (num_expand 2, the default); with num_expand 0 there is no expansion
 * (a block whose depthwise convolution reads its input as it is:
 * MobileNetV2's first, the optimizer's depthwise_project pass), the
 * depthwise convolution reads x [N, H, W, C], and a projection is
 * required (num_project 2 or 3). */
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
#define FUSED_DEPTHWISE_ATTRS                                                \
  "strides: list(int); padding: string; explicit_paddings: list(int) = []; " \
  "data_format: string = 'NHWC'; dilations: list(int) = [1, 1, 1, 1]"

static const grt_op_spec kRows[] = {
    {"_FusedMatMul", "a: T, b: T, args: num_args * T", "product: T",
     "transpose_a: bool = false; transpose_b: bool = false; T: {bfloat16, float16, "
     "float32}; " FUSED_ATTRS,
     0, grt_infer_matmul},
    {"_FusedConv2D", "input: T, filter: T, args: num_args * T", "output: T",
     "T: {bfloat16, float16, float32, float64}; " FUSED_ATTRS "; " FUSED_CONV_ATTRS
     "; input_data_format: string = ''",
     0, grt_infer_fused_conv2d},
    {"_FusedDepthwiseConv2dNative", "input: T, filter: T, args: num_args * T",
     "output: T, mean: num_means * T",
     "T: {bfloat16, float16, float32, float64}; " FUSED_ATTRS "; " FUSED_DEPTHWISE_ATTRS
     "; num_means: int >= 0 = 0",
     0, grt_infer_fused_depthwise_conv2d},
    {"_FusedExpandDepthwise",
     "input: T, expand: num_expand * T, filter: T, bias: T, project: num_project * T",
     "output: T, mean: num_means * T",
     "T: {float32}; expand_act: string = ''; act: string = ''; expand_leakyrelu_alpha: float = "
     "0.2; leakyrelu_alpha: float = 0.2; " FUSED_DEPTHWISE_ATTRS
     "; num_means: int >= 0 = 0; num_expand: int >= 0 = 2; num_project: int >= 0 = 0; "
     "project_act: string = ''; "
     "project_leakyrelu_alpha: float = 0.2",
     0, grt_infer_fused_expand_depthwise},
};

GRT_OP_TABLE(grt_ops_fused, "fused", kRows);
