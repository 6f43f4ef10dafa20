/* Sigmoid and SiLU rows (act_rows.h). */
#include "backends/cpu/act_rows.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "backends/cpu/cpu_util.h"
#include "base/threadpool.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define ACT_X86 1
#include <immintrin.h>
#endif

GRT_CPU_VECTORIZE

typedef void (*act_row_fn)(float* x, int64_t n);

/* ---- portable: grt_cpu_expf and a division ------------------------------ */

/* As sigmoid16 below: from e^-|x|, so that nothing overflows. */
static inline float sigmoid1(float x) {
  float e = grt_cpu_expf(-__builtin_fabsf(x));
  float y = 1.0f / (1.0f + e);
  return grt_cpu_select_f(x < 0, e * y, y);
}

GRT_CPU_CLONES static void sigmoid_portable(float* x, int64_t n) {
  for (int64_t i = 0; i < n; i++) x[i] = sigmoid1(x[i]);
}

GRT_CPU_CLONES static void swish_portable(float* x, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float e = grt_cpu_expf(-__builtin_fabsf(x[i]));
    float y = x[i] / (1.0f + e);
    x[i] = grt_cpu_select_f(x[i] < 0, e * y, y);
  }
}

/* ---- AVX-512 ------------------------------------------------------------ */

#ifdef ACT_X86
#define V4 __attribute__((target("arch=x86-64-v4")))

/* e = e^-|x| for 16 lanes, and 1 + e in *d. t = -|x| clamped at -104
 * (e^-104 is below float's least denormal) is n ln2 + r with |r| <= ln2 / 2:
 * n rounded by adding and taking away 1.5 * 2^23, e^r by a degree-6
 * polynomial fitted for least relative error (1.9e-9), 2^n by VSCALEFPS
 * (exact into the denormals). A NaN passes: VMAXPS returns its second
 * operand when either is NaN. */
V4 static inline __m512 exp_neg_abs16(__m512 x, __m512* d) {
  __m512 t = _mm512_or_ps(x, _mm512_set1_ps(-0.0f));
  t = _mm512_max_ps(_mm512_set1_ps(-104.0f), t);
  const __m512 magic = _mm512_set1_ps(12582912.0f);
  __m512 n = _mm512_fmadd_ps(t, _mm512_set1_ps(1.44269504088896341f), magic);
  n = _mm512_sub_ps(n, magic);
  /* ln 2 in two parts: n * 0.693145751953125 is exact for |n| < 2^11. */
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), t);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860682030941723212e-6f), r);
  __m512 p = _mm512_set1_ps(1.383684576e-03f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.374815807e-03f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.166822508e-02f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.666641980e-01f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.999999106e-01f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  __m512 e = _mm512_scalef_ps(p, n);
  *d = _mm512_add_ps(e, _mm512_set1_ps(1.0f));
  return e;
}

/* sigmoid(x) = 1 / (1 + e) for x >= 0 and e / (1 + e) below, so nothing
 * overflows; swish the same times x. The division runs beside the FMAs
 * (a reciprocal estimate with a Newton step measured slower). A NaN stays:
 * the compare for x < 0 is false for it and 1 + e is NaN. */
V4 static inline __m512 sigmoid16(__m512 x) {
  __m512 d, e = exp_neg_abs16(x, &d);
  __m512 y = _mm512_div_ps(_mm512_set1_ps(1.0f), d);
  return _mm512_mask_mul_ps(y, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), e, y);
}

V4 static inline __m512 swish16(__m512 x) {
  __m512 d, e = exp_neg_abs16(x, &d);
  __m512 y = _mm512_div_ps(x, d);
  return _mm512_mask_mul_ps(y, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), e, y);
}

#define ACT_AVX512_ROW(name, F)                                                      \
  V4 static void name(float* x, int64_t n) {                                         \
    int64_t i = 0;                                                                   \
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, F(_mm512_loadu_ps(x + i))); \
    if (i < n) {                                                                     \
      __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                \
      _mm512_mask_storeu_ps(x + i, m, F(_mm512_maskz_loadu_ps(m, x + i)));           \
    }                                                                                \
  }

ACT_AVX512_ROW(sigmoid_avx512, sigmoid16)
ACT_AVX512_ROW(swish_avx512, swish16)
#endif

/* ---- choice ------------------------------------------------------------- */

static bool g_portable; /* atomic: grt_cpu_act_force_portable */

void grt_cpu_act_force_portable(bool portable) {
  __atomic_store_n(&g_portable, portable, __ATOMIC_RELAXED);
}

static act_row_fn pick(grt_cpu_act act) {
#ifdef ACT_X86
  if (!__atomic_load_n(&g_portable, __ATOMIC_RELAXED) && grt_cpu_vector_width_runs(16))
    return act == GRT_CPU_ACT_SWISH ? swish_avx512 : sigmoid_avx512;
#endif
  return act == GRT_CPU_ACT_SWISH ? swish_portable : sigmoid_portable;
}

void grt_cpu_act_row(grt_cpu_act act, float* x, int64_t n) {
  if (n > 0) pick(act)(x, n);
}

typedef struct {
  act_row_fn fn;
  float* x;
  int64_t n, parts;
} rows_job;

