/* _FusedConv2D and _FusedDepthwiseConv2dNative: TensorFlow's remapper nodes
 * for a convolution + BiasAdd (+ Add of a residual) (+ an activation),
 * made by grt's optimizer (optimizer/pass_conv_fusion.c) and the session's
 * rewrite: inputs (input, filter, bias[, residual]), the convolution's
 * attrs plus fused_ops, num_args, epsilon and leakyrelu_alpha
 * (ops/defs_fused.c). One oneDNN convolution with a bias argument and
 * post-ops (sum for the residual, then eltwise for the activation), so the
 * output is written once. The geometry and descriptors are the Conv2D
 * kernel's (conv.h); the filter is reordered into the primitive's layout on
 * each call, or once per node when it is a Const or an unchanging variable
 * (dnnl_pack.h), as Conv2D's is. A depthwise one in NHWC with one output
 * channel per input channel and an activation of its own may run on grt's
 * depthwise kernel instead (conv_depthwise.h); a _FusedConv2D whose
 * input_data_format is NCHW (an NHWC convolution reading an NCHW image:
 * the optimizer's "stem" pass) runs on grt's stem kernel (conv_stem.h) where
 * that kernel takes the shape, else on oneDNN with the input reordered in.
 * An NHWC 1x1 one of few input channels, or a small one (a
 * squeeze-excitation block's), runs on grt's pointwise kernel
 * (conv_stem.h), which applies the activation while each output row is in
 * cache.
 *
 * The residual reaches oneDNN's sum post-op through the output: it is
 * copied there first and the convolution adds onto it.
 *
 * A 3x3 stride-1 one may run as oneDNN's Winograd convolution, which reads
 * and writes a blocked layout: its input is reordered into a temporary and
 * its output out of one (conv_winograd.c).
 *
 * With fused_ops starting "_InputScale" (grt's own, made by the optimizer's
 * input_scale pass, optimizer/pass_input_scale.c) the first arg is a scale
 * of shape [N, 1, 1, C] the input is multiplied by (a squeeze-excitation
 * block's channel weights): the convolution of x * s is the convolution of
 * x with the filter's input channels scaled by s, so each batch element
 * runs with its own scaled filter and the scaled input is never written.
 *
 * A depthwise one with num_means 1 also writes each channel's mean over the
 * output's positions (a squeeze-excitation block's Mean, asked for by the
 * optimizer's channel_mean pass): summed while grt's activation rows have
 * each block of the output in L1, or in a pass of their own where the
 * activation is a post-op or grt's depthwise kernel's.
 *
 * A plan: prim[0] the convolution, prim[1] the filter reorder or NULL;
 * md[0] filter (HWIO), md[1] the primitive's weights, md[2] src, md[3] dst
 * (the tensors' layouts: md[2] NCHW for an NCHW input), md[4] bias, md[5]
 * and md[6] the primitive's src and dst (equal to md[2] and md[3] but for
 * Winograd's blocked layout and an NCHW input). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/act_rows.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/conv_stem.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/matmul_dnnl.h"
#include "base/status.h"
#include "base/tensor.h"

static const char kWhat[] = "oneDNN fused convolution";

/* The activations a fused convolution may end with, by fused_ops name: the
 * oneDNN eltwise post-op and its arguments (alpha < 0: leakyrelu_alpha).
 * _HardSwish and _Swish are grt's names (TensorFlow's remapper has none);
 * hardswish is x * relu6(x + 3) / 6, swish x * sigmoid(x). */
typedef struct {
  const char* name;
  dnnl_alg_kind_t alg;
  float alpha, beta;
  grt_dw_act dw; /* the same in grt's depthwise kernel (conv_depthwise.h) */
  /* 1 + the grt_cpu_act whose rows run over oneDNN's output in place of
   * the post-op, else 0: oneDNN 2.6's logistic and swish post-ops cost
   * about twice grt's rows, even with the second pass over memory
   * (DNNL.md, "SiLU"). */
  int rows;
} conv_act;

