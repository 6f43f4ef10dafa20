// FusedBatchNormV3 and FusedBatchNormGradV3 on the GPU (x, y, dy, dx in
// float16, bfloat16 or float32, read into float32 arithmetic; float32
// statistics; NHWC, NCHW, NDHWC, NCDHW) as plain CUDA kernels with the CPU
// kernel's semantics (backends/cpu/batchnorm.c):
//  - training: y from the batch mean and biased variance; batch_variance
//    reports the unbiased one (n / (n - 1)), blended with the given running
//    values when exponential_avg_factor != 1; reserve_space_1/2 keep the
//    batch mean and biased variance; reserve_space_3 is one element;
//  - inference: y from the given mean and variance, which come back as the
//    statistics and reserve spaces;
//  - the gradient: offset_backprop = sum dy, scale_backprop = sum dy * xhat,
//    dx = scale * inv * (dy - mean(dy) - xhat * mean(dy * xhat)) in training,
//    dx = dy * scale * inv in inference (inv = 1 / sqrt(var + epsilon)).
// Per-channel sums: one block per channel, accumulated in double.
//
// tests/gpu/gpu_suite_ops.cc compares each with the CPU (an H200 so far: tests/gpu/runs).
#include <math.h>
#include <string.h>

#include "dtype_list.cuh"
#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

struct Bn {
  bool channel_last;
  int64_t n, c, s;  // batch, channels, spatial elements
  float epsilon;
  bool training;
};

__device__ inline int64_t At(const Bn& g, int64_t c, int64_t j) {
  return g.channel_last ? j * g.c + c : ((j / g.s) * g.c + c) * g.s + j % g.s;
}

// Sums over the block into out[0..k); every thread gets the totals.
template <int K>
__device__ inline void BlockSum(double (&v)[K]) {
  __shared__ double buf[K][kThreads];
  for (int k = 0; k < K; k++) buf[k][threadIdx.x] = v[k];
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if ((int)threadIdx.x < half)
      for (int k = 0; k < K; k++) buf[k][threadIdx.x] += buf[k][threadIdx.x + half];
    __syncthreads();
  }
  for (int k = 0; k < K; k++) v[k] = buf[k][0];
  __syncthreads();
}

// One block per channel: the batch mean and biased variance.
template <typename S>
__global__ void StatsKernel(Bn g, const S* x, float* mean, float* var) {
  int64_t c = blockIdx.x, count = g.n * g.s;
  double v[1] = {0};
  for (int64_t j = threadIdx.x; j < count; j += blockDim.x) v[0] += Widen(x[At(g, c, j)]);
  BlockSum<1>(v);
  double m = v[0] / (double)count;
  double d[1] = {0};
  for (int64_t j = threadIdx.x; j < count; j += blockDim.x) {
    double e = Widen(x[At(g, c, j)]) - m;
    d[0] += e * e;
  }
  BlockSum<1>(d);
  if (threadIdx.x == 0) {
    mean[c] = (float)m;
    var[c] = (float)(d[0] / (double)count);
  }
}

__global__ void RunningKernel(Bn g, float factor, const float* mean_in, const float* var_in,
                              const float* m, const float* var, float* bm, float* bv) {
  int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (c >= g.c) return;
  int64_t count = g.n * g.s;
  double adjust = count > 1 ? (double)count / (double)(count - 1) : 1.0;
  float unbiased = (float)(var[c] * adjust);
  if (factor == 1.0f) {
    bm[c] = m[c];
    bv[c] = unbiased;
  } else {
    bm[c] = (1.0f - factor) * mean_in[c] + factor * m[c];
    bv[c] = (1.0f - factor) * var_in[c] + factor * unbiased;
  }
}

template <typename S>
__global__ void ApplyKernel(Bn g, int64_t total, const S* x, const float* scale,
                            const float* offset, const float* mean, const float* var, S* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t c = g.channel_last ? i % g.c : (i / g.s) % g.c;
    Narrow((Widen(x[i]) - mean[c]) * rsqrtf(var[c] + g.epsilon) * scale[c] + offset[c], &y[i]);
  }
}

__global__ void FillKernel(int64_t n, float v, float* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = v;
}

// One block per channel: sum dy and sum dy * xhat.
template <typename S>
__global__ void GradSumsKernel(Bn g, const S* dy, const S* x, const float* mean, const float* var,
                               float* scale_bp, float* offset_bp) {
  int64_t c = blockIdx.x, count = g.n * g.s;
  double inv = 1.0 / sqrt((double)var[c] + g.epsilon);
  double v[2] = {0, 0};
  for (int64_t j = threadIdx.x; j < count; j += blockDim.x) {
    int64_t o = At(g, c, j);
    double d = Widen(dy[o]);
    v[0] += d;
    v[1] += d * (((double)Widen(x[o]) - (double)mean[c]) * inv);
  }
  BlockSum<2>(v);
  if (threadIdx.x == 0) {
    offset_bp[c] = (float)v[0];
    scale_bp[c] = (float)v[1];
  }
}

