/* ONNX Resize (opset 10 to 17) and Upsample as one GatherV2-based
 * resampling per axis, every coordinate computed at run time from the fed
 * scales or sizes (TensorFlow's ResizeBilinear/ResizeNearestNeighbor work
 * on NHWC images with size-derived scales only, so they do not match
 * ONNX's given-scale arithmetic).
 *
 * Along an axis of input length `in` resized to `out` with scale s (the
 * given scale, or out/in for sizes), output position x maps to the source
 * coordinate x' of coordinate_transformation_mode, in float64:
 *   half_pixel (x+0.5)/s-0.5   asymmetric x/s   tf_half_pixel_for_nn (x+0.5)/s
 *   pytorch_half_pixel (x+0.5)/s-0.5, or -0.5 when out is 1
 *   align_corners x*(in-1)/(s*in-1), or 0 when s*in is 1
 *   tf_crop_and_resize from the roi (start, end fractions of in-1), and
 *     extrapolation_value outside [0, in-1]
 * As ONNX's reference, the left neighbour is l = ceil(x') - 1 and the
 * ratio r = x' - l is in (0, 1]; neighbours are clamped to [0, in-1] (edge
 * padding). nearest picks l or l+1 by nearest_mode (round_prefer_floor:
 * r > 0.5, round_prefer_ceil: r >= 0.5, floor: r == 1, ceil: always l+1);
 * linear weighs l and l+1 by 1-r and r; cubic weighs l-1 .. l+2 by the
 * cubic convolution coefficients of cubic_coeff_a, renormalised over the
 * in-range neighbours with exclude_outside. Needs the input's rank. */
#include <string.h>

#include "base/status.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

typedef enum { RS_NEAREST, RS_LINEAR, RS_CUBIC } rs_mode;
typedef enum {
  CT_HALF_PIXEL,
  CT_ASYMMETRIC,
  CT_ALIGN_CORNERS,
  CT_PYTORCH_HALF_PIXEL,
  CT_TF_HALF_PIXEL_FOR_NN,
  CT_TF_CROP_AND_RESIZE
} rs_coord;
typedef enum { NM_ROUND_PREFER_FLOOR, NM_ROUND_PREFER_CEIL, NM_FLOOR, NM_CEIL } rs_nearest;

typedef struct {
  const char* name;
  int value;
} rs_name;

static const rs_name kModes[] = {
    {"nearest", RS_NEAREST}, {"linear", RS_LINEAR}, {"cubic", RS_CUBIC}};
static const rs_name kCoords[] = {{"half_pixel", CT_HALF_PIXEL},
                                  {"asymmetric", CT_ASYMMETRIC},
                                  {"align_corners", CT_ALIGN_CORNERS},
                                  {"pytorch_half_pixel", CT_PYTORCH_HALF_PIXEL},
                                  {"tf_half_pixel_for_nn", CT_TF_HALF_PIXEL_FOR_NN},
                                  {"tf_crop_and_resize", CT_TF_CROP_AND_RESIZE}};
static const rs_name kNearest[] = {{"round_prefer_floor", NM_ROUND_PREFER_FLOOR},
                                   {"round_prefer_ceil", NM_ROUND_PREFER_CEIL},
                                   {"floor", NM_FLOOR},
                                   {"ceil", NM_CEIL}};

static grt_status* string_attr(onnx_import* ctx, const char* attr, const rs_name* names, size_t n,
                               int dflt, int* out) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, attr);
  *out = dflt;
  if (!a) return NULL;
  if (!a->has_s) return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' must be a string", attr);
  for (size_t i = 0; i < n; i++)
    if (a->s.len == strlen(names[i].name) && memcmp(a->s.data, names[i].name, a->s.len) == 0) {
      *out = names[i].value;
      return NULL;
    }
  return GRT_ERROR(UNIMPLEMENTED, "%s '%.*s' is not supported", attr, (int)a->s.len,
                   (const char*)a->s.data);
}

typedef struct {
  onnx_import* ctx;
  rs_mode mode;
  rs_coord coord;
  rs_nearest nearest;
  float cubic_a, extrapolation;
  bool exclude_outside;
} resizer;

