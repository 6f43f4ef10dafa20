// More math on the GPU: Cast (every pair of dtypes), the comparisons Less,
// Greater, GreaterEqual, Equal (broadcasting, bool result; NaN compares
// false), LogicalNot, Select (scalar, row-vector or element-wise
// condition), AddN, Pow (float: pow; int64: by squaring, wrapping; negative
// integer exponents rejected as on the CPU), ArgMax (first index of the
// largest, NaN skipped) and OneHot. The int32 registrations keep every
// argument in host memory: the same code runs on the host there. AddN, Pow
// and ArgMax take float16 and bfloat16 in float32 arithmetic, from the
// dtype lists they declare (dtype_list.cuh).
//
// Cast and the comparisons read elements through one dtype switch
// (Value: an int64 for integers and bool, a double for floating point), so
// every dtype is covered with one kernel each and int64 stays exact.
//
// tests/gpu/gpu_suite.cc compares each with the CPU (an H200 so far: tests/gpu/runs).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype_list.cuh"
#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

struct Value {
  bool is_int;
  long long i;
  double f;
};

__host__ __device__ inline float Bf16ToFloat(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// Round to nearest even, NaN kept quiet.
__host__ __device__ inline uint16_t FloatToBf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

__device__ inline Value Load(grt_dtype dt, const void* p, int64_t i) {
  Value v = {true, 0, 0};
  switch (dt) {
    case GRT_FLOAT16:
      v.is_int = false;
      v.f = __half2float(((const __half*)p)[i]);
      break;
    case GRT_BFLOAT16:
      v.is_int = false;
      v.f = Bf16ToFloat(((const uint16_t*)p)[i]);
      break;
    case GRT_FLOAT32:
      v.is_int = false;
      v.f = ((const float*)p)[i];
      break;
    case GRT_FLOAT64:
      v.is_int = false;
      v.f = ((const double*)p)[i];
      break;
    case GRT_INT8:
      v.i = ((const int8_t*)p)[i];
      break;
    case GRT_INT16:
      v.i = ((const int16_t*)p)[i];
      break;
    case GRT_INT32:
      v.i = ((const int32_t*)p)[i];
      break;
    case GRT_INT64:
      v.i = ((const long long*)p)[i];
      break;
    case GRT_UINT8:
      v.i = ((const uint8_t*)p)[i];
      break;
    default:
      v.i = ((const uint8_t*)p)[i] != 0;
      break;  // bool
  }
  return v;
}

// C's conversions (floating point to integer truncates), as the CPU's Cast.
__device__ inline void Store(grt_dtype dt, void* p, int64_t i, Value v) {
  double f = v.is_int ? (double)v.i : v.f;
  switch (dt) {
    case GRT_FLOAT16:
      ((__half*)p)[i] = __float2half_rn(v.is_int ? (float)v.i : (float)v.f);
      break;
    case GRT_BFLOAT16:
      ((uint16_t*)p)[i] = FloatToBf16(v.is_int ? (float)v.i : (float)v.f);
      break;
    case GRT_FLOAT32:
      ((float*)p)[i] = v.is_int ? (float)v.i : (float)v.f;
      break;
    case GRT_FLOAT64:
      ((double*)p)[i] = f;
      break;
    case GRT_INT8:
      ((int8_t*)p)[i] = v.is_int ? (int8_t)v.i : (int8_t)v.f;
      break;
    case GRT_INT16:
      ((int16_t*)p)[i] = v.is_int ? (int16_t)v.i : (int16_t)v.f;
      break;
    case GRT_INT32:
      ((int32_t*)p)[i] = v.is_int ? (int32_t)v.i : (int32_t)v.f;
      break;
    case GRT_INT64:
      ((long long*)p)[i] = v.is_int ? v.i : (long long)v.f;
      break;
    case GRT_UINT8:
      ((uint8_t*)p)[i] = v.is_int ? (uint8_t)v.i : (uint8_t)v.f;
      break;
    default:
      ((uint8_t*)p)[i] = v.is_int ? v.i != 0 : v.f != 0;
      break;  // bool
  }
}

__global__ void CastKernel(int64_t n, grt_dtype from, const void* x, grt_dtype to, void* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    Store(to, y, i, Load(from, x, i));
}

grt_status* CastCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype to = GRT_DTYPE_INVALID;
  grt_status* st = grt_kernel_attr_type(ctx, "DstT", &to);
  if (st) return st;
  grt_dtype from = grt_tensor_dtype(x);
  if (from < GRT_FLOAT16 || from > GRT_BOOL || to < GRT_FLOAT16 || to > GRT_BOOL)
    return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA Cast kernel does not handle %s to %s",
                          grt_dtype_name(from), grt_dtype_name(to));
  grt_shape s = ShapeOf(x);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, to, &s, &y))) return st;
  int64_t n = NumElements(s);
  if (n == 0) return NULL;
  CastKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(n, from, grt_tensor_data(x),
                                                                       to, grt_tensor_data(y));
  return Launched("Cast");
}

