/* One row times a matrix (matmul_gemv.h): out[j] = act(sum_k a[k] b[k, j]
 * + bias[j]), b read where it lies.
 *
 * Why: at batch 1 a classifier's layer (mobilenet_v2's and
 * efficientnet_b0's 1280 -> 1000: 5.1 MB of weights) reads each weight
 * once, from memory, since the rest of the run evicted it; the time is
 * the weights' stream. oneDNN's matmul on its packed copy of the weights
 * took 161 and 213 µs there (per-node minima in the two models, batch 1,
 * 2 threads); reading the graph's own layout in order, one stream per
 * thread, 115 and 186 (bench/models/PROFILE.md).
 *
 * Each thread takes one contiguous run of b's rows and reads it in order,
 * a row after the other: one stream the prefetcher follows. Reading four
 * rows at a time (four streams, one pass over a) took 171 µs against 140
 * in mobilenet_v2.
 * - b [n, k] (transpose_b, as ONNX's Gemm and torch's Linear store it):
 *   each output is a dot product of a with one row of b (four
 *   accumulators along the row); a thread's rows are a run of outputs,
 *   and it adds their bias and activation while they are in cache.
 * - b [k, n]: row i of b times a[i] is summed into the thread's n sums (in
 *   L1 for a classifier's n); the first thread's sums are the output, the
 *   others' are added to it in thread order, then bias and activation.
 * The vector width follows the CPU (16, 8 or 4 floats), as the depthwise
 * kernel's (conv_depthwise.c). */
#include "backends/cpu/matmul_gemv.h"

#include <stdint.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/dnnl_util.h"
#include "backends/cpu/vec_types.h"
#include "base/tensor.h"
#include "base/threadpool.h"

GRT_CPU_VECTORIZE

/* The sums want fused multiply-adds: ISO C mode (-std=c11) turns
 * contraction off. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC optimize("fp-contract=fast")
#define GEMV_X86 1
#endif

typedef struct {
  const grt_mm_call* c;
  int64_t parts;
  int width;       /* floats per vector of the copy that runs */
  float* partials; /* the [k, n] form: parts - 1 rows of n sums (part 0's are out) */
} gemv_job;

/* Rows [r0, r1) of b [n, k] dotted with a, into out[r0, r1); and rows
 * [i0, i1) of b [k, n] times a's elements [i0, i1), summed into acc[0,
 * n); with vectors of W floats. */
#define GEMV_KERNELS(W, VF)                                                                  \
  __attribute__((always_inline)) static inline void dots_##W(                                \
      const float* a, const float* b, int64_t k, int64_t r0, int64_t r1, float* out) {       \
    const int64_t kv = k / W * W;                                                            \
    for (int64_t r = r0; r < r1; r++) {                                                      \
      const float* br = b + r * k;                                                           \
      VF s0 = {0};                                                                           \
      int64_t i = 0;                                                                         \
      for (; i < kv; i += W) s0 += *(const VF*)(br + i) * *(const VF*)(a + i);               \
      float t = 0.0f;                                                                        \
      for (int l = 0; l < W; l++) t += s0[l];                                                \
      for (; i < k; i++) t += br[i] * a[i];                                                  \
      out[r] = t;                                                                            \
    }                                                                                        \
  }                                                                                          \
                                                                                             \
  __attribute__((always_inline)) static inline void rows_##W(                                \
      const float* a, const float* b, int64_t n, int64_t i0, int64_t i1, float* acc) {       \
    const int64_t nv = n / W * W;                                                            \
    for (int64_t j = 0; j < n; j++) acc[j] = 0.0f;                                           \
    for (int64_t i = i0; i < i1; i++) {                                                      \
      const float* bi = b + i * n;                                                           \
      const float x = a[i];                                                                  \
      int64_t j = 0;                                                                         \
      for (; j < nv; j += W) *(VF*)(acc + j) += x * *(const VF*)(bi + j);                    \
      for (; j < n; j++) acc[j] += x * bi[j];                                                \
    }                                                                                        \
  }                                                                                          \
                                                                                             \
  __attribute__((always_inline)) static inline void part_##W(const gemv_job* j, int64_t p) { \
    const grt_mm_call* c = j->c;                                                             \
    if (c->tb)                                                                               \
      dots_##W(c->a, c->b, c->k, p * c->n / j->parts, (p + 1) * c->n / j->parts, c->out);    \
    else                                                                                     \
      rows_##W(c->a, c->b, c->n, p * c->k / j->parts, (p + 1) * c->k / j->parts,             \
               p ? j->partials + (p - 1) * c->n : c->out);                                   \
  }

