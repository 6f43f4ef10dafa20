// Element-wise CUDA kernels: binary ops with NumPy broadcasting, unary ops
// and the activation gradients, for float32, float64 and (where the op
// allows) int64 in device memory. The rows' int32 registrations keep every
// argument in host memory (support_gpu.c), so int32 runs on the
// host here, synchronously, as TensorFlow's host-memory kernels do.
//
// The ops added for ONNX import follow the CPU kernels
// (backends/cpu/elementwise_unary_math.c, elementwise_mod_shift.c): Round is
// rint (half to even), Sign keeps NaN, IsNan/IsInf give bool; FloorMod takes
// the divisor's sign, TruncateMod the dividend's; the integer remainders
// (int32 rows only, in host memory) refuse a zero divisor with the CPU's
// "Integer division by zero" before computing anything; LeftShift and
// RightShift (int8..int64, uint8, device memory, int32 included) clamp the
// count to [0, bits - 1] and shift left in the unsigned type so it wraps.
// Unary float16/bfloat16 run the float32 arithmetic on widened values.
//
// UNVERIFIED: compiled without a GPU; tests/gpu/run_gpu_suite.sh compares
// each against the CPU kernel on a GPU machine.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <string.h>

#include <type_traits>

#include "kernel_util.cuh"

namespace grt_cuda {
namespace {

enum BinOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kSqDiff,
  kTanhGrad,
  kSigmoidGrad,
  kReluGrad,
  kFloorMod,
  kTruncMod,
  kLShift,
  kRShift,
};
// The ops up to kSign also take integers; IsNan/IsInf are Classify's.
enum UnOp {
  kNeg,
  kAbs,
  kSquare,
  kSign,
  kSqrt,
  kRsqrt,
  kExp,
  kLog,
  kTanh,
  kSigmoid,
  kRelu,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kFloor,
  kCeil,
  kRound,
  kErf,
};

// Remainders: floats by fmod (exact), a non-zero remainder of the wrong
// sign moved by y for FloorMod; integers by %, with y == -1 giving 0 (the
// minimum value % -1 overflows in C). Zero divisors never reach here.
template <typename T>
__host__ __device__ inline T Remainder(T x, T y, bool floor) {
  T r;
  if constexpr (std::is_floating_point<T>::value) {
    r = fmod(x, y);
  } else {
    if (y == T(-1)) return T(0);
    r = x % y;
  }
  if constexpr (std::is_unsigned<T>::value)
    return r;  // never of the wrong sign
  else
    return (floor && r != T(0) && ((y < T(0)) != (r < T(0)))) ? T(r + y) : r;
}

// Shifts with the count clamped to [0, bits - 1]; floats never get here.
template <typename T>
__host__ __device__ inline T Shift(T x, T y, bool left) {
  if constexpr (std::is_integral<T>::value) {
    constexpr int kBits = (int)sizeof(T) * 8;
    int c = y >= T(kBits - 1) ? kBits - 1 : (int)y;
    if constexpr (std::is_signed<T>::value) c = y < T(0) ? 0 : c;
    using U = typename std::make_unsigned<T>::type;
    return left ? (T)((U)x << c) : (T)(x >> c);
  } else {
    return T(0);
  }
}

template <typename T>
__host__ __device__ inline T ApplyBin(int op, T x, T y) {
  switch (op) {
    case kAdd:
      return x + y;
    case kSub:
      return x - y;
    case kMul:
      return x * y;
    case kDiv:
      return x / y;
    case kMax:
      return x > y ? x : y;
    case kMin:
      return x < y ? x : y;
    case kSqDiff:
      return (x - y) * (x - y);
    case kTanhGrad:
      return y * (T(1) - x * x);  // (y, dy)
    case kSigmoidGrad:
      return y * x * (T(1) - x);  // (y, dy)
    case kFloorMod:
      return Remainder(x, y, true);
    case kTruncMod:
      return Remainder(x, y, false);
    case kLShift:
      return Shift(x, y, true);
    case kRShift:
      return Shift(x, y, false);
    default:
      return y > T(0) ? x : T(0);  // ReluGrad(gradients, features)
  }
}

template <typename T>
__device__ inline T ApplyUn(int op, T x);
template <>
__device__ inline float ApplyUn<float>(int op, float x) {
  switch (op) {
    case kNeg:
      return -x;
    case kAbs:
      return fabsf(x);
    case kSquare:
      return x * x;
    case kSqrt:
      return sqrtf(x);
    case kRsqrt:
      return rsqrtf(x);
    case kExp:
      return expf(x);
    case kLog:
      return logf(x);
    case kTanh:
      return tanhf(x);
    case kSigmoid:
      return 1.0f / (1.0f + expf(-x));
    case kSign:
      return x != x ? x : (float)((x > 0.0f) - (x < 0.0f));  // NaN stays NaN
    case kSin:
      return sinf(x);
    case kCos:
      return cosf(x);
    case kTan:
      return tanf(x);
    case kAsin:
      return asinf(x);
    case kAcos:
      return acosf(x);
    case kAtan:
      return atanf(x);
    case kSinh:
      return sinhf(x);
    case kCosh:
      return coshf(x);
    case kAsinh:
      return asinhf(x);
    case kAcosh:
      return acoshf(x);
    case kAtanh:
      return atanhf(x);
    case kFloor:
      return floorf(x);
    case kCeil:
      return ceilf(x);
    case kRound:
      return rintf(x);  // half to even
    case kErf:
      return erff(x);
    default:
      return x > 0.0f ? x : 0.0f;
  }
}
template <>
__device__ inline double ApplyUn<double>(int op, double x) {
  switch (op) {
    case kNeg:
      return -x;
    case kAbs:
      return fabs(x);
    case kSquare:
      return x * x;
    case kSqrt:
      return sqrt(x);
    case kRsqrt:
      return rsqrt(x);
    case kExp:
      return exp(x);
    case kLog:
      return log(x);
    case kTanh:
      return tanh(x);
    case kSigmoid:
      return 1.0 / (1.0 + exp(-x));
    case kSign:
      return x != x ? x : (double)((x > 0.0) - (x < 0.0));
    case kSin:
      return sin(x);
    case kCos:
      return cos(x);
    case kTan:
      return tan(x);
    case kAsin:
      return asin(x);
    case kAcos:
      return acos(x);
    case kAtan:
      return atan(x);
    case kSinh:
      return sinh(x);
    case kCosh:
      return cosh(x);
    case kAsinh:
      return asinh(x);
    case kAcosh:
      return acosh(x);
    case kAtanh:
      return atanh(x);
    case kFloor:
      return floor(x);
    case kCeil:
      return ceil(x);
    case kRound:
      return rint(x);
    case kErf:
      return erf(x);
    default:
      return x > 0.0 ? x : 0.0;
  }
}
template <>
__device__ inline long long ApplyUn<long long>(int op, long long x) {
  switch (op) {
    case kNeg:
      return -x;
    case kAbs:
      return x < 0 ? -x : x;
    case kSign:
      return (x > 0) - (x < 0);
    default:
      return x * x;  // Square (the only other int64 unary row)
  }
}

// Loads and stores in the arithmetic's type C: float16 and bfloat16 run
// the float32 arithmetic on widened values, rounded back to nearest even;
// every other type computes in itself.
template <typename T>
__device__ inline T Widen(T v) {
  return v;
}
__device__ inline float Widen(__half v) { return __half2float(v); }
__device__ inline float Widen(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ inline void Narrow(T v, T* p) {
  *p = v;
}
__device__ inline void Narrow(float v, __half* p) { *p = __float2half_rn(v); }
__device__ inline void Narrow(float v, __nv_bfloat16* p) { *p = __float2bfloat16_rn(v); }

template <typename T, typename C = T>
__global__ void BinaryKernel(int op, Bcast bc, int64_t n, const T* a, const T* b, T* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t ia = i, ib = i;
    if (!bc.same) BcastOffsets(bc, i, &ia, &ib);
    Narrow(ApplyBin<C>(op, Widen(a[ia]), Widen(b[ib])), &out[i]);
  }
}

template <typename T, typename C = T>
__global__ void UnaryKernel(int op, int64_t n, const T* x, T* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    Narrow(ApplyUn<C>(op, Widen(x[i])), &out[i]);
}

// IsNan / IsInf: a float in, a bool out.
template <typename T>
__global__ void ClassifyKernel(bool inf, int64_t n, const T* x, uint8_t* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double v = (double)Widen(x[i]);
    out[i] = inf ? isinf(v) : isnan(v);
  }
}

