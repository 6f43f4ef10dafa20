// Softmax, the two softmax cross-entropy ops, BiasAdd and BiasAddGrad on
// the GPU; float32 and float64 (the reductions are in reduce.cu). Simple
// one-thread-per-row kernels: correct first, tuned once a GPU has measured
// them.
//
// UNVERIFIED: compiled without a GPU; tests/gpu/run_gpu_suite.sh compares
// each against the CPU kernel on a GPU machine.
#include <math.h>
#include <string.h>

#include "cuda_common.cuh"

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

grt_status* Unsupported(const char* op, grt_dtype dt) {
  return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA %s kernel does not handle %s yet", op,
                        grt_dtype_name(dt));
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

template <typename T>
__global__ void SoftmaxKernel(int64_t rows, int64_t cols, const T* x, T* y) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows;
       r += (int64_t)gridDim.x * blockDim.x) {
    const T* in = x + r * cols;
    T* out = y + r * cols;
    T mx = Lowest<T>();
    for (int64_t j = 0; j < cols; j++) mx = in[j] > mx ? in[j] : mx;
    T sum = 0;
    for (int64_t j = 0; j < cols; j++) sum += Exp<T>(in[j] - mx);
    for (int64_t j = 0; j < cols; j++) out[j] = Exp<T>(in[j] - mx) / sum;
  }
}

// labels: dense [rows, cols] (dense != NULL) or sparse class ids.
template <typename T, typename L>
__global__ void XentKernel(int64_t rows, int64_t cols, const T* logits, const T* dense,
                           const L* sparse, T* loss, T* backprop) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows;
       r += (int64_t)gridDim.x * blockDim.x) {
    const T* in = logits + r * cols;
    T* bp = backprop + r * cols;
    T mx = Lowest<T>();
    for (int64_t j = 0; j < cols; j++) mx = in[j] > mx ? in[j] : mx;
    T sum = 0;
    for (int64_t j = 0; j < cols; j++) sum += Exp<T>(in[j] - mx);
    T log_sum = Log<T>(sum);
    if (!dense) {
      L label = sparse[r];
      if (label < 0 || label >= cols) {  // TensorFlow's GPU kernel: NaN for the row
        loss[r] = T(NAN);
        for (int64_t j = 0; j < cols; j++) bp[j] = T(NAN);
        continue;
      }
      loss[r] = log_sum - (in[label] - mx);
      for (int64_t j = 0; j < cols; j++)
        bp[j] = Exp<T>(in[j] - mx) / sum - (j == label ? T(1) : T(0));
    } else {
      const T* lab = dense + r * cols;
      T l = 0;
      for (int64_t j = 0; j < cols; j++) {
        l -= lab[j] * ((in[j] - mx) - log_sum);
        bp[j] = Exp<T>(in[j] - mx) / sum - lab[j];
      }
      loss[r] = l;
    }
  }
}

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
  if (dt == GRT_FLOAT32)
    SoftmaxKernel<float><<<Blocks(rows), kThreads, 0, cs>>>(
        rows, cols, (const float*)grt_tensor_data(x), (float*)grt_tensor_data(y));
  else if (dt == GRT_FLOAT64)
    SoftmaxKernel<double><<<Blocks(rows), kThreads, 0, cs>>>(
        rows, cols, (const double*)grt_tensor_data(x), (double*)grt_tensor_data(y));
  else
    return Unsupported("Softmax", dt);
  return grt_cuda_launch_error("Softmax");
}

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
#define XENT(T, L)                                                                     \
  XentKernel<T, L><<<Blocks(rows), kThreads, 0, cs>>>(                                 \
      rows, cols, (const T*)grt_tensor_data(logits), sparse ? nullptr : (const T*)lab, \
      sparse ? (const L*)lab : nullptr, (T*)grt_tensor_data(loss), (T*)grt_tensor_data(bp))
  if (dt == GRT_FLOAT32 && (!sparse || lt == GRT_INT32))
    XENT(float, int32_t);
  else if (dt == GRT_FLOAT32 && lt == GRT_INT64)
    XENT(float, long long);
  else if (dt == GRT_FLOAT64 && (!sparse || lt == GRT_INT32))
    XENT(double, int32_t);
  else if (dt == GRT_FLOAT64 && lt == GRT_INT64)
    XENT(double, long long);
  else
    return Unsupported(name, dt);
#undef XENT
  return grt_cuda_launch_error(name);
}

grt_status* SoftmaxXentCompute(grt_kernel_ctx* c) {
  return XentCompute(c, false, "SoftmaxCrossEntropyWithLogits");
}
grt_status* SparseXentCompute(grt_kernel_ctx* c) {
  return XentCompute(c, true, "SparseSoftmaxCrossEntropyWithLogits");
}

// ---- BiasAdd and its gradient ----------------------------------------------
// The channel of element i: (i / inner) % channels, where inner is 1 for
// NHWC and the spatial size for NCHW.

template <typename T>
__global__ void BiasAddKernel(int64_t n, int64_t channels, int64_t inner, const T* x, const T* b,
                              T* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] + b[(i / inner) % channels];
}

template <typename T>
__global__ void BiasGradKernel(int64_t n, int64_t channels, int64_t inner, const T* g, T* out) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < channels;
       c += (int64_t)gridDim.x * blockDim.x) {
    T acc = 0;
    for (int64_t o = 0; o * channels * inner < n; o++)
      for (int64_t k = 0; k < inner; k++) acc += g[(o * channels + c) * inner + k];
    out[c] = acc;
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
  if (dt == GRT_FLOAT32)
    BiasAddKernel<float><<<Blocks(n), kThreads, 0, cs>>>(
        n, channels, inner, (const float*)grt_tensor_data(x), (const float*)grt_tensor_data(b),
        (float*)grt_tensor_data(y));
  else if (dt == GRT_FLOAT64)
    BiasAddKernel<double><<<Blocks(n), kThreads, 0, cs>>>(
        n, channels, inner, (const double*)grt_tensor_data(x), (const double*)grt_tensor_data(b),
        (double*)grt_tensor_data(y));
  else
    return Unsupported("BiasAdd", dt);
  return grt_cuda_launch_error("BiasAdd");
}

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
  if (dt == GRT_FLOAT32)
    BiasGradKernel<float><<<Blocks(channels), kThreads, 0, cs>>>(
        n, channels, inner, (const float*)grt_tensor_data(g), (float*)grt_tensor_data(out));
  else if (dt == GRT_FLOAT64)
    BiasGradKernel<double><<<Blocks(channels), kThreads, 0, cs>>>(
        n, channels, inner, (const double*)grt_tensor_data(g), (double*)grt_tensor_data(out));
  else
    return Unsupported("BiasAddGrad", dt);
  return grt_cuda_launch_error("BiasAddGrad");
}

const grt_op_kernel kKernels[] = {
    {"Softmax", SoftmaxCompute, NULL, NULL, 0},
    {"SoftmaxCrossEntropyWithLogits", SoftmaxXentCompute, NULL, NULL, 0},
    {"SparseSoftmaxCrossEntropyWithLogits", SparseXentCompute, NULL, NULL, 0},
    {"BiasAdd", BiasAddCompute, NULL, NULL, 0},
    {"BiasAddGrad", BiasAddGradCompute, NULL, NULL, 0},
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_nn_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
