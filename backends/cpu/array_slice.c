/* Slice: a box of the input given by begin and size (-1: to the end). An
 * identity slice shares the input, as does a slice of whole rows of the
 * first dimension that starts aligned; anything else is a strided gather. */
#include "backends/cpu/array_kernels.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

grt_status* grt_array_slice(grt_kernel_ctx* ctx) {
  const grt_tensor *in, *begin_t, *size_t_;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &begin_t));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 2, &size_t_));
  int32_t rank = in->shape.rank;
  char sa[GRT_SHAPE_STR_MAX], sb[GRT_SHAPE_STR_MAX];
  if (begin_t->shape.rank != 1 || size_t_->shape.rank != 1 || begin_t->shape.dims[0] != rank ||
      size_t_->shape.dims[0] != rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Expected begin and size arguments to be 1-D tensors of size %d, but got "
                     "shapes %s and %s instead.",
                     (int)rank, grt_shape_str(&begin_t->shape, sa, sizeof sa),
                     grt_shape_str(&size_t_->shape, sb, sizeof sb));
  int64_t begin[GRT_MAX_RANK], size[GRT_MAX_RANK];
  int32_t nb, ns;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(begin_t, "begin", begin, GRT_MAX_RANK, &nb));
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(size_t_, "size", size, GRT_MAX_RANK, &ns));
  bool identity = true, dim0_only = true;
  for (int32_t i = 0; i < rank; i++) {
    int64_t dim = in->shape.dims[i], b = begin[i], s = size[i];
    if (s == -1) s = size[i] = dim - b;
    if (dim == 0) {
      if (b != 0 || s != 0)
        return GRT_ERROR(INVALID_ARGUMENT,
                         "Expected begin[%d] == 0 (got %lld) and size[%d] == 0 (got %lld) when "
                         "input.dim_size(%d) == 0",
                         (int)i, (long long)b, (int)i, (long long)s, (int)i);
    } else {
      if (b < 0 || b > dim)
        return GRT_ERROR(INVALID_ARGUMENT, "Expected begin[%d] in [0, %lld], but got %lld", (int)i,
                         (long long)dim, (long long)b);
      if (s < 0 || b + s > dim)
        return GRT_ERROR(INVALID_ARGUMENT, "Expected size[%d] in [0, %lld], but got %lld", (int)i,
                         (long long)(dim - b), (long long)s);
    }
    bool whole = b == 0 && s == dim;
    identity &= whole;
    if (i > 0) dim0_only &= whole;
  }
  grt_shape out_shape = grt_shape_make(rank, size);
  if (identity) return grt_array_set_view(ctx, 0, in, &out_shape, 0);
  int64_t strides[GRT_MAX_RANK];
  grt_array_strides(&in->shape, strides);
  size_t esize = grt_dtype_size(in->dtype);
  int64_t base = 0;
  for (int32_t i = 0; i < rank; i++) base += begin[i] * strides[i];
  if (dim0_only && grt_shape_num_elements(&out_shape) > 0 &&
      grt_array_aligned(in, (size_t)base * esize))
    return grt_array_set_view(ctx, 0, in, &out_shape, (size_t)base * esize);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &out_shape, &out));
  grt_array_gather(ctx->intra_op, esize, grt_tensor_data(in), base, rank, size, strides,
                   grt_tensor_data(out));
  return NULL;
}