static const conv_act kActs[] = {
    {"Relu", dnnl_eltwise_relu, 0.0f, 0.0f, GRT_DW_ACT_RELU, 0},
    {"Relu6", dnnl_eltwise_clip_v2, 0.0f, 6.0f, GRT_DW_ACT_RELU6, 0},
    {"Elu", dnnl_eltwise_elu, 1.0f, 0.0f, GRT_DW_ACT_ELU, 0},
    {"LeakyRelu", dnnl_eltwise_relu, -1.0f, 0.0f, GRT_DW_ACT_RELU, 0},
    {"Sigmoid", dnnl_eltwise_logistic, 0.0f, 0.0f, GRT_DW_ACT_SIGMOID, 1 + GRT_CPU_ACT_SIGMOID},
    {"Tanh", dnnl_eltwise_tanh, 0.0f, 0.0f, GRT_DW_ACT_TANH, 0},
    {"_HardSwish", dnnl_eltwise_hardswish, 1.0f / 6.0f, 0.5f, GRT_DW_ACT_HARDSWISH, 0},
    {"_Swish", dnnl_eltwise_swish, 1.0f, 0.0f, GRT_DW_ACT_SWISH, 1 + GRT_CPU_ACT_SWISH},
};

/* What fused_ops asks for: ([_InputScale]) [BiasAdd] (+ [Add]) (+ [ACT]). */
typedef struct {
  bool input_scale; /* args start with the input's per-channel scale */
  bool residual;
  const conv_act* act; /* NULL: none */
  float alpha;         /* the activation's alpha (LeakyRelu's from the attr) */
  bool rows;           /* act runs as grt's rows after oneDNN, not as a post-op */
} fused_spec;

/* The fewest outputs for which grt's rows replace the post-op. */
static const int64_t kRowsMinOutputs = INT64_C(1) << 16;

/* Whether grt's own code runs where it may: yes unless environment
 * variable `name` says "onednn" (read once into *cache: -1 unread, 0
 * oneDNN, 1 grt's), the switches with which bench/models compares the two
 * in whole models. */
static bool grt_chosen(int* cache, const char* name) {
  int k = __atomic_load_n(cache, __ATOMIC_RELAXED);
  if (k < 0) {
    const char* env = getenv(name);
    k = env && strcmp(env, "onednn") == 0 ? 0 : 1;
    __atomic_store_n(cache, k, __ATOMIC_RELAXED);
  }
  return k == 1;
}

static int g_rows_choice = -1, g_pointwise_choice = -1; /* atomic */

/* grt's act_rows in place of oneDNN's post-op where the table says it may
 * (GRT_CPU_CONV_ACT). */
static bool rows_chosen(void) { return grt_chosen(&g_rows_choice, "GRT_CPU_CONV_ACT"); }

/* grt's pointwise kernel for the shapes it takes (GRT_CPU_POINTWISE). */
static bool pointwise_chosen(void) { return grt_chosen(&g_pointwise_choice, "GRT_CPU_POINTWISE"); }

bool grt_cpu_fused_act(const char* name, grt_dw_act* act, float* alpha, bool* alpha_from_attr) {
  for (size_t i = 0; i < sizeof kActs / sizeof kActs[0]; i++)
    if (strcmp(name, kActs[i].name) == 0) {
      *act = kActs[i].dw;
      *alpha_from_attr = kActs[i].alpha < 0;
      *alpha = *alpha_from_attr ? 0.0f : kActs[i].alpha;
      return true;
    }
  return false;
}

/* The epilogue of grt's own kernels for f with `bias`: Relu's alpha is 0
 * and LeakyRelu's its attr, as oneDNN's relu. */
static grt_cpu_dw_epilogue epilogue(const fused_spec* f, const grt_tensor* bias) {
  grt_cpu_dw_epilogue e = {grt_cpu_data(bias), f->residual, f->act ? f->act->dw : GRT_DW_ACT_NONE,
                           f->alpha};
  return e;
}

static grt_status* parse_fused(const grt_kernel_ctx* ctx, fused_spec* out) {
  const grt_attr_value* v = grt_kernel_attr(ctx, "fused_ops");
  if (!v || v->type != GRT_ATTR_LIST_STRING)
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'fused_ops' must be a list of strings");
  int32_t n = v->u.list.n, k = 0;
  const char* const* ops = v->u.list.v.s;
  memset(out, 0, sizeof *out);
  if (n > 0 && strcmp(ops[0], "_InputScale") == 0) {
    out->input_scale = true;
    k++;
  }
  if (k >= n || strcmp(ops[k], "BiasAdd") != 0)
    return GRT_ERROR(UNIMPLEMENTED,
                     "fused_ops must start with BiasAdd (after an optional _InputScale), got %d "
                     "ops starting '%s'",
                     (int)n, n > 0 ? ops[0] : "");
  k++;
  if (k < n && strcmp(ops[k], "Add") == 0) {
    out->residual = true;
    k++;
  }
  if (k < n) {
    for (size_t i = 0; i < sizeof kActs / sizeof kActs[0]; i++)
      if (strcmp(ops[k], kActs[i].name) == 0) out->act = &kActs[i];
    if (!out->act)
      return GRT_ERROR(UNIMPLEMENTED,
                       "fused activation '%s' (Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, "
                       "_HardSwish or _Swish)",
                       ops[k]);
    out->alpha = out->act->alpha;
    out->rows = out->act->rows && rows_chosen();
    if (out->alpha < 0)
      GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "leakyrelu_alpha", &out->alpha));
    k++;
  }
  if (k != n)
    return GRT_ERROR(UNIMPLEMENTED, "fused_ops '%s' at position %d is not supported", ops[k],
                     (int)k);
  int64_t num_args = 0;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "num_args", &num_args));
  int64_t want = 1 + out->residual + out->input_scale;
  if (num_args != want || ctx->n_inputs != 2 + want)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "fused_ops with%s Add takes num_args %lld (%sbias%s), got num_args %lld and "
                     "%d inputs",
                     out->residual ? "" : "out", (long long)want, out->input_scale ? "scale, " : "",
                     out->residual ? " and residual" : "", (long long)num_args, (int)ctx->n_inputs);
  return NULL;
}

