/* grt's own depthwise convolution (conv_depthwise.h): NHWC, float32,
 * channel multiplier 1, with bias, residual and activation fused.
 *
 * Why: a depthwise convolution does kh x kw multiply-adds per output
 * element and reads each input element kh x kw / stride^2 times, so it is
 * bound by loads and by the calling overhead, not by arithmetic; per-op
 * profiles put much of mobilenet_v2's and efficientnet_b0's time in oneDNN
 * 2.6's brdgmm_dw kernel (issue 20). Measured in whole models, this
 * kernel is level with it (both wait on memory), so by default oneDNN
 * still runs every shape (grt_cpu_dw_takes; DNNL.md has the figures).
 * Here the filter is read
 * in grt's own layout ([kh, kw, C, 1]: channels innermost, as the NHWC
 * input), so there is nothing to pack, and a Const filter costs nothing
 * per call.
 *
 * The work is the output rows (batch x output rows), cut into one block
 * per thread of a team sized as oneDNN's are (grt_cpu_dw_run). Within a
 * row, channels go in vectors (16 floats with AVX-512, 8 with AVX2, 4 at
 * the baseline; the remainder channels in a scalar loop), in groups of 4,
 * 2 or 1 vectors, and the outputs in tiles: a few outputs x a group's
 * vectors, summed in registers, one filter vector loaded per tap and block
 * and used by every output of the tile. The tile is compiled with the
 * window's width, stride and dilation as constants for the common 3x3 and
 * 5x5, stride 1 and 2, dilation 1 (so the loads of neighbouring outputs
 * that overlap are one load), and with them as variables for the rest. The
 * outputs at the row's ends, whose windows cross the padding, are tiles of
 * one output over the taps inside the input. The bias (and the residual,
 * which the caller copied into the output) start the sums; Relu, LeakyRelu
 * and Relu6 are applied in registers, the other activations over the
 * finished row while it is in cache.
 *
 * The three widths are the same code (DW_KERNELS) compiled for the
 * x86-64-v4 and -v3 levels (both with FMA) and the baseline, chosen per
 * call, as _ScaledDotProductAttention's units are (nn_attention.c). */
#include "backends/cpu/conv_depthwise.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/act_rows.h"
#include "backends/cpu/conv_tile.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/vec_types.h"

GRT_CPU_VECTORIZE

/* The sums want fused multiply-adds: ISO C mode (-std=c11) turns
 * contraction off. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC optimize("fp-contract=fast")
#define DW_X86 1
#endif

typedef struct dw_job dw_job;
typedef void (*dw_rows_fn)(const dw_job* j, int64_t r0, int64_t r1);

struct dw_job {
  const grt_cpu_conv* g;
  const float* in;
  const float* filter;
  const grt_cpu_dw_epilogue* e;
  float* out;
};

/* ---- activations ------------------------------------------------------- */

/* The activations other than the clips (Relu, LeakyRelu, Relu6, which the
 * tiles apply in registers): one row function each, by grt_dw_act. */

typedef void (*dw_act_row)(float* o, int64_t n, float alpha);

static void act_sigmoid(float* o, int64_t n, float alpha) {
  grt_cpu_act_row(GRT_CPU_ACT_SIGMOID, o, n);
}
GRT_CPU_CLONES static void act_tanh(float* o, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) o[i] = grt_cpu_tanhf(o[i]);
}
GRT_CPU_CLONES static void act_hardswish(float* o, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) {
    float v = grt_cpu_select_f(o[i] + 3.0f > 0, o[i] + 3.0f, 0.0f);
    v = grt_cpu_select_f(v < 6, v, 6.0f);
    o[i] = o[i] * v * (1.0f / 6.0f);
  }
}
static void act_swish(float* o, int64_t n, float alpha) {
  grt_cpu_act_row(GRT_CPU_ACT_SWISH, o, n);
}