template <typename S>
__global__ void GradApplyKernel(Bn g, int64_t total, const S* dy, const S* x, const float* scale,
                                const float* mean, const float* var, const float* scale_bp,
                                const float* offset_bp, S* dx) {
  float count = (float)(g.n * g.s);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t c = g.channel_last ? i % g.c : (i / g.s) % g.c;
    float inv = rsqrtf(var[c] + g.epsilon);
    if (g.training) {
      float xhat = (Widen(x[i]) - mean[c]) * inv;
      Narrow(scale[c] * inv * (Widen(dy[i]) - offset_bp[c] / count - xhat * scale_bp[c] / count),
             &dx[i]);
    } else {
      Narrow(Widen(dy[i]) * scale[c] * inv, &dx[i]);
    }
  }
}

// The layout of x; its dtype is the caller's to check.
grt_status* Geometry(const grt_kernel_ctx* ctx, const grt_tensor* x, Bn* g) {
  const char* fmt = "NHWC";
  grt_status* st = grt_kernel_attr_string(ctx, "data_format", &fmt);
  if (st) return st;
  int32_t rank, ch;
  if (!strcmp(fmt, "NHWC")) {
    rank = 4;
    ch = 3;
  } else if (!strcmp(fmt, "NCHW")) {
    rank = 4;
    ch = 1;
  } else if (!strcmp(fmt, "NDHWC")) {
    rank = 5;
    ch = 4;
  } else if (!strcmp(fmt, "NCDHW")) {
    rank = 5;
    ch = 1;
  } else
    return grt_status_new(GRT_INVALID_ARGUMENT, "Invalid data format: %s", fmt);
  if (grt_tensor_rank(x) != rank)
    return grt_status_new(GRT_INVALID_ARGUMENT, "x must be %d-dimensional for data_format %s",
                          (int)rank, fmt);
  if ((st = grt_kernel_attr_float(ctx, "epsilon", &g->epsilon))) return st;
  if ((st = grt_kernel_attr_bool(ctx, "is_training", &g->training))) return st;
  g->channel_last = ch == rank - 1;
  g->n = grt_tensor_dim(x, 0);
  g->c = grt_tensor_dim(x, ch);
  g->s = 1;
  for (int32_t i = 1; i < rank; i++)
    if (i != ch) g->s *= grt_tensor_dim(x, i);
  return NULL;
}

grt_status* CheckVector(const grt_tensor* t, const Bn& g, const char* what) {
  if (grt_tensor_rank(t) == 1 && grt_tensor_dim(t, 0) == g.c && grt_tensor_dtype(t) == GRT_FLOAT32)
    return NULL;
  return grt_status_new(GRT_INVALID_ARGUMENT, "%s must be a float32 vector of %lld channels", what,
                        (long long)g.c);
}

const float* F(const grt_tensor* t) { return (const float*)grt_tensor_data(t); }
float* Fm(grt_tensor* t) { return (float*)grt_tensor_data(t); }

grt_status* CopyVector(const grt_tensor* src, grt_tensor* dst, cudaStream_t s) {
  size_t n = grt_tensor_byte_size(src);
  if (!n) return NULL;
  return grt_cuda_error(
      cudaMemcpyAsync(grt_tensor_data(dst), grt_tensor_data(src), n, cudaMemcpyDeviceToDevice, s),
      "cudaMemcpyAsync");
}

// T: x's and y's dtypes (the statistics are float32).
template <class T, class U>
grt_status* BatchNormCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor *scale = ctx->inputs[1], *offset = ctx->inputs[2], *mean = ctx->inputs[3],
                   *var = ctx->inputs[4];
  grt_dtype dt = grt_tensor_dtype(x);
  if (!(T::kMask & (1u << dt))) return NoKernel("FusedBatchNormV3", dt);
  Bn g;
  grt_status* st = Geometry(ctx, x, &g);
  if (st) return st;
  float factor = 1.0f;
  if ((st = grt_kernel_attr_float(ctx, "exponential_avg_factor", &factor))) return st;
  if ((st = CheckVector(scale, g, "scale")) || (st = CheckVector(offset, g, "offset"))) return st;
  bool stats_in = !g.training || factor != 1.0f;
  if (stats_in && ((st = CheckVector(mean, g, "mean")) || (st = CheckVector(var, g, "variance"))))
    return st;
  grt_shape xs = ShapeOf(x), vs = {1, {g.c}}, scalar = {0, {0}};
  grt_tensor *y, *v[4], *rs3;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &xs, &y))) return st;
  for (int i = 0; i < 4; i++)
    if ((st = grt_kernel_alloc_output(ctx, 1 + i, GRT_FLOAT32, &vs, &v[i]))) return st;
  if ((st = grt_kernel_alloc_output(ctx, 5, GRT_FLOAT32, &scalar, &rs3))) return st;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  FillKernel<<<1, 1, 0, s>>>(1, 0.0f, Fm(rs3));
  int64_t total = g.n * g.s * g.c;
  if (!g.training) {
    for (int i = 0; i < 4 && !st; i++) st = CopyVector(i % 2 ? var : mean, v[i], s);
    if (st) return st;
  }
  if (g.n * g.s == 0 || g.c == 0) {
    if (g.training)  // no elements: NaN statistics, as TensorFlow
      for (int i = 0; i < 4; i++)
        if (g.c) FillKernel<<<Blocks(g.c), kThreads, 0, s>>>(g.c, NAN, Fm(v[i]));
    return Launched("FusedBatchNormV3");
  }
  const float* m = g.training ? Fm(v[2]) : F(mean);
  const float* s2 = g.training ? Fm(v[3]) : F(var);
  T::Visit(dt, [&](auto e) {
    using S = typename decltype(e)::Store;
    const S* px = (const S*)grt_tensor_data(x);
    if (g.training) {
      StatsKernel<S><<<(unsigned)g.c, kThreads, 0, s>>>(g, px, Fm(v[2]), Fm(v[3]));
      RunningKernel<<<Blocks(g.c), kThreads, 0, s>>>(g, factor, stats_in ? F(mean) : NULL,
                                                     stats_in ? F(var) : NULL, Fm(v[2]), Fm(v[3]),
                                                     Fm(v[0]), Fm(v[1]));
    }
    ApplyKernel<S><<<Blocks(total), kThreads, 0, s>>>(g, total, px, F(scale), F(offset), m, s2,
                                                      (S*)grt_tensor_data(y));
  });
  return Launched("FusedBatchNormV3");
}

