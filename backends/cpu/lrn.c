/* LRN and LRNGrad on oneDNN's across-channel LRN primitive.
 *
 * TensorFlow: sqr_sum[n, h, w, d] = sum of input[n, h, w, d - r .. d + r]^2
 * (clipped to the channels there are), output = input / (bias + alpha *
 * sqr_sum)^beta, over a 4-D NHWC tensor. oneDNN divides alpha by the
 * window size, so it gets alpha * (2r + 1); its k is TensorFlow's bias.
 * LRNGrad reruns the forward pass in training mode when the implementation
 * wants its workspace.
 *
 * Plans: md[0] the data, md[1] the workspace; prim[0] the forward pass,
 * prim[1] the backward pass. */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/cpu_util.h"

typedef struct {
  int64_t size;
  float alpha, beta, bias;
} lrn_params;

static grt_status* params(const grt_kernel_ctx* ctx, const grt_tensor* in, lrn_params* out) {
  char a[GRT_SHAPE_STR_MAX];
  if (in->shape.rank != 4)
    return GRT_ERROR(INVALID_ARGUMENT, "input must be 4-dimensional: %s",
                     grt_cpu_shape_str(&in->shape, a));
  int64_t r;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "depth_radius", &r));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "alpha", &out->alpha));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "beta", &out->beta));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "bias", &out->bias));
  if (r < 0 || r > (1 << 20))
    return GRT_ERROR(INVALID_ARGUMENT, "depth_radius = %lld must be in [0, 1048576]", (long long)r);
  out->size = 2 * r + 1;
  return NULL;
}

static grt_status* build(const grt_shape* s, const lrn_params* lp, bool backward,
                         grt_dnnl_plan* p) {
  const int64_t* d = s->dims;
  GRT_RETURN_IF_ERROR(grt_dnnl_md_activation(false, d[0], d[3], d[1], d[2], &p->md[0]));
  float alpha = lp->alpha * (float)lp->size;
  dnnl_lrn_desc_t fwd, bwd;
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_lrn_forward_desc_init(&fwd, backward ? dnnl_forward_training : dnnl_forward_inference,
                                 dnnl_lrn_across_channels, &p->md[0], lp->size, alpha, lp->beta,
                                 lp->bias),
      "oneDNN LRN forward"));
  dnnl_primitive_desc_t fwd_pd = NULL;
  GRT_RETURN_IF_ERROR(grt_dnnl_plan_make(p, 0, &fwd, NULL, "oneDNN LRN forward", &fwd_pd));
  if (!backward) {
    dnnl_primitive_desc_destroy(fwd_pd);
    return NULL;
  }
  const dnnl_memory_desc_t* ws = dnnl_primitive_desc_query_md(fwd_pd, dnnl_query_workspace_md, 0);
  if (ws) p->md[1] = *ws; /* else ndims stays 0: no workspace */
  grt_status* st =
      grt_dnnl_check(dnnl_lrn_backward_desc_init(&bwd, dnnl_lrn_across_channels, &p->md[0],
                                                 &p->md[0], lp->size, alpha, lp->beta, lp->bias),
                     "oneDNN LRN backward");
  /* oneDNN 2.6's AVX-512 LRN backward crashes while generating its code
   * for a window of one channel (depth_radius 0); another implementation
   * does that case. */
  const char* avoid = lp->size == 1 ? "lrn_jit" : NULL;
  if (!st) st = grt_dnnl_plan_make_avoiding(p, 1, &bwd, fwd_pd, avoid, "oneDNN LRN backward", NULL);
  dnnl_primitive_desc_destroy(fwd_pd);
  return st;
}

static grt_status* plan_for(grt_kernel_ctx* ctx, const grt_shape* s, const lrn_params* lp,
                            bool backward, grt_dnnl_plan** out, bool* out_owned) {
  int64_t key[] = {s->dims[0], s->dims[1], s->dims[2], s->dims[3], backward};
  int32_t n = (int32_t)(sizeof key / sizeof key[0]);
  *out_owned = false;
  *out = grt_dnnl_cache_find(ctx->state, key, n);
  if (*out) return NULL;
  grt_dnnl_plan* p = grt_dnnl_plan_new();
  if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
  grt_status* st = build(s, lp, backward, p);
  if (st) {
    grt_dnnl_plan_free(p);
    return st;
  }
  *out = grt_dnnl_cache_offer(ctx->state, key, n, p, out_owned);
  return NULL;
}

static bool empty(const grt_shape* s) {
  return s->dims[0] * s->dims[1] * s->dims[2] * s->dims[3] == 0;
}

grt_status* grt_cpu_lrn(grt_kernel_ctx* ctx) {
  const grt_tensor* in = ctx->inputs[0];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, in->dtype));
  lrn_params lp;
  GRT_RETURN_IF_ERROR(params(ctx, in, &lp));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &in->shape, &out));
  if (empty(&in->shape)) return NULL;
  grt_dnnl_plan* p;
  bool owned;
  GRT_RETURN_IF_ERROR(plan_for(ctx, &in->shape, &lp, false, &p, &owned));
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  grt_status* s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[0], grt_cpu_data(in));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[0], grt_cpu_data(out));
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], "oneDNN LRN forward");
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}

grt_status* grt_cpu_lrn_grad(grt_kernel_ctx* ctx) {
  const grt_tensor* dy = ctx->inputs[0];
  const grt_tensor* x = ctx->inputs[1];
  const grt_tensor* y = ctx->inputs[2];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, x->dtype));
  lrn_params lp;
  GRT_RETURN_IF_ERROR(params(ctx, x, &lp));
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX], c[GRT_SHAPE_STR_MAX];
  if (!grt_shape_equal(&dy->shape, &x->shape) || !grt_shape_equal(&y->shape, &x->shape))
    return GRT_ERROR(
        INVALID_ARGUMENT,
        "input_grads, input_image and output_image must have the same shape: %s, %s, %s",
        grt_cpu_shape_str(&dy->shape, a), grt_cpu_shape_str(&x->shape, b),
        grt_cpu_shape_str(&y->shape, c));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &x->shape, &out));
  if (empty(&x->shape)) return NULL;
  grt_dnnl_plan* p;
  bool owned;
  GRT_RETURN_IF_ERROR(plan_for(ctx, &x->shape, &lp, true, &p, &owned));
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  grt_status* s = NULL;
  void* ws = NULL;
  bool workspace = p->md[1].ndims > 0;
  if (workspace) {
    /* The implementation keeps intermediate sums from its forward pass. */
    void* fwd_out = NULL;
    s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[0]), &fwd_out);
    if (!s) s = grt_dnnl_call_temp(&call, dnnl_memory_desc_get_size(&p->md[1]), &ws);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[0], grt_cpu_data(x));
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[0], fwd_out);
    if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_WORKSPACE, &p->md[1], ws);
    if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], "oneDNN LRN forward");
  }
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[0], grt_cpu_data(x));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_DST, &p->md[0], grt_cpu_data(dy));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_SRC, &p->md[0], grt_cpu_data(out));
  if (!s && workspace) s = grt_dnnl_call_arg(&call, DNNL_ARG_WORKSPACE, &p->md[1], ws);
  if (!s) s = grt_dnnl_call_run(&call, p->prim[1], p->scratch[1], "oneDNN LRN backward");
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}
