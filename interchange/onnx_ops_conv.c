/* ONNX convolution, pooling and normalisation ops over grt's NCHW kernels
 * (TensorFlow's Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput,
 * MaxPool, AvgPool, LRN with data_format NCHW; grt's _DilatedMaxPool for
 * MaxPool with dilations). 1-D forms get a spatial axis of length 1
 * (ExpandDims at 2, Squeeze after); 3-D Conv, MaxPool and AveragePool are
 * onnx_ops_conv3d.c's (Conv3D, MaxPool3D, AvgPool3D), as is 3-D
 * ConvTranspose (Conv3DBackpropInputV2).
 *
 * Windows: ONNX pads [x1_begin, x2_begin, x1_end, x2_end] become
 * explicit_paddings; auto_pad SAME_UPPER is TensorFlow's SAME; SAME_LOWER,
 * ceil_mode and output_shape need the input's spatial size, which the
 * importer infers (onnx_shape; an error when it is unknown before run
 * time). Everything else is computed at run time from the fed
 * tensors (ConvTranspose's output size, AveragePool's divisor). */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_conv3d.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

typedef enum { PAD_NOTSET, PAD_VALID, PAD_SAME_UPPER, PAD_SAME_LOWER } auto_pad;

/* One convolution or pooling window over two spatial axes (a 1-D window
 * has the first axis of size 1). */
typedef struct {
  int32_t nd; /* ONNX spatial rank: 1 or 2 */
  int64_t k[2], s[2], d[2], pb[2], pe[2];
  bool have_k;
  auto_pad ap;
} window;

static grt_status* transpose(onnx_import* ctx, const char* suffix, grt_dtype t, const char* v,
                             const int64_t* perm, size_t n, const char** out) {
  const char* p;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, perm, n, &p));
  int32_t idx;
  const char* in[2] = {v, p};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Transpose", suffix, t, in, 2, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Tperm", GRT_INT64);
}

/* A reduction over `axes` keeping them. */
static grt_status* reduce_keep(onnx_import* ctx, const char* op, const char* suffix, grt_dtype t,
                               const char* v, const int64_t* axes, size_t n, const char** out) {
  const char* ax;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, axes, n, &ax));
  int32_t idx;
  const char* in[2] = {v, ax};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, op, suffix, t, in, 2, &idx, out));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
  return grt_graph_set_attr_bool(ctx->g, idx, "keep_dims", true);
}

/* The dimensions of a value when its inferred shape (onnx_shape) is fully
 * known. False otherwise. */
static bool static_dims(onnx_import* ctx, const onnx_value* v, int64_t* dims, int32_t rank) {
  const grt_shape* s = onnx_shape(ctx, v);
  if (s->rank != rank) return false;
  for (int32_t i = 0; i < rank; i++) {
    if (s->dims[i] < 0) return false;
    dims[i] = s->dims[i];
  }
  return true;
}

/* A list attr of exactly `n` ints (absent: `dflt` each). */
static grt_status* ints_attr(onnx_import* ctx, const char* name, size_t n, int64_t dflt,
                             int64_t* out, bool* present) {
  const int64_t* v;
  size_t got;
  GRT_RETURN_IF_ERROR(onnx_attr_ints(ctx, name, &v, &got));
  if (present) *present = v != NULL;
  if (!v) {
    for (size_t i = 0; i < n; i++) out[i] = dflt;
    return NULL;
  }
  if (got != n)
    return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' has %zu values, expected %zu", name, got, n);
  memcpy(out, v, n * sizeof *v);
  return NULL;
}

/* Reads kernel_shape, strides, dilations, pads and auto_pad for an input
 * of rank `rank` (3 or 4). */
