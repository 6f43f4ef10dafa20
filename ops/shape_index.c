/* Shape functions of the indexing ops (ops/defs_index.c): as specific as
 * the known shapes and constant inputs allow, as TensorFlow's. */
#include "ops/shape_index.h"

#include <math.h>
#include <string.h>

#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/einsum_parse.h"
#include "ops/shape_fns.h"

/* Range: a vector; its length when start, limit and delta are constants. */
grt_status* grt_infer_range(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  for (int32_t i = 0; i < 3; i++) GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 0));
  int64_t n = -1;
  const grt_tensor* const* v = c->input_values;
  if (v && v[0] && v[1] && v[2]) {
    grt_dtype t = v[0]->dtype;
    double start = grt_dtype_load_double(t, grt_tensor_data(v[0]), 0);
    double limit = grt_dtype_load_double(t, grt_tensor_data(v[1]), 0);
    double delta = grt_dtype_load_double(t, grt_tensor_data(v[2]), 0);
    if (delta == 0) return GRT_ERROR(INVALID_ARGUMENT, "Requires delta != 0");
    if ((delta > 0 && start > limit) || (delta < 0 && start < limit))
      return GRT_ERROR(INVALID_ARGUMENT, "Requires start %s limit when delta %s 0",
                       delta > 0 ? "<=" : ">=", delta > 0 ? ">" : "<");
    n = (int64_t)ceil(fabs((limit - start) / delta));
  }
  return grt_infer_make(1, &n, &c->output_shapes[0]);
}

grt_status* grt_op_gather_geometry(const grt_shape* p, const grt_shape* ind, int64_t axis,
                                   int64_t batch_dims, grt_gather_geometry* g) {
  int32_t r = p->rank, ir = ind->rank;
  if (r < 1) return GRT_ERROR(INVALID_ARGUMENT, "params must be at least 1 dimensional");
  if (batch_dims < -ir || batch_dims > ir)
    return GRT_ERROR(INVALID_ARGUMENT, "Expected batch_dims in the range [%d, %d], but got %lld",
                     -(int)ir, (int)ir, (long long)batch_dims);
  if (batch_dims < 0) batch_dims += ir;
  if (axis < -r || axis >= r)
    return GRT_ERROR(INVALID_ARGUMENT, "Expected axis in the range [%d, %d), but got %lld", -(int)r,
                     (int)r, (long long)axis);
  if (axis < 0) axis += r;
  if (batch_dims != 0) {
    if (batch_dims >= r)
      return GRT_ERROR(INVALID_ARGUMENT, "batch_dims (%lld) must be less than rank(params) (%d)",
                       (long long)batch_dims, (int)r);
    if (axis < batch_dims)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "batch_dims (%lld) must be less than or equal to axis (%lld)",
                       (long long)batch_dims, (long long)axis);
    for (int32_t i = 0; i < batch_dims; i++)
      if (p->dims[i] >= 0 && ind->dims[i] >= 0 && p->dims[i] != ind->dims[i])
        return GRT_ERROR(INVALID_ARGUMENT,
                         "params.shape[%d]: %lld should be equal to indices.shape[%d]: %lld",
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

/* GatherV2: params[:axis] + indices[batch_dims:] + params[axis+1:]. */
grt_status* grt_infer_gather_v2(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 2, 0));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 0, 1));
  int64_t batch_dims;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "batch_dims", &batch_dims));
  const grt_shape *p = &c->input_shapes[0], *ind = &c->input_shapes[1];
  bool known;
  int64_t axis;
  GRT_RETURN_IF_ERROR(grt_infer_const_scalar(c, 2, &known, &axis));
  if (!known || p->rank < 0 || ind->rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  grt_gather_geometry g;
  GRT_RETURN_IF_ERROR(grt_op_gather_geometry(p, ind, axis, batch_dims, &g));
  return grt_infer_make(g.out.rank, g.out.dims, &c->output_shapes[0]);
}

/* GatherNd: indices[:-1] + params[indices.shape[-1]:]. */
grt_status* grt_infer_gather_nd(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 1, 1));
  const grt_shape *p = &c->input_shapes[0], *ind = &c->input_shapes[1];
  if (p->rank < 0 || ind->rank < 0 || ind->dims[ind->rank - 1] < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  int64_t k = ind->dims[ind->rank - 1];
  if (k > p->rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "indices.shape[-1] must be <= params.rank, but saw indices shape's last "
                     "dimension %lld and params rank %d",
                     (long long)k, (int)p->rank);
  int64_t dims[GRT_MAX_RANK];
  int32_t r = ind->rank - 1 + p->rank - (int32_t)k, n = 0;
  if (r > GRT_MAX_RANK) return GRT_ERROR(INVALID_ARGUMENT, "the result would have rank %d", r);
  for (int32_t i = 0; i < ind->rank - 1; i++) dims[n++] = ind->dims[i];
  for (int32_t i = (int32_t)k; i < p->rank; i++) dims[n++] = p->dims[i];
  return grt_infer_make(r, dims, &c->output_shapes[0]);
}

