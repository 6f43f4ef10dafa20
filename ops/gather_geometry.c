/* GatherV2's geometry (ops/gather_geometry.h), with TensorFlow's messages. */
#include "ops/gather_geometry.h"

#include "base/shape.h"
#include "base/status.h"

grt_status* grt_gather_v2_geometry_of(const grt_shape* p, const grt_shape* ind, int64_t axis,
                                      int64_t batch_dims, grt_gather_v2_geometry* g) {
  int32_t r = p->rank, ir = ind->rank;
  if (r < 1) return GRT_ERROR(INVALID_ARGUMENT, "params must be at least 1 dimensional");
  if (batch_dims < -ir || batch_dims > ir)
    return GRT_ERROR(INVALID_ARGUMENT, "Expected batch_dims in the range [%d, %d], but got %lld",
                     -(int)ir, (int)ir, (long long)batch_dims);
  if (batch_dims < 0) batch_dims += ir;
  if (axis < -r || axis >= r)
    return GRT_ERROR(INVALID_ARGUMENT, "Expected axis in the range [%d, %d), but got %lld",
                     -(int)r, (int)r, (long long)axis);
  if (axis < 0) axis += r;
  if (batch_dims != 0) {
    if (batch_dims >= r)
      return GRT_ERROR(INVALID_ARGUMENT, "batch_dims (%lld) must be less than rank(params) (%d)",
                       (long long)batch_dims, (int)r);
    if (axis < batch_dims)
      return GRT_ERROR(INVALID_ARGUMENT, "batch_dims (%lld) must be less than or equal to axis (%lld)",
                       (long long)batch_dims, (long long)axis);
    for (int32_t i = 0; i < batch_dims; i++)
      if (p->dims[i] >= 0 && ind->dims[i] >= 0 && p->dims[i] != ind->dims[i])
        return GRT_ERROR(INVALID_ARGUMENT, "params.shape[%d]: %lld should be equal to indices.shape[%d]: %lld",
                         (int)i, (long long)p->dims[i], (int)i, (long long)ind->dims[i]);
  }
  int32_t out_rank = r - 1 + ir - (int32_t)batch_dims;
  if (out_rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "the result would have rank %d", out_rank);
  g->axis = (int32_t)axis;
  g->batch_dims = (int32_t)batch_dims;
  g->out.rank = 0;
  for (int32_t i = 0; i < axis; i++) g->out.dims[g->out.rank++] = p->dims[i];
  for (int32_t i = (int32_t)batch_dims; i < ir; i++) g->out.dims[g->out.rank++] = ind->dims[i];
  for (int32_t i = (int32_t)axis + 1; i < r; i++) g->out.dims[g->out.rank++] = p->dims[i];
  return NULL;
}
