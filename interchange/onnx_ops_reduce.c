/* ONNX reductions and arg-reductions. Axes come from the `axes` attr, or
 * (ReduceSum from opset 13) a constant input; no axes reduce everything,
 * which needs no rank: reduce the flattened input, then with keepdims
 * reshape to Shape(x) with every dimension 1.
 *   ReduceSumSquare = Sum(x*x)   ReduceL1 = Sum(|x|)   ReduceL2 = sqrt(Sum(x*x))
 *   ReduceLogSum = log(Sum(x))   ReduceLogSumExp = log(Sum(exp(x))) */
#include <string.h>

#include "base/status.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

typedef struct {
  const char* pre;    /* element-wise op before the reduction, or NULL */
  const char* reduce; /* TensorFlow reduction */
  const char* post;   /* element-wise op after it, or NULL */
} reduce_recipe;

static reduce_recipe recipe_of(const char* name) {
  static const struct {
    const char* name;
    reduce_recipe r;
  } kRecipes[] = {
      {"ReduceSum", {NULL, "Sum", NULL}},     {"ReduceMean", {NULL, "Mean", NULL}},
      {"ReduceMax", {NULL, "Max", NULL}},     {"ReduceMin", {NULL, "Min", NULL}},
      {"ReduceProd", {NULL, "Prod", NULL}},   {"ReduceSumSquare", {"Square", "Sum", NULL}},
      {"ReduceL1", {"Abs", "Sum", NULL}},     {"ReduceL2", {"Square", "Sum", "Sqrt"}},
      {"ReduceLogSum", {NULL, "Sum", "Log"}}, {"ReduceLogSumExp", {"Exp", "Sum", "Log"}},
  };
  for (size_t i = 0; i < sizeof kRecipes / sizeof kRecipes[0]; i++)
    if (strcmp(kRecipes[i].name, name) == 0) return kRecipes[i].r;
  return (reduce_recipe){NULL, NULL, NULL};
}

/* ReduceSum with axes computed at run time: TensorFlow's Sum takes them as
 * an input too. With noop_with_empty_axes a fed empty list reduces
 * nothing, as Sum does; otherwise (ONNX's default) it reduces every axis:
 * the axes used are the first n of concat(axes, 0..rank-1), n = len(axes),
 * or rank when that is 0 (so the input's rank must be known). */
static grt_status* reduce_fed_axes(onnx_import* ctx, const onnx_value* x, const onnx_value* axes,
                                   bool keepdims, bool noop_empty) {
  const char* ax = axes->ref;
  int32_t idx;
  if (!noop_empty) {
    if (x->rank < 0)
      return GRT_ERROR(UNIMPLEMENTED,
                       "axes fed at run time need the input's rank (an empty list reduces all)");
    int64_t seq[GRT_MAX_RANK], zero = 0, one = 1;
    for (int32_t i = 0; i < x->rank; i++) seq[i] = i;
    const char *a64 = ax, *all, *axis, *joined, *n, *empty, *emptyi, *extra, *count, *c1, *b,
               *shape1;
    if (axes->dtype != GRT_INT64) {
      GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Cast", "axes64", GRT_DTYPE_INVALID, &ax, 1, &idx, &a64));
      GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "SrcT", axes->dtype));
      GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "DstT", GRT_INT64));
    }
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, seq, (size_t)x->rank, &all));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &axis));
    const char* cc[3] = {a64, all, axis};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", "candidates", GRT_INT64, cc, 3, &idx, &joined));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", 2));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Size", "count", GRT_INT64, &a64, 1, &idx, &n));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64));
    const char* z;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &z));
    const char* eq[2] = {n, z};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Equal", "empty", GRT_INT64, eq, 2, NULL, &empty));
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "Cast", "empty_int", GRT_DTYPE_INVALID, &empty, 1, &idx, &emptyi));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "SrcT", GRT_BOOL));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "DstT", GRT_INT64));
    const char* r;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, x->rank, &r));
    const char* mul[2] = {emptyi, r};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Mul", "extra", GRT_INT64, mul, 2, NULL, &extra));
    const char* add[2] = {n, extra};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "AddV2", "used", GRT_INT64, add, 2, NULL, &count));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &one, 1, &shape1));
    const char* rs[2] = {count, shape1};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "used_1", GRT_INT64, rs, 2, &idx, &c1));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &zero, 1, &b));
    const char* sl[3] = {joined, b, c1};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "axes", GRT_INT64, sl, 3, &idx, &ax));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  }
  const char* in[2] = {x->ref, ax};
  const char* y;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Sum", NULL, x->dtype, in, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, idx, "Tidx", noop_empty ? axes->dtype : GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "keep_dims", keepdims));
  return onnx_bind(ctx, 0, y, x->dtype, keepdims ? x->rank : -1);
}