// ---- comparisons -------------------------------------------------------------------

enum Cmp { kLess, kGreater, kGreaterEqual, kEqual };

__host__ __device__ inline bool Compare(int op, bool is_int, long long a, long long b, double x,
                                        double y) {
  if (is_int) {
    switch (op) {
      case kLess:
        return a < b;
      case kGreater:
        return a > b;
      case kGreaterEqual:
        return a >= b;
      default:
        return a == b;
    }
  }
  switch (op) {
    case kLess:
      return x < y;
    case kGreater:
      return x > y;
    case kGreaterEqual:
      return x >= y;
    default:
      return x == y;
  }
}

__global__ void CompareKernel(int op, Bcast bc, int64_t n, grt_dtype dt, const void* a,
                              const void* b, uint8_t* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t ia = i, ib = i;
    if (!bc.same) BcastOffsets(bc, i, &ia, &ib);
    Value x = Load(dt, a, ia), y = Load(dt, b, ib);
    out[i] = Compare(op, x.is_int, x.i, y.i, x.f, y.f);
  }
}

void BcastHost(const Bcast& bc, int64_t i, int64_t* ia, int64_t* ib) {
  int64_t oa = 0, ob = 0;
  for (int d = bc.rank - 1; d >= 0; d--) {
    int64_t k = i % bc.out_dims[d];
    i /= bc.out_dims[d];
    oa += k * bc.a_strides[d];
    ob += k * bc.b_strides[d];
  }
  *ia = oa;
  *ib = ob;
}

grt_status* CompareCompute(grt_kernel_ctx* ctx, int op, const char* name) {
  const grt_tensor* a = ctx->inputs[0];
  const grt_tensor* b = ctx->inputs[1];
  grt_dtype dt = grt_tensor_dtype(a);
  if (grt_tensor_dtype(b) != dt)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s: inputs of %s and %s", name, grt_dtype_name(dt),
                          grt_dtype_name(grt_tensor_dtype(b)));
  if (dt < GRT_FLOAT16 || dt > GRT_BOOL) return NoKernel(name, dt);
  grt_shape so;
  Bcast bc;
  grt_status* st;
  if (grt_status* incompatible = Broadcast(ShapeOf(a), ShapeOf(b), &so, &bc)) {
    bool strict = true;
    if (op == kEqual && (st = grt_kernel_attr_bool(ctx, "incompatible_shape_error", &strict))) {
      grt_status_free(incompatible);
      return st;
    }
    if (strict) return incompatible;
    grt_status_free(incompatible);
    // TensorFlow's BinaryOpShared: a scalar false instead of an error.
    grt_shape scalar = {0, {0}};
    grt_tensor* y;
    if ((st = grt_kernel_alloc_output(ctx, 0, GRT_BOOL, &scalar, &y))) return st;
    if (OutputOnHost(ctx, 0)) {
      *(uint8_t*)grt_tensor_data(y) = 0;
      return NULL;
    }
    return grt_cuda_error(cudaMemsetAsync(grt_tensor_data(y), 0, 1, grt_cuda_stream(ctx->stream)),
                          "cudaMemsetAsync");
  }
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, GRT_BOOL, &so, &y))) return st;
  int64_t n = NumElements(so);
  if (n == 0) return NULL;
  if (OutputOnHost(ctx, 0)) {  // the int32 registrations
    if (dt != GRT_INT32) return NoKernel(name, dt);
    const int32_t* pa = (const int32_t*)grt_tensor_data(a);
    const int32_t* pb = (const int32_t*)grt_tensor_data(b);
    uint8_t* po = (uint8_t*)grt_tensor_data(y);
    for (int64_t i = 0; i < n; i++) {
      int64_t ia = i, ib = i;
      if (!bc.same) BcastHost(bc, i, &ia, &ib);
      po[i] = Compare(op, true, pa[ia], pb[ib], 0, 0);
    }
    return NULL;
  }
  CompareKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      op, bc, n, dt, grt_tensor_data(a), grt_tensor_data(b), (uint8_t*)grt_tensor_data(y));
  return Launched(name);
}