template <class T, class U>
grt_status* BatchNormGradCompute(grt_kernel_ctx* ctx) {
  const grt_tensor *dy = ctx->inputs[0], *x = ctx->inputs[1], *scale = ctx->inputs[2];
  const grt_tensor *mean = ctx->inputs[3], *var = ctx->inputs[4];
  grt_dtype dt = grt_tensor_dtype(x);
  if (!(T::kMask & (1u << dt))) return NoKernel("FusedBatchNormGradV3", dt);
  Bn g;
  grt_status* st = Geometry(ctx, x, &g);
  if (st) return st;
  if (!SameShape(dy, x) || grt_tensor_dtype(dy) != dt)
    return grt_status_new(GRT_INVALID_ARGUMENT, "x and y_backprop must have the same shape");
  if ((st = CheckVector(scale, g, "scale")) || (st = CheckVector(mean, g, "reserve_space_1")) ||
      (st = CheckVector(var, g, "reserve_space_2")))
    return st;
  grt_shape xs = ShapeOf(x), vs = {1, {g.c}}, none = {1, {0}};
  grt_tensor *dx, *sbp, *obp, *p3, *p4;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &xs, &dx)) ||
      (st = grt_kernel_alloc_output(ctx, 1, GRT_FLOAT32, &vs, &sbp)) ||
      (st = grt_kernel_alloc_output(ctx, 2, GRT_FLOAT32, &vs, &obp)) ||
      (st = grt_kernel_alloc_output(ctx, 3, GRT_FLOAT32, &none, &p3)) ||
      (st = grt_kernel_alloc_output(ctx, 4, GRT_FLOAT32, &none, &p4)))
    return st;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (g.n * g.s == 0 || g.c == 0) {
    if (g.c) {
      FillKernel<<<Blocks(g.c), kThreads, 0, s>>>(g.c, 0.0f, Fm(sbp));
      FillKernel<<<Blocks(g.c), kThreads, 0, s>>>(g.c, 0.0f, Fm(obp));
    }
    return Launched("FusedBatchNormGradV3");
  }
  int64_t total = g.n * g.s * g.c;
  T::Visit(dt, [&](auto e) {
    using S = typename decltype(e)::Store;
    const S *pdy = (const S*)grt_tensor_data(dy), *px = (const S*)grt_tensor_data(x);
    GradSumsKernel<S>
        <<<(unsigned)g.c, kThreads, 0, s>>>(g, pdy, px, F(mean), F(var), Fm(sbp), Fm(obp));
    GradApplyKernel<S><<<Blocks(total), kThreads, 0, s>>>(
        g, total, pdy, px, F(scale), F(mean), F(var), F(sbp), F(obp), (S*)grt_tensor_data(dx));
  });
  return Launched("FusedBatchNormGradV3");
}

// Each row makes a kernel and its declaration (dtype_list.cuh); the
// statistics' dtype U is float32 only (checked with the vectors).
#define TYPED_KERNELS(X)                                                         \
  X("FusedBatchNormV3", BatchNormCompute, "T", HalvesFloat32, nullptr, NoDtypes) \
  X("FusedBatchNormGradV3", BatchNormGradCompute, "T", HalvesFloat32, nullptr, NoDtypes)

const grt_op_kernel kKernels[] = {TYPED_KERNELS(GRT_CUDA_KERNEL_ROW)};

const grt_cuda_dtypes kDtypes[] = {TYPED_KERNELS(GRT_CUDA_DTYPES_ROW)};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_batchnorm_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}

extern "C" const grt_cuda_dtypes* grt_cuda_batchnorm_dtypes(int* n) {
  *n = (int)(sizeof grt_cuda::kDtypes / sizeof grt_cuda::kDtypes[0]);
  return grt_cuda::kDtypes;
}
