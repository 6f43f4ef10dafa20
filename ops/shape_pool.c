/* Shape functions of MaxPool, AvgPool, _DilatedMaxPool and the gradients.
 * Which ops take EXPLICIT padding and dilations is read off the op's
 * definition: those declaring explicit_paddings and dilations. */
#include "ops/shape_conv.h"

#include "base/status.h"
#include "ops/conv_window.h"
#include "ops/shape_fns.h"

static grt_status* read_window(const grt_shape_ctx* c, grt_window* w) {
  uint32_t what = GRT_WINDOW_KSIZE;
  if (grt_op_find_attr(c->def, "explicit_paddings")) what |= GRT_WINDOW_EXPLICIT;
  if (grt_op_find_attr(c->def, "dilations")) what |= GRT_WINDOW_DILATIONS;
  return grt_window_read(c->node, c->def, what, w);
}

/* The pooled shape of `in` (rank 4 or unknown). */
static grt_status* pooled(const grt_window* w, const grt_shape* in, grt_shape* out) {
  int32_t h = grt_window_h(w);
  bool known = in->rank == 4;
  int64_t oh, ow, before, after;
  GRT_RETURN_IF_ERROR(
      grt_window_dim(w, 0, known ? in->dims[h] : -1, w->ksize[0], &oh, &before, &after));
  GRT_RETURN_IF_ERROR(
      grt_window_dim(w, 1, known ? in->dims[h + 1] : -1, w->ksize[1], &ow, &before, &after));
  int64_t n = known ? in->dims[0] : -1, ch = known ? in->dims[grt_window_c(w)] : -1;
  int64_t nhwc[4] = {n, oh, ow, ch}, nchw[4] = {n, ch, oh, ow};
  return grt_infer_make(4, w->nchw ? nchw : nhwc, out);
}

grt_status* grt_infer_pool(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 4));
  grt_window w;
  GRT_RETURN_IF_ERROR(read_window(c, &w));
  return pooled(&w, &c->input_shapes[0], &c->output_shapes[0]);
}

/* The gradient flowing in must have the pooled shape of the input. */
static grt_status* check_grad(const grt_shape_ctx* c, const grt_window* w, const grt_shape* in,
                              int32_t grad) {
  grt_shape want, merged;
  GRT_RETURN_IF_ERROR(pooled(w, in, &want));
  if (c->input_shapes[grad].rank < 0) return NULL;
  grt_status* s = grt_infer_merge(&want, &c->input_shapes[grad], &merged);
  return s ? grt_status_prefix(s, "grad does not match the pooled shape of the input") : NULL;
}

grt_status* grt_infer_max_pool_grad(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  for (int32_t i = 0; i < 3; i++) GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 4));
  grt_window w;
  GRT_RETURN_IF_ERROR(read_window(c, &w));
  const grt_shape* in = &c->input_shapes[0];
  grt_shape want, merged;
  GRT_RETURN_IF_ERROR(pooled(&w, in, &want));
  if (c->input_shapes[1].rank >= 0) {
    grt_status* s = grt_infer_merge(&want, &c->input_shapes[1], &merged);
    if (s) return grt_status_prefix(s, "orig_output does not match the pooled shape of orig_input");
  }
  GRT_RETURN_IF_ERROR(check_grad(c, &w, in, 2));
  c->output_shapes[0] = *in;
  return in->rank < 0 ? grt_infer_unknown_dims(4, &c->output_shapes[0]) : NULL;
}

grt_status* grt_infer_avg_pool_grad(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 4));
  grt_window w;
  GRT_RETURN_IF_ERROR(read_window(c, &w));
  const grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 0, &t));
  if (!t) return grt_infer_unknown_dims(4, &c->output_shapes[0]);
  if (grt_infer_value_count(t) != 4)
    return GRT_ERROR(INVALID_ARGUMENT, "orig_input_shape must have 4 elements, got %lld",
                     (long long)grt_infer_value_count(t));
  int64_t d[4];
  for (int32_t k = 0; k < 4; k++) {
    d[k] = grt_infer_value(t, k);
    if (d[k] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "orig_input_shape must be non-negative, got %lld",
                       (long long)d[k]);
  }
  GRT_RETURN_IF_ERROR(grt_infer_make(4, d, &c->output_shapes[0]));
  return check_grad(c, &w, &c->output_shapes[0], 1);
}
