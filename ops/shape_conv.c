/* Shape functions of Conv2D, DepthwiseConv2dNative and the two Conv2D
 * backprops. Filters are [height, width, in, out] (TensorFlow's HWIO);
 * activations NHWC or NCHW by data_format. */
#include "ops/shape_conv.h"

#include <stdio.h>
#include <string.h>

#include "base/status.h"
#include "ops/conv_window.h"
#include "ops/shape_fns.h"

#define CONV_READ (GRT_WINDOW_DILATIONS | GRT_WINDOW_EXPLICIT)

/* Dimension i of a shape that is rank 4 or unknown (-1). */
static int64_t dim4(const grt_shape* s, int32_t i) { return s->rank == 4 ? s->dims[i] : -1; }

/* The 4-D output [n, h, w, c] (NHWC order) of a window over `in` with a
 * kh x kw window, laid out in the window's format. */
static grt_status* windowed_output(const grt_window* w, const grt_shape* in, int64_t kh, int64_t kw,
                                   int64_t out_c, grt_shape* out) {
  int32_t h = grt_window_h(w);
  int64_t oh, ow, before, after;
  GRT_RETURN_IF_ERROR(grt_window_dim(w, 0, dim4(in, h), kh, &oh, &before, &after));
  GRT_RETURN_IF_ERROR(grt_window_dim(w, 1, dim4(in, h + 1), kw, &ow, &before, &after));
  int64_t n = dim4(in, 0);
  int64_t nhwc[4] = {n, oh, ow, out_c}, nchw[4] = {n, out_c, oh, ow};
  return grt_infer_make(4, w->nchw ? nchw : nhwc, out);
}

grt_status* grt_infer_conv_groups(int64_t in_c, int64_t f_in, int64_t out_c) {
  if (in_c < 0 || f_in < 0) return NULL;
  /* Grouped convolution: the input's depth is a multiple of the filter's. */
  if (f_in == 0 || in_c % f_in != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Depth of input (%lld) is not a multiple of input depth of filter (%lld)",
                     (long long)in_c, (long long)f_in);
  int64_t groups = in_c / f_in;
  if (groups > 0 && out_c >= 0 && out_c % groups != 0) /* 0: an empty input */
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Depth of output (%lld) is not a multiple of the number of groups (%lld)",
                     (long long)out_c, (long long)groups);
  return NULL;
}

grt_status* grt_infer_conv2d(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 4));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 4));
  grt_window w;
  GRT_RETURN_IF_ERROR(grt_window_read(c->node, c->def, CONV_READ, &w));
  const grt_shape* in = &c->input_shapes[0];
  const grt_shape* f = &c->input_shapes[1];
  int64_t in_c = dim4(in, grt_window_c(&w)), f_in = dim4(f, 2), out_c = dim4(f, 3);
  GRT_RETURN_IF_ERROR(grt_infer_conv_groups(in_c, f_in, out_c));
  return windowed_output(&w, in, dim4(f, 0), dim4(f, 1), out_c, &c->output_shapes[0]);
}

/* *out: whether node's input_data_format says its input is NCHW (only
 * with data_format NHWC; "" or no attr: the input is in data_format).
 * Any other value is INVALID_ARGUMENT. */
static grt_status* input_nchw(const grt_node* node, bool* out) {
  const grt_attr_value* v = grt_node_attr(node, "input_data_format");
  const grt_attr_value* df = grt_node_attr(node, "data_format");
  const char* in = v && v->type == GRT_ATTR_STRING ? v->u.s : "";
  const char* fmt = df && df->type == GRT_ATTR_STRING ? df->u.s : "NHWC";
  *out = false;
  if (!in[0]) return NULL;
  if (strcmp(in, "NCHW") != 0 || strcmp(fmt, "NHWC") != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "input_data_format '%s' with data_format '%s': only an NCHW input to an NHWC "
                     "convolution (or '', the input in data_format) is supported",
                     in, fmt);
  *out = true;
  return NULL;
}

grt_status* grt_infer_fused_conv2d(grt_shape_ctx* c) {
  bool nchw_in = false;
  GRT_RETURN_IF_ERROR(input_nchw(c->node, &nchw_in));
  if (!nchw_in || c->n_inputs < 1) return grt_infer_conv2d(c);
  /* The NHWC convolution's, of the input's dimensions taken as NCHW. */
  grt_shape shapes[8];
  if (c->n_inputs > 8)
    return GRT_ERROR(INVALID_ARGUMENT, "_FusedConv2D takes at most 4 inputs, got %d",
                     (int)c->n_inputs);
  for (int32_t i = 0; i < c->n_inputs; i++) shapes[i] = c->input_shapes[i];
  const grt_shape* in = &c->input_shapes[0];
  if (in->rank == 4) {
    static const int32_t kPerm[4] = {0, 2, 3, 1}; /* NCHW -> NHWC */
    for (int32_t d = 0; d < 4; d++) shapes[0].dims[d] = in->dims[kPerm[d]];
  }
  grt_shape_ctx nhwc = *c;
  nhwc.input_shapes = shapes;
  return grt_infer_conv2d(&nhwc);
}

