/* ONNX indexing ops over grt's TensorFlow-named indexing ops (ops/
 * defs_index.c). ONNX takes negative indices (counted from the end of the
 * axis) where TensorFlow's kernels refuse them, so indices are fixed at run
 * time first: i + (i < 0) * dim. Element-wise gathers and scatters
 * (GatherElements, ScatterElements) address every element through full
 * coordinates built at run time for GatherNd / TensorScatter*: the given
 * index on the axis, the element's own position (a Range broadcast over
 * the indices' shape) on every other axis; they need the indices' rank. */
#include <string.h>

#include "base/arena.h"
#include "base/status.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

static grt_status* set_type(onnx_import* ctx, const char* node, const char* attr, grt_dtype t) {
  return grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, node), attr, t);
}

static grt_status* reshape_to(onnx_import* ctx, const char* suffix, grt_dtype t, const char* v,
                              const int64_t* dims, size_t n, const char** out) {
  const char* s;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, dims, n, &s));
  return onnx_reshape(ctx, suffix, t, v, s, out);
}

/* Dimension `at` of an int64 shape vector, as a scalar (at may be negative
 * only through StridedSlice-free arithmetic: callers pass at >= 0). */
static grt_status* dim_scalar(onnx_import* ctx, const char* shape, int64_t at, const char** out) {
  const char *b, *n, *sl;
  int64_t len = 1;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &at, 1, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &len, 1, &n));
  int32_t idx;
  const char* in[3] = {shape, b, n};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "dim", GRT_INT64, in, 3, &idx, &sl));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  return reshape_to(ctx, "dim_scalar", GRT_INT64, sl, NULL, 0, out);
}

/* i + (i < 0) * dim, all of dtype t (dim broadcasts). */
static grt_status* fix_negative(onnx_import* ctx, const char* i, grt_dtype t, const char* dim,
                                const char** out) {
  const char *zero, *neg, *negi, *shift;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Less", "negative", t, i, zero, &neg));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", neg, GRT_BOOL, t, &negi));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "shift", t, negi, dim, &shift));
  return onnx_op2(ctx, "AddV2", "index", t, i, shift, out);
}

/* Range(0, n, 1) of int64 for a scalar int64 n. */
static grt_status* iota(onnx_import* ctx, const char* n, const char** out) {
  const char *zero, *one;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &one));
  const char* in[3] = {zero, n, one};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Range", "iota", GRT_DTYPE_INVALID, in, 3, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64);
}

static grt_status* axis_attr(onnx_import* ctx, int64_t dflt, int32_t rank, int64_t* axis) {
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", dflt, axis));
  if (*axis < 0) {
    if (rank < 0) return GRT_ERROR(UNIMPLEMENTED, "a negative axis needs the input's rank");
    *axis += rank;
  }
  if (rank >= 0 && (*axis < 0 || *axis >= rank))
    return GRT_ERROR(INVALID_ARGUMENT, "axis %lld is out of range for rank %d", (long long)*axis,
                     (int)rank);
  return NULL;
}

/* Range: ONNX gives an empty range where delta points away from limit
 * (TensorFlow's Range refuses it), so limit becomes start there. */
static grt_status* range(onnx_import* ctx, const char* tf) {
  const onnx_value *s, *l, *d;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &s));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &l));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &d));
  grt_dtype t = s->dtype;
  const char *span, *dir, *zero, *away, *limit, *y;
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "span", t, l->ref, s->ref, &span));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "direction", t, span, d->ref, &dir));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Less", "away", t, dir, zero, &away));
  const char* sel[3] = {away, s->ref, l->ref};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Select", "limit", t, sel, 3, NULL, &limit));
  const char* in[3] = {s->ref, limit, d->ref};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Range", NULL, GRT_DTYPE_INVALID, in, 3, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", t));
  return onnx_bind(ctx, 0, y, t, 1);
}

