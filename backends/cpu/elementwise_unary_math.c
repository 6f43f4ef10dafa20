/* More unary element-wise math, TensorFlow's ops of these names: the
 * trigonometric and hyperbolic functions and their inverses, Floor, Ceil,
 * Round (half to even, as TensorFlow's and ONNX's), Sign, Erf, and the
 * classifications IsNan and IsInf (bool results). Floats follow libm and
 * IEEE (Asin(2) = NaN, Atanh(1) = inf); float16 and bfloat16 run the
 * float32 rows on widened values, as the other unary kernels do. */
#include <math.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/elementwise.h"

GRT_CPU_VECTORIZE

#define FLOAT_ROWS(name, F32, F64)                 \
  GRT_CPU_UNARY_ROW(name##_f32, float, float, F32) \
  GRT_CPU_UNARY_ROW(name##_f64, double, double, F64)

FLOAT_ROWS(sin, sinf(a), sin(a))
FLOAT_ROWS(cos, cosf(a), cos(a))
FLOAT_ROWS(tan, tanf(a), tan(a))
FLOAT_ROWS(asin, asinf(a), asin(a))
FLOAT_ROWS(acos, acosf(a), acos(a))
FLOAT_ROWS(atan, atanf(a), atan(a))
FLOAT_ROWS(sinh, sinhf(a), sinh(a))
FLOAT_ROWS(cosh, coshf(a), cosh(a))
FLOAT_ROWS(asinh, asinhf(a), asinh(a))
FLOAT_ROWS(acosh, acoshf(a), acosh(a))
FLOAT_ROWS(atanh, atanhf(a), atanh(a))
FLOAT_ROWS(floor, floorf(a), floor(a))
FLOAT_ROWS(ceil, ceilf(a), ceil(a))
/* rint rounds in the current mode, which is round-half-to-even: grt never
 * changes it. */
FLOAT_ROWS(round, rintf(a), rint(a))
FLOAT_ROWS(erf, erff(a), erf(a))
/* -1, 0 or 1; NaN stays NaN (a != a), as numpy's and TensorFlow's sign. */
FLOAT_ROWS(sign, a != a ? a : (float)((a > 0) - (a < 0)), a != a ? a : (double)((a > 0) - (a < 0)))

/* Integer Round is the identity; integer Sign -1/0/1. */
#define INT_ROWS(name, I)                             \
  GRT_CPU_UNARY_ROW(name##_i8, int8_t, uint32_t, I)   \
  GRT_CPU_UNARY_ROW(name##_i16, int16_t, uint32_t, I) \
  GRT_CPU_UNARY_ROW(name##_i32, int32_t, uint32_t, I) \
  GRT_CPU_UNARY_ROW(name##_i64, int64_t, uint64_t, I)
INT_ROWS(round, a)
INT_ROWS(sign, (a > 0) - (a < 0))

#define SIGNED_TABLE(prefix)                                                        \
  GRT_CPU_ROWS_FLOAT(prefix), [GRT_INT8] = prefix##_i8, [GRT_INT16] = prefix##_i16, \
                              [GRT_INT32] = prefix##_i32, [GRT_INT64] = prefix##_i64

/* Costs: rough nanoseconds per element of libm's float32 functions. */
#define FLOAT_OP(var, name, cost) \
  static const grt_cpu_unary_op var = {{GRT_CPU_ROWS_FLOAT(name)}, cost};
FLOAT_OP(kSin, sin, 10)
FLOAT_OP(kCos, cos, 10)
FLOAT_OP(kTan, tan, 15)
FLOAT_OP(kAsin, asin, 15)
FLOAT_OP(kAcos, acos, 15)
FLOAT_OP(kAtan, atan, 15)
FLOAT_OP(kSinh, sinh, 20)
FLOAT_OP(kCosh, cosh, 20)
FLOAT_OP(kAsinh, asinh, 25)
FLOAT_OP(kAcosh, acosh, 25)
FLOAT_OP(kAtanh, atanh, 25)
FLOAT_OP(kFloor, floor, 1)
FLOAT_OP(kCeil, ceil, 1)
FLOAT_OP(kErf, erf, 10)
static const grt_cpu_unary_op kRound = {{SIGNED_TABLE(round)}, 1};
static const grt_cpu_unary_op kSign = {{SIGNED_TABLE(sign)}, 1};

#define COMPUTE(fn, var) \
  static grt_status* fn(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &var); }
COMPUTE(sin_op, kSin)
COMPUTE(cos_op, kCos)
COMPUTE(tan_op, kTan)
COMPUTE(asin_op, kAsin)
COMPUTE(acos_op, kAcos)
COMPUTE(atan_op, kAtan)
COMPUTE(sinh_op, kSinh)
COMPUTE(cosh_op, kCosh)
COMPUTE(asinh_op, kAsinh)
COMPUTE(acosh_op, kAcosh)
COMPUTE(atanh_op, kAtanh)
COMPUTE(floor_op, kFloor)
COMPUTE(ceil_op, kCeil)
COMPUTE(round_op, kRound)
COMPUTE(sign_op, kSign)
COMPUTE(erf_op, kErf)

/* ---- IsNan, IsInf: a float in, a bool out ------------------------------
 * Half types are classified by their bits (exponent all ones; a non-zero
 * fraction is NaN), so nothing is widened. */
#define CLASSIFY_ROW(fname, T, EXPR)                       \
  static void fname(int64_t n, const void* xv, void* yv) { \
    const T* restrict x = (const T*)xv;                    \
    uint8_t* restrict y = (uint8_t*)yv;                    \
    for (int64_t i = 0; i < n; i++) {                      \
      const T a = x[i];                                    \
      y[i] = (uint8_t)(EXPR);                              \
    }                                                      \
  }
CLASSIFY_ROW(isnan_f32, float, a != a)
CLASSIFY_ROW(isnan_f64, double, a != a)
CLASSIFY_ROW(isnan_f16, uint16_t, (a & 0x7C00u) == 0x7C00u && (a & 0x03FFu) != 0)
CLASSIFY_ROW(isnan_bf16, uint16_t, (a & 0x7F80u) == 0x7F80u && (a & 0x007Fu) != 0)
CLASSIFY_ROW(isinf_f32, float, isinf(a))
CLASSIFY_ROW(isinf_f64, double, isinf(a))
CLASSIFY_ROW(isinf_f16, uint16_t, (a & 0x7FFFu) == 0x7C00u)
CLASSIFY_ROW(isinf_bf16, uint16_t, (a & 0x7FFFu) == 0x7F80u)

typedef struct {
  grt_cpu_unary_row rows[GRT_NUM_DTYPES];
} classify_op;
static const classify_op kIsNan = {{[GRT_FLOAT16] = isnan_f16,
                                    [GRT_BFLOAT16] = isnan_bf16,
                                    [GRT_FLOAT32] = isnan_f32,
                                    [GRT_FLOAT64] = isnan_f64}};
static const classify_op kIsInf = {{[GRT_FLOAT16] = isinf_f16,
                                    [GRT_BFLOAT16] = isinf_bf16,
                                    [GRT_FLOAT32] = isinf_f32,
                                    [GRT_FLOAT64] = isinf_f64}};

static grt_status* classify(grt_kernel_ctx* ctx, const classify_op* op) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype t = x->dtype;
  grt_cpu_unary_row row = grt_dtype_valid(t) ? op->rows[t] : NULL;
  if (!row) return grt_cpu_no_kernel(ctx, t);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_BOOL, &x->shape, &out));
  grt_cpu_unary_run(row, grt_tensor_num_elements(x), grt_tensor_data(x), grt_dtype_size(t),
                    grt_tensor_data(out), 1, 1, ctx->intra_op);
  return NULL;
}
static grt_status* is_nan_op(grt_kernel_ctx* ctx) { return classify(ctx, &kIsNan); }
static grt_status* is_inf_op(grt_kernel_ctx* ctx) { return classify(ctx, &kIsInf); }

#define K(op, fn) \
  { op, fn, NULL, NULL, 0 }
GRT_CPU_KERNEL_TABLE(unary_math, K("Sin", sin_op), K("Cos", cos_op), K("Tan", tan_op),
                     K("Asin", asin_op), K("Acos", acos_op), K("Atan", atan_op), K("Sinh", sinh_op),
                     K("Cosh", cosh_op), K("Asinh", asinh_op), K("Acosh", acosh_op),
                     K("Atanh", atanh_op), K("Floor", floor_op), K("Ceil", ceil_op),
                     K("Round", round_op), K("Sign", sign_op), K("Erf", erf_op),
                     K("IsNan", is_nan_op), K("IsInf", is_inf_op));
