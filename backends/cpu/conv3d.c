/* Conv3D and its backprops (Conv3DBackpropInputV2, Conv3DBackpropFilterV2)
 * on oneDNN's convolution primitives (forward, backward data, backward
 * weights), the 3-D form of Conv2D's kernels (conv.c): activations in
 * grt's layout (NDHWC or NCDHW, read in place), the filter described in
 * grt's DHWIO layout (grouped when the input's depth is a multiple of the
 * filter's, as Conv2D) and reordered on each call into the layout the
 * primitive picks (or the filter gradient out of it).
 * A plan: prim[0] the convolution, prim[1] the filter reorder or NULL;
 * md[0] the filter (DHWIO), md[1] the primitive's weights, md[2] src,
 * md[3] dst. */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/cpu_util.h"

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

typedef enum { CONV_FORWARD, CONV_BACKWARD_DATA, CONV_BACKWARD_WEIGHTS } conv_kind;

static const char* const kWhat[] = {"oneDNN 3-D convolution forward",
                                    "oneDNN 3-D convolution backward data",
                                    "oneDNN 3-D convolution backward weights"};

typedef struct {
  dnnl_dims_t strides, dilates, pad_l, pad_r;
} conv_dims;

static void conv_dims_of(const conv3d_geom* g, conv_dims* d) {
  for (int i = 0; i < 3; i++) {
    d->strides[i] = g->w.strides[i];
    d->dilates[i] = g->w.dilations[i] - 1; /* oneDNN counts the gaps */
    d->pad_l[i] = g->pad_l[i];
    d->pad_r[i] = g->pad_r[i];
  }
}

static grt_status* build(const conv3d_geom* g, conv_kind kind, grt_dnnl_plan* p) {
  dnnl_memory_desc_t wany;
  GRT_RETURN_IF_ERROR(filter_md(g, &p->md[0]));
  GRT_RETURN_IF_ERROR(act_md(g, g->in, g->ic, &p->md[2]));
  GRT_RETURN_IF_ERROR(act_md(g, g->out, g->oc, &p->md[3]));
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_memory_desc_init_by_tag(&wany, p->md[0].ndims, p->md[0].dims, dnnl_f32,
                                                  dnnl_format_tag_any),
                     "oneDNN filter descriptor"));
  conv_dims d;
  conv_dims_of(g, &d);
  dnnl_prop_kind_t prop = kind == CONV_FORWARD ? dnnl_forward_inference : dnnl_forward_training;
  dnnl_convolution_desc_t fwd, bwd;
  GRT_RETURN_IF_ERROR(grt_dnnl_check(dnnl_dilated_convolution_forward_desc_init(
                                         &fwd, prop, dnnl_convolution_direct, &p->md[2], &wany,
                                         NULL, &p->md[3], d.strides, d.dilates, d.pad_l, d.pad_r),
                                     kWhat[CONV_FORWARD]));
  dnnl_primitive_desc_t hint = NULL, pd = NULL;
  grt_status* s = NULL;
  if (kind == CONV_FORWARD) {
    s = grt_dnnl_plan_make(p, 0, &fwd, NULL, kWhat[kind], &pd);
  } else {
    /* The backward primitives need the forward one as a hint. */
    GRT_RETURN_IF_ERROR(grt_dnnl_check(
        dnnl_primitive_desc_create(&hint, &fwd, NULL, grt_dnnl_engine(), NULL), kWhat[kind]));
    dnnl_status_t st = kind == CONV_BACKWARD_DATA
                           ? dnnl_dilated_convolution_backward_data_desc_init(
                                 &bwd, dnnl_convolution_direct, &p->md[2], &wany, &p->md[3],
                                 d.strides, d.dilates, d.pad_l, d.pad_r)
                           : dnnl_dilated_convolution_backward_weights_desc_init(
                                 &bwd, dnnl_convolution_direct, &p->md[2], &wany, NULL, &p->md[3],
                                 d.strides, d.dilates, d.pad_l, d.pad_r);
    s = grt_dnnl_check(st, kWhat[kind]);
    if (!s) s = grt_dnnl_plan_make(p, 0, &bwd, hint, kWhat[kind], &pd);
    dnnl_primitive_desc_destroy(hint);
  }
  if (s) return s;
  dnnl_query_t q =
      kind == CONV_BACKWARD_WEIGHTS ? dnnl_query_diff_weights_md : dnnl_query_weights_md;
  p->md[1] = *dnnl_primitive_desc_query_md(pd, q, 0);
  dnnl_primitive_desc_destroy(pd);
  if (dnnl_memory_desc_equal(&p->md[0], &p->md[1])) return NULL;
  /* The reorder between grt's DHWIO filter and the primitive's layout:
   * into it for the filter read, out of it for the filter gradient. */
  bool out = kind == CONV_BACKWARD_WEIGHTS;
  dnnl_primitive_desc_t rpd = NULL;
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_reorder_primitive_desc_create(&rpd, out ? &p->md[1] : &p->md[0], grt_dnnl_engine(),
                                         out ? &p->md[0] : &p->md[1], grt_dnnl_engine(), NULL),
      "oneDNN filter reorder"));
  s = grt_dnnl_check(dnnl_primitive_create(&p->prim[1], rpd), "oneDNN filter reorder");
  dnnl_primitive_desc_destroy(rpd);
  return s;
}

