/* MaxPool, AvgPool, _DilatedMaxPool and the gradients on oneDNN's pooling
 * primitives, with activations in grt's layout (NHWC or NCHW).
 *
 * TensorFlow's semantics map directly: MaxPool ignores padding (oneDNN's
 * max pooling never picks a padded element) and AvgPool divides by the
 * number of real elements in the window (pooling_avg_exclude_padding).
 * MaxPoolGrad gets orig_input, so it reruns the forward pass in training
 * mode to find where each maximum came from (oneDNN's workspace) and sends
 * the gradient there, as TensorFlow's CPU kernel recomputes the argmax.
 *
 * MaxPool forward in NHWC (the layout pass's format on the CPU) is grt's
 * own loop instead: oneDNN 2.6's jit pooling transposes an nhwc tensor to
 * its blocked format and back around the pooling (ONEDNN_VERBOSE shows
 * jit:avx512_core on acdb), which made ResNet-18's stem MaxPool
 * (1x112x112x64, 3x3 stride 2) 2-4x slower than ONNX Runtime's. The loop
 * reads each window's rows of channels in place, the channels vectorised.
 *
 * Plans: md[0] the input side, md[1] the pooled side, md[2] the
 * workspace (MaxPoolGrad); prim[0] the forward pass, prim[1] the backward
 * pass (the gradients). */
#include <math.h>
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/cpu_util.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define POOL_X86 1
#include <immintrin.h>
#endif

typedef struct {
  grt_window w;
  int64_t n, ih, iw, c, oh, ow;
  int64_t pad_l[2], pad_r[2];
} pool_geom;

static grt_status* geometry(const grt_kernel_ctx* ctx, const grt_shape* in, pool_geom* g) {
  char a[GRT_SHAPE_STR_MAX];
  if (in->rank != 4)
    return GRT_ERROR(INVALID_ARGUMENT, "input must be 4-dimensional: %s", grt_cpu_shape_str(in, a));
  uint32_t what = GRT_WINDOW_KSIZE;
  if (grt_op_find_attr(ctx->node->def, "dilations")) what |= GRT_WINDOW_DILATIONS;
  GRT_RETURN_IF_ERROR(grt_op_window(ctx, what, &g->w));
  int32_t h = grt_window_h(&g->w);
  g->n = in->dims[0];
  g->ih = in->dims[h];
  g->iw = in->dims[h + 1];
  g->c = in->dims[grt_window_c(&g->w)];
  GRT_RETURN_IF_ERROR(
      grt_window_dim(&g->w, 0, g->ih, g->w.ksize[0], &g->oh, &g->pad_l[0], &g->pad_r[0]));
  GRT_RETURN_IF_ERROR(
      grt_window_dim(&g->w, 1, g->iw, g->w.ksize[1], &g->ow, &g->pad_l[1], &g->pad_r[1]));
  for (int i = 0; i < 2; i++) {
    int64_t eff = (g->w.ksize[i] - 1) * g->w.dilations[i] + 1; /* the dilated window's span */
    if (g->pad_l[i] >= eff || g->pad_r[i] >= eff)
      return GRT_ERROR(UNIMPLEMENTED, "padding %lld/%lld is not smaller than the window %lld",
                       (long long)g->pad_l[i], (long long)g->pad_r[i], (long long)eff);
  }
  return NULL;
}

static void pooled_shape(const pool_geom* g, grt_shape* out) {
  out->rank = 4;
  out->dims[0] = g->n;
  int32_t h = grt_window_h(&g->w);
  out->dims[h] = g->oh;
  out->dims[h + 1] = g->ow;
  out->dims[grt_window_c(&g->w)] = g->c;
}

static bool empty(const pool_geom* g) { return g->n * g->c * g->oh * g->ow * g->ih * g->iw == 0; }

typedef enum { POOL_FORWARD, POOL_BACKWARD } pool_kind;

