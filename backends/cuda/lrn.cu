// LRN and LRNGrad on the GPU (NHWC, float32), as plain CUDA kernels with
// TensorFlow's formula: norm[d] = bias + alpha * sum of x[d-r .. d+r]^2
// (clipped to the channels there are), y = x * norm^-beta;
// dx[d] = dy[d] * norm[d]^-beta
//         - 2 alpha beta x[d] * sum over j in [d-r, d+r] of dy[j] x[j] norm[j]^(-beta-1).
// One thread per element; the windows are recomputed (r is small).
//
// tests/gpu/gpu_suite_ops.cc compares each with the CPU (an H200 so far: tests/gpu/runs).
#include <math.h>

#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

struct Lrn {
  int64_t depth, r;
  float bias, alpha, beta;
};

__device__ inline float Norm(const Lrn& p, const float* row, int64_t d) {
  int64_t lo = d - p.r < 0 ? 0 : d - p.r, hi = d + p.r >= p.depth ? p.depth - 1 : d + p.r;
  float s = 0;
  for (int64_t k = lo; k <= hi; k++) s += row[k] * row[k];
  return p.bias + p.alpha * s;
}

__global__ void LrnKernel(Lrn p, int64_t n, const float* x, float* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t d = i % p.depth;
    const float* row = x + (i - d);
    y[i] = x[i] * powf(Norm(p, row, d), -p.beta);
  }
}

__global__ void LrnGradKernel(Lrn p, int64_t n, const float* dy, const float* x, float* dx) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t d = i % p.depth, base = i - d;
    const float* row = x + base;
    const float* grow = dy + base;
    int64_t lo = d - p.r < 0 ? 0 : d - p.r, hi = d + p.r >= p.depth ? p.depth - 1 : d + p.r;
    float acc = 0;
    for (int64_t j = lo; j <= hi; j++)
      acc += grow[j] * row[j] * powf(Norm(p, row, j), -p.beta - 1.0f);
    dx[i] = grow[d] * powf(Norm(p, row, d), -p.beta) - 2.0f * p.alpha * p.beta * row[d] * acc;
  }
}

grt_status* Params(const grt_kernel_ctx* ctx, const grt_tensor* x, Lrn* p) {
  if (grt_tensor_rank(x) != 4)
    return grt_status_new(GRT_INVALID_ARGUMENT, "input must be 4-dimensional");
  if (grt_tensor_dtype(x) != GRT_FLOAT32) return NoKernel("LRN", grt_tensor_dtype(x));
  grt_status* st = grt_kernel_attr_int(ctx, "depth_radius", &p->r);
  if (!st) st = grt_kernel_attr_float(ctx, "alpha", &p->alpha);
  if (!st) st = grt_kernel_attr_float(ctx, "beta", &p->beta);
  if (!st) st = grt_kernel_attr_float(ctx, "bias", &p->bias);
  if (st) return st;
  if (p->r < 0) return grt_status_new(GRT_INVALID_ARGUMENT, "depth_radius must be non-negative");
  p->depth = grt_tensor_dim(x, 3);
  return NULL;
}

grt_status* LrnCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  Lrn p;
  grt_status* st = Params(ctx, x, &p);
  if (st) return st;
  grt_shape s = ShapeOf(x);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &s, &y))) return st;
  int64_t n = NumElements(s);
  if (n == 0) return NULL;
  LrnKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      p, n, (const float*)grt_tensor_data(x), (float*)grt_tensor_data(y));
  return Launched("LRN");
}

grt_status* LrnGradCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* dy = ctx->inputs[0];
  const grt_tensor* x = ctx->inputs[1];
  Lrn p;
  grt_status* st = Params(ctx, x, &p);
  if (st) return st;
  if (!SameShape(dy, x) || grt_tensor_dtype(dy) != GRT_FLOAT32)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "LRNGrad: input_grads and input_image must have the same shape");
  grt_shape s = ShapeOf(x);
  grt_tensor* dx;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &s, &dx))) return st;
  int64_t n = NumElements(s);
  if (n == 0) return NULL;
  LrnGradKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      p, n, (const float*)grt_tensor_data(dy), (const float*)grt_tensor_data(x),
      (float*)grt_tensor_data(dx));
  return Launched("LRNGrad");
}

const grt_op_kernel kKernels[] = {
    {"LRN", LrnCompute, NULL, NULL, 0},
    {"LRNGrad", LrnGradCompute, NULL, NULL, 0},
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_lrn_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
