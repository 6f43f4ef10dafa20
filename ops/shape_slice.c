/* Shape function of Slice: begin and size vectors, size -1 meaning "to the
 * end". */
#include "ops/shape_fns.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

grt_status* grt_infer_slice(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 2, 1));
  const grt_shape* in = &c->input_shapes[0];
  const grt_tensor *begin, *size;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 1, &begin));
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 2, &size));

  /* The rank: the input's, else the length of begin or size. */
  int64_t rank = in->rank;
  for (int32_t i = 1; i <= 2 && rank < 0; i++)
    if (c->input_shapes[i].rank == 1) rank = c->input_shapes[i].dims[0];
  if (size) rank = grt_infer_value_count(size);
  if (begin && rank < 0) rank = grt_infer_value_count(begin);
  if ((begin && grt_infer_value_count(begin) != rank) ||
      (size && grt_infer_value_count(size) != rank) || (in->rank >= 0 && rank != in->rank))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Expected begin and size arguments to be 1-D tensors of size %d, but got %lld "
                     "and %lld values instead",
                     (int)in->rank, (long long)(begin ? grt_infer_value_count(begin) : -1),
                     (long long)(size ? grt_infer_value_count(size) : -1));
  if (rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  if (rank > GRT_MAX_RANK)
    return grt_infer_unknown_dims((int32_t)GRT_MAX_RANK + 1, &c->output_shapes[0]);
  int64_t dims[GRT_MAX_RANK];
  for (int32_t i = 0; i < rank; i++) {
    int64_t dim = in->rank >= 0 ? in->dims[i] : -1;
    int64_t b = begin ? grt_infer_value(begin, i) : -1;
    int64_t z = size ? grt_infer_value(size, i) : -2; /* -2: not known */
    if (begin && (b < 0 || (dim >= 0 && b > dim)))
      return GRT_ERROR(INVALID_ARGUMENT, "Expected begin[%d] in [0, %lld], but got %lld", (int)i,
                       (long long)dim, (long long)b);
    if (size && z < -1)
      return GRT_ERROR(INVALID_ARGUMENT, "Expected size[%d] >= -1, but got %lld", (int)i,
                       (long long)z);
    if (z >= 0) {
      if (begin && dim >= 0 && z > dim - b)
        return GRT_ERROR(INVALID_ARGUMENT, "Expected size[%d] in [0, %lld], but got %lld", (int)i,
                         (long long)(dim - b), (long long)z);
      dims[i] = z;
    } else if (z == -1 && begin && dim >= 0) {
      dims[i] = dim - b;
    } else {
      dims[i] = -1;
    }
  }
  return grt_infer_make((int32_t)rank, dims, &c->output_shapes[0]);
}
