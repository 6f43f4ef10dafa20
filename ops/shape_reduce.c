/* Shape functions of reductions (Sum, Mean, Max, Min, Prod) and ArgMax. */
#include <string.h>

#include "ops/shape_fns.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

/* Without the axes' values the result is only known when keep_dims keeps
 * the rank, when there are no axes, or when the input is a scalar. */
static grt_status* reduce_unknown_axes(grt_shape_ctx* c, bool keep_dims) {
  const grt_shape* in = &c->input_shapes[0];
  const grt_shape* axes = &c->input_shapes[1];
  if (axes->rank == 1 && axes->dims[0] == 0) {
    c->output_shapes[0] = *in;
    return NULL;
  }
  if (in->rank == 0 || (keep_dims && in->rank > 0))
    return grt_infer_unknown_dims(in->rank, &c->output_shapes[0]);
  c->output_shapes[0] = grt_shape_unknown();
  return NULL;
}

grt_status* grt_infer_reduce(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 1, 0));
  bool keep_dims;
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "keep_dims", &keep_dims));
  const grt_tensor* axes;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 1, &axes));
  if (!axes) return reduce_unknown_axes(c, keep_dims);
  const grt_shape* in = &c->input_shapes[0];
  if (in->rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  bool reduced[GRT_MAX_RANK] = {false};
  int64_t n = grt_infer_value_count(axes);
  for (int64_t k = 0; k < n; k++) {
    int64_t v = grt_infer_value(axes, k);
    int32_t a;
    if (!grt_infer_axis(v, in->rank, &a))
      return GRT_ERROR(INVALID_ARGUMENT,
                       "Invalid reduction dimension %lld for input with %d dimension(s)",
                       (long long)v, (int)in->rank);
    reduced[a] = true; /* duplicates are allowed, as in TensorFlow */
  }
  grt_shape out = {0};
  for (int32_t i = 0; i < in->rank; i++) {
    if (!reduced[i])
      out.dims[out.rank++] = in->dims[i];
    else if (keep_dims)
      out.dims[out.rank++] = 1;
  }
  c->output_shapes[0] = out;
  return NULL;
}

grt_status* grt_infer_argmax(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 0));
  const grt_shape* in = &c->input_shapes[0];
  bool dim;
  int64_t v;
  GRT_RETURN_IF_ERROR(grt_infer_const_scalar(c, 1, &dim, &v));
  int32_t a = 0;
  if (dim && in->rank >= 1) {
    if (!grt_infer_axis(v, in->rank, &a))
      return GRT_ERROR(INVALID_ARGUMENT, "Expected dimension in the range [%d, %d), but got %lld",
                       -(int)in->rank, (int)in->rank, (long long)v);
  }
  if (in->rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  /* A vector (or scalar) reduces to a scalar whichever the axis. */
  if (in->rank <= 1) {
    c->output_shapes[0] = grt_shape_scalar();
    return NULL;
  }
  if (!dim) return grt_infer_unknown_dims(in->rank - 1, &c->output_shapes[0]);
  grt_shape out = {0};
  for (int32_t i = 0; i < in->rank; i++)
    if (i != a) out.dims[out.rank++] = in->dims[i];
  c->output_shapes[0] = out;
  return NULL;
}