static grt_status* op1(resizer* z, const char* op, const char* suffix, grt_dtype t, const char* a,
                       const char** out) {
  return onnx_emit(z->ctx, op, suffix, t, &a, 1, NULL, out);
}

static grt_status* op2(resizer* z, const char* op, const char* suffix, grt_dtype t, const char* a,
                       const char* b, const char** out) {
  const char* in[2] = {a, b};
  return onnx_emit(z->ctx, op, suffix, t, in, 2, NULL, out);
}

static grt_status* cast(resizer* z, const char* v, grt_dtype from, grt_dtype to, const char** out) {
  if (from == to) {
    *out = v;
    return NULL;
  }
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(z->ctx, "Cast", "cast", GRT_DTYPE_INVALID, &v, 1, &idx, out));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(z->ctx->g, idx, "SrcT", from));
  return grt_graph_set_attr_type(z->ctx->g, idx, "DstT", to);
}

static grt_status* f64(resizer* z, double v, const char** out) {
  return onnx_const_scalar(z->ctx, GRT_FLOAT64, v, out);
}

/* Element `at` of a 1-D value as a scalar. */
static grt_status* element(resizer* z, const char* vec, grt_dtype t, int64_t at, const char** out) {
  const char *b, *n, *sl, *none;
  int64_t len = 1;
  GRT_RETURN_IF_ERROR(onnx_const_ints(z->ctx, GRT_INT64, &at, 1, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(z->ctx, GRT_INT64, &len, 1, &n));
  int32_t idx;
  const char* in[3] = {vec, b, n};
  GRT_RETURN_IF_ERROR(onnx_emit(z->ctx, "Slice", "element", t, in, 3, &idx, &sl));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(z->ctx->g, idx, "Index", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_const_ints(z->ctx, GRT_INT64, NULL, 0, &none));
  const char* rs[2] = {sl, none};
  GRT_RETURN_IF_ERROR(onnx_emit(z->ctx, "Reshape", "scalar", t, rs, 2, &idx, out));
  return grt_graph_set_attr_type(z->ctx->g, idx, "Tshape", GRT_INT64);
}

/* Select(cond, a, b) over float64 scalars or vectors of one shape. */
static grt_status* select3(resizer* z, const char* cond, const char* a, const char* b,
                           const char** out) {
  const char* in[3] = {cond, a, b};
  return onnx_emit(z->ctx, "Select", "pick", GRT_FLOAT64, in, 3, NULL, out);
}

/* A float64 vector broadcast to the shape of `like` (a float64 vector). */
static grt_status* spread(resizer* z, const char* scalar, const char* like, const char** out) {
  const char* zeros;
  GRT_RETURN_IF_ERROR(op1(z, "ZerosLike", "zeros", GRT_FLOAT64, like, &zeros));
  return op2(z, "AddV2", "spread", GRT_FLOAT64, zeros, scalar, out);
}

/* Index vector (int64) clamped to [0, in-1]. */
static grt_status* clamp_index(resizer* z, const char* i, const char* last, const char** out) {
  const char *zero, *lo;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(z->ctx, GRT_INT64, 0, &zero));
  GRT_RETURN_IF_ERROR(op2(z, "Maximum", "clamp_lo", GRT_INT64, i, zero, &lo));
  return op2(z, "Minimum", "clamp_hi", GRT_INT64, lo, last, out);
}

static grt_status* gather(resizer* z, const char* v, grt_dtype t, const char* idx, int64_t axis,
                          const char** out) {
  const char* ax;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(z->ctx, GRT_INT64, (double)axis, &ax));
  const char* in[3] = {v, idx, ax};
  int32_t i;
  GRT_RETURN_IF_ERROR(onnx_emit(z->ctx, "GatherV2", "gather", GRT_DTYPE_INVALID, in, 3, &i, out));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(z->ctx->g, i, "Tparams", t));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(z->ctx->g, i, "Tindices", GRT_INT64));
  return grt_graph_set_attr_type(z->ctx->g, i, "Taxis", GRT_INT64);
}

