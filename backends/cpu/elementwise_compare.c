/* Broadcasting comparisons with a bool result: Less, LessEqual, Greater,
 * GreaterEqual, Equal, NotEqual. NaN compares false with everything but
 * NotEqual (so Equal(NaN, NaN) is false and NotEqual(NaN, NaN) true). */
#include "backends/cpu/elementwise.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* Rows name_<suffix> with a bool result; no arithmetic, so no wide type. */
#define CMP_ROW(sfx, T, name, E) GRT_CPU_BINARY_ROW(name##_##sfx, T, T, bool, E)
#define CMP_ROWS(name, E)        \
  CMP_ROW(f32, float, name, E)   \
  CMP_ROW(f64, double, name, E)  \
  CMP_ROW(i8, int8_t, name, E)   \
  CMP_ROW(i16, int16_t, name, E) \
  CMP_ROW(i32, int32_t, name, E) \
  CMP_ROW(i64, int64_t, name, E) \
  CMP_ROW(u8, uint8_t, name, E)

CMP_ROWS(less, a < b)
CMP_ROWS(greater, a > b)
CMP_ROWS(greater_equal, a >= b)
CMP_ROWS(less_equal, a <= b)
CMP_ROWS(equal, a == b)
CMP_ROWS(not_equal, a != b)
/* Bool bytes: any non-zero byte is true. */
CMP_ROW(b, uint8_t, equal, (a != 0) == (b != 0))
CMP_ROW(b, uint8_t, not_equal, (a != 0) != (b != 0))

#define TABLE(prefix) GRT_CPU_ROWS_FLOAT(prefix), GRT_CPU_ROWS_INT(prefix)

static const grt_cpu_binary_op kLess = {{TABLE(less)}, true, 1};
static const grt_cpu_binary_op kGreater = {{TABLE(greater)}, true, 1};
static const grt_cpu_binary_op kGreaterEqual = {{TABLE(greater_equal)}, true, 1};
static const grt_cpu_binary_op kLessEqual = {{TABLE(less_equal)}, true, 1};
static const grt_cpu_binary_op kEqual = {{TABLE(equal), [GRT_BOOL] = equal_b}, true, 1};
static const grt_cpu_binary_op kNotEqual = {{TABLE(not_equal), [GRT_BOOL] = not_equal_b}, true, 1};

grt_status* grt_cpu_less(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kLess); }
grt_status* grt_cpu_less_equal(grt_kernel_ctx* ctx) {
  return grt_cpu_binary_compute(ctx, &kLessEqual);
}
grt_status* grt_cpu_greater(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kGreater); }
grt_status* grt_cpu_greater_equal(grt_kernel_ctx* ctx) {
  return grt_cpu_binary_compute(ctx, &kGreaterEqual);
}

/* With incompatible_shape_error=false, shapes that do not broadcast give a
 * scalar (false for Equal, true for NotEqual) instead of an error
 * (TensorFlow's BinaryOpShared). */
static grt_status* equality(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op, bool unequal) {
  bool strict;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "incompatible_shape_error", &strict));
  if (!strict) {
    grt_cpu_bcast plan;
    grt_status* s = grt_cpu_bcast_make(&ctx->inputs[0]->shape, &ctx->inputs[1]->shape, &plan);
    if (s) {
      grt_status_free(s);
      grt_shape scalar = {0};
      grt_tensor* out;
      GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_BOOL, &scalar, &out));
      *(uint8_t*)grt_tensor_data(out) = unequal;
      return NULL;
    }
  }
  return grt_cpu_binary_compute(ctx, op);
}

grt_status* grt_cpu_equal(grt_kernel_ctx* ctx) { return equality(ctx, &kEqual, false); }
grt_status* grt_cpu_not_equal(grt_kernel_ctx* ctx) { return equality(ctx, &kNotEqual, true); }
