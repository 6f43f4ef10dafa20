/* Broadcasting remainders and shifts, TensorFlow's ops of these names:
 *   FloorMod     x - floor(x / y) * y: the result takes y's sign
 *   TruncateMod  x - trunc(x / y) * y: the result takes x's sign (C's %, fmod)
 *   LeftShift, RightShift  with the shift clamped to [0, bits - 1], as
 *                TensorFlow's functors do (RightShift is arithmetic for
 *                signed types)
 * Integer remainders by zero are an InvalidArgument error ("Integer
 * division by zero"), checked before any element is computed, as
 * TensorFlow's safe_ functors report; float remainders by zero are NaN. */
#include <math.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/elementwise.h"

GRT_CPU_VECTORIZE

#define ROW(name, sfx, T, W, EXPR) GRT_CPU_BINARY_ROW(name##_##sfx, T, W, elem_t, EXPR)

/* Floats: fmod is exact; a non-zero remainder of the wrong sign moves by y. */
static inline float floor_fmodf(float a, float b) {
  float r = fmodf(a, b);
  return (r != 0 && ((b < 0) != (r < 0))) ? r + b : r;
}
static inline double floor_fmod(double a, double b) {
  double r = fmod(a, b);
  return (r != 0 && ((b < 0) != (r < 0))) ? r + b : r;
}
ROW(floor_mod, f32, float, float, floor_fmodf(a, b))
ROW(floor_mod, f64, double, double, floor_fmod(a, b))
ROW(trunc_mod, f32, float, float, fmodf(a, b))
ROW(trunc_mod, f64, double, double, fmod(a, b))

/* Signed integers: b == -1 gives 0 directly (INT_MIN % -1 overflows in C). */
#define TRUNC_I (b == -1 ? 0 : a % b)
#define FLOOR_I (b == -1 ? 0 : ((a % b != 0) && ((a < 0) != (b < 0)) ? a % b + b : a % b))
#define SIGNED_ROWS(name, E)           \
  ROW(name, i8, int8_t, uint32_t, E)   \
  ROW(name, i16, int16_t, uint32_t, E) \
  ROW(name, i32, int32_t, uint32_t, E) \
  ROW(name, i64, int64_t, uint64_t, E)
SIGNED_ROWS(floor_mod, FLOOR_I)
ROW(floor_mod, u8, uint8_t, uint32_t, a % b)
ROW(trunc_mod, i32, int32_t, uint32_t, TRUNC_I)
ROW(trunc_mod, i64, int64_t, uint64_t, TRUNC_I)

/* Shifts: the count clamped to [0, bits - 1]; left shifts in the unsigned
 * wide type so that they wrap. */
#define BITS ((int)(sizeof(elem_t) * 8))
#define CLAMPED (b < 0 ? 0 : b >= BITS ? BITS - 1 : (int)b)
#define LSHIFT ((elem_t)((wide_t)a << CLAMPED))
#define RSHIFT ((elem_t)(a >> CLAMPED))
#define CLAMPED_U (b >= BITS ? BITS - 1 : (int)b)
SIGNED_ROWS(lshift, LSHIFT)
ROW(lshift, u8, uint8_t, uint32_t, (elem_t)((wide_t)a << CLAMPED_U))
SIGNED_ROWS(rshift, RSHIFT)
ROW(rshift, u8, uint8_t, uint32_t, (elem_t)(a >> CLAMPED_U))

static const grt_cpu_binary_op kFloorMod = {
    {GRT_CPU_ROWS_FLOAT(floor_mod), GRT_CPU_ROWS_INT(floor_mod)}, false, 3};
static const grt_cpu_binary_op kTruncateMod = {
    {GRT_CPU_ROWS_FLOAT(trunc_mod), [GRT_INT32] = trunc_mod_i32, [GRT_INT64] = trunc_mod_i64},
    false,
    3};
static const grt_cpu_binary_op kLeftShift = {{GRT_CPU_ROWS_INT(lshift)}, false, 1};
static const grt_cpu_binary_op kRightShift = {{GRT_CPU_ROWS_INT(rshift)}, false, 1};

static grt_status* checked_remainder(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op) {
  GRT_RETURN_IF_ERROR(grt_cpu_check_integer_divisor(ctx->inputs[1]));
  return grt_cpu_binary_compute(ctx, op);
}

static grt_status* floor_mod_op(grt_kernel_ctx* ctx) { return checked_remainder(ctx, &kFloorMod); }
static grt_status* truncate_mod_op(grt_kernel_ctx* ctx) {
  return checked_remainder(ctx, &kTruncateMod);
}
static grt_status* left_shift_op(grt_kernel_ctx* ctx) {
  return grt_cpu_binary_compute(ctx, &kLeftShift);
}
static grt_status* right_shift_op(grt_kernel_ctx* ctx) {
  return grt_cpu_binary_compute(ctx, &kRightShift);
}

#define K(op, fn) \
  { op, fn, NULL, NULL, 0 }
GRT_CPU_KERNEL_TABLE(mod_shift, K("FloorMod", floor_mod_op), K("TruncateMod", truncate_mod_op),
                     K("LeftShift", left_shift_op), K("RightShift", right_shift_op));
