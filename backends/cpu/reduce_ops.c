/* Sum, Mean, Prod, Max, Min: reduce `input` over the axes in
 * `reduction_indices` (an int32/int64 scalar or vector; negative axes count
 * from the end; duplicates allowed; none reduces nothing), keeping reduced
 * dimensions as 1 with keep_dims. */
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/reduce.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"

static grt_status* reduce_kernel(grt_kernel_ctx* ctx, grt_cpu_reducer r) {
  grt_tensor* in = ctx->inputs[0];
  const grt_tensor* axes = ctx->inputs[1];
  bool keep_dims;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "keep_dims", &keep_dims));
  if (axes->dtype != GRT_INT32 && axes->dtype != GRT_INT64)
    return GRT_ERROR(INVALID_ARGUMENT, "reduction_indices must be int32 or int64, got %s",
                     grt_dtype_name(axes->dtype));
  if (axes->shape.rank > 1)
    return GRT_ERROR(INVALID_ARGUMENT, "reduction_indices must be a scalar or vector, got rank %d",
                     (int)axes->shape.rank);
  int32_t rank = in->shape.rank;
  bool reduced[GRT_MAX_RANK] = {false};
  bool any = false;
  int64_t n_axes = grt_tensor_num_elements(axes);
  const void* av = grt_tensor_data(axes);
  for (int64_t k = 0; k < n_axes; k++) {
    int64_t v = axes->dtype == GRT_INT32 ? ((const int32_t*)av)[k] : ((const int64_t*)av)[k];
    if (v < -rank || v >= rank)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "Invalid reduction dimension %lld for input with %d dimension(s)",
                       (long long)v, (int)rank);
    reduced[v < 0 ? v + rank : v] = true;
    any = true;
  }
  if (!any) { /* nothing to reduce: the input itself */
    if (!grt_dtype_valid(in->dtype) || in->dtype == GRT_BOOL)
      return grt_cpu_no_kernel(ctx, in->dtype);
    grt_kernel_set_output(ctx, 0, in);
    return NULL;
  }
  grt_shape os = {0};
  for (int32_t i = 0; i < rank; i++) {
    if (!reduced[i])
      os.dims[os.rank++] = in->shape.dims[i];
    else if (keep_dims)
      os.dims[os.rank++] = 1;
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &os, &out));
  return grt_cpu_reduce(ctx, r, in, reduced, out);
}

grt_status* grt_cpu_sum(grt_kernel_ctx* ctx) { return reduce_kernel(ctx, GRT_CPU_REDUCE_SUM); }
grt_status* grt_cpu_mean(grt_kernel_ctx* ctx) { return reduce_kernel(ctx, GRT_CPU_REDUCE_MEAN); }
grt_status* grt_cpu_prod(grt_kernel_ctx* ctx) { return reduce_kernel(ctx, GRT_CPU_REDUCE_PROD); }
grt_status* grt_cpu_max(grt_kernel_ctx* ctx) { return reduce_kernel(ctx, GRT_CPU_REDUCE_MAX); }
grt_status* grt_cpu_min(grt_kernel_ctx* ctx) { return reduce_kernel(ctx, GRT_CPU_REDUCE_MIN); }
