/* Ops that change the shape without moving data: Reshape, Squeeze and
 * ExpandDims. Each output is a new view over the input's buffer. */
#include "kernels/cpu/array_kernels.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

grt_status* grt_array_reshape(grt_kernel_ctx* ctx) {
  const grt_tensor *in, *shape_t;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &shape_t));
  int64_t dims[GRT_MAX_RANK];
  int32_t rank;
  /* TensorFlow still accepts a scalar as a one-element shape (legacy). */
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(shape_t, "shape", dims, GRT_MAX_RANK, &rank));
  int64_t in_n = grt_shape_num_elements(&in->shape);
  /* As TensorFlow: zero sizes are left out of the product, so a -1 can still
   * be inferred next to a 0 ([0,3] -> [-1,0] gives [3,0]). */
  int64_t product = 1;
  int32_t unknown = -1;
  bool has_zero = false;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] == -1) {
      if (unknown >= 0)
        return GRT_ERROR(INVALID_ARGUMENT, "Only one input size may be -1, not both %d and %d",
                         (int)unknown, (int)i);
      unknown = i;
    } else if (dims[i] < 0) {
      return GRT_ERROR(INVALID_ARGUMENT, "Size %d must be non-negative, not %lld", (int)i,
                       (long long)dims[i]);
    } else if (dims[i] == 0) {
      has_zero = true;
    } else if (__builtin_mul_overflow(product, dims[i], &product)) {
      return GRT_ERROR(INVALID_ARGUMENT, "the requested shape's element count overflows int64");
    }
  }
  if (unknown >= 0) {
    int64_t known_in = 1;
    bool in_has_zero = false;
    for (int32_t d = 0; d < in->shape.rank; d++) {
      if (in->shape.dims[d] > 0 || !has_zero)
        known_in *= in->shape.dims[d];
      else
        in_has_zero = true;
    }
    int64_t missing = known_in / product;
    if (!in_has_zero && product * missing != known_in)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "Input to reshape is a tensor with %lld values, but the requested shape "
                       "requires a multiple of %lld",
                       (long long)known_in, (long long)product);
    dims[unknown] = missing;
  }
  grt_shape want = grt_shape_make(rank, dims);
  int64_t want_n = grt_shape_num_elements(&want);
  if (want_n != in_n)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Input to reshape is a tensor with %lld values, but the requested shape has "
                     "%lld",
                     (long long)in_n, (long long)want_n);
  return grt_array_set_view(ctx, 0, in, &want, 0);
}

grt_status* grt_array_squeeze(grt_kernel_ctx* ctx) {
  const grt_tensor* in;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  const grt_attr_value* a = grt_kernel_attr(ctx, "squeeze_dims");
  int32_t n_axes = (a && a->type == GRT_ATTR_LIST_INT) ? a->u.list.n : 0;
  int32_t rank = in->shape.rank;
  bool chosen[GRT_MAX_RANK] = {false};
  for (int32_t k = 0; k < n_axes; k++) {
    int64_t ax = a->u.list.v.i[k];
    if (ax < -rank || ax >= rank)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "Tried to squeeze dim index %lld for tensor with %d dimensions.",
                       (long long)ax, (int)rank);
    chosen[ax < 0 ? ax + rank : ax] = true;
  }
  grt_shape out = {0};
  for (int32_t i = 0; i < rank; i++) {
    int64_t d = in->shape.dims[i];
    if (n_axes == 0 ? d == 1 : chosen[i]) {
      if (d != 1)
        return GRT_ERROR(INVALID_ARGUMENT,
                         "Can not squeeze dim[%d], expected a dimension of 1, got %lld", (int)i,
                         (long long)d);
      continue;
    }
    out.dims[out.rank++] = d;
  }
  return grt_array_set_view(ctx, 0, in, &out, 0);
}

grt_status* grt_array_expand_dims(grt_kernel_ctx* ctx) {
  const grt_tensor *in, *dim_t;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &dim_t));
  int64_t dim;
  GRT_RETURN_IF_ERROR(grt_array_read_scalar(dim_t, "dim", &dim));
  int32_t rank = in->shape.rank;
  if (dim < -1 - (int64_t)rank || dim > rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Tried to expand dim index %lld for tensor with %d dimensions.",
                     (long long)dim, (int)rank);
  if (rank + 1 > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "the result would have rank %d, above the maximum %d",
                     (int)rank + 1, GRT_MAX_RANK);
  int32_t at = (int32_t)(dim < 0 ? dim + rank + 1 : dim);
  grt_shape out = {0};
  out.rank = rank + 1;
  for (int32_t i = 0, k = 0; i <= rank; i++) out.dims[i] = i == at ? 1 : in->shape.dims[k++];
  return grt_array_set_view(ctx, 0, in, &out, 0);
}
