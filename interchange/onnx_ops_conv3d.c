/* ONNX Conv, ConvTranspose, MaxPool and AveragePool over three spatial
 * axes, as TensorFlow's Conv3D, Conv3DBackpropInputV2, MaxPool3D and
 * AvgPool3D with data_format NCDHW.
 *
 * TensorFlow's 3-D ops take SAME or VALID padding only, so ONNX pads that
 * are neither (auto_pad NOTSET with pads) become a Pad in front of a VALID
 * window: zeros for Conv, -inf for MaxPool (never picked, as ONNX ignores
 * padding), zeros for AveragePool with count_include_pad; without it the
 * padded average is divided by the same average over ones_like(x), which
 * counts the real elements. ConvTranspose runs unpadded (VALID) and its
 * pads are cropped off after. auto_pad SAME_UPPER is TensorFlow's SAME
 * (not for ConvTranspose); SAME_LOWER, ceil_mode and ConvTranspose's
 * output_shape, which need the input's size, are errors here. */
#include <math.h>
#include <string.h>

#include "base/status.h"
#include "interchange/onnx_conv3d.h"
#include "ops/graph.h"

typedef struct {
  int64_t k[3], s[3], d[3], pb[3], pe[3];
  bool have_k, same; /* same: auto_pad SAME_UPPER */
} window3;

static grt_status* ints3(onnx_import* ctx, const char* name, size_t n, int64_t dflt, int64_t* out,
                         bool* present) {
  const int64_t* v;
  size_t got;
  GRT_RETURN_IF_ERROR(onnx_attr_ints(ctx, name, &v, &got));
  if (present) *present = v != NULL;
  for (size_t i = 0; i < n; i++) out[i] = v ? 0 : dflt;
  if (!v) return NULL;
  if (got != n)
    return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' has %zu values, expected %zu", name, got, n);
  memcpy(out, v, n * sizeof *v);
  return NULL;
}

static grt_status* read_window3(onnx_import* ctx, window3* w) {
  int64_t p[6];
  GRT_RETURN_IF_ERROR(ints3(ctx, "kernel_shape", 3, 1, w->k, &w->have_k));
  GRT_RETURN_IF_ERROR(ints3(ctx, "strides", 3, 1, w->s, NULL));
  GRT_RETURN_IF_ERROR(ints3(ctx, "dilations", 3, 1, w->d, NULL));
  GRT_RETURN_IF_ERROR(ints3(ctx, "pads", 6, 0, p, NULL));
  for (int32_t i = 0; i < 3; i++) {
    w->pb[i] = p[i];
    w->pe[i] = p[i + 3];
    if (w->s[i] < 1 || w->d[i] < 1 || w->k[i] < 1 || w->pb[i] < 0 || w->pe[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "kernel_shape, strides and dilations must be positive, pads not negative");
  }
  w->same = false;
  const Onnx__AttributeProto* a = onnx_attr(ctx, "auto_pad");
  if (!a || !a->has_s || (a->s.len == 6 && memcmp(a->s.data, "NOTSET", 6) == 0)) return NULL;
  if (a->s.len == 10 && memcmp(a->s.data, "SAME_UPPER", 10) == 0)
    w->same = true;
  else if (!(a->s.len == 5 && memcmp(a->s.data, "VALID", 5) == 0))
    return GRT_ERROR(UNIMPLEMENTED, "auto_pad %.*s is not supported for 3-D windows", (int)a->s.len,
                     (const char*)a->s.data);
  for (int32_t i = 0; i < 3; i++) w->pb[i] = w->pe[i] = 0;
  return NULL;
}

static bool padded(const window3* w) {
  for (int32_t i = 0; i < 3; i++)
    if (w->pb[i] || w->pe[i]) return true;
  return false;
}

/* x padded by the window's pads with `value` (zeros: Pad; else PadV2). */
static grt_status* pad(onnx_import* ctx, const char* suffix, grt_dtype t, const char* x,
                       const window3* w, double value, const char** out) {
  int64_t p[10] = {0, 0, 0, 0}, shape[2] = {5, 2};
  for (int32_t i = 0; i < 3; i++) p[4 + 2 * i] = w->pb[i], p[5 + 2 * i] = w->pe[i];
  const char *flat, *dims, *paddings;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, p, 10, &flat));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, shape, 2, &dims));
  GRT_RETURN_IF_ERROR(onnx_reshape(ctx, "paddings", GRT_INT64, flat, dims, &paddings));
  const char* in[3] = {x, paddings, NULL};
  int n = 2;
  if (value != 0) GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, value, &in[n++]));
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, n == 2 ? "Pad" : "PadV2", suffix, t, in, n, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Tpaddings", GRT_INT64);
}

