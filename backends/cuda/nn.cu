// Softmax, the two softmax cross-entropy ops, BiasAdd and BiasAddGrad on
// the GPU (the reductions are in reduce.cu): float16, bfloat16 (computed in
// float32), float32 and float64, from the dtype lists they declare. Simple
// one-thread-per-row kernels: correct first, tuned once a GPU has measured
// them.
//
// tests/gpu/run_gpu_suite.sh compares each against the CPU kernel on a GPU
// machine (an H200 so far: tests/gpu/runs).
#include <math.h>
#include <string.h>

#include "cuda_common.cuh"
#include "dtype_list.cuh"
#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

template <typename T>
__host__ __device__ inline T Lowest();
template <>
__host__ __device__ inline float Lowest<float>() {
  return -INFINITY;
}
template <>
__host__ __device__ inline double Lowest<double>() {
  return -INFINITY;
}

// ---- softmax and cross-entropy: one thread per row of the last axis --------

template <typename T>
__device__ inline T Exp(T x) {
  return exp(x);
}
template <>
__device__ inline float Exp<float>(float x) {
  return expf(x);
}
template <typename T>
__device__ inline T Log(T x) {
  return log(x);
}
template <>
__device__ inline float Log<float>(float x) {
  return logf(x);
}

// S is the element type in memory, C the arithmetic's (dtype_list.cuh):
// float16 and bfloat16 rows are computed in float32, as TensorFlow's GPU
// kernels accumulate them.
template <typename S, typename C>
__global__ void SoftmaxKernel(int64_t rows, int64_t cols, const S* x, S* y) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows;
       r += (int64_t)gridDim.x * blockDim.x) {
    const S* in = x + r * cols;
    S* out = y + r * cols;
    C mx = Lowest<C>();
    for (int64_t j = 0; j < cols; j++) {
      C v = Widen(in[j]);
      mx = v > mx ? v : mx;
    }
    C sum = 0;
    for (int64_t j = 0; j < cols; j++) sum += Exp<C>(C(Widen(in[j])) - mx);
    for (int64_t j = 0; j < cols; j++) Narrow(Exp<C>(C(Widen(in[j])) - mx) / sum, &out[j]);
  }
}

// labels: dense [rows, cols] (dense != NULL) or sparse class ids.
template <typename S, typename C, typename L>
__global__ void XentKernel(int64_t rows, int64_t cols, const S* logits, const S* dense,
                           const L* sparse, S* loss, S* backprop) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows;
       r += (int64_t)gridDim.x * blockDim.x) {
    const S* in = logits + r * cols;
    S* bp = backprop + r * cols;
    C mx = Lowest<C>();
    for (int64_t j = 0; j < cols; j++) {
      C v = Widen(in[j]);
      mx = v > mx ? v : mx;
    }
    C sum = 0;
    for (int64_t j = 0; j < cols; j++) sum += Exp<C>(C(Widen(in[j])) - mx);
    C log_sum = Log<C>(sum);
    if (!dense) {
      L label = sparse[r];
      if (label < 0 || label >= cols) {  // TensorFlow's GPU kernel: NaN for the row
        Narrow(C(NAN), &loss[r]);
        for (int64_t j = 0; j < cols; j++) Narrow(C(NAN), &bp[j]);
        continue;
      }
      Narrow(log_sum - (C(Widen(in[label])) - mx), &loss[r]);
      for (int64_t j = 0; j < cols; j++)
        Narrow(Exp<C>(C(Widen(in[j])) - mx) / sum - (j == label ? C(1) : C(0)), &bp[j]);
    } else {
      const S* lab = dense + r * cols;
      C l = 0;
      for (int64_t j = 0; j < cols; j++) {
        C v = C(Widen(in[j])) - mx, y = Widen(lab[j]);
        l -= y * (v - log_sum);
        Narrow(Exp<C>(v) / sum - y, &bp[j]);
      }
      Narrow(l, &loss[r]);
    }
  }
}

// T: the logits' dtypes (attr T); U unused.
template <class T, class U>
grt_status* SoftmaxCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  int32_t rank = grt_tensor_rank(x);
  if (rank < 1) return grt_status_new(GRT_INVALID_ARGUMENT, "logits must have >= 1 dimension");
  grt_shape s = ShapeOf(x);
  grt_dtype dt = grt_tensor_dtype(x);
  grt_tensor* y;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, dt, &s, &y);
  if (st) return st;
  int64_t cols = s.dims[rank - 1], n = NumElements(s), rows = cols ? n / cols : 0;
  if (n == 0) return NULL;
  cudaStream_t cs = grt_cuda_stream(ctx->stream);
  if (!T::Visit(dt, [&](auto e) {
        using S = typename decltype(e)::Store;
        SoftmaxKernel<S, typename decltype(e)::Math><<<Blocks(rows), kThreads, 0, cs>>>(
            rows, cols, (const S*)grt_tensor_data(x), (S*)grt_tensor_data(y));
      }))
    return NoKernel("Softmax", dt);
  return grt_cuda_launch_error("Softmax");
}

