/* OneHot: a new axis of length depth at `axis` (-1: last), holding on_value
 * where the index equals the position and off_value elsewhere. Indices out
 * of [0, depth) give a row of off_value, as in TensorFlow. */
#include <string.h>

#include "backends/cpu/array_kernels.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

static grt_status* need_scalar(const grt_tensor* t, const char* what) {
  if (t->shape.rank == 0) return NULL;
  char buf[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT, "%s must be a scalar, but got: %s", what,
                   grt_shape_str(&t->shape, buf, sizeof buf));
}

grt_status* grt_array_one_hot(grt_kernel_ctx* ctx) {
  const grt_tensor *idx, *depth_t, *on, *off;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &idx));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &depth_t));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 2, &on));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 3, &off));
  GRT_RETURN_IF_ERROR(need_scalar(depth_t, "depth"));
  GRT_RETURN_IF_ERROR(need_scalar(on, "on_value"));
  GRT_RETURN_IF_ERROR(need_scalar(off, "off_value"));
  int64_t axis, depth;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "axis", &axis));
  GRT_RETURN_IF_ERROR(grt_array_read_scalar(depth_t, "depth", &depth));
  int32_t rank = idx->shape.rank;
  if (axis != -1 && (axis < 0 || axis > rank))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Expected axis to be -1 or between [0, %d).  But received: %lld",
                     (int)rank + 1, (long long)axis);
  if (depth < 0)
    return GRT_ERROR(INVALID_ARGUMENT, "depth must be non-negative, got: %lld", (long long)depth);
  if (rank + 1 > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "the result would have rank %d, above the maximum %d",
                     (int)rank + 1, GRT_MAX_RANK);
  int32_t at = axis == -1 ? rank : (int32_t)axis;
  grt_shape out_shape = {0};
  out_shape.rank = rank + 1;
  int64_t prefix = 1, suffix = 1;
  for (int32_t i = 0, k = 0; i <= rank; i++) {
    if (i == at) {
      out_shape.dims[i] = depth;
      continue;
    }
    out_shape.dims[i] = idx->shape.dims[k];
    if (i < at)
      prefix *= idx->shape.dims[k];
    else
      suffix *= idx->shape.dims[k];
    k++;
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, on->dtype, &out_shape, &out));
  size_t esize = grt_dtype_size(on->dtype);
  char* o = grt_tensor_data(out);
  const void* iv = grt_tensor_data(idx);
  grt_array_fill_elems(o, grt_tensor_num_elements(out), grt_tensor_data(off), esize);
  /* Output [prefix, depth, suffix]; index tensor [prefix, suffix]. */
  for (int64_t p = 0; p < prefix; p++)
    for (int64_t s = 0; s < suffix; s++) {
      int64_t v = grt_dtype_load_int(idx->dtype, iv, p * suffix + s);
      if (v < 0 || v >= depth) continue;
      memcpy(o + ((p * depth + v) * suffix + s) * (int64_t)esize, grt_tensor_data(on), esize);
    }
  return NULL;
}