GEMV_KERNELS(4, vf4)
static void part_base(const gemv_job* j, int64_t p) { part_4(j, p); }

#ifdef GEMV_X86
GEMV_KERNELS(16, vf16)
GEMV_KERNELS(8, vf8)
__attribute__((target("arch=x86-64-v4"))) static void part_v4(const gemv_job* j, int64_t p) {
  part_16(j, p);
}
__attribute__((target("arch=x86-64-v3"))) static void part_v3(const gemv_job* j, int64_t p) {
  part_8(j, p);
}
#endif

static int g_force_width; /* atomic; 0: the widest the CPU runs */

int grt_mm_gemv_force_width(int width) {
  if (!grt_cpu_vector_width_runs(width)) return -1;
  __atomic_store_n(&g_force_width, width, __ATOMIC_RELAXED);
  return 0;
}

static void run_parts(void* arg, int64_t p0, int64_t p1) {
  const gemv_job* j = arg;
  const grt_mm_call* c = j->c;
  for (int64_t p = p0; p < p1; p++) {
#ifdef GEMV_X86
    if (j->width == 16)
      part_v4(j, p);
    else if (j->width == 8)
      part_v3(j, p);
    else
#endif
      part_base(j, p);
    /* The [n, k] form: the bias and activation on the part's outputs,
     * still in cache. */
    int64_t lo = p * c->n / j->parts, hi = (p + 1) * c->n / j->parts;
    if (c->tb && c->bias && hi > lo)
      grt_mm_activate_row(c->act, c->bias + lo, c->out + lo, hi - lo);
  }
}

grt_status* grt_mm_gemv_run(grt_kernel_ctx* ctx, const grt_mm_call* c) {
  gemv_job j = {c, grt_dnnl_team(ctx, grt_mm_team_work(1, c->k, c->n)),
                grt_cpu_vector_width(__atomic_load_n(&g_force_width, __ATOMIC_RELAXED)), NULL};
#ifndef GEMV_X86
  j.width = 4;
#endif
  /* Parts of at least one row of b each: outputs ([n, k]) or a's elements
   * ([k, n]). */
  const int64_t rows = c->tb ? c->n : c->k;
  if (j.parts > rows) j.parts = rows;
  if (j.parts < 1) j.parts = 1;
  grt_tensor* partials = NULL;
  if (!c->tb && j.parts > 1) {
    grt_shape ps = {1, {(j.parts - 1) * c->n}};
    GRT_RETURN_IF_ERROR(grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &ps, &partials));
    j.partials = grt_tensor_data(partials);
  }
  /* One part per thread: a cost this high per unit is never run inline. */
  grt_parallel_for_coarse(j.parts > 1 ? ctx->intra_op : NULL, j.parts, INT64_C(1) << 30, run_parts,
                          &j);
  if (!c->tb) { /* the parts' sums in part order, then bias and activation */
    for (int64_t p = 1; p < j.parts; p++) {
      const float* s = j.partials + (p - 1) * c->n;
      for (int64_t i = 0; i < c->n; i++) c->out[i] += s[i];
    }
    if (c->bias) grt_mm_activate_row(c->act, c->bias, c->out, c->n);
  }
  grt_tensor_free(partials);
  return NULL;
}
