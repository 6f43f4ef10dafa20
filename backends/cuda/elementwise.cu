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
// float16/bfloat16 run the float32 arithmetic on widened values. Each op's
// dispatch visits the dtype list it declares (dtype_list.cuh, the table at
// the end), which the GPU rows are tested against.
//
// tests/gpu/run_gpu_suite.sh compares each against the CPU kernel on a GPU
// machine (an H200 so far: tests/gpu/runs).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <string.h>

#include <type_traits>

#include "dtype_list.cuh"
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

// T: the dtypes the op takes in device memory, with int32 on the host when
// T::kInt32OnHost (the row's GRT_INT32_ON_HOST registration).
template <class T>
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
  if (T::kInt32OnHost && dt == GRT_INT32 && OutputOnHost(ctx, 0)) {
    const int32_t* pb = (const int32_t*)grt_tensor_data(b);
    if (op == kFloorMod || op == kTruncMod)  // the CPU kernel's check, before any element
      for (int64_t i = 0; i < grt_tensor_num_elements(b); i++)
        if (pb[i] == 0) return grt_status_new(GRT_INVALID_ARGUMENT, "Integer division by zero");
    BinaryHostInt32(op, bc, n, (const int32_t*)grt_tensor_data(a), pb,
                    (int32_t*)grt_tensor_data(out));
    return NULL;
  }
  // Device-memory integer remainders are in no list: a zero divisor could
  // not be refused before computing without a host round trip.
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (!T::Visit(dt, [&](auto e) {
        using S = typename decltype(e)::Store;
        BinaryKernel<S, typename decltype(e)::Math>
            <<<Blocks(n), kThreads, 0, s>>>(op, bc, n, (const S*)grt_tensor_data(a),
                                            (const S*)grt_tensor_data(b), (S*)grt_tensor_data(out));
      }))
    return NoKernel(name, dt);
  return grt_cuda_launch_error(name);
}

template <class T>
grt_status* Unary(grt_kernel_ctx* ctx, int op, const char* name) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype dt = grt_tensor_dtype(x);
  grt_shape sx = ShapeOf(x);
  grt_tensor* out;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, dt, &sx, &out);
  if (st) return st;
  int64_t n = NumElements(sx);
  if (n == 0) return NULL;
  if (T::kInt32OnHost && dt == GRT_INT32 && OutputOnHost(ctx, 0)) {
    UnaryHostInt32(op, n, (const int32_t*)grt_tensor_data(x), (int32_t*)grt_tensor_data(out));
    return NULL;
  }
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (!T::Visit(dt, [&](auto e) {
        using S = typename decltype(e)::Store;
        UnaryKernel<S, typename decltype(e)::Math><<<Blocks(n), kThreads, 0, s>>>(
            op, n, (const S*)grt_tensor_data(x), (S*)grt_tensor_data(out));
      }))
    return NoKernel(name, dt);
  return grt_cuda_launch_error(name);
}

template <class T>
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
  uint8_t* po = (uint8_t*)grt_tensor_data(out);
  if (!T::Visit(dt, [&](auto e) {
        using S = typename decltype(e)::Store;
        ClassifyKernel<S><<<Blocks(n), kThreads, 0, s>>>(inf, n, (const S*)grt_tensor_data(x), po);
      }))
    return NoKernel(name, dt);
  return grt_cuda_launch_error(name);
}

template <class T, class U>
grt_status* IsNanCompute(grt_kernel_ctx* ctx) {
  return Classify<T>(ctx, false, "IsNan");
}
template <class T, class U>
grt_status* IsInfCompute(grt_kernel_ctx* ctx) {
  return Classify<T>(ctx, true, "IsInf");
}

#define BIN(name, op)                              \
  template <class T, class U>                      \
  grt_status* name##Compute(grt_kernel_ctx* ctx) { \
    return Binary<T>(ctx, op, #name);              \
  }
#define UN(name, op)                               \
  template <class T, class U>                      \
  grt_status* name##Compute(grt_kernel_ctx* ctx) { \
    return Unary<T>(ctx, op, #name);               \
  }
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
BIN(FloorMod, kFloorMod)
BIN(TruncateMod, kTruncMod)
BIN(LeftShift, kLShift)
BIN(RightShift, kRShift)
UN(Neg, kNeg)
UN(Abs, kAbs)
UN(Square, kSquare)
UN(Sign, kSign)
UN(Sqrt, kSqrt)
UN(Rsqrt, kRsqrt)
UN(Exp, kExp)
UN(Log, kLog)
UN(Tanh, kTanh)
UN(Sigmoid, kSigmoid)
UN(Relu, kRelu)
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

