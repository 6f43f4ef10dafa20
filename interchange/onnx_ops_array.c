/* ONNX shape, layout and matrix ops. Shapes, axes and repeats that arrive as
 * inputs stay inputs (Reshape, Tile, Expand, ConstantOfShape take them at
 * run time); where grt needs a list in an attr (Squeeze, Unsqueeze, Split)
 * it must be constant and the error says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_import.h"
#include "interchange/onnx_tensor.h"
#include "ops/graph.h"

static grt_status* step2(onnx_import* ctx, const char* op, const char* suffix, grt_dtype t,
                         const char* a, const char* b, const char** out) {
  const char* in[2] = {a, b};
  return onnx_emit(ctx, op, suffix, t, in, 2, NULL, out);
}

/* MatMul: numpy's matmul is TensorFlow's BatchMatMulV2 for rank >= 2. */
static grt_status* matmul(onnx_import* ctx, const char* tf) {
  const onnx_value *a, *b;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &a));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &b));
  if (a->rank == 1 || b->rank == 1)
    return GRT_ERROR(UNIMPLEMENTED, "MatMul of a 1-D operand is not supported");
  const char* y;
  GRT_RETURN_IF_ERROR(step2(ctx, "BatchMatMulV2", NULL, a->dtype, a->ref, b->ref, &y));
  int32_t rank = a->rank < 0 || b->rank < 0 ? -1 : a->rank > b->rank ? a->rank : b->rank;
  return onnx_bind(ctx, 0, y, a->dtype, rank);
}

/* Gemm: alpha * op(A) op(B) + beta * C, as MatMul with its transpose attrs
 * and element-wise scaling. */
static grt_status* gemm(onnx_import* ctx, const char* tf) {
  const onnx_value *a, *b;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &a));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &b));
  int64_t ta, tb;
  float alpha, beta;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "transA", 0, &ta));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "transB", 0, &tb));
  GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "alpha", 1.0f, &alpha));
  GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "beta", 1.0f, &beta));
  bool has_c = onnx_has_input(ctx, 2);
  bool scale = alpha != 1.0f;
  grt_dtype t = a->dtype;
  const char* in[2] = {a->ref, b->ref};
  const char* y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(
      onnx_emit(ctx, "MatMul", (has_c || scale) ? "matmul" : NULL, t, in, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "transpose_a", ta != 0));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "transpose_b", tb != 0));
  if (scale) {
    const char* k;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, alpha, &k));
    GRT_RETURN_IF_ERROR(step2(ctx, "Mul", has_c ? "alpha" : NULL, t, k, y, &y));
  }
  if (has_c) {
    const onnx_value* c;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &c));
    const char* cc = c->ref;
    if (beta != 1.0f) {
      const char* k;
      GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, beta, &k));
      GRT_RETURN_IF_ERROR(step2(ctx, "Mul", "beta", t, k, cc, &cc));
    }
    GRT_RETURN_IF_ERROR(step2(ctx, "AddV2", NULL, t, y, cc, &y));
  }
  return onnx_bind(ctx, 0, y, t, 2);
}

/* Softmax and LogSoftmax. Over the last axis Softmax is TensorFlow's op;
 * otherwise, over the axes it normalises (opset 13: `axis` alone; before:
 * every axis from `axis` on, the flattened form), with m = max(x) and
 * e = exp(x - m) kept over those axes:
 *   Softmax = e / sum(e)      LogSoftmax = (x - m) - log(sum(e)) */
