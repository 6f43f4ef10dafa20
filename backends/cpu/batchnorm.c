/* FusedBatchNormV3 and FusedBatchNormGradV3 on oneDNN's batch
 * normalisation primitive, for float32 x with float32 statistics.
 *
 * x is seen as [N, C, S] (S the spatial dimensions flattened): "nwc" for
 * the channel-last formats (NHWC, NDHWC), "ncw" for the channel-first ones,
 * so no layout changes. TensorFlow's CPU semantics:
 *  - training: y normalised with the batch mean and the biased batch
 *    variance; batch_variance reports the unbiased (Bessel-corrected,
 *    n / (n - 1)) variance, blended into the running values when
 *    exponential_avg_factor != 1: new = (1 - f) * old + f * batch;
 *    reserve_space_1/2 keep the batch mean and the biased variance for
 *    the gradient.
 *  - inference: y normalised with the given mean and variance, which come
 *    back as batch_mean/batch_variance and the reserve spaces.
 *  - reserve_space_3 is a scalar placeholder (TensorFlow's CPU kernel
 *    allocates one element); the gradient's reserve_space_4/5 are empty.
 * The gradient in training mode is oneDNN's backward pass with the saved
 * batch statistics; in inference mode the statistics are constants
 * (use_global_stats).
 *
 * Plans: md[0] x, md[1] a [C] vector; prim[0] the primitive. */
#include <math.h>
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/conv.h"
#include "backends/cpu/cpu_util.h"

typedef struct {
  int64_t n, c, s; /* batch, channels, spatial elements */
  bool channel_last;
  float epsilon;
  bool training;
} bn_geom;

static grt_status* geometry(const grt_kernel_ctx* ctx, const grt_tensor* x, bn_geom* g) {
  const char* fmt;
  int32_t rank, ch;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_string(ctx, "data_format", &fmt));
  GRT_RETURN_IF_ERROR(grt_batch_norm_format(fmt, &rank, &ch));
  char a[GRT_SHAPE_STR_MAX];
  if (x->shape.rank != rank)
    return GRT_ERROR(INVALID_ARGUMENT, "x must be %d-dimensional for data_format %s: %s", (int)rank,
                     fmt, grt_cpu_shape_str(&x->shape, a));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "epsilon", &g->epsilon));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "is_training", &g->training));
  g->channel_last = ch == rank - 1;
  g->n = x->shape.dims[0];
  g->c = x->shape.dims[ch];
  g->s = 1;
  for (int32_t i = 1; i < rank; i++)
    if (i != ch) g->s *= x->shape.dims[i];
  return NULL;
}

/* A [C] input of `what`. */
static grt_status* check_vector(const grt_tensor* t, const bn_geom* g, const char* what) {
  if (t->shape.rank == 1 && t->shape.dims[0] == g->c) return NULL;
  char a[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT, "%s must be a vector of %lld channels, got %s", what,
                   (long long)g->c, grt_cpu_shape_str(&t->shape, a));
}

static grt_status* build(const bn_geom* g, bool backward, grt_dnnl_plan* p) {
  dnnl_dims_t d = {g->n, g->c, g->s}, cd = {g->c};
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_memory_desc_init_by_tag(&p->md[0], 3, d, dnnl_f32,
                                                  g->channel_last ? dnnl_nwc : dnnl_ncw),
                     "oneDNN batch norm descriptor"));
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_memory_desc_init_by_tag(&p->md[1], 1, cd, dnnl_f32, dnnl_a),
                     "oneDNN batch norm descriptor"));
  unsigned flags = dnnl_use_scale | dnnl_use_shift;
  if (!g->training) flags |= dnnl_use_global_stats;
  dnnl_batch_normalization_desc_t fwd, bwd;
  dnnl_prop_kind_t prop = g->training || backward ? dnnl_forward_training : dnnl_forward_inference;
  GRT_RETURN_IF_ERROR(grt_dnnl_check(
      dnnl_batch_normalization_forward_desc_init(&fwd, prop, &p->md[0], g->epsilon, flags),
      "oneDNN batch norm forward"));
  if (!backward) return grt_dnnl_plan_make(p, 0, &fwd, NULL, "oneDNN batch norm forward", NULL);
  dnnl_primitive_desc_t hint = NULL;
  GRT_RETURN_IF_ERROR(
      grt_dnnl_check(dnnl_primitive_desc_create(&hint, &fwd, NULL, grt_dnnl_engine(), NULL),
                     "oneDNN batch norm forward"));
  grt_status* s = grt_dnnl_check(dnnl_batch_normalization_backward_desc_init(
                                     &bwd, dnnl_backward, &p->md[0], &p->md[0], g->epsilon, flags),
                                 "oneDNN batch norm backward");
  if (!s) s = grt_dnnl_plan_make(p, 0, &bwd, hint, "oneDNN batch norm backward", NULL);
  dnnl_primitive_desc_destroy(hint);
  return s;
}