grt_status* LessCompute(grt_kernel_ctx* c) { return CompareCompute(c, kLess, "Less"); }
grt_status* GreaterCompute(grt_kernel_ctx* c) { return CompareCompute(c, kGreater, "Greater"); }
grt_status* GreaterEqualCompute(grt_kernel_ctx* c) {
  return CompareCompute(c, kGreaterEqual, "GreaterEqual");
}
grt_status* EqualCompute(grt_kernel_ctx* c) { return CompareCompute(c, kEqual, "Equal"); }

__global__ void NotKernel(int64_t n, const uint8_t* x, uint8_t* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] == 0;
}

grt_status* LogicalNotCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  if (grt_tensor_dtype(x) != GRT_BOOL) return NoKernel("LogicalNot", grt_tensor_dtype(x));
  grt_shape s = ShapeOf(x);
  grt_tensor* y;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, GRT_BOOL, &s, &y);
  int64_t n = NumElements(s);
  if (st || n == 0) return st;
  NotKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      n, (const uint8_t*)grt_tensor_data(x), (uint8_t*)grt_tensor_data(y));
  return Launched("LogicalNot");
}

// ---- Select ------------------------------------------------------------------------

// row == 0: cond is a scalar (index 0); row == 1: element-wise; else cond[i / row].
template <typename U>
__global__ void SelectKernel(int64_t n, int64_t row, const uint8_t* c, const U* t, const U* e,
                             U* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = c[row == 0 ? 0 : i / row] ? t[i] : e[i];
}

grt_status* SelectCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* cond = ctx->inputs[0];
  const grt_tensor* t = ctx->inputs[1];
  const grt_tensor* e = ctx->inputs[2];
  char a[96], b[96];
  if (grt_tensor_dtype(cond) != GRT_BOOL)
    return grt_status_new(GRT_INVALID_ARGUMENT, "'condition' must be bool, got %s",
                          grt_dtype_name(grt_tensor_dtype(cond)));
  if (grt_tensor_dtype(t) != grt_tensor_dtype(e))
    return grt_status_new(GRT_INVALID_ARGUMENT, "'then' is %s but 'else' is %s",
                          grt_dtype_name(grt_tensor_dtype(t)), grt_dtype_name(grt_tensor_dtype(e)));
  if (!SameShape(t, e))
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "'then' and 'else' must have the same size.  but received: %s vs. %s",
                          ShapeStr(t, a, sizeof a), ShapeStr(e, b, sizeof b));
  int64_t n = grt_tensor_num_elements(t), row;
  if (grt_tensor_rank(cond) == 0) {
    row = 0;
  } else if (grt_tensor_rank(cond) == 1 && grt_tensor_rank(t) != 1) {
    if (grt_tensor_rank(t) == 0)
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "'then' must be at least a vector, but saw shape: %s",
                            ShapeStr(t, a, sizeof a));
    if (grt_tensor_dim(t, 0) != grt_tensor_dim(cond, 0))
      return grt_status_new(
          GRT_INVALID_ARGUMENT,
          "Number of batches of 'then' must match size of 'cond', but saw: %lld vs. %lld",
          (long long)grt_tensor_dim(t, 0), (long long)grt_tensor_dim(cond, 0));
    row = grt_tensor_dim(t, 0) ? n / grt_tensor_dim(t, 0) : 1;
  } else {
    if (!SameShape(cond, t))
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "'cond' and 'then' must have the same size.  but received: %s vs. %s",
                            ShapeStr(cond, a, sizeof a), ShapeStr(t, b, sizeof b));
    row = 1;
  }
  grt_shape s = ShapeOf(t);
  grt_tensor* y;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(t), &s, &y);
  if (st || n == 0) return st;
  cudaStream_t str = grt_cuda_stream(ctx->stream);
  const uint8_t* c = (const uint8_t*)grt_tensor_data(cond);
  const void *pt = grt_tensor_data(t), *pe = grt_tensor_data(e);
  void* po = grt_tensor_data(y);
  switch (grt_dtype_size(grt_tensor_dtype(t))) {
    case 1:
      SelectKernel<uint8_t><<<Blocks(n), kThreads, 0, str>>>(n, row, c, (const uint8_t*)pt,
                                                             (const uint8_t*)pe, (uint8_t*)po);
      break;
    case 2:
      SelectKernel<uint16_t><<<Blocks(n), kThreads, 0, str>>>(n, row, c, (const uint16_t*)pt,
                                                              (const uint16_t*)pe, (uint16_t*)po);
      break;
    case 4:
      SelectKernel<uint32_t><<<Blocks(n), kThreads, 0, str>>>(n, row, c, (const uint32_t*)pt,
                                                              (const uint32_t*)pe, (uint32_t*)po);
      break;
    default:
      SelectKernel<unsigned long long>
          <<<Blocks(n), kThreads, 0, str>>>(n, row, c, (const unsigned long long*)pt,
                                            (const unsigned long long*)pe, (unsigned long long*)po);
  }
  return Launched("Select");
}

