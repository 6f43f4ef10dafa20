#include "ops/conv_window.h"

#include <string.h>

#include "base/shape.h"
#include "base/status.h"
#include "ops/attr.h"

typedef struct {
  const char* name;
  grt_padding padding;
} padding_row;

static const padding_row kPaddings[] = {
    {"VALID", GRT_PADDING_VALID},
    {"SAME", GRT_PADDING_SAME},
    {"EXPLICIT", GRT_PADDING_EXPLICIT},
};

/* A list(int) attr of exactly 4 entries in data_format order, returned as
 * {height, width}; the batch and channel entries must be `batch_depth`. */
static grt_status* read4(const grt_node* node, const grt_op_def* def, const char* name, bool nchw,
                         const char* batch_depth_msg, int64_t out[2]) {
  const int64_t* v;
  int32_t n;
  GRT_RETURN_IF_ERROR(grt_attr_get_int_list(grt_attr_lookup(node, def, name), name, &v, &n));
  if (n != 4)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' must have 4 entries, got %d", name, (int)n);
  int32_t h = nchw ? 2 : 1, c = nchw ? 1 : 3;
  if (v[0] != 1 || v[c] != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s': %s", name, batch_depth_msg);
  for (int32_t i = 0; i < 2; i++) {
    if (v[h + i] < 1)
      return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' must be positive, got %lld at index %d", name,
                       (long long)v[h + i], (int)(h + i));
    out[i] = v[h + i];
  }
  return NULL;
}

static grt_status* read_padding(const grt_node* node, const grt_op_def* def, uint32_t what,
                                grt_window* w) {
  const char* p;
  GRT_RETURN_IF_ERROR(grt_attr_get_string(grt_attr_lookup(node, def, "padding"), "padding", &p));
  bool found = false;
  for (size_t i = 0; i < sizeof kPaddings / sizeof kPaddings[0]; i++)
    if (strcmp(p, kPaddings[i].name) == 0) {
      w->padding = kPaddings[i].padding;
      found = true;
    }
  bool explicit_ok = (what & GRT_WINDOW_EXPLICIT) != 0;
  if (!found || (w->padding == GRT_PADDING_EXPLICIT && !explicit_ok))
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'padding' must be %s, got '%s'",
                     explicit_ok ? "SAME, VALID or EXPLICIT" : "SAME or VALID", p);
  if (!explicit_ok) return NULL;
  const int64_t* v;
  int32_t n;
  GRT_RETURN_IF_ERROR(grt_attr_get_int_list(grt_attr_lookup(node, def, "explicit_paddings"),
                                            "explicit_paddings", &v, &n));
  if (w->padding != GRT_PADDING_EXPLICIT) {
    if (n != 0)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "attr 'explicit_paddings' must be empty if the padding attribute is not "
                       "EXPLICIT, got %d entries",
                       (int)n);
    return NULL;
  }
  if (n != 8)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "attr 'explicit_paddings' must have 8 entries (before and after for each "
                     "dimension) when padding is EXPLICIT, got %d",
                     (int)n);
  for (int32_t i = 0; i < 8; i++)
    if (v[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "attr 'explicit_paddings' must be non-negative, got %lld",
                       (long long)v[i]);
  int32_t h = w->nchw ? 2 : 1, c = w->nchw ? 1 : 3;
  if (v[0] || v[1] || v[2 * c] || v[2 * c + 1])
    return GRT_ERROR(INVALID_ARGUMENT,
                     "attr 'explicit_paddings': nonzero padding in the batch or depth dimensions "
                     "is not supported");
  for (int32_t i = 0; i < 4; i++) w->pads[i] = v[2 * h + i];
  return NULL;
}

grt_status* grt_window_read(const grt_node* node, const grt_op_def* def, uint32_t what,
                            grt_window* out) {
  memset(out, 0, sizeof *out);
  const char* fmt;
  GRT_RETURN_IF_ERROR(
      grt_attr_get_string(grt_attr_lookup(node, def, "data_format"), "data_format", &fmt));
  if (strcmp(fmt, "NCHW") == 0)
    out->nchw = true;
  else if (strcmp(fmt, "NHWC") != 0)
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'data_format' must be NHWC or NCHW, got '%s'", fmt);
  GRT_RETURN_IF_ERROR(read4(node, def, "strides", out->nchw,
                            "strides in the batch and depth dimensions must be 1", out->strides));
  out->dilations[0] = out->dilations[1] = 1;
  if (what & GRT_WINDOW_DILATIONS)
    GRT_RETURN_IF_ERROR(read4(node, def, "dilations", out->nchw,
                              "dilations in the batch and depth dimensions must be 1",
                              out->dilations));
  if (what & GRT_WINDOW_KSIZE)
    GRT_RETURN_IF_ERROR(read4(node, def, "ksize", out->nchw,
                              "pooling is not supported on the batch or depth dimension",
                              out->ksize));
  return read_padding(node, def, what, out);
}