static grt_status* plan_for(grt_kernel_ctx* ctx, const bn_geom* g, bool backward,
                            grt_dnnl_plan** out, bool* out_owned) {
  int64_t key[] = {g->n, g->c, g->s, g->training, backward};
  int32_t n = (int32_t)(sizeof key / sizeof key[0]);
  *out_owned = false;
  *out = grt_dnnl_cache_find(ctx->state, key, n);
  if (*out) return NULL;
  grt_dnnl_plan* p = grt_dnnl_plan_new();
  if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a oneDNN plan");
  grt_status* s = build(g, backward, p);
  if (s) {
    grt_dnnl_plan_free(p);
    return s;
  }
  *out = grt_dnnl_cache_offer(ctx->state, key, n, p, out_owned);
  return NULL;
}

static float* f32(const grt_tensor* t) { return (float*)grt_cpu_data(t); }

static grt_status* alloc_vectors(grt_kernel_ctx* ctx, int32_t first, int32_t count, int64_t len,
                                 grt_tensor** out) {
  grt_shape s = {1, {len}};
  for (int32_t i = 0; i < count; i++)
    GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, first + i, GRT_FLOAT32, &s, &out[i]));
  return NULL;
}

/* Training statistics: rs1/rs2 hold the batch mean and biased variance
 * oneDNN computed; batch_mean/batch_variance get the running values. */
static void running_stats(const bn_geom* g, float factor, const grt_tensor* mean_in,
                          const grt_tensor* var_in, grt_tensor* const* v) {
  float *bm = f32(v[0]), *bv = f32(v[1]), *m = f32(v[2]), *var = f32(v[3]);
  int64_t count = g->n * g->s;
  double adjust = count > 1 ? (double)count / (double)(count - 1) : 1.0;
  for (int64_t c = 0; c < g->c; c++) {
    float unbiased = (float)(var[c] * adjust);
    if (factor == 1.0f) {
      bm[c] = m[c];
      bv[c] = unbiased;
    } else {
      bm[c] = (1.0f - factor) * f32(mean_in)[c] + factor * m[c];
      bv[c] = (1.0f - factor) * f32(var_in)[c] + factor * unbiased;
    }
  }
}

grt_status* grt_cpu_fused_batch_norm(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor *scale = ctx->inputs[1], *offset = ctx->inputs[2];
  const grt_tensor *mean = ctx->inputs[3], *var = ctx->inputs[4];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, x->dtype));
  bn_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, x, &g));
  float factor;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "exponential_avg_factor", &factor));
  GRT_RETURN_IF_ERROR(check_vector(scale, &g, "scale"));
  GRT_RETURN_IF_ERROR(check_vector(offset, &g, "offset"));
  bool stats_in = !g.training || factor != 1.0f;
  if (stats_in) {
    GRT_RETURN_IF_ERROR(check_vector(mean, &g, "mean"));
    GRT_RETURN_IF_ERROR(check_vector(var, &g, "variance"));
  }
  grt_tensor* y;
  grt_tensor* v[4]; /* batch_mean, batch_variance, reserve_space_1, reserve_space_2 */
  grt_tensor* rs3;
  grt_shape scalar = {0, {0}};
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &x->shape, &y));
  GRT_RETURN_IF_ERROR(alloc_vectors(ctx, 1, 4, g.c, v));
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 5, GRT_FLOAT32, &scalar, &rs3));
  f32(rs3)[0] = 0.0f;
  size_t vbytes = (size_t)g.c * sizeof(float);
  if (!g.training) {
    memcpy(f32(v[0]), f32(mean), vbytes);
    memcpy(f32(v[1]), f32(var), vbytes);
    memcpy(f32(v[2]), f32(mean), vbytes);
    memcpy(f32(v[3]), f32(var), vbytes);
  }
  if (g.n * g.s == 0 || g.c == 0) {
    /* No elements: TensorFlow reports NaN statistics in training. */
    if (g.training)
      for (int i = 0; i < 4; i++)
        for (int64_t c = 0; c < g.c; c++) f32(v[i])[c] = NAN;
    return NULL;
  }
  grt_dnnl_plan* p;
  bool owned;
  GRT_RETURN_IF_ERROR(plan_for(ctx, &g, false, &p, &owned));
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  float* m = g.training ? f32(v[2]) : f32(mean);
  float* s2 = g.training ? f32(v[3]) : f32(var);
  grt_status* s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[0], grt_cpu_data(x));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DST, &p->md[0], grt_cpu_data(y));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SCALE, &p->md[1], grt_cpu_data(scale));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SHIFT, &p->md[1], grt_cpu_data(offset));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_MEAN, &p->md[1], m);
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_VARIANCE, &p->md[1], s2);
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], "oneDNN batch norm forward");
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  if (!s && g.training) running_stats(&g, factor, mean, var, v);
  return s;
}

