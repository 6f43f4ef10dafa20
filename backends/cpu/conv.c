/* Conv2D, DepthwiseConv2dNative and the Conv2D backprops on oneDNN's
 * convolution primitives (forward, backward data, backward weights).
 *
 * Activations stay in grt's layout (NHWC or NCHW, which oneDNN's
 * optimised implementations read directly); the filter is described to
 * oneDNN in grt's HWIO layout and the primitive picks its own weights
 * layout, into which the filter is reordered on each call (or out of which
 * the filter gradient is reordered); the filter of Conv2D,
 * DepthwiseConv2dNative or Conv2DBackpropInput that is a Const or a
 * variable no run writes (marked `_grt_const_b` / `_grt_var_b` by the
 * session's rewrite pass) is reordered once and kept in the node's state
 * (dnnl_pack.h). A depthwise convolution in NHWC with one output channel per
 * input channel may run on grt's own kernel instead (conv_depthwise.h).
 * A plan holds:
 *   prim[0] the convolution, prim[1] the weights reorder (NULL when
 *   oneDNN takes HWIO as it is);
 *   md[0] the filter in HWIO, md[1] the primitive's weights, md[2] the
 *   input (src) side, md[3] the output (dst) side. */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv_expand_dw.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_util.h"

typedef enum { CONV_FORWARD, CONV_BACKWARD_DATA, CONV_BACKWARD_WEIGHTS } conv_kind;

static const char* const kWhat[] = {"oneDNN convolution forward",
                                    "oneDNN convolution backward data",
                                    "oneDNN convolution backward weights"};

typedef struct {
  dnnl_dims_t strides, dilates, pad_l, pad_r;
} conv_dims;

static void conv_dims_of(const grt_cpu_conv* g, conv_dims* d) {
  for (int i = 0; i < 2; i++) {
    d->strides[i] = g->w.strides[i];
    d->dilates[i] = g->w.dilations[i] - 1; /* oneDNN counts the gaps */
    d->pad_l[i] = g->pad_l[i];
    d->pad_r[i] = g->pad_r[i];
  }
}

/* The forward descriptor; backward primitives need its primitive
 * descriptor as a hint. */
static grt_status* forward_desc(const grt_cpu_conv* g, dnnl_prop_kind_t prop,
                                const dnnl_memory_desc_t* src, const dnnl_memory_desc_t* wany,
                                const dnnl_memory_desc_t* dst, dnnl_convolution_desc_t* out) {
  conv_dims d;
  conv_dims_of(g, &d);
  return grt_dnnl_check(
      dnnl_dilated_convolution_forward_desc_init(out, prop, dnnl_convolution_direct, src, wany,
                                                 NULL, dst, d.strides, d.dilates, d.pad_l, d.pad_r),
      kWhat[CONV_FORWARD]);
}

