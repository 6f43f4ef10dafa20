/* Internal to the matmul CPU kernels (matmul*.c): one batched GEMM plan
 * shared by MatMul (a batch of one) and BatchMatMulV2 (broadcast batches),
 * and the per-dtype engines that run it: OpenBLAS for float32/float64,
 * plain loops for the integer types. float16/bfloat16 are widened to
 * float32 by the kernels before they get here. */
#ifndef GRT_BACKENDS_CPU_MATMUL_GEMM_H_
#define GRT_BACKENDS_CPU_MATMUL_GEMM_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "grt/types.h"
#include "base/threadpool.h"

/* C[b] = op(A[xb(b)]) * op(B[yb(b)]) for each output batch index b, with
 * op() a transpose where ta/tb. All matrices are row-major and contiguous;
 * A is m x k (k x m when ta), B is k x n (n x k when tb), C is m x n. */
typedef struct grt_gemm_plan {
  int64_t m, n, k;
  bool ta, tb;
  int64_t batch; /* output matrices */
  int32_t brank; /* batch dimensions of the output */
  int64_t bdims[GRT_MAX_RANK];
  int64_t xstride[GRT_MAX_RANK]; /* in matrices of A; 0 where broadcast */
  int64_t ystride[GRT_MAX_RANK]; /* in matrices of B */
} grt_gemm_plan;

/* Runs the plan for `dtype` (float32, float64, int16, int32 or int64).
 * UNIMPLEMENTED for other dtypes and for BLAS dimensions above INT_MAX. */
GRT_MUST_USE grt_status* grt_gemm_run(const grt_gemm_plan* p, grt_dtype dtype, const void* a,
                                      const void* b, void* c, grt_threadpool* pool);

#endif /* GRT_BACKENDS_CPU_MATMUL_GEMM_H_ */