static grt_status* read_window(onnx_import* ctx, int32_t rank, window* w) {
  if (rank != 3 && rank != 4)
    return GRT_ERROR(UNIMPLEMENTED,
                     "only 1-D and 2-D windows are supported (input rank %d; rank needed)", rank);
  int32_t nd = rank - 2;
  int64_t k[2], s[2], d[2], p[4];
  GRT_RETURN_IF_ERROR(ints_attr(ctx, "kernel_shape", (size_t)nd, 1, k, &w->have_k));
  GRT_RETURN_IF_ERROR(ints_attr(ctx, "strides", (size_t)nd, 1, s, NULL));
  GRT_RETURN_IF_ERROR(ints_attr(ctx, "dilations", (size_t)nd, 1, d, NULL));
  GRT_RETURN_IF_ERROR(ints_attr(ctx, "pads", (size_t)nd * 2, 0, p, NULL));
  const Onnx__AttributeProto* a = onnx_attr(ctx, "auto_pad");
  const char* ap = "NOTSET";
  if (a && a->has_s) ap = (const char*)a->s.data;
  static const struct {
    const char* name;
    auto_pad v;
  } kAutoPad[] = {{"NOTSET", PAD_NOTSET},
                  {"VALID", PAD_VALID},
                  {"SAME_UPPER", PAD_SAME_UPPER},
                  {"SAME_LOWER", PAD_SAME_LOWER}};
  bool found = false;
  for (size_t i = 0; i < sizeof kAutoPad / sizeof kAutoPad[0]; i++) {
    size_t len = strlen(kAutoPad[i].name);
    if (a && a->has_s ? (a->s.len == len && memcmp(ap, kAutoPad[i].name, len) == 0)
                      : strcmp(ap, kAutoPad[i].name) == 0) {
      w->ap = kAutoPad[i].v;
      found = true;
    }
  }
  if (!found) return GRT_ERROR(INVALID_ARGUMENT, "unknown auto_pad value");
  w->nd = nd;
  int32_t off = 2 - nd; /* a 1-D window sits on the second axis */
  for (int32_t i = 0; i < 2; i++) {
    w->k[i] = 1, w->s[i] = 1, w->d[i] = 1, w->pb[i] = 0, w->pe[i] = 0;
  }
  for (int32_t i = 0; i < nd; i++) {
    w->k[i + off] = k[i];
    w->s[i + off] = s[i];
    w->d[i + off] = d[i];
    w->pb[i + off] = p[i];
    w->pe[i + off] = p[i + nd];
  }
  for (int32_t i = 0; i < 2; i++)
    if (w->s[i] < 1 || w->d[i] < 1 || w->k[i] < 1 || w->pb[i] < 0 || w->pe[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "kernel_shape, strides and dilations must be positive, "
                       "pads not negative");
  if (w->ap != PAD_NOTSET)
    for (int32_t i = 0; i < 2; i++) w->pb[i] = w->pe[i] = 0;
  return NULL;
}

/* The input's two spatial sizes (a 1-D input's first is 1); false when
 * not known before run time. */
static bool spatial_dims(onnx_import* ctx, const onnx_value* x, int64_t* hw) {
  const grt_shape* s = onnx_shape(ctx, x);
  if (s->rank != x->rank || x->rank < 3) return false;
  hw[0] = x->rank == 3 ? 1 : s->dims[2];
  hw[1] = s->dims[x->rank - 1];
  return hw[0] >= 0 && hw[1] >= 0;
}

/* SAME_LOWER as explicit pads: the odd padding goes first. */
static grt_status* same_lower_pads(onnx_import* ctx, const onnx_value* x, window* w) {
  int64_t hw[2];
  if (!spatial_dims(ctx, x, hw))
    return GRT_ERROR(UNIMPLEMENTED,
                     "auto_pad SAME_LOWER needs the input's spatial size, unknown before run time");
  for (int32_t i = 0; i < 2; i++) {
    int64_t out = (hw[i] + w->s[i] - 1) / w->s[i];
    int64_t total = (out - 1) * w->s[i] + (w->k[i] - 1) * w->d[i] + 1 - hw[i];
    if (total < 0) total = 0;
    w->pe[i] = total / 2;
    w->pb[i] = total - total / 2;
  }
  w->ap = PAD_NOTSET;
  return NULL;
}

/* Sets strides/dilations/padding/explicit_paddings/data_format (NCHW) on a
 * 2-D node. `ksize` also sets ksize (pooling). */
static grt_status* set_window(onnx_import* ctx, int32_t idx, const window* w, bool ksize,
                              bool dilations) {
  int64_t s[4] = {1, 1, w->s[0], w->s[1]}, d[4] = {1, 1, w->d[0], w->d[1]};
  int64_t k[4] = {1, 1, w->k[0], w->k[1]};
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int_list(ctx->g, idx, "strides", s, 4));
  if (dilations) GRT_RETURN_IF_ERROR(grt_graph_set_attr_int_list(ctx->g, idx, "dilations", d, 4));
  if (ksize) GRT_RETURN_IF_ERROR(grt_graph_set_attr_int_list(ctx->g, idx, "ksize", k, 4));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(ctx->g, idx, "data_format", "NCHW"));
  bool padded = w->pb[0] || w->pb[1] || w->pe[0] || w->pe[1];
  const char* padding = w->ap == PAD_SAME_UPPER ? "SAME" : padded ? "EXPLICIT" : "VALID";
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(ctx->g, idx, "padding", padding));
  if (!padded) return NULL;
  int64_t p[8] = {0, 0, 0, 0, w->pb[0], w->pe[0], w->pb[1], w->pe[1]};
  return grt_graph_set_attr_int_list(ctx->g, idx, "explicit_paddings", p, 8);
}

/* A 1-D value gets its spatial axis of length 1 at position 2. */
static grt_status* to_2d(onnx_import* ctx, const onnx_value* v, const char** out) {
  *out = v->ref;
  if (v->rank != 3) return NULL;
  const char* two;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 2, &two));
  int32_t idx;
  const char* in[2] = {v->ref, two};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ExpandDims", "as_2d", v->dtype, in, 2, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Tdim", GRT_INT64);
}

/* The last step: back to 1-D where the input was, then bound as output 0. */
static grt_status* finish(onnx_import* ctx, int32_t rank, grt_dtype t, const char* v) {
  int32_t idx;
  if (rank == 3) {
    int64_t axis = 2;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Squeeze", NULL, t, &v, 1, &idx, &v));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int_list(ctx->g, idx, "squeeze_dims", &axis, 1));
  } else {
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, t, &v, 1, &idx, &v));
  }
  return onnx_bind(ctx, 0, v, t, rank);
}

static grt_status* bias_add(onnx_import* ctx, grt_dtype t, const char* v, int k, const char** out) {
  if (!onnx_has_input(ctx, k)) {
    *out = v;
    return NULL;
  }
  const onnx_value* b;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, k, &b));
  int32_t idx;
  const char* in[2] = {v, b->ref};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "BiasAdd", "bias", t, in, 2, &idx, out));
  return grt_graph_set_attr_string(ctx->g, idx, "data_format", "NCHW");
}