grt_status* grt_infer_depthwise_conv2d(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 4));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 4));
  grt_window w;
  GRT_RETURN_IF_ERROR(grt_window_read(c->node, c->def, CONV_READ, &w));
  const grt_shape* in = &c->input_shapes[0];
  const grt_shape* f = &c->input_shapes[1];
  int64_t in_c;
  GRT_RETURN_IF_ERROR(grt_infer_merge_dim(dim4(in, grt_window_c(&w)), dim4(f, 2),
                                          "input depth vs. the filter's input depth", &in_c));
  int64_t mult = dim4(f, 3);
  int64_t out_c = in_c >= 0 && mult >= 0 ? in_c * mult : -1;
  return windowed_output(&w, in, dim4(f, 0), dim4(f, 1), out_c, &c->output_shapes[0]);
}

grt_status* grt_infer_fused_depthwise_conv2d(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_depthwise_conv2d(c));
  if (c->n_outputs < 2) return NULL;
  /* The channel means: the output's shape with H and W of 1. */
  grt_window w;
  GRT_RETURN_IF_ERROR(grt_window_read(c->node, c->def, CONV_READ, &w));
  grt_shape m = c->output_shapes[0];
  if (m.rank == 4)
    for (int32_t d = 0; d < 4; d++)
      if (d != 0 && d != grt_window_c(&w)) m.dims[d] = 1;
  c->output_shapes[1] = m;
  return NULL;
}

/* Input i of c, a 1x1 filter [1, 1, depth, P] (`what`: "expansion" or
 * "projection") applied to a tensor of `depth` channels (`of` names it):
 * its P in *out (-1 unknown). */
static grt_status* pointwise_filter(grt_shape_ctx* c, int32_t i, int64_t depth, const char* what,
                                    const char* of, int64_t* out) {
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 4));
  const grt_shape* f = &c->input_shapes[i];
  char msg[96];
  int64_t d;
  snprintf(msg, sizeof msg, "the %s filter's window (1x1)", what);
  for (int32_t k = 0; k < 2; k++) GRT_RETURN_IF_ERROR(grt_infer_merge_dim(dim4(f, k), 1, msg, &d));
  snprintf(msg, sizeof msg, "%s vs. the %s filter's input depth", of, what);
  GRT_RETURN_IF_ERROR(grt_infer_merge_dim(depth, dim4(f, 2), msg, &d));
  *out = dim4(f, 3);
  return NULL;
}

/* _FusedExpandDepthwise's projection (num_project 2 or 3: filter [1, 1, C,
 * P], bias [P], a residual of the output's shape, from input `at` on)
 * over the depthwise convolution's output, c->output_shapes[0] on entry:
 * that shape with P channels. Without an expansion (num_expand 0) the
 * projection is required. */
static grt_status* project(grt_shape_ctx* c, const grt_window* w, int64_t num_expand, int32_t at) {
  int64_t n = 0, means = 0;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "num_project", &n));
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "num_means", &means));
  if (n == 0 && num_expand != 0) return NULL;
  if ((n != 2 && n != 3) || c->n_inputs != at + n)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "num_project is %lld with %d inputs: %s2 (filter, bias) or 3 (and a "
                     "residual) after the %d inputs",
                     (long long)n, (int)c->n_inputs,
                     num_expand ? "0, or " : "without an expansion ", (int)at);
  if (means != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "num_means must be 0 with a projection (num_project %lld): the means are of "
                     "the depthwise convolution's output, which the node does not return",
                     (long long)n);
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, at + 1, 1));
  grt_shape* out = &c->output_shapes[0];
  int32_t ch = grt_window_c(w);
  int64_t p;
  GRT_RETURN_IF_ERROR(
      pointwise_filter(c, at, dim4(out, ch), "projection", "the depthwise output's depth", &p));
  const grt_shape* pb = &c->input_shapes[at + 1];
  GRT_RETURN_IF_ERROR(grt_infer_merge_dim(p, pb->rank == 1 ? pb->dims[0] : -1,
                                          "the projection filter's output depth vs. its bias", &p));
  if (out->rank == 4) out->dims[ch] = p;
  if (n == 3) {
    GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, at + 2, 4));
    GRT_RETURN_IF_ERROR(grt_infer_merge(out, &c->input_shapes[at + 2], out));
  }
  return NULL;
}

