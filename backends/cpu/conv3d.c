/* Conv3D on oneDNN's convolution forward primitive, the 3-D form of
 * Conv2D's kernel (conv.c): activations in grt's layout (NDHWC or NCDHW,
 * read in place), the filter described in grt's DHWIO layout (grouped when
 * the input's depth is a multiple of the filter's, as Conv2D) and reordered
 * on each call into the layout the primitive picks.
 * A plan: prim[0] the convolution, prim[1] the filter reorder or NULL;
 * md[0] the filter (DHWIO), md[1] the primitive's weights, md[2] src,
 * md[3] dst. */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/cpu_util.h"

static const char kWhat[] = "oneDNN 3-D convolution forward";

typedef struct {
  grt_window3d w;
  int64_t n, ic, oc, groups;
  int64_t in[3], out[3], k[3]; /* depth, height, width */
  int64_t pad_l[3], pad_r[3];
} conv3d_geom;

static grt_status* geometry(const grt_kernel_ctx* ctx, const grt_shape* in, const grt_shape* f,
                            conv3d_geom* g) {
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  if (in->rank != 5)
    return GRT_ERROR(INVALID_ARGUMENT, "input must be 5-dimensional: %s", grt_cpu_shape_str(in, a));
  if (f->rank != 5)
    return GRT_ERROR(INVALID_ARGUMENT, "filter must be 5-dimensional: %s", grt_cpu_shape_str(f, a));
  GRT_RETURN_IF_ERROR(grt_window3d_read(ctx->node, ctx->node->def, GRT_WINDOW_DILATIONS, &g->w));
  int32_t d = grt_window3d_d(&g->w);
  g->n = in->dims[0];
  g->ic = in->dims[grt_window3d_c(&g->w)];
  g->oc = f->dims[4];
  int64_t f_in = f->dims[3];
  if (f_in <= 0 || g->ic % f_in != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "input depth must be evenly divisible by filter depth: %lld vs %lld (input "
                     "%s, filter %s)",
                     (long long)g->ic, (long long)f_in, grt_cpu_shape_str(in, a),
                     grt_cpu_shape_str(f, b));
  g->groups = g->ic / f_in;
  if (g->groups > 0 && g->oc % g->groups != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "output depth %lld is not a multiple of the number of groups %lld",
                     (long long)g->oc, (long long)g->groups);
  if (g->groups < 1) g->groups = 1; /* an empty input */
  for (int32_t i = 0; i < 3; i++) {
    g->in[i] = in->dims[d + i];
    g->k[i] = f->dims[i];
    GRT_RETURN_IF_ERROR(
        grt_window3d_dim(&g->w, i, g->in[i], g->k[i], &g->out[i], &g->pad_l[i], &g->pad_r[i]));
  }
  return NULL;
}

static void act_shape(const conv3d_geom* g, const int64_t* sp, int64_t c, grt_shape* out) {
  out->rank = 5;
  out->dims[0] = g->n;
  int32_t d = grt_window3d_d(&g->w);
  for (int32_t i = 0; i < 3; i++) out->dims[d + i] = sp[i];
  out->dims[grt_window3d_c(&g->w)] = c;
}

static grt_status* act_md(const conv3d_geom* g, const int64_t* sp, int64_t c,
                          dnnl_memory_desc_t* out) {
  dnnl_dims_t d = {g->n, c, sp[0], sp[1], sp[2]};
  return grt_dnnl_check(
      dnnl_memory_desc_init_by_tag(out, 5, d, dnnl_f32, g->w.ncdhw ? dnnl_ncdhw : dnnl_ndhwc),
      "oneDNN memory descriptor");
}

/* grt's DHWIO filter [kd, kh, kw, ic / groups, oc]; grouped, the output
 * channel split as (group, channel in group), as conv_geometry.c does in
 * 2-D. */
static grt_status* filter_md(const conv3d_geom* g, dnnl_memory_desc_t* out) {
  if (g->groups == 1) {
    dnnl_dims_t d = {g->oc, g->ic, g->k[0], g->k[1], g->k[2]};
    return grt_dnnl_check(dnnl_memory_desc_init_by_tag(out, 5, d, dnnl_f32, dnnl_dhwio),
                          "oneDNN filter descriptor");
  }
  int64_t icg = g->ic / g->groups, ocg = g->oc / g->groups;
  dnnl_dims_t d = {g->groups, ocg, icg, g->k[0], g->k[1], g->k[2]};
  dnnl_dims_t s = {ocg,        1, g->oc, g->k[1] * g->k[2] * icg * g->oc, g->k[2] * icg * g->oc,
                   icg * g->oc};
  return grt_dnnl_check(dnnl_memory_desc_init_by_strides(out, 6, d, dnnl_f32, s),
                        "oneDNN filter descriptor");
}

