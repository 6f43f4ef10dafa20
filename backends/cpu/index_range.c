/* Range: start, start + delta, ... up to but excluding limit, as
 * TensorFlow's: size ceil(|limit - start| / |delta|) (integer types count
 * exactly), delta 0 and a delta pointing away from limit are errors.
 * Element i is start + i * delta, computed in int64 or float64. */
#include <math.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/index_kernels.h"

static grt_status* scalar(const grt_kernel_ctx* ctx, int32_t i, const char* what,
                          const grt_tensor** out) {
  const grt_tensor* t = ctx->inputs[i];
  if (!t) return GRT_ERROR(INTERNAL, "input %d is missing", i);
  if (t->shape.rank != 0 && !(t->shape.rank == 1 && t->shape.dims[0] == 1))
    return GRT_ERROR(INVALID_ARGUMENT, "%s must be a scalar, not rank %d", what,
                     (int)t->shape.rank);
  *out = t;
  return NULL;
}

grt_status* grt_index_range(grt_kernel_ctx* ctx) {
  const grt_tensor *s = NULL, *l = NULL, *d = NULL;
  GRT_RETURN_IF_ERROR(scalar(ctx, 0, "start", &s));
  GRT_RETURN_IF_ERROR(scalar(ctx, 1, "limit", &l));
  GRT_RETURN_IF_ERROR(scalar(ctx, 2, "delta", &d));
  grt_dtype t = s->dtype;
  bool integer = grt_dtype_is_integer(t);
  int64_t n;
  double start_f = grt_dtype_load_double(t, grt_tensor_data(s), 0);
  double limit_f = grt_dtype_load_double(t, grt_tensor_data(l), 0);
  double delta_f = grt_dtype_load_double(t, grt_tensor_data(d), 0);
  int64_t start_i = 0, delta_i = 0;
  if (delta_f == 0) return GRT_ERROR(INVALID_ARGUMENT, "Requires delta != 0: 0");
  if (delta_f > 0 && start_f > limit_f)
    return GRT_ERROR(INVALID_ARGUMENT, "Requires start <= limit when delta > 0: %g/%g", start_f,
                     limit_f);
  if (delta_f < 0 && start_f < limit_f)
    return GRT_ERROR(INVALID_ARGUMENT, "Requires start >= limit when delta < 0: %g/%g", start_f,
                     limit_f);
  if (integer) {
    start_i = grt_dtype_load_int(t, grt_tensor_data(s), 0);
    int64_t limit_i = grt_dtype_load_int(t, grt_tensor_data(l), 0);
    delta_i = grt_dtype_load_int(t, grt_tensor_data(d), 0);
    uint64_t span = limit_i >= start_i ? (uint64_t)limit_i - (uint64_t)start_i
                                       : (uint64_t)start_i - (uint64_t)limit_i;
    uint64_t step = delta_i > 0 ? (uint64_t)delta_i : (uint64_t)0 - (uint64_t)delta_i;
    n = (int64_t)((span + step - 1) / step);
  } else {
    double count = ceil(fabs((limit_f - start_f) / delta_f));
    if (!(count < 9.0e18)) return GRT_ERROR(INVALID_ARGUMENT, "Requires a finite size");
    n = (int64_t)count;
  }
  grt_shape shape = {0};
  shape.rank = 1;
  shape.dims[0] = n;
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t, &shape, &out));
  void* o = grt_tensor_data(out);
  for (int64_t i = 0; i < n; i++) {
    if (integer)
      grt_dtype_store_int(t, o, i, start_i + i * delta_i);
    else
      grt_dtype_store_double(t, o, i, start_f + (double)i * delta_f);
  }
  return NULL;
}