// ---- AddN --------------------------------------------------------------------------

enum { kAddNChunk = 8 };

template <typename T>
struct AddNArgs {
  const T* in[kAddNChunk];
  int n;
  bool accumulate;  // add to out (a later chunk of inputs)
};

// S in memory, C the arithmetic (float16/bfloat16 add in float32; a
// later chunk of inputs adds to the rounded partial sum).
template <typename S, typename C>
__global__ void AddNKernel(int64_t count, AddNArgs<S> a, S* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    C acc = Widen(a.accumulate ? out[i] : a.in[0][i]);
    for (int k = a.accumulate ? 0 : 1; k < a.n; k++) acc += Widen(a.in[k][i]);
    Narrow(acc, &out[i]);
  }
}

template <typename S, typename C>
grt_status* AddNTyped(grt_kernel_ctx* ctx, int64_t count, S* out) {
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  for (int first = 0; first < ctx->n_inputs; first += kAddNChunk) {
    AddNArgs<S> a = {};
    a.n = ctx->n_inputs - first < kAddNChunk ? ctx->n_inputs - first : kAddNChunk;
    a.accumulate = first > 0;
    for (int k = 0; k < a.n; k++) a.in[k] = (const S*)grt_tensor_data(ctx->inputs[first + k]);
    AddNKernel<S, C><<<Blocks(count), kThreads, 0, s>>>(count, a, out);
  }
  return Launched("AddN");
}

// T: the device-memory dtypes; int32 is the host-memory registration.
template <class T, class U>
grt_status* AddNCompute(grt_kernel_ctx* ctx) {
  if (ctx->n_inputs < 1) return grt_status_new(GRT_INVALID_ARGUMENT, "AddN needs inputs");
  const grt_tensor* x0 = ctx->inputs[0];
  grt_dtype dt = grt_tensor_dtype(x0);
  char a[96], b[96];
  for (int k = 1; k < ctx->n_inputs; k++)
    if (!SameShape(ctx->inputs[k], x0) || grt_tensor_dtype(ctx->inputs[k]) != dt)
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "AddN : Inputs to operation AddN of type %s must have the same size "
                            "and shape.  Input 0: %s != input %d: %s",
                            "AddN", ShapeStr(x0, a, sizeof a), k,
                            ShapeStr(ctx->inputs[k], b, sizeof b));
  grt_shape s = ShapeOf(x0);
  grt_tensor* y;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, dt, &s, &y);
  int64_t n = NumElements(s);
  if (st || n == 0) return st;
  if (OutputOnHost(ctx, 0)) {  // int32, host memory
    if (dt != GRT_INT32) return NoKernel("AddN", dt);
    int32_t* o = (int32_t*)grt_tensor_data(y);
    for (int64_t i = 0; i < n; i++) {
      uint32_t acc = 0;  // wraps, as the CPU's
      for (int k = 0; k < ctx->n_inputs; k++)
        acc += (uint32_t)((const int32_t*)grt_tensor_data(ctx->inputs[k]))[i];
      o[i] = (int32_t)acc;
    }
    return NULL;
  }
  grt_status* launched = NULL;
  if (!T::Visit(dt, [&](auto e) {
        using S = typename decltype(e)::Store;
        launched = AddNTyped<S, typename decltype(e)::Math>(ctx, n, (S*)grt_tensor_data(y));
      }))
    return NoKernel("AddN", dt);
  return launched;
}

