/* Helpers shared by the shape functions: attr reads, constant inputs, rank
 * checks, broadcasting and merging. */
#include <string.h>

#include "ops/shape_fns.h"

#include "grt/op_semantics.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

grt_status* grt_infer_need(const grt_shape_ctx* c, int32_t n_in, int32_t n_out) {
  if (c->n_inputs < n_in || c->n_outputs < n_out || (n_in > 0 && !c->input_shapes) ||
      (n_out > 0 && !c->output_shapes))
    return GRT_ERROR(INTERNAL, "%s shape function expects %d inputs and %d outputs, got %d and %d",
                     c->def ? c->def->name : "?", (int)n_in, (int)n_out, (int)c->n_inputs,
                     (int)c->n_outputs);
  return NULL;
}

/* ---- attrs ------------------------------------------------------------- */

const grt_attr_value* grt_infer_attr(const grt_shape_ctx* c, const char* name) {
  return grt_attr_lookup(c->node, c->def, name);
}

grt_status* grt_infer_attr_int(const grt_shape_ctx* c, const char* name, int64_t* out) {
  return grt_attr_get_int(grt_infer_attr(c, name), name, out);
}

grt_status* grt_infer_attr_bool(const grt_shape_ctx* c, const char* name, bool* out) {
  return grt_attr_get_bool(grt_infer_attr(c, name), name, out);
}

grt_status* grt_infer_attr_string(const grt_shape_ctx* c, const char* name, const char** out) {
  return grt_attr_get_string(grt_infer_attr(c, name), name, out);
}

grt_status* grt_infer_attr_shape(const grt_shape_ctx* c, const char* name, grt_shape* out) {
  const grt_attr_value* v;
  GRT_RETURN_IF_ERROR(grt_attr_get(grt_infer_attr(c, name), name, GRT_ATTR_SHAPE, &v));
  if (v->u.shape.rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' has rank %d, above the maximum %d", name,
                     (int)v->u.shape.rank, GRT_MAX_RANK);
  *out = v->u.shape;
  if (out->rank < -1) out->rank = -1;
  for (int32_t i = 0; i < out->rank; i++)
    if (out->dims[i] < -1)
      return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' has dimension %lld, below -1", name,
                       (long long)out->dims[i]);
  return NULL;
}

grt_status* grt_infer_attr_int_list(const grt_shape_ctx* c, const char* name, const int64_t** out,
                                    int32_t* out_n) {
  return grt_attr_get_int_list(grt_infer_attr(c, name), name, out, out_n);
}

/* ---- constant inputs --------------------------------------------------- */

grt_status* grt_infer_const_ints(const grt_shape_ctx* c, int32_t i, const grt_tensor** out) {
  *out = NULL;
  if (!c->input_values || i >= c->n_inputs || !c->input_values[i]) return NULL;
  const grt_tensor* t = c->input_values[i];
  if (!grt_dtype_is_integer(t->dtype))
    return GRT_ERROR(INVALID_ARGUMENT, "input %d must be an integer tensor, got %s", (int)i,
                     grt_dtype_name(t->dtype));
  if (t->shape.rank > 1)
    return GRT_ERROR(INVALID_ARGUMENT, "input %d must be a scalar or vector, got rank %d", (int)i,
                     (int)t->shape.rank);
  *out = t;
  return NULL;
}

grt_status* grt_infer_const_scalar(const grt_shape_ctx* c, int32_t i, bool* out_known,
                                   int64_t* out) {
  const grt_tensor* t;
  *out_known = false;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, i, &t));
  if (!t) return NULL;
  if (grt_infer_value_count(t) != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "input %d must be a scalar, got %lld values", (int)i,
                     (long long)grt_infer_value_count(t));
  *out = grt_infer_value(t, 0);
  *out_known = true;
  return NULL;
}

int64_t grt_infer_value_count(const grt_tensor* t) {
  return t->shape.rank == 0 ? 1 : t->shape.dims[0];
}

int64_t grt_infer_value(const grt_tensor* t, int64_t k) {
  return grt_dtype_load_int(t->dtype, grt_tensor_data(t), k);
}

/* ---- ranks and shapes -------------------------------------------------- */

