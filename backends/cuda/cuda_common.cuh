// Shared by the CUDA kernels (*.cu): shapes, broadcasting strides, launch
// sizes and the error helpers. Checked on an H200 by the GPU suite.
#ifndef GRT_BACKENDS_CUDA_CUDA_COMMON_CUH_
#define GRT_BACKENDS_CUDA_CUDA_COMMON_CUH_

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_internal.h"

namespace grt_cuda {

constexpr int kThreads = 256;

inline unsigned Blocks(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b > 65535 * 16 ? 65535 * 16 : b);
}

// Strides of an input over the output's index space: 0 where the input
// broadcasts. Passed by value to kernels.
struct Bcast {
  int32_t rank;
  int64_t out_dims[GRT_MAX_RANK];
  int64_t a_strides[GRT_MAX_RANK];
  int64_t b_strides[GRT_MAX_RANK];
  bool same;  // both inputs have the output's shape: no index arithmetic
};

__device__ inline void BcastOffsets(const Bcast& bc, int64_t i, int64_t* ia, int64_t* ib) {
  int64_t oa = 0, ob = 0;
  for (int d = bc.rank - 1; d >= 0; d--) {
    int64_t k = i % bc.out_dims[d];
    i /= bc.out_dims[d];
    oa += k * bc.a_strides[d];
    ob += k * bc.b_strides[d];
  }
  *ia = oa;
  *ib = ob;
}

inline grt_shape ShapeOf(const grt_tensor* t) {
  grt_shape s;
  s.rank = grt_tensor_rank(t);
  for (int32_t i = 0; i < s.rank; i++) s.dims[i] = grt_tensor_dim(t, i);
  return s;
}

inline int64_t NumElements(const grt_shape& s) {
  int64_t n = 1;
  for (int32_t i = 0; i < s.rank; i++) n *= s.dims[i];
  return n;
}

// NumPy broadcasting of a and b: the result shape (or the error) from
// grt_op_broadcast_shape, the CPU's check and message ("Incompatible
// shapes: [2,3] vs. [4]"), and each input's strides over it.
inline grt_status* Broadcast(const grt_shape& a, const grt_shape& b, grt_shape* out, Bcast* bc) {
  grt_status* st = grt_op_broadcast_shape(&a, &b, out);
  if (st) return st;
  int32_t r = out->rank;
  bc->rank = r;
  bc->same = a.rank == b.rank;
  int64_t sa = 1, sb = 1;
  for (int32_t i = r - 1; i >= 0; i--) {
    int32_t ia = i - (r - a.rank), ib = i - (r - b.rank);
    int64_t da = ia >= 0 ? a.dims[ia] : 1, db = ib >= 0 ? b.dims[ib] : 1;
    int64_t d = out->dims[i];
    bc->out_dims[i] = d ? d : 1;
    bc->a_strides[i] = da == 1 ? 0 : sa;
    bc->b_strides[i] = db == 1 ? 0 : sb;
    if (da != db) bc->same = false;
    sa *= da;
    sb *= db;
  }
  return NULL;
}

}  // namespace grt_cuda

#endif  // GRT_BACKENDS_CUDA_CUDA_COMMON_CUH_