// int32 on the host (host-memory registrations).
void BinaryHostInt32(int op, const Bcast& bc, int64_t n, const int32_t* a, const int32_t* b,
                     int32_t* out) {
  for (int64_t i = 0; i < n; i++) {
    int64_t ia = i, ib = i;
    if (!bc.same) {
      int64_t k = i, oa = 0, ob = 0;
      for (int d = bc.rank - 1; d >= 0; d--) {
        int64_t c = k % bc.out_dims[d];
        k /= bc.out_dims[d];
        oa += c * bc.a_strides[d];
        ob += c * bc.b_strides[d];
      }
      ia = oa;
      ib = ob;
    }
    out[i] = ApplyBin<int32_t>(op, a[ia], b[ib]);
  }
}

void UnaryHostInt32(int op, int64_t n, const int32_t* x, int32_t* out) {
  for (int64_t i = 0; i < n; i++) {
    int32_t v = x[i];
    out[i] = op == kNeg    ? -v
             : op == kAbs  ? (v < 0 ? -v : v)
             : op == kSign ? (v > 0) - (v < 0)
                           : v * v;
  }
}

template <typename T>
grt_status* LaunchBinary(int op, const Bcast& bc, int64_t n, const grt_tensor* a,
                         const grt_tensor* b, grt_tensor* out, cudaStream_t s) {
  BinaryKernel<T><<<Blocks(n), kThreads, 0, s>>>(op, bc, n, (const T*)grt_tensor_data(a),
                                                 (const T*)grt_tensor_data(b),
                                                 (T*)grt_tensor_data(out));
  return NULL;
}

