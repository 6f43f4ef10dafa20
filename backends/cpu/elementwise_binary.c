/* Broadcasting arithmetic: Add, AddV2, Sub, Mul, RealDiv, Maximum, Minimum,
 * Pow, SquaredDifference. */
#include <math.h>

#include "backends/cpu/elementwise.h"
#include "base/status.h"

GRT_CPU_VECTORIZE

/* Rows named name_<suffix> for floats (expression F) and integers (I). */
#define FLOAT_ROW(name, F)                                \
  GRT_CPU_BINARY_ROW(name##_f32, float, float, elem_t, F) \
  GRT_CPU_BINARY_ROW(name##_f64, double, double, elem_t, F)
#define INT_ROW_ONE(sfx, T, W, name, I) GRT_CPU_BINARY_ROW(name##_##sfx, T, W, elem_t, I)
#define INT_ROWS(name, I)                      \
  INT_ROW_ONE(i8, int8_t, uint32_t, name, I)   \
  INT_ROW_ONE(i16, int16_t, uint32_t, name, I) \
  INT_ROW_ONE(i32, int32_t, uint32_t, name, I) \
  INT_ROW_ONE(i64, int64_t, uint64_t, name, I) \
  INT_ROW_ONE(u8, uint8_t, uint32_t, name, I)

/* Integer results wrap: computed in wide_t, truncated to elem_t. */
#define WRAP(e) ((elem_t)(e))

FLOAT_ROW(add, a + b)
INT_ROWS(add, WRAP((wide_t)a + (wide_t)b))
FLOAT_ROW(sub, a - b)
INT_ROWS(sub, WRAP((wide_t)a - (wide_t)b))
FLOAT_ROW(mul, a* b)
INT_ROWS(mul, WRAP((wide_t)a*(wide_t)b))
FLOAT_ROW(div, a / b)
/* Maximum and Minimum propagate NaN (TensorFlow's PropagateNaN functors). */
FLOAT_ROW(max, (a > b || a != a) ? a : b)
INT_ROWS(max, a > b ? a : b)
FLOAT_ROW(min, (a < b || a != a) ? a : b)
INT_ROWS(min, a < b ? a : b)
FLOAT_ROW(sqdiff, (a - b) * (a - b))
#define SQDIFF_I WRAP(((wide_t)a - (wide_t)b) * ((wide_t)a - (wide_t)b))
INT_ROW_ONE(i32, int32_t, uint32_t, sqdiff, SQDIFF_I)
INT_ROW_ONE(i64, int64_t, uint64_t, sqdiff, SQDIFF_I)

GRT_CPU_BINARY_ROW(pow_f32, float, float, elem_t, powf(a, b))
GRT_CPU_BINARY_ROW(pow_f64, double, double, elem_t, pow(a, b))

/* Integer power by squaring, wrapping; negative exponents are rejected
 * before any row runs (they would be 0 or 1 / x). */
static inline uint64_t ipow(uint64_t base, int64_t e) {
  uint64_t r = 1;
  while (e > 0) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}
GRT_CPU_BINARY_ROW(pow_i8, int8_t, uint32_t, elem_t, WRAP(ipow((uint64_t)(int64_t)a, b)))
GRT_CPU_BINARY_ROW(pow_i16, int16_t, uint32_t, elem_t, WRAP(ipow((uint64_t)(int64_t)a, b)))
GRT_CPU_BINARY_ROW(pow_i32, int32_t, uint32_t, elem_t, WRAP(ipow((uint64_t)(int64_t)a, b)))
GRT_CPU_BINARY_ROW(pow_i64, int64_t, uint64_t, elem_t, WRAP(ipow((uint64_t)a, b)))

#define REAL_TABLE(prefix) GRT_CPU_ROWS_FLOAT(prefix), GRT_CPU_ROWS_INT(prefix)

const grt_cpu_binary_op grt_cpu_op_add = {{REAL_TABLE(add)}, false, 1};
static const grt_cpu_binary_op kSub = {{REAL_TABLE(sub)}, false, 1};
static const grt_cpu_binary_op kMul = {{REAL_TABLE(mul)}, false, 1};
static const grt_cpu_binary_op kDiv = {{GRT_CPU_ROWS_FLOAT(div)}, false, 2};
static const grt_cpu_binary_op kMax = {{REAL_TABLE(max)}, false, 1};
static const grt_cpu_binary_op kMin = {{REAL_TABLE(min)}, false, 1};
static const grt_cpu_binary_op kSqDiff = {
    {GRT_CPU_ROWS_FLOAT(sqdiff), [GRT_INT32] = sqdiff_i32, [GRT_INT64] = sqdiff_i64}, false, 1};
static const grt_cpu_binary_op kPow = {
    {GRT_CPU_ROWS_FLOAT(pow), [GRT_INT8] = pow_i8, [GRT_INT16] = pow_i16, [GRT_INT32] = pow_i32,
     [GRT_INT64] = pow_i64},
    false,
    40};

grt_status* grt_cpu_add(grt_kernel_ctx* ctx) {
  return grt_cpu_binary_compute(ctx, &grt_cpu_op_add);
}
grt_status* grt_cpu_sub(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kSub); }
grt_status* grt_cpu_mul(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kMul); }
grt_status* grt_cpu_real_div(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kDiv); }
grt_status* grt_cpu_maximum(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kMax); }
grt_status* grt_cpu_minimum(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kMin); }
grt_status* grt_cpu_squared_difference(grt_kernel_ctx* ctx) {
  return grt_cpu_binary_compute(ctx, &kSqDiff);
}

/* Whether a signed integer exponent tensor holds a negative value. */
#define ANY_NEGATIVE(T)                                   \
  do {                                                    \
    const T* e = grt_tensor_data(y);                      \
    for (int64_t i = 0; i < n; i++) negative |= e[i] < 0; \
  } while (0)

grt_status* grt_cpu_pow(grt_kernel_ctx* ctx) {
  const grt_tensor* y = ctx->inputs[1];
  int64_t n = grt_tensor_num_elements(y);
  bool negative = false;
  if (y->dtype == GRT_INT8) ANY_NEGATIVE(int8_t);
  if (y->dtype == GRT_INT16) ANY_NEGATIVE(int16_t);
  if (y->dtype == GRT_INT32) ANY_NEGATIVE(int32_t);
  if (y->dtype == GRT_INT64) ANY_NEGATIVE(int64_t);
  if (negative)
    return GRT_ERROR(INVALID_ARGUMENT, "Integers to negative integer powers are not allowed");
  return grt_cpu_binary_compute(ctx, &kPow);
}
