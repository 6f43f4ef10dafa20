/* ONNX ops that decompose over several TensorFlow ops with the rank known
 * (from the graph's input types): Slice with fed starts, ends, axes and
 * steps; LayerNormalization; BatchNormalization at inference; OneHot;
 * Unsqueeze with fed axes. */
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

/* A reduction over `axes` keeping them. */
static grt_status* reduce_keep(onnx_import* ctx, const char* op, grt_dtype t, const char* v,
                               const char* axes, const char** out) {
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, op, "reduce", t, v, axes, out));
  idx = grt_graph_find_node(ctx->g, *out);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
  return grt_graph_set_attr_bool(ctx->g, idx, "keep_dims", true);
}

/* axes (int64, possibly negative) as 0/1 rows of a [len(axes), rank]
 * matrix: row k is one-hot at axes[k] mod rank. */
grt_status* grt_onnx_axis_rows(onnx_import* ctx, const char* axes, int32_t rank, const char** out) {
  const char *neg, *negi, *r, *shift, *norm, *depth, *on, *off;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &off));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Less", "negative", GRT_INT64, axes, off, &neg));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", neg, GRT_BOOL, GRT_INT64, &negi));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, rank, &r));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "shift", GRT_INT64, negi, r, &shift));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "axes", GRT_INT64, axes, shift, &norm));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, rank, &depth));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &on));
  const char* in[4] = {norm, depth, on, off};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OneHot", "rows", GRT_INT64, in, 4, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "TI", GRT_INT64);
}

/* sum_k values[k] * rows[k] + (1 - covered) * fill: a full-rank vector
 * with values at the listed axes and `fill` elsewhere. */
static grt_status* scatter(onnx_import* ctx, const char* rows, const char* covered,
                           const char* values, int64_t fill, const char** out) {
  const char *col, *prod, *zero, *sum, *one, *rest, *f, *pad;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &one));
  const char* ex[2] = {values, one};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ExpandDims", "column", GRT_INT64, ex, 2, &idx, &col));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tdim", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "spread", GRT_INT64, col, rows, &prod));
  int64_t axis0 = 0;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &axis0, 1, &zero));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sum", "placed", GRT_INT64, prod, zero, &sum));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, sum), "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "uncovered", GRT_INT64, one, covered, &rest));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, (double)fill, &f));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "fill", GRT_INT64, rest, f, &pad));
  return onnx_op2(ctx, "AddV2", "full", GRT_INT64, sum, pad, out);
}

/* Slice(x, starts, ends, axes, steps) as StridedSlice over full-rank
 * begin/end/strides built at run time: the listed axes take the fed
 * values; the others run whole (begin 0, end past the last, stride 1).
 * StridedSlice clamps out-of-range positions as ONNX does. */
static grt_status* slice(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *starts, *ends;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  if (ctx->opset < 10) return GRT_ERROR(UNIMPLEMENTED, "Slice before opset 10 is not supported");
  if (x->rank < 0) return GRT_ERROR(UNIMPLEMENTED, "Slice needs the input's rank");
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &starts));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &ends));
  const char* axes;
  if (onnx_has_input(ctx, 3)) {
    const onnx_value* a;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 3, &a));
    axes = a->ref;
    /* Axes known now must each name one of x's axes, once (an axis out of
     * range would select nothing and leave x whole); fed ones cannot be
     * checked before run time. */
    if (a->constant) {
      int64_t known[GRT_MAX_RANK];
      size_t n;
      GRT_RETURN_IF_ERROR(onnx_const_input_ints(ctx, 3, "axes", known, GRT_MAX_RANK, &n));
      GRT_RETURN_IF_ERROR(onnx_check_axes("axis", known, n, x->rank));
    }
  } else { /* 0, 1, ..., len(starts) - 1 */
    int64_t seq[GRT_MAX_RANK];
    for (int i = 0; i < GRT_MAX_RANK; i++) seq[i] = i;
    const char *all, *b, *n;
    int64_t zero = 0;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, seq, (size_t)x->rank, &all));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &zero, 1, &b));
    int32_t idx;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "count", starts->dtype, &starts->ref, 1, &idx, &n));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64));
    const char* in[3] = {all, b, n};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "default_axes", GRT_INT64, in, 3, &idx, &axes));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  }
  const char *steps, *rows, *covered, *begin, *end, *strides, *y, *zero;
  if (onnx_has_input(ctx, 4)) {
    const onnx_value* s;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 4, &s));
    steps = s->ref;
  } else {
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "OnesLike", "steps", GRT_INT64, &starts->ref, 1, NULL, &steps));
  }
  GRT_RETURN_IF_ERROR(grt_onnx_axis_rows(ctx, axes, x->rank, &rows));
  int64_t axis0 = 0;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &axis0, 1, &zero));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sum", "covered", GRT_INT64, rows, zero, &covered));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, covered), "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(scatter(ctx, rows, covered, starts->ref, 0, &begin));
  GRT_RETURN_IF_ERROR(scatter(ctx, rows, covered, ends->ref, INT64_MAX / 2, &end));
  GRT_RETURN_IF_ERROR(scatter(ctx, rows, covered, steps, 1, &strides));
  const char* in[4] = {x->ref, begin, end, strides};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "StridedSlice", NULL, x->dtype, in, 4, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