static grt_status* softmax(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  int64_t axis;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", ctx->opset < 13 ? 1 : -1, &axis));
  /* Out of range, the flattened form (before 13) would reduce over no axis. */
  GRT_RETURN_IF_ERROR(onnx_check_axes("axis", &axis, 1, x->rank));
  bool log = strcmp(tf, "LogSoftmax") == 0;
  bool last = axis == -1 || (x->rank >= 0 && axis == x->rank - 1);
  grt_dtype t = x->dtype;
  const char* y;
  if (last && !log) {
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, tf, NULL, t, &x->ref, 1, NULL, &y));
    return onnx_bind(ctx, 0, y, t, x->rank);
  }
  int64_t axes[GRT_MAX_RANK];
  size_t n = 0;
  if (ctx->opset >= 13 || last) {
    axes[n++] = axis;
  } else {
    if (x->rank < 0) return GRT_ERROR(UNIMPLEMENTED, "softmax over a non-last axis needs the rank");
    if (axis < 0) axis += x->rank;
    for (int64_t a = axis; a < x->rank && n < GRT_MAX_RANK; a++) axes[n++] = a;
  }
  const char *ax, *m, *shifted, *e, *sum;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, axes, n, &ax));
  GRT_RETURN_IF_ERROR(step2(ctx, "Max", "max", t, x->ref, ax, &m));
  idx = grt_graph_find_node(ctx->g, m);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "keep_dims", true));
  GRT_RETURN_IF_ERROR(step2(ctx, "Sub", "shifted", t, x->ref, m, &shifted));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Exp", "exp", t, &shifted, 1, NULL, &e));
  GRT_RETURN_IF_ERROR(step2(ctx, "Sum", "sum", t, e, ax, &sum));
  idx = grt_graph_find_node(ctx->g, sum);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "keep_dims", true));
  if (log) {
    const char* ls;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Log", "log_sum", t, &sum, 1, NULL, &ls));
    GRT_RETURN_IF_ERROR(step2(ctx, "Sub", NULL, t, shifted, ls, &y));
  } else {
    GRT_RETURN_IF_ERROR(step2(ctx, "RealDiv", NULL, t, e, sum, &y));
  }
  return onnx_bind(ctx, 0, y, t, x->rank);
}

static grt_status* transpose(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const int64_t* perm;
  size_t n;
  int64_t reversed[GRT_MAX_RANK];
  GRT_RETURN_IF_ERROR(onnx_attr_ints(ctx, "perm", &perm, &n));
  if (!perm) {
    if (x->rank < 0)
      return GRT_ERROR(UNIMPLEMENTED, "Transpose without perm needs the input's rank");
    n = (size_t)x->rank;
    for (size_t i = 0; i < n; i++) reversed[i] = (int64_t)(n - 1 - i);
    perm = reversed;
  }
  /* A permutation of 0..n-1, n the input's rank. */
  if (n > GRT_MAX_RANK) return GRT_ERROR(INVALID_ARGUMENT, "perm has %zu entries", n);
  if (x->rank >= 0 && n != (size_t)x->rank)
    return GRT_ERROR(INVALID_ARGUMENT, "perm has %zu entries for an input of rank %d", n,
                     (int)x->rank);
  int64_t checked[GRT_MAX_RANK];
  for (size_t i = 0; i < n; i++) {
    if (perm[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "perm entry %lld is negative", (long long)perm[i]);
    checked[i] = perm[i];
  }
  GRT_RETURN_IF_ERROR(onnx_check_axes("perm entry", checked, n, (int32_t)n));
  const char *p, *y;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, perm, n, &p));
  GRT_RETURN_IF_ERROR(step2(ctx, "Transpose", NULL, x->dtype, x->ref, p, &y));
  return onnx_bind(ctx, 0, y, x->dtype, (int32_t)n);
}

static grt_status* concat(onnx_import* ctx, const char* tf) {
  int n = (int)ctx->node->n_input;
  if (n > 1024) return GRT_ERROR(INVALID_ARGUMENT, "%d inputs", n);
  const char* in[1025];
  const onnx_value* first = NULL;
  for (int k = 0; k < n; k++) {
    const onnx_value* v;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, k, &v));
    if (!first) first = v;
    in[k] = v->ref;
  }
  if (!first) return GRT_ERROR(INVALID_ARGUMENT, "no inputs");
  int64_t axis;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", 0, &axis));
  GRT_RETURN_IF_ERROR(onnx_check_axes("axis", &axis, 1, first->rank));
  const char* y;
  if (n == 1) {
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, first->dtype, in, 1, NULL, &y));
  } else {
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, (double)axis, &in[n]));
    int32_t idx;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", NULL, first->dtype, in, n + 1, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", n));
  }
  return onnx_bind(ctx, 0, y, first->dtype, first->rank);
}

