/* ArgMax: the index of the largest element along `dimension` (a scalar,
 * negative counts from the end), as output_type (int16/int32/int64).
 * Ties go to the first index. Like TensorFlow's Eigen reducer, a NaN is
 * never larger than anything, so NaNs are skipped (all-NaN gives 0). */
#include <float.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/reduce.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* Indices of the max of x[a][b][c] over b, for a in [a0, a1), all c. */
typedef void (*argmax_fn)(const void* x, int64_t a0, int64_t a1, int64_t B, int64_t C,
                          int64_t* out);

#define COLS 256

#define ARGMAX_FN(sfx, T, LOWEST, LOAD)                                                  \
  static void argmax_##sfx(const void* xv, int64_t a0, int64_t a1, int64_t B, int64_t C, \
                           int64_t* out) {                                               \
    const T* restrict x = xv;                                                            \
    for (int64_t a = a0; a < a1; a++) {                                                  \
      const T* xa = x + a * B * C;                                                       \
      int64_t* oa = out + a * C;                                                         \
      if (C == 1) {                                                                      \
        T best = (LOWEST);                                                               \
        int64_t idx = 0;                                                                 \
        for (int64_t b = 0; b < B; b++) {                                                \
          const T v = LOAD(xa[b]);                                                       \
          if (v > best) {                                                                \
            best = v;                                                                    \
            idx = b;                                                                     \
          }                                                                              \
        }                                                                                \
        oa[0] = idx;                                                                     \
        continue;                                                                        \
      }                                                                                  \
      for (int64_t c0 = 0; c0 < C; c0 += COLS) {                                         \
        int64_t m = C - c0 < COLS ? C - c0 : COLS;                                       \
        T best[COLS];                                                                    \
        for (int64_t c = 0; c < m; c++) {                                                \
          best[c] = (LOWEST);                                                            \
          oa[c0 + c] = 0;                                                                \
        }                                                                                \
        for (int64_t b = 0; b < B; b++) {                                                \
          const T* row = xa + b * C + c0;                                                \
          for (int64_t c = 0; c < m; c++) {                                              \
            const T v = LOAD(row[c]);                                                    \
            if (v > best[c]) {                                                           \
              best[c] = v;                                                               \
              oa[c0 + c] = b;                                                            \
            }                                                                            \
          }                                                                              \
        }                                                                                \
      }                                                                                  \
    }                                                                                    \
  }

#define AS_IS(v) (v)
#define AS_BOOL(v) ((uint8_t)((v) != 0))
ARGMAX_FN(f32, float, -FLT_MAX, AS_IS)
ARGMAX_FN(f64, double, -DBL_MAX, AS_IS)
ARGMAX_FN(i8, int8_t, INT8_MIN, AS_IS)
ARGMAX_FN(i16, int16_t, INT16_MIN, AS_IS)
ARGMAX_FN(i32, int32_t, INT32_MIN, AS_IS)
ARGMAX_FN(i64, int64_t, INT64_MIN, AS_IS)
ARGMAX_FN(u8, uint8_t, 0, AS_IS)
ARGMAX_FN(b, uint8_t, 0, AS_BOOL)

static const argmax_fn kArgMax[GRT_NUM_DTYPES] = {
    [GRT_FLOAT16] = argmax_f32, [GRT_BFLOAT16] = argmax_f32, [GRT_FLOAT32] = argmax_f32,
    [GRT_FLOAT64] = argmax_f64, [GRT_INT8] = argmax_i8,      [GRT_INT16] = argmax_i16,
    [GRT_INT32] = argmax_i32,   [GRT_INT64] = argmax_i64,    [GRT_UINT8] = argmax_u8,
    [GRT_BOOL] = argmax_b,
};

typedef struct {
  argmax_fn fn;
  const void* x;
  int64_t B, C;
  int64_t* out;
} argmax_job;

