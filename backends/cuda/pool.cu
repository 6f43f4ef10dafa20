// Pooling on the GPU: MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad, NHWC
// and NCHW, in float32, float64, float16 and bfloat16 (the last two summed
// and compared in float32, as TensorFlow), as plain CUDA kernels rather than cuDNN: TensorFlow's
// SAME padding may be one larger after than before, which cuDNN's
// symmetric pooling cannot express, and its average counts only the
// elements inside the input (padding excluded). One thread per output
// element (forward), per window for MaxPoolGrad (the gradient goes to the
// window's first largest element, added atomically), per input element for
// AvgPoolGrad (a gather over the windows that cover it, deterministic).
// MaxPoolGrad of float16/bfloat16 adds into a float32 scratch first, so
// overlapping windows do not round at every addition.
//
// tests/gpu/gpu_suite_ops.cc compares each with the CPU (an H200 so far: tests/gpu/runs).
#include "float_widen.cuh"
#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

struct PoolGeom {
  bool nchw;
  int64_t n, c, ih, iw, oh, ow;
  int64_t kh, kw, sh, sw, ph, pw;  // window, strides, padding before
};

__host__ __device__ inline int64_t Offset(const PoolGeom& g, int64_t n, int64_t c, int64_t h,
                                          int64_t w, int64_t H, int64_t W) {
  return g.nchw ? ((n * g.c + c) * H + h) * W + w : ((n * H + h) * W + w) * g.c + c;
}

// Output element i -> (n, c, y, x) in the output's layout.
__host__ __device__ inline void Decompose(const PoolGeom& g, int64_t i, int64_t H, int64_t W,
                                          int64_t* n, int64_t* c, int64_t* y, int64_t* x) {
  if (g.nchw) {
    *x = i % W;
    i /= W;
    *y = i % H;
    i /= H;
    *c = i % g.c;
    *n = i / g.c;
  } else {
    *c = i % g.c;
    i /= g.c;
    *x = i % W;
    i /= W;
    *y = i % H;
    *n = i / H;
  }
}

grt_status* MakePool(const grt_kernel_ctx* ctx, const grt_shape& in, PoolGeom* g) {
  grt_window w;
  grt_status* st = grt_op_window(ctx, GRT_WINDOW_KSIZE, &w);
  if (st) return st;
  if (in.rank != 4) return grt_status_new(GRT_INVALID_ARGUMENT, "input must be 4-dimensional");
  g->nchw = w.nchw;
  g->n = in.dims[0];
  g->c = in.dims[w.nchw ? 1 : 3];
  g->ih = in.dims[w.nchw ? 2 : 1];
  g->iw = in.dims[w.nchw ? 3 : 2];
  g->kh = w.ksize[0];
  g->kw = w.ksize[1];
  g->sh = w.strides[0];
  g->sw = w.strides[1];
  int64_t after;
  if ((st = grt_window_dim(&w, 0, g->ih, g->kh, &g->oh, &g->ph, &after))) return st;
  return grt_window_dim(&w, 1, g->iw, g->kw, &g->ow, &g->pw, &after);
}

grt_shape OutShape(const PoolGeom& g) {
  grt_shape s = {4, {g.n, g.nchw ? g.c : g.oh, g.nchw ? g.oh : g.ow, g.nchw ? g.ow : g.c}};
  return s;
}

// The window of output (y, x), clamped to the input.
__device__ inline void WindowOf(const PoolGeom& g, int64_t y, int64_t x, int64_t* h0, int64_t* h1,
                                int64_t* w0, int64_t* w1) {
  int64_t hs = y * g.sh - g.ph, ws = x * g.sw - g.pw;
  *h0 = hs < 0 ? 0 : hs;
  *w0 = ws < 0 ? 0 : ws;
  *h1 = hs + g.kh < g.ih ? hs + g.kh : g.ih;
  *w1 = ws + g.kw < g.iw ? ws + g.kw : g.iw;
}

// max: the first largest element's offset (-1 for an empty window).
template <typename T, typename A = typename Arith<T>::type>
__device__ inline int64_t ArgMaxOf(const PoolGeom& g, const T* x, int64_t n, int64_t c, int64_t y,
                                   int64_t xo, A* best) {
  int64_t h0, h1, w0, w1, at = -1;
  WindowOf(g, y, xo, &h0, &h1, &w0, &w1);
  *best = -INFINITY;
  for (int64_t h = h0; h < h1; h++)
    for (int64_t w = w0; w < w1; w++) {
      int64_t o = Offset(g, n, c, h, w, g.ih, g.iw);
      A v = Widen(x[o]);
      if (at < 0 || v > *best) {
        *best = v;
        at = o;
      }
    }
  return at;
}

template <typename T>
__global__ void MaxPoolKernel(PoolGeom g, int64_t total, const T* x, T* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t n, c, oy, ox;
    Decompose(g, i, g.oh, g.ow, &n, &c, &oy, &ox);
    typename Arith<T>::type best;
    ArgMaxOf(g, x, n, c, oy, ox, &best);
    Store(best, &y[i]);
  }
}

