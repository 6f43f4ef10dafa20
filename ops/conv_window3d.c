/* The window attrs of TensorFlow's 3-D convolution and pooling ops
 * (ops/conv_window.h): five-entry lists in NDHWC or NCDHW order, padding
 * SAME or VALID. The output-size arithmetic is the 2-D one, per dimension. */
#include <string.h>

#include "base/status.h"
#include "ops/attr.h"
#include "ops/conv_window.h"

/* A list(int) attr of 5 entries in data_format order, returned as {d, h,
 * w}; the batch and channel entries must be 1. */
static grt_status* read5(const grt_node* node, const grt_op_def* def, const char* name, bool ncdhw,
                         const char* batch_depth_msg, int64_t out[3]) {
  const int64_t* v;
  int32_t n;
  GRT_RETURN_IF_ERROR(grt_attr_get_int_list(grt_attr_lookup(node, def, name), name, &v, &n));
  if (n != 5)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' must have 5 entries, got %d", name, (int)n);
  int32_t d = ncdhw ? 2 : 1, c = ncdhw ? 1 : 4;
  if (v[0] != 1 || v[c] != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s': %s", name, batch_depth_msg);
  for (int32_t i = 0; i < 3; i++) {
    if (v[d + i] < 1)
      return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' must be positive, got %lld at index %d", name,
                       (long long)v[d + i], (int)(d + i));
    out[i] = v[d + i];
  }
  return NULL;
}

grt_status* grt_window3d_read(const grt_node* node, const grt_op_def* def, uint32_t what,
                              grt_window3d* out) {
  memset(out, 0, sizeof *out);
  const char* fmt;
  GRT_RETURN_IF_ERROR(
      grt_attr_get_string(grt_attr_lookup(node, def, "data_format"), "data_format", &fmt));
  if (strcmp(fmt, "NCDHW") == 0)
    out->ncdhw = true;
  else if (strcmp(fmt, "NDHWC") != 0)
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'data_format' must be NDHWC or NCDHW, got '%s'", fmt);
  GRT_RETURN_IF_ERROR(read5(node, def, "strides", out->ncdhw,
                            "strides in the batch and depth dimensions must be 1", out->strides));
  for (int32_t i = 0; i < 3; i++) out->dilations[i] = 1;
  if (what & GRT_WINDOW_DILATIONS)
    GRT_RETURN_IF_ERROR(read5(node, def, "dilations", out->ncdhw,
                              "dilations in the batch and depth dimensions must be 1",
                              out->dilations));
  if (what & GRT_WINDOW_KSIZE)
    GRT_RETURN_IF_ERROR(read5(node, def, "ksize", out->ncdhw,
                              "pooling is not supported on the batch or depth dimension",
                              out->ksize));
  const char* p;
  GRT_RETURN_IF_ERROR(grt_attr_get_string(grt_attr_lookup(node, def, "padding"), "padding", &p));
  if (strcmp(p, "SAME") == 0)
    out->padding = GRT_PADDING_SAME;
  else if (strcmp(p, "VALID") == 0)
    out->padding = GRT_PADDING_VALID;
  else
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'padding' must be SAME or VALID, got '%s'", p);
  return NULL;
}

grt_status* grt_window3d_dim(const grt_window3d* w, int32_t dim, int64_t in, int64_t k,
                             int64_t* out, int64_t* before, int64_t* after) {
  /* One dimension of a 2-D window with this one's stride and dilation. */
  grt_window one;
  memset(&one, 0, sizeof one);
  one.strides[0] = one.strides[1] = w->strides[dim];
  one.dilations[0] = one.dilations[1] = w->dilations[dim];
  one.padding = w->padding;
  return grt_window_dim(&one, 0, in, k, out, before, after);
}
