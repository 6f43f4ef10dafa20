/* Cast between every pair of grt dtypes, with TensorFlow's (C++
 * static_cast) conversions as they behave on x86-64:
 *   - to bool: x != 0 (NaN is true); from bool: 0 or 1;
 *   - float to integer truncates toward zero; NaN and values outside int32
 *     (int64 for int64) give the most negative value, and int8/int16/uint8
 *     take the low bits of that int32 (so -1.0 -> uint8 255);
 *   - integer to integer keeps the low bits (wraps);
 *   - to float16/bfloat16 rounds to nearest even through float32; with
 *     Truncate=true, float32 -> float16/bfloat16 first clears the mantissa
 *     bits the target lacks (TensorFlow's LSBZeroSetter);
 *   - the same dtype shares the input.
 * One loop per (source, destination) pair, from a table. */
#include <string.h>

#include "backends/cpu/elementwise.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* Storage type, computation type and class (F: floating, I: integral)
 * of each dtype. */
typedef uint16_t st_f16, st_bf16;
typedef float ct_f16, ct_bf16;
typedef float st_f32, ct_f32;
typedef double st_f64, ct_f64;
typedef int8_t st_i8, ct_i8;
typedef int16_t st_i16, ct_i16;
typedef int32_t st_i32, ct_i32;
typedef int64_t st_i64, ct_i64;
typedef uint8_t st_u8, ct_u8;
typedef uint8_t st_b, ct_b;
#define CLASS_f16 F
#define CLASS_bf16 F
#define CLASS_f32 F
#define CLASS_f64 F
#define CLASS_i8 I
#define CLASS_i16 I
#define CLASS_i32 I
#define CLASS_i64 I
#define CLASS_u8 I
#define CLASS_b I

#define LOAD_f16(v) grt_half_to_float(v)
#define LOAD_bf16(v) grt_bfloat16_to_float(v)
#define LOAD_f32(v) (v)
#define LOAD_f64(v) (v)
#define LOAD_i8(v) (v)
#define LOAD_i16(v) (v)
#define LOAD_i32(v) (v)
#define LOAD_i64(v) (v)
#define LOAD_u8(v) (v)
#define LOAD_b(v) ((uint8_t)((v) != 0))

/* x86 cvttss2si: in range truncates, else the "integer indefinite" value. */
#define F_TO_I32(v) (((v) >= -2147483648.0 && (v) < 2147483648.0) ? (int32_t)(v) : INT32_MIN)
#define F_TO_I64(v) \
  (((v) >= -9223372036854775808.0 && (v) < 9223372036854775808.0) ? (int64_t)(v) : INT64_MIN)

#define STORE_f16_F(v) grt_float_to_half((float)(v))
#define STORE_f16_I(v) grt_float_to_half((float)(v))
#define STORE_bf16_F(v) grt_float_to_bfloat16((float)(v))
#define STORE_bf16_I(v) grt_float_to_bfloat16((float)(v))
#define STORE_f32_F(v) ((float)(v))
#define STORE_f32_I(v) ((float)(v))
#define STORE_f64_F(v) ((double)(v))
#define STORE_f64_I(v) ((double)(v))
#define STORE_i8_F(v) ((int8_t)F_TO_I32(v))
#define STORE_i8_I(v) ((int8_t)(v))
#define STORE_i16_F(v) ((int16_t)F_TO_I32(v))
#define STORE_i16_I(v) ((int16_t)(v))
#define STORE_i32_F(v) F_TO_I32(v)
#define STORE_i32_I(v) ((int32_t)(v))
#define STORE_i64_F(v) F_TO_I64(v)
#define STORE_i64_I(v) ((int64_t)(v))
#define STORE_u8_F(v) ((uint8_t)F_TO_I32(v))
#define STORE_u8_I(v) ((uint8_t)(v))
#define STORE_b_F(v) ((uint8_t)((v) != 0))
#define STORE_b_I(v) ((uint8_t)((v) != 0))

#define STORE_(D, C, v) STORE_##D##_##C(v)
#define STORE(D, C, v) STORE_(D, C, v)

typedef void (*cast_fn)(const void* in, void* out, int64_t b, int64_t e);

#define CAST_FN(S, D)                                                           \
  static void cast_##S##_##D(const void* in, void* out, int64_t b, int64_t e) { \
    const st_##S* restrict x = in;                                              \
    st_##D* restrict y = out;                                                   \
    for (int64_t i = b; i < e; i++) {                                           \
      const ct_##S v = LOAD_##S(x[i]);                                          \
      y[i] = STORE(D, CLASS_##S, v);                                            \
    }                                                                           \
  }

