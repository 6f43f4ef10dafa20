/* grt's own direct convolution for few input channels (conv_stem.h):
 * NCHW input, HWIO filter, NHWC output, float32, dilation 1, with bias,
 * residual and activation fused.
 *
 * Why: every ONNX CNN starts with a convolution on the 3-channel NCHW
 * image. The layout pass runs the convolutions in NHWC for oneDNN, so the
 * image was first transposed (about 0.1 ms at batch 1) and then convolved
 * by oneDNN's brgconv, which is slow on 3 channels (its reductions run
 * over channel vectors); oneDNN has no kernel reading nchw and writing
 * nhwc but its reference one (DNNL.md). Here each output vector is the
 * sum over the window's taps and the few input channels of one input value
 * (broadcast) times one filter vector: the filter's HWIO layout has the
 * output channels innermost, so its vectors are plain loads, and the NCHW
 * input's values are scalars wherever they lie, so no layout change is
 * needed on either side.
 *
 * The work is the output rows (batch x output rows), cut into one block
 * per thread of a team sized as oneDNN's are. Within a row, output
 * channels go in vectors (16 floats with AVX-512, 8 with AVX2, 4 at the
 * baseline; the remainder in a scalar loop), in groups of up to 4 vectors,
 * and the outputs in tiles: a few outputs x a group's vectors summed in
 * registers; per tap and input channel one filter vector is loaded per
 * block and one input broadcast per output, each used by the whole tile.
 * The taps and input channels are loops, not unrolled: unrolled (7 x 3
 * taps of 24 multiply-adds), GCC 12 kept the accumulators on the stack and
 * the 7x7 stem ran at half oneDNN's speed; as loops they stay in
 * registers. Outputs whose windows cross the left or right
 * padding are tiles of one output over the taps inside the input; rows
 * crossing the top or bottom padding sum fewer filter rows. The bias (and
 * the residual, which the caller copied into the output) start the sums;
 * Relu, LeakyRelu and Relu6 are applied in registers, the other
 * activations over the finished row while it is in cache.
 *
 * The three widths are the same code (STEM_KERNELS) compiled for the
 * x86-64-v4 and -v3 levels (both with FMA) and the baseline, chosen per
 * call, as the depthwise kernel's are (conv_depthwise.c). */
#include "backends/cpu/conv_stem.h"

#include <math.h>
#include <stdint.h>

#include "backends/cpu/act_rows.h"
#include "backends/cpu/conv_tile.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/vec_types.h"

GRT_CPU_VECTORIZE

/* The sums want fused multiply-adds: ISO C mode (-std=c11) turns
 * contraction off. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC optimize("fp-contract=fast")
#define STEM_X86 1
#endif

typedef struct {
  const grt_cpu_conv* g;
  const float* in;
  const float* filter;
  const grt_cpu_dw_epilogue* e;
  float* out;
} stem_job;
typedef void (*stem_rows_fn)(const stem_job* j, int64_t r0, int64_t r1);

/* ---- activations ------------------------------------------------------- */

/* The activations other than the clips (applied in registers), over a
 * finished output row. */
typedef void (*stem_act_row)(float* o, int64_t n);

static void act_sigmoid(float* o, int64_t n) { grt_cpu_act_row(GRT_CPU_ACT_SIGMOID, o, n); }
static void act_swish(float* o, int64_t n) { grt_cpu_act_row(GRT_CPU_ACT_SWISH, o, n); }
GRT_CPU_CLONES static void act_tanh(float* o, int64_t n) {
  for (int64_t i = 0; i < n; i++) o[i] = grt_cpu_tanhf(o[i]);
}
GRT_CPU_CLONES static void act_hardswish(float* o, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float v = grt_cpu_select_f(o[i] + 3.0f > 0, o[i] + 3.0f, 0.0f);
    v = grt_cpu_select_f(v < 6, v, 6.0f);
    o[i] = o[i] * v * (1.0f / 6.0f);
  }
}
static void act_elu(float* o, int64_t n) {
  for (int64_t i = 0; i < n; i++) o[i] = o[i] > 0 ? o[i] : expm1f(o[i]);
}

static const stem_act_row kActRows[] = {
    [GRT_DW_ACT_NONE] = NULL,       [GRT_DW_ACT_RELU] = NULL,
    [GRT_DW_ACT_RELU6] = NULL,      [GRT_DW_ACT_SIGMOID] = act_sigmoid,
    [GRT_DW_ACT_TANH] = act_tanh,   [GRT_DW_ACT_HARDSWISH] = act_hardswish,
    [GRT_DW_ACT_SWISH] = act_swish, [GRT_DW_ACT_ELU] = act_elu,
    [GRT_DW_ACT_OTHER] = NULL,
};