/* LayerNormalization over the axes from `axis` on:
 *   mean = Mean(x), d = x - mean, inv = rsqrt(Mean(d*d) + epsilon)
 *   Y = d * inv * scale + B;  outputs Mean and InvStdDev keep the axes. */
static grt_status* layer_norm(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *scale;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &scale));
  int64_t axis;
  float eps;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", -1, &axis));
  GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "epsilon", 1e-5f, &eps));
  if (x->rank < 0) return GRT_ERROR(UNIMPLEMENTED, "LayerNormalization needs the input's rank");
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis >= x->rank) return GRT_ERROR(INVALID_ARGUMENT, "axis out of range");
  int64_t axes[GRT_MAX_RANK];
  size_t n = 0;
  for (int64_t a = axis; a < x->rank; a++) axes[n++] = a;
  grt_dtype t = x->dtype;
  const char *ax, *mean, *d, *sq, *var, *e, *ve, *inv, *norm, *y;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, axes, n, &ax));
  GRT_RETURN_IF_ERROR(reduce_keep(ctx, "Mean", t, x->ref, ax, &mean));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "centered", t, x->ref, mean, &d));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Square", "square", t, &d, 1, NULL, &sq));
  GRT_RETURN_IF_ERROR(reduce_keep(ctx, "Mean", t, sq, ax, &var));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, eps, &e));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "var_eps", t, var, e, &ve));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Rsqrt", "inv_std", t, &ve, 1, NULL, &inv));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "normalized", t, d, inv, &norm));
  bool bias = onnx_has_input(ctx, 2);
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", bias ? "scaled" : NULL, t, norm, scale->ref, &y));
  if (bias) {
    const onnx_value* b;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &b));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", NULL, t, y, b->ref, &y));
  }
  GRT_RETURN_IF_ERROR(onnx_bind(ctx, 0, y, t, x->rank));
  GRT_RETURN_IF_ERROR(onnx_bind(ctx, 1, mean, t, x->rank));
  return onnx_bind(ctx, 2, inv, t, x->rank);
}

/* BatchNormalization at inference, over NC...: the [C] parameters reshaped
 * to [C, 1, ...] broadcast against x:
 *   y = (x - mean) * rsqrt(var + epsilon) * scale + bias */
static grt_status* batch_norm(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *p[4];
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  for (int k = 0; k < 4; k++) GRT_RETURN_IF_ERROR(onnx_input(ctx, k + 1, &p[k]));
  int64_t training;
  float eps;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "training_mode", 0, &training));
  GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "epsilon", 1e-5f, &eps));
  if (training) return grt_onnx_batch_norm_training(ctx);
  if (onnx_has_output(ctx, 1))
    return GRT_ERROR(UNIMPLEMENTED, "outputs besides Y need training mode (opset 14 on)");
  if (x->rank < 2) return GRT_ERROR(UNIMPLEMENTED, "BatchNormalization needs the input's rank");
  int64_t shape[GRT_MAX_RANK];
  shape[0] = -1;
  for (int32_t i = 1; i < x->rank - 1; i++) shape[i] = 1;
  const char* cshape;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, shape, (size_t)(x->rank - 1), &cshape));
  const char* r[4];
  for (int k = 0; k < 4; k++) {
    int32_t idx;
    const char* in[2] = {p[k]->ref, cshape};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "param", x->dtype, in, 2, &idx, &r[k]));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
  }
  grt_dtype t = x->dtype;
  const char *e, *ve, *inv, *d, *n, *s, *y;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, eps, &e));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "var_eps", t, r[3], e, &ve));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Rsqrt", "inv_std", t, &ve, 1, NULL, &inv));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "centered", t, x->ref, r[2], &d));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "normalized", t, d, inv, &n));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "scaled", t, n, r[0], &s));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", NULL, t, s, r[1], &y));
  return onnx_bind(ctx, 0, y, t, x->rank);
}

/* OneHot(indices, depth, [off, on]): TensorFlow's OneHot, with negative
 * indices counted from depth as ONNX does and the axis made positive. */