static void rows_part(void* arg, int64_t p0, int64_t p1) {
  const rows_job* j = arg;
  /* Part boundaries on whole 64-byte lines, so no two threads write one. */
  int64_t lines = (j->n + 15) / 16;
  int64_t i0 = p0 * lines / j->parts * 16, i1 = p1 * lines / j->parts * 16;
  if (i1 > j->n) i1 = j->n;
  if (i1 > i0) j->fn(j->x + i0, i1 - i0);
}

void grt_cpu_act_rows_parallel(struct grt_threadpool* pool, int team, grt_cpu_act act, float* x,
                               int64_t n) {
  if (n <= 0) return;
  act_row_fn fn = pick(act);
  if (team <= 1 || !pool || n < 2048) {
    fn(x, n);
    return;
  }
  rows_job j = {fn, x, n, team};
  /* One part per thread: a cost this high per unit is never run inline. */
  grt_parallel_for_coarse(pool, team, INT64_C(1) << 30, rows_part, &j);
}

/* ---- rows and channel means --------------------------------------------- */

typedef struct {
  act_row_fn fn; /* NULL: no activation */
  float* x;
  int64_t batch, positions, c, parts;
  double* partial; /* per part: batch * c sums */
} mean_job;

/* Positions per block: a block's rows stay in L1 between the activation
 * and the sums. The float sums go into the double ones every kFlushRows
 * rows (64 floats' rounding at most between flushes). */
enum { kMeanBlockFloats = 2048, kFlushRows = 64, kMaxFloatSums = 4096 };

/* acc[k] += the sum of rows[r * c + k] over r < n. Cloned for AVX-512 and
 * AVX2: at the baseline's 4-wide SSE these sums were ~2% of
 * efficientnet_b0's samples at batch 1 and moved by half with the code's
 * placement between builds (perf, cycles sampled in add_rows). Each
 * channel's sum runs over the rows in the same order at every width. */
GRT_CPU_CLONES static void add_rows(const float* rows, int64_t n, int64_t c, float* sum,
                                    double* acc) {
  if (c > kMaxFloatSums) {
    for (int64_t r = 0; r < n; r++)
      for (int64_t k = 0; k < c; k++) acc[k] += rows[r * c + k];
    return;
  }
  for (int64_t r0 = 0; r0 < n; r0 += kFlushRows) {
    int64_t r1 = r0 + kFlushRows < n ? r0 + kFlushRows : n;
    for (int64_t k = 0; k < c; k++) sum[k] = rows[r0 * c + k];
    for (int64_t r = r0 + 1; r < r1; r++)
      for (int64_t k = 0; k < c; k++) sum[k] += rows[r * c + k];
    for (int64_t k = 0; k < c; k++) acc[k] += sum[k];
  }
}

void grt_cpu_channel_sums(const float* rows, int64_t n, int64_t c, double* acc) {
  float sum[kMaxFloatSums];
  add_rows(rows, n, c, sum, acc);
}

static void mean_part(void* arg, int64_t p0, int64_t p1) {
  const mean_job* j = arg;
  int64_t total = j->batch * j->positions, c = j->c;
  float sum[kMaxFloatSums];
  for (int64_t part = p0; part < p1; part++) {
    double* acc = j->partial + part * j->batch * c;
    for (int64_t k = 0; k < j->batch * c; k++) acc[k] = 0;
    int64_t q0 = part * total / j->parts, q1 = (part + 1) * total / j->parts;
    while (q0 < q1) {
      /* A run of rows within one batch element: activated a block at a
       * time, summed (without an activation, summed whole). */
      int64_t b = q0 / j->positions, end = (b + 1) * j->positions;
      int64_t q = end < q1 ? end : q1;
      if (j->fn) {
        int64_t block = kMeanBlockFloats / c > kFlushRows ? kMeanBlockFloats / c : kFlushRows;
        for (int64_t r = q0; r < q; r += block) {
          int64_t n = r + block < q ? block : q - r;
          j->fn(j->x + r * c, n * c);
          add_rows(j->x + r * c, n, c, sum, acc + b * c);
        }
      } else {
        add_rows(j->x + q0 * c, q - q0, c, sum, acc + b * c);
      }
      q0 = q;
    }
  }
}

void grt_cpu_act_rows_mean_parallel(struct grt_threadpool* pool, int team, bool apply,
                                    grt_cpu_act act, float* x, int64_t batch, int64_t positions,
                                    int64_t c, double* partial, float* means) {
  if (batch <= 0 || c <= 0) return;
  int64_t n = batch * positions * c;
  if (team < 1 || !pool || n < 2048) team = 1;
  mean_job j = {apply ? pick(act) : NULL, x, batch, positions, c, team, partial};
  if (positions > 0) {
    if (team == 1)
      mean_part(&j, 0, 1);
    else
      grt_parallel_for_coarse(pool, team, INT64_C(1) << 30, mean_part, &j);
  }
  grt_cpu_channel_means(partial, team, batch * c, positions, means);
}

void grt_cpu_channel_means(const double* partial, int64_t parts, int64_t per, int64_t positions,
                           float* means) {
  for (int64_t k = 0; k < per; k++) {
    double s = 0;
    for (int64_t p = 0; positions > 0 && p < parts; p++) s += partial[p * per + k];
    means[k] = positions > 0 ? (float)(s / (double)positions) : NAN;
  }
}