static grt_status* build(const pool_geom* g, dnnl_alg_kind_t alg, pool_kind kind,
                         grt_dnnl_plan* p) {
  GRT_RETURN_IF_ERROR(grt_dnnl_md_activation(g->w.nchw, g->n, g->c, g->ih, g->iw, &p->md[0]));
  GRT_RETURN_IF_ERROR(grt_dnnl_md_activation(g->w.nchw, g->n, g->c, g->oh, g->ow, &p->md[1]));
  dnnl_dims_t strides = {g->w.strides[0], g->w.strides[1]};
  dnnl_dims_t kernel = {g->w.ksize[0], g->w.ksize[1]};
  dnnl_dims_t dilation = {g->w.dilations[0] - 1, g->w.dilations[1] - 1}; /* the gaps */
  dnnl_dims_t pad_l = {g->pad_l[0], g->pad_l[1]}, pad_r = {g->pad_r[0], g->pad_r[1]};
  dnnl_pooling_v2_desc_t fwd, bwd;
  dnnl_prop_kind_t prop = kind == POOL_FORWARD ? dnnl_forward_inference : dnnl_forward_training;
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_pooling_v2_forward_desc_init(&fwd, prop, alg, &p->md[0], &p->md[1],
                                                       strides, kernel, dilation, pad_l, pad_r),
                     "oneDNN pooling forward"));
  dnnl_primitive_desc_t fwd_pd = NULL;
  bool max = alg == dnnl_pooling_max;
  if (kind == POOL_FORWARD || max) {
    /* Average pooling's backward pass needs no forward run, only its
     * descriptor as a hint. */
    GRT_RETURN_IF_ERROR(grt_dnnl_plan_make(p, 0, &fwd, NULL, "oneDNN pooling forward", &fwd_pd));
    if (kind == POOL_FORWARD) {
      dnnl_primitive_desc_destroy(fwd_pd);
      return NULL;
    }
    const dnnl_memory_desc_t* ws = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_workspace_md, 0);
    if (!ws) {
      dnnl_primitive_desc_destroy(fwd_pd);
      return GRT_ERROR(INTERNAL, "oneDNN max pooling gave no workspace");
    }
    p->md[2] = *ws;
  } else {
    GRT_RETURN_IF_ERROR(
        grt_dnnl_check(dnnl_primitive_desc_create(&fwd_pd, &fwd, NULL, grt_dnnl_engine(), NULL),
                       "oneDNN pooling forward"));
  }
  grt_status* s =
      grt_dnnl_check(dnnl_pooling_v2_backward_desc_init(&bwd, alg, &p->md[0], &p->md[1], strides,
                                                        kernel, dilation, pad_l, pad_r),
                     "oneDNN pooling backward");
  if (!s) s = grt_dnnl_plan_make(p, 1, &bwd, fwd_pd, "oneDNN pooling backward", NULL);
  dnnl_primitive_desc_destroy(fwd_pd);
  return s;
}

static grt_status* plan_for(grt_kernel_ctx* ctx, const pool_geom* g, dnnl_alg_kind_t alg,
                            pool_kind kind, grt_dnnl_plan** out, bool* out_owned) {
  int64_t key[] = {g->n, g->ih, g->iw, g->c, kind};
  int32_t n = (int32_t)(sizeof key / sizeof key[0]);
  *out_owned = false;
  *out = grt_dnnl_cache_find(ctx->state, key, n);
  if (*out) return NULL;
  grt_dnnl_plan* p = grt_dnnl_plan_new();
  if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
  grt_status* s = build(g, alg, kind, p);
  if (s) {
    grt_dnnl_plan_free(p);
    return s;
  }
  *out = grt_dnnl_cache_offer(ctx->state, key, n, p, out_owned);
  return NULL;
}

/* ---- MaxPool forward, NHWC, grt's loop -------------------------------------- */

GRT_CPU_VECTORIZE

typedef struct {
  const pool_geom* g;
  const float* x;
  float* y;
} max_job;

/* Output rows [r0, r1) of n * oh: each output pixel the maximum over its
 * window's real elements (padding is never picked, as in TensorFlow), a
 * NaN winning as in grt's Max reduction. Exact: the result does not depend
 * on the order or the thread count. Channels [c0, C) of every pixel (the
 * AVX-512 form below does [0, c0)). */
GRT_CPU_CLONES static void max_rows_from(const max_job* j, int64_t r0, int64_t r1, int64_t c0) {
  const pool_geom* g = j->g;
  const int64_t C = g->c;
  for (int64_t r = r0; r < r1; r++) {
    int64_t n = r / g->oh, y0 = r % g->oh * g->w.strides[0] - g->pad_l[0];
    int64_t ylo = y0 < 0 ? 0 : y0, yhi = y0 + g->w.ksize[0] < g->ih ? y0 + g->w.ksize[0] : g->ih;
    for (int64_t ox = 0; ox < g->ow; ox++) {
      int64_t x0 = ox * g->w.strides[1] - g->pad_l[1];
      int64_t xlo = x0 < 0 ? 0 : x0, xhi = x0 + g->w.ksize[1] < g->iw ? x0 + g->w.ksize[1] : g->iw;
      float* restrict o = j->y + (r * g->ow + ox) * C;
      for (int64_t c = c0; c < C; c++) o[c] = -INFINITY;
      for (int64_t iy = ylo; iy < yhi; iy++)
        for (int64_t ix = xlo; ix < xhi; ix++) {
          const float* restrict p = j->x + ((n * g->ih + iy) * g->iw + ix) * C;
          for (int64_t c = c0; c < C; c++) o[c] = (p[c] > o[c] || p[c] != p[c]) ? p[c] : o[c];
        }
    }
  }
}

