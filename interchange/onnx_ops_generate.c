/* ONNX ops that generate values from a shape or a size fed at run time:
 * EyeLike and the cosine-sum windows (HannWindow, HammingWindow,
 * BlackmanWindow). Positions come from Where over a tensor of ones, which
 * lists every coordinate in row-major order, so nothing needs the size
 * before run time:
 *   EyeLike(x, k)  = Cast(column - row == k) over the coordinates of x
 *   window(size)   = sum_j a_j cos(2 pi j n / N), n = 0..size-1,
 *                    N = size (periodic) or size - 1 (symmetric),
 * computed in float64 and cast to the output type. */
#include <string.h>

#include "base/status.h"
#include "interchange/onnx_import.h"
#include "interchange/onnx_tensor.h"
#include "ops/graph.h"

/* Where(Fill(dims, 1)): the [count, rank] int64 coordinates of a tensor of
 * shape `dims` (a 1-D int32/int64 value). */
static grt_status* coordinates(onnx_import* ctx, const char* dims, grt_dtype dims_type,
                               const char** out) {
  const char *one, *ones;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 1, &one));
  const char* in[2] = {dims, one};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Fill", "ones", GRT_INT32, in, 2, &idx, &ones));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "index_type", dims_type));
  return onnx_emit(ctx, "Where", "coordinates", GRT_INT32, &ones, 1, NULL, out);
}

/* Column `col` of a [n, 2] int64 matrix, as [n, 1]. */
static grt_status* column(onnx_import* ctx, const char* m, int64_t col, const char** out) {
  int64_t begin[2] = {0, col}, size[2] = {-1, 1};
  const char *b, *s;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, begin, 2, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, size, 2, &s));
  const char* in[3] = {m, b, s};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "column", GRT_INT64, in, 3, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64);
}

static grt_status* eye_like(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  if (x->rank >= 0 && x->rank != 2) return GRT_ERROR(INVALID_ARGUMENT, "the input must be 2-D");
  int64_t k, dt;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "k", 0, &k));
  grt_dtype to = x->dtype;
  if (onnx_attr(ctx, "dtype")) {
    GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "dtype", 0, &dt));
    GRT_RETURN_IF_ERROR(grt_onnx_dtype_read(dt, &to));
  }
  const char *shape, *coords, *rows, *cols, *diff, *kc, *on, *flat, *y;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "shape", x->dtype, &x->ref, 1, NULL, &shape));
  GRT_RETURN_IF_ERROR(coordinates(ctx, shape, GRT_INT32, &coords));
  GRT_RETURN_IF_ERROR(column(ctx, coords, 0, &rows));
  GRT_RETURN_IF_ERROR(column(ctx, coords, 1, &cols));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "offset", GRT_INT64, cols, rows, &diff));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, (double)k, &kc));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Equal", "on_diagonal", GRT_INT64, diff, kc, &on));
  const char* in[2] = {on, shape};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "matrix", GRT_BOOL, in, 2, &idx, &flat));
  if (to == GRT_BOOL) {
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, GRT_BOOL, &flat, 1, NULL, &y));
  } else {
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, NULL, flat, GRT_BOOL, to, &y));
  }
  return onnx_bind(ctx, 0, y, to, 2);
}

/* Cosine-sum windows: a0 + a1 cos(2 pi n / N) + a2 cos(4 pi n / N). */
typedef struct {
  const char* op;
  double a[3];
} window_row;

static const window_row kWindows[] = {
    {"HannWindow", {0.5, -0.5, 0}},
    {"HammingWindow", {25.0 / 46, -(1 - 25.0 / 46), 0}},
    {"BlackmanWindow", {0.42, -0.5, 0.08}},
};

static grt_status* window(onnx_import* ctx, const char* tf) {
  const window_row* w = NULL;
  for (size_t i = 0; i < sizeof kWindows / sizeof kWindows[0]; i++)
    if (!strcmp(kWindows[i].op, tf)) w = &kWindows[i];
  if (!w) return GRT_ERROR(INTERNAL, "no window row for %s", tf);
  const onnx_value* size;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &size));
  if (size->dtype != GRT_INT32 && size->dtype != GRT_INT64)
    return GRT_ERROR(INVALID_ARGUMENT, "size must be int32 or int64");
  int64_t periodic, out_type;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "periodic", 1, &periodic));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "output_datatype", 1, &out_type));
  grt_dtype to;
  GRT_RETURN_IF_ERROR(grt_onnx_dtype_read(out_type, &to));
  const char *dims, *one_d, *coords, *n, *nf, *sizef, *den, *phase, *sum, *y;
  int64_t one = 1;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &one, 1, &one_d));
  const char* rs[2] = {size->ref, one_d};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "dims", size->dtype, rs, 2, &idx, &dims));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
  GRT_RETURN_IF_ERROR(coordinates(ctx, dims, size->dtype, &coords));
  const char* flat_in[2] = {coords, one_d};
  int64_t minus_one = -1;
  const char* flat_shape;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &minus_one, 1, &flat_shape));
  flat_in[1] = flat_shape;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "positions", GRT_INT64, flat_in, 2, &idx, &n));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "n", n, GRT_INT64, GRT_FLOAT64, &nf));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "size", size->ref, size->dtype, GRT_FLOAT64, &sizef));
  den = sizef;
  if (!periodic) {
    const char* c1;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT64, 1, &c1));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "symmetric", GRT_FLOAT64, sizef, c1, &den));
  }
  const char* two_pi;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT64, 6.283185307179586476925, &two_pi));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "angle", GRT_FLOAT64, two_pi, nf, &phase));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "phase", GRT_FLOAT64, phase, den, &phase));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT64, w->a[0], &sum));
  for (int j = 1; j < 3; j++) {
    if (w->a[j] == 0) continue;
    const char *mult, *arg, *c, *a, *term;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT64, j, &mult));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "harmonic", GRT_FLOAT64, mult, phase, &arg));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Cos", "cos", GRT_FLOAT64, &arg, 1, NULL, &c));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT64, w->a[j], &a));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "term", GRT_FLOAT64, a, c, &term));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "sum", GRT_FLOAT64, sum, term, &sum));
  }
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, NULL, sum, GRT_FLOAT64, to, &y));
  return onnx_bind(ctx, 0, y, to, 1);
}

const onnx_op_row grt_onnx_ops_generate[] = {
    {"EyeLike", eye_like, NULL, "dtype,k"},
    {"HannWindow", window, "HannWindow", "periodic,output_datatype"},
    {"HammingWindow", window, "HammingWindow", "periodic,output_datatype"},
    {"BlackmanWindow", window, "BlackmanWindow", "periodic,output_datatype"},
    {NULL, NULL, NULL, NULL},
};