static void argmax_range(void* arg, int64_t a0, int64_t a1) {
  const argmax_job* j = arg;
  j->fn(j->x, a0, a1, j->B, j->C, j->out);
}

grt_status* grt_cpu_arg_max(grt_kernel_ctx* ctx) {
  const grt_tensor* in = ctx->inputs[0];
  const grt_tensor* dim = ctx->inputs[1];
  grt_dtype out_type;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_type(ctx, "output_type", &out_type));
  if (out_type != GRT_INT16 && out_type != GRT_INT32 && out_type != GRT_INT64)
    return GRT_ERROR(INVALID_ARGUMENT, "output_type must be int16, int32 or int64, got %s",
                     grt_dtype_name(out_type));
  argmax_fn fn = grt_dtype_valid(in->dtype) ? kArgMax[in->dtype] : NULL;
  if (!fn) return grt_cpu_no_kernel(ctx, in->dtype);
  char buf[GRT_SHAPE_STR_MAX];
  if (dim->shape.rank != 0)
    return GRT_ERROR(INVALID_ARGUMENT, "dim must be a scalar, but received tensor of shape: %s",
                     grt_cpu_shape_str(&dim->shape, buf));
  int64_t d;
  switch (dim->dtype) {
    case GRT_INT16:
      d = *(const int16_t*)grt_tensor_data(dim);
      break;
    case GRT_INT32:
      d = *(const int32_t*)grt_tensor_data(dim);
      break;
    case GRT_INT64:
      d = *(const int64_t*)grt_tensor_data(dim);
      break;
    default:
      return GRT_ERROR(INVALID_ARGUMENT, "dimension must be int16, int32 or int64, got %s",
                       grt_dtype_name(dim->dtype));
  }
  int32_t rank = in->shape.rank;
  if (d < -rank || d >= rank)
    return GRT_ERROR(INVALID_ARGUMENT, "Expected dimension in the range [%d, %d), but got %lld",
                     -(int)rank, (int)rank, (long long)d);
  int32_t axis = (int32_t)(d < 0 ? d + rank : d);
  int64_t B = in->shape.dims[axis];
  if (B == 0)
    return GRT_ERROR(INVALID_ARGUMENT, "Reduction axis %lld is empty in shape %s", (long long)d,
                     grt_cpu_shape_str(&in->shape, buf));
  int64_t A = 1, C = 1;
  grt_shape os = {0};
  for (int32_t i = 0; i < rank; i++) {
    if (i == axis) continue;
    os.dims[os.rank++] = in->shape.dims[i];
    if (i < axis)
      A *= in->shape.dims[i];
    else
      C *= in->shape.dims[i];
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, out_type, &os, &out));
  int64_t n_out = A * C;
  if (n_out == 0) return NULL;

  grt_tensor* wide = NULL;
  grt_buffer* idx_buf = NULL;
  grt_status* s = NULL;
  if (grt_cpu_is_half(in->dtype)) s = grt_cpu_widen_tensor(ctx, in, &wide);
  if (!s && out_type != GRT_INT64)
    s = grt_buffer_alloc(ctx->allocator, (size_t)n_out * sizeof(int64_t), &idx_buf);
  if (!s) {
    int64_t* idx = idx_buf ? idx_buf->data : grt_tensor_data(out);
    argmax_job j = {fn, grt_tensor_data(wide ? wide : in), B, C, idx};
    grt_parallel_for(ctx->intra_op, A, B * C, argmax_range, &j);
    if (out_type == GRT_INT32) {
      int32_t* o = grt_tensor_data(out);
      for (int64_t i = 0; i < n_out; i++) o[i] = (int32_t)idx[i];
    } else if (out_type == GRT_INT16) {
      int16_t* o = grt_tensor_data(out);
      for (int64_t i = 0; i < n_out; i++) o[i] = (int16_t)idx[i];
    }
  }
  grt_tensor_free(wide);
  grt_buffer_unref(idx_buf);
  return s;
}