/* The cubic convolution coefficient for distance d in [0, 2] (float64
 * vectors): |d| <= 1: ((A+2)d - (A+3))d² + 1; 1 < |d| < 2:
 * ((A(d) - 5A)d + 8A)d - 4A. */
static grt_status* cubic_coeff(resizer* z, const char* d, bool near, const char** out) {
  double a = z->cubic_a;
  const char *c1, *c2, *c3, *t, *u;
  if (near) {
    GRT_RETURN_IF_ERROR(f64(z, a + 2, &c1));
    GRT_RETURN_IF_ERROR(f64(z, a + 3, &c2));
    GRT_RETURN_IF_ERROR(f64(z, 1, &c3));
    GRT_RETURN_IF_ERROR(op2(z, "Mul", "c", GRT_FLOAT64, d, c1, &t));
    GRT_RETURN_IF_ERROR(op2(z, "Sub", "c", GRT_FLOAT64, t, c2, &t));
    GRT_RETURN_IF_ERROR(op2(z, "Mul", "c", GRT_FLOAT64, t, d, &t));
    GRT_RETURN_IF_ERROR(op2(z, "Mul", "c", GRT_FLOAT64, t, d, &t));
    return op2(z, "AddV2", "coeff", GRT_FLOAT64, t, c3, out);
  }
  GRT_RETURN_IF_ERROR(f64(z, a, &c1));
  GRT_RETURN_IF_ERROR(f64(z, 5 * a, &c2));
  GRT_RETURN_IF_ERROR(f64(z, 8 * a, &c3));
  GRT_RETURN_IF_ERROR(op2(z, "Mul", "c", GRT_FLOAT64, d, c1, &t));
  GRT_RETURN_IF_ERROR(op2(z, "Sub", "c", GRT_FLOAT64, t, c2, &t));
  GRT_RETURN_IF_ERROR(op2(z, "Mul", "c", GRT_FLOAT64, t, d, &t));
  GRT_RETURN_IF_ERROR(op2(z, "AddV2", "c", GRT_FLOAT64, t, c3, &t));
  GRT_RETURN_IF_ERROR(op2(z, "Mul", "c", GRT_FLOAT64, t, d, &t));
  GRT_RETURN_IF_ERROR(f64(z, 4 * a, &u));
  return op2(z, "Sub", "coeff", GRT_FLOAT64, t, u, out);
}

/* Resamples axis `axis` of v (dtype t, rank r): in_len/out_len int64
 * scalars, scale a float64 scalar; roi_start/roi_end float64 scalars for
 * tf_crop_and_resize. */
