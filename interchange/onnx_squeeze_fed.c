/* Squeeze with axes fed at run time (TensorFlow's Squeeze takes them as an
 * attr): the output shape is built at run time and x reshaped to it. With
 * r the input's rank and k the axes' length (both known at import), keep[p]
 * is 0 at the listed axes (OneHot rows summed) and 1 elsewhere; a kept
 * position p goes to output position cum[p] - 1, cum the inclusive running
 * count of kept positions (keep @ U, U upper-triangular ones); OneHot of
 * those positions (-1, all zeros, for squeezed ones) picks Shape(x)'s
 * dimensions into the [r - k] output shape. As with Reshape, a listed axis
 * whose dimension is not 1 is caught only by the element count. */
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

static grt_status* sum_axis(onnx_import* ctx, const char* suffix, const char* v, int64_t axis,
                            const char** out) {
  const char* ax;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &axis, 1, &ax));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sum", suffix, GRT_INT64, v, ax, out));
  return grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, *out), "Tidx", GRT_INT64);
}

grt_status* grt_onnx_squeeze_fed(onnx_import* ctx, const onnx_value* x, const onnx_value* axes) {
  int64_t k = grt_onnx_static_length(ctx, axes);
  if (x->rank < 0 || k < 0 || k > x->rank)
    return GRT_ERROR(UNIMPLEMENTED,
                     "axes fed at run time need the input's rank and the axes' length");
  int32_t r = x->rank, R = x->rank - (int32_t)k;
  const char *rows, *squeezed, *one, *keep, *cum, *c1, *at, *nokeep, *target, *depth, *on, *off,
      *pick, *xd, *col, *weighted, *shape, *y;
  int32_t i;
  GRT_RETURN_IF_ERROR(grt_onnx_axis_rows(ctx, axes->ref, r, &rows));
  GRT_RETURN_IF_ERROR(sum_axis(ctx, "squeezed", rows, 0, &squeezed));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &one));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "keep", GRT_INT64, one, squeezed, &keep));
  GRT_RETURN_IF_ERROR(onnx_running_count(ctx, keep, r, &cum));
  /* target = (cum - 1) * keep + (keep - 1): cum - 1 where kept, -1 where squeezed */
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "position", GRT_INT64, cum, one, &c1));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "kept_position", GRT_INT64, c1, keep, &at));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "dropped", GRT_INT64, keep, one, &nokeep));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "target", GRT_INT64, at, nokeep, &target));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, R, &depth));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &on));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 0, &off));
  const char* oh[4] = {target, depth, on, off};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OneHot", "pick", GRT_INT64, oh, 4, &i, &pick));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "TI", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "dims", x->dtype, &x->ref, 1, &i, &xd));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "out_type", GRT_INT64));
  const char* cx[2] = {xd, one};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ExpandDims", "column", GRT_INT64, cx, 2, &i, &col));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Tdim", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "weighted", GRT_INT64, col, pick, &weighted));
  GRT_RETURN_IF_ERROR(sum_axis(ctx, "shape", weighted, 0, &shape));
  const char* rr[2] = {x->ref, shape};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", NULL, x->dtype, rr, 2, &i, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Tshape", GRT_INT64));
  return onnx_bind(ctx, 0, y, x->dtype, R);
}
