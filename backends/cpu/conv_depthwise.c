/* grt's own depthwise convolution (conv_depthwise.h): NHWC, float32,
 * channel multiplier 1, with bias, residual and activation fused.
 *
 * Why not oneDNN alone: a depthwise convolution does kh x kw multiply-adds
 * per output element and reads each input element kh x kw / stride^2
 * times, so it is bound by loads and by the calling overhead, not by
 * arithmetic; oneDNN 2.6's brdgmm_dw kernel spent much of mobilenet_v2's
 * and efficientnet_b0's time there (issue 20), and its swish/sigmoid
 * post-ops run an exp per element after the sums. Here the filter is read
 * in grt's own layout ([kh, kw, C, 1]: channels innermost, as the NHWC
 * input), so there is nothing to pack, and a Const filter costs nothing
 * per call.
 *
 * The work is one unit per output row (batch x output rows), split over
 * the intra-op pool. Within a row, channels go in blocks of one vector
 * (16 floats with AVX-512, 8 with AVX2, 4 at the baseline; the
 * remainder channels in a scalar loop), and for each block the row's
 * outputs whose window lies wholly inside the input along x go in tiles of
 * T outputs at once: T accumulators in registers, one filter vector
 * loaded per tap and used T times. The tile is compiled with the kernel
 * width, stride and dilation as constants for the common 3x3 and 5x5,
 * stride 1 and 2, dilation 1 (so the loads of neighbouring outputs that
 * overlap are one load), and with them as variables for the rest. The
 * outputs at the row's ends, whose windows cross the padding, are tiles of
 * one output over the taps inside the input. The bias (and the residual,
 * which the caller copied into the output) start the accumulators; the
 * activation runs over the finished row while it is in cache.
 *
 * The three widths are the same code (DW_KERNELS) compiled for the
 * x86-64-v4 and -v3 levels (both with FMA) and the baseline, chosen per
 * call, as _ScaledDotProductAttention's units are (nn_attention.c). */
#include "backends/cpu/conv_depthwise.h"

#include <stdint.h>

#include "backends/cpu/cpu_util.h"

GRT_CPU_VECTORIZE

/* The sums want fused multiply-adds: ISO C mode (-std=c11) turns
 * contraction off. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC optimize("fp-contract=fast")
#define DW_X86 1
#endif

/* One vector of W floats (aligned(4): loads and stores may be unaligned). */
typedef float vf16 __attribute__((vector_size(64), aligned(4)));
typedef float vf8 __attribute__((vector_size(32), aligned(4)));
typedef float vf4 __attribute__((vector_size(16), aligned(4)));

typedef struct dw_job dw_job;
typedef void (*dw_rows_fn)(const dw_job* j, int64_t r0, int64_t r1);

struct dw_job {
  const grt_cpu_conv* g;
  const float* in;
  const float* filter;
  const grt_cpu_dw_epilogue* e;
  float* out;
};

/* ---- activations: one row function each, by grt_dw_act ----------------- */

typedef void (*dw_act_row)(float* o, int64_t n, float alpha);

GRT_CPU_CLONES static void act_relu(float* o, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) o[i] = grt_cpu_select_f(o[i] > 0, o[i], o[i] * alpha);
}
GRT_CPU_CLONES static void act_relu6(float* o, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) {
    float v = grt_cpu_select_f(o[i] > 0, o[i], 0.0f);
    o[i] = grt_cpu_select_f(v < 6, v, 6.0f);
  }
}
GRT_CPU_CLONES static void act_sigmoid(float* o, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) o[i] = 1.0f / (1.0f + grt_cpu_expf(-o[i]));
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
GRT_CPU_CLONES static void act_swish(float* o, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) o[i] = o[i] / (1.0f + grt_cpu_expf(-o[i]));
}

static const dw_act_row kActRows[] = {
    [GRT_DW_ACT_NONE] = NULL,       [GRT_DW_ACT_RELU] = act_relu,
    [GRT_DW_ACT_RELU6] = act_relu6, [GRT_DW_ACT_SIGMOID] = act_sigmoid,
    [GRT_DW_ACT_TANH] = act_tanh,   [GRT_DW_ACT_HARDSWISH] = act_hardswish,
    [GRT_DW_ACT_SWISH] = act_swish, [GRT_DW_ACT_OTHER] = NULL,
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
  int64_t last = g->iw - 1 - (g->kw - 1) * g->w.dilations[1] + pad; /* the last start, times s */
  int64_t hi = last < 0 ? 0 : last / s + 1;
  if (hi > g->ow) hi = g->ow;
  if (hi < lo) hi = lo;
  *x0 = lo;
  *x1 = hi;
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
    o[c] = acc;
  }
}

/* DW_KERNELS(W, VT, T) defines, for vectors VT of W floats and tiles of
 * T outputs:
 *   dw_tile_W: one channel block of n outputs (n <= T, a constant where
 *     inlined), x at the input of the first output's first tap inside
 *     the input, f at that tap's filter, nky x nkx taps; output i's input
 *     is i * s * C further on; o the first output;
 *   dw_row_W: output row r (batch r / oh, row r % oh), all channels, then
 *     the activation.
 * Always inlined, so each is compiled for the target of its caller. */