/* Sets strides (and dilations or ksize), padding and data_format NCDHW. */
static grt_status* set_window3(onnx_import* ctx, int32_t idx, const window3* w, bool ksize) {
  int64_t s[5] = {1, 1, w->s[0], w->s[1], w->s[2]}, d[5] = {1, 1, w->d[0], w->d[1], w->d[2]};
  int64_t k[5] = {1, 1, w->k[0], w->k[1], w->k[2]};
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int_list(ctx->g, idx, "strides", s, 5));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_int_list(ctx->g, idx, ksize ? "ksize" : "dilations", ksize ? k : d, 5));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(ctx->g, idx, "data_format", "NCDHW"));
  return grt_graph_set_attr_string(ctx->g, idx, "padding", w->same ? "SAME" : "VALID");
}

static grt_status* bind(onnx_import* ctx, grt_dtype t, const char* v) {
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, t, &v, 1, &idx, &v));
  return onnx_bind(ctx, 0, v, t, 5);
}

/* Conv: filter [O, I/group, kD, kH, kW] -> DHWIO [kD, kH, kW, I/group, O],
 * TensorFlow's grouped filter; bias as BiasAdd over channel 1. */
grt_status* grt_onnx_conv3d(onnx_import* ctx) {
  const onnx_value *x, *wv;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &wv));
  window3 w;
  GRT_RETURN_IF_ERROR(read_window3(ctx, &w));
  grt_dtype t = x->dtype;
  const char *v = x->ref, *perm, *filter, *y;
  if (padded(&w)) GRT_RETURN_IF_ERROR(pad(ctx, "pad", t, v, &w, 0, &v));
  static const int64_t kDhwio[5] = {2, 3, 4, 1, 0};
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, kDhwio, 5, &perm));
  int32_t idx;
  const char* tin[2] = {wv->ref, perm};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Transpose", "filter", t, tin, 2, &idx, &filter));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tperm", GRT_INT64));
  const char* in[2] = {v, filter};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Conv3D", "conv", t, in, 2, &idx, &y));
  GRT_RETURN_IF_ERROR(set_window3(ctx, idx, &w, false));
  if (onnx_has_input(ctx, 2)) {
    const onnx_value* b;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &b));
    const char* bin[2] = {y, b->ref};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "BiasAdd", "bias", t, bin, 2, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(ctx->g, idx, "data_format", "NCHW"));
  }
  return bind(ctx, t, y);
}

/* The window a 3-D pooling node reads: kernel_shape required, ceil_mode
 * off; dilations only for MaxPool3D's caller to refuse. */
static grt_status* pool_window3(onnx_import* ctx, window3* w) {
  GRT_RETURN_IF_ERROR(read_window3(ctx, w));
  if (!w->have_k) return GRT_ERROR(INVALID_ARGUMENT, "kernel_shape is required");
  for (int32_t i = 0; i < 3; i++)
    if (w->d[i] != 1)
      return GRT_ERROR(UNIMPLEMENTED, "dilations are not supported for 3-D pooling");
  int64_t ceil_mode;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "ceil_mode", 0, &ceil_mode));
  if (ceil_mode) return GRT_ERROR(UNIMPLEMENTED, "ceil_mode is not supported for 3-D pooling");
  return NULL;
}

static grt_status* pool(onnx_import* ctx, const char* op, const char* suffix, grt_dtype t,
                        const char* v, const window3* w, const char** out) {
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, op, suffix, t, &v, 1, &idx, out));
  return set_window3(ctx, idx, w, true);
}

grt_status* grt_onnx_max_pool3d(onnx_import* ctx) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  if (onnx_has_output(ctx, 1))
    return GRT_ERROR(UNIMPLEMENTED, "the Indices output is not supported");
  window3 w;
  GRT_RETURN_IF_ERROR(pool_window3(ctx, &w));
  if (x->dtype != GRT_FLOAT32)
    return GRT_ERROR(UNIMPLEMENTED, "3-D MaxPool of %s is not supported", grt_dtype_name(x->dtype));
  const char *v = x->ref, *y;
  if (padded(&w)) GRT_RETURN_IF_ERROR(pad(ctx, "pad", x->dtype, v, &w, -INFINITY, &v));
  GRT_RETURN_IF_ERROR(pool(ctx, "MaxPool3D", "pool", x->dtype, v, &w, &y));
  return bind(ctx, x->dtype, y);
}

grt_status* grt_onnx_avg_pool3d(onnx_import* ctx) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  int64_t include_pad;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "count_include_pad", 0, &include_pad));
  window3 w;
  GRT_RETURN_IF_ERROR(pool_window3(ctx, &w));
  if (include_pad && w.same)
    return GRT_ERROR(UNIMPLEMENTED,
                     "count_include_pad with auto_pad SAME_UPPER is not supported for 3-D pooling");
  grt_dtype t = x->dtype;
  const char *v = x->ref, *y;
  if (!padded(&w)) {
    GRT_RETURN_IF_ERROR(pool(ctx, "AvgPool3D", "pool", t, v, &w, &y));
    return bind(ctx, t, y);
  }
  GRT_RETURN_IF_ERROR(pad(ctx, "pad", t, v, &w, 0, &v));
  GRT_RETURN_IF_ERROR(pool(ctx, "AvgPool3D", "pool", t, v, &w, &y));
  if (!include_pad) { /* the share of real elements in each window */
    const char *ones, *real;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OnesLike", "ones", t, &x->ref, 1, NULL, &ones));
    GRT_RETURN_IF_ERROR(pad(ctx, "pad_ones", t, ones, &w, 0, &ones));
    GRT_RETURN_IF_ERROR(pool(ctx, "AvgPool3D", "real", t, ones, &w, &real));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "mean", t, y, real, &y));
  }
  return bind(ctx, t, y);
}