/* Whether a grouped Conv is depthwise: a constant filter [C*m, 1, kH, kW]
 * (one input channel per group, so group is the input's channel count). */
static bool depthwise_filter(const onnx_value* wv, int32_t rank) {
  const grt_tensor* f = wv->constant;
  return f && f->shape.rank == rank && f->shape.dims[1] == 1;
}

/* Conv: filter [O, I/group, kH, kW] -> HWIO [kH, kW, I/group, O] for
 * Conv2D, which is TensorFlow's grouped filter as it is (output channel o
 * in group o / (O/group) for both); a constant filter with one input
 * channel per group (depthwise, O = channels * m) -> [kH, kW, channels, m]
 * for DepthwiseConv2dNative. 3-D: Conv3D (onnx_ops_conv3d.c). */
static grt_status* conv(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *wv;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &wv));
  if (x->rank == 5) return grt_onnx_conv3d(ctx);
  window w;
  GRT_RETURN_IF_ERROR(read_window(ctx, x->rank, &w));
  int64_t group;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "group", 1, &group));
  if (w.ap == PAD_SAME_LOWER) {
    int64_t wd[4];
    if (!w.have_k) {
      if (!static_dims(ctx, wv, wd, x->rank))
        return GRT_ERROR(UNIMPLEMENTED, "auto_pad SAME_LOWER needs kernel_shape");
      w.k[0] = x->rank == 3 ? 1 : wd[2];
      w.k[1] = wd[x->rank - 1];
    }
    GRT_RETURN_IF_ERROR(same_lower_pads(ctx, x, &w));
  }
  grt_dtype t = x->dtype;
  const char *xin, *win, *filter, *y;
  GRT_RETURN_IF_ERROR(to_2d(ctx, x, &xin));
  GRT_RETURN_IF_ERROR(to_2d(ctx, wv, &win));
  int32_t idx;
  if (group < 1) return GRT_ERROR(INVALID_ARGUMENT, "group must be positive");
  /* Conv2D takes the groups from the channel counts, so a group that
   * disagrees with them (2^32+1 for 1) would be ignored: ONNX requires
   * C = group * the filter's input channels. */
  const grt_shape *xs = onnx_shape(ctx, x), *ws = onnx_shape(ctx, wv);
  if (xs->rank >= 2 && ws->rank >= 2 && xs->dims[1] >= 0 && ws->dims[1] > 0 &&
      (xs->dims[1] % group != 0 || xs->dims[1] / group != ws->dims[1]))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "group %lld does not fit: the input has %lld channels and the filter takes "
                     "%lld per group",
                     (long long)group, (long long)xs->dims[1], (long long)ws->dims[1]);
  if (group == 1 || !depthwise_filter(wv, x->rank)) {
    static const int64_t kHwio[4] = {2, 3, 1, 0};
    GRT_RETURN_IF_ERROR(transpose(ctx, "filter", t, win, kHwio, 4, &filter));
    const char* in[2] = {xin, filter};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Conv2D", "conv", t, in, 2, &idx, &y));
  } else {
    /* [C*m, 1, kH, kW] -> [kH, kW, C*m, 1] -> [kH, kW, group, m]: output
     * channel c*m + q is DepthwiseConv2dNative's (c, q). The kernel checks
     * that group is the input's channel count (the filter says I/group is
     * 1). */
    static const int64_t kPerm[4] = {2, 3, 0, 1};
    const char *tw, *ws, *hw, *rest, *shape;
    GRT_RETURN_IF_ERROR(transpose(ctx, "filter", t, win, kPerm, 4, &tw));
    GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, tw, t, GRT_INT64, &ws));
    int64_t b0[1] = {0}, n2[1] = {2}, tail[2] = {group, -1};
    const char *cb, *cn;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, b0, 1, &cb));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, n2, 1, &cn));
    const char* sl[3] = {ws, cb, cn};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "kernel_hw", GRT_INT64, sl, 3, &idx, &hw));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, tail, 2, &rest));
    const char* axis;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &axis));
    const char* cc[3] = {hw, rest, axis};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", "filter_shape", GRT_INT64, cc, 3, &idx, &shape));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", 2));
    GRT_RETURN_IF_ERROR(onnx_reshape(ctx, "filter", t, tw, shape, &filter));
    const char* in[2] = {xin, filter};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "DepthwiseConv2dNative", "conv", t, in, 2, &idx, &y));
  }
  GRT_RETURN_IF_ERROR(set_window(ctx, idx, &w, false, true));
  GRT_RETURN_IF_ERROR(bias_add(ctx, t, y, 2, &y));
  return finish(ctx, x->rank, t, y);
}

/* ConvTranspose as Conv2DBackpropInput: filter [I, O, kH, kW] -> [kH, kW,
 * O, I] (the forward convolution's HWIO), and the output size
 *   s*(in - 1) + output_padding + (k - 1)*d + 1 - pad_begin - pad_end
 * computed at run time as Shape(x)*A + Shape(W)*B + C (linear in both).
 * 3-D: Conv3DBackpropInputV2 (onnx_ops_conv3d.c). */