/* Gather: GatherV2 along the axis, indices fixed to non-negative. */
static grt_status* gather(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *ind;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &ind));
  int64_t axis;
  GRT_RETURN_IF_ERROR(axis_attr(ctx, 0, x->rank, &axis));
  grt_dtype it = ind->dtype;
  if (it != GRT_INT32 && it != GRT_INT64)
    return GRT_ERROR(INVALID_ARGUMENT, "indices must be int32 or int64");
  const char *xs, *dim, *fixed, *ax, *y;
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, x->ref, x->dtype, GRT_INT64, &xs));
  GRT_RETURN_IF_ERROR(dim_scalar(ctx, xs, axis, &dim));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", dim, GRT_INT64, it, &dim));
  GRT_RETURN_IF_ERROR(fix_negative(ctx, ind->ref, it, dim, &fixed));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, (double)axis, &ax));
  const char* in[3] = {x->ref, fixed, ax};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "GatherV2", NULL, GRT_DTYPE_INVALID, in, 3, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tparams", x->dtype));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tindices", it));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Taxis", GRT_INT64));
  int32_t rank = x->rank >= 0 && ind->rank >= 0 ? x->rank - 1 + ind->rank : -1;
  return onnx_bind(ctx, 0, y, x->dtype, rank);
}

/* Full coordinates [..., rank] (int64) for every element of `ind` (rank
 * r known): ind itself (fixed to non-negative against data's dimension)
 * on `axis`, the element's position on every other axis. */
static grt_status* coordinates(onnx_import* ctx, const onnx_value* data, const onnx_value* ind,
                               int64_t axis, const char** out) {
  int32_t r = ind->rank;
  if (r < 1 || r > 7) return GRT_ERROR(UNIMPLEMENTED, "the indices' rank (1 to 7) is needed");
  const char *i64, *is, *ds, *dim, *zeros, *minus1, *parts[8];
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", ind->ref, ind->dtype, GRT_INT64, &i64));
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, i64, GRT_INT64, GRT_INT64, &is));
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, data->ref, data->dtype, GRT_INT64, &ds));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zeros", GRT_INT64, &i64, 1, NULL, &zeros));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, -1, &minus1));
  for (int32_t a = 0; a < r; a++) {
    const char* c;
    if (a == axis) {
      GRT_RETURN_IF_ERROR(dim_scalar(ctx, ds, a, &dim));
      GRT_RETURN_IF_ERROR(fix_negative(ctx, i64, GRT_INT64, dim, &c));
    } else {
      const char *n, *seq, *shaped;
      int64_t dims[8];
      for (int32_t b = 0; b < r; b++) dims[b] = b == a ? -1 : 1;
      GRT_RETURN_IF_ERROR(dim_scalar(ctx, is, a, &n));
      GRT_RETURN_IF_ERROR(iota(ctx, n, &seq));
      GRT_RETURN_IF_ERROR(reshape_to(ctx, "position", GRT_INT64, seq, dims, (size_t)r, &shaped));
      GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "positions", GRT_INT64, shaped, zeros, &c));
    }
    const char* ex[2] = {c, minus1};
    int32_t idx;
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "ExpandDims", "coordinate", GRT_INT64, ex, 2, &idx, &parts[a]));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tdim", GRT_INT64));
  }
  /* 1-D indices have one coordinate, [n, 1] already: ConcatV2 takes two
   * or more parts. */
  if (r == 1) {
    *out = parts[0];
    return NULL;
  }
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, r, &parts[r]));
  int32_t idx;
  GRT_RETURN_IF_ERROR(
      onnx_emit(ctx, "ConcatV2", "coordinates", GRT_INT64, parts, r + 1, &idx, out));
  return grt_graph_set_attr_int(ctx->g, idx, "N", r);
}

static grt_status* gather_elements(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *ind;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &ind));
  int64_t axis;
  GRT_RETURN_IF_ERROR(axis_attr(ctx, 0, ind->rank, &axis));
  const char *coords, *y;
  GRT_RETURN_IF_ERROR(coordinates(ctx, x, ind, axis, &coords));
  const char* in[2] = {x->ref, coords};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "GatherNd", NULL, GRT_DTYPE_INVALID, in, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tparams", x->dtype));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tindices", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, ind->rank);
}

/* The TensorScatter op for ONNX's `reduction` (none, add, max, min; mul
 * has no TensorFlow op). */