/* The activation of one value, as oneDNN's post-op computes it. */
static float activate(const fused_spec* f, float x) {
  if (!f->act) return x;
  switch (f->act->alg) {
    case dnnl_eltwise_relu:
      return x > 0 ? x : x * f->alpha;
    case dnnl_eltwise_clip_v2:
      return fminf(fmaxf(x, f->act->alpha), f->act->beta);
    case dnnl_eltwise_elu:
      return x > 0 ? x : expm1f(x);
    case dnnl_eltwise_logistic:
      return 1.0f / (1.0f + expf(-x));
    case dnnl_eltwise_tanh:
      return tanhf(x);
    case dnnl_eltwise_hardswish:
      return x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f;
    case dnnl_eltwise_swish:
      return x / (1.0f + expf(-x));
    default:
      return x;
  }
}

static grt_status* make_attr(const fused_spec* f, dnnl_primitive_attr_t* out) {
  GRT_RETURN_IF_ERROR(grt_dnnl_check(dnnl_primitive_attr_create(out), kWhat));
  grt_status* st = grt_dnnl_check(
      dnnl_primitive_attr_set_scratchpad_mode(*out, dnnl_scratchpad_mode_user), kWhat);
  if (!st && ((f->act && !f->rows) || f->residual)) {
    dnnl_post_ops_t po = NULL;
    st = grt_dnnl_check(dnnl_post_ops_create(&po), kWhat);
    if (!st && f->residual) st = grt_dnnl_check(dnnl_post_ops_append_sum(po, 1.0f), kWhat);
    if (!st && f->act && !f->rows)
      st = grt_dnnl_check(
          dnnl_post_ops_append_eltwise(po, 1.0f, f->act->alg, f->alpha, f->act->beta), kWhat);
    if (!st) st = grt_dnnl_check(dnnl_primitive_attr_set_post_ops(*out, po), kWhat);
    if (po) dnnl_post_ops_destroy(po);
  }
  if (st) dnnl_primitive_attr_destroy(*out);
  return st;
}