static grt_status* conv_transpose(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *wv;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &wv));
  if (x->rank == 5) return grt_onnx_conv_transpose3d(ctx);
  window w;
  GRT_RETURN_IF_ERROR(read_window(ctx, x->rank, &w));
  int64_t group;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "group", 1, &group));
  if (group != 1) return GRT_ERROR(UNIMPLEMENTED, "group %lld is not supported", (long long)group);
  int32_t nd = w.nd, off = 2 - nd;
  int64_t op1[2], op[2] = {0, 0}, os1[2];
  bool have_os;
  GRT_RETURN_IF_ERROR(ints_attr(ctx, "output_padding", (size_t)nd, 0, op1, NULL));
  GRT_RETURN_IF_ERROR(ints_attr(ctx, "output_shape", (size_t)nd, 0, os1, &have_os));
  for (int32_t i = 0; i < nd; i++) op[i + off] = op1[i];
  if (have_os || w.ap == PAD_SAME_UPPER || w.ap == PAD_SAME_LOWER) {
    /* pads from the wanted output size (ONNX: in*stride for auto_pad SAME) */
    int64_t hw[2], wd[4];
    if (!spatial_dims(ctx, x, hw))
      return GRT_ERROR(
          UNIMPLEMENTED,
          "output_shape and auto_pad need the input's spatial size, unknown before run time");
    if (!w.have_k) {
      if (!static_dims(ctx, wv, wd, x->rank))
        return GRT_ERROR(UNIMPLEMENTED, "output_shape and auto_pad need kernel_shape");
      w.k[0] = x->rank == 3 ? 1 : wd[2];
      w.k[1] = wd[x->rank - 1];
    }
    for (int32_t i = 0; i < 2; i++) {
      int64_t want = i < off ? 1 : have_os ? os1[i - off] : hw[i] * w.s[i];
      int64_t total = w.s[i] * (hw[i] - 1) + op[i] + (w.k[i] - 1) * w.d[i] + 1 - want;
      if (total < 0) { /* a larger output: the rest is output padding at the end */
        op[i] -= total;
        total = 0;
      }
      bool upper = w.ap == PAD_SAME_UPPER;
      w.pb[i] = upper ? total / 2 : total - total / 2;
      w.pe[i] = total - w.pb[i];
    }
    w.ap = PAD_NOTSET;
  }
  for (int32_t i = 0; i < 2; i++)
    if (op[i] >= w.s[i] && op[i] >= w.d[i])
      return GRT_ERROR(INVALID_ARGUMENT, "output_padding must be smaller than stride or dilation");
  grt_dtype t = x->dtype;
  const char *xin, *win, *filter, *xs, *ws, *a, *b, *c, *xa, *wb, *sum, *sizes, *y;
  GRT_RETURN_IF_ERROR(to_2d(ctx, x, &xin));
  GRT_RETURN_IF_ERROR(to_2d(ctx, wv, &win));
  static const int64_t kPerm[4] = {2, 3, 1, 0};
  GRT_RETURN_IF_ERROR(transpose(ctx, "filter", t, win, kPerm, 4, &filter));
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, xin, t, GRT_INT32, &xs));
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, win, t, GRT_INT32, &ws));
  /* [N, O, H', W'] = [N,C,H,W]*[1,0,sh,sw] + [I,O,kh,kw]*[0,1,dh,dw] + C */
  int64_t av[4] = {1, 0, w.s[0], w.s[1]}, bv[4] = {0, 1, w.d[0], w.d[1]}, cv[4] = {0, 0, 0, 0};
  for (int32_t i = 0; i < 2; i++) cv[i + 2] = -w.s[i] + op[i] - w.d[i] + 1 - w.pb[i] - w.pe[i];
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, av, 4, &a));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, bv, 4, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT32, cv, 4, &c));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "size_x", GRT_INT32, xs, a, &xa));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "size_w", GRT_INT32, ws, b, &wb));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "size_sum", GRT_INT32, xa, wb, &sum));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "output_size", GRT_INT32, sum, c, &sizes));
  int32_t idx;
  const char* in[3] = {sizes, filter, xin};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Conv2DBackpropInput", "conv", t, in, 3, &idx, &y));
  GRT_RETURN_IF_ERROR(set_window(ctx, idx, &w, false, true));
  GRT_RETURN_IF_ERROR(bias_add(ctx, t, y, 2, &y));
  return finish(ctx, x->rank, t, y);
}

/* ceil_mode: extra end padding so the last partial window is kept (the
 * input's size must be known). */
static grt_status* ceil_pads(onnx_import* ctx, const onnx_value* x, window* w) {
  int64_t hw[2];
  if (!spatial_dims(ctx, x, hw))
    return GRT_ERROR(UNIMPLEMENTED,
                     "ceil_mode needs the input's spatial size, unknown before run time");
  if (w->ap != PAD_NOTSET && w->ap != PAD_VALID)
    return GRT_ERROR(UNIMPLEMENTED, "ceil_mode with auto_pad SAME is not supported");
  for (int32_t i = 0; i < 2; i++) {
    int64_t span = hw[i] + w->pb[i] + w->pe[i] - ((w->k[i] - 1) * w->d[i] + 1);
    if (span < 0) continue;
    int64_t out = (span + w->s[i] - 1) / w->s[i] + 1;
    /* a window starting past the input and its begin padding is dropped */
    if ((out - 1) * w->s[i] >= hw[i] + w->pb[i]) out--;
    int64_t need = (out - 1) * w->s[i] + (w->k[i] - 1) * w->d[i] + 1;
    int64_t have = hw[i] + w->pb[i] + w->pe[i];
    if (need > have) w->pe[i] += need - have;
  }
  w->ap = PAD_NOTSET;
  return NULL;
}

