/* Shape functions of the ops that read only their input's shape: Shape,
 * Size and Rank. */
#include "ops/shape_fns.h"
#include "base/shape.h"
#include "base/status.h"

/* A vector with one element per input dimension. */
grt_status* grt_infer_shape_op(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  int64_t rank = c->input_shapes[0].rank;
  return grt_infer_make(1, &rank, &c->output_shapes[0]);
}

grt_status* grt_infer_size_op(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  c->output_shapes[0] = grt_shape_scalar();
  return NULL;
}

grt_status* grt_infer_rank_op(grt_shape_ctx* c) { return grt_infer_size_op(c); }
