// _LayerNorm and _Gelu on the GPU (float32): the sequence models' fusions
// the graph optimizer makes (optimizer/pass_layer_norm.c, pass_gelu.c) on
// a device type whose kernels take them, so a transformer placed on a GPU
// runs one kernel where the spelled-out form (Mean, Sub, Square, Mean,
// Add, Rsqrt, Mul, Mul, Add; Div, Erf, Add, Mul, Mul) ran many.
//
// _LayerNorm: one block per row of the dims from begin_norm_axis on; the
// row's sum, then its squared deviations from the mean, each reduced
// across the block (the CPU kernel's two-step variance,
// backends/cpu/nn_layer_norm.c), then (x - mean) * rsqrt(var + epsilon) *
// gamma + beta. _Gelu: one thread per element, x * Phi(x) with Phi from
// erfcf (exact: 0.5 x erfc(-x / sqrt 2), no cancellation for negative x)
// or the tanh form (approximate).
//
// tests/gpu/gpu_suite_ops.cc compares each with the CPU kernel (passed on an
// H200: tests/gpu/runs/2026-11-28-h200-8).
#include <math.h>

#include "dtype_list.cuh"
#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

constexpr int kRowThreads = 256;

// The one dtype the kernels take (their CPU twins' too: ops/defs_fused_seq.c).
using Float32 = Dtypes<F32>;

// The sum of v over the block (every thread gets it); `shared` holds 32
// floats.
__device__ float BlockSum(float v, float* shared) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? shared[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  const float total = shared[0];
  __syncthreads();  // shared is written again by the next call
  return total;
}

__global__ void LayerNormKernel(const float* x, const float* gamma, const float* beta, float* y,
                                int64_t rows, int64_t n, float epsilon) {
  __shared__ float shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* in = x + r * n;
    float* out = y + r * n;
    float s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += in[i];
    const float mean = BlockSum(s, shared) / (float)n;
    float q = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const float d = in[i] - mean;
      q += d * d;
    }
    const float inv = rsqrtf(BlockSum(q, shared) / (float)n + epsilon);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
      out[i] = (in[i] - mean) * inv * gamma[i] + beta[i];
  }
}

__global__ void GeluKernel(const float* x, float* y, int64_t n, bool approximate) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const float v = x[i];
    y[i] = approximate
               ? 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))
               : 0.5f * v * erfcf(-v * 0.7071067811865476f);
  }
}

template <typename T, typename U>
grt_status* LayerNormCompute(grt_kernel_ctx* ctx) {
  const grt_tensor *x = ctx->inputs[0], *gamma = ctx->inputs[1], *beta = ctx->inputs[2];
  if (!(T::kMask & (1u << grt_tensor_dtype(x)))) return NoKernel("_LayerNorm", grt_tensor_dtype(x));
  int64_t axis = -1;
  float eps = 1e-5f;
  grt_status* st = grt_kernel_attr_int(ctx, "begin_norm_axis", &axis);
  if (!st) st = grt_kernel_attr_float(ctx, "epsilon", &eps);
  if (st) return st;
  const int32_t rank = grt_tensor_rank(x);
  if (axis < -(int64_t)rank || axis >= rank)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "begin_norm_axis %lld out of range for x of rank %d", (long long)axis,
                          (int)rank);
  if (axis < 0) axis += rank;
  int64_t n = 1;
  for (int32_t d = (int32_t)axis; d < rank; d++) n *= grt_tensor_dim(x, d);
  if (grt_tensor_rank(gamma) != 1 || grt_tensor_rank(beta) != 1 || grt_tensor_dim(gamma, 0) != n ||
      grt_tensor_dim(beta, 0) != n || grt_tensor_dtype(gamma) != GRT_FLOAT32 ||
      grt_tensor_dtype(beta) != GRT_FLOAT32) {
    char bg[64], bb[64];
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "gamma %s and beta %s must be vectors of the %lld normalized elements",
                          ShapeStr(gamma, bg, sizeof bg), ShapeStr(beta, bb, sizeof bb),
                          (long long)n);
  }
  grt_shape s = ShapeOf(x);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &s, &y))) return st;
  int64_t total = NumElements(s);
  if (total == 0 || n == 0) return NULL;
  int64_t rows = total / n;
  int grid = rows < (int64_t(1) << 20) ? (int)rows : 1 << 20;
  LayerNormKernel<<<grid, kRowThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      (const float*)grt_tensor_data(x), (const float*)grt_tensor_data(gamma),
      (const float*)grt_tensor_data(beta), (float*)grt_tensor_data(y), rows, n, eps);
  return Launched("_LayerNorm");
}

template <typename T, typename U>
grt_status* GeluCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  if (!(T::kMask & (1u << grt_tensor_dtype(x)))) return NoKernel("_Gelu", grt_tensor_dtype(x));
  bool approximate = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "approximate", &approximate);
  if (st) return st;
  grt_shape s = ShapeOf(x);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &s, &y))) return st;
  int64_t n = NumElements(s);
  if (n == 0) return NULL;
  GeluKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      (const float*)grt_tensor_data(x), (float*)grt_tensor_data(y), n, approximate);
  return Launched("_Gelu");
}

// Each row makes a kernel and its declaration (dtype_list.cuh).
#define TYPED_KERNELS(X)                                             \
  X("_LayerNorm", LayerNormCompute, "T", Float32, nullptr, NoDtypes) \
  X("_Gelu", GeluCompute, "T", Float32, nullptr, NoDtypes)

// clang-format off
const grt_op_kernel kKernels[] = {
    TYPED_KERNELS(GRT_CUDA_KERNEL_ROW)
};
// clang-format on

const grt_cuda_dtypes kDtypes[] = {TYPED_KERNELS(GRT_CUDA_DTYPES_ROW)};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_seq_fused_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}

extern "C" const grt_cuda_dtypes* grt_cuda_seq_fused_dtypes(int* n) {
  *n = (int)(sizeof grt_cuda::kDtypes / sizeof grt_cuda::kDtypes[0]);
  return grt_cuda::kDtypes;
}