// The dtype lists of the ops' dispatch (dtype_list.cuh): the arithmetic
// and min/max ops take int64 too and int32 on the host; the remainders take
// int32 on the host only (floats in device memory for FloorMod); the shifts
// every integer type but uint16, int32 in device memory.
using Arith = FloatsInt64WithInt32OnHost;
using FloorModTypes = WithInt32OnHost<Dtypes<F32, F64>>;
using TruncModTypes = WithInt32OnHost<NoDtypes>;
using ShiftTypes = Dtypes<I8, I16, I32, I64, U8>;

// Each row makes a kernel and its declaration.
#define TYPED_KERNELS(X)                                                          \
  X("Add", AddCompute, "T", Arith, nullptr, NoDtypes)                             \
  X("AddV2", AddV2Compute, "T", Arith, nullptr, NoDtypes)                         \
  X("Sub", SubCompute, "T", Arith, nullptr, NoDtypes)                             \
  X("Mul", MulCompute, "T", Arith, nullptr, NoDtypes)                             \
  X("RealDiv", RealDivCompute, "T", Floats, nullptr, NoDtypes)                    \
  X("Maximum", MaximumCompute, "T", Arith, nullptr, NoDtypes)                     \
  X("Minimum", MinimumCompute, "T", Arith, nullptr, NoDtypes)                     \
  X("SquaredDifference", SquaredDifferenceCompute, "T", Arith, nullptr, NoDtypes) \
  X("TanhGrad", TanhGradCompute, "T", Floats, nullptr, NoDtypes)                  \
  X("SigmoidGrad", SigmoidGradCompute, "T", Floats, nullptr, NoDtypes)            \
  X("ReluGrad", ReluGradCompute, "T", Floats, nullptr, NoDtypes)                  \
  X("FloorMod", FloorModCompute, "T", FloorModTypes, nullptr, NoDtypes)           \
  X("TruncateMod", TruncateModCompute, "T", TruncModTypes, nullptr, NoDtypes)     \
  X("LeftShift", LeftShiftCompute, "T", ShiftTypes, nullptr, NoDtypes)            \
  X("RightShift", RightShiftCompute, "T", ShiftTypes, nullptr, NoDtypes)          \
  X("Neg", NegCompute, "T", Arith, nullptr, NoDtypes)                             \
  X("Abs", AbsCompute, "T", Arith, nullptr, NoDtypes)                             \
  X("Square", SquareCompute, "T", Arith, nullptr, NoDtypes)                       \
  X("Sign", SignCompute, "T", Arith, nullptr, NoDtypes)                           \
  X("Sqrt", SqrtCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Rsqrt", RsqrtCompute, "T", Floats, nullptr, NoDtypes)                        \
  X("Exp", ExpCompute, "T", Floats, nullptr, NoDtypes)                            \
  X("Log", LogCompute, "T", Floats, nullptr, NoDtypes)                            \
  X("Tanh", TanhCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Sigmoid", SigmoidCompute, "T", Floats, nullptr, NoDtypes)                    \
  X("Relu", ReluCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Sin", SinCompute, "T", Floats, nullptr, NoDtypes)                            \
  X("Cos", CosCompute, "T", Floats, nullptr, NoDtypes)                            \
  X("Tan", TanCompute, "T", Floats, nullptr, NoDtypes)                            \
  X("Asin", AsinCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Acos", AcosCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Atan", AtanCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Sinh", SinhCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Cosh", CoshCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Asinh", AsinhCompute, "T", Floats, nullptr, NoDtypes)                        \
  X("Acosh", AcoshCompute, "T", Floats, nullptr, NoDtypes)                        \
  X("Atanh", AtanhCompute, "T", Floats, nullptr, NoDtypes)                        \
  X("Floor", FloorCompute, "T", Floats, nullptr, NoDtypes)                        \
  X("Ceil", CeilCompute, "T", Floats, nullptr, NoDtypes)                          \
  X("Round", RoundCompute, "T", Floats, nullptr, NoDtypes)                        \
  X("Erf", ErfCompute, "T", Floats, nullptr, NoDtypes)                            \
  X("IsNan", IsNanCompute, "T", Floats, nullptr, NoDtypes)                        \
  X("IsInf", IsInfCompute, "T", Floats, nullptr, NoDtypes)

const grt_op_kernel kKernels[] = {TYPED_KERNELS(GRT_CUDA_KERNEL_ROW)};

const grt_cuda_dtypes kDtypes[] = {TYPED_KERNELS(GRT_CUDA_DTYPES_ROW)};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_elementwise_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}

extern "C" const grt_cuda_dtypes* grt_cuda_elementwise_dtypes(int* n) {
  *n = (int)(sizeof grt_cuda::kDtypes / sizeof grt_cuda::kDtypes[0]);
  return grt_cuda::kDtypes;
}