static grt_status* scatter_op(onnx_import* ctx, const char** op) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, "reduction");
  *op = "TensorScatterUpdate";
  if (!a || !a->has_s) return NULL;
  static const struct {
    const char* onnx;
    const char* tf;
  } kOps[] = {{"none", "TensorScatterUpdate"},
              {"add", "TensorScatterAdd"},
              {"max", "TensorScatterMax"},
              {"min", "TensorScatterMin"}};
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++)
    if (a->s.len == strlen(kOps[i].onnx) && memcmp(a->s.data, kOps[i].onnx, a->s.len) == 0) {
      *op = kOps[i].tf;
      return NULL;
    }
  return GRT_ERROR(UNIMPLEMENTED, "reduction '%.*s' is not supported (none, add, max, min are)",
                   (int)a->s.len, (const char*)a->s.data);
}

static grt_status* emit_scatter(onnx_import* ctx, const char* op, const onnx_value* x,
                                const char* coords, const onnx_value* up) {
  const char* in[3] = {x->ref, coords, up->ref};
  const char* y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, op, NULL, x->dtype, in, 3, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tindices", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

/* ScatterElements (and opset < 11's Scatter). */
static grt_status* scatter_elements(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *ind, *up;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &ind));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &up));
  int64_t axis;
  GRT_RETURN_IF_ERROR(axis_attr(ctx, 0, ind->rank, &axis));
  const char *op, *coords;
  GRT_RETURN_IF_ERROR(scatter_op(ctx, &op));
  GRT_RETURN_IF_ERROR(coordinates(ctx, x, ind, axis, &coords));
  return emit_scatter(ctx, op, x, coords, up);
}

/* indices [..., k] (int64) fixed to non-negative against data's k
 * dimensions after the first batch_dims (k read at run time; the indices'
 * rank is needed). */
static grt_status* nd_indices(onnx_import* ctx, const onnx_value* x, const onnx_value* ind,
                              int64_t batch_dims, const char** out) {
  if (ind->rank < 1) return GRT_ERROR(UNIMPLEMENTED, "the indices' rank is needed");
  const char *i64, *is, *ds, *k, *k1, *b, *dims;
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", ind->ref, ind->dtype, GRT_INT64, &i64));
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, i64, GRT_INT64, GRT_INT64, &is));
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, x->ref, x->dtype, GRT_INT64, &ds));
  GRT_RETURN_IF_ERROR(dim_scalar(ctx, is, ind->rank - 1, &k));
  int64_t one = 1;
  GRT_RETURN_IF_ERROR(reshape_to(ctx, "k", GRT_INT64, k, &one, 1, &k1));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &batch_dims, 1, &b));
  const char* sl[3] = {ds, b, k1};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "indexed_dims", GRT_INT64, sl, 3, &idx, &dims));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  return fix_negative(ctx, i64, GRT_INT64, dims, out);
}

/* GatherND: GatherNd; with batch_dims b the indices get the batch
 * positions in front (Ranges broadcast over the indices' shape), so each
 * batch element indexes its own slice of data. */
static grt_status* gather_nd(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *ind;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &ind));
  int64_t batch_dims;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "batch_dims", 0, &batch_dims));
  if (batch_dims < 0 || (ind->rank >= 0 && batch_dims >= ind->rank) || batch_dims > 6)
    return GRT_ERROR(INVALID_ARGUMENT, "batch_dims %lld is out of range", (long long)batch_dims);
  const char *fixed, *y;
  GRT_RETURN_IF_ERROR(nd_indices(ctx, x, ind, batch_dims, &fixed));
  if (batch_dims > 0) {
    int32_t r = ind->rank;
    const char *is, *begin, *size, *lane, *zeros, *parts[8];
    int64_t zb[GRT_MAX_RANK] = {0}, sz[GRT_MAX_RANK];
    for (int32_t i = 0; i < r; i++) sz[i] = i == r - 1 ? 1 : -1;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, zb, (size_t)r, &begin));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, sz, (size_t)r, &size));
    const char* sl[3] = {fixed, begin, size};
    int32_t idx;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "lane", GRT_INT64, sl, 3, &idx, &lane));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zeros", GRT_INT64, &lane, 1, NULL, &zeros));
    GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, fixed, GRT_INT64, GRT_INT64, &is));
    for (int32_t a = 0; a < batch_dims; a++) {
      const char *n, *seq, *shaped;
      int64_t dims[GRT_MAX_RANK];
      for (int32_t i = 0; i < r; i++) dims[i] = i == a ? -1 : 1;
      GRT_RETURN_IF_ERROR(dim_scalar(ctx, is, a, &n));
      GRT_RETURN_IF_ERROR(iota(ctx, n, &seq));
      GRT_RETURN_IF_ERROR(reshape_to(ctx, "batch", GRT_INT64, seq, dims, (size_t)r, &shaped));
      GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "batch", GRT_INT64, shaped, zeros, &parts[a]));
    }
    parts[batch_dims] = fixed;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, r - 1, &parts[batch_dims + 1]));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", "with_batch", GRT_INT64, parts,
                                  (int)batch_dims + 2, &idx, &fixed));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", batch_dims + 1));
  }
  const char* in[2] = {x->ref, fixed};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "GatherNd", NULL, GRT_DTYPE_INVALID, in, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tparams", x->dtype));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tindices", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, -1);
}

