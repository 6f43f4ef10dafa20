// Shared by the CUDA indexing kernels (index_*.cu, where.cu, top_k.cu,
// determinant.cu): element loads and stores through the dtype (int64 for
// integers and bool, double for floating point, as the CPU kernels
// compute), byte moves by element size, and the device-side index check.
//
// Out-of-range indices: the CPU kernels fail with INVALID_ARGUMENT and grt's
// GPU kernels do the same (TensorFlow's GPU kernels write zeros instead).
// Each kernel records the first bad position with atomicMin in one device
// word; the host reads it back after the launch (a synchronous copy) and
// fails with the CPU kernel's message. Checked on an H200 by the GPU suite.
#ifndef GRT_BACKENDS_CUDA_INDEX_COMMON_CUH_
#define GRT_BACKENDS_CUDA_INDEX_COMMON_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernel_util.cuh"

namespace grt_cuda {
namespace index {

__device__ inline bool IsFloat(grt_dtype dt) {
  return dt == GRT_FLOAT16 || dt == GRT_BFLOAT16 || dt == GRT_FLOAT32 || dt == GRT_FLOAT64;
}

__device__ inline double LoadF(grt_dtype dt, const void* p, int64_t i) {
  switch (dt) {
    case GRT_FLOAT16:
      return __half2float(((const __half*)p)[i]);
    case GRT_BFLOAT16:
      return __bfloat162float(((const __nv_bfloat16*)p)[i]);
    case GRT_FLOAT32:
      return ((const float*)p)[i];
    default:
      return ((const double*)p)[i];
  }
}

__device__ inline void StoreF(grt_dtype dt, void* p, int64_t i, double v) {
  switch (dt) {
    case GRT_FLOAT16:
      ((__half*)p)[i] = __double2half(v);
      break;
    case GRT_BFLOAT16:
      ((__nv_bfloat16*)p)[i] = __float2bfloat16_rn((float)v);
      break;
    case GRT_FLOAT32:
      ((float*)p)[i] = (float)v;
      break;
    default:
      ((double*)p)[i] = v;
      break;
  }
}

__host__ __device__ inline long long LoadI(grt_dtype dt, const void* p, int64_t i) {
  switch (dt) {
    case GRT_INT8:
      return ((const int8_t*)p)[i];
    case GRT_INT16:
      return ((const int16_t*)p)[i];
    case GRT_INT32:
      return ((const int32_t*)p)[i];
    case GRT_INT64:
      return ((const long long*)p)[i];
    default:
      return ((const uint8_t*)p)[i];  // uint8, bool
  }
}

__device__ inline void StoreI(grt_dtype dt, void* p, int64_t i, long long v) {
  switch (dt) {
    case GRT_INT8:
      ((int8_t*)p)[i] = (int8_t)v;
      break;
    case GRT_INT16:
      ((int16_t*)p)[i] = (int16_t)v;
      break;
    case GRT_INT32:
      ((int32_t*)p)[i] = (int32_t)v;
      break;
    case GRT_INT64:
      ((long long*)p)[i] = v;
      break;
    default:
      ((uint8_t*)p)[i] = (uint8_t)v;
      break;
  }
}

// Element si of src to element di of dst, `size` bytes each (1, 2, 4, 8).
__device__ inline void CopyElem(void* dst, int64_t di, const void* src, int64_t si, int size) {
  switch (size) {
    case 1:
      ((uint8_t*)dst)[di] = ((const uint8_t*)src)[si];
      break;
    case 2:
      ((uint16_t*)dst)[di] = ((const uint16_t*)src)[si];
      break;
    case 4:
      ((uint32_t*)dst)[di] = ((const uint32_t*)src)[si];
      break;
    default:
      ((unsigned long long*)dst)[di] = ((const unsigned long long*)src)[si];
      break;
  }
}

// The first bad position a kernel saw, or kNoFault.
constexpr unsigned long long kNoFault = ~0ull;
__device__ inline void Fault(unsigned long long* first, int64_t pos) {
  atomicMin(first, (unsigned long long)pos);
}

// Up to GRT_MAX_RANK sizes or strides, passed to a kernel by value.
struct Dims {
  int64_t d[GRT_MAX_RANK];
};

// Faults position q of an index tensor [.., k] whose entry q (in row-major
// order) is outside dims.d[q % k]: index j of each row checks dimension j.
static __global__ void CheckRowsKernel(int64_t total, int64_t k, grt_dtype it, const void* ind,
                                       Dims dims, unsigned long long* fault) {
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
       q += (int64_t)gridDim.x * blockDim.x) {
    long long v = LoadI(it, ind, q);
    if (v < 0 || v >= dims.d[q % k]) Fault(fault, q);
  }
}

// A device word set to kNoFault on the compute stream; free with
// grt_tensor_free.
inline grt_status* NewFault(grt_kernel_ctx* ctx, grt_tensor** word) {
  grt_shape one = {1, {1}};
  grt_status* st = grt_kernel_alloc_temp(ctx, GRT_INT64, &one, word);
  if (st) return st;
  st =
      grt_cuda_error(cudaMemsetAsync(grt_tensor_data(*word), 0xff, 8, grt_cuda_stream(ctx->stream)),
                     "cudaMemsetAsync");
  if (st) grt_tensor_free(*word);
  return st;
}

// Waits for the stream, then reads the word (and frees it): *pos is the
// first bad position or -1.
inline grt_status* ReadFault(grt_kernel_ctx* ctx, grt_tensor* word, int64_t* pos) {
  unsigned long long v = kNoFault;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  grt_status* st = grt_cuda_launch_error("index check");
  if (!st)
    st = grt_cuda_error(cudaMemcpyAsync(&v, grt_tensor_data(word), 8, cudaMemcpyDeviceToHost, s),
                        "cudaMemcpyAsync");
  if (!st) st = grt_cuda_error(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  grt_tensor_free(word);
  *pos = v == kNoFault ? -1 : (int64_t)v;
  return st;
}

// Element i of an index tensor in device memory, read back (for messages).
inline long long DeviceIndex(grt_kernel_ctx* ctx, const grt_tensor* t, int64_t i) {
  long long v = 0;
  size_t es = grt_dtype_size(grt_tensor_dtype(t));
  if (cudaMemcpy(&v, (const char*)grt_tensor_data(t) + (size_t)i * es, es,
                 cudaMemcpyDeviceToHost) != cudaSuccess)
    return -1;
  return es == 4 ? (long long)(int32_t)v : v;
}

// For index rows of k entries into the first k dims of `s` (GatherNd,
// TensorScatter*): those dims' row-major strides, and the check that every
// entry lies within its dim. *bad is the first bad entry (row * k + column)
// or -1; the stream is waited for when there is anything to check.
inline grt_status* CheckRows(grt_kernel_ctx* ctx, const grt_tensor* ind, int64_t k, int64_t rows,
                             const grt_shape& s, Dims* stride, int64_t* bad) {
  Dims dims = {};
  *stride = Dims{};
  int64_t acc = 1;
  for (int32_t i = (int32_t)k - 1; i >= 0; i--) stride->d[i] = acc, acc *= s.dims[i];
  for (int32_t i = 0; i < k; i++) dims.d[i] = s.dims[i];
  *bad = -1;
  int64_t entries = rows * k;
  if (entries == 0) return NULL;
  grt_tensor* word;
  grt_status* st = NewFault(ctx, &word);
  if (st) return st;
  CheckRowsKernel<<<Blocks(entries), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      entries, k, grt_tensor_dtype(ind), grt_tensor_data(ind), dims,
      (unsigned long long*)grt_tensor_data(word));
  return ReadFault(ctx, word, bad);
}

inline int64_t Product(const grt_shape& s, int32_t from, int32_t to) {
  int64_t n = 1;
  for (int32_t i = from; i < to; i++) n *= s.dims[i];
  return n;
}

}  // namespace index
}  // namespace grt_cuda

#endif  // GRT_BACKENDS_CUDA_INDEX_COMMON_CUH_