static grt_status* shape_of(onnx_import* ctx, const char* op, const char* suffix,
                            const onnx_value* x, const char** out) {
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, op, suffix, x->dtype, &x->ref, 1, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64);
}

/* Reshape: a 0 in the shape copies the input's dimension (unless
 * allowzero). Computed at run time, so the shape may be fed:
 *   dims  = Slice(Concat(Shape(x), zeros_like(shape)), [0], Shape(shape))
 *   shape' = Select(shape == 0, dims, shape) */
static grt_status* reshape(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *shape;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &shape));
  int64_t allowzero;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "allowzero", 0, &allowzero));
  const char* target = shape->ref;
  bool zero_free = shape->constant != NULL;
  if (shape->constant)
    for (int64_t i = 0; i < grt_tensor_num_elements(shape->constant); i++)
      if (grt_dtype_load_int(shape->constant->dtype, grt_tensor_data(shape->constant), i) == 0)
        zero_free = false;
  int32_t rank = shape->constant ? (int32_t)grt_tensor_num_elements(shape->constant) : -1;
  if (!allowzero && !zero_free) {
    const char *xs, *zeros, *axis, *padded, *len, *begin, *dims, *zero, *is0;
    int32_t idx;
    GRT_RETURN_IF_ERROR(shape_of(ctx, "Shape", "dims", x, &xs));
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "ZerosLike", "zeros", GRT_INT64, &shape->ref, 1, NULL, &zeros));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &axis));
    const char* parts[3] = {xs, zeros, axis};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", "padded", GRT_INT64, parts, 3, &idx, &padded));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", 2));
    GRT_RETURN_IF_ERROR(shape_of(ctx, "Shape", "len", shape, &len));
    int64_t b0 = 0;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &b0, 1, &begin));
    const char* sl[3] = {padded, begin, len};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "copied", GRT_INT64, sl, 3, &idx, &dims));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &zero));
    GRT_RETURN_IF_ERROR(step2(ctx, "Equal", "is_zero", GRT_INT64, shape->ref, zero, &is0));
    const char* sel[3] = {is0, dims, shape->ref};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Select", "shape", GRT_INT64, sel, 3, NULL, &target));
  }
  const char* y;
  GRT_RETURN_IF_ERROR(step2(ctx, "Reshape", NULL, x->dtype, x->ref, target, &y));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, y), "Tshape", shape->dtype));
  return onnx_bind(ctx, 0, y, x->dtype, rank);
}

/* Flatten at `axis`: [prod(dims[:axis]), -1], computed from Shape(x). */
static grt_status* flatten(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  int64_t axis;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", 1, &axis));
  if (axis < 0) {
    if (x->rank < 0) return GRT_ERROR(UNIMPLEMENTED, "a negative axis needs the input's rank");
    axis += x->rank;
  }
  const char *xs, *begin, *size, *head, *red, *outer, *minus1, *zero, *target, *y;
  int32_t idx;
  int64_t b0 = 0, m1 = -1;
  GRT_RETURN_IF_ERROR(shape_of(ctx, "Shape", "dims", x, &xs));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &b0, 1, &begin));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &axis, 1, &size));
  const char* sl[3] = {xs, begin, size};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "head", GRT_INT64, sl, 3, &idx, &head));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, &b0, 1, &red));
  GRT_RETURN_IF_ERROR(step2(ctx, "Prod", "outer", GRT_INT64, head, red, &outer));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_bool(ctx->g, grt_graph_find_node(ctx->g, outer), "keep_dims", true));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &m1, 1, &minus1));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &zero));
  const char* parts[3] = {outer, minus1, zero};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", "shape", GRT_INT64, parts, 3, &idx, &target));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", 2));
  GRT_RETURN_IF_ERROR(step2(ctx, "Reshape", NULL, x->dtype, x->ref, target, &y));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, y), "Tshape", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, 2);
}

/* Axes of Squeeze/Unsqueeze: an attr before opset 13, a constant input
 * from 13. */