/* `dilated`: the pooling takes dilations (MaxPool as _DilatedMaxPool). */
static grt_status* pool_window(onnx_import* ctx, const onnx_value* x, window* w, bool dilated) {
  GRT_RETURN_IF_ERROR(read_window(ctx, x->rank, w));
  if (!w->have_k) return GRT_ERROR(INVALID_ARGUMENT, "kernel_shape is required");
  if (!dilated && (w->d[0] != 1 || w->d[1] != 1))
    return GRT_ERROR(UNIMPLEMENTED, "dilations are not supported (TensorFlow's pooling has none)");
  int64_t ceil_mode;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "ceil_mode", 0, &ceil_mode));
  if (w->ap == PAD_SAME_LOWER) GRT_RETURN_IF_ERROR(same_lower_pads(ctx, x, w));
  if (ceil_mode) GRT_RETURN_IF_ERROR(ceil_pads(ctx, x, w));
  return NULL;
}

/* MaxPool with explicit paddings (never picked, as ONNX's -inf padding);
 * with dilations grt's _DilatedMaxPool, the same with a dilations attr.
 * Integer inputs (exact in float32 up to 2^24) pool as float32, the CPU
 * kernel's one type. 3-D: MaxPool3D (onnx_ops_conv3d.c). */
static grt_status* max_pool(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  if (x->rank == 5) return grt_onnx_max_pool3d(ctx);
  if (onnx_has_output(ctx, 1))
    return GRT_ERROR(UNIMPLEMENTED, "the Indices output is not supported");
  int64_t order;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "storage_order", 0, &order));
  window w;
  GRT_RETURN_IF_ERROR(pool_window(ctx, x, &w, true));
  bool dilated = w.d[0] != 1 || w.d[1] != 1;
  grt_dtype t = x->dtype;
  bool via_float = t == GRT_UINT8 || t == GRT_INT8 || t == GRT_INT16;
  if (!via_float && t != GRT_FLOAT32)
    return GRT_ERROR(UNIMPLEMENTED, "MaxPool of %s is not supported", grt_dtype_name(t));
  const char *v, *y;
  GRT_RETURN_IF_ERROR(to_2d(ctx, x, &v));
  if (via_float) GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", v, t, GRT_FLOAT32, &v));
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, dilated ? "_DilatedMaxPool" : "MaxPool", "pool", GRT_FLOAT32,
                                &v, 1, &idx, &y));
  GRT_RETURN_IF_ERROR(set_window(ctx, idx, &w, true, dilated));
  if (via_float) GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", y, GRT_FLOAT32, t, &y));
  return finish(ctx, x->rank, t, y);
}

/* AveragePool. Unpadded or SAME_UPPER without count_include_pad is
 * TensorFlow's AvgPool (which divides by the real elements). Explicit
 * pads are window sums (DepthwiseConv2dNative with a ones filter made at
 * run time for the input's channels) divided by kH*kW
 * (count_include_pad) or by the same sums over ones_like(x). */
static grt_status* avg_pool(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  if (x->rank == 5) return grt_onnx_avg_pool3d(ctx);
  int64_t include_pad, ceil_mode;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "count_include_pad", 0, &include_pad));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "ceil_mode", 0, &ceil_mode));
  if (include_pad && ceil_mode)
    return GRT_ERROR(UNIMPLEMENTED, "count_include_pad with ceil_mode is not supported");
  window w;
  GRT_RETURN_IF_ERROR(pool_window(ctx, x, &w, false));
  if (include_pad && w.ap == PAD_SAME_UPPER) {
    int64_t hw[2];
    if (!spatial_dims(ctx, x, hw))
      return GRT_ERROR(
          UNIMPLEMENTED,
          "count_include_pad with SAME needs the input's spatial size, unknown before run time");
    for (int32_t i = 0; i < 2; i++) {
      int64_t out = (hw[i] + w.s[i] - 1) / w.s[i];
      int64_t total = (out - 1) * w.s[i] + w.k[i] - hw[i];
      if (total < 0) total = 0;
      w.pb[i] = total / 2;
      w.pe[i] = total - total / 2;
    }
    w.ap = PAD_NOTSET;
  }
  grt_dtype t = x->dtype;
  const char *v, *y;
  GRT_RETURN_IF_ERROR(to_2d(ctx, x, &v));
  int32_t idx;
  bool padded = w.pb[0] || w.pb[1] || w.pe[0] || w.pe[1];
  if (!padded) {
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "AvgPool", "pool", t, &v, 1, &idx, &y));
    GRT_RETURN_IF_ERROR(set_window(ctx, idx, &w, true, false));
    return finish(ctx, x->rank, t, y);
  }
  /* ones filter [kH, kW, C, 1], C = Shape(x)[1] */
  const char *xs, *b, *n, *c, *pre, *post, *dims, *one, *ones, *axis, *sum, *div;
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, v, t, GRT_INT64, &xs));
  int64_t at = 1, len = 1, kk[2] = {w.k[0], w.k[1]}, last = 1;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &at, 1, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &len, 1, &n));
  const char* sl[3] = {xs, b, n};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "channels", GRT_INT64, sl, 3, &idx, &c));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, kk, 2, &pre));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &last, 1, &post));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &axis));
  const char* cc[4] = {pre, c, post, axis};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", "filter_shape", GRT_INT64, cc, 4, &idx, &dims));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", 3));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 1, &one));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Fill", "ones", t, dims, one, &ones));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, ones), "index_type", GRT_INT64));
  const char* in[2] = {v, ones};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "DepthwiseConv2dNative", "sum", t, in, 2, &idx, &sum));
  GRT_RETURN_IF_ERROR(set_window(ctx, idx, &w, false, false));
  if (include_pad) {
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, (double)(w.k[0] * w.k[1]), &div));
  } else {
    const char* xo;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OnesLike", "real", t, &v, 1, NULL, &xo));
    const char* cin[2] = {xo, ones};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "DepthwiseConv2dNative", "count", t, cin, 2, &idx, &div));
    GRT_RETURN_IF_ERROR(set_window(ctx, idx, &w, false, false));
  }
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "mean", t, sum, div, &y));
  return finish(ctx, x->rank, t, y);
}