static grt_status* scatter_nd(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *ind, *up;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &ind));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &up));
  const char *op, *fixed;
  GRT_RETURN_IF_ERROR(scatter_op(ctx, &op));
  GRT_RETURN_IF_ERROR(nd_indices(ctx, x, ind, 0, &fixed));
  return emit_scatter(ctx, op, x, fixed, up);
}

/* CumSum: TensorFlow's Cumsum, same attrs. */
static grt_status* cumsum(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *axis;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &axis));
  int64_t exclusive, reverse;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "exclusive", 0, &exclusive));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "reverse", 0, &reverse));
  const char *ax, *y;
  GRT_RETURN_IF_ERROR(reshape_to(ctx, "axis", axis->dtype, axis->ref, NULL, 0, &ax));
  const char* in[2] = {x->ref, ax};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Cumsum", NULL, x->dtype, in, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", axis->dtype));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "exclusive", exclusive != 0));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "reverse", reverse != 0));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

/* TopK: TopKV2 over the last axis (other axes transposed there and back);
 * the smallest as the largest of -x (ties stay in index order). */
static grt_status* top_k(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *kv;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &kv));
  int64_t axis, largest, sorted;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", -1, &axis));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "largest", 1, &largest));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "sorted", 1, &sorted));
  if (x->rank < 1) return GRT_ERROR(UNIMPLEMENTED, "TopK needs the input's rank");
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis >= x->rank) return GRT_ERROR(INVALID_ARGUMENT, "axis out of range");
  grt_dtype t = x->dtype;
  const char *v = x->ref, *k, *perm = NULL, *vals, *inds;
  int32_t idx;
  bool moved = axis != x->rank - 1;
  if (moved) {
    int64_t p[GRT_MAX_RANK];
    for (int32_t i = 0; i < x->rank; i++) p[i] = i;
    p[axis] = x->rank - 1;
    p[x->rank - 1] = axis;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, p, (size_t)x->rank, &perm));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Transpose", "last", t, v, perm, &v));
    GRT_RETURN_IF_ERROR(set_type(ctx, v, "Tperm", GRT_INT64));
  }
  if (!largest) GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Neg", "negated", t, &v, 1, NULL, &v));
  GRT_RETURN_IF_ERROR(reshape_to(ctx, "k", kv->dtype, kv->ref, NULL, 0, &k));
  const char* in[2] = {v, k};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "TopKV2", "top", t, in, 2, &idx, &vals));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tk", kv->dtype));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "index_type", GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "sorted", true));
  size_t len = strlen(vals) + 3;
  char* second = grt_arena_alloc(ctx->g->arena, len);
  if (!second) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  memcpy(second, vals, len - 3);
  memcpy(second + len - 3, ":1", 3);
  inds = second;
  if (!largest) GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Neg", "values", t, &vals, 1, NULL, &vals));
  if (moved) {
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Transpose", "values_back", t, vals, perm, &vals));
    GRT_RETURN_IF_ERROR(set_type(ctx, vals, "Tperm", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Transpose", "indices_back", GRT_INT64, inds, perm, &inds));
    GRT_RETURN_IF_ERROR(set_type(ctx, inds, "Tperm", GRT_INT64));
  }
  GRT_RETURN_IF_ERROR(onnx_bind(ctx, 0, vals, t, x->rank));
  return onnx_bind(ctx, 1, inds, GRT_INT64, x->rank);
}

/* Pad mode edge (no TensorFlow op): per axis a GatherV2 of the positions
 * Range(0, in + begin + end) - begin clamped to [0, in - 1], all computed
 * at run time from the fed pads (negative pads crop). Needs the rank. */
static grt_status* edge_pad(onnx_import* ctx, const onnx_value* x, const char* pads) {
  if (x->rank < 1) return GRT_ERROR(UNIMPLEMENTED, "edge padding needs the input's rank");
  int32_t r = x->rank;
  const char *xs, *v = x->ref, *zero, *one, *p64;
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, x->ref, x->dtype, GRT_INT64, &xs));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &one));
  p64 = pads;
  for (int32_t a = 0; a < r; a++) {
    const char *in, *b, *e, *n, *seq, *pos, *last, *lo, *hi, *ax;
    GRT_RETURN_IF_ERROR(dim_scalar(ctx, xs, a, &in));
    GRT_RETURN_IF_ERROR(dim_scalar(ctx, p64, a, &b));
    GRT_RETURN_IF_ERROR(dim_scalar(ctx, p64, a + r, &e));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "length", GRT_INT64, in, b, &n));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "length", GRT_INT64, n, e, &n));
    GRT_RETURN_IF_ERROR(iota(ctx, n, &seq));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "source", GRT_INT64, seq, b, &pos));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "last", GRT_INT64, in, one, &last));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Maximum", "clamp_lo", GRT_INT64, pos, zero, &lo));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Minimum", "clamp_hi", GRT_INT64, lo, last, &hi));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, a, &ax));
    const char* g[3] = {v, hi, ax};
    int32_t idx;
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "GatherV2", a + 1 < r ? "edge" : NULL, GRT_DTYPE_INVALID, g, 3, &idx, &v));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tparams", x->dtype));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tindices", GRT_INT64));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Taxis", GRT_INT64));
  }
  return onnx_bind(ctx, 0, v, x->dtype, r);
}