grt_status* Unsupported(const char* op, grt_dtype dt) {
  return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA %s kernel does not handle %s yet", op,
                        grt_dtype_name(dt));
}

grt_status* Binary(grt_kernel_ctx* ctx, int op, const char* name) {
  const grt_tensor* a = ctx->inputs[0];
  const grt_tensor* b = ctx->inputs[1];
  grt_dtype dt = grt_tensor_dtype(a);
  if (grt_tensor_dtype(b) != dt)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s: inputs of %s and %s", name, grt_dtype_name(dt),
                          grt_dtype_name(grt_tensor_dtype(b)));
  grt_shape sa = ShapeOf(a), sb = ShapeOf(b), so;
  Bcast bc;
  grt_status* st = Broadcast(sa, sb, &so, &bc);
  if (st) return st;
  grt_tensor* out;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &so, &out))) return st;
  int64_t n = NumElements(so);
  if (n == 0) return NULL;
  bool shift = op == kLShift || op == kRShift;
  if (dt == GRT_INT32 && OutputOnHost(ctx, 0)) {
    const int32_t* pb = (const int32_t*)grt_tensor_data(b);
    if (op == kFloorMod || op == kTruncMod)  // the CPU kernel's check, before any element
      for (int64_t i = 0; i < grt_tensor_num_elements(b); i++)
        if (pb[i] == 0) return grt_status_new(GRT_INVALID_ARGUMENT, "Integer division by zero");
    BinaryHostInt32(op, bc, n, (const int32_t*)grt_tensor_data(a), pb,
                    (int32_t*)grt_tensor_data(out));
    return NULL;
  }
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  // Device-memory integer remainders have no row: a zero divisor could not
  // be refused before computing without a host round trip.
  if ((op == kFloorMod || op == kTruncMod) && dt != GRT_FLOAT32 && dt != GRT_FLOAT64)
    return Unsupported(name, dt);
  if (shift) {
    switch (dt) {
      case GRT_INT8:
        LaunchBinary<int8_t>(op, bc, n, a, b, out, s);
        break;
      case GRT_INT16:
        LaunchBinary<int16_t>(op, bc, n, a, b, out, s);
        break;
      case GRT_INT32:
        LaunchBinary<int32_t>(op, bc, n, a, b, out, s);
        break;
      case GRT_INT64:
        LaunchBinary<long long>(op, bc, n, a, b, out, s);
        break;
      case GRT_UINT8:
        LaunchBinary<uint8_t>(op, bc, n, a, b, out, s);
        break;
      default:
        return Unsupported(name, dt);
    }
    return grt_cuda_launch_error(name);
  }
  switch (dt) {
    case GRT_FLOAT32:
      BinaryKernel<float><<<Blocks(n), kThreads, 0, s>>>(
          op, bc, n, (const float*)grt_tensor_data(a), (const float*)grt_tensor_data(b),
          (float*)grt_tensor_data(out));
      break;
    case GRT_FLOAT64:
      BinaryKernel<double><<<Blocks(n), kThreads, 0, s>>>(
          op, bc, n, (const double*)grt_tensor_data(a), (const double*)grt_tensor_data(b),
          (double*)grt_tensor_data(out));
      break;
    case GRT_FLOAT16:
      BinaryKernel<__half, float><<<Blocks(n), kThreads, 0, s>>>(
          op, bc, n, (const __half*)grt_tensor_data(a), (const __half*)grt_tensor_data(b),
          (__half*)grt_tensor_data(out));
      break;
    case GRT_BFLOAT16:
      BinaryKernel<__nv_bfloat16, float><<<Blocks(n), kThreads, 0, s>>>(
          op, bc, n, (const __nv_bfloat16*)grt_tensor_data(a),
          (const __nv_bfloat16*)grt_tensor_data(b), (__nv_bfloat16*)grt_tensor_data(out));
      break;
    case GRT_INT64:
      if (op == kDiv || op >= kTanhGrad) return Unsupported(name, dt);
      BinaryKernel<long long><<<Blocks(n), kThreads, 0, s>>>(
          op, bc, n, (const long long*)grt_tensor_data(a), (const long long*)grt_tensor_data(b),
          (long long*)grt_tensor_data(out));
      break;
    default:
      return Unsupported(name, dt);
  }
  return grt_cuda_launch_error(name);
}

