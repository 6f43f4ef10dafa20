/* One row times a matrix (m = 1): a classifier's layer at batch 1, for
 * MatMul and _FusedMatMul in float32 (matmul_gemv.c). */
#ifndef GRT_BACKENDS_CPU_MATMUL_GEMV_H_
#define GRT_BACKENDS_CPU_MATMUL_GEMV_H_

#include "backends/cpu/matmul_dnnl.h"
#include "base/status.h"
#include "kernels/op_kernel.h"

/* out = act(a . op(b) + bias) for one row a (c->m 1, c->k and c->n above
 * 0: where grt_matmul_pick_gemv says) (c->bias NULL: no bias), on
 * the node's team; b read in place, in its own layout. */
GRT_MUST_USE grt_status* grt_mm_gemv_run(grt_kernel_ctx* ctx, const grt_mm_call* c);

/* Tests: runs the copy for vectors of `width` floats (16, 8 or 4; 0: the
 * widest the CPU runs). -1 when this CPU cannot run it, else 0. */
int grt_mm_gemv_force_width(int width);

#endif /* GRT_BACKENDS_CPU_MATMUL_GEMV_H_ */