static grt_status* one_hot(onnx_import* ctx, const char* tf) {
  const onnx_value *ind, *depth, *values;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &ind));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &depth));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &values));
  int64_t axis;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", -1, &axis));
  /* A depth known now must fit the int32 TensorFlow's OneHot takes. */
  if (depth->constant && grt_tensor_num_elements(depth->constant) == 1) {
    double d = grt_dtype_load_double(depth->constant->dtype, grt_tensor_data(depth->constant), 0);
    if (!(d >= 0 && d <= INT32_MAX))
      return GRT_ERROR(INVALID_ARGUMENT, "depth %.17g is outside [0, %d]", d, INT32_MAX);
  }
  if (axis < -1) {
    if (ind->rank < 0) return GRT_ERROR(UNIMPLEMENTED, "a negative axis needs the indices' rank");
    axis += ind->rank + 1;
  }
  const char *none, *d64, *d32, *ds, *idx64 = ind->ref, *zero, *neg, *negi, *shift, *fixed;
  int64_t nodims = 0;
  int32_t i;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &nodims, 0, &none));
  const char* rs[2] = {depth->ref, none};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "depth", depth->dtype, rs, 2, &i, &ds));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Tshape", GRT_INT64));
  d64 = ds;
  if (depth->dtype != GRT_INT64)
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", ds, depth->dtype, GRT_INT64, &d64));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", d64, GRT_INT64, GRT_INT32, &d32));
  if (ind->dtype != GRT_INT64)
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", ind->ref, ind->dtype, GRT_INT64, &idx64));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Less", "negative", GRT_INT64, idx64, zero, &neg));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", neg, GRT_BOOL, GRT_INT64, &negi));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "shift", GRT_INT64, negi, d64, &shift));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "indices", GRT_INT64, idx64, shift, &fixed));
  const char* ends[2];
  for (int k = 0; k < 2; k++) {
    int64_t at = k, one = 1;
    const char *b, *sz, *sl;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &at, 1, &b));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &one, 1, &sz));
    const char* in[3] = {values->ref, b, sz};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "value", values->dtype, in, 3, &i, &sl));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Index", GRT_INT64));
    const char* r2[2] = {sl, none};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "scalar", values->dtype, r2, 2, &i, &ends[k]));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Tshape", GRT_INT64));
  }
  const char* in[4] = {fixed, d32, ends[1], ends[0]};
  const char* y;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OneHot", NULL, values->dtype, in, 4, &i, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "TI", GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, i, "axis", axis));
  return onnx_bind(ctx, 0, y, values->dtype, ind->rank < 0 ? -1 : ind->rank + 1);
}

/* The length of a 1-D value known before run time (its inferred shape,
 * onnx_shape); -1 otherwise. */
int64_t grt_onnx_static_length(onnx_import* ctx, const onnx_value* v) {
  const grt_shape* s = onnx_shape(ctx, v);
  return s->rank == 1 ? s->dims[0] : -1;
}

/* Unsqueeze with axes fed at run time (their count known from the declared
 * shape): the output shape is built at run time. With R the output rank,
 * new[p] = 1 where p is one of the axes (OneHot rows summed), the number of
 * new axes up to p is new @ U (U upper-triangular ones), so an old position
 * p takes x's dimension p - that; then Reshape. */
grt_status* grt_onnx_unsqueeze_fed(onnx_import* ctx, const onnx_value* x, const onnx_value* axes) {
  int64_t k = grt_onnx_static_length(ctx, axes);
  if (x->rank < 0 || k < 0 || x->rank + k > GRT_MAX_RANK)
    return GRT_ERROR(UNIMPLEMENTED,
                     "axes fed at run time need the input's rank and the axes' length");
  int32_t r = x->rank, R = x->rank + (int32_t)k;
  const char *rows, *zero, *is_new, *cum, *iota, *idx, *lo, *hi, *cl, *oh, *depth, *on, *off, *xd,
      *prod, *one_ax, *picked, *one, *keep, *kept, *shape, *y;
  int32_t i;
  int64_t axis0 = 0, axis1 = 1;
  GRT_RETURN_IF_ERROR(grt_onnx_axis_rows(ctx, axes->ref, R, &rows));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &axis0, 1, &zero));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sum", "is_new", GRT_INT64, rows, zero, &is_new));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, is_new), "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_running_count(ctx, is_new, R, &cum));
  int64_t seq[GRT_MAX_RANK];
  for (int32_t a = 0; a < R; a++) seq[a] = a;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, seq, (size_t)R, &iota));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "old_index", GRT_INT64, iota, cum, &idx));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &lo));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, r > 0 ? r - 1 : 0, &hi));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Maximum", "clamp_lo", GRT_INT64, idx, lo, &cl));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Minimum", "clamp_hi", GRT_INT64, cl, hi, &cl));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, r, &depth));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &on));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &off));
  const char* in[4] = {cl, depth, on, off};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OneHot", "pick", GRT_INT64, in, 4, &i, &oh));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "TI", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "dims", x->dtype, &x->ref, 1, &i, &xd));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "out_type", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "weighted", GRT_INT64, oh, xd, &prod));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &axis1, 1, &one_ax));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sum", "picked", GRT_INT64, prod, one_ax, &picked));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, picked), "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &one));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "keep", GRT_INT64, one, is_new, &keep));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "kept", GRT_INT64, picked, keep, &kept));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "shape", GRT_INT64, kept, is_new, &shape));
  const char* rr[2] = {x->ref, shape};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", NULL, x->dtype, rr, 2, &i, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Tshape", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, R);
}

const onnx_op_row grt_onnx_ops_nn[] = {
    {"Slice", slice, NULL, ""},
    {"LayerNormalization", layer_norm, NULL, "axis,epsilon,stash_type"},
    {"BatchNormalization", batch_norm, NULL, "epsilon,momentum,training_mode"},
    {"OneHot", one_hot, NULL, "axis"},
    {NULL, NULL, NULL, NULL},
};