/* ---- geometry ----------------------------------------------------------- */

/* The taps [*k0, *k1) of a window of k taps at output position o whose
 * input position o * s - pad + tap lies in [0, n). */
static inline void taps_inside(int64_t o, int64_t s, int64_t pad, int64_t k, int64_t n, int64_t* k0,
                               int64_t* k1) {
  int64_t start = o * s - pad;
  int64_t lo = start < 0 ? -start : 0;
  int64_t hi = start >= n ? 0 : n - start;
  if (hi > k) hi = k;
  if (lo > hi) lo = hi;
  *k0 = lo;
  *k1 = hi;
}

/* The outputs [*x0, *x1) of a row whose every tap lies inside the input. */
static inline void interior(const grt_cpu_conv* g, int64_t* x0, int64_t* x1) {
  int64_t s = g->w.strides[1], pad = g->pad_l[1];
  int64_t lo = pad <= 0 ? 0 : (pad + s - 1) / s;
  if (lo > g->ow) lo = g->ow;
  int64_t last = g->iw - g->kw + pad; /* the last start, times s */
  int64_t hi = last < 0 ? 0 : last / s + 1;
  if (hi > g->ow) hi = g->ow;
  if (hi < lo) hi = lo;
  *x0 = lo;
  *x1 = hi;
}

/* Output channels [c, OC) of one output by scalar loops: x at input
 * channel 0 of the first tap inside the input, f at that tap's filter row
 * (input channel 0, output channel 0), nky x nkx taps. */
static void stem_tail(const float* x, const float* f, int64_t nky, int64_t nkx, int64_t ic,
                      int64_t plane, int64_t iw, int64_t fs, int64_t c, int64_t OC,
                      const grt_cpu_dw_epilogue* e, float* o) {
  for (; c < OC; c++) {
    float acc = (e->bias ? e->bias[c] : 0.0f) + (e->residual ? o[c] : 0.0f);
    for (int64_t ky = 0; ky < nky; ky++)
      for (int64_t kx = 0; kx < nkx; kx++)
        for (int64_t ci = 0; ci < ic; ci++)
          acc += x[ci * plane + ky * iw + kx] * f[ky * fs + (kx * ic + ci) * OC + c];
    if (e->act == GRT_DW_ACT_RELU) acc = acc > 0 ? acc : acc * e->alpha;
    if (e->act == GRT_DW_ACT_RELU6) acc = acc > 0 ? (acc < 6 ? acc : 6.0f) : 0.0f;
    o[c] = acc;
  }
}

/* STEM_KERNELS(W, VT, VI, T, M) defines, for vectors VT of W floats (VI
 * their comparison masks), tiles of at most T accumulators and groups of
 * at most M vectors:
 *   stem_tile_W: n outputs x m channel vectors (n m <= T; constants where
 *     inlined): x at input channel 0 of the first output's first tap
 *     inside the input (output i's is i * s further on), f at that tap's
 *     filter (input channel 0, the group's first output channel); nky x
 *     nkx taps over ic input channels; o the first output; bias NULL or
 *     at the group's first channel; clip GRT_DW_ACT_RELU (with alpha) or
 *     GRT_DW_ACT_RELU6 applied before the store (anything else: none);
 *   stem_inner_W: the interior outputs [*ox, x1) of m vectors in tiles of
 *     T / m outputs, then one by one;
 *   stem_group_W: m vectors from channel c over the whole row;
 *   stem_row_W: output row r (batch r / oh, row r % oh), every channel,
 *     then the activations that are not clips over the row.
 * Always inlined, so each is compiled for the target of its caller. */
