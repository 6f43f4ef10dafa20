/* Internal: the CPU kernels of the indexing ops (ops/defs_index.c); their
 * table is backends/cpu/index.c. */
#ifndef GRT_BACKENDS_CPU_INDEX_KERNELS_H_
#define GRT_BACKENDS_CPU_INDEX_KERNELS_H_

#include "kernels/op_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* index_range.c */
GRT_MUST_USE grt_status* grt_index_range(grt_kernel_ctx* ctx);
/* index_gather.c */
GRT_MUST_USE grt_status* grt_index_gather_v2(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_index_gather_nd(grt_kernel_ctx* ctx);
/* index_scatter.c */
GRT_MUST_USE grt_status* grt_index_tensor_scatter(grt_kernel_ctx* ctx);
/* index_cumsum.c */
GRT_MUST_USE grt_status* grt_index_cumsum(grt_kernel_ctx* ctx);
/* index_top_k.c */
GRT_MUST_USE grt_status* grt_index_top_k(grt_kernel_ctx* ctx);
/* index_einsum.c */
GRT_MUST_USE grt_status* grt_index_einsum(grt_kernel_ctx* ctx);
/* index_pad.c */
GRT_MUST_USE grt_status* grt_index_pad(grt_kernel_ctx* ctx);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_INDEX_KERNELS_H_ */
