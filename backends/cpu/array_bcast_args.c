/* BroadcastGradientArgs: the shapes read from the host tensors, the axes
 * from grt_op_broadcast_gradient_args (ops/bcast_args.c, shared with
 * plugins), written as the outputs. */

#include "backends/cpu/array_kernels.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

static grt_status* emit(grt_kernel_ctx* ctx, int32_t k, grt_dtype t, const int64_t* v, int32_t n) {
  int64_t len = n;
  grt_shape s = grt_shape_make(1, &len);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, k, t, &s, &out));
  for (int32_t i = 0; i < n; i++) grt_dtype_store_int(t, grt_tensor_data(out), i, v[i]);
  return NULL;
}

grt_status* grt_array_broadcast_gradient_args(grt_kernel_ctx* ctx) {
  const grt_tensor *t0, *t1;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &t0));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &t1));
  char buf[GRT_SHAPE_STR_MAX];
  if (t0->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "In[0] must be a vector.%s",
                     grt_shape_str(&t0->shape, buf, sizeof buf));
  if (t1->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "In[1] must be a vector.%s",
                     grt_shape_str(&t1->shape, buf, sizeof buf));
  int64_t x[GRT_BCAST_ARGS_MAX_DIMS], y[GRT_BCAST_ARGS_MAX_DIMS];
  int32_t nx, ny;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t0, "s0", x, GRT_BCAST_ARGS_MAX_DIMS, &nx));
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t1, "s1", y, GRT_BCAST_ARGS_MAX_DIMS, &ny));
  grt_dtype t = t0->dtype;
  int64_t r0[GRT_BCAST_ARGS_MAX_DIMS], r1[GRT_BCAST_ARGS_MAX_DIMS];
  int32_t n0, n1;
  GRT_RETURN_IF_ERROR(grt_op_broadcast_gradient_args(x, nx, y, ny, r0, &n0, r1, &n1));
  GRT_RETURN_IF_ERROR(emit(ctx, 0, t, r0, n0));
  return emit(ctx, 1, t, r1, n1);
}
