// Pooling on the GPU: MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad, NHWC
// and NCHW, float32, as plain CUDA kernels rather than cuDNN: TensorFlow's
// SAME padding may be one larger after than before, which cuDNN's
// symmetric pooling cannot express, and its average counts only the
// elements inside the input (padding excluded). One thread per output
// element (forward), per window for MaxPoolGrad (the gradient goes to the
// window's first largest element, added atomically), per input element for
// AvgPoolGrad (a gather over the windows that cover it, deterministic).
//
// UNVERIFIED on a GPU: tests/gpu/gpu_suite_ops.cc compares each with the CPU.
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
__device__ inline int64_t ArgMaxOf(const PoolGeom& g, const float* x, int64_t n, int64_t c,
                                   int64_t y, int64_t xo, float* best) {
  int64_t h0, h1, w0, w1, at = -1;
  WindowOf(g, y, xo, &h0, &h1, &w0, &w1);
  *best = -INFINITY;
  for (int64_t h = h0; h < h1; h++)
    for (int64_t w = w0; w < w1; w++) {
      int64_t o = Offset(g, n, c, h, w, g.ih, g.iw);
      if (at < 0 || x[o] > *best) {
        *best = x[o];
        at = o;
      }
    }
  return at;
}

__global__ void MaxPoolKernel(PoolGeom g, int64_t total, const float* x, float* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t n, c, oy, ox;
    Decompose(g, i, g.oh, g.ow, &n, &c, &oy, &ox);
    float best;
    ArgMaxOf(g, x, n, c, oy, ox, &best);
    y[i] = best;
  }
}

__global__ void AvgPoolKernel(PoolGeom g, int64_t total, const float* x, float* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t n, c, oy, ox, h0, h1, w0, w1;
    Decompose(g, i, g.oh, g.ow, &n, &c, &oy, &ox);
    WindowOf(g, oy, ox, &h0, &h1, &w0, &w1);
    float sum = 0;
    for (int64_t h = h0; h < h1; h++)
      for (int64_t w = w0; w < w1; w++) sum += x[Offset(g, n, c, h, w, g.ih, g.iw)];
    int64_t count = (h1 - h0) * (w1 - w0);
    y[i] = count > 0 ? sum / (float)count : 0.0f;
  }
}

__global__ void MaxPoolGradKernel(PoolGeom g, int64_t total, const float* x, const float* dy,
                                  float* dx) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t n, c, oy, ox;
    Decompose(g, i, g.oh, g.ow, &n, &c, &oy, &ox);
    float best;
    int64_t at = ArgMaxOf(g, x, n, c, oy, ox, &best);
    if (at >= 0) atomicAdd(&dx[at], dy[i]);
  }
}

__global__ void AvgPoolGradKernel(PoolGeom g, int64_t total, const float* dy, float* dx) {
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
    float acc = 0;
    for (int64_t y = y0; y <= y1; y++)
      for (int64_t x = x0; x <= x1; x++) {
        int64_t h0, h1, w0, w1;
        WindowOf(g, y, x, &h0, &h1, &w0, &w1);
        acc += dy[Offset(g, n, c, y, x, g.oh, g.ow)] / (float)((h1 - h0) * (w1 - w0));
      }
    dx[i] = acc;
  }
}

grt_status* NeedF32(const char* op, const grt_tensor* t) {
  return grt_tensor_dtype(t) == GRT_FLOAT32 ? NULL : NoKernel(op, grt_tensor_dtype(t));
}

grt_status* Pool(grt_kernel_ctx* ctx, bool max, const char* op) {
  const grt_tensor* x = ctx->inputs[0];
  grt_status* st = NeedF32(op, x);
  if (st) return st;
  PoolGeom g;
  if ((st = MakePool(ctx, ShapeOf(x), &g))) return st;
  grt_shape ys = OutShape(g);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &ys, &y))) return st;
  int64_t n = NumElements(ys);
  if (n == 0) return NULL;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (max)
    MaxPoolKernel<<<Blocks(n), kThreads, 0, s>>>(g, n, (const float*)grt_tensor_data(x),
                                                 (float*)grt_tensor_data(y));
  else
    AvgPoolKernel<<<Blocks(n), kThreads, 0, s>>>(g, n, (const float*)grt_tensor_data(x),
                                                 (float*)grt_tensor_data(y));
  return Launched(op);
}

grt_status* MaxPoolCompute(grt_kernel_ctx* ctx) { return Pool(ctx, true, "MaxPool"); }
grt_status* AvgPoolCompute(grt_kernel_ctx* ctx) { return Pool(ctx, false, "AvgPool"); }

grt_status* MaxPoolGradCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* dy = ctx->inputs[2];
  grt_status* st = NeedF32("MaxPoolGrad", x);
  if (st) return st;
  PoolGeom g;
  if ((st = MakePool(ctx, ShapeOf(x), &g))) return st;
  grt_shape ys = OutShape(g);
  if (NumElements(ShapeOf(dy)) != NumElements(ys) || grt_tensor_rank(dy) != 4)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "MaxPoolGrad: grad does not match the pooled shape");
  grt_shape xs = ShapeOf(x);
  grt_tensor* dx;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &xs, &dx))) return st;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (grt_tensor_byte_size(dx) &&
      (st = grt_cuda_error(cudaMemsetAsync(grt_tensor_data(dx), 0, grt_tensor_byte_size(dx), s),
                           "cudaMemsetAsync")))
    return st;
  int64_t n = NumElements(ys);
  if (n == 0) return NULL;
  MaxPoolGradKernel<<<Blocks(n), kThreads, 0, s>>>(g, n, (const float*)grt_tensor_data(x),
                                                   (const float*)grt_tensor_data(dy),
                                                   (float*)grt_tensor_data(dx));
  return Launched("MaxPoolGrad");
}

grt_status* AvgPoolGradCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* sizes = ctx->inputs[0];
  const grt_tensor* dy = ctx->inputs[1];
  grt_status* st = NeedF32("AvgPoolGrad", dy);
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
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &xs, &dx))) return st;
  int64_t n = NumElements(xs);
  if (n == 0) return NULL;
  AvgPoolGradKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      g, n, (const float*)grt_tensor_data(dy), (float*)grt_tensor_data(dx));
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
