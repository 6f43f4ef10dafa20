/* Softmax cross-entropy, with sparse (class index per row) or dense
 * (probabilities per row) labels. For each row of features f:
 *   m = max(f), s = sum(exp(f - m)),
 *   loss     = sum_j labels_j * (log(s) - (f_j - m)),
 *   backprop = exp(f - m) / s - labels.
 * Features are [batch, classes]; dense labels broadcast against them (both
 * of rank <= 2 and broadcasting to a matrix); sparse labels are [batch]
 * and must lie in [0, classes). float16/bfloat16 are computed in float32. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/nn.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* One row's loss and backprop from its softmax terms back[j] = e^(f[j] - m)
 * and their sum: dense labels `l` (or NULL with a class index `label`). */
#define XENT_FINISH(sfx, T, LOG)                                                                   \
  static void xent_finish_##sfx(const T* f, const T* l, int64_t label, int64_t n, T m, T sum,      \
                                T* loss, T* back) {                                                \
    const T lse = LOG(sum), inv = (T)1 / sum;                                                      \
    if (l) {                                                                                       \
      T acc = 0;                                                                                   \
      for (int64_t j = 0; j < n; j++) {                                                            \
        acc += l[j] * (lse - (f[j] - m));                                                          \
        back[j] = back[j] * inv - l[j];                                                            \
      }                                                                                            \
      *loss = acc;                                                                                 \
    } else {                                                                                       \
      for (int64_t j = 0; j < n; j++) back[j] *= inv;                                              \
      back[label] -= 1;                                                                            \
      *loss = lse - (f[label] - m);                                                                \
    }                                                                                              \
  }                                                                                                \
  static void xent_row_##sfx(const T* f, const T* l, int64_t label, int64_t n, T* loss, T* back) { \
    T m;                                                                                           \
    const T sum = grt_cpu_softmax_row_##sfx(f, back, n, &m);                                       \
    xent_finish_##sfx(f, l, label, n, m, sum, loss, back);                                         \
  }
XENT_FINISH(f32, float, logf)
XENT_FINISH(f64, double, log)

typedef struct {
  bool f64;
  const void* f;      /* [batch, classes], float or double */
  const void* l;      /* dense labels [batch, classes], or NULL */
  const void* labels; /* sparse labels [batch] */
  bool labels64;
  int64_t n;
  void* loss;
  void* back;
} xent_job;

static int64_t label_of(const xent_job* j, int64_t r) {
  return j->labels64 ? ((const int64_t*)j->labels)[r] : ((const int32_t*)j->labels)[r];
}

/* float32 rows shorter than GRT_CPU_SOFTMAX_SHORT_ROW, a block at once
 * (grt_cpu_softmax_short_rows_f32): the same sums as xent_row_f32. */
static void xent_short_rows_f32(const xent_job* j, int64_t r0, int64_t r1) {
  float maxes[GRT_CPU_SOFTMAX_BLOCK], sums[GRT_CPU_SOFTMAX_BLOCK];
  const int64_t n = j->n;
  for (int64_t r = r0; r < r1; r += GRT_CPU_SOFTMAX_BLOCK) {
    int64_t rows = r1 - r < GRT_CPU_SOFTMAX_BLOCK ? r1 - r : GRT_CPU_SOFTMAX_BLOCK;
    const float* f = (const float*)j->f + r * n;
    float* back = (float*)j->back + r * n;
    grt_cpu_softmax_short_rows_f32(f, back, rows, n, maxes, sums);
    for (int64_t k = 0; k < rows; k++)
      xent_finish_f32(f + k * n, j->l ? (const float*)j->l + (r + k) * n : NULL,
                      j->l ? 0 : label_of(j, r + k), n, maxes[k], sums[k], (float*)j->loss + r + k,
                      back + k * n);
  }
}

static void xent_rows(void* arg, int64_t r0, int64_t r1) {
  const xent_job* j = arg;
  if (!j->f64 && j->n < GRT_CPU_SOFTMAX_SHORT_ROW) {
    xent_short_rows_f32(j, r0, r1);
    return;
  }
  for (int64_t r = r0; r < r1; r++) {
    int64_t label = j->l ? 0 : label_of(j, r);
    if (j->f64) {
      xent_row_f64((const double*)j->f + r * j->n, j->l ? (const double*)j->l + r * j->n : NULL,
                   label, j->n, (double*)j->loss + r, (double*)j->back + r * j->n);
    } else {
      xent_row_f32((const float*)j->f + r * j->n, j->l ? (const float*)j->l + r * j->n : NULL,
                   label, j->n, (float*)j->loss + r, (float*)j->back + r * j->n);
    }
  }
}