template <typename T>
__global__ void AvgPoolKernel(PoolGeom g, int64_t total, const T* x, T* y) {
  using A = typename Arith<T>::type;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t n, c, oy, ox, h0, h1, w0, w1;
    Decompose(g, i, g.oh, g.ow, &n, &c, &oy, &ox);
    WindowOf(g, oy, ox, &h0, &h1, &w0, &w1);
    A sum = 0;
    for (int64_t h = h0; h < h1; h++)
      for (int64_t w = w0; w < w1; w++) sum += Widen(x[Offset(g, n, c, h, w, g.ih, g.iw)]);
    int64_t count = (h1 - h0) * (w1 - w0);
    Store(count > 0 ? sum / (A)count : (A)0, &y[i]);
  }
}

// dx is T's arithmetic type (a float32 scratch for the 16-bit types).
template <typename T, typename A = typename Arith<T>::type>
__global__ void MaxPoolGradKernel(PoolGeom g, int64_t total, const T* x, const T* dy, A* dx) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t n, c, oy, ox;
    Decompose(g, i, g.oh, g.ow, &n, &c, &oy, &ox);
    A best;
    int64_t at = ArgMaxOf(g, x, n, c, oy, ox, &best);
    if (at >= 0) atomicAdd(&dx[at], Widen(dy[i]));
  }
}

template <typename T>
__global__ void AvgPoolGradKernel(PoolGeom g, int64_t total, const T* dy, T* dx) {
  using A = typename Arith<T>::type;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t n, c, h, w;
    Decompose(g, i, g.ih, g.iw, &n, &c, &h, &w);
    // Outputs whose window [y*s - p, y*s - p + k) holds h.
    int64_t y0 = h + g.ph - g.kh + 1, y1 = (h + g.ph) / g.sh;
    y0 = y0 <= 0 ? 0 : (y0 + g.sh - 1) / g.sh;
    int64_t x0 = w + g.pw - g.kw + 1, x1 = (w + g.pw) / g.sw;
    x0 = x0 <= 0 ? 0 : (x0 + g.sw - 1) / g.sw;
    if (y1 >= g.oh) y1 = g.oh - 1;
    if (x1 >= g.ow) x1 = g.ow - 1;
    A acc = 0;
    for (int64_t y = y0; y <= y1; y++)
      for (int64_t x = x0; x <= x1; x++) {
        int64_t h0, h1, w0, w1;
        WindowOf(g, y, x, &h0, &h1, &w0, &w1);
        acc += Widen(dy[Offset(g, n, c, y, x, g.oh, g.ow)]) / (A)((h1 - h0) * (w1 - w0));
      }
    Store(acc, &dx[i]);
  }
}

// The float32 scratch of a 16-bit MaxPoolGrad, narrowed into dx.
template <typename T>
__global__ void NarrowKernel(int64_t n, const float* src, T* dst) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    Store(src[i], &dst[i]);
}

// The pooling kernels of one element type, launched on the compute stream.
template <typename T>
struct PoolOps {
  static void Pool(bool max, const PoolGeom& g, int64_t n, const void* x, void* y, cudaStream_t s) {
    if (max)
      MaxPoolKernel<T><<<Blocks(n), kThreads, 0, s>>>(g, n, (const T*)x, (T*)y);
    else
      AvgPoolKernel<T><<<Blocks(n), kThreads, 0, s>>>(g, n, (const T*)x, (T*)y);
  }
  // dx: zeroed, of T's arithmetic type.
  static void MaxGrad(const PoolGeom& g, int64_t n, const void* x, const void* dy, void* dx,
                      cudaStream_t s) {
    using A = typename Arith<T>::type;
    MaxPoolGradKernel<T><<<Blocks(n), kThreads, 0, s>>>(g, n, (const T*)x, (const T*)dy, (A*)dx);
  }
  static void AvgGrad(const PoolGeom& g, int64_t n, const void* dy, void* dx, cudaStream_t s) {
    AvgPoolGradKernel<T><<<Blocks(n), kThreads, 0, s>>>(g, n, (const T*)dy, (T*)dx);
  }
  static void Narrow(int64_t n, const float* src, void* dst, cudaStream_t s) {
    NarrowKernel<T><<<Blocks(n), kThreads, 0, s>>>(n, src, (T*)dst);
  }
};

// One row per dtype the support rows promise (support_gpu.c).
struct PoolType {
  grt_dtype dtype;
  bool narrow;  // a 16-bit type: MaxPoolGrad adds in a float32 scratch
  void (*pool)(bool, const PoolGeom&, int64_t, const void*, void*, cudaStream_t);
  void (*max_grad)(const PoolGeom&, int64_t, const void*, const void*, void*, cudaStream_t);
  void (*avg_grad)(const PoolGeom&, int64_t, const void*, void*, cudaStream_t);
  void (*narrow_to)(int64_t, const float*, void*, cudaStream_t);
};

#define POOL_TYPE(dt, T, narrow) \
  { dt, narrow, PoolOps<T>::Pool, PoolOps<T>::MaxGrad, PoolOps<T>::AvgGrad, PoolOps<T>::Narrow }