grt_status* grt_infer_fused_expand_depthwise(grt_shape_ctx* c) {
  int64_t ne = 2;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "num_expand", &ne));
  if (ne != 0 && ne != 2)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "num_expand is %lld: 2 (the expansion's filter and bias) or 0 (none)",
                     (long long)ne);
  /* Inputs: x, the expansion's two (num_expand), filter, bias, then the
   * projection's. */
  const int32_t f = 1 + (int32_t)ne;
  GRT_RETURN_IF_ERROR(grt_infer_need(c, f + 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 4));
  grt_window w;
  GRT_RETURN_IF_ERROR(grt_window_read(c->node, c->def, CONV_READ, &w));
  int64_t expanded = dim4(&c->input_shapes[0], grt_window_c(&w));
  if (ne)
    GRT_RETURN_IF_ERROR(pointwise_filter(c, 1, expanded, "expansion", "input depth", &expanded));
  /* The depthwise convolution of the expanded input (x with the expansion
   * filter's output depth) by `filter`. */
  grt_shape shapes[2] = {c->input_shapes[0], c->input_shapes[f]};
  if (shapes[0].rank == 4) shapes[0].dims[grt_window_c(&w)] = expanded;
  grt_dtype types[2] = {c->input_types[0], c->input_types[f]};
  const grt_tensor* values[2] = {NULL, c->input_values ? c->input_values[f] : NULL};
  grt_shape_ctx dw = *c;
  dw.n_inputs = 2;
  dw.input_shapes = shapes;
  dw.input_types = types;
  dw.input_values = values;
  GRT_RETURN_IF_ERROR(grt_infer_fused_depthwise_conv2d(&dw));
  return project(c, &w, ne, f + 2);
}

/* A 4-D shape given by constant int32 input i (a sizes vector), or rank 4
 * with unknown dimensions. */
static grt_status* shape_from_sizes(grt_shape_ctx* c, int32_t i, const char* what, grt_shape* out) {
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 1));
  const grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, i, &t));
  if (!t) return grt_infer_unknown_dims(4, out);
  if (grt_infer_value_count(t) != 4)
    return GRT_ERROR(INVALID_ARGUMENT, "%s must have 4 elements, got %lld", what,
                     (long long)grt_infer_value_count(t));
  int64_t d[4];
  for (int32_t k = 0; k < 4; k++) {
    d[k] = grt_infer_value(t, k);
    if (d[k] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "%s must be non-negative, got %lld at index %d", what,
                       (long long)d[k], (int)k);
  }
  return grt_infer_make(4, d, out);
}

/* The shape a forward Conv2D from `in` with filter `f` gives, merged with
 * out_backprop's (input 2), so a mismatch fails here rather than in the
 * kernel. */
static grt_status* check_backprop(grt_shape_ctx* c, const grt_window* w, const grt_shape* in,
                                  const grt_shape* f) {
  grt_shape fwd, merged;
  GRT_RETURN_IF_ERROR(windowed_output(w, in, dim4(f, 0), dim4(f, 1), dim4(f, 3), &fwd));
  if (c->input_shapes[2].rank < 0) return NULL;
  grt_status* s = grt_infer_merge(&fwd, &c->input_shapes[2], &merged);
  return s ? grt_status_prefix(s, "out_backprop does not match the forward convolution's output")
           : NULL;
}

grt_status* grt_infer_conv2d_backprop_input(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 4));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 2, 4));
  grt_window w;
  GRT_RETURN_IF_ERROR(grt_window_read(c->node, c->def, CONV_READ, &w));
  grt_shape in;
  GRT_RETURN_IF_ERROR(shape_from_sizes(c, 0, "input_sizes", &in));
  GRT_RETURN_IF_ERROR(check_backprop(c, &w, &in, &c->input_shapes[1]));
  c->output_shapes[0] = in;
  return NULL;
}

grt_status* grt_infer_conv2d_backprop_filter(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 4));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 2, 4));
  grt_window w;
  GRT_RETURN_IF_ERROR(grt_window_read(c->node, c->def, CONV_READ, &w));
  grt_shape f;
  GRT_RETURN_IF_ERROR(shape_from_sizes(c, 1, "filter_sizes", &f));
  GRT_RETURN_IF_ERROR(check_backprop(c, &w, &c->input_shapes[0], &f));
  c->output_shapes[0] = f;
  return NULL;
}
