/* Reducing over axes (reduce.h).
 *
 * The input's dimensions are simplified first: size-1 dimensions dropped,
 * neighbours that are both reduced or both kept merged. What is left
 * alternates kept / reduced, and is reduced one reduced group at a time,
 * innermost first, each pass seeing the data as [A, B, C] and reducing B:
 * C == 1 is a row reduction (16 independent accumulators, so it
 * vectorises), C > 1 a column reduction (whole rows combined into the
 * output row). A long B with a small output is cut into blocks whose
 * partial results are reduced again; the blocks depend only on the shape,
 * so results do not depend on the thread count. */
#include <math.h>
#include <string.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/reduce.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* Reduces x[b * C + c] over b in [0, B) for c in [c0, c1) into out[c]. */
typedef void (*red_fn)(const void* x, int64_t B, int64_t C, int64_t c0, int64_t c1, void* out);

#define LANES 16

#define RED_FN(name, T, INIT, COMBINE)                                                       \
  static void name(const void* xv, int64_t B, int64_t C, int64_t c0, int64_t c1, void* ov) { \
    const T* restrict x = xv;                                                                \
    T* restrict out = ov;                                                                    \
    if (C == 1) {                                                                            \
      T acc[LANES];                                                                          \
      for (int j = 0; j < LANES; j++) acc[j] = (INIT);                                       \
      int64_t i = 0;                                                                         \
      for (; i + LANES <= B; i += LANES)                                                     \
        for (int j = 0; j < LANES; j++) {                                                    \
          const T a = acc[j], v = x[i + j];                                                  \
          acc[j] = (COMBINE);                                                                \
        }                                                                                    \
      T r = (INIT);                                                                          \
      for (int j = 0; j < LANES; j++) {                                                      \
        const T a = r, v = acc[j];                                                           \
        r = (COMBINE);                                                                       \
      }                                                                                      \
      for (; i < B; i++) {                                                                   \
        const T a = r, v = x[i];                                                             \
        r = (COMBINE);                                                                       \
      }                                                                                      \
      out[0] = r;                                                                            \
      return;                                                                                \
    }                                                                                        \
    for (int64_t c = c0; c < c1; c++) out[c] = (INIT);                                       \
    /* Four rows a pass: one load and store of the output row per four                       \
     * input rows (the output row's loads and stores bound the loop). */                     \
    int64_t b = 0;                                                                           \
    for (; b + 4 <= B; b += 4) {                                                             \
      const T* restrict r0 = x + b * C;                                                      \
      const T* restrict r1 = r0 + C;                                                         \
      const T* restrict r2 = r1 + C;                                                         \
      const T* restrict r3 = r2 + C;                                                         \
      for (int64_t c = c0; c < c1; c++) {                                                    \
        T p, q;                                                                              \
        {                                                                                    \
          const T a = r0[c], v = r1[c];                                                      \
          p = (COMBINE);                                                                     \
        }                                                                                    \
        {                                                                                    \
          const T a = r2[c], v = r3[c];                                                      \
          q = (COMBINE);                                                                     \
        }                                                                                    \
        {                                                                                    \
          const T a = p, v = q;                                                              \
          p = (COMBINE);                                                                     \
        }                                                                                    \
        const T a = out[c], v = p;                                                           \
        out[c] = (COMBINE);                                                                  \
      }                                                                                      \
    }                                                                                        \
    for (; b < B; b++) {                                                                     \
      const T* restrict row = x + b * C;                                                     \
      for (int64_t c = c0; c < c1; c++) {                                                    \
        const T a = out[c], v = row[c];                                                      \
        out[c] = (COMBINE);                                                                  \
      }                                                                                      \
    }                                                                                        \
  }

/* Per dtype: the four reducers, filling with an identity, dividing by a
 * count (Mean). Integer arithmetic wraps through the unsigned type W. */