static grt_status* axes_of(onnx_import* ctx, int64_t* axes, size_t* n) {
  *n = 0;
  if (ctx->opset < 13) {
    const int64_t* a;
    GRT_RETURN_IF_ERROR(onnx_attr_ints(ctx, "axes", &a, n));
    if (*n > GRT_MAX_RANK) return GRT_ERROR(INVALID_ARGUMENT, "%zu axes", *n);
    if (*n) memcpy(axes, a, *n * sizeof *a);
    return NULL;
  }
  if (!onnx_has_input(ctx, 1)) return NULL;
  return onnx_const_input_ints(ctx, 1, "axes", axes, GRT_MAX_RANK, n);
}

static int cmp_i64(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

static grt_status* squeeze(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  if (ctx->opset >= 13 && onnx_has_input(ctx, 1)) {
    const onnx_value* fed;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &fed));
    if (!fed->constant) return grt_onnx_squeeze_fed(ctx, x, fed);
  }
  int64_t axes[GRT_MAX_RANK];
  size_t n;
  GRT_RETURN_IF_ERROR(axes_of(ctx, axes, &n));
  GRT_RETURN_IF_ERROR(onnx_check_axes("axis", axes, n, x->rank));
  const char* y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Squeeze", NULL, x->dtype, &x->ref, 1, &idx, &y));
  if (n)
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int_list(ctx->g, idx, "squeeze_dims", axes, (int32_t)n));
  int32_t rank = n && x->rank >= 0 ? x->rank - (int32_t)n : -1;
  return onnx_bind(ctx, 0, y, x->dtype, rank);
}

/* Unsqueeze: one ExpandDims per axis, in increasing order of the axes as
 * positions in the output. */
static grt_status* unsqueeze(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  if (ctx->opset >= 13 && onnx_has_input(ctx, 1)) {
    const onnx_value* fed;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &fed));
    if (!fed->constant) return grt_onnx_unsqueeze_fed(ctx, x, fed);
  }
  int64_t axes[GRT_MAX_RANK];
  size_t n;
  GRT_RETURN_IF_ERROR(axes_of(ctx, axes, &n));
  if (!n) return GRT_ERROR(INVALID_ARGUMENT, "no axes");
  int32_t out_rank = x->rank >= 0 ? x->rank + (int32_t)n : -1;
  GRT_RETURN_IF_ERROR(onnx_check_axes("axis", axes, n, out_rank));
  for (size_t i = 0; i < n; i++) {
    if (axes[i] < 0) {
      if (out_rank < 0) return GRT_ERROR(UNIMPLEMENTED, "a negative axis needs the input's rank");
      axes[i] += out_rank;
    }
  }
  qsort(axes, n, sizeof axes[0], cmp_i64);
  const char* y = x->ref;
  for (size_t i = 0; i < n; i++) {
    const char* dim;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, (double)axes[i], &dim));
    GRT_RETURN_IF_ERROR(
        step2(ctx, "ExpandDims", i + 1 < n ? "expand" : NULL, x->dtype, y, dim, &y));
  }
  return onnx_bind(ctx, 0, y, x->dtype, out_rank);
}

static grt_status* shape_op(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const char* y;
  if (onnx_attr(ctx, "start") || onnx_attr(ctx, "end")) {
    /* Shape(x)[start:end]: StridedSlice clamps and counts negative
     * positions from the end, as ONNX does. */
    int64_t start, end, one = 1;
    GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "start", 0, &start));
    GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "end", 0, &end));
    const char *dims, *b, *e, *st;
    int32_t idx;
    GRT_RETURN_IF_ERROR(shape_of(ctx, "Shape", "dims", x, &dims));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &start, 1, &b));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &end, 1, &e));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &one, 1, &st));
    const char* in[4] = {dims, b, e, st};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "StridedSlice", NULL, GRT_INT64, in, 4, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    if (!onnx_attr(ctx, "end"))
      GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "end_mask", 1));
    return onnx_bind(ctx, 0, y, GRT_INT64, 1);
  }
  GRT_RETURN_IF_ERROR(shape_of(ctx, tf, NULL, x, &y));
  return onnx_bind(ctx, 0, y, GRT_INT64, strcmp(tf, "Shape") == 0 ? 1 : 0);
}