static const dw_act_row kActRows[] = {
    [GRT_DW_ACT_NONE] = NULL,       [GRT_DW_ACT_RELU] = NULL,
    [GRT_DW_ACT_RELU6] = NULL,      [GRT_DW_ACT_SIGMOID] = act_sigmoid,
    [GRT_DW_ACT_TANH] = act_tanh,   [GRT_DW_ACT_HARDSWISH] = act_hardswish,
    [GRT_DW_ACT_SWISH] = act_swish, [GRT_DW_ACT_ELU] = NULL,
    [GRT_DW_ACT_OTHER] = NULL,
};

/* ---- geometry ----------------------------------------------------------- */

/* The taps [*k0, *k1) of a window of k taps at output position o whose
 * input position o * s - pad + tap * d lies in [0, n). */
static inline void taps_inside(int64_t o, int64_t s, int64_t pad, int64_t d, int64_t k, int64_t n,
                               int64_t* k0, int64_t* k1) {
  int64_t start = o * s - pad;
  int64_t lo = start < 0 ? (-start + d - 1) / d : 0;
  int64_t hi = start >= n ? 0 : (n - 1 - start) / d + 1;
  if (hi > k) hi = k;
  if (lo > hi) lo = hi;
  *k0 = lo;
  *k1 = hi;
}

/* The outputs [*x0, *x1) of a row whose every tap lies inside the input. */
static inline void interior(const grt_cpu_conv* g, int64_t* x0, int64_t* x1) {
  int64_t s = g->w.strides[1], pad = g->pad_l[1];
  int64_t lo = pad <= 0 ? 0 : (pad + s - 1) / s;
  if (lo > g->ow) lo = g->ow; /* padding before wider than the row */
  int64_t last = g->iw - 1 - (g->kw - 1) * g->w.dilations[1] + pad; /* the last start, times s */
  int64_t hi = last < 0 ? 0 : last / s + 1;
  if (hi > g->ow) hi = g->ow;
  if (hi < lo) hi = lo;
  *x0 = lo;
  *x1 = hi;
}

/* The input row of output row oy's first tap inside the input (0 when no
 * tap is). */
static inline int64_t first_tap_row(const grt_cpu_conv* g, int64_t oy) {
  int64_t ky0, ky1, sh = g->w.strides[0], dh = g->w.dilations[0];
  taps_inside(oy, sh, g->pad_l[0], dh, g->kh, g->ih, &ky0, &ky1);
  return ky1 > ky0 ? oy * sh - g->pad_l[0] + ky0 * dh : 0;
}

/* Channels [c, C) of one output by scalar loops: x and f at the first tap
 * inside the input, nky x nkx taps, rows rs (input) and fs (filter)
 * floats apart, columns d * C and C. */
__attribute__((always_inline)) static inline void dw_tail(const float* x, const float* f,
                                                          int64_t nky, int64_t nkx, int64_t rs,
                                                          int64_t fs, int64_t d, int64_t c,
                                                          int64_t C, const grt_cpu_dw_epilogue* e,
                                                          float* o) {
  for (; c < C; c++) {
    float acc = (e->bias ? e->bias[c] : 0.0f) + (e->residual ? o[c] : 0.0f);
    for (int64_t ky = 0; ky < nky; ky++)
      for (int64_t kx = 0; kx < nkx; kx++)
        acc += x[ky * rs + kx * d * C + c] * f[ky * fs + kx * C + c];
    if (e->act == GRT_DW_ACT_RELU) acc = acc > 0 ? acc : acc * e->alpha;
    if (e->act == GRT_DW_ACT_RELU6) acc = acc > 0 ? (acc < 6 ? acc : 6.0f) : 0.0f;
    o[c] = acc;
  }
}

