/* MaxPool3D and AvgPool3D on oneDNN's pooling primitive, the 3-D forms of
 * pool.c's kernels: activations in grt's layout (NDHWC or NCDHW), max
 * pooling never picking a padded element and average pooling dividing by
 * the real elements (pooling_avg_exclude_padding), TensorFlow's SAME.
 * A plan: prim[0] the pooling; md[0] the input, md[1] the output. */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/cpu_util.h"

static const char kWhat[] = "oneDNN 3-D pooling forward";

typedef struct {
  grt_window3d w;
  int64_t n, c;
  int64_t in[3], out[3]; /* depth, height, width */
  int64_t pad_l[3], pad_r[3];
} pool3d_geom;

static grt_status* geometry(const grt_kernel_ctx* ctx, const grt_shape* in, pool3d_geom* g) {
  char a[GRT_SHAPE_STR_MAX];
  if (in->rank != 5)
    return GRT_ERROR(INVALID_ARGUMENT, "input must be 5-dimensional: %s", grt_cpu_shape_str(in, a));
  GRT_RETURN_IF_ERROR(grt_window3d_read(ctx->node, ctx->node->def, GRT_WINDOW_KSIZE, &g->w));
  int32_t d = grt_window3d_d(&g->w);
  g->n = in->dims[0];
  g->c = in->dims[grt_window3d_c(&g->w)];
  for (int32_t i = 0; i < 3; i++) {
    g->in[i] = in->dims[d + i];
    GRT_RETURN_IF_ERROR(grt_window3d_dim(&g->w, i, g->in[i], g->w.ksize[i], &g->out[i],
                                         &g->pad_l[i], &g->pad_r[i]));
  }
  return NULL;
}

static grt_status* act_md(const pool3d_geom* g, const int64_t* sp, dnnl_memory_desc_t* out) {
  dnnl_dims_t d = {g->n, g->c, sp[0], sp[1], sp[2]};
  return grt_dnnl_check(
      dnnl_memory_desc_init_by_tag(out, 5, d, dnnl_f32, g->w.ncdhw ? dnnl_ncdhw : dnnl_ndhwc),
      "oneDNN memory descriptor");
}

static grt_status* build(const pool3d_geom* g, dnnl_alg_kind_t alg, grt_dnnl_plan* p) {
  GRT_RETURN_IF_ERROR(act_md(g, g->in, &p->md[0]));
  GRT_RETURN_IF_ERROR(act_md(g, g->out, &p->md[1]));
  dnnl_dims_t strides, kernel, dilation, pad_l, pad_r;
  for (int i = 0; i < 3; i++) {
    strides[i] = g->w.strides[i];
    kernel[i] = g->w.ksize[i];
    dilation[i] = 0;
    pad_l[i] = g->pad_l[i];
    pad_r[i] = g->pad_r[i];
  }
  dnnl_pooling_v2_desc_t desc;
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg, &p->md[0], &p->md[1],
                                        strides, kernel, dilation, pad_l, pad_r),
      kWhat));
  return grt_dnnl_plan_make(p, 0, &desc, NULL, kWhat, NULL);
}

static grt_status* pool3d(grt_kernel_ctx* ctx, dnnl_alg_kind_t alg) {
  const grt_tensor* in = ctx->inputs[0];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  pool3d_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in->shape, &g));
  grt_shape os = in->shape;
  int32_t d = grt_window3d_d(&g.w);
  for (int32_t i = 0; i < 3; i++) os.dims[d + i] = g.out[i];
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &os, &out));
  size_t bytes = 0;
  if (!grt_tensor_bytes_for(out->dtype, &out->shape, &bytes) || bytes == 0) return NULL;
  if (g.in[0] * g.in[1] * g.in[2] == 0) { /* windows over nothing */
    memset(grt_cpu_data(out), 0, bytes);
    return NULL;
  }
  int64_t key[] = {g.n, g.c, g.in[0], g.in[1], g.in[2]};
  int32_t n = (int32_t)(sizeof key / sizeof key[0]);
  bool owned = false;
  grt_dnnl_plan* p = grt_dnnl_cache_find(ctx->state, key, n);
  if (!p) {
    p = grt_dnnl_plan_new();
    if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
    grt_status* s = build(&g, alg, p);
    if (s) {
      grt_dnnl_plan_free(p);
      return s;
    }
    p = grt_dnnl_cache_offer(ctx->state, key, n, p, &owned);
  }
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  grt_status* s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[0], grt_cpu_data(in));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[1], grt_cpu_data(out));
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], kWhat);
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}

grt_status* grt_cpu_max_pool3d(grt_kernel_ctx* ctx) { return pool3d(ctx, dnnl_pooling_max); }
grt_status* grt_cpu_avg_pool3d(grt_kernel_ctx* ctx) {
  return pool3d(ctx, dnnl_pooling_avg_exclude_padding);
}