/* `t` broadcast to [rows, cols] and converted to the compute type (float32,
 * or float64 for float64), in a new scratch tensor; or t itself when it
 * already is exactly that (*out_owned false). */
static grt_status* as_matrix(grt_kernel_ctx* ctx, const grt_tensor* t, int64_t rows, int64_t cols,
                             grt_tensor** out, bool* out_owned) {
  bool wide = t->dtype == GRT_FLOAT64;
  grt_shape s = {2, {rows, cols}};
  *out_owned = false;
  if (!grt_cpu_is_half(t->dtype) && t->shape.rank == 2 && t->shape.dims[0] == rows &&
      t->shape.dims[1] == cols) {
    *out = (grt_tensor*)t;
    return NULL;
  }
  grt_tensor* m;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_temp(ctx, wide ? GRT_FLOAT64 : GRT_FLOAT32, &s, &m));
  /* Source strides: 0 along a broadcast (size-1 or missing) dimension. */
  int64_t d0 = t->shape.rank == 2 ? t->shape.dims[0] : 1;
  int64_t d1 = t->shape.rank >= 1 ? t->shape.dims[t->shape.rank - 1] : 1;
  int64_t s0 = d0 == rows ? d1 : 0, s1 = d1 == cols ? 1 : 0;
  const void* src = grt_tensor_data(t);
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t c = 0; c < cols; c++) {
      int64_t i = r * s0 + c * s1;
      if (wide)
        ((double*)grt_tensor_data(m))[r * cols + c] = ((const double*)src)[i];
      else if (t->dtype == GRT_FLOAT32)
        ((float*)grt_tensor_data(m))[r * cols + c] = ((const float*)src)[i];
      else
        grt_cpu_widen(t->dtype, (const uint16_t*)src + i, (float*)grt_tensor_data(m) + r * cols + c,
                      1);
    }
  }
  *out = m;
  *out_owned = true;
  return NULL;
}

/* Runs the rows into outputs 0 (loss [rows]) and 1 (backprop [rows, cols]),
 * computing half types in float32 scratch and narrowing. */
static grt_status* run(grt_kernel_ctx* ctx, grt_dtype t, xent_job* j, int64_t rows) {
  grt_shape ls = {1, {rows}}, bs = {2, {rows, j->n}};
  grt_tensor *loss, *back, *wl = NULL, *wb = NULL;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t, &ls, &loss));
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 1, t, &bs, &back));
  bool half = grt_cpu_is_half(t);
  if (half) {
    grt_status* s = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &ls, &wl);
    if (!s) s = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &bs, &wb);
    if (s) {
      grt_tensor_free(wl);
      return s;
    }
  }
  j->f64 = t == GRT_FLOAT64;
  j->loss = grt_tensor_data(half ? wl : loss);
  j->back = grt_tensor_data(half ? wb : back);
  if (j->n == 0) /* no classes: nothing to sum */
    memset(j->loss, 0, (size_t)rows * (j->f64 ? sizeof(double) : sizeof(float)));
  else if (rows > 0)
    grt_parallel_for(ctx->intra_op, rows, j->n * 30, xent_rows, j);
  if (half) {
    grt_cpu_narrow(t, grt_tensor_data(wl), grt_tensor_data(loss), rows);
    grt_cpu_narrow(t, grt_tensor_data(wb), grt_tensor_data(back), rows * j->n);
    grt_tensor_free(wl);
    grt_tensor_free(wb);
  }
  return NULL;
}

/* "Received a label value of 5 which is outside the valid range of [0, 3).
 *  Label values: 0 5 1" with the first bad index named. */
static grt_status* bad_label(const grt_tensor* labels, int64_t at, int64_t classes) {
  const void* d = grt_tensor_data(labels);
  bool is64 = labels->dtype == GRT_INT64;
  int64_t n = grt_tensor_num_elements(labels);
  char values[512];
  size_t len = 0;
  for (int64_t i = 0; i < n && len < sizeof values - 24; i++) {
    if (i == 32) {
      len += (size_t)snprintf(values + len, sizeof values - len, " ...");
      break;
    }
    long long v = is64 ? ((const int64_t*)d)[i] : ((const int32_t*)d)[i];
    len += (size_t)snprintf(values + len, sizeof values - len, "%s%lld", i ? " " : "", v);
  }
  long long bad = is64 ? ((const int64_t*)d)[at] : ((const int32_t*)d)[at];
  return GRT_ERROR(INVALID_ARGUMENT,
                   "Received a label value of %lld which is outside the valid range of [0, "
                   "%lld) at labels[%lld].  Label values: %s",
                   bad, (long long)classes, (long long)at, values);
}

