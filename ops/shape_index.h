/* Internal: shape functions of the indexing ops (ops/shape_index.c), with
 * grt_shape_fn's contract (ops/shape_fns.h). */
#ifndef GRT_OPS_SHAPE_INDEX_H_
#define GRT_OPS_SHAPE_INDEX_H_

#include "grt/op_semantics.h"
#include "ops/op_def.h"

#ifdef __cplusplus
extern "C" {
#endif

GRT_MUST_USE grt_status* grt_infer_range(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_gather_v2(grt_shape_ctx* c);

GRT_MUST_USE grt_status* grt_infer_gather_nd(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_tensor_scatter(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_cumsum(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_top_k(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_pad(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_einsum(grt_shape_ctx* c);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_SHAPE_INDEX_H_ */