#define DW_KERNELS(W, VT, T)                                                                    \
  __attribute__((always_inline)) static inline void dw_tile_##W(                                \
      int n, const float* x, const float* f, int64_t nky, int64_t nkx, int64_t s, int64_t d,    \
      int64_t rs, int64_t fs, int64_t C, const VT* bias, bool residual, float* o) {             \
    VT acc[T];                                                                                  \
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) acc[i] = *bias;                         \
    if (residual) {                                                                             \
      _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) acc[i] += *(const VT*)(o + i * C);    \
    }                                                                                           \
    for (int64_t ky = 0; ky < nky; ky++, x += rs, f += fs)                                      \
      for (int64_t kx = 0; kx < nkx; kx++) {                                                    \
        const VT fv = *(const VT*)(f + kx * C);                                                 \
        _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) acc[i] +=                           \
            *(const VT*)(x + (i * s + kx * d) * C) * fv;                                        \
      }                                                                                         \
    _Pragma("GCC unroll 8") for (int i = 0; i < n; i++) * (VT*)(o + i * C) = acc[i];            \
  }                                                                                             \
                                                                                                \
  /* The interior outputs [*ox, x1) in tiles of T, then one by one, with                        \
   * the kernel width, stride and dilation kw, s, d (constants where                            \
   * inlined). */                                                                               \
  __attribute__((always_inline)) static inline void dw_inner_##W(                               \
      int64_t* ox, int64_t x1, const float* x, int64_t pad, const float* f, int64_t nky,        \
      int64_t kw, int64_t s, int64_t d, int64_t rs, int64_t fs, int64_t C, const VT* bias,      \
      bool residual, float* o) {                                                                \
    for (; *ox + T <= x1; *ox += T)                                                             \
      dw_tile_##W(T, x + (*ox * s - pad) * C, f, nky, kw, s, d, rs, fs, C, bias, residual,      \
                  o + *ox * C);                                                                 \
    for (; *ox < x1; *ox += 1)                                                                  \
      dw_tile_##W(1, x + (*ox * s - pad) * C, f, nky, kw, s, d, rs, fs, C, bias, residual,      \
                  o + *ox * C);                                                                 \
  }                                                                                             \
                                                                                                \
  __attribute__((always_inline)) static inline void dw_row_##W(const dw_job* j, int64_t r) {    \
    const grt_cpu_conv* g = j->g;                                                               \
    const grt_cpu_dw_epilogue* e = j->e;                                                        \
    const int64_t C = g->ic, b = r / g->oh, oy = r % g->oh;                                     \
    const int64_t sh = g->w.strides[0], dh = g->w.dilations[0];                                 \
    const int64_t s = g->w.strides[1], d = g->w.dilations[1], kw = g->kw;                       \
    int64_t ky0, ky1, x0, x1;                                                                   \
    taps_inside(oy, sh, g->pad_l[0], dh, g->kh, g->ih, &ky0, &ky1);                             \
    interior(g, &x0, &x1);                                                                      \
    const int64_t nky = ky1 - ky0, rs = dh * g->iw * C, fs = kw * C;                            \
    /* The input at row ky0's, column 0; the filter at row ky0. */                              \
    const float* in =                                                                           \
        j->in + (b * g->ih + (nky ? oy * sh - g->pad_l[0] + ky0 * dh : 0)) * g->iw * C;         \
    const float* fk = j->filter + ky0 * fs;                                                     \
    float* o = j->out + r * g->ow * C;                                                          \
    const int64_t full = C - C % W;                                                             \
    const int64_t pw = g->pad_l[1];                                                             \
    for (int64_t c = 0; c < full; c += W) {                                                     \
      const VT bv = e->bias ? *(const VT*)(e->bias + c) : (VT){0}, *bias = &bv;                 \
      int64_t ox = 0;                                                                           \
      for (int pass = 0; pass < 2; pass++) {                                                    \
        /* The outputs before the interior (pass 0) and after it. */                            \
        for (int64_t end = pass ? g->ow : x0; ox < end; ox++) {                                 \
          int64_t kx0, kx1;                                                                     \
          taps_inside(ox, s, g->pad_l[1], d, kw, g->iw, &kx0, &kx1);                            \
          int64_t col = kx1 > kx0 ? ox * s - g->pad_l[1] + kx0 * d : 0;                         \
          dw_tile_##W(1, in + col * C + c, fk + kx0 * C + c, nky, kx1 - kx0, s, d, rs, fs, C,   \
                      bias, e->residual, o + ox * C + c);                                       \
        }                                                                                       \
        if (pass) break;                                                                        \
        const float* xc = in + c;                                                               \
        const float* fc = fk + c;                                                               \
        float* oc = o + c;                                                                      \
        if (kw == 3 && s == 1 && d == 1)                                                        \
          dw_inner_##W(&ox, x1, xc, pw, fc, nky, 3, 1, 1, rs, fs, C, bias, e->residual, oc);    \
        else if (kw == 3 && s == 2 && d == 1)                                                   \
          dw_inner_##W(&ox, x1, xc, pw, fc, nky, 3, 2, 1, rs, fs, C, bias, e->residual, oc);    \
        else if (kw == 5 && s == 1 && d == 1)                                                   \
          dw_inner_##W(&ox, x1, xc, pw, fc, nky, 5, 1, 1, rs, fs, C, bias, e->residual, oc);    \
        else if (kw == 5 && s == 2 && d == 1)                                                   \
          dw_inner_##W(&ox, x1, xc, pw, fc, nky, 5, 2, 1, rs, fs, C, bias, e->residual, oc);    \
        else                                                                                    \
          dw_inner_##W(&ox, x1, xc, pw, fc, nky, kw, s, d, rs, fs, C, bias, e->residual, oc);   \
      }                                                                                         \
    }                                                                                           \
    if (full < C)                                                                               \
      for (int64_t ox = 0; ox < g->ow; ox++) {                                                  \
        int64_t kx0, kx1;                                                                       \
        taps_inside(ox, s, g->pad_l[1], d, kw, g->iw, &kx0, &kx1);                              \
        int64_t col = kx1 > kx0 ? ox * s - g->pad_l[1] + kx0 * d : 0;                           \
        dw_tail(in + col * C, fk + kx0 * C, nky, kx1 - kx0, rs, fs, d, full, C, e, o + ox * C); \
      }                                                                                         \
    if (kActRows[e->act]) kActRows[e->act](o, g->ow * C, e->alpha);                             \
  }