static grt_status* build(const grt_cpu_conv* g, conv_kind kind, grt_dnnl_plan* p) {
  dnnl_memory_desc_t src, dst, filter, wany;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_mds(g, &src, &dst, &filter));
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_memory_desc_init_by_tag(&wany, filter.ndims, filter.dims, dnnl_f32, dnnl_format_tag_any),
      "oneDNN filter descriptor"));
  p->md[0] = filter;
  p->md[2] = src;
  p->md[3] = dst;
  conv_dims d;
  conv_dims_of(g, &d);
  dnnl_convolution_desc_t fwd, desc;
  dnnl_primitive_desc_t hint = NULL, pd = NULL;
  if (kind == CONV_FORWARD) {
    GRT_RETURN_IF_ERROR(forward_desc(g, dnnl_forward_inference, &src, &wany, &dst, &desc));
  } else {
    GRT_RETURN_IF_ERROR(forward_desc(g, dnnl_forward_training, &src, &wany, &dst, &fwd));
    GRT_RETURN_IF_ERROR(grt_dnnl_check(
        dnnl_primitive_desc_create(&hint, &fwd, NULL, grt_dnnl_engine(), NULL), kWhat[kind]));
    dnnl_status_t st = kind == CONV_BACKWARD_DATA
                           ? dnnl_dilated_convolution_backward_data_desc_init(
                                 &desc, dnnl_convolution_direct, &src, &wany, &dst, d.strides,
                                 d.dilates, d.pad_l, d.pad_r)
                           : dnnl_dilated_convolution_backward_weights_desc_init(
                                 &desc, dnnl_convolution_direct, &src, &wany, NULL, &dst, d.strides,
                                 d.dilates, d.pad_l, d.pad_r);
    grt_status* s = grt_dnnl_check(st, kWhat[kind]);
    if (s) {
      dnnl_primitive_desc_destroy(hint);
      return s;
    }
  }
  grt_status* s = grt_dnnl_plan_make(p, 0, &desc, hint, kWhat[kind], &pd);
  if (hint) dnnl_primitive_desc_destroy(hint);
  if (s) return s;
  dnnl_query_t q =
      kind == CONV_BACKWARD_WEIGHTS ? dnnl_query_diff_weights_md : dnnl_query_weights_md;
  p->md[1] = *dnnl_primitive_desc_query_md(pd, q, 0);
  dnnl_primitive_desc_destroy(pd);
  if (dnnl_memory_desc_equal(&p->md[0], &p->md[1])) return NULL;
  /* The reorder between grt's HWIO filter and the primitive's layout. */
  const dnnl_memory_desc_t* from = kind == CONV_BACKWARD_WEIGHTS ? &p->md[1] : &p->md[0];
  const dnnl_memory_desc_t* to = kind == CONV_BACKWARD_WEIGHTS ? &p->md[0] : &p->md[1];
  dnnl_primitive_desc_t rpd = NULL;
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_reorder_primitive_desc_create(&rpd, from, grt_dnnl_engine(), to,
                                                        grt_dnnl_engine(), NULL),
                     "oneDNN filter reorder"));
  s = grt_dnnl_check(dnnl_primitive_create(&p->prim[1], rpd), "oneDNN filter reorder");
  dnnl_primitive_desc_destroy(rpd);
  return s;
}

/* The node's plan for g (built and cached on first use). *out_owned: the
 * caller frees the plan after the call (the cache was full). */
static grt_status* plan_for(grt_kernel_ctx* ctx, const grt_cpu_conv* g, conv_kind kind,
                            int64_t* key, int32_t* key_n, grt_dnnl_plan** out, bool* out_owned) {
  int32_t n = grt_cpu_conv_key(g, key);
  key[n++] = kind;
  int team = grt_dnnl_team(ctx, grt_cpu_conv_team_work(g));
  key[n++] = team;
  grt_dnnl_plan_threads(team);
  *key_n = n;
  *out_owned = false;
  *out = grt_dnnl_cache_find(ctx->state, key, n);
  if (*out) return NULL;
  grt_dnnl_plan* p = grt_dnnl_plan_new();
  if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
  grt_status* s = build(g, kind, p);
  if (s) {
    grt_dnnl_plan_free(p);
    return s;
  }
  *out = grt_dnnl_cache_offer(ctx->state, key, n, p, out_owned);
  return NULL;
}

/* Runs the plan: `act_in`/`act_out` are the src and dst sides' data,
 * `filter` grt's HWIO filter (read, or written for backward weights). */
