/* Broadcasting divisions, TensorFlow's ops of these names:
 *   Div          floats: x / y, as RealDiv; integers: the quotient
 *                truncated toward zero, as C's / (TensorFlow's safe_div)
 *   TruncateDiv  integers only: the same truncated quotient
 *   FloorDiv     floats: floor(x / y); integers: the quotient rounded
 *                toward negative infinity (Python's //)
 * (RealDiv stays float-only, as TensorFlow registers it on the CPU.)
 * Integer division by zero is an InvalidArgument error ("Integer division
 * by zero"), checked before any element is computed, as TensorFlow's safe_
 * functors report; float division by zero follows IEEE (inf, NaN).
 * The most negative value divided by -1 overflows in C and traps on x86;
 * here it is defined as the wrapped result: the quotient of INT_MIN / -1 is
 * INT_MIN (-INT_MIN wrapped), as the other integer arithmetic wraps. */
#include <math.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/elementwise.h"

GRT_CPU_VECTORIZE

#define ROW(name, sfx, T, W, EXPR) GRT_CPU_BINARY_ROW(name##_##sfx, T, W, elem_t, EXPR)

ROW(div, f32, float, float, a / b)
ROW(div, f64, double, double, a / b)
ROW(floor_div, f32, float, float, floorf(a / b))
ROW(floor_div, f64, double, double, floor(a / b))

/* Signed: b == -1 negates in the wide unsigned type (defined for INT_MIN);
 * the floor quotient is one less than the truncated one when the division
 * is inexact and the signs differ. */
#define NEG_A ((elem_t)((wide_t)0 - (wide_t)a))
#define TRUNC_Q (b == -1 ? NEG_A : (elem_t)(a / b))
#define FLOOR_Q (b == -1 ? NEG_A : (elem_t)(a / b - ((a % b != 0) && ((a < 0) != (b < 0)))))
#define SIGNED_ROWS(name, E)           \
  ROW(name, i8, int8_t, uint32_t, E)   \
  ROW(name, i16, int16_t, uint32_t, E) \
  ROW(name, i32, int32_t, uint32_t, E) \
  ROW(name, i64, int64_t, uint64_t, E)
SIGNED_ROWS(div, TRUNC_Q)
SIGNED_ROWS(floor_div, FLOOR_Q)
/* Unsigned: truncation and floor agree. */
ROW(div, u8, uint8_t, uint32_t, (elem_t)(a / b))
ROW(floor_div, u8, uint8_t, uint32_t, (elem_t)(a / b))

static const grt_cpu_binary_op kDiv = {{GRT_CPU_ROWS_FLOAT(div), GRT_CPU_ROWS_INT(div)}, false, 2};
static const grt_cpu_binary_op kTruncateDiv = {{GRT_CPU_ROWS_INT(div)}, false, 2};
static const grt_cpu_binary_op kFloorDiv = {
    {GRT_CPU_ROWS_FLOAT(floor_div), GRT_CPU_ROWS_INT(floor_div)}, false, 3};

grt_status* grt_cpu_check_integer_divisor(const grt_tensor* y) {
  if (!grt_dtype_is_integer(y->dtype)) return NULL;
  size_t es = grt_dtype_size(y->dtype);
  const unsigned char* p = grt_tensor_data(y);
  static const unsigned char kZero[8];
  int64_t n = grt_tensor_num_elements(y);
  for (int64_t i = 0; i < n; i++)
    if (memcmp(p + (size_t)i * es, kZero, es) == 0)
      return GRT_ERROR(INVALID_ARGUMENT, "Integer division by zero");
  return NULL;
}

static grt_status* checked(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op) {
  GRT_RETURN_IF_ERROR(grt_cpu_check_integer_divisor(ctx->inputs[1]));
  return grt_cpu_binary_compute(ctx, op);
}

grt_status* grt_cpu_div(grt_kernel_ctx* ctx) { return checked(ctx, &kDiv); }
grt_status* grt_cpu_truncate_div(grt_kernel_ctx* ctx) { return checked(ctx, &kTruncateDiv); }
grt_status* grt_cpu_floor_div(grt_kernel_ctx* ctx) { return checked(ctx, &kFloorDiv); }
