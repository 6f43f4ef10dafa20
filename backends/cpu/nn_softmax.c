/* Softmax over the last dimension: exp(x - max) / sum(exp(x - max)), the
 * row maximum subtracted first so large logits do not overflow. A row
 * holding +inf, or only -inf, gives NaN as in TensorFlow. float16/bfloat16
 * are computed in float32. */
#include <math.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/nn.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* Max and sum in LANES independent accumulators, so the loops vectorise
 * (a single float accumulator is a serial dependency the compiler may not
 * reorder). The row is cloned for AVX-512 and AVX2 (GRT_CPU_CLONES): exp is
 * compute-bound, and at the baseline's 4-wide SSE the row was a third of an
 * attention block's time (softmax beside its two products, 12 heads of
 * 197 tokens). */
#define LANES 16
_Static_assert(GRT_CPU_SOFTMAX_SHORT_ROW <= LANES, "a short row never reaches the lane loops");

#define SOFTMAX_ROW(sfx, T, EXP)                                                         \
  GRT_CPU_CLONES T grt_cpu_softmax_row_##sfx(const T* x, T* y, int64_t n, T* out_max) {  \
    T lane[LANES];                                                                       \
    for (int k = 0; k < LANES; k++) lane[k] = x[0];                                      \
    int64_t i = 0;                                                                       \
    for (; i + LANES <= n; i += LANES)                                                   \
      for (int k = 0; k < LANES; k++) lane[k] = x[i + k] > lane[k] ? x[i + k] : lane[k]; \
    T m = x[0];                                                                          \
    for (int k = 0; k < LANES; k++) m = lane[k] > m ? lane[k] : m;                       \
    for (; i < n; i++) m = x[i] > m ? x[i] : m;                                          \
    for (int64_t j = 0; j < n; j++) y[j] = EXP(x[j] - m);                                \
    for (int k = 0; k < LANES; k++) lane[k] = 0;                                         \
    for (i = 0; i + LANES <= n; i += LANES)                                              \
      for (int k = 0; k < LANES; k++) lane[k] += y[i + k];                               \
    T sum = 0;                                                                           \
    for (int k = 0; k < LANES; k++) sum += lane[k];                                      \
    for (; i < n; i++) sum += y[i];                                                      \
    *out_max = m;                                                                        \
    return sum;                                                                          \
  }
SOFTMAX_ROW(f32, float, grt_cpu_expf)
SOFTMAX_ROW(f64, double, exp)

/* Rows shorter than LANES, a block at once: each row's max, y = x - max
 * for the block, one vector loop of exp over the whole block, then each
 * row's sum. Row by row, a 10-class row spent ~150 ns in the lane loops'
 * set-up and read-back, around 10 exps (SparseSoftmaxCrossEntropyWithLogits
 * of 256 x 10: 42 us); here the exps of 256 rows are one loop. The max and
 * the sum are taken in the row order grt_cpu_softmax_row_f32 uses for a row
 * this short, so the results are the same bits. */
GRT_CPU_CLONES void grt_cpu_softmax_short_rows_f32(const float* x, float* y, int64_t rows,
                                                   int64_t n, float* maxes, float* sums) {
  for (int64_t r = 0; r < rows; r++) {
    const float* xr = x + r * n;
    float m = xr[0];
    for (int64_t j = 0; j < n; j++) m = xr[j] > m ? xr[j] : m;
    maxes[r] = m;
    for (int64_t j = 0; j < n; j++) y[r * n + j] = xr[j] - m;
  }
  for (int64_t i = 0; i < rows * n; i++) y[i] = grt_cpu_expf(y[i]);
  for (int64_t r = 0; r < rows; r++) {
    float sum = 0;
    for (int64_t j = 0; j < n; j++) sum += y[r * n + j];
    sums[r] = sum;
  }
}

/* Rows [r0, r1) of n elements; y may be x (in place). */
typedef void (*softmax_fn)(const void* x, void* y, int64_t r0, int64_t r1, int64_t n);

#define SOFTMAX_FN(sfx, T)                                                                 \
  static void softmax_##sfx(const void* xv, void* yv, int64_t r0, int64_t r1, int64_t n) { \
    for (int64_t r = r0; r < r1; r++) {                                                    \
      T* y = (T*)yv + r * n;                                                               \
      T m;                                                                                 \
      const T inv = (T)1 / grt_cpu_softmax_row_##sfx((const T*)xv + r * n, y, n, &m);      \
      for (int64_t i = 0; i < n; i++) y[i] *= inv;                                         \
    }                                                                                      \
  }
SOFTMAX_FN(f32, float)
SOFTMAX_FN(f64, double)

/* Rows [r0, r1) of fewer than GRT_CPU_SOFTMAX_SHORT_ROW floats, in blocks. */
static void softmax_short_f32(const float* x, float* y, int64_t r0, int64_t r1, int64_t n) {
  float maxes[GRT_CPU_SOFTMAX_BLOCK], sums[GRT_CPU_SOFTMAX_BLOCK];
  for (int64_t r = r0; r < r1; r += GRT_CPU_SOFTMAX_BLOCK) {
    int64_t rows = r1 - r < GRT_CPU_SOFTMAX_BLOCK ? r1 - r : GRT_CPU_SOFTMAX_BLOCK;
    grt_cpu_softmax_short_rows_f32(x + r * n, y + r * n, rows, n, maxes, sums);
    for (int64_t k = 0; k < rows; k++) {
      const float inv = 1.0f / sums[k];
      for (int64_t i = (r + k) * n; i < (r + k + 1) * n; i++) y[i] *= inv;
    }
  }
}

typedef struct {
  softmax_fn fn;
  const void* x;
  void* y;
  int64_t n;
} softmax_job;

static void softmax_range(void* arg, int64_t r0, int64_t r1) {
  const softmax_job* j = arg;
  if (j->fn == softmax_f32 && j->n < GRT_CPU_SOFTMAX_SHORT_ROW)
    softmax_short_f32(j->x, j->y, r0, r1, j->n);
  else
    j->fn(j->x, j->y, r0, r1, j->n);
}

grt_status* grt_cpu_softmax(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype t = x->dtype;
  if (!grt_dtype_is_float(t)) return grt_cpu_no_kernel(ctx, t);
  if (x->shape.rank < 1) {
    char buf[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT, "logits must have >= 1 dimension, got %s",
                     grt_cpu_shape_str(&x->shape, buf));
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t, &x->shape, &out));
  int64_t n = x->shape.dims[x->shape.rank - 1];
  int64_t total = grt_tensor_num_elements(x);
  if (total == 0) return NULL;
  grt_tensor* wide = NULL;
  if (grt_cpu_is_half(t)) GRT_RETURN_IF_ERROR(grt_cpu_widen_tensor(ctx, x, &wide));
  softmax_job j = {t == GRT_FLOAT64 ? softmax_f64 : softmax_f32, grt_tensor_data(wide ? wide : x),
                   grt_tensor_data(wide ? wide : out), n};
  grt_parallel_for(ctx->intra_op, total / n, n * 6, softmax_range, &j);
  if (wide) {
    grt_cpu_narrow(t, grt_tensor_data(wide), grt_tensor_data(out), total);
    grt_tensor_free(wide);
  }
  return NULL;
}