static grt_status* build(const grt_cpu_conv* g, const fused_spec* f, bool winograd, bool nchw_in,
                         grt_dnnl_plan* p) {
  dnnl_memory_desc_t src, dst, filter, wany, src_any, dst_any;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_mds(g, &src, &dst, &filter));
  src_any = src;
  dst_any = dst;
  if (winograd) {
    GRT_RETURN_IF_ERROR(grt_dnnl_check(
        dnnl_memory_desc_init_by_tag(&src_any, src.ndims, src.dims, dnnl_f32, dnnl_format_tag_any),
        kWhat));
    GRT_RETURN_IF_ERROR(grt_dnnl_check(
        dnnl_memory_desc_init_by_tag(&dst_any, dst.ndims, dst.dims, dnnl_f32, dnnl_format_tag_any),
        kWhat));
  }
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_memory_desc_init_by_tag(&wany, filter.ndims, filter.dims, dnnl_f32, dnnl_format_tag_any),
      kWhat));
  dnnl_dims_t bd = {g->oc};
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_memory_desc_init_by_tag(&p->md[4], 1, bd, dnnl_f32, dnnl_a), kWhat));
  p->md[0] = filter;
  p->md[2] = src;
  p->md[3] = dst;
  /* An NCHW input the primitive reads as NHWC: the same dims, reordered in. */
  if (nchw_in)
    GRT_RETURN_IF_ERROR(grt_dnnl_check(
        dnnl_memory_desc_init_by_tag(&p->md[2], src.ndims, src.dims, dnnl_f32, dnnl_nchw), kWhat));
  dnnl_dims_t strides, dilates, pad_l, pad_r;
  for (int i = 0; i < 2; i++) {
    strides[i] = g->w.strides[i];
    dilates[i] = g->w.dilations[i] - 1; /* oneDNN counts the gaps */
    pad_l[i] = g->pad_l[i];
    pad_r[i] = g->pad_r[i];
  }
  dnnl_convolution_desc_t desc;
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_dilated_convolution_forward_desc_init(
                         &desc, dnnl_forward_inference,
                         winograd ? dnnl_convolution_winograd : dnnl_convolution_direct, &src_any,
                         &wany, &p->md[4], &dst_any, strides, dilates, pad_l, pad_r),
                     kWhat));
  dnnl_primitive_attr_t attr;
  GRT_RETURN_IF_ERROR(make_attr(f, &attr));
  dnnl_primitive_desc_t pd = NULL;
  grt_status* s =
      grt_dnnl_check(dnnl_primitive_desc_create(&pd, &desc, attr, grt_dnnl_engine(), NULL), kWhat);
  dnnl_primitive_attr_destroy(attr);
  if (s) return s;
  p->md[1] = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  p->md[5] = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  p->md[6] = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  p->scratch[0] =
      dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
  s = grt_dnnl_check(dnnl_primitive_create(&p->prim[0], pd), kWhat);
  dnnl_primitive_desc_destroy(pd);
  if (s || dnnl_memory_desc_equal(&p->md[0], &p->md[1])) return s;
  dnnl_primitive_desc_t rpd = NULL;
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_reorder_primitive_desc_create(&rpd, &p->md[0], grt_dnnl_engine(),
                                                        &p->md[1], grt_dnnl_engine(), NULL),
                     "oneDNN filter reorder"));
  s = grt_dnnl_check(dnnl_primitive_create(&p->prim[1], rpd), "oneDNN filter reorder");
  dnnl_primitive_desc_destroy(rpd);
  return s;
}

/* The output of a convolution that sums nothing (a zero input depth or
 * window): act(0 + bias [+ residual]) at every position. `out` already
 * holds the residual when there is one. */
static void bias_only(const grt_cpu_conv* g, const fused_spec* f, const float* bias, float* out) {
  int64_t plane = g->oh * g->ow;
  for (int64_t b = 0; b < g->n; b++)
    for (int64_t c = 0; c < g->oc; c++)
      for (int64_t i = 0; i < plane; i++) {
        /* NCHW: channel planes; NHWC: channels innermost. */
        int64_t at = g->w.nchw ? (b * g->oc + c) * plane + i : (b * plane + i) * g->oc + c;
        out[at] = activate(f, bias[c] + (f->residual ? out[at] : 0.0f));
      }
}

static const int32_t kNchwToNhwc[4] = {0, 2, 3, 1};

/* *out: whether the input is NCHW under data_format NHWC (grt's attr
 * input_data_format, ops/defs_fused.c: set by the optimizer's "stem" pass
 * on a convolution grt's stem kernel runs, conv_stem.h). */
static grt_status* input_nchw(const grt_kernel_ctx* ctx, bool depthwise, bool* out) {
  const grt_attr_value* v = depthwise ? NULL : grt_kernel_attr(ctx, "input_data_format");
  const grt_attr_value* df = grt_kernel_attr(ctx, "data_format");
  const char* in = v && v->type == GRT_ATTR_STRING ? v->u.s : "";
  const char* fmt = df && df->type == GRT_ATTR_STRING ? df->u.s : "NHWC";
  *out = in[0] != 0;
  if (*out && (strcmp(in, "NCHW") != 0 || strcmp(fmt, "NHWC") != 0))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "input_data_format '%s' with data_format '%s': only an NCHW input to an NHWC "
                     "convolution is supported",
                     in, fmt);
  return NULL;
}

/* The plan cache's key for g with f's post-ops: Conv2D's kinds, then
 * `kind` (100 for the node's shape, 200 for one batch element of an
 * _InputScale convolution) with the activation's row, the residual and the
 * rows choice, the activation's alpha, the team and the variant. */
