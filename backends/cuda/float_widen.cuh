// Loads and stores of the floating types in their arithmetic type: float16
// and bfloat16 are widened to float32 for the arithmetic and rounded once on
// the store (as TensorFlow's GPU kernels do), float32 and float64 pass
// through. Shared by the kernels templated over the float types (pool.cu,
// batchnorm.cu). Checked on an H200 by the GPU suite.
#ifndef GRT_BACKENDS_CUDA_FLOAT_WIDEN_CUH_
#define GRT_BACKENDS_CUDA_FLOAT_WIDEN_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace grt_cuda {

// The type T's arithmetic is done in.
template <typename T>
struct Arith {
  using type = T;
};
template <>
struct Arith<__half> {
  using type = float;
};
template <>
struct Arith<__nv_bfloat16> {
  using type = float;
};

__device__ inline float Widen(float v) { return v; }
__device__ inline double Widen(double v) { return v; }
__device__ inline float Widen(__half v) { return __half2float(v); }
__device__ inline float Widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline void Store(float v, float* p) { *p = v; }
__device__ inline void Store(double v, double* p) { *p = v; }
__device__ inline void Store(float v, __half* p) { *p = __float2half_rn(v); }
__device__ inline void Store(float v, __nv_bfloat16* p) { *p = __float2bfloat16_rn(v); }

}  // namespace grt_cuda

#endif  // GRT_BACKENDS_CUDA_FLOAT_WIDEN_CUH_
