/* BroadcastGradientArgs: for shapes s0 and s1 that broadcast together, the
 * axes of the broadcast result along which each input was repeated (so its
 * gradient is summed over them), ascending. Follows TensorFlow's BCast:
 * equal shapes reduce over nothing; a dimension where every input is 1 is
 * reduced for both; otherwise an input is reduced where it is 1. */
#include <stdio.h>

#include "backends/cpu/array_kernels.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

enum { kMaxDims = 64 };

static void shape_text(const int64_t* d, int32_t n, char* buf, size_t size) {
  size_t at = 0;
  at += (size_t)snprintf(buf, size, "[");
  for (int32_t i = 0; i < n && at < size; i++)
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", i ? "," : "", (long long)d[i]);
  if (at < size) snprintf(buf + at, size - at, "]");
}

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
  int64_t x[kMaxDims], y[kMaxDims];
  int32_t nx, ny;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t0, "s0", x, kMaxDims, &nx));
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t1, "s1", y, kMaxDims, &ny));
  grt_dtype t = t0->dtype;
  int64_t r0[kMaxDims], r1[kMaxDims];
  int32_t n0 = 0, n1 = 0;
  bool equal = nx == ny;
  for (int32_t i = 0; i < nx && equal; i++) equal = x[i] == y[i];
  if (!equal) {
    int32_t rank = nx > ny ? nx : ny;
    for (int32_t i = 0; i < rank; i++) {
      /* Aligned from the end, missing leading dims count as 1. */
      int64_t a = i - (rank - nx) >= 0 ? x[i - (rank - nx)] : 1;
      int64_t b = i - (rank - ny) >= 0 ? y[i - (rank - ny)] : 1;
      if (a != 1 && b != 1 && a != b) {
        char sa[kMaxDims * 21 + 3], sb[kMaxDims * 21 + 3];
        shape_text(x, nx, sa, sizeof sa);
        shape_text(y, ny, sb, sizeof sb);
        return GRT_ERROR(INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s", sa, sb);
      }
      if (a == 1) r0[n0++] = i;
      if (b == 1) r1[n1++] = i;
    }
  }
  GRT_RETURN_IF_ERROR(emit(ctx, 0, t, r0, n0));
  return emit(ctx, 1, t, r1, n1);
}
