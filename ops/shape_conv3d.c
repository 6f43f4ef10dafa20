/* Shape functions of Conv3D, MaxPool3D, AvgPool3D and their gradients
 * (Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3DGrad,
 * AvgPool3DGrad). Filters are
 * [depth, height, width, in, out] (TensorFlow's DHWIO); activations NDHWC
 * or NCDHW by data_format. */
#include "base/status.h"
#include "ops/conv_window.h"
#include "ops/shape_conv.h"
#include "ops/shape_fns.h"

/* Dimension i of a shape that is rank 5 or unknown (-1). */
static int64_t dim5(const grt_shape* s, int32_t i) { return s->rank == 5 ? s->dims[i] : -1; }

/* The 5-D output of a window `k` over `in` with `out_c` channels, laid out
 * in the window's format. */
static grt_status* windowed(const grt_window3d* w, const grt_shape* in, const int64_t k[3],
                            int64_t out_c, grt_shape* out) {
  int32_t d = grt_window3d_d(w);
  int64_t o[3], before, after;
  for (int32_t i = 0; i < 3; i++)
    GRT_RETURN_IF_ERROR(grt_window3d_dim(w, i, dim5(in, d + i), k[i], &o[i], &before, &after));
  int64_t n = dim5(in, 0);
  int64_t ndhwc[5] = {n, o[0], o[1], o[2], out_c}, ncdhw[5] = {n, out_c, o[0], o[1], o[2]};
  return grt_infer_make(5, w->ncdhw ? ncdhw : ndhwc, out);
}

grt_status* grt_infer_conv3d(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 5));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 5));
  grt_window3d w;
  GRT_RETURN_IF_ERROR(grt_window3d_read(c->node, c->def, GRT_WINDOW_DILATIONS, &w));
  const grt_shape* in = &c->input_shapes[0];
  const grt_shape* f = &c->input_shapes[1];
  int64_t in_c = dim5(in, grt_window3d_c(&w)), f_in = dim5(f, 3), out_c = dim5(f, 4);
  GRT_RETURN_IF_ERROR(grt_infer_conv_groups(in_c, f_in, out_c));
  int64_t k[3] = {dim5(f, 0), dim5(f, 1), dim5(f, 2)};
  return windowed(&w, in, k, out_c, &c->output_shapes[0]);
}

grt_status* grt_infer_pool3d(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 5));
  grt_window3d w;
  GRT_RETURN_IF_ERROR(grt_window3d_read(c->node, c->def, GRT_WINDOW_KSIZE, &w));
  const grt_shape* in = &c->input_shapes[0];
  return windowed(&w, in, w.ksize, dim5(in, grt_window3d_c(&w)), &c->output_shapes[0]);
}

/* A 5-D shape given by constant int input i (a sizes vector), or rank 5
 * with unknown dimensions. */
static grt_status* shape_from_sizes(grt_shape_ctx* c, int32_t i, const char* what, grt_shape* out) {
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 1));
  const grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, i, &t));
  if (!t) return grt_infer_unknown_dims(5, out);
  if (grt_infer_value_count(t) != 5)
    return GRT_ERROR(INVALID_ARGUMENT, "%s must have 5 elements, got %lld", what,
                     (long long)grt_infer_value_count(t));
  int64_t d[5];
  for (int32_t k = 0; k < 5; k++) {
    d[k] = grt_infer_value(t, k);
    if (d[k] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "%s must be non-negative, got %lld at index %d", what,
                       (long long)d[k], (int)k);
  }
  return grt_infer_make(5, d, out);
}

/* Input `grad` (out_backprop or grad) must have the forward op's output
 * shape `fwd`. */
static grt_status* check_grad(const grt_shape_ctx* c, int32_t grad, const grt_shape* fwd,
                              const char* what) {
  grt_shape merged;
  if (c->input_shapes[grad].rank < 0) return NULL;
  grt_status* s = grt_infer_merge(fwd, &c->input_shapes[grad], &merged);
  return s ? grt_status_prefix(s, what) : NULL;
}

static const char kConvGrad[] = "out_backprop does not match the forward convolution's output";

grt_status* grt_infer_conv3d_backprop_input(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 5));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 2, 5));
  grt_window3d w;
  GRT_RETURN_IF_ERROR(grt_window3d_read(c->node, c->def, GRT_WINDOW_DILATIONS, &w));
  grt_shape in, fwd;
  GRT_RETURN_IF_ERROR(shape_from_sizes(c, 0, "input_sizes", &in));
  const grt_shape* f = &c->input_shapes[1];
  int64_t k[3] = {dim5(f, 0), dim5(f, 1), dim5(f, 2)};
  GRT_RETURN_IF_ERROR(windowed(&w, &in, k, dim5(f, 4), &fwd));
  GRT_RETURN_IF_ERROR(check_grad(c, 2, &fwd, kConvGrad));
  c->output_shapes[0] = in;
  return NULL;
}

grt_status* grt_infer_conv3d_backprop_filter(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 5));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 2, 5));
  grt_window3d w;
  GRT_RETURN_IF_ERROR(grt_window3d_read(c->node, c->def, GRT_WINDOW_DILATIONS, &w));
  grt_shape f, fwd;
  GRT_RETURN_IF_ERROR(shape_from_sizes(c, 1, "filter_sizes", &f));
  int64_t k[3] = {dim5(&f, 0), dim5(&f, 1), dim5(&f, 2)};
  GRT_RETURN_IF_ERROR(windowed(&w, &c->input_shapes[0], k, dim5(&f, 4), &fwd));
  GRT_RETURN_IF_ERROR(check_grad(c, 2, &fwd, kConvGrad));
  c->output_shapes[0] = f;
  return NULL;
}

static const char kPoolGrad[] = "grad does not match the pooled shape of the input";

grt_status* grt_infer_max_pool3d_grad(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  for (int32_t i = 0; i < 3; i++) GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 5));
  grt_window3d w;
  GRT_RETURN_IF_ERROR(grt_window3d_read(c->node, c->def, GRT_WINDOW_KSIZE, &w));
  const grt_shape* in = &c->input_shapes[0];
  grt_shape fwd;
  GRT_RETURN_IF_ERROR(windowed(&w, in, w.ksize, dim5(in, grt_window3d_c(&w)), &fwd));
  GRT_RETURN_IF_ERROR(
      check_grad(c, 1, &fwd, "orig_output does not match the pooled shape of orig_input"));
  GRT_RETURN_IF_ERROR(check_grad(c, 2, &fwd, kPoolGrad));
  if (in->rank < 0) return grt_infer_unknown_dims(5, &c->output_shapes[0]);
  c->output_shapes[0] = *in;
  return NULL;
}

grt_status* grt_infer_avg_pool3d_grad(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 5));
  grt_window3d w;
  GRT_RETURN_IF_ERROR(grt_window3d_read(c->node, c->def, GRT_WINDOW_KSIZE, &w));
  grt_shape in, fwd;
  GRT_RETURN_IF_ERROR(shape_from_sizes(c, 0, "orig_input_shape", &in));
  GRT_RETURN_IF_ERROR(windowed(&w, &in, w.ksize, dim5(&in, grt_window3d_c(&w)), &fwd));
  GRT_RETURN_IF_ERROR(check_grad(c, 1, &fwd, kPoolGrad));
  c->output_shapes[0] = in;
  return NULL;
}
