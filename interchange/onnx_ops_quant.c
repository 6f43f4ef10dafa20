/* ONNX's linear quantization as float32 arithmetic over TensorFlow ops,
 * every input (scales, zero points) taken at run time:
 *   QuantizeLinear         y = saturate(Round(x / scale) + zero_point)
 *   DequantizeLinear       y = (x - zero_point) * scale
 *   DynamicQuantizeLinear  scale = (max(0, max x) - min(0, min x)) / 255,
 *                          zero_point = saturate(Round(-min(0, min x) / scale)),
 *                          y = QuantizeLinear(x, scale, zero_point) in uint8
 * Round is half to even, as ONNX asks; saturate clips to the integer type's
 * range (uint8 0..255, int8 -128..127) before the Cast. A 1-D scale (and
 * zero point) is per slice along `axis`, reshaped to broadcast there, which
 * needs x's rank. And the integer products:
 *   MatMulInteger  (A - a_zero_point) @ (B - b_zero_point) in int32
 *   QLinearMatMul  saturate(Round(that * (a_scale * b_scale / y_scale)) + y_zero_point)
 * with a 1-D a_zero_point per row of A (reshaped to [M, 1]) and b's per
 * column. */
#include <string.h>

#include "base/status.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

/* `v` (a scale or zero point, as float32) shaped to broadcast against x:
 * a scalar as it is, a 1-D value along `axis` of x. */
static grt_status* along_axis(onnx_import* ctx, const char* v, int32_t v_rank, const onnx_value* x,
                              const char** out) {
  if (v_rank == 0) {
    *out = v;
    return NULL;
  }
  if (v_rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "scales and zero points must be scalars or 1-D");
  if (x->rank < 0) return GRT_ERROR(UNIMPLEMENTED, "a per-axis scale needs the input's rank");
  int64_t axis;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "axis", 1, &axis));
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis >= x->rank) return GRT_ERROR(INVALID_ARGUMENT, "axis is out of range");
  int64_t dims[GRT_MAX_RANK];
  for (int32_t d = 0; d < x->rank; d++) dims[d] = d == axis ? -1 : 1;
  const char* shape;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, dims, (size_t)x->rank, &shape));
  const char* in[2] = {v, shape};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "per_axis", GRT_FLOAT32, in, 2, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64);
}

/* Round(v), clipped to the range of `to`, cast to `to`. */
static grt_status* saturate(onnx_import* ctx, const char* suffix, const char* v, grt_dtype to,
                            const char** out) {
  double lo = to == GRT_INT8 ? -128 : 0, hi = to == GRT_INT8 ? 127 : 255;
  const char *lo_c, *hi_c, *r;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT32, lo, &lo_c));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT32, hi, &hi_c));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Maximum", "lower", GRT_FLOAT32, v, lo_c, &r));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Minimum", "upper", GRT_FLOAT32, r, hi_c, &r));
  return onnx_cast(ctx, suffix, r, GRT_FLOAT32, to, out);
}

static grt_status* require_float32(const onnx_value* v, const char* what) {
  if (v->dtype == GRT_FLOAT32) return NULL;
  return GRT_ERROR(INVALID_ARGUMENT, "%s must be float32", what);
}

static bool quantized_type(grt_dtype t) { return t == GRT_UINT8 || t == GRT_INT8; }

static grt_status* quantize_linear(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *scale, *zp = NULL;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &scale));
  GRT_RETURN_IF_ERROR(require_float32(scale, "the scale"));
  if (onnx_has_input(ctx, 2)) GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &zp));
  grt_dtype to = zp ? zp->dtype : GRT_UINT8;
  if (!quantized_type(to)) return GRT_ERROR(UNIMPLEMENTED, "the zero point must be uint8 or int8");
  if (x->dtype != GRT_FLOAT32 && x->dtype != GRT_INT32)
    return GRT_ERROR(UNIMPLEMENTED, "the input must be float32 or int32");
  const char *xf, *s, *q, *r, *y;
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "x", x->ref, x->dtype, GRT_FLOAT32, &xf));
  GRT_RETURN_IF_ERROR(along_axis(ctx, scale->ref, scale->rank, x, &s));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "scaled", GRT_FLOAT32, xf, s, &q));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Round", "rounded", GRT_FLOAT32, &q, 1, NULL, &r));
  if (zp) {
    const char *zf, *z;
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "zero_point", zp->ref, zp->dtype, GRT_FLOAT32, &zf));
    GRT_RETURN_IF_ERROR(along_axis(ctx, zf, zp->rank, x, &z));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "shifted", GRT_FLOAT32, r, z, &r));
  }
  GRT_RETURN_IF_ERROR(saturate(ctx, NULL, r, to, &y));
  return onnx_bind(ctx, 0, y, to, x->rank);
}

