// TensorScatterUpdate / Add / Max / Min on the GPU: a copy of tensor with
// the slices indices [..., k] address replaced by (or combined with)
// updates, in index order as on the CPU: with duplicate indices the last
// update wins and Add adds them all in that order, so results match the CPU
// kernel exactly (Add/Max/Min compute in int64 for integers and float64
// otherwise, as it does). One thread per element of a slice walks the
// updates in order: no atomics, deterministic, but a slice of one element
// runs on one thread. Indices are checked on the device first; one out of
// range fails the op with the CPU kernel's INVALID_ARGUMENT
// (index_common.cuh). Checked on an H200 by the GPU suite.
#include <string.h>

#include "index_common.cuh"

namespace grt_cuda {
namespace {

using namespace index;

enum Mode { kUpdate, kAdd, kMax, kMin };

__global__ void ScatterKernel(int mode, int64_t count, int64_t k, int64_t slice, Dims stride,
                              grt_dtype it, const void* ind, grt_dtype dt, const void* up,
                              void* out, int size) {
  bool fl = IsFloat(dt);
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < slice;
       e += (int64_t)gridDim.x * blockDim.x) {
    for (int64_t c = 0; c < count; c++) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; j++) off += LoadI(it, ind, c * k + j) * stride.d[j];
      int64_t at = off * slice + e, from = c * slice + e;
      if (mode == kUpdate) {
        CopyElem(out, at, up, from, size);
      } else if (fl) {
        double a = LoadF(dt, out, at), b = LoadF(dt, up, from);
        StoreF(dt, out, at,
               mode == kAdd   ? a + b
               : mode == kMax ? (a > b ? a : b)
                              : (a < b ? a : b));
      } else {
        long long a = LoadI(dt, out, at), b = LoadI(dt, up, from);
        long long r = mode == kAdd   ? (long long)((unsigned long long)a + (unsigned long long)b)
                      : mode == kMax ? (a > b ? a : b)
                                     : (a < b ? a : b);
        StoreI(dt, out, at, r);
      }
    }
  }
}

grt_status* Scatter(grt_kernel_ctx* ctx, int mode, const char* name) {
  const grt_tensor *t = ctx->inputs[0], *ind = ctx->inputs[1], *up = ctx->inputs[2];
  grt_dtype dt = grt_tensor_dtype(t);
  if (!IsIndexType(grt_tensor_dtype(ind))) return NoKernel(name, grt_tensor_dtype(ind));
  if (grt_tensor_dtype(up) != dt)
    return grt_status_new(GRT_INVALID_ARGUMENT, "updates are %s but tensor is %s",
                          grt_dtype_name(grt_tensor_dtype(up)), grt_dtype_name(dt));
  grt_shape ts = ShapeOf(t), is = ShapeOf(ind), us = ShapeOf(up);
  if (is.rank < 1) return grt_status_new(GRT_INVALID_ARGUMENT, "indices must be at least a vector");
  int32_t ir = is.rank;
  int64_t k = is.dims[ir - 1];
  if (k > ts.rank)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "indices.shape[-1] = %lld exceeds the tensor's rank %d", (long long)k,
                          (int)ts.rank);
  bool ok = us.rank == ir - 1 + ts.rank - (int32_t)k;
  int64_t count = 1, slice = 1;
  for (int32_t i = 0; ok && i < ir - 1; i++) {
    ok = us.dims[i] == is.dims[i];
    count *= is.dims[i];
  }
  for (int32_t i = (int32_t)k; ok && i < ts.rank; i++) {
    ok = us.dims[ir - 1 + i - k] == ts.dims[i];
    slice *= ts.dims[i];
  }
  if (!ok)
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "updates must have shape indices.shape[:-1] + tensor.shape[indices.shape[-1]:]");
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  Dims stride;
  int64_t bad;
  grt_status* st = CheckRows(ctx, ind, k, count, ts, &stride, &bad);
  if (st) return st;
  if (bad >= 0)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "indices[%lld] = [%lld] does not index into dimension %lld of size %lld",
                          (long long)(bad / k), DeviceIndex(ctx, ind, bad), (long long)(bad % k),
                          (long long)ts.dims[bad % k]);
  grt_tensor* out;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &ts, &out))) return st;
  size_t bytes = grt_tensor_byte_size(t);
  if (bytes && (st = grt_cuda_error(cudaMemcpyAsync(grt_tensor_data(out), grt_tensor_data(t), bytes,
                                                    cudaMemcpyDeviceToDevice, s),
                                    "cudaMemcpyAsync")))
    return st;
  if (count == 0 || slice == 0) return NULL;
  ScatterKernel<<<Blocks(slice), kThreads, 0, s>>>(
      mode, count, k, slice, stride, grt_tensor_dtype(ind), grt_tensor_data(ind), dt,
      grt_tensor_data(up), grt_tensor_data(out), (int)grt_dtype_size(dt));
  return Launched(name);
}

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_tensor_scatter_update(grt_kernel_ctx* c) {
  return grt_cuda::Scatter(c, grt_cuda::kUpdate, "TensorScatterUpdate");
}
extern "C" grt_status* grt_cuda_tensor_scatter_add(grt_kernel_ctx* c) {
  return grt_cuda::Scatter(c, grt_cuda::kAdd, "TensorScatterAdd");
}
extern "C" grt_status* grt_cuda_tensor_scatter_max(grt_kernel_ctx* c) {
  return grt_cuda::Scatter(c, grt_cuda::kMax, "TensorScatterMax");
}
extern "C" grt_status* grt_cuda_tensor_scatter_min(grt_kernel_ctx* c) {
  return grt_cuda::Scatter(c, grt_cuda::kMin, "TensorScatterMin");
}