/* GlobalAveragePool / GlobalMaxPool: Mean / Max over the spatial axes. */
static grt_status* global_pool(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  if (x->rank < 3) return GRT_ERROR(UNIMPLEMENTED, "the input's rank (3 or more) is needed");
  int64_t axes[GRT_MAX_RANK];
  for (int32_t i = 2; i < x->rank; i++) axes[i - 2] = i;
  const char* y;
  GRT_RETURN_IF_ERROR(
      reduce_keep(ctx, tf, NULL, x->dtype, x->ref, axes, (size_t)(x->rank - 2), &y));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

/* LRN over channels: TensorFlow's LRN on NHWC with depth_radius
 * (size-1)/2 and alpha/size (ONNX divides alpha by size). Even sizes
 * (an asymmetric window) are errors. */
static grt_status* lrn(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  int64_t size;
  float alpha, beta, bias;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "size", 0, &size));
  GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "alpha", 1e-4f, &alpha));
  GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "beta", 0.75f, &beta));
  GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "bias", 1.0f, &bias));
  if (size < 1 || size % 2 == 0)
    return GRT_ERROR(UNIMPLEMENTED, "size %lld: only odd sizes are supported", (long long)size);
  if (x->rank != 4) return GRT_ERROR(UNIMPLEMENTED, "LRN needs a 4-D input of known rank");
  static const int64_t kToNhwc[4] = {0, 2, 3, 1}, kToNchw[4] = {0, 3, 1, 2};
  const char *v, *y;
  GRT_RETURN_IF_ERROR(transpose(ctx, "nhwc", x->dtype, x->ref, kToNhwc, 4, &v));
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "LRN", "lrn", x->dtype, &v, 1, &idx, &v));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "depth_radius", (size - 1) / 2));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(ctx->g, idx, "alpha", alpha / (float)size));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(ctx->g, idx, "beta", beta));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(ctx->g, idx, "bias", bias));
  GRT_RETURN_IF_ERROR(transpose(ctx, NULL, x->dtype, v, kToNchw, 4, &y));
  return onnx_bind(ctx, 0, y, x->dtype, 4);
}

/* InstanceNormalization: per sample and channel over the spatial axes,
 *   y = (x - mean) * rsqrt(var + epsilon) * scale + B, scale and B [C]
 * reshaped to [C, 1, ...]. */
static grt_status* instance_norm(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *scale, *bias;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &scale));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &bias));
  float eps;
  GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "epsilon", 1e-5f, &eps));
  if (x->rank < 3) return GRT_ERROR(UNIMPLEMENTED, "the input's rank (3 or more) is needed");
  int64_t axes[GRT_MAX_RANK], shape[GRT_MAX_RANK];
  shape[0] = -1;
  for (int32_t i = 2; i < x->rank; i++) axes[i - 2] = i, shape[i - 1] = 1;
  size_t n = (size_t)(x->rank - 2);
  grt_dtype t = x->dtype;
  const char *mean, *d, *sq, *var, *e, *ve, *inv, *norm, *cs, *sr, *br, *s, *y;
  GRT_RETURN_IF_ERROR(reduce_keep(ctx, "Mean", "mean", t, x->ref, axes, n, &mean));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "centered", t, x->ref, mean, &d));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Square", "square", t, &d, 1, NULL, &sq));
  GRT_RETURN_IF_ERROR(reduce_keep(ctx, "Mean", "var", t, sq, axes, n, &var));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, eps, &e));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "var_eps", t, var, e, &ve));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Rsqrt", "inv_std", t, &ve, 1, NULL, &inv));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "normalized", t, d, inv, &norm));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, shape, (size_t)(x->rank - 1), &cs));
  GRT_RETURN_IF_ERROR(onnx_reshape(ctx, "scale", t, scale->ref, cs, &sr));
  GRT_RETURN_IF_ERROR(onnx_reshape(ctx, "bias", t, bias->ref, cs, &br));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "scaled", t, norm, sr, &s));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", NULL, t, s, br, &y));
  return onnx_bind(ctx, 0, y, t, x->rank);
}

/* One dimension of Shape(x) (int64) as a 1-vector. */
static grt_status* dim_of(onnx_import* ctx, const char* shape, int64_t at, const char** out) {
  const char *b, *n;
  int64_t len = 1;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &at, 1, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &len, 1, &n));
  int32_t idx;
  const char* sl[3] = {shape, b, n};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "dim", GRT_INT64, sl, 3, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64);
}