grt_status* grt_cpu_fused_batch_norm_grad(grt_kernel_ctx* ctx) {
  const grt_tensor *dy = ctx->inputs[0], *x = ctx->inputs[1], *scale = ctx->inputs[2];
  const grt_tensor *mean = ctx->inputs[3], *var = ctx->inputs[4];
  GRT_RETURN_IF_ERROR(grt_cpu_conv_need_f32(ctx, x->dtype));
  bn_geom g;
  GRT_RETURN_IF_ERROR(geometry(ctx, x, &g));
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  if (!grt_shape_equal(&dy->shape, &x->shape))
    return GRT_ERROR(INVALID_ARGUMENT, "x and y_backprop must have the same shape: %s vs %s",
                     grt_cpu_shape_str(&x->shape, a), grt_cpu_shape_str(&dy->shape, b));
  GRT_RETURN_IF_ERROR(check_vector(scale, &g, "scale"));
  GRT_RETURN_IF_ERROR(check_vector(mean, &g, "reserve_space_1"));
  GRT_RETURN_IF_ERROR(check_vector(var, &g, "reserve_space_2"));
  grt_tensor* dx;
  grt_tensor* dv[2]; /* scale_backprop, offset_backprop */
  grt_tensor* placeholders[2];
  grt_shape none = {1, {0}};
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &x->shape, &dx));
  GRT_RETURN_IF_ERROR(alloc_vectors(ctx, 1, 2, g.c, dv));
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 3, GRT_FLOAT32, &none, &placeholders[0]));
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 4, GRT_FLOAT32, &none, &placeholders[1]));
  if (g.n * g.s == 0 || g.c == 0) {
    memset(f32(dv[0]), 0, (size_t)g.c * sizeof(float));
    memset(f32(dv[1]), 0, (size_t)g.c * sizeof(float));
    return NULL;
  }
  grt_dnnl_plan* p;
  bool owned;
  GRT_RETURN_IF_ERROR(plan_for(ctx, &g, true, &p, &owned));
  grt_dnnl_call call;
  grt_dnnl_call_init(&call, ctx);
  grt_status* s = grt_dnnl_call_arg(&call, DNNL_ARG_SRC, &p->md[0], grt_cpu_data(x));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_DST, &p->md[0], grt_cpu_data(dy));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_MEAN, &p->md[1], grt_cpu_data(mean));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_VARIANCE, &p->md[1], grt_cpu_data(var));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SCALE, &p->md[1], grt_cpu_data(scale));
  /* oneDNN wants the shift among a use_shift backward pass's arguments,
   * though the gradients do not depend on it (TensorFlow passes none). */
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_SHIFT, &p->md[1], grt_cpu_data(scale));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_SRC, &p->md[0], grt_cpu_data(dx));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_SCALE, &p->md[1], grt_cpu_data(dv[0]));
  if (!s) s = grt_dnnl_call_arg(&call, DNNL_ARG_DIFF_SHIFT, &p->md[1], grt_cpu_data(dv[1]));
  if (!s) s = grt_dnnl_call_run(&call, p->prim[0], p->scratch[0], "oneDNN batch norm backward");
  grt_dnnl_call_end(&call);
  if (owned) grt_dnnl_plan_free(p);
  return s;
}