static grt_status* run(grt_kernel_ctx* ctx, const grt_dnnl_plan* p, conv_kind kind,
                       const int64_t* key, int32_t key_n, void* src, void* filter, void* dst) {
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  call.threads = (int)key[key_n - 1]; /* the team (plan_for) */
  void* w = filter;                   /* the primitive's weights */
  grt_status* s = NULL;
  bool reorder = p->prim[1] != NULL;
  grt_dnnl_cache* state = ctx->state;
  grt_dnnl_packed* held = NULL;
  grt_dnnl_weights wt = {false, 0};
  /* Forward and backward data read the filter: kept packed when it is a
   * Const or an unchanging variable (dnnl_pack.h). */
  if (reorder && kind != CONV_BACKWARD_WEIGHTS && state)
    wt = grt_dnnl_weights_of(ctx, &state->packs, filter);
  if (wt.keep) {
    const void* packed = NULL;
    s = grt_dnnl_packed_weights(&state->packs, wt, &call, key, key_n, &p->md[0], filter, &p->md[1],
                                &packed, &held);
    w = (void*)packed;
    reorder = false;
  }
  if (!s && reorder) s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[1]), &w);
  if (!s && reorder && kind != CONV_BACKWARD_WEIGHTS) {
    s = grt_dnnl_call_arg(&call, DNNL_ARG_FROM, &p->md[0], filter);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_TO, &p->md[1], w);
    if (!s) s = grt_dnnl_call_run(&call, p->prim[1], 0, "oneDNN filter reorder");
  }
  static const int kSrc[] = {DNNL_ARG_SRC, DNNL_ARG_DIFF_SRC, DNNL_ARG_SRC};
  static const int kWeights[] = {DNNL_ARG_WEIGHTS, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_WEIGHTS};
  static const int kDst[] = {DNNL_ARG_DST, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_DST};
  if (!s) s = grt_dnnl_call_arg(&call, kSrc[kind], &p->md[2], src);
  if (!s) s = grt_dnnl_call_arg(&call, kWeights[kind], &p->md[1], w);
  if (!s) s = grt_dnnl_call_arg(&call, kDst[kind], &p->md[3], dst);
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], kWhat[kind]);
  grt_dnnl_packed_release(state ? &state->packs : NULL, held);
  if (!s && reorder && kind == CONV_BACKWARD_WEIGHTS) {
    s = grt_dnnl_call_arg(&call, DNNL_ARG_FROM, &p->md[1], w);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_TO, &p->md[0], filter);
    if (!s) s = grt_dnnl_call_run(&call, p->prim[1], 0, "oneDNN filter reorder");
  }
  grt_dnnl_call_end(&call);
  return s;
}

static bool empty(const grt_cpu_conv* g) {
  return g->n == 0 || g->ic == 0 || g->oc == 0 || g->oh == 0 || g->ow == 0 || g->ih == 0 ||
         g->iw == 0 || g->kh == 0 || g->kw == 0;
}

/* Runs `kind` for g with the three data pointers, or zero-fills `out`
 * when the convolution has no work (a zero-sized dimension). */
static grt_status* convolve(grt_kernel_ctx* ctx, const grt_cpu_conv* g, conv_kind kind, void* src,
                            void* filter, void* dst, grt_tensor* out) {
  if (empty(g)) {
    size_t bytes = 0;
    if (grt_tensor_bytes_for(out->dtype, &out->shape, &bytes) && bytes)
      memset(grt_cpu_data(out), 0, bytes);
    return NULL;
  }
  grt_dnnl_plan* p;
  bool owned;
  int64_t key[GRT_DNNL_KEY_MAX];
  int32_t key_n;
  GRT_RETURN_IF_ERROR(plan_for(ctx, g, kind, key, &key_n, &p, &owned));
  grt_status* s = run(ctx, p, kind, key, key_n, src, filter, dst);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}

static grt_status* forward(grt_kernel_ctx* ctx, bool depthwise) {
  const grt_tensor* in = ctx->inputs[0];
  const grt_tensor* filter = ctx->inputs[1];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  grt_cpu_conv g;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_make(ctx, &in->shape, &filter->shape, depthwise, &g));
  grt_shape os;
  grt_cpu_conv_output_shape(&g, &os);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &os, &out));
  if (depthwise && !empty(&g) && grt_cpu_dw_takes(&g, GRT_DW_ACT_NONE)) {
    const grt_cpu_dw_epilogue e = {NULL, false, GRT_DW_ACT_NONE, 0.0f};
    grt_cpu_dw_run(ctx->intra_op, &g, grt_cpu_data(in), grt_cpu_data(filter), &e,
                   grt_cpu_data(out));
    return NULL;
  }
  return convolve(ctx, &g, CONV_FORWARD, grt_cpu_data(in), grt_cpu_data(filter), grt_cpu_data(out),
                  out);
}