/* DW_KERNELS(W, VT, VI, T) defines, for vectors VT of W floats (VI their
 * comparison masks) and tiles of T accumulators:
 *   dw_tile_W: n outputs x m channel blocks (n m <= T; both constants
 *     where inlined): x at the input of the first output's first tap
 *     inside the input, f at that tap's filter, nky x nkx taps; output i's
 *     input is i * s * C further on; o the first output; bias NULL or at
 *     the block's first channel; clip GRT_DW_ACT_RELU (with alpha) or
 *     GRT_DW_ACT_RELU6 applied in registers before the store (anything
 *     else: none). The m blocks give independent sums where a row has few
 *     outputs (the window's ends, 7x7 maps), so the multiply-adds of one
 *     output do not wait on each other;
 *   dw_inner_W: the interior outputs [*ox, x1) of m blocks in tiles of
 *     T / m outputs, then one by one, with the window's width, stride and
 *     dilation kw, s, d (constants where inlined, so the taps' loop
 *     unrolls and neighbouring outputs' loads of one input are one);
 *   dw_group_W: m blocks from channel c over the whole row;
 *   dw_row_W: output row r (batch r / oh, row r % oh), all channels in
 *     groups of 4, 2 and 1 blocks, the rest scalar, then the activations
 *     that are not clips, over the row while it is in cache.
 * Always inlined, so each is compiled for the target of its caller. */