static int32_t plan_key(const grt_cpu_conv* g, const fused_spec* f, int kind, int team,
                        bool winograd, bool nchw_in, int64_t* key) {
  int32_t n = grt_cpu_conv_key(g, key);
  key[n++] =
      kind + (f->act ? 1 + (f->act - kActs) : 0) + (f->residual ? 50 : 0) + (f->rows ? 25 : 0);
  float alpha = f->alpha;
  int32_t a_bits;
  memcpy(&a_bits, &alpha, sizeof a_bits);
  key[n++] = a_bits;
  key[n++] = team;
  key[n++] = winograd;
  key[n++] = nchw_in;
  return n;
}

/* The plan for key, from the node's cache or built (the direct kernel where
 * oneDNN has no Winograd one for the shape); *owned when the caller must
 * free it. */
static grt_status* cached_plan(grt_kernel_ctx* ctx, const grt_cpu_conv* g, const fused_spec* f,
                               int team, bool winograd, bool nchw_in, const int64_t* key, int32_t n,
                               grt_dnnl_plan** out, bool* owned) {
  *owned = false;
  *out = grt_dnnl_cache_find(ctx->state, key, n);
  if (*out) return NULL;
  grt_dnnl_plan_threads(team);
  grt_dnnl_plan* p = grt_dnnl_plan_new();
  if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
  grt_status* s = build(g, f, winograd, nchw_in, p);
  if (s && winograd) {
    /* No Winograd kernel for this shape here: the direct one. */
    grt_status_free(s);
    grt_dnnl_plan_free(p);
    p = grt_dnnl_plan_new();
    if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
    s = build(g, f, false, nchw_in, p);
  }
  if (s) {
    grt_dnnl_plan_free(p);
    return s;
  }
  *out = grt_dnnl_cache_offer(ctx->state, key, n, p, owned);
  return NULL;
}

/* The filter's input channels times scale[b] (HWIO: channel c of every
 * [kh, kw, c, :] row) into `to`. */
static void scale_filter(const grt_cpu_conv* g, const float* w, const float* scale_b, float* to) {
  for (int64_t r = 0; r < g->kh * g->kw; r++)
    for (int64_t c = 0; c < g->ic; c++) {
      const float* from = w + (r * g->ic + c) * g->oc;
      float* t = to + (r * g->ic + c) * g->oc;
      float k = scale_b[c];
      for (int64_t o = 0; o < g->oc; o++) t[o] = from[o] * k;
    }
}

/* run_input_scaled on grt's pointwise kernel (g1: one batch element's
 * convolution, which the kernel takes). */
static grt_status* run_input_scaled_pointwise(grt_kernel_ctx* ctx, const grt_cpu_conv* g1,
                                              const fused_spec* f, const grt_tensor* in,
                                              const grt_tensor* filter, const grt_tensor* scale,
                                              const grt_tensor* bias, grt_tensor* out) {
  grt_tensor* wt = NULL;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &filter->shape, &wt));
  const grt_cpu_dw_epilogue e = epilogue(f, bias);
  int64_t n = in->shape.dims[0], in_step = g1->ih * g1->iw * g1->ic;
  int64_t out_step = g1->oh * g1->ow * g1->oc;
  for (int64_t b = 0; b < n; b++) {
    scale_filter(g1, grt_cpu_data(filter), (const float*)grt_cpu_data(scale) + b * g1->ic,
                 grt_cpu_data(wt));
    grt_cpu_pointwise_run(ctx->intra_op, g1, (const float*)grt_cpu_data(in) + b * in_step,
                          grt_cpu_data(wt), &e, (float*)grt_cpu_data(out) + b * out_step);
  }
  grt_tensor_free(wt);
  return NULL;
}

/* conv(x * scale) + bias (+ residual, already in out) (+ act): per batch
 * element b, the filter's input channels times scale[b] (HWIO: channel c of
 * every [kh, kw, c, :] row), then one batch-1 convolution on b's part of
 * the input and output. */