grt_status* grt_infer_with_rank(const grt_shape_ctx* c, int32_t i, int32_t rank) {
  const grt_shape* s = &c->input_shapes[i];
  if (s->rank >= 0 && s->rank != rank) {
    char buf[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT, "input %d must be rank %d, but is rank %d (shape %s)",
                     (int)i, (int)rank, (int)s->rank, grt_shape_str(s, buf, sizeof buf));
  }
  return NULL;
}

grt_status* grt_infer_with_rank_at_least(const grt_shape_ctx* c, int32_t i, int32_t rank) {
  const grt_shape* s = &c->input_shapes[i];
  if (s->rank >= 0 && s->rank < rank) {
    char buf[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT,
                     "input %d must be at least rank %d, but is rank %d (shape %s)", (int)i,
                     (int)rank, (int)s->rank, grt_shape_str(s, buf, sizeof buf));
  }
  return NULL;
}

grt_status* grt_infer_make(int32_t rank, const int64_t* dims, grt_shape* out) {
  if (rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "result would have rank %d, above the maximum %d", (int)rank,
                     GRT_MAX_RANK);
  grt_shape s = {0};
  s.rank = rank < 0 ? -1 : rank;
  for (int32_t i = 0; i < s.rank; i++) s.dims[i] = dims[i] < 0 ? -1 : dims[i];
  *out = s;
  return NULL;
}

grt_status* grt_infer_unknown_dims(int32_t rank, grt_shape* out) {
  int64_t dims[GRT_MAX_RANK];
  for (int32_t i = 0; i < GRT_MAX_RANK; i++) dims[i] = -1;
  return grt_infer_make(rank, dims, out);
}

bool grt_infer_axis(int64_t axis, int32_t rank, int32_t* out) {
  if (axis < -(int64_t)rank || axis >= rank) return false;
  *out = (int32_t)(axis < 0 ? axis + rank : axis);
  return true;
}

/* ---- broadcasting and merging ----------------------------------------- */

static grt_status* incompatible(const grt_shape* a, const grt_shape* b) {
  char sa[GRT_SHAPE_STR_MAX], sb[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                   grt_shape_str(a, sa, sizeof sa), grt_shape_str(b, sb, sizeof sb));
}

grt_status* grt_op_broadcast_shape(const grt_shape* a, const grt_shape* b, grt_shape* out) {
  return grt_infer_broadcast(a, b, true, out);
}

grt_status* grt_infer_broadcast(const grt_shape* a, const grt_shape* b, bool error_on_mismatch,
                                grt_shape* out) {
  if (a->rank < 0 || b->rank < 0) {
    *out = grt_shape_unknown();
    return NULL;
  }
  int32_t rank = a->rank > b->rank ? a->rank : b->rank;
  grt_shape r = {0};
  r.rank = rank;
  for (int32_t i = 0; i < rank; i++) {
    /* Aligned from the right; a missing leading dim acts as 1. */
    int32_t ia = i - (rank - a->rank), ib = i - (rank - b->rank);
    int64_t x = ia >= 0 ? a->dims[ia] : 1;
    int64_t y = ib >= 0 ? b->dims[ib] : 1;
    int64_t d;
    if (x == 1)
      d = y;
    else if (y == 1)
      d = x;
    else if (x < 0 && y < 0)
      d = -1;
    /* One unknown: assume the program is right and it equals the known one
     * (if the unknown is 1 the result is the known one too). */
    else if (x < 0)
      d = y;
    else if (y < 0)
      d = x;
    else if (x == y)
      d = x;
    else {
      if (!error_on_mismatch) {
        *out = grt_shape_unknown();
        return NULL;
      }
      return incompatible(a, b);
    }
    r.dims[i] = d;
  }
  *out = r;
  return NULL;
}

grt_status* grt_infer_merge_dim(int64_t a, int64_t b, const char* what, int64_t* out) {
  if (a >= 0 && b >= 0 && a != b)
    return GRT_ERROR(INVALID_ARGUMENT, "Dimensions must be equal, but are %lld and %lld (%s)",
                     (long long)a, (long long)b, what);
  *out = a >= 0 ? a : b;
  return NULL;
}

grt_status* grt_infer_merge(const grt_shape* a, const grt_shape* b, grt_shape* out) {
  if (!grt_shape_merge(a, b, out)) {
    char sa[GRT_SHAPE_STR_MAX], sb[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT, "Shapes must be equal, but are %s and %s",
                     grt_shape_str(a, sa, sizeof sa), grt_shape_str(b, sb, sizeof sb));
  }
  return NULL;
}
