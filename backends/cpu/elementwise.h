/* Internal to the element-wise CPU kernels (elementwise*.c): how an op is
 * described as a table of row functions by dtype, the macros that write
 * those rows, and the kernels the family table lists.
 *
 * Integer arithmetic wraps around as TensorFlow's does on every platform it
 * runs on; it is written in unsigned arithmetic ("wide_t") so that it is
 * defined in C too. Bool tensors are read as bytes and treated as
 * true when non-zero, written as 0/1. */
#ifndef GRT_BACKENDS_CPU_ELEMENTWISE_H_
#define GRT_BACKENDS_CPU_ELEMENTWISE_H_

#include <stdbool.h>
#include <stdint.h>

#include "backends/cpu/cpu_util.h"
#include "kernels/op_kernel.h"

/* A binary op: one row function per input dtype (NULL: no kernel). float16
 * and bfloat16 inputs run the float32 row on widened copies. */
typedef struct grt_cpu_binary_op {
  grt_cpu_binary_row rows[GRT_NUM_DTYPES];
  bool bool_out;   /* the output is bool (comparisons), else the input dtype */
  int32_t cost_ns; /* rough nanoseconds per element, for splitting work */
} grt_cpu_binary_op;

/* A unary op, likewise (the output has the input's dtype). */
typedef struct grt_cpu_unary_op {
  grt_cpu_unary_row rows[GRT_NUM_DTYPES];
  int32_t cost_ns;
} grt_cpu_unary_op;

/* Broadcasting x op y from ctx's inputs 0 and 1 into output 0. */
GRT_MUST_USE grt_status* grt_cpu_binary_compute(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op);

/* out = x op y for tensors of equal element counts, no broadcasting
 * (TensorFlow's cwise gradient ops): the output takes x's shape. */
GRT_MUST_USE grt_status* grt_cpu_binary_same_size(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op);

/* y = f(x) from input 0 into output 0. */
GRT_MUST_USE grt_status* grt_cpu_unary_compute(grt_kernel_ctx* ctx, const grt_cpu_unary_op* op);

/* Runs a planned broadcast of x and y (already checked against `op`) into
 * `out`, widening half types; used by BiasAdd too. */
GRT_MUST_USE grt_status* grt_cpu_binary_apply(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op,
                                              const grt_cpu_bcast* plan, const grt_tensor* x,
                                              const grt_tensor* y, grt_tensor* out);

/* An InvalidArgument error ("Integer division by zero") when the integer
 * divisor y holds a zero; NULL for floats (IEEE division by zero). The
 * integer division and remainder kernels call it before any row runs. */
GRT_MUST_USE grt_status* grt_cpu_check_integer_divisor(const grt_tensor* y);

/* Ops other files reuse. */
extern const grt_cpu_binary_op grt_cpu_op_add;

/* ---- row writers ---------------------------------------------------------
 * EXPR computes one element from `a` (and `b`) of type elem_t; wide_t is
 * the unsigned type integer arithmetic wraps in (the float type itself for
 * floats). Four loops cover the stride cases so each is a plain
 * vectorisable loop. */
#define GRT_CPU_BINARY_ROW(fname, T, W, TZ, EXPR)                                                  \
  static void fname(int64_t n, const void* xv, int64_t sx, const void* yv, int64_t sy, void* zv) { \
    typedef T elem_t;                                                                              \
    typedef W wide_t;                                                                              \
    (void)sizeof(wide_t);                                                                          \
    const elem_t* restrict x = (const elem_t*)xv;                                                  \
    const elem_t* restrict y = (const elem_t*)yv;                                                  \
    TZ* restrict z = (TZ*)zv;                                                                      \
    if (sx && sy) {                                                                                \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const elem_t a = x[i], b = y[i];                                                           \
        z[i] = (TZ)(EXPR);                                                                         \
      }                                                                                            \
    } else if (sx) {                                                                               \
      const elem_t b = y[0];                                                                       \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const elem_t a = x[i];                                                                     \
        z[i] = (TZ)(EXPR);                                                                         \
      }                                                                                            \
    } else if (sy) {                                                                               \
      const elem_t a = x[0];                                                                       \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const elem_t b = y[i];                                                                     \
        z[i] = (TZ)(EXPR);                                                                         \
      }                                                                                            \
    } else {                                                                                       \
      const elem_t a = x[0], b = y[0];                                                             \
      const TZ v = (TZ)(EXPR);                                                                     \
      for (int64_t i = 0; i < n; i++) z[i] = v;                                                    \
    }                                                                                              \
  }