#define STEM_KERNELS(W, VT, VI, T, M)                                                             \
  __attribute__((always_inline)) static inline void stem_tile_##W(                                \
      int n, int m, const float* x, const float* f, int64_t nky, int64_t nkx, int64_t ic,         \
      int64_t s, int64_t plane, int64_t iw, int64_t fs, int64_t OC, const float* bias,            \
      bool residual, int clip, float alpha, float* o) {                                           \
    VT acc[T];                                                                                    \
    _Pragma("GCC unroll 24") for (int i = 0; i < n; i++) {                                        \
      _Pragma("GCC unroll 4") for (int k = 0; k < m; k++) {                                       \
        acc[i * m + k] = bias ? *(const VT*)(bias + k * W) : (VT){0};                             \
        if (residual) acc[i * m + k] += *(const VT*)(o + i * OC + k * W);                         \
      }                                                                                           \
    }                                                                                             \
    for (int64_t ky = 0; ky < nky; ky++, x += iw, f += fs) {                                      \
      _Pragma("GCC unroll 1") for (int64_t kx = 0; kx < nkx; kx++) {                              \
        _Pragma("GCC unroll 1") for (int64_t ci = 0; ci < ic; ci++) {                             \
          const float* xt = x + ci * plane + kx;                                                  \
          const float* ft = f + (kx * ic + ci) * OC;                                              \
          VT fv[M];                                                                               \
          _Pragma("GCC unroll 4") for (int k = 0; k < m; k++) fv[k] = *(const VT*)(ft + k * W);   \
          _Pragma("GCC unroll 24") for (int i = 0; i < n; i++) {                                  \
            const float xv = xt[i * s];                                                           \
            _Pragma("GCC unroll 4") for (int k = 0; k < m; k++) acc[i * m + k] += xv * fv[k];     \
          }                                                                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
    GRT_TILE_FINISH(VT, VI, W, 24, acc, n, m, clip, alpha, o, OC);                                \
  }                                                                                               \
                                                                                                  \
  __attribute__((always_inline)) static inline void stem_inner_##W(                               \
      int m, int64_t* ox, int64_t x1, const float* x, int64_t pad, const float* f, int64_t nky,   \
      int64_t ic, int64_t kw, int64_t s, int64_t plane, int64_t iw, int64_t fs, int64_t OC,       \
      const float* bias, bool residual, int clip, float alpha, float* o) {                        \
    const int n = T / m;                                                                          \
    for (; *ox + n <= x1; *ox += n)                                                               \
      stem_tile_##W(n, m, x + (*ox * s - pad), f, nky, kw, ic, s, plane, iw, fs, OC, bias,        \
                    residual, clip, alpha, o + *ox * OC);                                         \
    /* The rest in a tile of n / 2 and one of n / 4 where they fit, then                          \
     * one by one: a lone output's sums wait on each other. */                                    \
    _Pragma("GCC unroll 8") for (int h = n / 2; h > 1; h /= 2) if (*ox + h <= x1) {               \
      stem_tile_##W(h, m, x + (*ox * s - pad), f, nky, kw, ic, s, plane, iw, fs, OC, bias,        \
                    residual, clip, alpha, o + *ox * OC);                                         \
      *ox += h;                                                                                   \
    }                                                                                             \
    for (; *ox < x1; *ox += 1)                                                                    \
      stem_tile_##W(1, m, x + (*ox * s - pad), f, nky, kw, ic, s, plane, iw, fs, OC, bias,        \
                    residual, clip, alpha, o + *ox * OC);                                         \
  }                                                                                               \
                                                                                                  \
  __attribute__((always_inline)) static inline void stem_group_##W(                               \
      int m, const grt_cpu_conv* g, const grt_cpu_dw_epilogue* e, const float* in,                \
      const float* fk, int64_t nky, int64_t x0, int64_t x1, int64_t c, float* o) {                \
    const int64_t OC = g->oc, ic = g->ic, s = g->w.strides[1], kw = g->kw, iw = g->iw;            \
    const int64_t plane = g->ih * iw, fs = kw * ic * OC, pw = g->pad_l[1];                        \
    const float* bias = e->bias ? e->bias + c : NULL;                                             \
    const bool r = e->residual;                                                                   \
    const int clip = e->act;                                                                      \
    const float a = e->alpha;                                                                     \
    const float* fc = fk + c;                                                                     \
    float* oc = o + c;                                                                            \
    int64_t ox = 0;                                                                               \
    for (int pass = 0; pass < 2; pass++) {                                                        \
      /* The outputs before the interior (pass 0) and after it. */                                \
      for (int64_t end = pass ? g->ow : x0; ox < end; ox++) {                                     \
        int64_t kx0, kx1;                                                                         \
        taps_inside(ox, s, pw, kw, iw, &kx0, &kx1);                                               \
        int64_t col = kx1 > kx0 ? ox * s - pw + kx0 : 0;                                          \
        stem_tile_##W(1, m, in + col, fc + kx0 * ic * OC, nky, kx1 - kx0, ic, s, plane, iw, fs,   \
                      OC, bias, r, clip, a, oc + ox * OC);                                        \
      }                                                                                           \
      if (pass) break;                                                                            \
      stem_inner_##W(m, &ox, x1, in, pw, fc, nky, ic, kw, s, plane, iw, fs, OC, bias, r, clip, a, \
                     oc);                                                                         \
    }                                                                                             \
  }                                                                                               \
                                                                                                  \
  __attribute__((always_inline)) static inline void stem_row_##W(const stem_job* j, int64_t r) {  \
    const grt_cpu_conv* g = j->g;                                                                 \
    const grt_cpu_dw_epilogue* e = j->e;                                                          \
    const int64_t OC = g->oc, b = r / g->oh, oy = r % g->oh, sh = g->w.strides[0];                \
    int64_t ky0, ky1, x0, x1;                                                                     \
    taps_inside(oy, sh, g->pad_l[0], g->kh, g->ih, &ky0, &ky1);                                   \
    interior(g, &x0, &x1);                                                                        \
    const int64_t nky = ky1 - ky0, fs = g->kw * g->ic * OC;                                       \
    /* The input at channel 0, row ky0's, column 0; the filter at row ky0. */                     \
    const float* in =                                                                             \
        j->in + b * g->ic * g->ih * g->iw + (nky ? oy * sh - g->pad_l[0] + ky0 : 0) * g->iw;      \
    const float* fk = j->filter + ky0 * fs;                                                       \
    float* o = j->out + r * g->ow * OC;                                                           \
    int64_t c = 0;                                                                                \
    for (; c + M * W <= OC; c += M * W) stem_group_##W(M, g, e, in, fk, nky, x0, x1, c, o);       \
    if (M > 2 && c + 2 * W <= OC) {                                                               \
      stem_group_##W(2, g, e, in, fk, nky, x0, x1, c, o);                                         \
      c += 2 * W;                                                                                 \
    }                                                                                             \
    if (c + W <= OC) {                                                                            \
      stem_group_##W(1, g, e, in, fk, nky, x0, x1, c, o);                                         \
      c += W;                                                                                     \
    }                                                                                             \
    if (c < OC)                                                                                   \
      for (int64_t ox = 0; ox < g->ow; ox++) {                                                    \
        int64_t kx0, kx1;                                                                         \
        taps_inside(ox, g->w.strides[1], g->pad_l[1], g->kw, g->iw, &kx0, &kx1);                  \
        int64_t col = kx1 > kx0 ? ox * g->w.strides[1] - g->pad_l[1] + kx0 : 0;                   \
        stem_tail(in + col, fk + kx0 * g->ic * OC, nky, kx1 - kx0, g->ic, g->ih * g->iw, g->iw,   \
                  fs, c, OC, e, o + ox * OC);                                                     \
      }                                                                                           \
    if (kActRows[e->act]) kActRows[e->act](o, g->ow * OC);                                        \
  }

