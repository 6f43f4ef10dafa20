/* Cumsum along `axis` (negative counts from the end), with TensorFlow's
 * exclusive (each sum leaves out its own element) and reverse (sums run
 * from the end). Sums run in int64 for integer types (wrapping as the
 * type does when stored) and in float64 otherwise. Each column checks the
 * run's cancellation as it goes (work_meter.h): one column may be the
 * whole tensor. */
#include <inttypes.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/index_kernels.h"
#include "backends/cpu/work_meter.h"

grt_status* grt_index_cumsum(grt_kernel_ctx* ctx) {
  for (int32_t i = 0; i < 2; i++)
    if (i >= ctx->n_inputs || !ctx->inputs[i]) return GRT_ERROR(INTERNAL, "input %d is missing", i);
  const grt_tensor *x = ctx->inputs[0], *ax = ctx->inputs[1];
  if (ax->shape.rank != 0) return GRT_ERROR(INVALID_ARGUMENT, "axis must be a scalar");
  bool exclusive, reverse;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "exclusive", &exclusive));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "reverse", &reverse));
  int64_t axis = grt_dtype_load_int(ax->dtype, grt_tensor_data(ax), 0);
  int32_t r = x->shape.rank;
  if (axis < -r || axis >= r)
    return GRT_ERROR(INVALID_ARGUMENT, "axis must be in the range [%d, %d), got %" PRId64, -r, r,
                     axis);
  if (axis < 0) axis += r;
  int64_t outer = 1, n = x->shape.dims[axis], inner = 1;
  for (int32_t i = 0; i < axis; i++) outer *= x->shape.dims[i];
  for (int32_t i = (int32_t)axis + 1; i < r; i++) inner *= x->shape.dims[i];
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &x->shape, &out));
  grt_dtype t = x->dtype;
  bool integer = grt_dtype_is_integer(t);
  const void* src = grt_tensor_data(x);
  void* dst = grt_tensor_data(out);
  grt_work_meter meter = grt_work_meter_start();
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      int64_t si = 0;
      double sf = 0;
      for (int64_t s = 0; s < n; s++) {
        if (grt_work_meter_stop(&meter, 1)) return grt_work_meter_status(&meter);
        int64_t j = reverse ? n - 1 - s : s;
        int64_t at = (o * n + j) * inner + in;
        if (exclusive) {
          if (integer)
            grt_dtype_store_int(t, dst, at, si);
          else
            grt_dtype_store_double(t, dst, at, sf);
        }
        if (integer)
          si = (int64_t)((uint64_t)si + (uint64_t)grt_dtype_load_int(t, src, at));
        else
          sf += grt_dtype_load_double(t, src, at);
        if (!exclusive) {
          if (integer)
            grt_dtype_store_int(t, dst, at, si);
          else
            grt_dtype_store_double(t, dst, at, sf);
        }
      }
    }
  return NULL;
}
