/* Shape functions of LRN, FusedBatchNormV3 and their gradients. */
#include "ops/shape_conv.h"

#include "base/status.h"
#include "ops/conv_window.h"
#include "ops/shape_fns.h"

grt_status* grt_infer_lrn(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 4));
  int64_t r;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "depth_radius", &r));
  if (r < 0)
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'depth_radius' must be >= 0, got %lld", (long long)r);
  c->output_shapes[0] = c->input_shapes[0];
  return c->input_shapes[0].rank < 0 ? grt_infer_unknown_dims(4, &c->output_shapes[0]) : NULL;
}

grt_status* grt_infer_lrn_grad(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  grt_shape s;
  GRT_RETURN_IF_ERROR(grt_infer_unknown_dims(4, &s));
  for (int32_t i = 0; i < 3; i++) {
    GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 4));
    if (c->input_shapes[i].rank >= 0)
      GRT_RETURN_IF_ERROR(grt_infer_merge(&s, &c->input_shapes[i], &s));
  }
  c->output_shapes[0] = s;
  return NULL;
}

/* x (input `x`) of the format's rank; the vectors `vecs` of length C,
 * merged with x's channel dimension. *out_x is x with the channel merged,
 * *out_c the channel count. */
static grt_status* merge_channels(grt_shape_ctx* c, int32_t x, const int32_t* vecs, int32_t n_vecs,
                                  grt_shape* out_x, int64_t* out_c) {
  const char* fmt;
  int32_t rank, ch;
  GRT_RETURN_IF_ERROR(grt_infer_attr_string(c, "data_format", &fmt));
  GRT_RETURN_IF_ERROR(grt_batch_norm_format(fmt, &rank, &ch));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, x, rank));
  grt_shape xs = c->input_shapes[x];
  if (xs.rank < 0) GRT_RETURN_IF_ERROR(grt_infer_unknown_dims(rank, &xs));
  for (int32_t i = 0; i < n_vecs; i++) {
    int32_t v = vecs[i];
    GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, v, 1));
    const grt_shape* vs = &c->input_shapes[v];
    grt_status* s = grt_infer_merge_dim(xs.dims[ch], vs->rank == 1 ? vs->dims[0] : -1,
                                        "the channel dimension", &xs.dims[ch]);
    if (s) return grt_status_prefix(s, "input %s", c->def->inputs[v].name);
  }
  *out_x = xs;
  *out_c = xs.dims[ch];
  return NULL;
}

grt_status* grt_infer_fused_batch_norm(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 5, 6));
  bool training;
  float factor;
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "is_training", &training));
  GRT_RETURN_IF_ERROR(grt_attr_get_float(grt_infer_attr(c, "exponential_avg_factor"),
                                         "exponential_avg_factor", &factor));
  /* mean and variance are read (and so must match) in inference, and in
   * training when a running average is kept; otherwise they may be empty. */
  static const int32_t kAll[] = {1, 2, 3, 4};
  int32_t n_vecs = !training || factor != 1.0f ? 4 : 2;
  grt_shape x;
  int64_t ch;
  GRT_RETURN_IF_ERROR(merge_channels(c, 0, kAll, n_vecs, &x, &ch));
  c->output_shapes[0] = x;
  for (int32_t i = 1; i < 5; i++) GRT_RETURN_IF_ERROR(grt_infer_make(1, &ch, &c->output_shapes[i]));
  /* reserve_space_3 is an implementation detail: TensorFlow leaves it
   * unknown (grt's CPU kernel makes it a scalar). */
  return NULL;
}

grt_status* grt_infer_fused_batch_norm_grad(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 6, 5));
  static const int32_t kVecs[] = {2, 3, 4};
  grt_shape x, dy;
  int64_t ch;
  GRT_RETURN_IF_ERROR(merge_channels(c, 1, kVecs, 3, &x, &ch));
  if (c->input_shapes[0].rank >= 0) {
    grt_status* s = grt_infer_merge(&x, &c->input_shapes[0], &dy);
    if (s) return grt_status_prefix(s, "y_backprop vs. x");
    x = dy;
  }
  c->output_shapes[0] = x;
  GRT_RETURN_IF_ERROR(grt_infer_make(1, &ch, &c->output_shapes[1]));
  GRT_RETURN_IF_ERROR(grt_infer_make(1, &ch, &c->output_shapes[2]));
  int64_t zero = 0;
  GRT_RETURN_IF_ERROR(grt_infer_make(1, &zero, &c->output_shapes[3]));
  return grt_infer_make(1, &zero, &c->output_shapes[4]);
}