static grt_status* tile(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *reps;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &reps));
  const char* y;
  GRT_RETURN_IF_ERROR(step2(ctx, "Tile", NULL, x->dtype, x->ref, reps->ref, &y));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, y), "Tmultiples", reps->dtype));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

/* Expand(x, shape) broadcasts x against `shape`: x + zeros(shape). */
static grt_status* expand(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *shape;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &shape));
  if (x->dtype == GRT_BOOL) return GRT_ERROR(UNIMPLEMENTED, "Expand of bool is not supported");
  const char *zero, *zeros, *y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, x->dtype, 0, &zero));
  GRT_RETURN_IF_ERROR(step2(ctx, "Fill", "zeros", x->dtype, shape->ref, zero, &zeros));
  idx = grt_graph_find_node(ctx->g, zeros);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "index_type", shape->dtype));
  GRT_RETURN_IF_ERROR(step2(ctx, "AddV2", NULL, x->dtype, x->ref, zeros, &y));
  return onnx_bind(ctx, 0, y, x->dtype, -1);
}

/* Constant: its `value` tensor, or one of opset 12's value_* forms. */
static grt_status* constant(onnx_import* ctx, const char* tf) {
  const Onnx__AttributeProto* a;
  grt_tensor* t = NULL;
  if ((a = onnx_attr(ctx, "value")) && a->t) {
    GRT_RETURN_IF_ERROR(grt_onnx_tensor_read(a->t, &t));
  } else if ((a = onnx_attr(ctx, "value_float")) || (a = onnx_attr(ctx, "value_int"))) {
    bool f = strcmp(a->name, "value_float") == 0;
    GRT_RETURN_IF_ERROR(grt_tensor_new(f ? GRT_FLOAT32 : GRT_INT64, 0, NULL, &t));
    if (f)
      *(float*)grt_tensor_data(t) = a->f;
    else
      *(int64_t*)grt_tensor_data(t) = a->i;
  } else if ((a = onnx_attr(ctx, "value_floats")) || (a = onnx_attr(ctx, "value_ints"))) {
    bool f = strcmp(a->name, "value_floats") == 0;
    int64_t n = (int64_t)(f ? a->n_floats : a->n_ints);
    GRT_RETURN_IF_ERROR(grt_tensor_new(f ? GRT_FLOAT32 : GRT_INT64, 1, &n, &t));
    if (n)
      memcpy(grt_tensor_data(t), f ? (void*)a->floats : (void*)a->ints, grt_tensor_byte_size(t));
  } else {
    return GRT_ERROR(UNIMPLEMENTED, "Constant without a tensor, float or int value");
  }
  const char* y;
  grt_status* s = onnx_const(ctx, NULL, t, &y);
  if (!s) {
    onnx_value v = {y, t->dtype, t->shape.rank, NULL};
    v.constant =
        grt_node_find_attr(&ctx->g->nodes[grt_graph_find_node(ctx->g, y)], "value")->u.tensor;
    s = onnx_define(ctx, ctx->node->output[0], &v);
  }
  grt_tensor_free(t);
  return s;
}

/* ConstantOfShape(shape): Fill(shape, value), value a one-element tensor
 * attr (float 0 by default). */
static grt_status* constant_of_shape(onnx_import* ctx, const char* tf) {
  const onnx_value* shape;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &shape));
  const Onnx__AttributeProto* a = onnx_attr(ctx, "value");
  grt_tensor* t = NULL;
  if (a && a->t) {
    GRT_RETURN_IF_ERROR(grt_onnx_tensor_read(a->t, &t));
    if (grt_tensor_num_elements(t) != 1) {
      grt_tensor_free(t);
      return GRT_ERROR(INVALID_ARGUMENT, "value must hold one element");
    }
    t->shape.rank = 0;
  } else {
    GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_FLOAT32, 0, NULL, &t));
  }
  const char *v, *y;
  grt_dtype dtype = t->dtype;
  grt_status* s = onnx_const(ctx, "value", t, &v);
  grt_tensor_free(t);
  GRT_RETURN_IF_ERROR(s);
  GRT_RETURN_IF_ERROR(step2(ctx, "Fill", NULL, dtype, shape->ref, v, &y));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, y), "index_type", shape->dtype));
  return onnx_bind(ctx, 0, y, dtype, -1);
}