grt_status* grt_cpu_conv2d(grt_kernel_ctx* ctx) { return forward(ctx, false); }
grt_status* grt_cpu_depthwise_conv2d(grt_kernel_ctx* ctx) { return forward(ctx, true); }

/* out_backprop must have the forward output's shape. */
static grt_status* check_out_backprop(const grt_cpu_conv* g, const grt_tensor* dy) {
  grt_shape want;
  grt_cpu_conv_output_shape(g, &want);
  if (grt_shape_equal(&want, &dy->shape)) return NULL;
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT,
                   "out_backprop has shape %s, but the convolution's output is %s",
                   grt_cpu_shape_str(&dy->shape, a), grt_cpu_shape_str(&want, b));
}

grt_status* grt_cpu_conv2d_backprop_input(grt_kernel_ctx* ctx) {
  const grt_tensor* filter = ctx->inputs[1];
  const grt_tensor* dy = ctx->inputs[2];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, dy->dtype));
  grt_shape in_shape;
  GRT_RETURN_IF_ERROR(grt_cpu_sizes_input(ctx->inputs[0], "input_sizes", &in_shape));
  grt_cpu_conv g;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_make(ctx, &in_shape, &filter->shape, false, &g));
  GRT_RETURN_IF_ERROR(check_out_backprop(&g, dy));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, dy->dtype, &in_shape, &out));
  return convolve(ctx, &g, CONV_BACKWARD_DATA, grt_cpu_data(out), grt_cpu_data(filter),
                  grt_cpu_data(dy), out);
}

grt_status* grt_cpu_conv2d_backprop_filter(grt_kernel_ctx* ctx) {
  const grt_tensor* in = ctx->inputs[0];
  const grt_tensor* dy = ctx->inputs[2];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  grt_shape f_shape;
  GRT_RETURN_IF_ERROR(grt_cpu_sizes_input(ctx->inputs[1], "filter_sizes", &f_shape));
  grt_cpu_conv g;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_make(ctx, &in->shape, &f_shape, false, &g));
  GRT_RETURN_IF_ERROR(check_out_backprop(&g, dy));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &f_shape, &out));
  return convolve(ctx, &g, CONV_BACKWARD_WEIGHTS, grt_cpu_data(in), grt_cpu_data(out),
                  grt_cpu_data(dy), out);
}

#define K(op, fn) \
  { op, grt_cpu_##fn, grt_dnnl_state_new, grt_dnnl_state_free, 0 }

GRT_CPU_KERNEL_TABLE(conv, K("Conv2D", conv2d), K("DepthwiseConv2dNative", depthwise_conv2d),
                     K("Conv2DBackpropInput", conv2d_backprop_input),
                     K("Conv2DBackpropFilter", conv2d_backprop_filter), K("MaxPool", max_pool),
                     K("AvgPool", avg_pool), K("_DilatedMaxPool", max_pool), K("Conv3D", conv3d),
                     K("Conv3DBackpropInputV2", conv3d_backprop_input),
                     K("Conv3DBackpropFilterV2", conv3d_backprop_filter),
                     K("MaxPool3D", max_pool3d), K("AvgPool3D", avg_pool3d),
                     K("MaxPool3DGrad", max_pool3d_grad), K("AvgPool3DGrad", avg_pool3d_grad),
                     K("MaxPoolGrad", max_pool_grad), K("AvgPoolGrad", avg_pool_grad),
                     K("LRN", lrn), K("LRNGrad", lrn_grad), K("FusedBatchNormV3", fused_batch_norm),
                     K("FusedBatchNormGradV3", fused_batch_norm_grad),
                     {"_FusedExpandDepthwise", grt_cpu_fused_expand_depthwise, NULL, NULL, 0});