#define DW_KERNELS(W, VT, VI, T)                                                                \
  __attribute__((always_inline)) static inline void dw_tile_##W(                                \
      int n, int m, const float* x, const float* f, int64_t nky, int64_t nkx, int64_t s,        \
      int64_t d, int64_t rs, int64_t fs, int64_t C, const float* bias, bool residual, int clip, \
      float alpha, float* o) {                                                                  \
    VT acc[T];                                                                                  \
    _Pragma("GCC unroll 16") for (int i = 0; i < n; i++) {                                      \
      _Pragma("GCC unroll 4") for (int k = 0; k < m; k++) {                                     \
        acc[i * m + k] = bias ? *(const VT*)(bias + k * W) : (VT){0};                           \
        if (residual) acc[i * m + k] += *(const VT*)(o + i * C + k * W);                        \
      }                                                                                         \
    }                                                                                           \
    for (int64_t ky = 0; ky < nky; ky++, x += rs, f += fs) {                                    \
      _Pragma("GCC unroll 8") for (int64_t kx = 0; kx < nkx; kx++) {                            \
        _Pragma("GCC unroll 4") for (int k = 0; k < m; k++) {                                   \
          const VT fv = *(const VT*)(f + kx * C + k * W);                                       \
          _Pragma("GCC unroll 16") for (int i = 0; i < n; i++) acc[i * m + k] +=                \
              *(const VT*)(x + (i * s + kx * d) * C + k * W) * fv;                              \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
    GRT_TILE_FINISH(VT, VI, W, 16, acc, n, m, clip, alpha, o, C);                               \
  }                                                                                             \
                                                                                                \
  __attribute__((always_inline)) static inline void dw_inner_##W(                               \
      int m, int64_t* ox, int64_t x1, const float* x, int64_t pad, const float* f, int64_t nky, \
      int64_t kw, int64_t s, int64_t d, int64_t rs, int64_t fs, int64_t C, const float* bias,   \
      bool residual, int clip, float alpha, float* o) {                                         \
    const int n = T / m;                                                                        \
    for (; *ox + n <= x1; *ox += n)                                                             \
      dw_tile_##W(n, m, x + (*ox * s - pad) * C, f, nky, kw, s, d, rs, fs, C, bias, residual,   \
                  clip, alpha, o + *ox * C);                                                    \
    /* The rest in a tile of n / 2 and one of n / 4 where they fit, then                        \
     * one by one. */                                                                           \
    _Pragma("GCC unroll 8") for (int h = n / 2; h > 1; h /= 2) if (*ox + h <= x1) {             \
      dw_tile_##W(h, m, x + (*ox * s - pad) * C, f, nky, kw, s, d, rs, fs, C, bias, residual,   \
                  clip, alpha, o + *ox * C);                                                    \
      *ox += h;                                                                                 \
    }                                                                                           \
    for (; *ox < x1; *ox += 1)                                                                  \
      dw_tile_##W(1, m, x + (*ox * s - pad) * C, f, nky, kw, s, d, rs, fs, C, bias, residual,   \
                  clip, alpha, o + *ox * C);                                                    \
  }                                                                                             \
                                                                                                \
  __attribute__((always_inline)) static inline void dw_group_##W(                               \
      int m, const grt_cpu_conv* g, const grt_cpu_dw_epilogue* e, const float* in,              \
      const float* fk, int64_t nky, int64_t x0, int64_t x1, int64_t c, float* o) {              \
    const int64_t C = g->ic, s = g->w.strides[1], d = g->w.dilations[1], kw = g->kw;            \
    const int64_t rs = g->w.dilations[0] * g->iw * C, fs = kw * C, pw = g->pad_l[1];            \
    const float* bias = e->bias ? e->bias + c : NULL;                                           \
    const bool r = e->residual;                                                                 \
    const int clip = e->act;                                                                    \
    const float a = e->alpha;                                                                   \
    int64_t ox = 0;                                                                             \
    for (int pass = 0; pass < 2; pass++) {                                                      \
      /* The outputs before the interior (pass 0) and after it. */                              \
      for (int64_t end = pass ? g->ow : x0; ox < end; ox++) {                                   \
        int64_t kx0, kx1;                                                                       \
        taps_inside(ox, s, pw, d, kw, g->iw, &kx0, &kx1);                                       \
        int64_t col = kx1 > kx0 ? ox * s - pw + kx0 * d : 0;                                    \
        dw_tile_##W(1, m, in + col * C + c, fk + kx0 * C + c, nky, kx1 - kx0, s, d, rs, fs, C,  \
                    bias, r, clip, a, o + ox * C + c);                                          \
      }                                                                                         \
      if (pass) break;                                                                          \
      const float *xc = in + c, *fc = fk + c;                                                   \
      float* oc = o + c;                                                                        \
      if (kw == 3 && s == 1 && d == 1)                                                          \
        dw_inner_##W(m, &ox, x1, xc, pw, fc, nky, 3, 1, 1, rs, fs, C, bias, r, clip, a, oc);    \
      else if (kw == 3 && s == 2 && d == 1)                                                     \
        dw_inner_##W(m, &ox, x1, xc, pw, fc, nky, 3, 2, 1, rs, fs, C, bias, r, clip, a, oc);    \
      else if (kw == 5 && s == 1 && d == 1)                                                     \
        dw_inner_##W(m, &ox, x1, xc, pw, fc, nky, 5, 1, 1, rs, fs, C, bias, r, clip, a, oc);    \
      else if (kw == 5 && s == 2 && d == 1)                                                     \
        dw_inner_##W(m, &ox, x1, xc, pw, fc, nky, 5, 2, 1, rs, fs, C, bias, r, clip, a, oc);    \
      else                                                                                      \
        dw_inner_##W(m, &ox, x1, xc, pw, fc, nky, kw, s, d, rs, fs, C, bias, r, clip, a, oc);   \
    }                                                                                           \
  }                                                                                             \
                                                                                                \
  __attribute__((always_inline)) static inline void dw_row_in_##W(const dw_job* j, int64_t r,   \
                                                                  const float* in, float* o) {  \
    const grt_cpu_conv* g = j->g;                                                               \
    const grt_cpu_dw_epilogue* e = j->e;                                                        \
    const int64_t C = g->ic, oy = r % g->oh;                                                    \
    const int64_t sh = g->w.strides[0], dh = g->w.dilations[0];                                 \
    const int64_t s = g->w.strides[1], d = g->w.dilations[1], kw = g->kw;                       \
    int64_t ky0, ky1, x0, x1;                                                                   \
    taps_inside(oy, sh, g->pad_l[0], dh, g->kh, g->ih, &ky0, &ky1);                             \
    interior(g, &x0, &x1);                                                                      \
    const int64_t nky = ky1 - ky0, rs = dh * g->iw * C, fs = kw * C;                            \
    /* `in`: the input at row ky0's, column 0; the filter at row ky0. */                        \
    const float* fk = j->filter + ky0 * fs;                                                     \
    int64_t c = 0;                                                                              \
    for (; c + 4 * W <= C; c += 4 * W) dw_group_##W(4, g, e, in, fk, nky, x0, x1, c, o);        \
    if (c + 2 * W <= C) {                                                                       \
      dw_group_##W(2, g, e, in, fk, nky, x0, x1, c, o);                                         \
      c += 2 * W;                                                                               \
    }                                                                                           \
    if (c + W <= C) {                                                                           \
      dw_group_##W(1, g, e, in, fk, nky, x0, x1, c, o);                                         \
      c += W;                                                                                   \
    }                                                                                           \
    if (c < C)                                                                                  \
      for (int64_t ox = 0; ox < g->ow; ox++) {                                                  \
        int64_t kx0, kx1;                                                                       \
        taps_inside(ox, s, g->pad_l[1], d, kw, g->iw, &kx0, &kx1);                              \
        int64_t col = kx1 > kx0 ? ox * s - g->pad_l[1] + kx0 * d : 0;                           \
        dw_tail(in + col * C, fk + kx0 * C, nky, kx1 - kx0, rs, fs, d, c, C, e, o + ox * C);    \
      }                                                                                         \
    if (kActRows[e->act]) kActRows[e->act](o, g->ow * C, e->alpha);                             \
  }                                                                                             \
                                                                                                \
  __attribute__((always_inline)) static inline void dw_row_##W(const dw_job* j, int64_t r) {    \
    const grt_cpu_conv* g = j->g;                                                               \
    const int64_t b = r / g->oh;                                                                \
    dw_row_in_##W(j, r, j->in + (b * g->ih + first_tap_row(g, r % g->oh)) * g->iw * g->ic,      \
                  j->out + r * g->ow * g->ic);                                                  \
  }