/* Runs `kind` for g: `src` and `dst` the activation sides' data (the
 * gradient for backward data's src and the backward passes' dst),
 * `filter` grt's DHWIO filter (written for backward weights). `out` is the
 * kernel's output, zero-filled when the convolution sums nothing. */
static grt_status* convolve(grt_kernel_ctx* ctx, const conv3d_geom* g, conv_kind kind, void* src,
                            void* filter, void* dst, grt_tensor* out) {
  int64_t work = g->n * g->ic * g->oc;
  for (int32_t i = 0; i < 3; i++) work *= g->in[i] * g->out[i] * g->k[i];
  if (work == 0) {
    size_t bytes = 0;
    if (grt_tensor_bytes_for(out->dtype, &out->shape, &bytes) && bytes)
      memset(grt_cpu_data(out), 0, bytes);
    return NULL;
  }
  int64_t key[] = {g->n,     g->ic,   g->oc,   g->groups, g->in[0], g->in[1],
                   g->in[2], g->k[0], g->k[1], g->k[2],   kind};
  int32_t n = (int32_t)(sizeof key / sizeof key[0]);
  bool owned = false;
  grt_dnnl_plan* p = grt_dnnl_cache_find(ctx->state, key, n);
  if (!p) {
    p = grt_dnnl_plan_new();
    if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
    grt_status* s = build(g, kind, p);
    if (s) {
      grt_dnnl_plan_free(p);
      return s;
    }
    p = grt_dnnl_cache_offer(ctx->state, key, n, p, &owned);
  }
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  void* w = filter;
  grt_status* s = NULL;
  bool reorder = p->prim[1] != NULL, weights_out = kind == CONV_BACKWARD_WEIGHTS;
  if (reorder) s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[1]), &w);
  if (!s && reorder && !weights_out) {
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
  if (!s && reorder && weights_out) {
    s = grt_dnnl_call_arg(&call, DNNL_ARG_FROM, &p->md[1], w);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_TO, &p->md[0], filter);
    if (!s) s = grt_dnnl_call_run(&call, p->prim[1], 0, "oneDNN filter reorder");
  }
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
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
  return convolve(ctx, &g, CONV_FORWARD, grt_cpu_data(in), grt_cpu_data(filter), grt_cpu_data(out),
                  out);
}

/* A 5-element sizes input (input_sizes, filter_sizes, orig_input_shape)
 * as a shape. */
grt_status* grt_cpu_sizes5_input(const grt_tensor* t, const char* what, grt_shape* out) {
  int64_t d[5];
  int32_t n = 0;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t, what, d, 5, &n));
  if (n != 5) return GRT_ERROR(INVALID_ARGUMENT, "%s must have 5 elements, got %d", what, (int)n);
  out->rank = 5;
  for (int32_t i = 0; i < 5; i++) {
    if (d[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "%s must be non-negative, got %lld", what,
                       (long long)d[i]);
    out->dims[i] = d[i];
  }
  return NULL;
}

/* out_backprop must have the forward output's shape. */
static grt_status* check_out_backprop(const conv3d_geom* g, const grt_tensor* dy) {
  grt_shape want;
  act_shape(g, g->out, g->oc, &want);
  if (grt_shape_equal(&want, &dy->shape)) return NULL;
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT,
                   "out_backprop has shape %s, but the convolution's output is %s",
                   grt_cpu_shape_str(&dy->shape, a), grt_cpu_shape_str(&want, b));
}

grt_status* grt_cpu_conv3d_backprop_input(grt_kernel_ctx* ctx) {
  const grt_tensor *filter = ctx->inputs[1], *dy = ctx->inputs[2];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, dy->dtype));
  grt_shape in_shape;
  GRT_RETURN_IF_ERROR(grt_cpu_sizes5_input(ctx->inputs[0], "input_sizes", &in_shape));
  conv3d_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in_shape, &filter->shape, &g));
  GRT_RETURN_IF_ERROR(check_out_backprop(&g, dy));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, dy->dtype, &in_shape, &out));
  return convolve(ctx, &g, CONV_BACKWARD_DATA, grt_cpu_data(out), grt_cpu_data(filter),
                  grt_cpu_data(dy), out);
}

grt_status* grt_cpu_conv3d_backprop_filter(grt_kernel_ctx* ctx) {
  const grt_tensor *in = ctx->inputs[0], *dy = ctx->inputs[2];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  grt_shape f_shape;
  GRT_RETURN_IF_ERROR(grt_cpu_sizes5_input(ctx->inputs[1], "filter_sizes", &f_shape));
  conv3d_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in->shape, &f_shape, &g));
  GRT_RETURN_IF_ERROR(check_out_backprop(&g, dy));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &f_shape, &out));
  return convolve(ctx, &g, CONV_BACKWARD_WEIGHTS, grt_cpu_data(in), grt_cpu_data(out),
                  grt_cpu_data(dy), out);
}