static grt_status* dequantize_linear(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *scale, *zp = NULL;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &scale));
  GRT_RETURN_IF_ERROR(require_float32(scale, "the scale"));
  if (onnx_has_input(ctx, 2)) GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &zp));
  if (!quantized_type(x->dtype) && x->dtype != GRT_INT32)
    return GRT_ERROR(UNIMPLEMENTED, "the input must be uint8, int8 or int32");
  const char *xf, *s, *y;
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "x", x->ref, x->dtype, GRT_FLOAT32, &xf));
  if (zp) {
    const char *zf, *z;
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "zero_point", zp->ref, zp->dtype, GRT_FLOAT32, &zf));
    GRT_RETURN_IF_ERROR(along_axis(ctx, zf, zp->rank, x, &z));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "centered", GRT_FLOAT32, xf, z, &xf));
  }
  GRT_RETURN_IF_ERROR(along_axis(ctx, scale->ref, scale->rank, x, &s));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", NULL, GRT_FLOAT32, xf, s, &y));
  return onnx_bind(ctx, 0, y, GRT_FLOAT32, x->rank);
}

/* max or min of every element of x, as a scalar */
static grt_status* extreme(onnx_import* ctx, const char* op, const char* suffix, const char* x,
                           const char** out) {
  const char *shape, *flat, *axis;
  int64_t minus_one = -1, zero = 0;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &minus_one, 1, &shape));
  const char* in[2] = {x, shape};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "flat", GRT_FLOAT32, in, 2, &idx, &flat));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &zero, 1, &axis));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, op, suffix, GRT_FLOAT32, flat, axis, out));
  return grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, *out), "Tidx", GRT_INT64);
}

static grt_status* dynamic_quantize_linear(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(require_float32(x, "the input"));
  const char *zero, *range, *mx, *mn, *width, *scale, *neg_min, *zpf, *zp, *q, *r, *y;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT32, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT32, 255, &range));
  GRT_RETURN_IF_ERROR(extreme(ctx, "Max", "max", x->ref, &mx));
  GRT_RETURN_IF_ERROR(extreme(ctx, "Min", "min", x->ref, &mn));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Maximum", "max0", GRT_FLOAT32, mx, zero, &mx));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Minimum", "min0", GRT_FLOAT32, mn, zero, &mn));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "width", GRT_FLOAT32, mx, mn, &width));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "scale", GRT_FLOAT32, width, range, &scale));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "neg_min", GRT_FLOAT32, zero, mn, &neg_min));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "zero_point_f", GRT_FLOAT32, neg_min, scale, &zpf));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Round", "zero_point_r", GRT_FLOAT32, &zpf, 1, NULL, &zpf));
  const char *lo, *hi;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT32, 0, &lo));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT32, 255, &hi));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Maximum", "zero_point_lo", GRT_FLOAT32, zpf, lo, &zpf));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Minimum", "zero_point_hi", GRT_FLOAT32, zpf, hi, &zpf));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "zero_point", zpf, GRT_FLOAT32, GRT_UINT8, &zp));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "scaled", GRT_FLOAT32, x->ref, scale, &q));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Round", "rounded", GRT_FLOAT32, &q, 1, NULL, &r));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "shifted", GRT_FLOAT32, r, zpf, &r));
  GRT_RETURN_IF_ERROR(saturate(ctx, NULL, r, GRT_UINT8, &y));
  GRT_RETURN_IF_ERROR(onnx_bind(ctx, 0, y, GRT_UINT8, x->rank));
  GRT_RETURN_IF_ERROR(onnx_bind(ctx, 1, scale, GRT_FLOAT32, 0));
  return onnx_bind(ctx, 2, zp, GRT_UINT8, 0);
}

/* int32(v) - int32(zero_point), the zero point reshaped to [M, 1] when it
 * is a per-row vector of A (`rows`). */