static grt_status* resize_axis(resizer* z, const char* v, grt_dtype t, int32_t r, int64_t axis,
                               const char* in_len, const char* out_len, const char* scale,
                               const char* roi_start, const char* roi_end, const char** out) {
  const char *zero, *one, *xi, *x, *inf, *xo, *half, *t1, *t2, *last, *last_f;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(z->ctx, GRT_INT64, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(z->ctx, GRT_INT64, 1, &one));
  const char* rin[3] = {zero, out_len, one};
  GRT_RETURN_IF_ERROR(
      onnx_emit(z->ctx, "Range", "positions", GRT_DTYPE_INVALID, rin, 3, &idx, &xi));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(z->ctx->g, idx, "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(cast(z, xi, GRT_INT64, GRT_FLOAT64, &x));
  GRT_RETURN_IF_ERROR(cast(z, in_len, GRT_INT64, GRT_FLOAT64, &inf));
  GRT_RETURN_IF_ERROR(op2(z, "Sub", "last", GRT_INT64, in_len, one, &last));
  GRT_RETURN_IF_ERROR(cast(z, last, GRT_INT64, GRT_FLOAT64, &last_f));
  GRT_RETURN_IF_ERROR(f64(z, 0.5, &half));
  switch (z->coord) {
    case CT_HALF_PIXEL:
    case CT_PYTORCH_HALF_PIXEL:
    case CT_TF_HALF_PIXEL_FOR_NN:
      GRT_RETURN_IF_ERROR(op2(z, "AddV2", "centre", GRT_FLOAT64, x, half, &t1));
      GRT_RETURN_IF_ERROR(op2(z, "RealDiv", "source", GRT_FLOAT64, t1, scale, &xo));
      if (z->coord != CT_TF_HALF_PIXEL_FOR_NN)
        GRT_RETURN_IF_ERROR(op2(z, "Sub", "source", GRT_FLOAT64, xo, half, &xo));
      if (z->coord == CT_PYTORCH_HALF_PIXEL) { /* -0.5 when out is 1 */
        const char *single, *m, *ms;
        GRT_RETURN_IF_ERROR(op2(z, "Equal", "single", GRT_INT64, out_len, one, &single));
        GRT_RETURN_IF_ERROR(f64(z, -0.5, &m));
        GRT_RETURN_IF_ERROR(spread(z, m, xo, &ms));
        const char *sv, *zf;
        GRT_RETURN_IF_ERROR(f64(z, 0, &zf));
        GRT_RETURN_IF_ERROR(cast(z, single, GRT_BOOL, GRT_FLOAT64, &sv));
        GRT_RETURN_IF_ERROR(spread(z, sv, xo, &sv));
        GRT_RETURN_IF_ERROR(op2(z, "Greater", "single_all", GRT_FLOAT64, sv, zf, &sv));
        GRT_RETURN_IF_ERROR(select3(z, sv, ms, xo, &xo));
      }
      break;
    case CT_ASYMMETRIC:
      GRT_RETURN_IF_ERROR(op2(z, "RealDiv", "source", GRT_FLOAT64, x, scale, &xo));
      break;
    case CT_ALIGN_CORNERS: { /* x (in-1) / (s in - 1), 0 when s in == 1 */
      const char *ow, *onef, *den, *safe, *isone, *num;
      GRT_RETURN_IF_ERROR(op2(z, "Mul", "out_width", GRT_FLOAT64, scale, inf, &ow));
      GRT_RETURN_IF_ERROR(f64(z, 1, &onef));
      GRT_RETURN_IF_ERROR(op2(z, "Sub", "den", GRT_FLOAT64, ow, onef, &den));
      GRT_RETURN_IF_ERROR(f64(z, 0, &t2));
      GRT_RETURN_IF_ERROR(op2(z, "Equal", "unit", GRT_FLOAT64, den, t2, &isone));
      GRT_RETURN_IF_ERROR(select3(z, isone, onef, den, &safe));
      GRT_RETURN_IF_ERROR(op2(z, "Mul", "num", GRT_FLOAT64, x, last_f, &num));
      /* s in == 1: one output position, x = 0, so num / 1 is 0 */
      GRT_RETURN_IF_ERROR(op2(z, "RealDiv", "source", GRT_FLOAT64, num, safe, &xo));
      break;
    }
    case CT_TF_CROP_AND_RESIZE: {
      /* out > 1: start (in-1) + x (end - start)(in-1)/(out-1); else 0.5 (start+end)(in-1) */
      const char *span, *s0, *of, *onef, *den, *safe, *step, *mid, *single, *sv, *ms, *zf;
      GRT_RETURN_IF_ERROR(op2(z, "Sub", "roi_span", GRT_FLOAT64, roi_end, roi_start, &span));
      GRT_RETURN_IF_ERROR(op2(z, "Mul", "roi_span", GRT_FLOAT64, span, last_f, &span));
      GRT_RETURN_IF_ERROR(op2(z, "Mul", "roi_begin", GRT_FLOAT64, roi_start, last_f, &s0));
      GRT_RETURN_IF_ERROR(cast(z, out_len, GRT_INT64, GRT_FLOAT64, &of));
      GRT_RETURN_IF_ERROR(f64(z, 1, &onef));
      GRT_RETURN_IF_ERROR(op2(z, "Sub", "den", GRT_FLOAT64, of, onef, &den));
      GRT_RETURN_IF_ERROR(f64(z, 0, &zf));
      GRT_RETURN_IF_ERROR(op2(z, "Equal", "single", GRT_FLOAT64, den, zf, &single));
      GRT_RETURN_IF_ERROR(select3(z, single, onef, den, &safe));
      GRT_RETURN_IF_ERROR(op2(z, "RealDiv", "step", GRT_FLOAT64, span, safe, &step));
      GRT_RETURN_IF_ERROR(op2(z, "Mul", "offset", GRT_FLOAT64, x, step, &t1));
      GRT_RETURN_IF_ERROR(op2(z, "AddV2", "source", GRT_FLOAT64, t1, s0, &xo));
      GRT_RETURN_IF_ERROR(op2(z, "AddV2", "mid", GRT_FLOAT64, roi_start, roi_end, &mid));
      GRT_RETURN_IF_ERROR(op2(z, "Mul", "mid", GRT_FLOAT64, mid, half, &mid));
      GRT_RETURN_IF_ERROR(op2(z, "Mul", "mid", GRT_FLOAT64, mid, last_f, &mid));
      GRT_RETURN_IF_ERROR(spread(z, mid, xo, &ms));
      GRT_RETURN_IF_ERROR(cast(z, single, GRT_BOOL, GRT_FLOAT64, &sv));
      GRT_RETURN_IF_ERROR(spread(z, sv, xo, &sv));
      GRT_RETURN_IF_ERROR(op2(z, "Greater", "single_all", GRT_FLOAT64, sv, zf, &sv));
      GRT_RETURN_IF_ERROR(select3(z, sv, ms, xo, &xo));
      break;
    }
  }
  /* l = ceil(x') - 1 (the cast truncates toward zero), r = x' - l */
  const char *tr, *trf, *up, *upi, *ceil_i, *left, *left_f, *ratio;
  GRT_RETURN_IF_ERROR(cast(z, xo, GRT_FLOAT64, GRT_INT64, &tr));
  GRT_RETURN_IF_ERROR(cast(z, tr, GRT_INT64, GRT_FLOAT64, &trf));
  GRT_RETURN_IF_ERROR(op2(z, "Greater", "above", GRT_FLOAT64, xo, trf, &up));
  GRT_RETURN_IF_ERROR(cast(z, up, GRT_BOOL, GRT_INT64, &upi));
  GRT_RETURN_IF_ERROR(op2(z, "AddV2", "ceil", GRT_INT64, tr, upi, &ceil_i));
  GRT_RETURN_IF_ERROR(op2(z, "Sub", "left", GRT_INT64, ceil_i, one, &left));
  GRT_RETURN_IF_ERROR(cast(z, left, GRT_INT64, GRT_FLOAT64, &left_f));
  GRT_RETURN_IF_ERROR(op2(z, "Sub", "ratio", GRT_FLOAT64, xo, left_f, &ratio));
  /* weights broadcast along the axis: [1, .., out, .., 1] */
  int64_t wdims[GRT_MAX_RANK];
  for (int32_t i = 0; i < r; i++) wdims[i] = i == axis ? -1 : 1;
  const char* wshape;
  GRT_RETURN_IF_ERROR(onnx_const_ints(z->ctx, GRT_INT64, wdims, (size_t)r, &wshape));
  const char* y = NULL;
  if (z->mode == RS_NEAREST) {
    const char *right, *ri, *pick, *c;
    switch (z->nearest) {
      case NM_ROUND_PREFER_FLOOR:
        GRT_RETURN_IF_ERROR(op2(z, "Greater", "right", GRT_FLOAT64, ratio, half, &right));
        break;
      case NM_ROUND_PREFER_CEIL:
        GRT_RETURN_IF_ERROR(op2(z, "GreaterEqual", "right", GRT_FLOAT64, ratio, half, &right));
        break;
      case NM_FLOOR:
        GRT_RETURN_IF_ERROR(f64(z, 1, &c));
        GRT_RETURN_IF_ERROR(op2(z, "GreaterEqual", "right", GRT_FLOAT64, ratio, c, &right));
        break;
      case NM_CEIL:
        GRT_RETURN_IF_ERROR(f64(z, 0, &c));
        GRT_RETURN_IF_ERROR(op2(z, "Greater", "right", GRT_FLOAT64, ratio, c, &right));
        break;
    }
    GRT_RETURN_IF_ERROR(cast(z, right, GRT_BOOL, GRT_INT64, &ri));
    GRT_RETURN_IF_ERROR(op2(z, "AddV2", "nearest", GRT_INT64, left, ri, &pick));
    GRT_RETURN_IF_ERROR(clamp_index(z, pick, last, &pick));
    GRT_RETURN_IF_ERROR(gather(z, v, t, pick, axis, &y));
  } else {
    int n = z->mode == RS_LINEAR ? 2 : 4;
    const char *w[4], *sum = NULL;
    if (n == 2) {
      const char* onef;
      GRT_RETURN_IF_ERROR(f64(z, 1, &onef));
      GRT_RETURN_IF_ERROR(op2(z, "Sub", "weight", GRT_FLOAT64, onef, ratio, &w[0]));
      w[1] = ratio;
    } else { /* distances 1+r, r, 1-r, 2-r to l-1, l, l+1, l+2 */
      const char *onef, *twof, *d;
      GRT_RETURN_IF_ERROR(f64(z, 1, &onef));
      GRT_RETURN_IF_ERROR(f64(z, 2, &twof));
      GRT_RETURN_IF_ERROR(op2(z, "AddV2", "dist", GRT_FLOAT64, ratio, onef, &d));
      GRT_RETURN_IF_ERROR(cubic_coeff(z, d, false, &w[0]));
      GRT_RETURN_IF_ERROR(cubic_coeff(z, ratio, true, &w[1]));
      GRT_RETURN_IF_ERROR(op2(z, "Sub", "dist", GRT_FLOAT64, onef, ratio, &d));
      GRT_RETURN_IF_ERROR(cubic_coeff(z, d, true, &w[2]));
      GRT_RETURN_IF_ERROR(op2(z, "Sub", "dist", GRT_FLOAT64, twof, ratio, &d));
      GRT_RETURN_IF_ERROR(cubic_coeff(z, d, false, &w[3]));
    }
    const char* at[4];
    for (int j = 0; j < n; j++) {
      const char* off;
      GRT_RETURN_IF_ERROR(onnx_const_scalar(z->ctx, GRT_INT64, n == 2 ? j : j - 1, &off));
      GRT_RETURN_IF_ERROR(op2(z, "AddV2", "neighbour", GRT_INT64, left, off, &at[j]));
    }
    if (z->exclude_outside) { /* zero weight outside [0, in-1], then renormalise */
      const char *zi, *total = NULL;
      GRT_RETURN_IF_ERROR(onnx_const_scalar(z->ctx, GRT_INT64, 0, &zi));
      for (int j = 0; j < n; j++) {
        const char *ge, *le, *gef, *lef;
        GRT_RETURN_IF_ERROR(op2(z, "GreaterEqual", "inside", GRT_INT64, at[j], zi, &ge));
        GRT_RETURN_IF_ERROR(op2(z, "GreaterEqual", "inside", GRT_INT64, last, at[j], &le));
        GRT_RETURN_IF_ERROR(cast(z, ge, GRT_BOOL, GRT_FLOAT64, &gef));
        GRT_RETURN_IF_ERROR(cast(z, le, GRT_BOOL, GRT_FLOAT64, &lef));
        GRT_RETURN_IF_ERROR(op2(z, "Mul", "inside", GRT_FLOAT64, gef, lef, &gef));
        GRT_RETURN_IF_ERROR(op2(z, "Mul", "weight", GRT_FLOAT64, w[j], gef, &w[j]));
        if (total)
          GRT_RETURN_IF_ERROR(op2(z, "AddV2", "total", GRT_FLOAT64, total, w[j], &total));
        else
          total = w[j];
      }
      for (int j = 0; j < n; j++)
        GRT_RETURN_IF_ERROR(op2(z, "RealDiv", "weight", GRT_FLOAT64, w[j], total, &w[j]));
    }
    for (int j = 0; j < n; j++) {
      const char *ci, *g, *wt, *wr, *term;
      GRT_RETURN_IF_ERROR(clamp_index(z, at[j], last, &ci));
      GRT_RETURN_IF_ERROR(gather(z, v, t, ci, axis, &g));
      GRT_RETURN_IF_ERROR(cast(z, w[j], GRT_FLOAT64, t, &wt));
      const char* rs[2] = {wt, wshape};
      GRT_RETURN_IF_ERROR(onnx_emit(z->ctx, "Reshape", "weight", t, rs, 2, &idx, &wr));
      GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(z->ctx->g, idx, "Tshape", GRT_INT64));
      GRT_RETURN_IF_ERROR(op2(z, "Mul", "term", t, g, wr, &term));
      if (sum)
        GRT_RETURN_IF_ERROR(op2(z, "AddV2", "sum", t, sum, term, &sum));
      else
        sum = term;
    }
    y = sum;
  }
  if (z->coord == CT_TF_CROP_AND_RESIZE) { /* extrapolation_value outside [0, in-1] */
    const char *zf, *lo, *hi, *lof, *hif, *in_f, *inside, *fill, *full, *cond, *cs, *zeros;
    GRT_RETURN_IF_ERROR(f64(z, 0, &zf));
    GRT_RETURN_IF_ERROR(op2(z, "GreaterEqual", "inside", GRT_FLOAT64, xo, zf, &lo));
    GRT_RETURN_IF_ERROR(op2(z, "GreaterEqual", "inside", GRT_FLOAT64, last_f, xo, &hi));
    GRT_RETURN_IF_ERROR(cast(z, lo, GRT_BOOL, GRT_FLOAT64, &lof));
    GRT_RETURN_IF_ERROR(cast(z, hi, GRT_BOOL, GRT_FLOAT64, &hif));
    GRT_RETURN_IF_ERROR(op2(z, "Mul", "inside", GRT_FLOAT64, lof, hif, &in_f));
    const char* rs[2] = {in_f, wshape};
    GRT_RETURN_IF_ERROR(onnx_emit(z->ctx, "Reshape", "inside", GRT_FLOAT64, rs, 2, &idx, &inside));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(z->ctx->g, idx, "Tshape", GRT_INT64));
    GRT_RETURN_IF_ERROR(op1(z, "ZerosLike", "zeros", t, y, &zeros));
    GRT_RETURN_IF_ERROR(cast(z, zeros, t, GRT_FLOAT64, &full));
    GRT_RETURN_IF_ERROR(op2(z, "AddV2", "inside_full", GRT_FLOAT64, full, inside, &full));
    GRT_RETURN_IF_ERROR(op2(z, "Greater", "inside_cond", GRT_FLOAT64, full, zf, &cond));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(z->ctx, t, z->extrapolation, &cs));
    GRT_RETURN_IF_ERROR(op2(z, "AddV2", "extrapolated", t, zeros, cs, &fill));
    const char* sel[3] = {cond, y, fill};
    GRT_RETURN_IF_ERROR(onnx_emit(z->ctx, "Select", "crop", t, sel, 3, NULL, &y));
  }
  *out = y;
  return NULL;
}

