/* MaxPool3D, AvgPool3D and their gradients (MaxPool3DGrad, AvgPool3DGrad)
 * on oneDNN's pooling primitives, the 3-D forms of pool.c's kernels:
 * activations in grt's layout (NDHWC or NCDHW), max pooling never picking a
 * padded element and average pooling dividing by the real elements
 * (pooling_avg_exclude_padding), TensorFlow's SAME. MaxPool3DGrad reruns
 * the forward pass for oneDNN's workspace (where each maximum came from),
 * as pool.c's MaxPoolGrad does.
 * A plan: prim[0] the forward pass, prim[1] the backward pass; md[0] the
 * input side, md[1] the pooled side, md[2] the workspace (max, backward). */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/cpu_util.h"

static const char kWhat[] = "oneDNN 3-D pooling forward";
static const char kWhatBack[] = "oneDNN 3-D pooling backward";

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

typedef enum { POOL_FORWARD, POOL_BACKWARD } pool_kind;

static grt_status* build(const pool3d_geom* g, dnnl_alg_kind_t alg, pool_kind kind,
                         grt_dnnl_plan* p) {
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
  dnnl_prop_kind_t prop = kind == POOL_FORWARD ? dnnl_forward_inference : dnnl_forward_training;
  dnnl_pooling_v2_desc_t fwd, bwd;
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_pooling_v2_forward_desc_init(&fwd, prop, alg, &p->md[0], &p->md[1],
                                                       strides, kernel, dilation, pad_l, pad_r),
                     kWhat));
  if (kind == POOL_FORWARD) return grt_dnnl_plan_make(p, 0, &fwd, NULL, kWhat, NULL);
  dnnl_primitive_desc_t fwd_pd = NULL;
  if (alg == dnnl_pooling_max) {
    /* The forward pass runs too, for its workspace. */
    GRT_RETURN_IF_ERROR(grt_dnnl_plan_make(p, 0, &fwd, NULL, kWhat, &fwd_pd));
    const dnnl_memory_desc_t* ws = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_workspace_md, 0);
    if (!ws) {
      dnnl_primitive_desc_destroy(fwd_pd);
      return GRT_ERROR(INTERNAL, "oneDNN 3-D max pooling gave no workspace");
    }
    p->md[2] = *ws;
  } else {
    /* Average pooling's backward pass needs the forward descriptor only
     * as a hint. */
    GRT_RETURN_IF_ERROR(grt_dnnl_check(
        dnnl_primitive_desc_create(&fwd_pd, &fwd, NULL, grt_dnnl_engine(), NULL), kWhat));
  }
  grt_status* s =
      grt_dnnl_check(dnnl_pooling_v2_backward_desc_init(&bwd, alg, &p->md[0], &p->md[1], strides,
                                                        kernel, dilation, pad_l, pad_r),
                     kWhatBack);
  if (!s) s = grt_dnnl_plan_make(p, 1, &bwd, fwd_pd, kWhatBack, NULL);
  dnnl_primitive_desc_destroy(fwd_pd);
  return s;
}

static grt_status* plan_for(grt_kernel_ctx* ctx, const pool3d_geom* g, dnnl_alg_kind_t alg,
                            pool_kind kind, grt_dnnl_plan** out, bool* out_owned) {
  int64_t key[] = {g->n, g->c, g->in[0], g->in[1], g->in[2], kind};
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

static void pooled_shape(const pool3d_geom* g, const grt_shape* in, grt_shape* out) {
  *out = *in;
  int32_t d = grt_window3d_d(&g->w);
  for (int32_t i = 0; i < 3; i++) out->dims[d + i] = g->out[i];
}

/* Zero-fills t; true when the pooling has no work (an empty input or
 * output), which that finishes. */
static bool nothing_to_do(const pool3d_geom* g, grt_tensor* t) {
  int64_t work = g->n * g->c;
  for (int32_t i = 0; i < 3; i++) work *= g->in[i] * g->out[i];
  if (work != 0) return false;
  size_t bytes = 0;
  if (grt_tensor_bytes_for(t->dtype, &t->shape, &bytes) && bytes) memset(grt_cpu_data(t), 0, bytes);
  return true;
}

static grt_status* pool3d(grt_kernel_ctx* ctx, dnnl_alg_kind_t alg) {
  const grt_tensor* in = ctx->inputs[0];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  pool3d_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in->shape, &g));
  grt_shape os;
  pooled_shape(&g, &in->shape, &os);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &os, &out));
  if (nothing_to_do(&g, out)) return NULL;
  grt_dnnl_plan* p;
  bool owned;
  GRT_RETURN_IF_ERROR(plan_for(ctx, &g, alg, POOL_FORWARD, &p, &owned));
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

static grt_status* check_shape(const grt_tensor* t, const grt_shape* want, const char* what) {
  if (grt_shape_equal(&t->shape, want)) return NULL;
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT, "%s has shape %s, expected %s", what,
                   grt_cpu_shape_str(&t->shape, a), grt_cpu_shape_str(want, b));
}

/* The backward pass into `out`: `in` is orig_input for max pooling (NULL
 * for average), `grad` the pooled output's gradient. */
static grt_status* pool3d_backward(grt_kernel_ctx* ctx, dnnl_alg_kind_t alg, const pool3d_geom* g,
                                   const grt_tensor* in, const grt_tensor* grad, grt_tensor* out) {
  if (nothing_to_do(g, out)) return NULL;
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
    if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], kWhat);
  }
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_DST, &p->md[1], grt_cpu_data(grad));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_SRC, &p->md[0], grt_cpu_data(out));
  if (!s && in) s = grt_dnnl_call_arg(&call, DNNL_ARG_WORKSPACE, &p->md[2], ws);
  if (!s) s = grt_dnnl_call_run(&call, p->prim[1], p->scratch[1], kWhatBack);
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}

grt_status* grt_cpu_max_pool3d_grad(grt_kernel_ctx* ctx) {
  const grt_tensor *in = ctx->inputs[0], *grad = ctx->inputs[2];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, grad->dtype));
  pool3d_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in->shape, &g));
  grt_shape ps;
  pooled_shape(&g, &in->shape, &ps);
  GRT_RETURN_IF_ERROR(check_shape(ctx->inputs[1], &ps, "orig_output"));
  GRT_RETURN_IF_ERROR(check_shape(grad, &ps, "grad"));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, grad->dtype, &in->shape, &out));
  return pool3d_backward(ctx, dnnl_pooling_max, &g, in, grad, out);
}

grt_status* grt_cpu_avg_pool3d_grad(grt_kernel_ctx* ctx) {
  const grt_tensor* grad = ctx->inputs[1];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, grad->dtype));
  grt_shape in_shape;
  GRT_RETURN_IF_ERROR(grt_cpu_sizes5_input(ctx->inputs[0], "orig_input_shape", &in_shape));
  pool3d_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, &in_shape, &g));
  grt_shape ps;
  pooled_shape(&g, &in_shape, &ps);
  GRT_RETURN_IF_ERROR(check_shape(grad, &ps, "grad"));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, grad->dtype, &in_shape, &out));
  return pool3d_backward(ctx, dnnl_pooling_avg_exclude_padding, &g, NULL, grad, out);
}