grt_status* Unary(grt_kernel_ctx* ctx, int op, const char* name) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype dt = grt_tensor_dtype(x);
  grt_shape sx = ShapeOf(x);
  grt_tensor* out;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, dt, &sx, &out);
  if (st) return st;
  int64_t n = NumElements(sx);
  if (n == 0) return NULL;
  if (dt == GRT_INT32 && op <= kSign) {
    UnaryHostInt32(op, n, (const int32_t*)grt_tensor_data(x), (int32_t*)grt_tensor_data(out));
    return NULL;
  }
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  switch (dt) {
    case GRT_FLOAT16:
      UnaryKernel<__half, float><<<Blocks(n), kThreads, 0, s>>>(
          op, n, (const __half*)grt_tensor_data(x), (__half*)grt_tensor_data(out));
      break;
    case GRT_BFLOAT16:
      UnaryKernel<__nv_bfloat16, float><<<Blocks(n), kThreads, 0, s>>>(
          op, n, (const __nv_bfloat16*)grt_tensor_data(x), (__nv_bfloat16*)grt_tensor_data(out));
      break;
    case GRT_FLOAT32:
      UnaryKernel<float><<<Blocks(n), kThreads, 0, s>>>(op, n, (const float*)grt_tensor_data(x),
                                                        (float*)grt_tensor_data(out));
      break;
    case GRT_FLOAT64:
      UnaryKernel<double><<<Blocks(n), kThreads, 0, s>>>(op, n, (const double*)grt_tensor_data(x),
                                                         (double*)grt_tensor_data(out));
      break;
    case GRT_INT64:
      if (op > kSign) return Unsupported(name, dt);
      UnaryKernel<long long><<<Blocks(n), kThreads, 0, s>>>(
          op, n, (const long long*)grt_tensor_data(x), (long long*)grt_tensor_data(out));
      break;
    default:
      return Unsupported(name, dt);
  }
  return grt_cuda_launch_error(name);
}