/* POINTWISE_KERNELS(W, M) defines, for vectors of W floats (the stem's
 * tiles of that width, STEM_KERNELS, with the 1x1 window's constants):
 *   pointwise_group_W: m vectors from output channel c over a row's
 *     pixels, each pixel's K channels at in + i * K;
 *   pointwise_row_W: output row r (n * oh of them, ow pixels each), every
 *     channel: groups of M, 2 and 1 vectors of W, then PW_NARROW_W (one
 *     vector of each narrower width that fits: a classifier's or a
 *     squeeze-excitation's few channels, 24 or 40, keep to vectors), the
 *     rest scalar; then the activations that are not clips over the row. */
#define POINTWISE_KERNELS(W, M)                                                           \
  __attribute__((always_inline)) static inline void pointwise_group_##W(                  \
      int m, const stem_job* j, const float* in, int64_t c, float* o) {                   \
    const grt_cpu_dw_epilogue* e = j->e;                                                  \
    const int64_t K = j->g->ic;                                                           \
    int64_t ox = 0;                                                                       \
    stem_inner_##W(m, &ox, j->g->ow, in, 0, j->filter + c, 1, K, 1, K, 1, 0, 0, j->g->oc, \
                   e->bias ? e->bias + c : NULL, e->residual, e->act, e->alpha, o + c);   \
  }                                                                                       \
                                                                                          \
  __attribute__((always_inline)) static inline void pointwise_row_##W(const stem_job* j,  \
                                                                      int64_t r) {        \
    const grt_cpu_dw_epilogue* e = j->e;                                                  \
    const int64_t OC = j->g->oc, K = j->g->ic, ow = j->g->ow;                             \
    const float* in = j->in + r * ow * K;                                                 \
    float* o = j->out + r * ow * OC;                                                      \
    int64_t c = 0;                                                                        \
    for (; c + M * W <= OC; c += M * W) pointwise_group_##W(M, j, in, c, o);              \
    if (M > 2 && c + 2 * W <= OC) {                                                       \
      pointwise_group_##W(2, j, in, c, o);                                                \
      c += 2 * W;                                                                         \
    }                                                                                     \
    if (c + W <= OC) {                                                                    \
      pointwise_group_##W(1, j, in, c, o);                                                \
      c += W;                                                                             \
    }                                                                                     \
    PW_NARROW_##W(j, in, c, o, OC);                                                       \
    if (c < OC)                                                                           \
      for (int64_t ox = 0; ox < ow; ox++)                                                 \
        stem_tail(in + ox * K, j->filter, 1, 1, K, 1, 0, 0, c, OC, e, o + ox * OC);       \
    if (kActRows[e->act]) kActRows[e->act](o, ow * OC);                                   \
  }