/* Dropout at inference is the identity and its mask all true; with a
 * training_mode input, onnx_ops_dropout.c. */
static grt_status* dropout(onnx_import* ctx, const char* tf) {
  if (onnx_has_input(ctx, 2)) return grt_onnx_dropout_training(ctx);
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const char* y;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, x->dtype, &x->ref, 1, NULL, &y));
  if (onnx_has_output(ctx, 1)) { /* the mask keeps everything: all true */
    const char *ones, *mask;
    int32_t idx;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OnesLike", "ones", x->dtype, &x->ref, 1, NULL, &ones));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Cast", "mask", GRT_DTYPE_INVALID, &ones, 1, &idx, &mask));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "SrcT", x->dtype));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "DstT", GRT_BOOL));
    GRT_RETURN_IF_ERROR(onnx_bind(ctx, 1, mask, GRT_BOOL, x->rank));
  }
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

/* Split with explicit sizes: one Slice per part (the sizes must be
 * constant; the input's rank known). */
static grt_status* split_sizes(onnx_import* ctx, const onnx_value* x, int64_t axis,
                               const int64_t* sizes, size_t n) {
  if (x->rank < 0) return GRT_ERROR(UNIMPLEMENTED, "Split with sizes needs the input's rank");
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis >= x->rank) return GRT_ERROR(INVALID_ARGUMENT, "axis out of range");
  if (n != ctx->node->n_output)
    return GRT_ERROR(INVALID_ARGUMENT, "%zu sizes for %zu outputs", n, ctx->node->n_output);
  int64_t offset = 0;
  for (size_t k = 0; k < n; k++) {
    int64_t begin[GRT_MAX_RANK] = {0}, size[GRT_MAX_RANK];
    for (int32_t i = 0; i < x->rank; i++) size[i] = -1;
    begin[axis] = offset;
    size[axis] = sizes[k];
    offset += sizes[k];
    const char *b, *sz, *y;
    int32_t idx;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, begin, (size_t)x->rank, &b));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, size, (size_t)x->rank, &sz));
    const char* in[3] = {x->ref, b, sz};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "part", x->dtype, in, 3, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_bind(ctx, (int)k, y, x->dtype, x->rank));
  }
  return NULL;
}

/* Split with sizes fed at run time: part k is a Slice at offset
 * sum(sizes[:k]) of length sizes[k] along `axis`, both computed from the
 * fed vector; the other axes run whole (begin 0, size -1). */
static grt_status* split_fed_sizes(onnx_import* ctx, const onnx_value* x, int64_t axis,
                                   const onnx_value* sizes) {
  if (x->rank < 0) return GRT_ERROR(UNIMPLEMENTED, "Split with sizes needs the input's rank");
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis >= x->rank) return GRT_ERROR(INVALID_ARGUMENT, "axis out of range");
  int64_t at_axis[GRT_MAX_RANK] = {0}, rest[GRT_MAX_RANK];
  for (int32_t i = 0; i < x->rank; i++) rest[i] = i == axis ? 0 : -1;
  at_axis[axis] = 1;
  const char *unit, *whole, *zero, *none;
  int64_t zero0 = 0, nodims = 0;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, at_axis, (size_t)x->rank, &unit));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, rest, (size_t)x->rank, &whole));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &zero0, 1, &zero));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &nodims, 0, &none));
  for (size_t k = 0; k < ctx->node->n_output; k++) {
    int64_t kk = (int64_t)k, one = 1;
    const char *count, *first_k, *offset, *len1, *pick, *len, *begin, *size, *y;
    int32_t idx;
    /* offset = Sum(sizes[0:k]); len = sizes[k] as a scalar */
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &kk, 1, &count));
    const char* head[3] = {sizes->ref, zero, count};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "before", GRT_INT64, head, 3, &idx, &first_k));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(step2(ctx, "Sum", "offset", GRT_INT64, first_k, zero, &offset));
    GRT_RETURN_IF_ERROR(
        grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, offset), "Tidx", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &one, 1, &len1));
    const char* at[3] = {sizes->ref, count, len1};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "size_k", GRT_INT64, at, 3, &idx, &pick));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    const char* rs[2] = {pick, none};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "len", GRT_INT64, rs, 2, &idx, &len));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
    /* begin = unit * offset; size = whole + unit * len */
    const char* scaled;
    GRT_RETURN_IF_ERROR(step2(ctx, "Mul", "begin", GRT_INT64, unit, offset, &begin));
    GRT_RETURN_IF_ERROR(step2(ctx, "Mul", "len_at_axis", GRT_INT64, unit, len, &scaled));
    GRT_RETURN_IF_ERROR(step2(ctx, "AddV2", "size", GRT_INT64, whole, scaled, &size));
    const char* in[3] = {x->ref, begin, size};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "part", x->dtype, in, 3, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_bind(ctx, (int)k, y, x->dtype, x->rank));
  }
  return NULL;
}