#ifdef POOL_X86
/* The same for channels in blocks of 64 and 16, each block's maxima kept in
 * registers while the window's elements stream past, so the output is
 * written once rather than once per window element (the loop above keeps
 * them in memory: 3x ONNX Runtime's time on ResNet-18's stem pooling).
 * VMAXPS returns its second operand when either is NaN, so a NaN element
 * is remembered in a mask and written at the end. */
#define MAX_STEP(m, nan, src)                        \
  do {                                               \
    __m512 p_ = _mm512_loadu_ps(src);                \
    nan |= _mm512_cmp_ps_mask(p_, p_, _CMP_UNORD_Q); \
    m = _mm512_max_ps(p_, m);                        \
  } while (0)

__attribute__((target("arch=x86-64-v4"))) static int64_t max_rows_v4(const max_job* j, int64_t r0,
                                                                     int64_t r1) {
  const pool_geom* g = j->g;
  const int64_t C = g->c, C16 = C / 16 * 16;
  const __m512 lowest = _mm512_set1_ps(-INFINITY), qnan = _mm512_set1_ps(NAN);
  for (int64_t r = r0; r < r1; r++) {
    int64_t n = r / g->oh, y0 = r % g->oh * g->w.strides[0] - g->pad_l[0];
    int64_t ylo = y0 < 0 ? 0 : y0, yhi = y0 + g->w.ksize[0] < g->ih ? y0 + g->w.ksize[0] : g->ih;
    const float* x = j->x + n * g->ih * g->iw * C;
    for (int64_t ox = 0; ox < g->ow; ox++) {
      int64_t x0 = ox * g->w.strides[1] - g->pad_l[1];
      int64_t xlo = x0 < 0 ? 0 : x0, xhi = x0 + g->w.ksize[1] < g->iw ? x0 + g->w.ksize[1] : g->iw;
      float* o = j->y + (r * g->ow + ox) * C;
      int64_t c = 0;
      for (; c + 64 <= C16; c += 64) {
        __m512 m0 = lowest, m1 = lowest, m2 = lowest, m3 = lowest;
        __mmask16 n0 = 0, n1 = 0, n2 = 0, n3 = 0;
        for (int64_t iy = ylo; iy < yhi; iy++)
          for (int64_t ix = xlo; ix < xhi; ix++) {
            const float* q = x + (iy * g->iw + ix) * C + c;
            MAX_STEP(m0, n0, q);
            MAX_STEP(m1, n1, q + 16);
            MAX_STEP(m2, n2, q + 32);
            MAX_STEP(m3, n3, q + 48);
          }
        _mm512_storeu_ps(o + c, _mm512_mask_mov_ps(m0, n0, qnan));
        _mm512_storeu_ps(o + c + 16, _mm512_mask_mov_ps(m1, n1, qnan));
        _mm512_storeu_ps(o + c + 32, _mm512_mask_mov_ps(m2, n2, qnan));
        _mm512_storeu_ps(o + c + 48, _mm512_mask_mov_ps(m3, n3, qnan));
      }
      for (; c < C16; c += 16) {
        __m512 m = lowest;
        __mmask16 nan = 0;
        for (int64_t iy = ylo; iy < yhi; iy++)
          for (int64_t ix = xlo; ix < xhi; ix++) MAX_STEP(m, nan, x + (iy * g->iw + ix) * C + c);
        _mm512_storeu_ps(o + c, _mm512_mask_mov_ps(m, nan, qnan));
      }
    }
  }
  return C16;
}
#endif

static void max_rows(void* arg, int64_t r0, int64_t r1) {
  const max_job* j = arg;
  int64_t c0 = 0;
#ifdef POOL_X86
  if (grt_cpu_vector_width_runs(16)) c0 = max_rows_v4(j, r0, r1);
#endif
  if (c0 < j->g->c) max_rows_from(j, r0, r1, c0);
}

/* Whether grt's loop runs this pooling: MaxPool forward, NHWC, undilated. */
static bool own_max_pool(const pool_geom* g, dnnl_alg_kind_t alg) {
  return alg == dnnl_pooling_max && !g->w.nchw && g->w.dilations[0] == 1 && g->w.dilations[1] == 1;
}