/* Pad: pads [begin..., end...] -> paddings [rank, 2]; constant is
 * Pad/PadV2, reflect is MirrorPad REFLECT, edge is edge_pad above. */
static grt_status* pad(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const Onnx__AttributeProto* m = onnx_attr(ctx, "mode");
  const char* mode = "constant";
  size_t mlen = strlen(mode);
  if (m && m->has_s) mode = (const char*)m->s.data, mlen = m->s.len;
  bool reflect = mlen == 7 && memcmp(mode, "reflect", 7) == 0;
  bool edge = mlen == 4 && memcmp(mode, "edge", 4) == 0;
  if (!reflect && !edge && !(mlen == 8 && memcmp(mode, "constant", 8) == 0))
    return GRT_ERROR(INVALID_ARGUMENT, "mode '%.*s' is not constant, reflect or edge", (int)mlen,
                     mode);
  grt_dtype t = x->dtype;
  const char *pads, *value = NULL, *paddings, *y;
  if (ctx->opset < 11) {
    const int64_t* p;
    size_t n;
    float v;
    GRT_RETURN_IF_ERROR(onnx_attr_ints(ctx, "pads", &p, &n));
    GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "value", 0, &v));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, p, n, &pads));
    if (v != 0) GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, v, &value));
  } else {
    const onnx_value* p;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &p));
    pads = p->ref;
    if (onnx_has_input(ctx, 3)) return GRT_ERROR(UNIMPLEMENTED, "the axes input is not supported");
    if (onnx_has_input(ctx, 2)) {
      const onnx_value* c;
      GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &c));
      GRT_RETURN_IF_ERROR(reshape_to(ctx, "value", t, c->ref, NULL, 0, &value));
    }
  }
  if (edge) {
    const onnx_value* p = NULL;
    if (ctx->opset >= 11) GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &p));
    const char* p64 = pads;
    if (p) GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", pads, p->dtype, GRT_INT64, &p64));
    return edge_pad(ctx, x, p64);
  }
  int64_t two_rows[2] = {2, -1};
  static const int64_t kSwap[2] = {1, 0};
  const char *rows, *perm;
  GRT_RETURN_IF_ERROR(reshape_to(ctx, "pads", GRT_INT64, pads, two_rows, 2, &rows));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, kSwap, 2, &perm));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Transpose", "paddings", GRT_INT64, rows, perm, &paddings));
  GRT_RETURN_IF_ERROR(set_type(ctx, paddings, "Tperm", GRT_INT64));
  int32_t idx;
  if (reflect) {
    const char* in[2] = {x->ref, paddings};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "MirrorPad", NULL, t, in, 2, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(ctx->g, idx, "mode", "REFLECT"));
  } else if (value) {
    const char* in[3] = {x->ref, paddings, value};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "PadV2", NULL, t, in, 3, &idx, &y));
  } else {
    const char* in[2] = {x->ref, paddings};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Pad", NULL, t, in, 2, &idx, &y));
  }
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tpaddings", GRT_INT64));
  return onnx_bind(ctx, 0, y, t, x->rank);
}

