// Reductions (Sum, Mean, Max, Min, Prod), Softmax, the two softmax cross-entropy
// ops, BiasAdd and BiasAddGrad on the GPU; float32 and float64. Simple
// one-thread-per-output kernels: correct first, tuned once a GPU has
// measured them.
//
// UNVERIFIED: compiled without a GPU; tests/gpu/run_gpu_suite.sh compares
// each against the CPU kernel on a GPU machine.
#include <math.h>
#include <string.h>

#include "cuda_common.cuh"

namespace grt_cuda {
namespace {

enum RedOp { kSum, kMean, kMax, kMin, kProd };

// Output element -> input offsets: the kept dimensions (with the input's
// strides) index the output; the reduced ones are walked per output.
struct Reduce {
  int32_t kept_rank, red_rank;
  int64_t kept_dims[GRT_MAX_RANK], kept_strides[GRT_MAX_RANK];
  int64_t red_dims[GRT_MAX_RANK], red_strides[GRT_MAX_RANK];
  int64_t red_count;
};

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
template <>
__host__ __device__ inline int32_t Lowest<int32_t>() {
  return INT32_MIN;
}
template <>
__host__ __device__ inline long long Lowest<long long>() {
  return LLONG_MIN;
}
template <typename T>
__host__ __device__ inline T Highest();
template <>
__host__ __device__ inline float Highest<float>() {
  return INFINITY;
}
template <>
__host__ __device__ inline double Highest<double>() {
  return INFINITY;
}
template <>
__host__ __device__ inline int32_t Highest<int32_t>() {
  return INT32_MAX;
}
template <>
__host__ __device__ inline long long Highest<long long>() {
  return LLONG_MAX;
}

template <typename T>
__host__ __device__ inline T ReduceOne(const Reduce& r, int op, const T* x, int64_t o) {
  int64_t base = 0;
  for (int d = r.kept_rank - 1; d >= 0; d--) {
    base += (o % r.kept_dims[d]) * r.kept_strides[d];
    o /= r.kept_dims[d];
  }
  T acc = op == kMax ? Lowest<T>() : op == kMin ? Highest<T>() : op == kProd ? T(1) : T(0);
  for (int64_t j = 0; j < r.red_count; j++) {
    int64_t off = base, q = j;
    for (int d = r.red_rank - 1; d >= 0; d--) {
      off += (q % r.red_dims[d]) * r.red_strides[d];
      q /= r.red_dims[d];
    }
    T v = x[off];
    if (op == kMax)
      acc = v > acc ? v : acc;
    else if (op == kMin)
      acc = v < acc ? v : acc;
    else if (op == kProd)
      acc *= v;
    else
      acc += v;
  }
  if (op == kMean && r.red_count) acc /= T(r.red_count);
  return acc;
}

template <typename T>
__global__ void ReduceKernel(Reduce r, int op, int64_t n, const T* x, T* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = ReduceOne<T>(r, op, x, i);
}

grt_status* Unsupported(const char* op, grt_dtype dt) {
  return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA %s kernel does not handle %s yet", op,
                        grt_dtype_name(dt));
}

grt_status* ReduceCompute(grt_kernel_ctx* ctx, int op, const char* name) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* idx = ctx->inputs[1];  // host memory
  bool keep = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "keep_dims", &keep);
  if (st) return st;
  int32_t rank = grt_tensor_rank(x);
  bool reduced[GRT_MAX_RANK] = {false};
  int64_t ni = grt_tensor_num_elements(idx);
  grt_dtype it = grt_tensor_dtype(idx);
  if (it != GRT_INT32 && it != GRT_INT64)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s: reduction_indices must be int32 or int64",
                          name);
  for (int64_t i = 0; i < ni; i++) {
    int64_t a = it == GRT_INT32 ? ((const int32_t*)grt_tensor_data(idx))[i]
                                : ((const int64_t*)grt_tensor_data(idx))[i];
    if (a < -rank || a >= rank)
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "Invalid reduction dimension (%lld for input with %d dimension(s)",
                            (long long)a, (int)rank);
    reduced[a < 0 ? a + rank : a] = true;
  }
  Reduce r = {};
  grt_shape out = {0, {0}};
  int64_t stride = 1, strides[GRT_MAX_RANK];
  for (int32_t d = rank - 1; d >= 0; d--) {
    strides[d] = stride;
    stride *= grt_tensor_dim(x, d);
  }
  r.red_count = 1;
  for (int32_t d = 0; d < rank; d++) {
    int64_t dim = grt_tensor_dim(x, d);
    if (reduced[d]) {
      r.red_dims[r.red_rank] = dim;
      r.red_strides[r.red_rank++] = strides[d];
      r.red_count *= dim;
      if (keep) out.dims[out.rank++] = 1;
    } else {
      r.kept_dims[r.kept_rank] = dim ? dim : 1;
      r.kept_strides[r.kept_rank++] = strides[d];
      out.dims[out.rank++] = dim;
    }
  }
  grt_dtype dt = grt_tensor_dtype(x);
  grt_tensor* o;
  st = grt_kernel_alloc_output(ctx, 0, dt, &out, &o);
  if (st) return st;
  int64_t n = NumElements(out);
  if (n == 0) return NULL;
  if (dt == GRT_INT32) {  // the host-memory registration
    const int32_t* px = (const int32_t*)grt_tensor_data(x);
    int32_t* po = (int32_t*)grt_tensor_data(o);
    for (int64_t i = 0; i < n; i++) po[i] = ReduceOne<int32_t>(r, op, px, i);
    return NULL;
  }
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (dt == GRT_FLOAT32)
    ReduceKernel<float><<<Blocks(n), kThreads, 0, s>>>(r, op, n, (const float*)grt_tensor_data(x),
                                                       (float*)grt_tensor_data(o));
  else if (dt == GRT_FLOAT64)
    ReduceKernel<double><<<Blocks(n), kThreads, 0, s>>>(r, op, n, (const double*)grt_tensor_data(x),
                                                        (double*)grt_tensor_data(o));
  else if (dt == GRT_INT64 && op != kMean)
    ReduceKernel<long long><<<Blocks(n), kThreads, 0, s>>>(
        r, op, n, (const long long*)grt_tensor_data(x), (long long*)grt_tensor_data(o));
  else
    return Unsupported(name, dt);
  return grt_cuda_launch_error(name);
}

grt_status* SumCompute(grt_kernel_ctx* c) { return ReduceCompute(c, kSum, "Sum"); }
grt_status* MeanCompute(grt_kernel_ctx* c) { return ReduceCompute(c, kMean, "Mean"); }
grt_status* MaxCompute(grt_kernel_ctx* c) { return ReduceCompute(c, kMax, "Max"); }
grt_status* MinCompute(grt_kernel_ctx* c) { return ReduceCompute(c, kMin, "Min"); }
grt_status* ProdCompute(grt_kernel_ctx* c) { return ReduceCompute(c, kProd, "Prod"); }

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
    {"Sum", SumCompute, NULL, NULL, 0},
    {"Prod", ProdCompute, NULL, NULL, 0},
    {"Mean", MeanCompute, NULL, NULL, 0},
    {"Max", MaxCompute, NULL, NULL, 0},
    {"Min", MinCompute, NULL, NULL, 0},
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