grt_status* Classify(grt_kernel_ctx* ctx, bool inf, const char* name) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype dt = grt_tensor_dtype(x);
  grt_shape sx = ShapeOf(x);
  grt_tensor* out;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, GRT_BOOL, &sx, &out);
  if (st) return st;
  int64_t n = NumElements(sx);
  if (n == 0) return NULL;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  const void* px = grt_tensor_data(x);
  uint8_t* po = (uint8_t*)grt_tensor_data(out);
  switch (dt) {
    case GRT_FLOAT16:
      ClassifyKernel<__half><<<Blocks(n), kThreads, 0, s>>>(inf, n, (const __half*)px, po);
      break;
    case GRT_BFLOAT16:
      ClassifyKernel<__nv_bfloat16>
          <<<Blocks(n), kThreads, 0, s>>>(inf, n, (const __nv_bfloat16*)px, po);
      break;
    case GRT_FLOAT32:
      ClassifyKernel<float><<<Blocks(n), kThreads, 0, s>>>(inf, n, (const float*)px, po);
      break;
    case GRT_FLOAT64:
      ClassifyKernel<double><<<Blocks(n), kThreads, 0, s>>>(inf, n, (const double*)px, po);
      break;
    default:
      return Unsupported(name, dt);
  }
  return grt_cuda_launch_error(name);
}

grt_status* IsNanCompute(grt_kernel_ctx* ctx) { return Classify(ctx, false, "IsNan"); }
grt_status* IsInfCompute(grt_kernel_ctx* ctx) { return Classify(ctx, true, "IsInf"); }

#define BIN(name, op) \
  grt_status* name##Compute(grt_kernel_ctx* ctx) { return Binary(ctx, op, #name); }
#define UN(name, op) \
  grt_status* name##Compute(grt_kernel_ctx* ctx) { return Unary(ctx, op, #name); }
BIN(Add, kAdd)
BIN(AddV2, kAdd)
BIN(Sub, kSub)
BIN(Mul, kMul)
BIN(RealDiv, kDiv)
BIN(Maximum, kMax)
BIN(Minimum, kMin)
BIN(SquaredDifference, kSqDiff)
BIN(TanhGrad, kTanhGrad)
BIN(SigmoidGrad, kSigmoidGrad)
BIN(ReluGrad, kReluGrad)
UN(Neg, kNeg)
UN(Abs, kAbs)
UN(Square, kSquare)
UN(Sqrt, kSqrt)
UN(Rsqrt, kRsqrt)
UN(Exp, kExp)
UN(Log, kLog)
UN(Tanh, kTanh)
UN(Sigmoid, kSigmoid)
UN(Relu, kRelu)
BIN(FloorMod, kFloorMod)
BIN(TruncateMod, kTruncMod)
BIN(LeftShift, kLShift)
BIN(RightShift, kRShift)
UN(Sign, kSign)
UN(Sin, kSin)
UN(Cos, kCos)
UN(Tan, kTan)
UN(Asin, kAsin)
UN(Acos, kAcos)
UN(Atan, kAtan)
UN(Sinh, kSinh)
UN(Cosh, kCosh)
UN(Asinh, kAsinh)
UN(Acosh, kAcosh)
UN(Atanh, kAtanh)
UN(Floor, kFloor)
UN(Ceil, kCeil)
UN(Round, kRound)
UN(Erf, kErf)

#define K(name) \
  { #name, name##Compute, NULL, NULL, 0 }
const grt_op_kernel kKernels[] = {
    K(Add),        K(AddV2),       K(Sub),         K(Mul),
    K(RealDiv),    K(Maximum),     K(Minimum),     K(SquaredDifference),
    K(TanhGrad),   K(SigmoidGrad), K(ReluGrad),    K(Neg),
    K(Abs),        K(Square),      K(Sqrt),        K(Rsqrt),
    K(Exp),        K(Log),         K(Tanh),        K(Sigmoid),
    K(Relu),       K(FloorMod),    K(TruncateMod), K(LeftShift),
    K(RightShift), K(Sign),        K(Sin),         K(Cos),
    K(Tan),        K(Asin),        K(Acos),        K(Atan),
    K(Sinh),       K(Cosh),        K(Asinh),       K(Acosh),
    K(Atanh),      K(Floor),       K(Ceil),        K(Round),
    K(Erf),        K(IsNan),       K(IsInf),
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_elementwise_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