/* Trilu: Select(keep, x, 0), keep[i, j] = j - i >= k (upper) or <= k
 * (lower) over the last two axes, built from Ranges of their run-time
 * sizes and broadcast to x's shape. */
static grt_status* trilu(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  int64_t upper;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "upper", 1, &upper));
  if (x->rank < 2) return GRT_ERROR(UNIMPLEMENTED, "Trilu needs the input's rank (2 or more)");
  grt_dtype t = x->dtype;
  const char *k, *xs, *h, *w, *rows, *cols, *r2, *c2, *diff, *keep, *keepi, *zero, *full, *sum,
      *cond, *zeros, *y;
  if (onnx_has_input(ctx, 1)) {
    const onnx_value* kv;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &kv));
    GRT_RETURN_IF_ERROR(reshape_to(ctx, "k", kv->dtype, kv->ref, NULL, 0, &k));
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", k, kv->dtype, GRT_INT64, &k));
  } else {
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &k));
  }
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, x->ref, t, GRT_INT64, &xs));
  GRT_RETURN_IF_ERROR(dim_scalar(ctx, xs, x->rank - 2, &h));
  GRT_RETURN_IF_ERROR(dim_scalar(ctx, xs, x->rank - 1, &w));
  GRT_RETURN_IF_ERROR(iota(ctx, h, &rows));
  GRT_RETURN_IF_ERROR(iota(ctx, w, &cols));
  int64_t col_shape[2] = {-1, 1}, row_shape[2] = {1, -1};
  GRT_RETURN_IF_ERROR(reshape_to(ctx, "row_index", GRT_INT64, rows, col_shape, 2, &r2));
  GRT_RETURN_IF_ERROR(reshape_to(ctx, "col_index", GRT_INT64, cols, row_shape, 2, &c2));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "diagonal", GRT_INT64, c2, r2, &diff));
  if (upper)
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "GreaterEqual", "keep", GRT_INT64, diff, k, &keep));
  else
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "GreaterEqual", "keep", GRT_INT64, k, diff, &keep));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", keep, GRT_BOOL, GRT_INT64, &keepi));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Fill", "full", GRT_INT64, xs, zero, &full));
  GRT_RETURN_IF_ERROR(set_type(ctx, full, "index_type", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "keep_full", GRT_INT64, full, keepi, &sum));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Greater", "cond", GRT_INT64, sum, zero, &cond));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zeros", t, &x->ref, 1, NULL, &zeros));
  const char* in[3] = {cond, x->ref, zeros};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Select", NULL, t, in, 3, NULL, &y));
  return onnx_bind(ctx, 0, y, t, x->rank);
}

/* Einsum: TensorFlow's Einsum, whose equation needs the output after
 * "->": ONNX's implicit form gets it written out ("..." first when any
 * operand has it, then the letters used exactly once, in ASCII order). */