/* TensorScatter*: the tensor's shape; updates must be
 * indices[:-1] + tensor[indices.shape[-1]:] where known. */
grt_status* grt_infer_tensor_scatter(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 1, 1));
  const grt_shape *t = &c->input_shapes[0], *ind = &c->input_shapes[1], *u = &c->input_shapes[2];
  if (t->rank >= 0 && ind->rank >= 0 && u->rank >= 0 && ind->dims[ind->rank - 1] >= 0) {
    int64_t k = ind->dims[ind->rank - 1];
    int32_t want = ind->rank - 1 + t->rank - (int32_t)k;
    if (k > t->rank || u->rank != want)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "updates must have rank indices.rank - 1 + tensor.rank - "
                       "indices.shape[-1] = %d, got %d",
                       want, (int)u->rank);
  }
  c->output_shapes[0] = *t;
  return NULL;
}

grt_status* grt_infer_cumsum(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 0));
  c->output_shapes[0] = c->input_shapes[0];
  return NULL;
}

/* TopKV2: the input's shape with the last dimension k (when constant). */
grt_status* grt_infer_top_k(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 2));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 0, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 0));
  bool known;
  int64_t k;
  GRT_RETURN_IF_ERROR(grt_infer_const_scalar(c, 1, &known, &k));
  if (known && k < 0)
    return GRT_ERROR(INVALID_ARGUMENT, "k must be non-negative, got %lld", (long long)k);
  grt_shape s = c->input_shapes[0];
  if (s.rank > 0) {
    int64_t last = s.dims[s.rank - 1];
    if (known && last >= 0 && last < k)
      return GRT_ERROR(INVALID_ARGUMENT, "input must have last dimension >= k = %lld but is %lld",
                       (long long)k, (long long)last);
    s.dims[s.rank - 1] = known ? k : -1;
  }
  c->output_shapes[0] = s;
  c->output_shapes[1] = s;
  return NULL;
}

/* Pad, PadV2, MirrorPad: paddings [rank, 2]; each dimension grows by its
 * row's sum (when the paddings are constant). */
grt_status* grt_infer_pad(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 2));
  const grt_shape *in = &c->input_shapes[0], *p = &c->input_shapes[1];
  if (p->rank == 2 && p->dims[1] >= 0 && p->dims[1] != 2)
    return GRT_ERROR(INVALID_ARGUMENT, "paddings must be a matrix with 2 columns");
  int32_t rank = in->rank;
  if (p->rank == 2 && p->dims[0] >= 0) {
    if (rank >= 0 && p->dims[0] != rank)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "The first dimension of paddings must be the rank of inputs %d, got %lld",
                       (int)rank, (long long)p->dims[0]);
    rank = (int32_t)p->dims[0];
  }
  if (rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  const grt_tensor* v = c->input_values ? c->input_values[1] : NULL;
  int64_t dims[GRT_MAX_RANK];
  if (rank > GRT_MAX_RANK) return GRT_ERROR(INVALID_ARGUMENT, "rank %d", rank);
  for (int32_t i = 0; i < rank; i++) {
    int64_t d = in->rank >= 0 ? in->dims[i] : -1;
    if (v && d >= 0) {
      int64_t b = grt_dtype_load_int(v->dtype, grt_tensor_data(v), 2 * i);
      int64_t e = grt_dtype_load_int(v->dtype, grt_tensor_data(v), 2 * i + 1);
      if (b < 0 || e < 0) return GRT_ERROR(INVALID_ARGUMENT, "Paddings must be non-negative");
      d += b + e;
    } else {
      d = -1;
    }
    dims[i] = d;
  }
  return grt_infer_make(rank, dims, &c->output_shapes[0]);
}

/* Einsum: the output subscripts' sizes (-1 where no input fixes them). */
grt_status* grt_infer_einsum(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  const char* eq;
  GRT_RETURN_IF_ERROR(grt_infer_attr_string(c, "equation", &eq));
  if (c->n_inputs > GRT_EINSUM_MAX_INPUTS)
    return GRT_ERROR(INVALID_ARGUMENT, "Einsum takes at most %d inputs", GRT_EINSUM_MAX_INPUTS);
  grt_einsum e;
  GRT_RETURN_IF_ERROR(grt_einsum_parse(eq, c->n_inputs, c->input_shapes, &e));
  if (e.n_out < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  int64_t dims[GRT_MAX_RANK];
  for (int32_t i = 0; i < e.n_out; i++) dims[i] = e.size[e.out[i]];
  return grt_infer_make(e.n_out, dims, &c->output_shapes[0]);
}