DW_KERNELS(4, vf4, 4)
static void rows_base(const dw_job* j, int64_t r0, int64_t r1) {
  for (int64_t r = r0; r < r1; r++) dw_row_4(j, r);
}

#ifdef DW_X86
DW_KERNELS(16, vf16, 8)
DW_KERNELS(8, vf8, 4)
__attribute__((target("arch=x86-64-v4"))) static void rows_v4(const dw_job* j, int64_t r0,
                                                              int64_t r1) {
  for (int64_t r = r0; r < r1; r++) dw_row_16(j, r);
}
__attribute__((target("arch=x86-64-v3"))) static void rows_v3(const dw_job* j, int64_t r0,
                                                              int64_t r1) {
  for (int64_t r = r0; r < r1; r++) dw_row_8(j, r);
}
#endif

/* ---- choice and entry ---------------------------------------------------- */

static int g_kernel;      /* atomic grt_dw_kernel */
static int64_t g_runs;    /* atomic: grt_cpu_dw_run calls */
static int g_force_width; /* atomic; 0: the widest the CPU runs */

void grt_cpu_dw_set_kernel(grt_dw_kernel k) {
  __atomic_store_n(&g_kernel, (int)k, __ATOMIC_RELAXED);
}

int grt_cpu_dw_force_width(int width) {
  if (width != 0 && width != 4 && width != 8 && width != 16) return -1;
#ifdef DW_X86
  if (width == 16 && !__builtin_cpu_supports("x86-64-v4")) return -1;
  if (width == 8 && !__builtin_cpu_supports("x86-64-v3")) return -1;
#else
  if (width > 4) return -1;
#endif
  __atomic_store_n(&g_force_width, width, __ATOMIC_RELAXED);
  return 0;
}

int64_t grt_cpu_dw_count(void) { return __atomic_load_n(&g_runs, __ATOMIC_RELAXED); }

static dw_rows_fn pick_rows(void) {
  int force = __atomic_load_n(&g_force_width, __ATOMIC_RELAXED);
  if (force == 4) return rows_base;
#ifdef DW_X86
  if (force == 8) return rows_v3;
  if (force == 16 || __builtin_cpu_supports("x86-64-v4")) return rows_v4;
  if (__builtin_cpu_supports("x86-64-v3")) return rows_v3;
#endif
  return rows_base;
}

bool grt_cpu_dw_takes(const grt_cpu_conv* g, grt_dw_act act) {
  if (g->w.nchw || g->groups != g->ic || g->oc != g->ic || act == GRT_DW_ACT_OTHER) return false;
  int k = __atomic_load_n(&g_kernel, __ATOMIC_RELAXED);
  if (k == GRT_DW_KERNEL_DNNL) return false;
  return true;
}

typedef struct {
  dw_job job;
  dw_rows_fn rows;
} dw_call;

static void dw_range(void* arg, int64_t r0, int64_t r1) {
  const dw_call* c = arg;
  c->rows(&c->job, r0, r1);
}

void grt_cpu_dw_run(grt_threadpool* pool, const grt_cpu_conv* g, const float* in,
                    const float* filter, const grt_cpu_dw_epilogue* e, float* out) {
  __atomic_add_fetch(&g_runs, 1, __ATOMIC_RELAXED);
  dw_call c = {{g, in, filter, e, out}, pick_rows()};
  /* Rough nanoseconds per output row: a multiply-add per tap and element,
   * a vector of them a cycle, and the epilogue. */
  int64_t cost = g->ow * g->ic * (g->kh * g->kw + 4) / 8 + 1;
  grt_parallel_for(pool, g->n * g->oh, cost, dw_range, &c);
}
