// Helpers for the CUDA kernels added after the first set (state, array,
// math): where an output lives, host-memory integer reads, dtype names in
// errors, and element types by size for kernels that only move bytes.
// Checked on an H200 by the GPU suite.
#ifndef GRT_BACKENDS_CUDA_KERNEL_UTIL_CUH_
#define GRT_BACKENDS_CUDA_KERNEL_UTIL_CUH_

#include <stdint.h>
#include <stdio.h>

#include "cuda_common.cuh"

namespace grt_cuda {

// Output k is HostMemory (the int32 registrations, shape outputs): the
// kernel computes it on the host, synchronously.
inline bool OutputOnHost(const grt_kernel_ctx* ctx, int k) {
  return k < 64 && ((ctx->host_outputs >> k) & 1);
}

// Element i of an integer tensor in host memory (shape, axis, perm inputs).
inline int64_t HostInt(const grt_tensor* t, int64_t i) {
  const void* d = grt_tensor_data(t);
  switch (grt_tensor_dtype(t)) {
    case GRT_INT32:
      return static_cast<const int32_t*>(d)[i];
    case GRT_INT64:
      return static_cast<const int64_t*>(d)[i];
    case GRT_INT16:
      return static_cast<const int16_t*>(d)[i];
    case GRT_INT8:
      return static_cast<const int8_t*>(d)[i];
    case GRT_UINT8:
      return static_cast<const uint8_t*>(d)[i];
    default:
      return 0;
  }
}

inline bool IsIndexType(grt_dtype dt) { return dt == GRT_INT32 || dt == GRT_INT64; }

// A dtype the kernel's dispatch does not take: no GPU row promises it (the
// rows are held to the dispatch's dtype lists by cuda_plugin_test), so only
// a graph placed against other rows reaches this.
inline grt_status* NoKernel(const char* op, grt_dtype dt) {
  return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA %s kernel does not take %s", op,
                        grt_dtype_name(dt));
}

inline grt_status* Launched(const char* op) { return grt_cuda_launch_error(op); }

inline bool SameShape(const grt_tensor* a, const grt_tensor* b) {
  if (grt_tensor_rank(a) != grt_tensor_rank(b)) return false;
  for (int32_t d = 0; d < grt_tensor_rank(a); d++)
    if (grt_tensor_dim(a, d) != grt_tensor_dim(b, d)) return false;
  return true;
}

// "[2,3]" for messages.
inline const char* ShapeStr(const grt_tensor* t, char* buf, size_t size) {
  size_t at = (size_t)snprintf(buf, size, "[");
  for (int32_t d = 0; d < grt_tensor_rank(t) && at < size; d++)
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", d ? "," : "",
                           (long long)grt_tensor_dim(t, d));
  if (at < size) snprintf(buf + at, size - at, "]");
  return buf;
}

}  // namespace grt_cuda

#endif  // GRT_BACKENDS_CUDA_KERNEL_UTIL_CUH_