static grt_status* run_input_scaled(grt_kernel_ctx* ctx, const grt_cpu_conv* g, const fused_spec* f,
                                    const grt_tensor* in, const grt_tensor* filter,
                                    const grt_tensor* scale, const grt_tensor* bias,
                                    grt_tensor* out) {
  grt_cpu_conv g1 = *g;
  g1.n = 1;
  if (grt_cpu_pointwise_takes_scaled(&g1) && pointwise_chosen())
    return run_input_scaled_pointwise(ctx, &g1, f, in, filter, scale, bias, out);
  int team = grt_dnnl_team(ctx, grt_cpu_conv_team_work(g));
  fused_spec f1 = *f;
  f1.rows = f->rows && grt_tensor_num_elements(out) >= kRowsMinOutputs;
  int64_t key[GRT_DNNL_KEY_MAX];
  int32_t n = plan_key(&g1, &f1, 200, team, false, false, key);
  grt_dnnl_plan* p = NULL;
  bool owned = false;
  GRT_RETURN_IF_ERROR(cached_plan(ctx, &g1, &f1, team, false, false, key, n, &p, &owned));
  grt_tensor* wt = NULL;
  grt_status* s = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &filter->shape, &wt);
  const float* w = grt_cpu_data(filter);
  const float* sc = grt_cpu_data(scale);
  int64_t in_step = g->ih * g->iw * g->ic, out_step = g->oh * g->ow * g->oc;
  for (int64_t b = 0; !s && b < g->n; b++) {
    float* ws = grt_cpu_data(wt);
    scale_filter(g, w, sc + b * g->ic, ws);
    grt_dnnl_call call;
    grt_dnnl_call_init(&call, ctx);
    call.threads = team;
    void* wp = ws;
    if (p->prim[1]) {
      s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[1]), &wp);
      if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_FROM, &p->md[0], ws);
      if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_TO, &p->md[1], wp);
      if (!s) s = grt_dnnl_call_run(&call, p->prim[1], 0, "oneDNN filter reorder");
    }
    if (!s)
      s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[5], (float*)grt_cpu_data(in) + b * in_step);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_WEIGHTS, &p->md[1], wp);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_BIAS, &p->md[4], grt_cpu_data(bias));
    if (!s)
      s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[6],
                            (float*)grt_cpu_data(out) + b * out_step);
    if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], kWhat);
    grt_dnnl_call_end(&call);
  }
  grt_tensor_free(wt);
  if (!s && f1.rows)
    grt_cpu_act_rows_parallel(ctx->intra_op, team, (grt_cpu_act)(f1.act->rows - 1),
                              grt_cpu_data(out), grt_tensor_num_elements(out));
  if (owned) grt_dnnl_plan_free(p);
  return s;
}

/* Output 1 of a depthwise convolution with num_means 1: [N, 1, 1, C] of
 * the NHWC output's channel means, with the activation rows applied on the
 * way when `rows` (else the output is only read). */
static grt_status* channel_means(grt_kernel_ctx* ctx, const grt_cpu_conv* g, const fused_spec* f,
                                 bool rows, int team, grt_tensor* out) {
  grt_shape ms = {4, {g->n, 1, 1, g->oc}};
  grt_tensor *m = NULL, *partial = NULL;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 1, GRT_FLOAT32, &ms, &m));
  if (team < 1) team = 1;
  grt_shape ps = {1, {team * g->n * g->oc}};
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_temp(ctx, GRT_FLOAT64, &ps, &partial));
  grt_cpu_act_rows_mean_parallel(
      ctx->intra_op, team, rows, rows ? (grt_cpu_act)(f->act->rows - 1) : GRT_CPU_ACT_SIGMOID,
      grt_cpu_data(out), g->n, g->oh * g->ow, g->oc, grt_cpu_data(partial), grt_cpu_data(m));
  grt_tensor_free(partial);
  return NULL;
}

/* num_means (0 or 1; 1 only on an NHWC depthwise convolution). */
static grt_status* means_wanted(const grt_kernel_ctx* ctx, bool depthwise, const grt_cpu_conv* g,
                                bool* out) {
  int64_t k = 0;
  *out = false;
  if (!depthwise) return NULL;
  const grt_attr_value* v = grt_kernel_attr(ctx, "num_means");
  if (v) GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "num_means", &k));
  if (k < 0 || k > 1 || (k == 1 && g->w.nchw) || ctx->n_outputs != 1 + k)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "_FusedDepthwiseConv2dNative: num_means %lld with %d outputs (0, or 1 in "
                     "NHWC)",
                     (long long)k, (int)ctx->n_outputs);
  *out = k == 1;
  return NULL;
}