grt_status* grt_op_window(const grt_kernel_ctx* ctx, uint32_t what, grt_window* out) {
  const grt_op_def* def = ctx->node->def;
  if (grt_op_find_attr(def, "explicit_paddings")) what |= GRT_WINDOW_EXPLICIT;
  return grt_window_read(ctx->node, def, what, out);
}

grt_status* grt_op_conv_depths(const grt_shape* in, const grt_shape* filter, bool nchw,
                               bool depthwise, int64_t* groups, int64_t* out_depth) {
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  if (in->rank != 4)
    return GRT_ERROR(INVALID_ARGUMENT, "input must be 4-dimensional: %s",
                     grt_shape_str(in, a, sizeof a));
  if (filter->rank != 4)
    return GRT_ERROR(INVALID_ARGUMENT, "filter must be 4-dimensional: %s",
                     grt_shape_str(filter, a, sizeof a));
  int64_t ic = in->dims[nchw ? 1 : 3], f_in = filter->dims[2], f_out = filter->dims[3];
  if (depthwise) {
    if (f_in != ic)
      return GRT_ERROR(INVALID_ARGUMENT, "input and filter must have the same depth: %lld vs %lld",
                       (long long)ic, (long long)f_in);
    *groups = ic;
    *out_depth = ic * f_out;
  } else {
    if (f_in <= 0 || ic % f_in != 0)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "input depth must be evenly divisible by filter depth: %lld vs %lld (input "
                       "%s, filter %s)",
                       (long long)ic, (long long)f_in, grt_shape_str(in, a, sizeof a),
                       grt_shape_str(filter, b, sizeof b));
    *groups = ic / f_in;
    *out_depth = f_out;
    if (*groups > 0 && f_out % *groups != 0)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "output depth %lld is not a multiple of the number of groups %lld",
                       (long long)f_out, (long long)*groups);
  }
  if (*groups < 1) *groups = 1; /* an empty input */
  return NULL;
}

grt_status* grt_window_dim(const grt_window* w, int32_t dim, int64_t in, int64_t k, int64_t* out,
                           int64_t* before, int64_t* after) {
  int64_t stride = w->strides[dim];
  int64_t eff = (k - 1) * w->dilations[dim] + 1;
  *before = *after = 0;
  if (w->padding == GRT_PADDING_EXPLICIT) {
    *before = w->pads[2 * dim];
    *after = w->pads[2 * dim + 1];
  }
  if (in < 0 || k < 0) {
    *out = -1;
    return NULL;
  }
  switch (w->padding) {
    case GRT_PADDING_VALID:
      *out = (in - eff + stride) / stride;
      break;
    case GRT_PADDING_SAME: {
      *out = (in + stride - 1) / stride;
      int64_t need = (*out - 1) * stride + eff - in;
      if (need < 0) need = 0;
      *before = need / 2;
      *after = need - *before;
      break;
    }
    case GRT_PADDING_EXPLICIT:
      *out = (in + *before + *after - eff + stride) / stride;
      break;
  }
  if (*out < 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Computed output size would be negative: input size %lld, effective window "
                     "size %lld, stride %lld",
                     (long long)in, (long long)eff, (long long)stride);
  return NULL;
}

typedef struct {
  const char* name;
  int32_t rank, channel;
} bn_format_row;

static const bn_format_row kBatchNormFormats[] = {
    {"NHWC", 4, 3},
    {"NCHW", 4, 1},
    {"NDHWC", 5, 4},
    {"NCDHW", 5, 1},
};

grt_status* grt_batch_norm_format(const char* data_format, int32_t* out_rank,
                                  int32_t* out_channel) {
  for (size_t i = 0; i < sizeof kBatchNormFormats / sizeof kBatchNormFormats[0]; i++)
    if (strcmp(data_format, kBatchNormFormats[i].name) == 0) {
      *out_rank = kBatchNormFormats[i].rank;
      *out_channel = kBatchNormFormats[i].channel;
      return NULL;
    }
  return GRT_ERROR(INVALID_ARGUMENT,
                   "attr 'data_format' must be NHWC, NCHW, NDHWC or NCDHW, got '%s'", data_format);
}