static grt_status* centered_int32(onnx_import* ctx, const char* suffix, const onnx_value* v,
                                  const onnx_value* zp, bool rows, const char** out) {
  if (!quantized_type(v->dtype)) return GRT_ERROR(UNIMPLEMENTED, "inputs must be uint8 or int8");
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, suffix, v->ref, v->dtype, GRT_INT32, out));
  if (!zp) return NULL;
  const char* z;
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "zero_point", zp->ref, zp->dtype, GRT_INT32, &z));
  if (rows && zp->rank == 1) {
    int64_t dims[2] = {-1, 1};
    const char* shape;
    int32_t idx;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, dims, 2, &shape));
    const char* in[2] = {z, shape};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "per_row", GRT_INT32, in, 2, &idx, &z));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
  }
  return onnx_op2(ctx, "Sub", "centered", GRT_INT32, *out, z, out);
}

/* (A - a_zp) @ (B - b_zp) over inputs a_at, b_at and their zero points. */
static grt_status* integer_product(onnx_import* ctx, int a_at, int a_zp_at, int b_at, int b_zp_at,
                                   const char* suffix, const char** out, int32_t* rank) {
  const onnx_value *a, *b, *azp = NULL, *bzp = NULL;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, a_at, &a));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, b_at, &b));
  if (onnx_has_input(ctx, a_zp_at)) GRT_RETURN_IF_ERROR(onnx_input(ctx, a_zp_at, &azp));
  if (onnx_has_input(ctx, b_zp_at)) GRT_RETURN_IF_ERROR(onnx_input(ctx, b_zp_at, &bzp));
  if (a->rank == 1 || b->rank == 1)
    return GRT_ERROR(UNIMPLEMENTED, "1-D operands of a matrix product are not supported");
  const char *a32, *b32;
  GRT_RETURN_IF_ERROR(centered_int32(ctx, "a", a, azp, true, &a32));
  GRT_RETURN_IF_ERROR(centered_int32(ctx, "b", b, bzp, false, &b32));
  *rank = a->rank < 0 || b->rank < 0 ? -1 : a->rank > b->rank ? a->rank : b->rank;
  return onnx_op2(ctx, "BatchMatMulV2", suffix, GRT_INT32, a32, b32, out);
}

static grt_status* matmul_integer(onnx_import* ctx, const char* tf) {
  const char* y;
  int32_t rank;
  GRT_RETURN_IF_ERROR(integer_product(ctx, 0, 2, 1, 3, NULL, &y, &rank));
  return onnx_bind(ctx, 0, y, GRT_INT32, rank);
}

static grt_status* qlinear_matmul(onnx_import* ctx, const char* tf) {
  const onnx_value *as, *bs, *ys, *yzp;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &as));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 4, &bs));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 6, &ys));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 7, &yzp));
  GRT_RETURN_IF_ERROR(require_float32(as, "a_scale"));
  GRT_RETURN_IF_ERROR(require_float32(bs, "b_scale"));
  GRT_RETURN_IF_ERROR(require_float32(ys, "y_scale"));
  if (!quantized_type(yzp->dtype))
    return GRT_ERROR(UNIMPLEMENTED, "y_zero_point must be uint8 or int8");
  const char *prod, *pf, *m, *scaled, *r, *z, *y;
  int32_t rank;
  GRT_RETURN_IF_ERROR(integer_product(ctx, 0, 2, 3, 5, "product", &prod, &rank));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "product_f", prod, GRT_INT32, GRT_FLOAT32, &pf));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "ab_scale", GRT_FLOAT32, as->ref, bs->ref, &m));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "multiplier", GRT_FLOAT32, m, ys->ref, &m));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "scaled", GRT_FLOAT32, pf, m, &scaled));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Round", "rounded", GRT_FLOAT32, &scaled, 1, NULL, &r));
  GRT_RETURN_IF_ERROR(onnx_cast(ctx, "y_zero_point", yzp->ref, yzp->dtype, GRT_FLOAT32, &z));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "shifted", GRT_FLOAT32, r, z, &r));
  GRT_RETURN_IF_ERROR(saturate(ctx, NULL, r, yzp->dtype, &y));
  return onnx_bind(ctx, 0, y, yzp->dtype, rank);
}

const onnx_op_row grt_onnx_ops_quant[] = {
    {"QuantizeLinear", quantize_linear, NULL, "axis"},
    {"DequantizeLinear", dequantize_linear, NULL, "axis"},
    {"DynamicQuantizeLinear", dynamic_quantize_linear, NULL, ""},
    {"MatMulInteger", matmul_integer, NULL, ""},
    {"QLinearMatMul", qlinear_matmul, NULL, ""},
    {NULL, NULL, NULL, NULL},
};
