/* Ops that change the shape without moving data: Reshape, Squeeze and
 * ExpandDims. Each output is a new view over the input's buffer. */
#include "backends/cpu/array_kernels.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/reshape.h"

grt_status* grt_array_reshape(grt_kernel_ctx* ctx) {
  const grt_tensor *in, *shape_t;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &shape_t));
  int64_t dims[GRT_MAX_RANK];
  int32_t rank;
  /* TensorFlow still accepts a scalar as a one-element shape (legacy). */
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(shape_t, "shape", dims, GRT_MAX_RANK, &rank));
  GRT_RETURN_IF_ERROR(grt_reshape_resolve(&in->shape, rank, dims, true));
  grt_shape want = grt_shape_make(rank, dims);
  return grt_array_set_view(ctx, 0, in, &want, 0);
}

grt_status* grt_array_squeeze(grt_kernel_ctx* ctx) {
  const grt_tensor* in;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  const int64_t* axes;
  int32_t n_axes;
  GRT_RETURN_IF_ERROR(
      grt_attr_get_int_list(grt_kernel_attr(ctx, "squeeze_dims"), "squeeze_dims", &axes, &n_axes));
  grt_shape out;
  GRT_RETURN_IF_ERROR(grt_op_squeeze_shape(&in->shape, axes, n_axes, &out));
  return grt_array_set_view(ctx, 0, in, &out, 0);
}

grt_status* grt_array_expand_dims(grt_kernel_ctx* ctx) {
  const grt_tensor *in, *dim_t;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &dim_t));
  int64_t dim;
  GRT_RETURN_IF_ERROR(grt_array_read_scalar(dim_t, "dim", &dim));
  grt_shape out;
  GRT_RETURN_IF_ERROR(grt_op_expand_dims_shape(&in->shape, dim, &out));
  return grt_array_set_view(ctx, 0, in, &out, 0);
}
