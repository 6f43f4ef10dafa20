// NcclAllReduce on GPUs, device side: the element-wise step of the copy
// path (acc = acc op x) that nccl_all_reduce.c uses for members sharing one
// physical GPU (NCCL refuses two ranks on one card) or when the plugin was
// built without NCCL; and the op's kernel row, which the session never
// calls on its own (it runs a group as one all_reduce call).
// Ran on an H200 over logical GPUs of one card (tests/gpu/runs); across
// physical cards it has not run yet.
#include <cuda_fp16.h>

#include "cuda_common.cuh"
#include "collective.h"

namespace grt_cuda {
namespace {

template <typename T>
__device__ inline T Combine(T a, T b, int op) {
  switch (op) {
    case GRT_REDUCE_SUM:
      return a + b;
    case GRT_REDUCE_PROD:
      return a * b;
    case GRT_REDUCE_MIN:
      return b < a ? b : a;
    default:
      return b > a ? b : a;
  }
}

template <typename T>
__global__ void Accumulate(T* acc, const T* x, int64_t n, int op) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)blockDim.x * gridDim.x)
    acc[i] = Combine(acc[i], x[i], op);
}

// float16 in float, rounded once per step, as the CPU backend does.
__global__ void AccumulateHalf(__half* acc, const __half* x, int64_t n, int op) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)blockDim.x * gridDim.x)
    acc[i] = __float2half(Combine(__half2float(acc[i]), __half2float(x[i]), op));
}

template <typename T>
void Launch(void* acc, const void* x, int64_t n, int op, cudaStream_t s) {
  Accumulate<T>
      <<<Blocks(n), kThreads, 0, s>>>(static_cast<T*>(acc), static_cast<const T*>(x), n, op);
}

grt_status* NcclAllReduceAlone(grt_kernel_ctx* ctx) {
  return grt_status_new(GRT_INTERNAL,
                        "NcclAllReduce runs only as a group, by the session's executor (its "
                        "kernel is never called on its own)");
}

const grt_op_kernel kKernels[] = {
    {"NcclAllReduce", NcclAllReduceAlone, NULL, NULL, 0},
};

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_accumulate(cudaStream_t s, grt_dtype t, grt_reduction op, void* acc,
                                           const void* x, int64_t n) {
  if (n <= 0) return NULL;
  int o = (int)op;
  switch (t) {
    case GRT_FLOAT32:
      grt_cuda::Launch<float>(acc, x, n, o, s);
      break;
    case GRT_FLOAT64:
      grt_cuda::Launch<double>(acc, x, n, o, s);
      break;
    // Integer sums and products wrap (two's complement), as on the CPU:
    // unsigned arithmetic for them, signed comparisons for min and max.
    case GRT_INT32:
      if (op == GRT_REDUCE_SUM || op == GRT_REDUCE_PROD)
        grt_cuda::Launch<uint32_t>(acc, x, n, o, s);
      else
        grt_cuda::Launch<int32_t>(acc, x, n, o, s);
      break;
    case GRT_INT64:
      if (op == GRT_REDUCE_SUM || op == GRT_REDUCE_PROD)
        grt_cuda::Launch<unsigned long long>(acc, x, n, o, s);
      else
        grt_cuda::Launch<long long>(acc, x, n, o, s);
      break;
    case GRT_FLOAT16:
      grt_cuda::AccumulateHalf<<<grt_cuda::Blocks(n), grt_cuda::kThreads, 0, s>>>(
          static_cast<__half*>(acc), static_cast<const __half*>(x), n, o);
      break;
    default:
      return grt_status_new(GRT_UNIMPLEMENTED, "the CUDA all-reduce does not handle %s",
                            grt_dtype_name(t));
  }
  return grt_cuda_launch_error("all-reduce step");
}

extern "C" const grt_op_kernel* grt_cuda_collective_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