/* Split into equal parts along `axis`: TensorFlow's Split. */
static grt_status* split(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const int64_t* sizes;
  size_t n_sizes;
  int64_t fed[64];
  GRT_RETURN_IF_ERROR(onnx_attr_ints(ctx, "split", &sizes, &n_sizes));
  if (onnx_has_input(ctx, 1)) {
    const onnx_value* sv;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &sv));
    if (!sv->constant) {
      int64_t axis;
      GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", 0, &axis));
      GRT_RETURN_IF_ERROR(onnx_check_axes("axis", &axis, 1, x->rank));
      return split_fed_sizes(ctx, x, axis, sv);
    }
    GRT_RETURN_IF_ERROR(onnx_const_input_ints(ctx, 1, "split", fed, 64, &n_sizes));
    sizes = fed;
  }
  int64_t axis;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", 0, &axis));
  GRT_RETURN_IF_ERROR(onnx_check_axes("axis", &axis, 1, x->rank));
  if (n_sizes) return split_sizes(ctx, x, axis, sizes, n_sizes);
  int n = (int)ctx->node->n_output;
  const char *dim, *y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, (double)axis, &dim));
  GRT_RETURN_IF_ERROR(step2(ctx, "Split", NULL, x->dtype, dim, x->ref, &y));
  idx = grt_graph_find_node(ctx->g, y);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "num_split", n));
  for (int k = 0; k < n; k++) {
    char ref[600];
    snprintf(ref, sizeof ref, k ? "%s:%d" : "%s", y, k);
    GRT_RETURN_IF_ERROR(onnx_bind(ctx, k, ref, x->dtype, x->rank));
  }
  return NULL;
}

const onnx_op_row grt_onnx_ops_array[] = {
    {"MatMul", matmul, NULL, ""},
    {"Gemm", gemm, NULL, "transA,transB,alpha,beta"},
    {"Softmax", softmax, "Softmax", "axis"},
    {"LogSoftmax", softmax, "LogSoftmax", "axis"},
    {"Transpose", transpose, NULL, "perm"},
    {"Concat", concat, NULL, "axis"},
    {"Reshape", reshape, NULL, "allowzero"},
    {"Flatten", flatten, NULL, "axis"},
    {"Squeeze", squeeze, NULL, "axes"},
    {"Unsqueeze", unsqueeze, NULL, "axes"},
    {"Shape", shape_op, "Shape", "start,end"},
    {"Size", shape_op, "Size", ""},
    {"Tile", tile, NULL, ""},
    {"Expand", expand, NULL, ""},
    {"Constant", constant, NULL, "value,value_float,value_int,value_floats,value_ints"},
    {"ConstantOfShape", constant_of_shape, NULL, "value"},
    {"Dropout", dropout, NULL, "ratio,seed"},
    {"Split", split, NULL, "axis,split"},
    {NULL, NULL, NULL, NULL},
};