static grt_status* build(const conv3d_geom* g, grt_dnnl_plan* p) {
  dnnl_memory_desc_t wany;
  GRT_RETURN_IF_ERROR(filter_md(g, &p->md[0]));
  GRT_RETURN_IF_ERROR(act_md(g, g->in, g->ic, &p->md[2]));
  GRT_RETURN_IF_ERROR(act_md(g, g->out, g->oc, &p->md[3]));
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_memory_desc_init_by_tag(&wany, p->md[0].ndims, p->md[0].dims, dnnl_f32,
                                                  dnnl_format_tag_any),
                     "oneDNN filter descriptor"));
  dnnl_dims_t strides, dilates, pad_l, pad_r;
  for (int i = 0; i < 3; i++) {
    strides[i] = g->w.strides[i];
    dilates[i] = g->w.dilations[i] - 1; /* oneDNN counts the gaps */
    pad_l[i] = g->pad_l[i];
    pad_r[i] = g->pad_r[i];
  }
  dnnl_convolution_desc_t desc;
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_dilated_convolution_forward_desc_init(&desc, dnnl_forward_inference,
                                                 dnnl_convolution_direct, &p->md[2], &wany, NULL,
                                                 &p->md[3], strides, dilates, pad_l, pad_r),
      kWhat));
  dnnl_primitive_desc_t pd = NULL;
  GRT_RETURN_IF_ERROR(grt_dnnl_plan_make(p, 0, &desc, NULL, kWhat, &pd));
  p->md[1] = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  dnnl_primitive_desc_destroy(pd);
  if (dnnl_memory_desc_equal(&p->md[0], &p->md[1])) return NULL;
  dnnl_primitive_desc_t rpd = NULL;
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_reorder_primitive_desc_create(&rpd, &p->md[0], grt_dnnl_engine(),
                                                        &p->md[1], grt_dnnl_engine(), NULL),
                     "oneDNN filter reorder"));
  grt_status* s = grt_dnnl_check(dnnl_primitive_create(&p->prim[1], rpd), "oneDNN filter reorder");
  dnnl_primitive_desc_destroy(rpd);
  return s;
}

grt_status* grt_cpu_conv3d(grt_kernel_ctx* ctx) {
  const grt_tensor *in = ctx->inputs[0], *filter = ctx->inputs[1];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  conv3d_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in->shape, &filter->shape, &g));
  grt_shape os;
  act_shape(&g, g.out, g.oc, &os);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &os, &out));
  int64_t work = g.n * g.ic * g.oc;
  for (int32_t i = 0; i < 3; i++) work *= g.in[i] * g.out[i] * g.k[i];
  if (work == 0) { /* nothing summed or nothing to write: zeros */
    size_t bytes = 0;
    if (grt_tensor_bytes_for(out->dtype, &out->shape, &bytes) && bytes)
      memset(grt_cpu_data(out), 0, bytes);
    return NULL;
  }
  int64_t key[] = {g.n, g.ic, g.oc, g.groups, g.in[0], g.in[1], g.in[2], g.k[0], g.k[1], g.k[2]};
  int32_t n = (int32_t)(sizeof key / sizeof key[0]);
  bool owned = false;
  grt_dnnl_plan* p = grt_dnnl_cache_find(ctx->state, key, n);
  if (!p) {
    p = grt_dnnl_plan_new();
    if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
    grt_status* s = build(&g, p);
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
  if (p->prim[1]) {
    s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[1]), &w);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_FROM, &p->md[0], grt_cpu_data(filter));
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_TO, &p->md[1], w);
    if (!s) s = grt_dnnl_call_run(&call, p->prim[1], 0, "oneDNN filter reorder");
  }
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[2], grt_cpu_data(in));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_WEIGHTS, &p->md[1], w);
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[3], grt_cpu_data(out));
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], kWhat);
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}