static grt_status* resize(onnx_import* ctx, const char* tf) {
  resizer z = {ctx, RS_NEAREST, CT_HALF_PIXEL, NM_ROUND_PREFER_FLOOR, -0.75f, 0, false};
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  bool upsample = strcmp(tf, "Upsample") == 0;
  int mode, coord, nearest;
  GRT_RETURN_IF_ERROR(string_attr(ctx, "mode", kModes, 3, RS_NEAREST, &mode));
  z.mode = (rs_mode)mode;
  if (upsample || ctx->opset < 11) {
    /* Upsample and Resize-10: asymmetric, nearest rounds down */
    if (z.mode == RS_CUBIC) return GRT_ERROR(UNIMPLEMENTED, "cubic needs opset 11");
    z.coord = CT_ASYMMETRIC;
    z.nearest = NM_FLOOR;
  } else {
    GRT_RETURN_IF_ERROR(
        string_attr(ctx, "coordinate_transformation_mode", kCoords, 6, CT_HALF_PIXEL, &coord));
    GRT_RETURN_IF_ERROR(
        string_attr(ctx, "nearest_mode", kNearest, 4, NM_ROUND_PREFER_FLOOR, &nearest));
    z.coord = (rs_coord)coord;
    z.nearest = (rs_nearest)nearest;
    int64_t excl;
    GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "cubic_coeff_a", -0.75f, &z.cubic_a));
    GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "exclude_outside", 0, &excl));
    GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "extrapolation_value", 0, &z.extrapolation));
    z.exclude_outside = excl != 0;
  }
  int32_t r = x->rank;
  if (r < 1) return GRT_ERROR(UNIMPLEMENTED, "Resize needs the input's rank");
  grt_dtype t = x->dtype;
  if (z.mode != RS_NEAREST && t != GRT_FLOAT32 && t != GRT_FLOAT64)
    return GRT_ERROR(UNIMPLEMENTED, "linear and cubic modes need a float32 or float64 input");
  /* scales (float32) or sizes (int64) */
  const onnx_value *scales = NULL, *sizes = NULL, *roi = NULL;
  if (upsample && ctx->opset < 9)
    return GRT_ERROR(UNIMPLEMENTED, "Upsample before opset 9 (scales as an attr) is not supported");
  int scales_at = upsample || ctx->opset < 11 ? 1 : 2;
  if (!upsample && ctx->opset >= 11 && onnx_has_input(ctx, 3)) {
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 3, &sizes));
  } else {
    GRT_RETURN_IF_ERROR(onnx_input(ctx, scales_at, &scales));
  }
  if (z.coord == CT_TF_CROP_AND_RESIZE) GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &roi));
  const char *xs, *v = x->ref;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "dims", t, &x->ref, 1, &idx, &xs));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64));
  const char *roi64 = NULL, *sz64 = NULL, *sc64 = NULL;
  if (roi) GRT_RETURN_IF_ERROR(cast(&z, roi->ref, roi->dtype, GRT_FLOAT64, &roi64));
  if (sizes) GRT_RETURN_IF_ERROR(cast(&z, sizes->ref, sizes->dtype, GRT_INT64, &sz64));
  if (scales) GRT_RETURN_IF_ERROR(cast(&z, scales->ref, scales->dtype, GRT_FLOAT64, &sc64));
  for (int32_t a = 0; a < r; a++) {
    const char *in_len, *out_len, *scale, *rs = NULL, *re = NULL, *in_f;
    GRT_RETURN_IF_ERROR(element(&z, xs, GRT_INT64, a, &in_len));
    GRT_RETURN_IF_ERROR(cast(&z, in_len, GRT_INT64, GRT_FLOAT64, &in_f));
    if (sizes) {
      const char* of;
      GRT_RETURN_IF_ERROR(element(&z, sz64, GRT_INT64, a, &out_len));
      GRT_RETURN_IF_ERROR(cast(&z, out_len, GRT_INT64, GRT_FLOAT64, &of));
      GRT_RETURN_IF_ERROR(op2(&z, "RealDiv", "scale", GRT_FLOAT64, of, in_f, &scale));
    } else {
      const char* of;
      GRT_RETURN_IF_ERROR(element(&z, sc64, GRT_FLOAT64, a, &scale));
      GRT_RETURN_IF_ERROR(op2(&z, "Mul", "out_f", GRT_FLOAT64, in_f, scale, &of));
      GRT_RETURN_IF_ERROR(cast(&z, of, GRT_FLOAT64, GRT_INT64, &out_len)); /* floor: positive */
    }
    if (roi64) {
      GRT_RETURN_IF_ERROR(element(&z, roi64, GRT_FLOAT64, a, &rs));
      GRT_RETURN_IF_ERROR(element(&z, roi64, GRT_FLOAT64, a + r, &re));
    }
    GRT_RETURN_IF_ERROR(resize_axis(&z, v, t, r, a, in_len, out_len, scale, rs, re, &v));
  }
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, t, &v, 1, NULL, &v));
  return onnx_bind(ctx, 0, v, t, r);
}

const onnx_op_row grt_onnx_ops_resize[] = {
    {"Resize", resize, "Resize",
     "coordinate_transformation_mode,cubic_coeff_a,exclude_outside,extrapolation_value,mode,"
     "nearest_mode"},
    {"Upsample", resize, "Upsample", "mode"},
    {NULL, NULL, NULL, NULL},
};
