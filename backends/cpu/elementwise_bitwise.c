/* Broadcasting bitwise ops over every integer dtype, TensorFlow's
 * BitwiseAnd, BitwiseOr, BitwiseXor, and the unary Invert (~x): the bits of
 * the two's-complement value, whatever the signedness. */
#include "backends/cpu/elementwise.h"
#include "base/status.h"

GRT_CPU_VECTORIZE

#define BIN_ROW(sfx, T, W, name, E) GRT_CPU_BINARY_ROW(name##_##sfx, T, W, elem_t, E)
#define UN_ROW(sfx, T, W, name, E) GRT_CPU_UNARY_ROW(name##_##sfx, T, W, E)

/* GRT_CPU_INT_TYPES with two more arguments for M. */
#define GRT_CPU_INT_TYPES_WITH(M, name, E) \
  M(i8, int8_t, uint32_t, name, E)         \
  M(i16, int16_t, uint32_t, name, E)       \
  M(i32, int32_t, uint32_t, name, E)       \
  M(i64, int64_t, uint64_t, name, E)       \
  M(u8, uint8_t, uint32_t, name, E)

GRT_CPU_INT_TYPES_WITH(BIN_ROW, and, (elem_t)(a& b))
GRT_CPU_INT_TYPES_WITH(BIN_ROW, or, (elem_t)(a | b))
GRT_CPU_INT_TYPES_WITH(BIN_ROW, xor, (elem_t)(a ^ b))
GRT_CPU_INT_TYPES_WITH(UN_ROW, invert, (elem_t)(~(wide_t)a))

static const grt_cpu_binary_op kAnd = {{GRT_CPU_ROWS_INT(and)}, false, 1};
static const grt_cpu_binary_op kOr = {{GRT_CPU_ROWS_INT(or)}, false, 1};
static const grt_cpu_binary_op kXor = {{GRT_CPU_ROWS_INT(xor)}, false, 1};
static const grt_cpu_unary_op kInvert = {{GRT_CPU_ROWS_INT(invert)}, 1};

grt_status* grt_cpu_bitwise_and(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kAnd); }
grt_status* grt_cpu_bitwise_or(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kOr); }
grt_status* grt_cpu_bitwise_xor(grt_kernel_ctx* ctx) { return grt_cpu_binary_compute(ctx, &kXor); }
grt_status* grt_cpu_invert(grt_kernel_ctx* ctx) { return grt_cpu_unary_compute(ctx, &kInvert); }
