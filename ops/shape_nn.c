/* Shape functions of neural-network ops: bias add, softmax, cross-entropy. */
#include <string.h>

#include "ops/data_format.h"
#include "ops/shape_fns.h"
#include "base/shape.h"
#include "base/status.h"

grt_status* grt_data_format_channel(const char* data_format, int32_t rank, int32_t* out) {
  if (strcmp(data_format, "NHWC") == 0)
    *out = rank - 1;
  else if (strcmp(data_format, "NCHW") == 0)
    *out = 1;
  else
    return GRT_ERROR(INVALID_ARGUMENT, "data_format must be NHWC or NCHW, got '%s'", data_format);
  return NULL;
}

static grt_status* channel_index(const grt_shape_ctx* c, int32_t rank, int32_t* out) {
  const char* fmt;
  GRT_RETURN_IF_ERROR(grt_infer_attr_string(c, "data_format", &fmt));
  return grt_data_format_channel(fmt, rank, out);
}

grt_status* grt_infer_bias_add(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 0, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 1));
  grt_shape out = c->input_shapes[0];
  int32_t ch = 0;
  GRT_RETURN_IF_ERROR(channel_index(c, out.rank, &ch));
  if (out.rank >= 0) {
    const grt_shape* bias = &c->input_shapes[1];
    int64_t b = bias->rank == 1 ? bias->dims[0] : -1;
    GRT_RETURN_IF_ERROR(grt_infer_merge_dim(
        out.dims[ch], b, "bias length vs. the value's channel dimension", &out.dims[ch]));
  }
  c->output_shapes[0] = out;
  return NULL;
}

grt_status* grt_infer_bias_add_grad(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 0, 2));
  const grt_shape* in = &c->input_shapes[0];
  int32_t ch = 0;
  GRT_RETURN_IF_ERROR(channel_index(c, in->rank, &ch));
  int64_t d = in->rank >= 0 ? in->dims[ch] : -1;
  return grt_infer_make(1, &d, &c->output_shapes[0]);
}

grt_status* grt_infer_softmax(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 0, 1));
  c->output_shapes[0] = c->input_shapes[0];
  return NULL;
}

/* features [batch, classes], labels [batch] -> loss [batch],
 * backprop [batch, classes]. */
grt_status* grt_infer_sparse_xent(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 1));
  const grt_shape* f = &c->input_shapes[0];
  const grt_shape* l = &c->input_shapes[1];
  int64_t batch, classes = f->rank == 2 ? f->dims[1] : -1;
  GRT_RETURN_IF_ERROR(grt_infer_merge_dim(f->rank == 2 ? f->dims[0] : -1,
                                          l->rank == 1 ? l->dims[0] : -1,
                                          "batch size of features vs. labels", &batch));
  int64_t dims[2] = {batch, classes};
  GRT_RETURN_IF_ERROR(grt_infer_make(1, dims, &c->output_shapes[0]));
  return grt_infer_make(2, dims, &c->output_shapes[1]);
}

/* Dense labels broadcast against features (TensorFlow allows it); both are
 * matrices. */
grt_status* grt_infer_xent(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 2));
  grt_shape f = c->input_shapes[0], l = c->input_shapes[1], both;
  if (f.rank < 0) GRT_RETURN_IF_ERROR(grt_infer_unknown_dims(2, &f));
  if (l.rank < 0) GRT_RETURN_IF_ERROR(grt_infer_unknown_dims(2, &l));
  GRT_RETURN_IF_ERROR(grt_infer_broadcast(&f, &l, true, &both));
  GRT_RETURN_IF_ERROR(grt_infer_make(1, both.dims, &c->output_shapes[0]));
  c->output_shapes[1] = both;
  return NULL;
}
