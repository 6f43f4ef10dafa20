// The remapper's fused ops on the GPU: _FusedMatMul (the cuBLAS MatMul
// kernel) and _FusedConv2D (the cuDNN Conv2D path, cudnn_conv.cu), each
// followed by one kernel that adds the bias and applies the activation in
// place. fused_ops as the CPU kernels accept them: [BiasAdd] or
// [BiasAdd, Relu|Relu6|Elu]; anything else is UNIMPLEMENTED with the CPU's
// message. float32 only, as the CPU kernels and the session's rewrite
// (which fuses float32 chains only). A product or convolution that sums
// nothing leaves zeros, so the output is act(bias), as on the CPU.
// Checked on an H200 by the GPU suite.
#include <string.h>

#include "kept_tensor.h"
#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

enum Act { kNone, kRelu, kRelu6, kElu };

grt_status* FusedOps(const grt_kernel_ctx* ctx, int* act) {
  const char* const* ops = NULL;
  int32_t n = 0;
  grt_status* st = grt_kernel_attr_string_list(ctx, "fused_ops", &ops, &n);
  if (st) return st;
  if (n < 1 || n > 2 || strcmp(ops[0], "BiasAdd") != 0)
    return grt_status_new(
        GRT_UNIMPLEMENTED,
        "fused_ops must be [BiasAdd] or [BiasAdd, Relu|Relu6|Elu], got %d ops starting with '%s'",
        (int)n, n > 0 ? ops[0] : "");
  *act = kNone;
  if (n == 1) return NULL;
  static const struct {
    const char* name;
    int act;
  } kActs[] = {{"Relu", kRelu}, {"Relu6", kRelu6}, {"Elu", kElu}};
  for (const auto& a : kActs)
    if (strcmp(ops[1], a.name) == 0) {
      *act = a.act;
      return NULL;
    }
  return grt_status_new(GRT_UNIMPLEMENTED, "fused activation '%s' (Relu, Relu6 or Elu)", ops[1]);
}

__device__ inline float Activate(int act, float x) {
  switch (act) {
    case kRelu:
      return x > 0.0f ? x : 0.0f;
    case kRelu6:
      return x > 0.0f ? (x < 6.0f ? x : 6.0f) : 0.0f;
    case kElu:
      return x > 0.0f ? x : expm1f(x);
    default:
      return x;
  }
}

// y[i] = act(y[i] + bias[channel of i]); the channel is (i / inner) % channels
// (inner 1: channels innermost, NHWC and matrices; inner H*W: NCHW).
__global__ void BiasActKernel(int64_t n, int64_t inner, int64_t channels, int act,
                              const float* bias, float* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = Activate(act, y[i] + bias[(i / inner) % channels]);
}

grt_status* NeedF32(const char* op, const grt_tensor* t) {
  return grt_tensor_dtype(t) == GRT_FLOAT32 ? NULL : NoKernel(op, grt_tensor_dtype(t));
}

grt_status* Inputs(const grt_kernel_ctx* ctx, const char* op, int* act) {
  if (ctx->n_inputs != 3)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "%s takes two operands and one bias (num_args 1), got %d inputs", op,
                          (int)ctx->n_inputs);
  grt_status* st = NULL;
  for (int i = 0; i < 3 && !st; i++) st = NeedF32(op, ctx->inputs[i]);
  return st ? st : FusedOps(ctx, act);
}

grt_status* BiasCheck(const grt_tensor* bias, int64_t want) {
  char buf[96];
  if (grt_tensor_rank(bias) != 1 || grt_tensor_dim(bias, 0) != want)
    return grt_status_new(GRT_INVALID_ARGUMENT, "bias must be a vector of %lld elements, got %s",
                          (long long)want, ShapeStr(bias, buf, sizeof buf));
  return NULL;
}

grt_status* BiasAct(grt_kernel_ctx* ctx, int64_t inner, int64_t channels, int act, const char* op) {
  grt_tensor* y = ctx->outputs[0];
  int64_t n = grt_tensor_num_elements(y);
  if (n == 0 || channels == 0) return NULL;
  BiasActKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      n, inner, channels, act, (const float*)grt_tensor_data(ctx->inputs[2]),
      (float*)grt_tensor_data(y));
  return Launched(op);
}

grt_status* FusedMatMul(grt_kernel_ctx* ctx) {
  const char* op = "_FusedMatMul";
  int act;
  grt_status* st = Inputs(ctx, op, &act);
  if (st) return st;
  bool tb = false;
  if ((st = grt_kernel_attr_bool(ctx, "transpose_b", &tb))) return st;
  const grt_tensor* b = ctx->inputs[1];
  if (grt_tensor_rank(b) == 2 && (st = BiasCheck(ctx->inputs[2], grt_tensor_dim(b, tb ? 0 : 1))))
    return st;
  if ((st = grt_cuda_matmul_forward(ctx))) return st;  // checks the operands, allocates output 0
  return BiasAct(ctx, 1, grt_tensor_dim(ctx->outputs[0], 1), act, op);
}

grt_status* FusedConv2D(grt_kernel_ctx* ctx) {
  const char* op = "_FusedConv2D";
  int act;
  grt_status* st = Inputs(ctx, op, &act);
  if (st) return st;
  // An input in another layout than the output (the CPU's stem kernel,
  // conv_stem.c) has no cuDNN path here: refused, never run as if it were
  // in data_format.
  const char* in_format = "";
  if ((st = grt_kernel_attr_string(ctx, "input_data_format", &in_format))) return st;
  if (in_format[0])
    return grt_status_new(GRT_UNIMPLEMENTED,
                          "%s: input_data_format '%s' (an input in another layout than the "
                          "output) runs on the CPU only",
                          op, in_format);
  const grt_tensor* f = ctx->inputs[1];
  if (grt_tensor_rank(f) == 4 && (st = BiasCheck(ctx->inputs[2], grt_tensor_dim(f, 3)))) return st;
  if ((st = grt_cuda_conv2d_forward(ctx))) return st;  // the geometry, output 0 (zeros when empty)
  const grt_tensor* y = ctx->outputs[0];
  const char* format = "NHWC";
  grt_status* fs = grt_kernel_attr_string(ctx, "data_format", &format);
  if (fs) {  // the Conv2D path has read it already; a missing attr is NHWC
    grt_status_free(fs);
    format = "NHWC";
  }
  bool nchw = strcmp(format, "NCHW") == 0;
  return BiasAct(ctx, nchw ? grt_tensor_dim(y, 2) * grt_tensor_dim(y, 3) : 1,
                 grt_tensor_dim(y, nchw ? 1 : 3), act, op);
}

const grt_op_kernel kKernels[] = {
    {"_FusedMatMul", FusedMatMul, NULL, NULL, 0},
    {"_FusedConv2D", FusedConv2D, grt_cuda_kept_new, grt_cuda_kept_free, 0},  // the filter kept
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_fused_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