const PoolType kPoolTypes[] = {
    POOL_TYPE(GRT_FLOAT32, float, false),
    POOL_TYPE(GRT_FLOAT64, double, false),
    POOL_TYPE(GRT_FLOAT16, __half, true),
    POOL_TYPE(GRT_BFLOAT16, __nv_bfloat16, true),
};
#undef POOL_TYPE

grt_status* TypeOf(const char* op, const grt_tensor* t, const PoolType** out) {
  for (const PoolType& p : kPoolTypes)
    if (p.dtype == grt_tensor_dtype(t)) {
      *out = &p;
      return NULL;
    }
  return NoKernel(op, grt_tensor_dtype(t));
}

grt_status* Pool(grt_kernel_ctx* ctx, bool max, const char* op) {
  const grt_tensor* x = ctx->inputs[0];
  const PoolType* pt;
  grt_status* st = TypeOf(op, x, &pt);
  if (st) return st;
  PoolGeom g;
  if ((st = MakePool(ctx, ShapeOf(x), &g))) return st;
  grt_shape ys = OutShape(g);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, pt->dtype, &ys, &y))) return st;
  int64_t n = NumElements(ys);
  if (n == 0) return NULL;
  pt->pool(max, g, n, grt_tensor_data(x), grt_tensor_data(y), grt_cuda_stream(ctx->stream));
  return Launched(op);
}

grt_status* MaxPoolCompute(grt_kernel_ctx* ctx) { return Pool(ctx, true, "MaxPool"); }
grt_status* AvgPoolCompute(grt_kernel_ctx* ctx) { return Pool(ctx, false, "AvgPool"); }

grt_status* MaxPoolGradCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* dy = ctx->inputs[2];
  const PoolType* pt;
  grt_status* st = TypeOf("MaxPoolGrad", x, &pt);
  if (st) return st;
  PoolGeom g;
  if ((st = MakePool(ctx, ShapeOf(x), &g))) return st;
  grt_shape ys = OutShape(g);
  if (NumElements(ShapeOf(dy)) != NumElements(ys) || grt_tensor_rank(dy) != 4)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "MaxPoolGrad: grad does not match the pooled shape");
  grt_shape xs = ShapeOf(x);
  grt_tensor *dx, *acc = NULL;
  if ((st = grt_kernel_alloc_output(ctx, 0, pt->dtype, &xs, &dx))) return st;
  if (pt->narrow && NumElements(xs) && (st = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &xs, &acc)))
    return st;
  grt_tensor* sum = acc ? acc : dx;  // where the atomic additions go
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (grt_tensor_byte_size(sum))
    st = grt_cuda_error(cudaMemsetAsync(grt_tensor_data(sum), 0, grt_tensor_byte_size(sum), s),
                        "cudaMemsetAsync");
  int64_t n = NumElements(ys);
  if (!st && n) {
    pt->max_grad(g, n, grt_tensor_data(x), grt_tensor_data(dy), grt_tensor_data(sum), s);
    st = Launched("MaxPoolGrad");
  }
  if (!st && acc) {
    pt->narrow_to(NumElements(xs), (const float*)grt_tensor_data(acc), grt_tensor_data(dx), s);
    st = Launched("MaxPoolGrad");
  }
  grt_tensor_free(acc);
  return st;
}

grt_status* AvgPoolGradCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* sizes = ctx->inputs[0];
  const grt_tensor* dy = ctx->inputs[1];
  const PoolType* pt;
  grt_status* st = TypeOf("AvgPoolGrad", dy, &pt);
  if (st) return st;
  if (!IsIndexType(grt_tensor_dtype(sizes)) || grt_tensor_num_elements(sizes) != 4)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "orig_input_shape must be a 4-element int32/int64 vector");
  grt_shape xs = {4, {HostInt(sizes, 0), HostInt(sizes, 1), HostInt(sizes, 2), HostInt(sizes, 3)}};
  PoolGeom g;
  if ((st = MakePool(ctx, xs, &g))) return st;
  if (NumElements(ShapeOf(dy)) != NumElements(OutShape(g)) || grt_tensor_rank(dy) != 4)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "AvgPoolGrad: grad does not match the pooled shape");
  grt_tensor* dx;
  if ((st = grt_kernel_alloc_output(ctx, 0, pt->dtype, &xs, &dx))) return st;
  int64_t n = NumElements(xs);
  if (n == 0) return NULL;
  pt->avg_grad(g, n, grt_tensor_data(dy), grt_tensor_data(dx), grt_cuda_stream(ctx->stream));
  return Launched("AvgPoolGrad");
}

const grt_op_kernel kKernels[] = {
    {"MaxPool", MaxPoolCompute, NULL, NULL, 0},
    {"AvgPool", AvgPoolCompute, NULL, NULL, 0},
    {"MaxPoolGrad", MaxPoolGradCompute, NULL, NULL, 0},
    {"AvgPoolGrad", AvgPoolGradCompute, NULL, NULL, 0},
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_pool_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