/* ConvTranspose as Conv3DBackpropInputV2 (VALID): filter [I, O, kD, kH,
 * kW] -> [kD, kH, kW, O, I] (the forward convolution's DHWIO); the
 * unpadded output size s*(in - 1) + (k - 1)*d + 1 + output_padding is
 * computed at run time as Shape(x)*A + Shape(W)*B + C, and the pads are
 * then cropped off with a Slice. */
grt_status* grt_onnx_conv_transpose3d(onnx_import* ctx) {
  const onnx_value *x, *wv;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &wv));
  window3 w;
  GRT_RETURN_IF_ERROR(read_window3(ctx, &w));
  int64_t group, op[3];
  bool have_os;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "group", 1, &group));
  if (group != 1) return GRT_ERROR(UNIMPLEMENTED, "group %lld is not supported", (long long)group);
  if (w.same)
    return GRT_ERROR(UNIMPLEMENTED, "auto_pad SAME_UPPER is not supported for 3-D ConvTranspose");
  GRT_RETURN_IF_ERROR(ints3(ctx, "output_shape", 3, 0, op, &have_os));
  if (have_os)
    return GRT_ERROR(UNIMPLEMENTED, "output_shape is not supported for 3-D ConvTranspose");
  GRT_RETURN_IF_ERROR(ints3(ctx, "output_padding", 3, 0, op, NULL));
  for (int32_t i = 0; i < 3; i++)
    if (op[i] < 0 || op[i] >= w.s[i])
      return GRT_ERROR(UNIMPLEMENTED,
                       "output_padding must be smaller than the stride for 3-D ConvTranspose");
  grt_dtype t = x->dtype;
  const char *perm, *filter, *xs, *ws, *a, *b, *c, *xa, *wb, *sum, *sizes, *y;
  static const int64_t kDhwio[5] = {2, 3, 4, 1, 0};
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, kDhwio, 5, &perm));
  int32_t idx;
  const char* tin[2] = {wv->ref, perm};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Transpose", "filter", t, tin, 2, &idx, &filter));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tperm", GRT_INT64));
  /* [N, O, D', H', W'] = [N,C,D,H,W]*[1,0,s..] + [I,O,kD,kH,kW]*[0,1,d..] + C */
  int64_t av[5] = {1, 0}, bv[5] = {0, 1}, cv[5] = {0, 0};
  for (int32_t i = 0; i < 3; i++) {
    av[i + 2] = w.s[i];
    bv[i + 2] = w.d[i];
    cv[i + 2] = -w.s[i] - w.d[i] + 1 + op[i];
  }
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, x->ref, t, GRT_INT32, &xs));
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, wv->ref, t, GRT_INT32, &ws));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, av, 5, &a));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, bv, 5, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, cv, 5, &c));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "size_x", GRT_INT32, xs, a, &xa));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "size_w", GRT_INT32, ws, b, &wb));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "size_sum", GRT_INT32, xa, wb, &sum));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "output_size", GRT_INT32, sum, c, &sizes));
  const char* in[3] = {sizes, filter, x->ref};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Conv3DBackpropInputV2", "conv", t, in, 3, &idx, &y));
  window3 valid = w;
  valid.same = false;
  GRT_RETURN_IF_ERROR(set_window3(ctx, idx, &valid, false));
  if (padded(&w)) { /* crop: begin [0, 0, pb..], size sizes - [0, 0, pb + pe..] */
    int64_t begin[5] = {0, 0}, cut[5] = {0, 0};
    for (int32_t i = 0; i < 3; i++) begin[i + 2] = w.pb[i], cut[i + 2] = w.pb[i] + w.pe[i];
    const char *bc, *cc, *size;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, begin, 5, &bc));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, cut, 5, &cc));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "cropped_size", GRT_INT32, sizes, cc, &size));
    const char* sl[3] = {y, bc, size};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "crop", t, sl, 3, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT32));
  }
  if (onnx_has_input(ctx, 2)) {
    const onnx_value* bias;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &bias));
    const char* bin[2] = {y, bias->ref};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "BiasAdd", "bias", t, bin, 2, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(ctx->g, idx, "data_format", "NCHW"));
  }
  return bind(ctx, t, y);
}