#define GRT_CPU_UNARY_ROW(fname, T, W, EXPR)               \
  static void fname(int64_t n, const void* xv, void* yv) { \
    typedef T elem_t;                                      \
    typedef W wide_t;                                      \
    (void)sizeof(wide_t);                                  \
    const elem_t* restrict x = (const elem_t*)xv;          \
    elem_t* restrict y = (elem_t*)yv;                      \
    for (int64_t i = 0; i < n; i++) {                      \
      const elem_t a = x[i];                               \
      y[i] = (elem_t)(EXPR);                               \
    }                                                      \
  }

/* One row per real dtype: M(suffix, C type, wide type). */
#define GRT_CPU_FLOAT_TYPES(M) M(f32, float, float) M(f64, double, double)
/* An X-macro list, one row a dtype (clang-format 14 does not settle on
 * one layout for it). */
/* clang-format off */
#define GRT_CPU_INT_TYPES(M) \
  M(i8, int8_t, uint32_t)    \
  M(i16, int16_t, uint32_t)  \
  M(i32, int32_t, uint32_t)  \
  M(i64, int64_t, uint64_t)  \
  M(u8, uint8_t, uint32_t)
/* clang-format on */

/* Table entries for rows named prefix_<suffix>. */
#define GRT_CPU_ROWS_FLOAT(prefix)                                                           \
  [GRT_FLOAT16] = prefix##_f32, [GRT_BFLOAT16] = prefix##_f32, [GRT_FLOAT32] = prefix##_f32, \
  [GRT_FLOAT64] = prefix##_f64
#define GRT_CPU_ROWS_INT(prefix)                                                    \
  [GRT_INT8] = prefix##_i8, [GRT_INT16] = prefix##_i16, [GRT_INT32] = prefix##_i32, \
  [GRT_INT64] = prefix##_i64, [GRT_UINT8] = prefix##_u8

/* ---- kernels (compute functions) ---------------------------------------- */
#define GRT_CPU_DECLARE(name) grt_status* grt_cpu_##name(grt_kernel_ctx* ctx)
GRT_CPU_DECLARE(add);
GRT_CPU_DECLARE(sub);
GRT_CPU_DECLARE(mul);
GRT_CPU_DECLARE(real_div);
GRT_CPU_DECLARE(div);
GRT_CPU_DECLARE(truncate_div);
GRT_CPU_DECLARE(floor_div);
GRT_CPU_DECLARE(bitwise_and);
GRT_CPU_DECLARE(bitwise_or);
GRT_CPU_DECLARE(bitwise_xor);
GRT_CPU_DECLARE(invert);
GRT_CPU_DECLARE(maximum);
GRT_CPU_DECLARE(minimum);
GRT_CPU_DECLARE(pow);
GRT_CPU_DECLARE(squared_difference);
GRT_CPU_DECLARE(less);
GRT_CPU_DECLARE(greater);
GRT_CPU_DECLARE(greater_equal);
GRT_CPU_DECLARE(equal);
GRT_CPU_DECLARE(less_equal);
GRT_CPU_DECLARE(not_equal);
GRT_CPU_DECLARE(neg);
GRT_CPU_DECLARE(abs);
GRT_CPU_DECLARE(square);
GRT_CPU_DECLARE(sqrt);
GRT_CPU_DECLARE(rsqrt);
GRT_CPU_DECLARE(exp);
GRT_CPU_DECLARE(log);
GRT_CPU_DECLARE(tanh);
GRT_CPU_DECLARE(sigmoid);
GRT_CPU_DECLARE(relu);
GRT_CPU_DECLARE(logical_not);
GRT_CPU_DECLARE(tanh_grad);
GRT_CPU_DECLARE(sigmoid_grad);
GRT_CPU_DECLARE(relu_grad);
GRT_CPU_DECLARE(select);
GRT_CPU_DECLARE(cast);
GRT_CPU_DECLARE(add_n);

#endif /* GRT_BACKENDS_CPU_ELEMENTWISE_H_ */