// ---- Pow ---------------------------------------------------------------------------

template <typename T>
__device__ inline T PowOf(T x, T y);
template <>
__device__ inline float PowOf<float>(float x, float y) {
  return powf(x, y);
}
template <>
__device__ inline double PowOf<double>(double x, double y) {
  return pow(x, y);
}
template <>
__device__ inline long long PowOf<long long>(long long x, long long e) {
  unsigned long long r = 1, b = (unsigned long long)x;
  while (e > 0) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return (long long)r;
}

template <typename S, typename C>
__global__ void PowKernel(Bcast bc, int64_t n, const S* a, const S* b, S* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t ia = i, ib = i;
    if (!bc.same) BcastOffsets(bc, i, &ia, &ib);
    Narrow(PowOf<C>(Widen(a[ia]), Widen(b[ib])), &out[i]);
  }
}

// Integer exponents are read back to the host first to reject negative
// ones as the CPU does (a synchronous copy: int64 Pow is rare on a GPU).
grt_status* NegativeExponents(grt_kernel_ctx* ctx, const grt_tensor* y) {
  size_t bytes = grt_tensor_byte_size(y);
  long long* host = (long long*)malloc(bytes ? bytes : 1);
  if (!host) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory reading Pow's exponents");
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  grt_status* st =
      grt_cuda_error(cudaMemcpyAsync(host, grt_tensor_data(y), bytes, cudaMemcpyDeviceToHost, s),
                     "cudaMemcpyAsync");
  if (!st) st = grt_cuda_error(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  bool negative = false;
  for (int64_t i = 0; !st && i < grt_tensor_num_elements(y); i++) negative |= host[i] < 0;
  free(host);
  if (!st && negative)
    st =
        grt_status_new(GRT_INVALID_ARGUMENT, "Integers to negative integer powers are not allowed");
  return st;
}

template <class T, class U>
grt_status* PowCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* a = ctx->inputs[0];
  const grt_tensor* b = ctx->inputs[1];
  grt_dtype dt = grt_tensor_dtype(a);
  if (grt_tensor_dtype(b) != dt)
    return grt_status_new(GRT_INVALID_ARGUMENT, "Pow: inputs of %s and %s", grt_dtype_name(dt),
                          grt_dtype_name(grt_tensor_dtype(b)));
  grt_shape so;
  Bcast bc;
  grt_status* st = Broadcast(ShapeOf(a), ShapeOf(b), &so, &bc);
  if (st) return st;
  if (dt == GRT_INT64 && (st = NegativeExponents(ctx, b))) return st;
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &so, &y))) return st;
  int64_t n = NumElements(so);
  if (n == 0) return NULL;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (!T::Visit(dt, [&](auto e) {
        using S = typename decltype(e)::Store;
        PowKernel<S, typename decltype(e)::Math>
            <<<Blocks(n), kThreads, 0, s>>>(bc, n, (const S*)grt_tensor_data(a),
                                            (const S*)grt_tensor_data(b), (S*)grt_tensor_data(y));
      }))
    return NoKernel("Pow", dt);
  return Launched("Pow");
}

// ---- ArgMax ------------------------------------------------------------------------

