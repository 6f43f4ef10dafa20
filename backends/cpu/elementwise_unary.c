/* Unary element-wise ops: Neg, Abs, Square, Sqrt, Rsqrt, Exp, Log, Tanh,
 * Sigmoid, Relu, LogicalNot. Float results follow IEEE
 * (Log(0) = -inf, Exp overflows to inf, Sqrt(-1) = NaN) as TensorFlow's. */
#include <math.h>

#include "backends/cpu/elementwise.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

#define FLOAT_ROWS(name, F32, F64)                 \
  GRT_CPU_UNARY_ROW(name##_f32, float, float, F32) \
  GRT_CPU_UNARY_ROW(name##_f64, double, double, F64)
#define INT_ROWS(name, I)                             \
  GRT_CPU_UNARY_ROW(name##_i8, int8_t, uint32_t, I)   \
  GRT_CPU_UNARY_ROW(name##_i16, int16_t, uint32_t, I) \
  GRT_CPU_UNARY_ROW(name##_i32, int32_t, uint32_t, I) \
  GRT_CPU_UNARY_ROW(name##_i64, int64_t, uint64_t, I)
#define WRAP(e) ((elem_t)(e))

FLOAT_ROWS(neg, -a, -a)
INT_ROWS(neg, WRAP((wide_t)0 - (wide_t)a))
FLOAT_ROWS(abs, fabsf(a), fabs(a))
INT_ROWS(abs, a < 0 ? WRAP((wide_t)0 - (wide_t)a) : a)
FLOAT_ROWS(square, a* a, a* a)
INT_ROWS(square, WRAP((wide_t)a*(wide_t)a))
GRT_CPU_UNARY_ROW(square_u8, uint8_t, uint32_t, WRAP((wide_t)a*(wide_t)a))
FLOAT_ROWS(sqrt, sqrtf(a), sqrt(a))
FLOAT_ROWS(rsqrt, 1.0f / sqrtf(a), 1.0 / sqrt(a))
/* float32 exp and tanh use the vectorisable versions in cpu_util.h. */
FLOAT_ROWS(exp, grt_cpu_expf(a), exp(a))
FLOAT_ROWS(log, logf(a), log(a))
FLOAT_ROWS(tanh, grt_cpu_tanhf(a), tanh(a))
/* 1 / (1 + e^-x) never forms inf/inf: for x -> -inf the denominator goes
 * to inf and the result to 0; for x -> +inf e^-x goes to 0 and it is 1. */
FLOAT_ROWS(sigmoid, 1.0f / (1.0f + grt_cpu_expf(-a)), 1.0 / (1.0 + exp(-a)))
/* max(x, 0) with NaN kept (Eigen's cwiseMax(0) as TensorFlow uses it). */
FLOAT_ROWS(relu, a < 0 ? 0 : a, a < 0 ? 0 : a)
INT_ROWS(relu, a < 0 ? 0 : a)
GRT_CPU_UNARY_ROW(relu_u8, uint8_t, uint32_t, a)
GRT_CPU_UNARY_ROW(logical_not_b, uint8_t, uint8_t, a == 0)

#define SIGNED_TABLE(prefix)                                                        \
  GRT_CPU_ROWS_FLOAT(prefix), [GRT_INT8] = prefix##_i8, [GRT_INT16] = prefix##_i16, \
                              [GRT_INT32] = prefix##_i32, [GRT_INT64] = prefix##_i64

/* Costs: rough nanoseconds per element (float32; float64 calls libm). */
static const grt_cpu_unary_op kNeg = {{SIGNED_TABLE(neg)}, 1};
static const grt_cpu_unary_op kAbs = {{SIGNED_TABLE(abs)}, 1};
static const grt_cpu_unary_op kSquare = {{SIGNED_TABLE(square), [GRT_UINT8] = square_u8}, 1};
static const grt_cpu_unary_op kSqrt = {{GRT_CPU_ROWS_FLOAT(sqrt)}, 4};
static const grt_cpu_unary_op kRsqrt = {{GRT_CPU_ROWS_FLOAT(rsqrt)}, 5};
static const grt_cpu_unary_op kExp = {{GRT_CPU_ROWS_FLOAT(exp)}, 4};
static const grt_cpu_unary_op kLog = {{GRT_CPU_ROWS_FLOAT(log)}, 20};
static const grt_cpu_unary_op kTanh = {{GRT_CPU_ROWS_FLOAT(tanh)}, 6};
static const grt_cpu_unary_op kSigmoid = {{GRT_CPU_ROWS_FLOAT(sigmoid)}, 5};
static const grt_cpu_unary_op kRelu = {{SIGNED_TABLE(relu), [GRT_UINT8] = relu_u8}, 1};
static const grt_cpu_unary_op kLogicalNot = {{[GRT_BOOL] = logical_not_b}, 1};

grt_status* grt_cpu_neg(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kNeg); }
grt_status* grt_cpu_abs(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kAbs); }
grt_status* grt_cpu_square(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kSquare); }
grt_status* grt_cpu_sqrt(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kSqrt); }
grt_status* grt_cpu_rsqrt(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kRsqrt); }
grt_status* grt_cpu_exp(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kExp); }
grt_status* grt_cpu_log(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kLog); }
grt_status* grt_cpu_tanh(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kTanh); }
grt_status* grt_cpu_sigmoid(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kSigmoid); }
grt_status* grt_cpu_relu(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kRelu); }
grt_status* grt_cpu_logical_not(grt_kernel_ctx* ctx) {
  return grt_cpu_unary_compute(ctx, &kLogicalNot);
}