typedef struct {
  red_fn fn[4];
  void (*fill)(void* out, int64_t n, grt_cpu_reducer r);
  void (*divide)(void* out, int64_t n, int64_t count);
} red_table;

#define FLOAT_REDUCERS(sfx, T, INF)                                \
  RED_FN(sum_##sfx, T, 0, a + v)                                   \
  RED_FN(prod_##sfx, T, 1, a* v)                                   \
  RED_FN(max_##sfx, T, -(INF), (v > a || v != v) ? v : a)          \
  RED_FN(min_##sfx, T, (INF), (v < a || v != v) ? v : a)           \
  static void fill_##sfx(void* ov, int64_t n, grt_cpu_reducer r) { \
    T* out = ov;                                                   \
    T v = r == GRT_CPU_REDUCE_PROD   ? (T)1                        \
          : r == GRT_CPU_REDUCE_MAX  ? -(INF)                      \
          : r == GRT_CPU_REDUCE_MIN  ? (INF)                       \
          : r == GRT_CPU_REDUCE_MEAN ? (T)NAN                      \
                                     : (T)0;                       \
    for (int64_t i = 0; i < n; i++) out[i] = v;                    \
  }                                                                \
  static void divide_##sfx(void* ov, int64_t n, int64_t count) {   \
    T* restrict out = ov;                                          \
    const T d = (T)count;                                          \
    for (int64_t i = 0; i < n; i++) out[i] = out[i] / d;           \
  }                                                                \
  static const red_table kTable_##sfx = {                          \
      {sum_##sfx, prod_##sfx, max_##sfx, min_##sfx}, fill_##sfx, divide_##sfx};

#define INT_REDUCERS(sfx, T, W, LO, HI)                                    \
  RED_FN(sum_##sfx, T, 0, (T)((W)a + (W)v))                                \
  RED_FN(prod_##sfx, T, 1, (T)((W)a * (W)v))                               \
  RED_FN(max_##sfx, T, (LO), v > a ? v : a)                                \
  RED_FN(min_##sfx, T, (HI), v < a ? v : a)                                \
  static void fill_##sfx(void* ov, int64_t n, grt_cpu_reducer r) {         \
    T* out = ov;                                                           \
    T v = r == GRT_CPU_REDUCE_PROD  ? (T)1                                 \
          : r == GRT_CPU_REDUCE_MAX ? (LO)                                 \
          : r == GRT_CPU_REDUCE_MIN ? (HI)                                 \
                                    : (T)0;                                \
    for (int64_t i = 0; i < n; i++) out[i] = v;                            \
  }                                                                        \
  static void divide_##sfx(void* ov, int64_t n, int64_t count) {           \
    T* restrict out = ov;                                                  \
    for (int64_t i = 0; i < n; i++) out[i] = (T)((int64_t)out[i] / count); \
  }                                                                        \
  static const red_table kTable_##sfx = {                                  \
      {sum_##sfx, prod_##sfx, max_##sfx, min_##sfx}, fill_##sfx, divide_##sfx};

FLOAT_REDUCERS(f32, float, INFINITY)
FLOAT_REDUCERS(f64, double, (double)INFINITY)
INT_REDUCERS(i8, int8_t, uint32_t, INT8_MIN, INT8_MAX)
INT_REDUCERS(i16, int16_t, uint32_t, INT16_MIN, INT16_MAX)
INT_REDUCERS(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX)
INT_REDUCERS(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX)
INT_REDUCERS(u8, uint8_t, uint32_t, 0, UINT8_MAX)

static const red_table* const kTables[GRT_NUM_DTYPES] = {
    [GRT_FLOAT16] = &kTable_f32, [GRT_BFLOAT16] = &kTable_f32, [GRT_FLOAT32] = &kTable_f32,
    [GRT_FLOAT64] = &kTable_f64, [GRT_INT8] = &kTable_i8,      [GRT_INT16] = &kTable_i16,
    [GRT_INT32] = &kTable_i32,   [GRT_INT64] = &kTable_i64,    [GRT_UINT8] = &kTable_u8,
};

/* ---- one pass: [A, B, C] -> [A, C] -------------------------------------- */

/* Columns handled by one unit of work: a row of partial results that
 * stays in L1 while B rows stream past. */
#define COL_CHUNK 2048
/* Elements per block when a long B is cut up. */
#define BLOCK_ELEMS 65536
/* Outputs small enough that cutting B is worth a second pass. */
#define SMALL_OUTPUT 4096

typedef struct {
  red_fn fn;
  size_t es;
  const char* x;
  char* out;
  int64_t A, B, C, n_chunks;
} pass_job;

static void pass_units(void* arg, int64_t u0, int64_t u1) {
  const pass_job* j = arg;
  for (int64_t u = u0; u < u1; u++) {
    int64_t a = u / j->n_chunks, k = u % j->n_chunks;
    int64_t c0 = k * COL_CHUNK, c1 = c0 + COL_CHUNK < j->C ? c0 + COL_CHUNK : j->C;
    j->fn(j->x + (size_t)(a * j->B * j->C) * j->es, j->B, j->C, c0, c1,
          j->out + (size_t)(a * j->C) * j->es);
  }
}

static void run_simple_pass(grt_threadpool* pool, red_fn fn, size_t es, const void* x, int64_t A,
                            int64_t B, int64_t C, void* out) {
  int64_t n_chunks = C == 1 ? 1 : (C + COL_CHUNK - 1) / COL_CHUNK;
  int64_t per_unit = C == 1 ? B : B * (C < COL_CHUNK ? C : COL_CHUNK);
  pass_job j = {fn, es, x, out, A, B, C, n_chunks};
  grt_parallel_for(pool, A * n_chunks, per_unit, pass_units, &j);
}

/* Blocked form: partial[k][a][c] reduces rows [k*R, (k+1)*R) of B. */
typedef struct {
  red_fn fn;
  size_t es;
  const char* x;
  char* partial;
  int64_t A, B, C, R;
} block_job;

static void block_units(void* arg, int64_t u0, int64_t u1) {
  const block_job* j = arg;
  for (int64_t u = u0; u < u1; u++) {
    int64_t k = u / j->A, a = u % j->A;
    int64_t b0 = k * j->R, len = j->B - b0 < j->R ? j->B - b0 : j->R;
    j->fn(j->x + (size_t)((a * j->B + b0) * j->C) * j->es, len, j->C, 0, j->C,
          j->partial + (size_t)((k * j->A + a) * j->C) * j->es);
  }
}

static grt_status* run_pass(grt_kernel_ctx* ctx, red_fn fn, size_t es, const void* x, int64_t A,
                            int64_t B, int64_t C, void* out) {
  int64_t rows_per_block = BLOCK_ELEMS / C > 0 ? BLOCK_ELEMS / C : 1;
  int64_t blocks = (B + rows_per_block - 1) / rows_per_block;
  if (A * C > SMALL_OUTPUT || blocks < 2) {
    run_simple_pass(ctx->intra_op, fn, es, x, A, B, C, out);
    return NULL;
  }
  grt_buffer* buf;
  size_t bytes = (size_t)(blocks * A * C) * es;
  GRT_RETURN_IF_ERROR(grt_buffer_alloc(ctx->allocator, bytes, &buf));
  block_job j = {fn, es, x, buf->data, A, B, C, rows_per_block};
  grt_parallel_for(ctx->intra_op, blocks * A, rows_per_block * C, block_units, &j);
  run_simple_pass(ctx->intra_op, fn, es, buf->data, 1, blocks, A * C, out);
  grt_buffer_unref(buf);
  return NULL;
}

/* ---- the whole reduction ------------------------------------------------ */

grt_status* grt_cpu_reduce(grt_kernel_ctx* ctx, grt_cpu_reducer r, const grt_tensor* in,
                           const bool* reduced, grt_tensor* out) {
  grt_dtype t = in->dtype;
  const red_table* table = grt_dtype_valid(t) ? kTables[t] : NULL;
  if (!table) return grt_cpu_no_kernel(ctx, t);
  bool half = grt_cpu_is_half(t);
  size_t es = half ? sizeof(float) : grt_dtype_size(t);
  int64_t n_out = grt_tensor_num_elements(out);
  int64_t n_in = grt_tensor_num_elements(in);
  red_fn fn = table->fn[r == GRT_CPU_REDUCE_MEAN ? GRT_CPU_REDUCE_SUM : r];

  /* Simplified groups, outermost first. */
  int64_t size[GRT_MAX_RANK];
  bool red[GRT_MAX_RANK];
  int32_t g = 0;
  int64_t count = 1; /* elements reduced into each output */
  for (int32_t i = 0; i < in->shape.rank; i++) {
    int64_t d = in->shape.dims[i];
    if (reduced[i]) count *= d;
    if (d == 1) continue;
    if (g > 0 && red[g - 1] == reduced[i]) {
      size[g - 1] *= d;
    } else {
      size[g] = d;
      red[g] = reduced[i];
      g++;
    }
  }

  grt_status* s = NULL;
  grt_tensor* wide_in = NULL;  /* float32 copy of a half input */
  grt_tensor* wide_out = NULL; /* float32 result for a half output */
  if (half) {
    grt_shape os = grt_shape_make(1, &n_out);
    s = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &os, &wide_out);
    if (!s && n_in > 0) s = grt_cpu_widen_tensor(ctx, in, &wide_in);
    if (s) goto done;
  }
  const void* src = half ? (n_in > 0 ? grt_tensor_data(wide_in) : NULL) : grt_tensor_data(in);
  void* dst = half ? grt_tensor_data(wide_out) : grt_tensor_data(out);

  if (n_in == 0) {
    table->fill(dst, n_out, r);
  } else {
    int32_t n_red = 0;
    for (int32_t k = 0; k < g; k++) n_red += red[k];
    if (n_red == 0) memcpy(dst, src, (size_t)n_out * es);
    grt_buffer* prev = NULL; /* the intermediate `src` points into, if any */
    while (n_red > 0) {
      int32_t k = g - 1;
      while (!red[k]) k--;
      int64_t A = 1, C = 1;
      for (int32_t i = 0; i < k; i++) A *= size[i];
      for (int32_t i = k + 1; i < g; i++) C *= size[i];
      grt_buffer* next = NULL;
      void* target = dst;
      if (n_red > 1) {
        s = grt_buffer_alloc(ctx->allocator, (size_t)(A * C) * es, &next);
        if (s) {
          grt_buffer_unref(prev);
          goto done;
        }
        target = next->data;
      }
      s = run_pass(ctx, fn, es, src, A, size[k], C, target);
      grt_buffer_unref(prev);
      if (s) {
        grt_buffer_unref(next);
        goto done;
      }
      prev = next;
      src = target;
      /* Drop group k; its kept neighbours become one group. */
      if (k + 1 < g && k > 0) {
        size[k - 1] *= size[k + 1];
        for (int32_t i = k; i + 2 < g; i++) {
          size[i] = size[i + 2];
          red[i] = red[i + 2];
        }
        g -= 2;
      } else {
        for (int32_t i = k; i + 1 < g; i++) {
          size[i] = size[i + 1];
          red[i] = red[i + 1];
        }
        g -= 1;
      }
      n_red--;
    }
    if (r == GRT_CPU_REDUCE_MEAN) table->divide(dst, n_out, count);
  }
  if (half) grt_cpu_narrow(t, grt_tensor_data(wide_out), grt_tensor_data(out), n_out);
done:
  grt_tensor_free(wide_in);
  grt_tensor_free(wide_out);
  return s;
}