// x viewed as [A, B, C], the maximum over B; one thread per (a, c).
// S in memory, M the comparison's type (float16/bfloat16 widen exactly).
template <typename S, typename M, typename I>
__global__ void ArgMaxKernel(int64_t A, int64_t B, int64_t C, const S* x, I* out) {
  int64_t n = A * C;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t a = i / C, c = i % C;
    const S* p = x + a * B * C + c;
    M best = -INFINITY;
    int64_t idx = 0;
    for (int64_t b = 0; b < B; b++) {
      M v = Widen(p[b * C]);
      if (v > best) {  // NaN is never larger: skipped
        best = v;
        idx = b;
      }
    }
    out[i] = (I)idx;
  }
}

// T: the input's dtypes; O: output_type's (the dimension, in host memory,
// is read as any integer).
template <class T, class O>
grt_status* ArgMaxCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* dim_t = ctx->inputs[1];
  grt_dtype out_type = GRT_INT64;
  grt_status* st = grt_kernel_attr_type(ctx, "output_type", &out_type);
  if (st) return st;
  if (!(O::kMask & (1u << out_type))) return NoKernel("ArgMax", out_type);
  if (grt_tensor_num_elements(dim_t) != 1)
    return grt_status_new(GRT_INVALID_ARGUMENT, "dim must be a scalar");
  grt_shape in = ShapeOf(x);
  int64_t axis = HostInt(dim_t, 0);
  if (axis < -in.rank || axis >= in.rank)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "Expected dimension in the range [%d, %d), but got %lld", -(int)in.rank,
                          (int)in.rank, (long long)axis);
  if (axis < 0) axis += in.rank;
  if (in.dims[axis] == 0)
    return grt_status_new(GRT_INVALID_ARGUMENT, "Reduction axis %lld is empty in shape",
                          (long long)axis);
  grt_shape out = {0, {0}};
  int64_t A = 1, C = 1;
  for (int32_t d = 0; d < in.rank; d++) {
    if (d < axis) A *= in.dims[d];
    if (d > axis) C *= in.dims[d];
    if (d != axis) out.dims[out.rank++] = in.dims[d];
  }
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, out_type, &out, &y))) return st;
  if (A * C == 0) return NULL;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (!T::Visit(grt_tensor_dtype(x), [&](auto e) {
        using S = typename decltype(e)::Store;
        using M = typename decltype(e)::Math;
        O::Visit(out_type, [&](auto o) {
          using I = typename decltype(o)::Store;
          ArgMaxKernel<S, M, I><<<Blocks(A * C), kThreads, 0, s>>>(
              A, in.dims[axis], C, (const S*)grt_tensor_data(x), (I*)grt_tensor_data(y));
        });
      }))
    return NoKernel("ArgMax", grt_tensor_dtype(x));
  return Launched("ArgMax");
}

// ---- OneHot ------------------------------------------------------------------------

// out viewed as [pre, depth, post]; indices as [pre, post].
template <typename U>
__global__ void OneHotKernel(int64_t n, int64_t depth, int64_t post, grt_dtype idx_type,
                             const void* indices, const U* on, const U* off, U* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t p = i % post, d = (i / post) % depth, q = i / (post * depth);
    long long idx = Load(idx_type, indices, q * post + p).i;
    out[i] = idx == d ? *on : *off;
  }
}

