/* Shape functions of element-wise ops: unary ops keep their input's shape,
 * binary ops broadcast, gradient and aggregate ops merge equal shapes. */
#include "ops/shape_fns.h"
#include "base/shape.h"
#include "base/status.h"

grt_status* grt_infer_unchanged(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  c->output_shapes[0] = c->input_shapes[0];
  return NULL;
}

grt_status* grt_infer_scalar(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 0, 1));
  c->output_shapes[0] = grt_shape_scalar();
  return NULL;
}

grt_status* grt_infer_broadcast_binary(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  return grt_infer_broadcast(&c->input_shapes[0], &c->input_shapes[1], true, &c->output_shapes[0]);
}

/* Equal/NotEqual: with incompatible_shape_error=false, mismatched shapes
 * give a scalar false at run time, so the shape is not known statically. */
grt_status* grt_infer_equal(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  bool strict = true;
  if (grt_infer_attr(c, "incompatible_shape_error"))
    GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "incompatible_shape_error", &strict));
  return grt_infer_broadcast(&c->input_shapes[0], &c->input_shapes[1], strict,
                             &c->output_shapes[0]);
}

/* AddN, ReluGrad, TanhGrad, ...: every input has the output's shape. */
grt_status* grt_infer_merge_all(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  grt_shape cur = c->input_shapes[0];
  for (int32_t i = 1; i < c->n_inputs; i++) {
    grt_status* s = grt_infer_merge(&cur, &c->input_shapes[i], &cur);
    if (s) return grt_status_prefix(s, "merging input %d with the inputs before it", (int)i);
  }
  c->output_shapes[0] = cur;
  return NULL;
}

/* Select (v1): t and e have the output's shape; the condition is a scalar,
 * the same shape, or a vector over the first dimension. */
grt_status* grt_infer_select(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  grt_shape data;
  grt_status* s = grt_infer_merge(&c->input_shapes[1], &c->input_shapes[2], &data);
  if (s) return grt_status_prefix(s, "'t' and 'e' must have the same shape");
  const grt_shape* cond = &c->input_shapes[0];
  if (cond->rank >= 0 && data.rank >= 0 && cond->rank != 0) {
    if (cond->rank == 1 && data.rank > 1) {
      GRT_RETURN_IF_ERROR(grt_infer_merge_dim(
          cond->dims[0], data.dims[0], "condition vector vs. first dimension", &data.dims[0]));
    } else {
      s = grt_infer_merge(cond, &data, &data);
      if (s)
        return grt_status_prefix(s,
                                 "'condition' must be a scalar, a vector over the first "
                                 "dimension, or the shape of 't'");
    }
  }
  c->output_shapes[0] = data;
  return NULL;
}