static grt_status* reduce(onnx_import* ctx, const char* name) {
  reduce_recipe r = recipe_of(name);
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  int64_t keepdims, noop_empty;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "keepdims", 1, &keepdims));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "noop_with_empty_axes", 0, &noop_empty));
  int64_t axes[GRT_MAX_RANK];
  size_t n = 0;
  if (strcmp(name, "ReduceSum") == 0 && ctx->opset >= 13) {
    const onnx_value* fed;
    if (onnx_has_input(ctx, 1)) {
      GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &fed));
      if (!fed->constant) return reduce_fed_axes(ctx, x, fed, keepdims != 0, noop_empty != 0);
      GRT_RETURN_IF_ERROR(onnx_const_input_ints(ctx, 1, "axes", axes, GRT_MAX_RANK, &n));
    }
  } else {
    const int64_t* a;
    GRT_RETURN_IF_ERROR(onnx_attr_ints(ctx, "axes", &a, &n));
    if (n > GRT_MAX_RANK) return GRT_ERROR(INVALID_ARGUMENT, "%zu axes", n);
    if (n) memcpy(axes, a, n * sizeof *a);
  }
  grt_dtype t = x->dtype;
  const char* v = x->ref;
  if (n == 0 && noop_empty) {
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, t, &v, 1, NULL, &v));
    return onnx_bind(ctx, 0, v, t, x->rank);
  }
  if (r.pre) GRT_RETURN_IF_ERROR(onnx_emit(ctx, r.pre, "pre", t, &v, 1, NULL, &v));
  bool all = n == 0;
  if (all) { /* flatten: reduce axis 0 of a vector */
    int64_t m1 = -1;
    const char *flat_shape, *in[2];
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &m1, 1, &flat_shape));
    in[0] = v;
    in[1] = flat_shape;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "flat", t, in, 2, NULL, &v));
    GRT_RETURN_IF_ERROR(
        grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, v), "Tshape", GRT_INT64));
    axes[0] = 0;
    n = 1;
  }
  const char* ax;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, axes, n, &ax));
  bool last = !r.post && !(all && keepdims);
  const char* in[2] = {v, ax};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, r.reduce, last ? NULL : "reduce", t, in, 2, &idx, &v));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "keep_dims", keepdims && !all));
  if (r.post)
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, r.post, all && keepdims ? "post" : NULL, t, &v, 1, NULL, &v));
  int32_t rank = keepdims ? x->rank : (all ? 0 : (x->rank < 0 ? -1 : x->rank - (int32_t)n));
  if (all && keepdims) { /* back to the input's rank, every dimension 1 */
    const char *xs, *ones;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "dims", x->dtype, &x->ref, 1, &idx, &xs));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OnesLike", "ones", GRT_INT64, &xs, 1, NULL, &ones));
    const char* rs[2] = {v, ones};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", NULL, t, rs, 2, &idx, &v));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
  }
  return onnx_bind(ctx, 0, v, t, rank);
}

/* x reversed along `axis` (rank known): a StridedSlice of stride -1 there
 * over the whole of every axis. */