#define PW_NARROW_4(j, in, c, o, OC) \
  do {                               \
  } while (0)
#define PW_NARROW_8(j, in, c, o, OC)             \
  do {                                           \
    if ((c) + 4 <= (OC)) {                       \
      pointwise_group_4(1, (j), (in), (c), (o)); \
      (c) += 4;                                  \
    }                                            \
  } while (0)
#define PW_NARROW_16(j, in, c, o, OC)            \
  do {                                           \
    if ((c) + 8 <= (OC)) {                       \
      pointwise_group_8(1, (j), (in), (c), (o)); \
      (c) += 8;                                  \
    }                                            \
    PW_NARROW_8(j, in, c, o, OC);                \
  } while (0)

/* The rows functions of one kernel (stem or pointwise) at one width. */
#define STEM_ROWS(KIND, W, SUFFIX, TARGET)                                             \
  TARGET static void KIND##_rows_##SUFFIX(const stem_job* j, int64_t r0, int64_t r1) { \
    for (int64_t r = r0; r < r1; r++) KIND##_row_##W(j, r);                            \
  }

/* Tiles: 24 of the 32 AVX-512 registers (groups of 4 vectors: 6 outputs),
 * 10 of the 16 AVX2 or SSE ones (groups of 2: 5 outputs), leaving room for
 * the filter vectors and the broadcast input. */
STEM_KERNELS(4, vf4, vi4, 10, 2)
POINTWISE_KERNELS(4, 2)
STEM_ROWS(stem, 4, base, )
STEM_ROWS(pointwise, 4, base, )

#ifdef STEM_X86
/* Narrowest first: the wider pointwise rows use the narrower groups. */
STEM_KERNELS(8, vf8, vi8, 10, 2)
POINTWISE_KERNELS(8, 2)
STEM_KERNELS(16, vf16, vi16, 24, 4)
POINTWISE_KERNELS(16, 4)
STEM_ROWS(stem, 16, v4, __attribute__((target("arch=x86-64-v4"))))
STEM_ROWS(stem, 8, v3, __attribute__((target("arch=x86-64-v3"))))
STEM_ROWS(pointwise, 16, v4, __attribute__((target("arch=x86-64-v4"))))
STEM_ROWS(pointwise, 8, v3, __attribute__((target("arch=x86-64-v3"))))
#endif

/* ---- choice and entry ---------------------------------------------------- */

static int64_t g_runs;    /* atomic: grt_cpu_stem_run calls */
static int g_force_width; /* atomic; 0: the widest the CPU runs */

int grt_cpu_stem_force_width(int width) {
  if (!grt_cpu_vector_width_runs(width)) return -1;
  __atomic_store_n(&g_force_width, width, __ATOMIC_RELAXED);
  return 0;
}

int64_t grt_cpu_stem_count(void) { return __atomic_load_n(&g_runs, __ATOMIC_RELAXED); }

/* A kernel's rows functions by width: base, v3 (AVX2), v4 (AVX-512). */
typedef struct {
  stem_rows_fn base, v3, v4;
} stem_rows_set;

