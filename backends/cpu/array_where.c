/* Where(input): the coordinates, in row-major order, of the elements that
 * are true or non-zero, as an int64 [count, rank] matrix (TensorFlow's
 * one-input Where). -0.0 counts as zero and NaN as non-zero. */
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/array_more.h"

static bool nonzero(grt_dtype t, const void* data, int64_t i) {
  if (grt_dtype_is_float(t)) return grt_dtype_load_double(t, data, i) != 0;
  return grt_dtype_load_int(t, data, i) != 0;
}

grt_status* grt_cpu_where(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const void* data = grt_tensor_data(x);
  int64_t n = grt_tensor_num_elements(x), count = 0;
  for (int64_t i = 0; i < n; i++) count += nonzero(x->dtype, data, i);
  int32_t rank = x->shape.rank;
  grt_shape shape = {0};
  shape.rank = 2;
  shape.dims[0] = count;
  shape.dims[1] = rank;
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_INT64, &shape, &out));
  int64_t* o = grt_tensor_data(out);
  for (int64_t i = 0; i < n; i++) {
    if (!nonzero(x->dtype, data, i)) continue;
    int64_t rest = i;
    for (int32_t d = rank; d-- > 0;) {
      o[d] = rest % x->shape.dims[d];
      rest /= x->shape.dims[d];
    }
    o += rank;
  }
  return NULL;
}
