/* Shape functions of the ops in ops/defs_array_more.c. */
#ifndef GRT_OPS_SHAPE_ARRAY_MORE_H_
#define GRT_OPS_SHAPE_ARRAY_MORE_H_

#include "ops/op_def.h"

GRT_MUST_USE grt_status* grt_infer_reverse_sequence(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_where(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_matrix_determinant(grt_shape_ctx* c);

#endif /* GRT_OPS_SHAPE_ARRAY_MORE_H_ */