#ifdef STEM_X86
static const stem_rows_set kStemRows = {stem_rows_base, stem_rows_v3, stem_rows_v4};
static const stem_rows_set kPointwiseRows = {pointwise_rows_base, pointwise_rows_v3,
                                             pointwise_rows_v4};
#else
static const stem_rows_set kStemRows = {stem_rows_base, NULL, NULL};
static const stem_rows_set kPointwiseRows = {pointwise_rows_base, NULL, NULL};
#endif

static stem_rows_fn pick_rows(const stem_rows_set* set) {
#ifdef STEM_X86
  int w = grt_cpu_vector_width(__atomic_load_n(&g_force_width, __ATOMIC_RELAXED));
  if (w == 16) return set->v4;
  if (w == 8) return set->v3;
#endif
  return set->base;
}

bool grt_cpu_stem_takes(const grt_cpu_conv* g) {
  return !g->w.nchw && g->groups == 1 && g->ic >= 1 && g->ic <= GRT_CPU_STEM_MAX_IC &&
         g->w.dilations[0] == 1 && g->w.dilations[1] == 1 && g->n > 0 && g->oh > 0 && g->ow > 0 &&
         g->oc > 0 && g->ih > 0 && g->iw > 0 && g->kh > 0 && g->kw > 0;
}

/* One call: the job and the rows function of the vector width chosen. */
typedef struct {
  stem_job job;
  stem_rows_fn rows;
} stem_call;

static void stem_call_rows(const void* arg, int64_t r0, int64_t r1) {
  const stem_call* c = arg;
  c->rows(&c->job, r0, r1);
}

void grt_cpu_stem_run(grt_threadpool* pool, const grt_cpu_conv* g, const float* in,
                      const float* filter, const grt_cpu_dw_epilogue* e, float* out) {
  __atomic_add_fetch(&g_runs, 1, __ATOMIC_RELAXED);
  /* Split as grt's depthwise kernel and oneDNN's convolution are. */
  stem_call c = {{g, in, filter, e, out}, pick_rows(&kStemRows)};
  grt_cpu_conv_rows_parallel(pool, g, stem_call_rows, &c);
}

static int64_t g_pointwise_runs; /* atomic: grt_cpu_pointwise_run calls */

int64_t grt_cpu_pointwise_count(void) {
  return __atomic_load_n(&g_pointwise_runs, __ATOMIC_RELAXED);
}

/* An NHWC 1x1 convolution of one group, stride 1, no padding, nothing
 * empty: the geometry the pointwise kernel runs at any depth. */
static bool pointwise_geometry(const grt_cpu_conv* g) {
  return !g->w.nchw && g->groups == 1 && g->kh == 1 && g->kw == 1 && g->w.strides[0] == 1 &&
         g->w.strides[1] == 1 && g->pad_l[0] == 0 && g->pad_l[1] == 0 && g->pad_r[0] == 0 &&
         g->pad_r[1] == 0 && g->ic >= 1 && g->n > 0 && g->oh > 0 && g->ow > 0 && g->oc > 0 &&
         g->ih == g->oh && g->iw == g->ow;
}

bool grt_cpu_pointwise_takes(const grt_cpu_conv* g) {
  return pointwise_geometry(g) &&
         (g->ic <= GRT_CPU_POINTWISE_MAX_IC || grt_cpu_conv_macs(g) <= GRT_CPU_POINTWISE_MAX_MACS);
}

bool grt_cpu_pointwise_takes_scaled(const grt_cpu_conv* g) {
  return grt_cpu_pointwise_takes(g) ||
         (pointwise_geometry(g) && g->ic <= GRT_CPU_POINTWISE_SCALED_MAX_IC &&
          g->oc <= GRT_CPU_POINTWISE_SCALED_MAX_OC);
}

void grt_cpu_pointwise_row(const grt_cpu_conv* g, const float* in, const float* filter,
                           const grt_cpu_dw_epilogue* e, float* out) {
  stem_job j = {g, in, filter, e, out};
  pick_rows (&kPointwiseRows)(&j, 0, 1);
}

void grt_cpu_pointwise_run(grt_threadpool* pool, const grt_cpu_conv* g, const float* in,
                           const float* filter, const grt_cpu_dw_epilogue* e, float* out) {
  __atomic_add_fetch(&g_pointwise_runs, 1, __ATOMIC_RELAXED);
  stem_call c = {{g, in, filter, e, out}, pick_rows(&kPointwiseRows)};
  grt_cpu_conv_rows_parallel(pool, g, stem_call_rows, &c);
}