// T: the logits' dtypes; L: the sparse labels' (Tlabels), unused when dense.
template <class T, class L>
grt_status* XentCompute(grt_kernel_ctx* ctx, bool sparse, const char* name) {
  const grt_tensor* logits = ctx->inputs[0];
  const grt_tensor* labels = ctx->inputs[1];
  if (grt_tensor_rank(logits) != 2)
    return grt_status_new(GRT_INVALID_ARGUMENT, "logits must be 2-D, but got shape of rank %d",
                          (int)grt_tensor_rank(logits));
  int64_t rows = grt_tensor_dim(logits, 0), cols = grt_tensor_dim(logits, 1);
  if (sparse ? (grt_tensor_rank(labels) != 1 || grt_tensor_dim(labels, 0) != rows)
             : (grt_tensor_rank(labels) != 2 || grt_tensor_dim(labels, 0) != rows ||
                grt_tensor_dim(labels, 1) != cols))
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "%s: logits and labels must have the same first dimension%s", name,
                          sparse ? "" : " and shape");
  grt_dtype dt = grt_tensor_dtype(logits);
  grt_shape ls = {1, {rows}}, bs = {2, {rows, cols}};
  grt_tensor *loss, *bp;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, dt, &ls, &loss);
  if (!st) st = grt_kernel_alloc_output(ctx, 1, dt, &bs, &bp);
  if (st || rows == 0) return st;
  cudaStream_t cs = grt_cuda_stream(ctx->stream);
  grt_dtype lt = grt_tensor_dtype(labels);
  const void* lab = grt_tensor_data(labels);
  bool labels_ok = !sparse;
  bool typed = T::Visit(dt, [&](auto e) {
    using S = typename decltype(e)::Store;
    using C = typename decltype(e)::Math;
    const S* pl = (const S*)grt_tensor_data(logits);
    S *po = (S*)grt_tensor_data(loss), *pb = (S*)grt_tensor_data(bp);
    if (!sparse)
      XentKernel<S, C, int32_t>
          <<<Blocks(rows), kThreads, 0, cs>>>(rows, cols, pl, (const S*)lab, nullptr, po, pb);
    else
      labels_ok = L::Visit(lt, [&](auto l) {
        using Lb = typename decltype(l)::Store;
        XentKernel<S, C, Lb>
            <<<Blocks(rows), kThreads, 0, cs>>>(rows, cols, pl, nullptr, (const Lb*)lab, po, pb);
      });
  });
  if (!typed) return NoKernel(name, dt);
  if (!labels_ok) return NoKernel(name, lt);
  return grt_cuda_launch_error(name);
}

template <class T, class U>
grt_status* SoftmaxXentCompute(grt_kernel_ctx* c) {
  return XentCompute<T, U>(c, false, "SoftmaxCrossEntropyWithLogits");
}
template <class T, class L>
grt_status* SparseXentCompute(grt_kernel_ctx* c) {
  return XentCompute<T, L>(c, true, "SparseSoftmaxCrossEntropyWithLogits");
}

// ---- BiasAdd and its gradient ----------------------------------------------
// The channel of element i: (i / inner) % channels, where inner is 1 for
// NHWC and the spatial size for NCHW.

template <typename S, typename C>
__global__ void BiasAddKernel(int64_t n, int64_t channels, int64_t inner, const S* x, const S* b,
                              S* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    Narrow(C(Widen(x[i])) + C(Widen(b[(i / inner) % channels])), &y[i]);
}

template <typename S, typename C>
__global__ void BiasGradKernel(int64_t n, int64_t channels, int64_t inner, const S* g, S* out) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < channels;
       c += (int64_t)gridDim.x * blockDim.x) {
    C acc = 0;
    for (int64_t o = 0; o * channels * inner < n; o++)
      for (int64_t k = 0; k < inner; k++) acc += Widen(g[(o * channels + c) * inner + k]);
    Narrow(acc, &out[c]);
  }
}