static grt_status* concat(onnx_import* ctx, const char* suffix, const char* const* parts, int n,
                          const char** out) {
  const char* in[8];
  for (int i = 0; i < n; i++) in[i] = parts[i];
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &in[n]));
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", suffix, GRT_INT64, in, n + 1, &idx, out));
  return grt_graph_set_attr_int(ctx->g, idx, "N", n);
}

/* DepthToSpace / SpaceToDepth on NCHW as Reshape, Transpose, Reshape with
 * the shapes built at run time from Shape(x) (a dimension divided by the
 * block is Reshape's -1 or, for SpaceToDepth's width, W / b computed in
 * float64, exact for any real size). */
static grt_status* depth_space(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  int64_t bs;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "blocksize", 0, &bs));
  if (bs < 1) return GRT_ERROR(INVALID_ARGUMENT, "blocksize must be positive");
  if (x->rank != 4) return GRT_ERROR(UNIMPLEMENTED, "a 4-D input of known rank is needed");
  bool to_space = strcmp(tf, "DepthToSpace") == 0;
  bool crd = false;
  const Onnx__AttributeProto* m = onnx_attr(ctx, "mode");
  if (m && m->has_s) {
    if (m->s.len == 3 && memcmp(m->s.data, "CRD", 3) == 0)
      crd = true;
    else if (!(m->s.len == 3 && memcmp(m->s.data, "DCR", 3) == 0))
      return GRT_ERROR(INVALID_ARGUMENT, "mode must be DCR or CRD");
  }
  grt_dtype t = x->dtype;
  const char *xs, *n, *h, *wd, *b, *b2, *minus1, *hb, *wb, *s6, *s4, *v, *y;
  GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, x->ref, t, GRT_INT64, &xs));
  GRT_RETURN_IF_ERROR(dim_of(ctx, xs, 0, &n));
  GRT_RETURN_IF_ERROR(dim_of(ctx, xs, 2, &h));
  GRT_RETURN_IF_ERROR(dim_of(ctx, xs, 3, &wd));
  int64_t bb[2] = {bs, bs}, m1 = -1;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, bb, 1, &b));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, bb, 2, &b2));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &m1, 1, &minus1));
  if (to_space) {
    /* DCR: [N, b, b, C/b², H, W] -> [0,3,4,1,5,2]; CRD: [N, C/b², b, b, H, W] -> [0,1,4,2,5,3] */
    static const int64_t kDcr[6] = {0, 3, 4, 1, 5, 2}, kCrd[6] = {0, 1, 4, 2, 5, 3};
    const char* p6[4] = {n, crd ? minus1 : b2, crd ? b2 : minus1, NULL};
    const char* p6b[5] = {p6[0], p6[1], p6[2], h, wd};
    GRT_RETURN_IF_ERROR(concat(ctx, "split_shape", p6b, 5, &s6));
    GRT_RETURN_IF_ERROR(onnx_reshape(ctx, "split", t, x->ref, s6, &v));
    GRT_RETURN_IF_ERROR(transpose(ctx, "moved", t, v, crd ? kCrd : kDcr, 6, &v));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "height", GRT_INT64, h, b, &hb));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "width", GRT_INT64, wd, b, &wb));
  } else {
    /* [N, C, H/b, b, W/b, b] -> [0,3,5,1,2,4] -> [N, C*b*b, H/b, W/b] */
    if (crd) return GRT_ERROR(INVALID_ARGUMENT, "SpaceToDepth has no mode");
    static const int64_t kPerm[6] = {0, 3, 5, 1, 2, 4};
    const char *bf, *wf, *hf, *c;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_FLOAT64, (double)bs, &bf));
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", wd, GRT_INT64, GRT_FLOAT64, &wf));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "width_f", GRT_FLOAT64, wf, bf, &wf));
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", wf, GRT_FLOAT64, GRT_INT64, &wb));
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", h, GRT_INT64, GRT_FLOAT64, &hf));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", "height_f", GRT_FLOAT64, hf, bf, &hf));
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", hf, GRT_FLOAT64, GRT_INT64, &hb));
    GRT_RETURN_IF_ERROR(dim_of(ctx, xs, 1, &c));
    const char* p6[6] = {n, c, minus1, b, wb, b};
    GRT_RETURN_IF_ERROR(concat(ctx, "split_shape", p6, 6, &s6));
    GRT_RETURN_IF_ERROR(onnx_reshape(ctx, "split", t, x->ref, s6, &v));
    GRT_RETURN_IF_ERROR(transpose(ctx, "moved", t, v, kPerm, 6, &v));
  }
  const char* p4[4] = {n, minus1, hb, wb};
  GRT_RETURN_IF_ERROR(concat(ctx, "out_shape", p4, 4, &s4));
  GRT_RETURN_IF_ERROR(onnx_reshape(ctx, NULL, t, v, s4, &y));
  return onnx_bind(ctx, 0, y, t, 4);
}

/* ConcatV2 of int64 parts along `axis`. */
static grt_status* concat_axis(onnx_import* ctx, const char* const* parts, int n, int64_t axis,
                               const char** out) {
  const char* in[8];
  for (int i = 0; i < n; i++) in[i] = parts[i];
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, (double)axis, &in[n]));
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ConcatV2", "paddings", GRT_INT64, in, n + 1, &idx, out));
  return grt_graph_set_attr_int(ctx->g, idx, "N", n);
}

