/* GatherV2's geometry, one rule for its shape function (ops/shape_index.c)
 * and the backends' kernels, so a shape the graph accepts is the shape the
 * kernel produces. */
#ifndef GRT_OPS_GATHER_GEOMETRY_H_
#define GRT_OPS_GATHER_GEOMETRY_H_

#include <stdint.h>

#include "base/shape.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks axis and batch_dims against the params and indices shapes (both
 * of known rank; a dimension may be -1, unknown, in a shape function) and
 * gives the output shape params[:axis] + indices[batch_dims:] +
 * params[axis+1:] with the normalised axis and batch_dims. */
typedef struct {
  int32_t axis, batch_dims;
  grt_shape out;
} grt_gather_v2_geometry;
GRT_MUST_USE grt_status* grt_gather_v2_geometry_of(const grt_shape* params,
                                                    const grt_shape* indices, int64_t axis,
                                                    int64_t batch_dims,
                                                    grt_gather_v2_geometry* g);

#ifdef __cplusplus
}
#endif

#endif  /* GRT_OPS_GATHER_GEOMETRY_H_ */