DW_KERNELS(4, vf4, vi4, 8)
static void rows_base(const dw_job* j, int64_t r0, int64_t r1) {
  for (int64_t r = r0; r < r1; r++) dw_row_4(j, r);
}
static void row_in_base(const dw_job* j, int64_t r, const float* in, float* o) {
  dw_row_in_4(j, r, in, o);
}

#ifdef DW_X86
DW_KERNELS(16, vf16, vi16, 16)
DW_KERNELS(8, vf8, vi8, 8)
__attribute__((target("arch=x86-64-v4"))) static void rows_v4(const dw_job* j, int64_t r0,
                                                              int64_t r1) {
  for (int64_t r = r0; r < r1; r++) dw_row_16(j, r);
}
__attribute__((target("arch=x86-64-v3"))) static void rows_v3(const dw_job* j, int64_t r0,
                                                              int64_t r1) {
  for (int64_t r = r0; r < r1; r++) dw_row_8(j, r);
}
__attribute__((target("arch=x86-64-v4"))) static void row_in_v4(const dw_job* j, int64_t r,
                                                                const float* in, float* o) {
  dw_row_in_16(j, r, in, o);
}
__attribute__((target("arch=x86-64-v3"))) static void row_in_v3(const dw_job* j, int64_t r,
                                                                const float* in, float* o) {
  dw_row_in_8(j, r, in, o);
}
#endif

/* ---- choice and entry ---------------------------------------------------- */

static int g_kernel = -1; /* atomic grt_dw_kernel; -1: not chosen yet (kernel_choice) */
static int64_t g_runs;    /* atomic: grt_cpu_dw_run calls */
static int g_force_width; /* atomic; 0: the widest the CPU runs */

void grt_cpu_dw_set_kernel(grt_dw_kernel k) {
  __atomic_store_n(&g_kernel, (int)k, __ATOMIC_RELAXED);
}