// channels and inner for `t` in `format`.
grt_status* ChannelLayout(grt_kernel_ctx* ctx, const grt_tensor* t, int64_t* channels,
                          int64_t* inner) {
  const char* format = "NHWC";
  grt_status* st = grt_kernel_attr_string(ctx, "data_format", &format);
  if (st) {  // absent: NHWC
    grt_status_free(st);
    format = "NHWC";
  }
  int32_t rank = grt_tensor_rank(t);
  if (rank < 2) return grt_status_new(GRT_INVALID_ARGUMENT, "Input tensor must be at least 2D");
  *inner = 1;
  if (strcmp(format, "NCHW") == 0) {
    *channels = grt_tensor_dim(t, 1);
    for (int32_t d = 2; d < rank; d++) *inner *= grt_tensor_dim(t, d);
  } else {
    *channels = grt_tensor_dim(t, rank - 1);
  }
  if (*inner == 0) *inner = 1;
  return NULL;
}

template <class T, class U>
grt_status* BiasAddCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* b = ctx->inputs[1];
  int64_t channels, inner;
  grt_status* st = ChannelLayout(ctx, x, &channels, &inner);
  if (st) return st;
  if (grt_tensor_rank(b) != 1 || grt_tensor_dim(b, 0) != channels)
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "Must provide as many biases as the channel dimension of the input tensor");
  grt_shape s = ShapeOf(x);
  grt_dtype dt = grt_tensor_dtype(x);
  grt_tensor* y;
  st = grt_kernel_alloc_output(ctx, 0, dt, &s, &y);
  int64_t n = NumElements(s);
  if (st || n == 0) return st;
  cudaStream_t cs = grt_cuda_stream(ctx->stream);
  if (!T::Visit(dt, [&](auto e) {
        using S = typename decltype(e)::Store;
        BiasAddKernel<S, typename decltype(e)::Math>
            <<<Blocks(n), kThreads, 0, cs>>>(n, channels, inner, (const S*)grt_tensor_data(x),
                                             (const S*)grt_tensor_data(b), (S*)grt_tensor_data(y));
      }))
    return NoKernel("BiasAdd", dt);
  return grt_cuda_launch_error("BiasAdd");
}

template <class T, class U>
grt_status* BiasAddGradCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* g = ctx->inputs[0];
  int64_t channels, inner;
  grt_status* st = ChannelLayout(ctx, g, &channels, &inner);
  if (st) return st;
  grt_shape s = {1, {channels}};
  grt_dtype dt = grt_tensor_dtype(g);
  grt_tensor* out;
  st = grt_kernel_alloc_output(ctx, 0, dt, &s, &out);
  if (st || channels == 0) return st;
  int64_t n = grt_tensor_num_elements(g);
  cudaStream_t cs = grt_cuda_stream(ctx->stream);
  if (!T::Visit(dt, [&](auto e) {
        using S = typename decltype(e)::Store;
        BiasGradKernel<S, typename decltype(e)::Math><<<Blocks(channels), kThreads, 0, cs>>>(
            n, channels, inner, (const S*)grt_tensor_data(g), (S*)grt_tensor_data(out));
      }))
    return NoKernel("BiasAddGrad", dt);
  return grt_cuda_launch_error("BiasAddGrad");
}

// The kernels whose dispatch reads dtype lists: each row makes a kernel and
// its declaration (dtype_list.cuh).
#define TYPED_KERNELS(X)                                                                     \
  X("Softmax", SoftmaxCompute, "T", Floats, nullptr, NoDtypes)                               \
  X("SoftmaxCrossEntropyWithLogits", SoftmaxXentCompute, "T", Floats, nullptr, NoDtypes)     \
  X("SparseSoftmaxCrossEntropyWithLogits", SparseXentCompute, "T", Floats, "Tlabels", Index) \
  X("BiasAdd", BiasAddCompute, "T", Floats, nullptr, NoDtypes)                               \
  X("BiasAddGrad", BiasAddGradCompute, "T", Floats, nullptr, NoDtypes)

// clang-format off
const grt_op_kernel kKernels[] = {
    TYPED_KERNELS(GRT_CUDA_KERNEL_ROW)
};
// clang-format on

const grt_cuda_dtypes kDtypes[] = {TYPED_KERNELS(GRT_CUDA_DTYPES_ROW)};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_nn_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}

extern "C" const grt_cuda_dtypes* grt_cuda_nn_dtypes(int* n) {
  *n = (int)(sizeof grt_cuda::kDtypes / sizeof grt_cuda::kDtypes[0]);
  return grt_cuda::kDtypes;
}