grt_status* grt_cpu_sparse_xent(grt_kernel_ctx* ctx) {
  const grt_tensor* f = ctx->inputs[0];
  const grt_tensor* labels = ctx->inputs[1];
  grt_dtype t = f->dtype;
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  if (!grt_dtype_is_float(t)) return grt_cpu_no_kernel(ctx, t);
  if (labels->dtype != GRT_INT32 && labels->dtype != GRT_INT64)
    return GRT_ERROR(INVALID_ARGUMENT, "labels must be int32 or int64, got %s",
                     grt_dtype_name(labels->dtype));
  if (f->shape.rank != 2)
    return GRT_ERROR(INVALID_ARGUMENT, "logits must be 2-D, but got shape %s",
                     grt_cpu_shape_str(&f->shape, a));
  if (labels->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "labels must be 1-D, but got shape %s",
                     grt_cpu_shape_str(&labels->shape, a));
  if (f->shape.dims[0] != labels->shape.dims[0])
    return GRT_ERROR(INVALID_ARGUMENT,
                     "logits and labels must have the same first dimension, got logits shape %s "
                     "and labels shape %s",
                     grt_cpu_shape_str(&f->shape, a), grt_cpu_shape_str(&labels->shape, b));
  int64_t rows = f->shape.dims[0], classes = f->shape.dims[1];
  if (classes == 0)
    return GRT_ERROR(INVALID_ARGUMENT, "Must have at least one class, but got logits shape %s",
                     grt_cpu_shape_str(&f->shape, a));
  const void* ld = grt_tensor_data(labels);
  bool is64 = labels->dtype == GRT_INT64;
  for (int64_t i = 0; i < rows; i++) {
    int64_t v = is64 ? ((const int64_t*)ld)[i] : ((const int32_t*)ld)[i];
    if (v < 0 || v >= classes) return bad_label(labels, i, classes);
  }
  grt_tensor* fm;
  bool owned;
  GRT_RETURN_IF_ERROR(as_matrix(ctx, f, rows, classes, &fm, &owned));
  xent_job j = {.f = grt_tensor_data(fm), .labels = ld, .labels64 = is64, .n = classes};
  grt_status* s = run(ctx, t, &j, rows);
  if (owned) grt_tensor_free(fm);
  return s;
}

grt_status* grt_cpu_xent(grt_kernel_ctx* ctx) {
  const grt_tensor* f = ctx->inputs[0];
  const grt_tensor* l = ctx->inputs[1];
  grt_dtype t = f->dtype;
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  if (!grt_dtype_is_float(t)) return grt_cpu_no_kernel(ctx, t);
  if (l->dtype != t)
    return GRT_ERROR(INVALID_ARGUMENT, "features are %s but labels are %s", grt_dtype_name(t),
                     grt_dtype_name(l->dtype));
  grt_cpu_bcast plan;
  grt_status* s = grt_cpu_bcast_make(&f->shape, &l->shape, &plan);
  if (s) {
    grt_status_free(s);
    return GRT_ERROR(INVALID_ARGUMENT,
                     "logits and labels must be broadcastable: logits_size=%s labels_size=%s",
                     grt_cpu_shape_str(&f->shape, a), grt_cpu_shape_str(&l->shape, b));
  }
  if (plan.out.rank != 2)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "logits and labels must be either 2-dimensional, or broadcasted to be "
                     "2-dimensional");
  int64_t rows = plan.out.dims[0], classes = plan.out.dims[1];
  grt_tensor *fm = NULL, *lm = NULL;
  bool f_owned = false, l_owned = false;
  s = as_matrix(ctx, f, rows, classes, &fm, &f_owned);
  if (!s) s = as_matrix(ctx, l, rows, classes, &lm, &l_owned);
  if (!s) {
    xent_job j = {.f = grt_tensor_data(fm), .l = grt_tensor_data(lm), .n = classes};
    s = run(ctx, t, &j, rows);
  }
  if (f_owned) grt_tensor_free(fm);
  if (l_owned) grt_tensor_free(lm);
  return s;
}