static grt_status* einsum(onnx_import* ctx, const char* tf) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, "equation");
  if (!a || !a->has_s || a->s.len == 0 || a->s.len > 200)
    return GRT_ERROR(INVALID_ARGUMENT, "attribute 'equation' is required (at most 200 characters)");
  char eq[320];
  size_t n = 0;
  for (size_t i = 0; i < a->s.len; i++)
    if (a->s.data[i] != ' ') eq[n++] = (char)a->s.data[i];
  eq[n] = 0;
  if (!strstr(eq, "->")) {
    int count[128] = {0};
    bool ellipsis = strstr(eq, "...") != NULL;
    for (size_t i = 0; i < n; i++) count[(unsigned char)eq[i] & 127]++;
    memcpy(eq + n, "->", 2);
    n += 2;
    if (ellipsis) memcpy(eq + n, "...", 3), n += 3;
    for (int c = 'A'; c <= 'z'; c++)
      if (count[c] == 1 && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) eq[n++] = (char)c;
    eq[n] = 0;
  }
  int32_t k = (int32_t)ctx->node->n_input;
  if (k < 1 || k > 8) return GRT_ERROR(UNIMPLEMENTED, "Einsum of %d operands", (int)k);
  const char* in[8];
  grt_dtype t = GRT_DTYPE_INVALID;
  for (int32_t i = 0; i < k; i++) {
    const onnx_value* v;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, i, &v));
    in[i] = v->ref;
    t = v->dtype;
  }
  const char* y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Einsum", NULL, t, in, k, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(ctx->g, idx, "equation", eq));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", k));
  return onnx_bind(ctx, 0, y, t, -1);
}

/* NonZero: Transpose(Where(x)), [rank, count] int64. */
static grt_status* non_zero(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const char *w, *perm, *y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Where", "where", x->dtype, &x->ref, 1, &idx, &w));
  static const int64_t kSwap[2] = {1, 0};
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, kSwap, 2, &perm));
  const char* in[2] = {w, perm};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Transpose", NULL, GRT_INT64, in, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tperm", GRT_INT64));
  return onnx_bind(ctx, 0, y, GRT_INT64, 2);
}

/* Compress: GatherV2 of the positions where the condition holds (Where of
 * the 1-D condition); slices past the condition's end are dropped, as
 * ONNX says. No axis: the flattened input. */
static grt_status* compress(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *cond;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &cond));
  const char *v = x->ref, *w, *pos, *ax, *y;
  int64_t axis = 0;
  int32_t rank = x->rank;
  if (onnx_attr(ctx, "axis")) {
    GRT_RETURN_IF_ERROR(axis_attr(ctx, 0, x->rank, &axis));
  } else {
    int64_t flat = -1;
    GRT_RETURN_IF_ERROR(reshape_to(ctx, "flat", x->dtype, v, &flat, 1, &v));
    rank = 1;
  }
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Where", "where", cond->dtype, &cond->ref, 1, &idx, &w));
  int64_t m1 = -1;
  GRT_RETURN_IF_ERROR(reshape_to(ctx, "positions", GRT_INT64, w, &m1, 1, &pos));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, (double)axis, &ax));
  const char* in[3] = {v, pos, ax};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "GatherV2", NULL, GRT_DTYPE_INVALID, in, 3, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tparams", x->dtype));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tindices", GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Taxis", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, rank);
}

/* ReverseSequence: TensorFlow's, time_axis as seq_dim, batch_axis as
 * batch_dim. */
static grt_status* reverse_sequence(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *lens;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &lens));
  int64_t batch, time;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "batch_axis", 1, &batch));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "time_axis", 0, &time));
  const char* in[2] = {x->ref, lens->ref};
  const char* y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ReverseSequence", NULL, x->dtype, in, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "seq_dim", time));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "batch_dim", batch));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tlen", lens->dtype));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

const onnx_op_row grt_onnx_ops_index[] = {
    {"ReverseSequence", reverse_sequence, "ReverseSequence", "batch_axis,time_axis"},
    {"NonZero", non_zero, "Where", ""},
    {"Compress", compress, "GatherV2", "axis"},
    {"Einsum", einsum, "Einsum", "equation"},
    {"Range", range, "Range", ""},
    {"Gather", gather, "GatherV2", "axis"},
    {"GatherElements", gather_elements, "GatherNd", "axis"},
    {"GatherND", gather_nd, "GatherNd", "batch_dims"},
    {"ScatterElements", scatter_elements, "TensorScatterUpdate", "axis,reduction"},
    {"Scatter", scatter_elements, "TensorScatterUpdate", "axis"},
    {"ScatterND", scatter_nd, "TensorScatterUpdate", "reduction"},
    {"CumSum", cumsum, "Cumsum", "exclusive,reverse"},
    {"TopK", top_k, "TopKV2", "axis,largest,sorted"},
    {"Pad", pad, "Pad", "mode,pads,value"},
    {"Trilu", trilu, NULL, "upper"},
    {NULL, NULL, NULL, NULL},
};