/* MaxUnpool: X's values scattered (TensorScatterUpdate) into zeros of the
 * default output's element count at the flattened positions in I, then
 * reshaped to the default shape, computed at run time:
 * [N, C, (in - 1)*s - pad_begin - pad_end + k, ...], linear in Shape(X).
 * A fed output_shape pads that at the end (the indices address the default
 * shape, as in ONNX's reference). */
static grt_status* max_unpool(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *ind;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &ind));
  grt_dtype t = x->dtype;
  const char *shape, *total, *zeros, *zero, *flat_i, *flat_x, *i64, *y, *ax;
  int32_t idx;
  {
    window w;
    GRT_RETURN_IF_ERROR(read_window(ctx, x->rank, &w));
    if (!w.have_k) return GRT_ERROR(INVALID_ARGUMENT, "kernel_shape is required");
    int32_t r = x->rank, off = 4 - r; /* a 1-D window sits on the second axis */
    int64_t a[4], c[4];
    for (int32_t i = 0; i < r; i++) {
      a[i] = i < 2 ? 1 : w.s[i - 2 + off];
      c[i] =
          i < 2 ? 0 : -w.s[i - 2 + off] - w.pb[i - 2 + off] - w.pe[i - 2 + off] + w.k[i - 2 + off];
    }
    const char *xs, *av, *cv, *xa;
    GRT_RETURN_IF_ERROR(onnx_shape_of(ctx, x->ref, t, GRT_INT64, &xs));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, a, (size_t)r, &av));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, c, (size_t)r, &cv));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "out_size", GRT_INT64, xs, av, &xa));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "AddV2", "out_shape", GRT_INT64, xa, cv, &shape));
  }
  int64_t axis0 = 0, col[2] = {-1, 1}, m1 = -1;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &axis0, 1, &ax));
  const char* pin[2] = {shape, ax};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Prod", "count", GRT_INT64, pin, 2, &idx, &total));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(ctx->g, idx, "keep_dims", true));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Fill", "zeros", t, total, zero, &zeros));
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_type(ctx->g, grt_graph_find_node(ctx->g, zeros), "index_type", GRT_INT64));
  i64 = ind->ref;
  if (ind->dtype != GRT_INT64)
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", i64, ind->dtype, GRT_INT64, &i64));
  const char *cs, *fs;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, col, 2, &cs));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &m1, 1, &fs));
  GRT_RETURN_IF_ERROR(onnx_reshape(ctx, "positions", GRT_INT64, i64, cs, &flat_i));
  GRT_RETURN_IF_ERROR(onnx_reshape(ctx, "values", t, x->ref, fs, &flat_x));
  const char* sc[3] = {zeros, flat_i, flat_x};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "TensorScatterUpdate", "scatter", t, sc, 3, &idx, &y));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tindices", GRT_INT64));
  bool sized = onnx_has_input(ctx, 2);
  GRT_RETURN_IF_ERROR(onnx_reshape(ctx, sized ? "default_shape" : NULL, t, y, shape, &y));
  if (sized) { /* paddings [[0, want - default], ...] */
    const onnx_value* os;
    const char *want, *extra, *none, *one, *a, *b, *paddings;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &os));
    GRT_RETURN_IF_ERROR(onnx_cast(ctx, "cast", os->ref, os->dtype, GRT_INT64, &want));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "extra", GRT_INT64, want, shape, &extra));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "none", GRT_INT64, &extra, 1, NULL, &none));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT64, 1, &one));
    const char* e1[2] = {none, one};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ExpandDims", "before", GRT_INT64, e1, 2, &idx, &a));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tdim", GRT_INT64));
    const char* e2[2] = {extra, one};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ExpandDims", "after", GRT_INT64, e2, 2, &idx, &b));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tdim", GRT_INT64));
    const char* parts[2] = {a, b};
    GRT_RETURN_IF_ERROR(concat_axis(ctx, parts, 2, 1, &paddings));
    const char* in[2] = {y, paddings};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Pad", NULL, t, in, 2, &idx, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tpaddings", GRT_INT64));
  }
  return onnx_bind(ctx, 0, y, t, x->rank);
}

#define WINDOW "auto_pad,dilations,kernel_shape,pads,strides"

const onnx_op_row grt_onnx_ops_conv[] = {
    {"Conv", conv, "Conv2D", WINDOW ",group"},
    {"ConvTranspose", conv_transpose, "Conv2DBackpropInput",
     WINDOW ",group,output_padding,output_shape"},
    {"MaxPool", max_pool, "MaxPool", WINDOW ",ceil_mode,storage_order"},
    {"AveragePool", avg_pool, "AvgPool", WINDOW ",ceil_mode,count_include_pad"},
    {"MaxUnpool", max_unpool, "TensorScatterUpdate", "kernel_shape,pads,strides"},
    {"GlobalAveragePool", global_pool, "Mean", ""},
    {"GlobalMaxPool", global_pool, "Max", ""},
    {"LRN", lrn, "LRN", "alpha,beta,bias,size"},
    {"InstanceNormalization", instance_norm, NULL, "epsilon"},
    {"DepthToSpace", depth_space, "DepthToSpace", "blocksize,mode"},
    {"SpaceToDepth", depth_space, "SpaceToDepth", "blocksize"},
    {NULL, NULL, NULL, NULL},
};