static void zero(grt_tensor* t) {
  size_t bytes = 0;
  if (grt_tensor_bytes_for(t->dtype, &t->shape, &bytes) && bytes) memset(grt_cpu_data(t), 0, bytes);
}

static grt_status* pool_forward(grt_kernel_ctx* ctx, dnnl_alg_kind_t alg) {
  const grt_tensor* in = ctx->inputs[0];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  pool_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in->shape, &g));
  grt_shape os;
  pooled_shape(&g, &os);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &os, &out));
  if (empty(&g)) {
    zero(out);
    return NULL;
  }
  if (own_max_pool(&g, alg)) {
    max_job j = {&g, grt_cpu_data(in), grt_cpu_data(out)};
    /* about a nanosecond per 16 channels of each window element */
    int64_t cost = g.ow * (g.c / 16 + 1) * g.w.ksize[0] * g.w.ksize[1];
    grt_parallel_for(ctx->intra_op, g.n * g.oh, cost, max_rows, &j);
    return NULL;
  }
  grt_dnnl_plan* p;
  bool owned;
  GRT_RETURN_IF_ERROR(plan_for(ctx, &g, alg, POOL_FORWARD, &p, &owned));
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  grt_status* s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[0], grt_cpu_data(in));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[1], grt_cpu_data(out));
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], "oneDNN pooling forward");
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}

grt_status* grt_cpu_max_pool(grt_kernel_ctx* ctx) { return pool_forward(ctx, dnnl_pooling_max); }
grt_status* grt_cpu_avg_pool(grt_kernel_ctx* ctx) {
  return pool_forward(ctx, dnnl_pooling_avg_exclude_padding);
}

static grt_status* check_shape(const grt_tensor* t, const grt_shape* want, const char* what) {
  if (grt_shape_equal(&t->shape, want)) return NULL;
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT, "%s has shape %s, expected %s", what,
                   grt_cpu_shape_str(&t->shape, a), grt_cpu_shape_str(want, b));
}

/* The backward pass: `in` is orig_input for max pooling (NULL for
 * average), `grad` the gradient of the pooled output, `out` the input's
 * gradient. */
static grt_status* pool_backward(grt_kernel_ctx* ctx, dnnl_alg_kind_t alg, const pool_geom* g,
                                 const grt_tensor* in, const grt_tensor* grad, grt_tensor* out) {
  if (empty(g)) {
    zero(out);
    return NULL;
  }
  grt_dnnl_plan* p;
  bool owned;
  GRT_RETURN_IF_ERROR(plan_for(ctx, g, alg, POOL_BACKWARD, &p, &owned));
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  grt_status* s = NULL;
  void* ws = NULL;
  if (in) {
    void* pooled = NULL;
    s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[1]), &pooled);
    if (!s) s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[2]), &ws);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[0], grt_cpu_data(in));
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[1], pooled);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_WORKSPACE, &p->md[2], ws);
    if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], "oneDNN pooling forward");
  }
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_DST, &p->md[1], grt_cpu_data(grad));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_SRC, &p->md[0], grt_cpu_data(out));
  if (!s && in) s = grt_dnnl_call_arg(&call, DNNL_ARG_WORKSPACE, &p->md[2], ws);
  if (!s) s = grt_dnnl_call_run(&call, p->prim[1], p->scratch[1], "oneDNN pooling backward");
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}

grt_status* grt_cpu_max_pool_grad(grt_kernel_ctx* ctx) {
  const grt_tensor* in = ctx->inputs[0];
  const grt_tensor* grad = ctx->inputs[2];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  pool_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in->shape, &g));
  grt_shape ps;
  pooled_shape(&g, &ps);
  GRT_RETURN_IF_ERROR(check_shape(ctx->inputs[1], &ps, "orig_output"));
  GRT_RETURN_IF_ERROR(check_shape(grad, &ps, "grad"));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &in->shape, &out));
  return pool_backward(ctx, dnnl_pooling_max, &g, in, grad, out);
}

grt_status* grt_cpu_avg_pool_grad(grt_kernel_ctx* ctx) {
  const grt_tensor* grad = ctx->inputs[1];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, grad->dtype));
  grt_shape in_shape;
  GRT_RETURN_IF_ERROR(grt_cpu_sizes_input(ctx->inputs[0], "orig_input_shape", &in_shape));
  pool_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in_shape, &g));
  grt_shape ps;
  pooled_shape(&g, &ps);
  GRT_RETURN_IF_ERROR(check_shape(grad, &ps, "grad"));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, grad->dtype, &in_shape, &out));
  return pool_backward(ctx, dnnl_pooling_avg_exclude_padding, &g, NULL, grad, out);
}