static grt_status* reverse_axis(onnx_import* ctx, const onnx_value* x, const char* v, int64_t axis,
                                const char** out) {
  int64_t zeros[GRT_MAX_RANK] = {0}, strides[GRT_MAX_RANK];
  for (int32_t i = 0; i < x->rank; i++) strides[i] = i == axis ? -1 : 1;
  const char *b, *st;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, zeros, (size_t)x->rank, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, strides, (size_t)x->rank, &st));
  const char* in[4] = {v, b, b, st};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "StridedSlice", "reversed", x->dtype, in, 4, &idx, out));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  int64_t all = ((int64_t)1 << x->rank) - 1;
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "begin_mask", all));
  return grt_graph_set_attr_int(ctx->g, idx, "end_mask", all);
}

/* ArgMax(x, axis), int64, with keepdims restoring the axis (ExpandDims at
 * the same axis, negative axes included). ArgMin is ArgMax of -x: the
 * first maximum of -x is the first minimum of x. */
static grt_status* arg(onnx_import* ctx, const char* name) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  int64_t axis, keepdims, last;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", 0, &axis));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "keepdims", 1, &keepdims));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "select_last_index", 0, &last));
  if (last && x->rank < 0)
    return GRT_ERROR(UNIMPLEMENTED, "select_last_index=1 needs the input's rank");
  if (last && axis < 0) axis += x->rank;
  const char* v = x->ref;
  if (strcmp(name, "ArgMin") == 0)
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Neg", "neg", x->dtype, &v, 1, NULL, &v));
  int32_t idx;
  if (last) GRT_RETURN_IF_ERROR(reverse_axis(ctx, x, v, axis, &v));
  const char* dim;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, (double)axis, &dim));
  const char* in[2] = {v, dim};
  GRT_RETURN_IF_ERROR(
      onnx_emit(ctx, "ArgMax", keepdims || last ? "arg" : NULL, x->dtype, in, 2, &idx, &v));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "output_type", GRT_INT64));
  if (last) { /* position in the reversed axis -> position in x: (n - 1) - i */
    const char *dims, *b, *sz, *n1, *scalar, *one, *none;
    int64_t at = axis, len = 1, no_dims = 0;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "dims", x->dtype, &x->ref, 1, &idx, &dims));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &at, 1, &b));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &len, 1, &sz));
    const char* sl[3] = {dims, b, sz};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "n", GRT_INT64, sl, 3, &idx, &n1));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &no_dims, 0, &none));
    const char* rs[2] = {n1, none};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "n_scalar", GRT_INT64, rs, 2, &idx, &scalar));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &one));
    const char* a[2] = {scalar, one};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Sub", "last", GRT_INT64, a, 2, NULL, &n1));
    const char* d[2] = {n1, v};
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "Sub", keepdims ? "index" : NULL, GRT_INT64, d, 2, NULL, &v));
  }
  if (keepdims) {
    const char* ex[2] = {v, dim};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ExpandDims", NULL, GRT_INT64, ex, 2, &idx, &v));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tdim", GRT_INT64));
  }
  return onnx_bind(ctx, 0, v, GRT_INT64, keepdims ? x->rank : (x->rank < 0 ? -1 : x->rank - 1));
}

const onnx_op_row grt_onnx_ops_reduce[] = {
    {"ReduceSum", reduce, "ReduceSum", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceMean", reduce, "ReduceMean", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceMax", reduce, "ReduceMax", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceMin", reduce, "ReduceMin", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceProd", reduce, "ReduceProd", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceSumSquare", reduce, "ReduceSumSquare", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceL1", reduce, "ReduceL1", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceL2", reduce, "ReduceL2", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceLogSum", reduce, "ReduceLogSum", "axes,keepdims,noop_with_empty_axes"},
    {"ReduceLogSumExp", reduce, "ReduceLogSumExp", "axes,keepdims,noop_with_empty_axes"},
    {"ArgMax", arg, "ArgMax", "axis,keepdims,select_last_index"},
    {"ArgMin", arg, "ArgMin", "axis,keepdims,select_last_index"},
    {NULL, NULL, NULL, NULL},
};