#define EACH_DST(M, S) \
  M(S, f16) M(S, bf16) M(S, f32) M(S, f64) M(S, i8) M(S, i16) M(S, i32) M(S, i64) M(S, u8) M(S, b)
EACH_DST(CAST_FN, f16)
EACH_DST(CAST_FN, bf16)
EACH_DST(CAST_FN, f32)
EACH_DST(CAST_FN, f64)
EACH_DST(CAST_FN, i8)
EACH_DST(CAST_FN, i16)
EACH_DST(CAST_FN, i32)
EACH_DST(CAST_FN, i64)
EACH_DST(CAST_FN, u8)
EACH_DST(CAST_FN, b)

#define ROW(S)                                                                                  \
  {                                                                                             \
    [GRT_FLOAT16] = cast_##S##_f16, [GRT_BFLOAT16] = cast_##S##_bf16,                           \
    [GRT_FLOAT32] = cast_##S##_f32, [GRT_FLOAT64] = cast_##S##_f64, [GRT_INT8] = cast_##S##_i8, \
    [GRT_INT16] = cast_##S##_i16, [GRT_INT32] = cast_##S##_i32, [GRT_INT64] = cast_##S##_i64,   \
    [GRT_UINT8] = cast_##S##_u8, [GRT_BOOL] = cast_##S##_b                                      \
  }

static const cast_fn kCast[GRT_NUM_DTYPES][GRT_NUM_DTYPES] = {
    [GRT_FLOAT16] = ROW(f16), [GRT_BFLOAT16] = ROW(bf16), [GRT_FLOAT32] = ROW(f32),
    [GRT_FLOAT64] = ROW(f64), [GRT_INT8] = ROW(i8),       [GRT_INT16] = ROW(i16),
    [GRT_INT32] = ROW(i32),   [GRT_INT64] = ROW(i64),     [GRT_UINT8] = ROW(u8),
    [GRT_BOOL] = ROW(b),
};

/* Truncate=true for float32 -> float16 / bfloat16: drop the low mantissa
 * bits (NaN kept as is), then convert as usual. The NaN test is on the bits:
 * GCC 12.2 at -O2 drops the masking when it is written `if (f != f)`. */
static inline float clear_low_bits(float f, uint32_t bits) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) <= 0x7f800000u) u &= ~((1u << bits) - 1u);
  memcpy(&f, &u, sizeof u);
  return f;
}

static void cast_f32_f16_trunc(const void* in, void* out, int64_t b, int64_t e) {
  const float* x = in;
  uint16_t* y = out;
  for (int64_t i = b; i < e; i++) y[i] = grt_float_to_half(clear_low_bits(x[i], 13));
}

static void cast_f32_bf16_trunc(const void* in, void* out, int64_t b, int64_t e) {
  const float* x = in;
  uint16_t* y = out;
  for (int64_t i = b; i < e; i++) y[i] = grt_float_to_bfloat16(clear_low_bits(x[i], 16));
}

typedef struct {
  cast_fn fn;
  const void* in;
  void* out;
} cast_job;

static void cast_range(void* arg, int64_t b, int64_t e) {
  const cast_job* j = arg;
  j->fn(j->in, j->out, b, e);
}

grt_status* grt_cpu_cast(grt_kernel_ctx* ctx) {
  grt_tensor* x = ctx->inputs[0];
  grt_dtype src = x->dtype, dst;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_type(ctx, "DstT", &dst));
  if (!grt_dtype_valid(src) || !grt_dtype_valid(dst))
    return GRT_ERROR(INVALID_ARGUMENT, "Cast %s to %s is not supported", grt_dtype_name(src),
                     grt_dtype_name(dst));
  if (src == dst) {
    grt_kernel_set_output(ctx, 0, x);
    return NULL;
  }
  cast_fn fn = kCast[src][dst];
  if (src == GRT_FLOAT32 && (dst == GRT_FLOAT16 || dst == GRT_BFLOAT16)) {
    bool truncate;
    GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "Truncate", &truncate));
    if (truncate) fn = dst == GRT_FLOAT16 ? cast_f32_f16_trunc : cast_f32_bf16_trunc;
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, dst, &x->shape, &out));
  cast_job j = {fn, grt_tensor_data(x), grt_tensor_data(out)};
  int64_t cost = grt_cpu_is_half(src) || grt_cpu_is_half(dst) ? 4 : 1;
  grt_parallel_for(ctx->intra_op, grt_tensor_num_elements(x), cost, cast_range, &j);
  return NULL;
}