grt_status* OneHotCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* indices = ctx->inputs[0];
  const grt_tensor* depth_t = ctx->inputs[1];
  const grt_tensor* on = ctx->inputs[2];
  const grt_tensor* off = ctx->inputs[3];
  int64_t axis = -1;
  grt_status* st = grt_kernel_attr_int(ctx, "axis", &axis);
  if (st) return st;
  grt_dtype it = grt_tensor_dtype(indices);
  if (it != GRT_INT32 && it != GRT_INT64 && it != GRT_UINT8) return NoKernel("OneHot", it);
  if (grt_tensor_num_elements(depth_t) != 1 || grt_tensor_rank(depth_t) != 0)
    return grt_status_new(GRT_INVALID_ARGUMENT, "depth must be a scalar");
  if (grt_tensor_rank(on) != 0 || grt_tensor_rank(off) != 0)
    return grt_status_new(GRT_INVALID_ARGUMENT, "on_value and off_value must be scalars");
  int64_t depth = HostInt(depth_t, 0);
  if (depth < 0)
    return grt_status_new(GRT_INVALID_ARGUMENT, "depth must be non-negative, got: %lld",
                          (long long)depth);
  grt_shape in = ShapeOf(indices);
  int32_t rank = in.rank + 1;
  if (axis < -1 || axis >= rank)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "Expected axis to be -1 or between [0, %d).  But received: %lld",
                          (int)rank, (long long)axis);
  if (rank > GRT_MAX_RANK)
    return grt_status_new(GRT_INVALID_ARGUMENT, "OneHot: rank %d is too high", (int)rank);
  if (axis == -1) axis = in.rank;
  grt_shape out = {rank, {0}};
  int64_t post = 1;
  for (int32_t d = 0, i = 0; d < rank; d++) out.dims[d] = d == axis ? depth : in.dims[i++];
  for (int32_t d = (int32_t)axis; d < in.rank; d++) post *= in.dims[d];
  grt_dtype t = grt_tensor_dtype(on);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, t, &out, &y))) return st;
  int64_t n = NumElements(out);
  if (n == 0) return NULL;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  const void *pi = grt_tensor_data(indices), *pon = grt_tensor_data(on),
             *poff = grt_tensor_data(off);
  void* po = grt_tensor_data(y);
  switch (grt_dtype_size(t)) {
    case 1:
      OneHotKernel<uint8_t><<<Blocks(n), kThreads, 0, s>>>(
          n, depth, post, it, pi, (const uint8_t*)pon, (const uint8_t*)poff, (uint8_t*)po);
      break;
    case 2:
      OneHotKernel<uint16_t><<<Blocks(n), kThreads, 0, s>>>(
          n, depth, post, it, pi, (const uint16_t*)pon, (const uint16_t*)poff, (uint16_t*)po);
      break;
    case 4:
      OneHotKernel<uint32_t><<<Blocks(n), kThreads, 0, s>>>(
          n, depth, post, it, pi, (const uint32_t*)pon, (const uint32_t*)poff, (uint32_t*)po);
      break;
    default:
      OneHotKernel<unsigned long long>
          <<<Blocks(n), kThreads, 0, s>>>(n, depth, post, it, pi, (const unsigned long long*)pon,
                                          (const unsigned long long*)poff, (unsigned long long*)po);
  }
  return Launched("OneHot");
}

// The kernels whose dispatch reads dtype lists: each row makes a kernel and
// its declaration (dtype_list.cuh). AddN's int32 is its host-memory row.
#define TYPED_KERNELS(X)                                                     \
  X("AddN", AddNCompute, "T", FloatsInt64WithInt32OnHost, nullptr, NoDtypes) \
  X("Pow", PowCompute, "T", FloatsInt64, nullptr, NoDtypes)                  \
  X("ArgMax", ArgMaxCompute, "T", Floats, "output_type", Index)

// clang-format off
const grt_op_kernel kKernels[] = {
    {"Cast", CastCompute, NULL, NULL, 0},
    {"Less", LessCompute, NULL, NULL, 0},
    {"Greater", GreaterCompute, NULL, NULL, 0},
    {"GreaterEqual", GreaterEqualCompute, NULL, NULL, 0},
    {"Equal", EqualCompute, NULL, NULL, 0},
    {"LogicalNot", LogicalNotCompute, NULL, NULL, 0},
    {"Select", SelectCompute, NULL, NULL, 0},
    {"OneHot", OneHotCompute, NULL, NULL, 0},
    TYPED_KERNELS(GRT_CUDA_KERNEL_ROW)
};
// clang-format on

const grt_cuda_dtypes kDtypes[] = {TYPED_KERNELS(GRT_CUDA_DTYPES_ROW)};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_math_more_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}

extern "C" const grt_cuda_dtypes* grt_cuda_math_more_dtypes(int* n) {
  *n = (int)(sizeof grt_cuda::kDtypes / sizeof grt_cuda::kDtypes[0]);
  return grt_cuda::kDtypes;
}