static grt_status* fused(grt_kernel_ctx* ctx, bool depthwise) {
  const char* op = depthwise ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D";
  if (ctx->n_inputs < 3 || ctx->n_inputs > 5)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "%s takes input, filter, an optional scale, bias and an optional residual, "
                     "got %d inputs",
                     op, (int)ctx->n_inputs);
  for (int32_t i = 0; i < ctx->n_inputs; i++)
    if (!ctx->inputs[i]) return GRT_ERROR(INVALID_ARGUMENT, "%s: input %d is missing", op, (int)i);
  fused_spec f;
  GRT_RETURN_IF_ERROR(parse_fused(ctx, &f));
  /* args: (scale,) bias (, residual) */
  const int32_t a0 = f.input_scale ? 3 : 2;
  const grt_tensor *in = ctx->inputs[0], *filter = ctx->inputs[1], *bias = ctx->inputs[a0];
  const grt_tensor* scale = f.input_scale ? ctx->inputs[2] : NULL;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, bias->dtype));
  bool nchw_in = false;
  GRT_RETURN_IF_ERROR(input_nchw(ctx, depthwise, &nchw_in));
  /* ops/defs_fused.c: _InputScale belongs to a _FusedConv2D reading its
   * input in data_format. */
  if (scale && (depthwise || nchw_in))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "%s: _InputScale is defined for _FusedConv2D without input_data_format", op);
  /* An NCHW input is described to the geometry as the NHWC tensor it
   * would be transposed into: g is the NHWC convolution's. */
  grt_shape in_shape = in->shape;
  if (nchw_in && in_shape.rank == 4)
    for (int32_t d = 0; d < 4; d++) in_shape.dims[d] = in->shape.dims[kNchwToNhwc[d]];
  grt_cpu_conv g;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_make(ctx, &in_shape, &filter->shape, depthwise, &g));
  char buf[GRT_SHAPE_STR_MAX], buf2[GRT_SHAPE_STR_MAX];
  if (bias->shape.rank != 1 || bias->shape.dims[0] != g.oc)
    return GRT_ERROR(INVALID_ARGUMENT, "bias must be a vector of %lld elements, got %s",
                     (long long)g.oc, grt_cpu_shape_str(&bias->shape, buf));
  bool means = false;
  GRT_RETURN_IF_ERROR(means_wanted(ctx, depthwise, &g, &means));
  if (scale) {
    GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, scale->dtype));
    if (g.w.nchw || scale->shape.rank != 4 || scale->shape.dims[0] != g.n ||
        scale->shape.dims[1] != 1 || scale->shape.dims[2] != 1 || scale->shape.dims[3] != g.ic ||
        g.ic != filter->shape.dims[2])
      return GRT_ERROR(INVALID_ARGUMENT,
                       "_InputScale takes an NHWC input of one group and a scale of shape [%lld, "
                       "1, 1, %lld], got %s (data_format %s)",
                       (long long)g.n, (long long)g.ic, grt_cpu_shape_str(&scale->shape, buf),
                       g.w.nchw ? "NCHW" : "NHWC");
  }
  grt_shape os;
  grt_cpu_conv_output_shape(&g, &os);
  const grt_tensor* res = f.residual ? ctx->inputs[a0 + 1] : NULL;
  if (res) {
    GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, res->dtype));
    if (!grt_shape_equal(&res->shape, &os))
      return GRT_ERROR(INVALID_ARGUMENT, "the residual has shape %s, the convolution's output %s",
                       grt_cpu_shape_str(&res->shape, buf), grt_cpu_shape_str(&os, buf2));
  }
  /* The residual is summed into the output (oneDNN's sum post-op reads the
   * destination), so the output starts as the residual: its own buffer
   * when this node is the residual's last reader (a ResNet block's
   * shortcut), else a copy. */
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(
      res ? grt_kernel_forward_or_alloc_output(ctx, a0 + 1, 0, GRT_FLOAT32, &os, &out)
          : grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &os, &out));
  if (g.n == 0 || g.oc == 0 || g.oh == 0 || g.ow == 0) /* no output */
    return means ? channel_means(ctx, &g, &f, false, 1, out) : NULL;
  if (res && grt_cpu_data(out) != grt_cpu_data(res))
    memcpy(grt_cpu_data(out), grt_cpu_data(res), (size_t)grt_shape_num_elements(&os) * 4);
  if (g.ic == 0 || g.ih == 0 || g.iw == 0 || g.kh == 0 || g.kw == 0) {
    bias_only(&g, &f, grt_cpu_data(bias), grt_cpu_data(out)); /* the sums are empty: 0 */
    return means ? channel_means(ctx, &g, &f, false, 1, out) : NULL;
  }
  if (scale) return run_input_scaled(ctx, &g, &f, in, filter, scale, bias, out);
  /* grt's own kernels, where one takes the shape. */
  const grt_cpu_dw_epilogue e = epilogue(&f, bias);
  if (nchw_in && grt_cpu_stem_takes(&g)) {
    grt_cpu_stem_run(ctx->intra_op, &g, grt_cpu_data(in), grt_cpu_data(filter), &e,
                     grt_cpu_data(out));
    return NULL;
  }
  if (!depthwise && !nchw_in && grt_cpu_pointwise_takes(&g) && pointwise_chosen()) {
    grt_cpu_pointwise_run(ctx->intra_op, &g, grt_cpu_data(in), grt_cpu_data(filter), &e,
                          grt_cpu_data(out));
    return NULL;
  }
  if (depthwise && grt_cpu_dw_takes(&g, e.act)) {
    grt_cpu_dw_run(ctx->intra_op, &g, grt_cpu_data(in), grt_cpu_data(filter), &e,
                   grt_cpu_data(out));
    return means ? channel_means(ctx, &g, &f, false, grt_dnnl_team(ctx, grt_cpu_conv_team_work(&g)),
                                 out)
                 : NULL;
  }
  /* Below 2^16 outputs the post-op wins: the rows' pass costs a wake-up
   * of the team and a second touch of the output for little arithmetic
   * (DNNL.md, "SiLU"). Not with the means, whose pass over the output
   * runs anyway and applies the activation as it sums. */
  if (!means && grt_shape_num_elements(&os) < kRowsMinOutputs) f.rows = false;
  int team = grt_dnnl_team(ctx, grt_cpu_conv_team_work(&g));
  bool winograd = grt_cpu_conv_winograd_takes(&g);
  int64_t key[GRT_DNNL_KEY_MAX];
  int32_t n = plan_key(&g, &f, 100, team, winograd, nchw_in, key);
  bool owned = false;
  grt_dnnl_plan* p = NULL;
  GRT_RETURN_IF_ERROR(cached_plan(ctx, &g, &f, team, winograd, nchw_in, key, n, &p, &owned));
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  call.threads = team;
  void* w = grt_cpu_data(filter);
  grt_status* s = NULL;
  grt_dnnl_cache* state = ctx->state;
  grt_dnnl_packed* held = NULL;
  grt_dnnl_weights wt = {false, 0};
  if (p->prim[1] && state) wt = grt_dnnl_weights_of(ctx, &state->packs, w);
  if (wt.keep) {
    const void* packed = NULL;
    s = grt_dnnl_packed_weights(&state->packs, wt, &call, key, n, &p->md[0], w, &p->md[1], &packed,
                                &held);
    w = (void*)packed;
  } else if (p->prim[1]) {
    s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[1]), &w);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_FROM, &p->md[0], grt_cpu_data(filter));
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_TO, &p->md[1], w);
    if (!s) s = grt_dnnl_call_run(&call, p->prim[1], 0, "oneDNN filter reorder");
  }
  /* An input in another layout than the primitive's (Winograd's blocked
   * one, or an NCHW input) is reordered in; Winograd's blocked output is
   * reordered out (and the residual in first, as the sum post-op reads it
   * from there). */
  void *src = grt_cpu_data(in), *dst = grt_cpu_data(out);
  bool src_moved = !dnnl_memory_desc_equal(&p->md[2], &p->md[5]);
  bool dst_moved = !dnnl_memory_desc_equal(&p->md[3], &p->md[6]);
  if (!s && src_moved) {
    s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[5]), &src);
    if (!s) s = grt_dnnl_call_reorder(&call, &p->md[2], grt_cpu_data(in), &p->md[5], src);
  }
  if (!s && dst_moved) {
    s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[6]), &dst);
    if (!s && f.residual)
      s = grt_dnnl_call_reorder(&call, &p->md[3], grt_cpu_data(out), &p->md[6], dst);
  }
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[5], src);
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_WEIGHTS, &p->md[1], w);
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_BIAS, &p->md[4], grt_cpu_data(bias));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[6], dst);
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], kWhat);
  if (!s && dst_moved) {
    s = grt_dnnl_call_reorder(&call, &p->md[6], dst, &p->md[3], grt_cpu_data(out));
    grt_cpu_conv_winograd_ran(); /* only Winograd's output is blocked */
  }
  grt_dnnl_packed_release(state ? &state->packs : NULL, held);
  grt_dnnl_call_end(&call);
  if (!s && means)
    s = channel_means(ctx, &g, &f, f.rows, team, out);
  else if (!s && f.rows)
    grt_cpu_act_rows_parallel(ctx->intra_op, team, (grt_cpu_act)(f.act->rows - 1),
                              grt_cpu_data(out), grt_shape_num_elements(&os));
  if (owned) grt_dnnl_plan_free(p);
  return s;
}

grt_status* grt_cpu_fused_conv2d(grt_kernel_ctx* ctx) { return fused(ctx, false); }
grt_status* grt_cpu_fused_depthwise_conv2d(grt_kernel_ctx* ctx) { return fused(ctx, true); }
