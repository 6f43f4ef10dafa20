/* _FusedConv2D: TensorFlow's remapper node for Conv2D + BiasAdd (+ Relu,
 * Relu6 or Elu): inputs (input, filter, bias), Conv2D's attrs plus
 * fused_ops, num_args and epsilon. One oneDNN convolution with a bias
 * argument and an eltwise post-op, so the output is written once. The
 * geometry and descriptors are the Conv2D kernel's (conv.h); the filter is
 * reordered into the primitive's layout on each call, or once per node
 * when it is a Const or an unchanging variable (dnnl_pack.h), as Conv2D's
 * is.
 * A plan: prim[0] the convolution, prim[1] the filter reorder or NULL;
 * md[0] filter (HWIO), md[1] the primitive's weights, md[2] src, md[3] dst,
 * md[4] bias. */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/matmul_dnnl.h"

static const char kWhat[] = "oneDNN fused convolution";

static grt_status* make_attr(grt_mm_activation act, dnnl_primitive_attr_t* out) {
  GRT_RETURN_IF_ERROR(grt_dnnl_check(dnnl_primitive_attr_create(out), kWhat));
  grt_status* st = grt_dnnl_check(
      dnnl_primitive_attr_set_scratchpad_mode(*out, dnnl_scratchpad_mode_user), kWhat);
  if (!st && act != GRT_MM_NONE) {
    int alg;
    float alpha, beta;
    grt_mm_activation_eltwise(act, &alg, &alpha, &beta);
    dnnl_post_ops_t po = NULL;
    st = grt_dnnl_check(dnnl_post_ops_create(&po), kWhat);
    if (!st)
      st = grt_dnnl_check(dnnl_post_ops_append_eltwise(po, 1.0f, (dnnl_alg_kind_t)alg, alpha, beta),
                          kWhat);
    if (!st) st = grt_dnnl_check(dnnl_primitive_attr_set_post_ops(*out, po), kWhat);
    if (po) dnnl_post_ops_destroy(po);
  }
  if (st) dnnl_primitive_attr_destroy(*out);
  return st;
}

static grt_status* build(const grt_cpu_conv* g, grt_mm_activation act, grt_dnnl_plan* p) {
  dnnl_memory_desc_t src, dst, filter, wany;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_mds(g, &src, &dst, &filter));
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_memory_desc_init_by_tag(&wany, filter.ndims, filter.dims, dnnl_f32, dnnl_format_tag_any),
      kWhat));
  dnnl_dims_t bd = {g->oc};
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_memory_desc_init_by_tag(&p->md[4], 1, bd, dnnl_f32, dnnl_a), kWhat));
  p->md[0] = filter;
  p->md[2] = src;
  p->md[3] = dst;
  dnnl_dims_t strides, dilates, pad_l, pad_r;
  for (int i = 0; i < 2; i++) {
    strides[i] = g->w.strides[i];
    dilates[i] = g->w.dilations[i] - 1; /* oneDNN counts the gaps */
    pad_l[i] = g->pad_l[i];
    pad_r[i] = g->pad_r[i];
  }
  dnnl_convolution_desc_t desc;
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_dilated_convolution_forward_desc_init(&desc, dnnl_forward_inference,
                                                 dnnl_convolution_direct, &src, &wany, &p->md[4],
                                                 &dst, strides, dilates, pad_l, pad_r),
      kWhat));
  dnnl_primitive_attr_t attr;
  GRT_RETURN_IF_ERROR(make_attr(act, &attr));
  dnnl_primitive_desc_t pd = NULL;
  grt_status* s =
      grt_dnnl_check(dnnl_primitive_desc_create(&pd, &desc, attr, grt_dnnl_engine(), NULL), kWhat);
  dnnl_primitive_attr_destroy(attr);
  if (s) return s;
  p->md[1] = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
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
 * window): act(0 + bias) at every position, channel by channel. */
static void bias_only(const grt_cpu_conv* g, grt_mm_activation act, const float* bias, float* out) {
  int64_t plane = g->oh * g->ow;
  for (int64_t b = 0; b < g->n; b++)
    for (int64_t c = 0; c < g->oc; c++) {
      float v = grt_mm_activate(act, bias[c]);
      for (int64_t i = 0; i < plane; i++) {
        /* NCHW: channel planes; NHWC: channels innermost. */
        int64_t at = g->w.nchw ? (b * g->oc + c) * plane + i : (b * plane + i) * g->oc + c;
        out[at] = v;
      }
    }
}

grt_status* grt_cpu_fused_conv2d(grt_kernel_ctx* ctx) {
  if (ctx->n_inputs != 3 || !ctx->inputs[0] || !ctx->inputs[1] || !ctx->inputs[2])
    return GRT_ERROR(INVALID_ARGUMENT,
                     "_FusedConv2D takes input, filter and one bias (num_args 1), got %d inputs",
                     (int)ctx->n_inputs);
  const grt_tensor *in = ctx->inputs[0], *filter = ctx->inputs[1], *bias = ctx->inputs[2];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, bias->dtype));
  grt_mm_activation act;
  GRT_RETURN_IF_ERROR(grt_cpu_fused_ops(ctx, &act));
  grt_cpu_conv g;
  GRT_RETURN_IF_ERROR(grt_cpu_conv_make(ctx, &in->shape, &filter->shape, false, &g));
  char buf[GRT_SHAPE_STR_MAX];
  if (bias->shape.rank != 1 || bias->shape.dims[0] != g.oc)
    return GRT_ERROR(INVALID_ARGUMENT, "bias must be a vector of %lld elements, got %s",
                     (long long)g.oc, grt_cpu_shape_str(&bias->shape, buf));
  grt_shape os;
  grt_cpu_conv_output_shape(&g, &os);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &os, &out));
  if (g.n == 0 || g.oc == 0 || g.oh == 0 || g.ow == 0) return NULL; /* no output */
  if (g.ic == 0 || g.ih == 0 || g.iw == 0 || g.kh == 0 || g.kw == 0) {
    bias_only(&g, act, grt_cpu_data(bias), grt_cpu_data(out)); /* the sums are empty: 0 */
    return NULL;
  }
  int64_t key[GRT_DNNL_KEY_MAX];
  int32_t n = grt_cpu_conv_key(&g, key);
  key[n++] = 100 + act; /* apart from Conv2D's kinds */
  bool owned = false;
  grt_dnnl_plan* p = grt_dnnl_cache_find(ctx->state, key, n);
  if (!p) {
    p = grt_dnnl_plan_new();
    if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
    grt_status* s = build(&g, act, p);
    if (s) {
      grt_dnnl_plan_free(p);
      return s;
    }
    p = grt_dnnl_cache_offer(ctx->state, key, n, p, &owned);
  }
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
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
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[2], grt_cpu_data(in));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_WEIGHTS, &p->md[1], w);
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_BIAS, &p->md[4], grt_cpu_data(bias));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[3], grt_cpu_data(out));
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], kWhat);
  grt_dnnl_packed_release(state ? &state->packs : NULL, held);
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}