int grt_cpu_dw_force_width(int width) {
  if (!grt_cpu_vector_width_runs(width)) return -1;
  __atomic_store_n(&g_force_width, width, __ATOMIC_RELAXED);
  return 0;
}

int64_t grt_cpu_dw_count(void) { return __atomic_load_n(&g_runs, __ATOMIC_RELAXED); }

/* The vector width the rows run at. */
static int pick_width(void) {
  return grt_cpu_vector_width(__atomic_load_n(&g_force_width, __ATOMIC_RELAXED));
}

typedef void (*dw_row_in_fn)(const dw_job* j, int64_t r, const float* in, float* o);

static dw_rows_fn pick_rows(void) {
#ifdef DW_X86
  int w = pick_width();
  if (w == 16) return rows_v4;
  if (w == 8) return rows_v3;
#endif
  return rows_base;
}

static dw_row_in_fn pick_row_in(void) {
#ifdef DW_X86
  int w = pick_width();
  if (w == 16) return row_in_v4;
  if (w == 8) return row_in_v3;
#endif
  return row_in_base;
}

/* The kernel grt_cpu_dw_set_kernel chose or, before any call of it, what
 * GRT_CPU_DEPTHWISE says ("own", "onednn"; anything else or unset: the
 * rule), read once: the switch with which bench/models compares the two
 * kernels in whole models, as a host runs them. */
static grt_dw_kernel kernel_choice(void) {
  int k = __atomic_load_n(&g_kernel, __ATOMIC_RELAXED);
  if (k >= 0) return (grt_dw_kernel)k;
  const char* env = getenv("GRT_CPU_DEPTHWISE");
  k = GRT_DW_KERNEL_RULE;
  if (env && strcmp(env, "own") == 0) k = GRT_DW_KERNEL_OWN;
  if (env && strcmp(env, "onednn") == 0) k = GRT_DW_KERNEL_DNNL;
  int unset = -1; /* a grt_cpu_dw_set_kernel in between wins */
  __atomic_compare_exchange_n(&g_kernel, &unset, k, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return (grt_dw_kernel)__atomic_load_n(&g_kernel, __ATOMIC_RELAXED);
}

bool grt_cpu_dw_takes(const grt_cpu_conv* g, grt_dw_act act) {
  if (g->w.nchw || g->groups != g->ic || g->oc != g->ic || act == GRT_DW_ACT_ELU ||
      act == GRT_DW_ACT_OTHER)
    return false;
  int k = kernel_choice();
  if (k != GRT_DW_KERNEL_RULE) return k == GRT_DW_KERNEL_OWN;
  /* Measured (DNNL.md, "grt's depthwise convolution"): level with
   * oneDNN's brdgmm_dw in whole models and 3-8 % behind it on one thread,
   * both bound by memory; so oneDNN keeps every shape. */
  return false;
}

/* One call: the job and the rows function of the vector width chosen. */
typedef struct {
  dw_job job;
  dw_rows_fn rows;
} dw_call;

static void dw_call_rows(const void* arg, int64_t r0, int64_t r1) {
  const dw_call* c = arg;
  c->rows(&c->job, r0, r1);
}

void grt_cpu_dw_row(const grt_cpu_conv* g, int64_t r, const float* rows, int64_t first,
                    const float* filter, const grt_cpu_dw_epilogue* e, float* out_row) {
  dw_job j = {g, NULL, filter, e, NULL};
  int64_t iy = first_tap_row(g, r % g->oh);
  pick_row_in()(&j, r, rows + (iy > first ? iy - first : 0) * g->iw * g->ic, out_row);
}

void grt_cpu_dw_run(grt_threadpool* pool, const grt_cpu_conv* g, const float* in,
                    const float* filter, const grt_cpu_dw_epilogue* e, float* out) {
  __atomic_add_fetch(&g_runs, 1, __ATOMIC_RELAXED);
  dw_call c = {{g, in, filter, e, out}, pick_rows()};
  grt_cpu_conv_rows_parallel(pool, g, dw_call_rows, &c);
}
