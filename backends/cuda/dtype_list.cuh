// Which dtypes a CUDA kernel takes, written once. A kernel's dispatch
// visits a Dtypes<...> list to pick the element types it launches with, and
// the same list's mask is the kernel's declaration (grt_cuda_dtypes), which
// tests/cuda/cuda_plugin_test.cc holds the GPU support rows to without a
// GPU: a dtype a row promises and the list lacks fails that test, so a row
// cannot promise what the dispatch refuses.
//
// A kernel file lists its typed kernels once in an X-macro of
// GRT_CUDA_TYPED rows: its kernel table instantiates each compute with the
// lists, its declaration table reads the same lists' masks.
#ifndef GRT_BACKENDS_CUDA_DTYPE_LIST_CUH_
#define GRT_BACKENDS_CUDA_DTYPE_LIST_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "cuda_internal.h"

namespace grt_cuda {

// One entry: grt's dtype, its element type in memory and the type the
// arithmetic runs in (float16 and bfloat16 widen to float32).
template <grt_dtype D, typename S, typename C = S>
struct Dt {
  static constexpr grt_dtype kDtype = D;
  using Store = S;
  using Math = C;
};

template <typename... E>
struct Dtypes {
  static constexpr uint32_t kMask = (0u | ... | (1u << E::kDtype));
  static constexpr bool kInt32OnHost = false;
  // Calls f(E{}) with the entry for dt; false when dt is not in the list.
  template <typename F>
  static bool Visit(grt_dtype dt, F&& f) {
    (void)dt;  // unread when the list is empty
    return ((dt == E::kDtype ? (f(E{}), true) : false) || ...);
  }
};

using F16 = Dt<GRT_FLOAT16, __half, float>;
using BF16 = Dt<GRT_BFLOAT16, __nv_bfloat16, float>;
using F32 = Dt<GRT_FLOAT32, float>;
using F64 = Dt<GRT_FLOAT64, double>;
using I8 = Dt<GRT_INT8, int8_t>;
using I16 = Dt<GRT_INT16, int16_t>;
using I32 = Dt<GRT_INT32, int32_t>;
using I64 = Dt<GRT_INT64, long long>;
using U8 = Dt<GRT_UINT8, uint8_t>;

// The lists the kernels use, named after ops/dtype_sets.h's sets.
using NoDtypes = Dtypes<>;  // a kernel with one type attr: the second slot
using Floats = Dtypes<F16, BF16, F32, F64>;
using FloatsInt64 = Dtypes<F16, BF16, F32, F64, I64>;
using HalvesFloat32 = Dtypes<F16, BF16, F32>;
using Index = Dtypes<I32, I64>;

// L, for an op whose int32 row keeps every argument in host memory
// (GRT_INT32_ON_HOST): its kernel's host branch computes int32 and its
// device dispatch visits L.
template <class L>
struct WithInt32OnHost : L {
  static constexpr uint32_t kMask = L::kMask | (1u << GRT_INT32);
  static constexpr bool kInt32OnHost = true;
};
using FloatsInt64WithInt32OnHost = WithInt32OnHost<FloatsInt64>;

// Loads and stores in the arithmetic's type: float16 and bfloat16 widen to
// float32 and round back to nearest even; every other type is itself.
template <typename T>
__device__ inline T Widen(T v) {
  return v;
}
__device__ inline float Widen(__half v) { return __half2float(v); }
__device__ inline float Widen(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ inline void Narrow(T v, T* p) {
  *p = v;
}
__device__ inline void Narrow(float v, __half* p) { *p = __float2half_rn(v); }
__device__ inline void Narrow(float v, __nv_bfloat16* p) { *p = __float2bfloat16_rn(v); }

}  // namespace grt_cuda

// One typed kernel: its op, its compute (a template over two lists), and
// the type attrs whose dtypes its dispatch reads with the list of each
// (attr2 nullptr and NoDtypes when it reads one). A file's X-macro of
// these rows expands into both of its tables:
#define GRT_CUDA_KERNEL_ROW(op, fn, attr1, L1, attr2, L2) {op, fn<L1, L2>, NULL, NULL, 0},
#define GRT_CUDA_DTYPES_ROW(op, fn, attr1, L1, attr2, L2) \
  {op, attr1, L1::kMask}, {op, attr2, L2::kMask},

#endif  // GRT_BACKENDS_CUDA_DTYPE_LIST_CUH_
