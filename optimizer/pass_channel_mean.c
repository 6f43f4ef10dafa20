/* Pass "channel_mean": a squeeze-excitation block's Mean taken into the
 * depthwise convolution it reads.
 *
 * EfficientNet's and MobileNetV3's blocks squeeze the depthwise
 * convolution's activated output y [N,H,W,C] to its channel means,
 * Mean(y, axes H and W, keep_dims), before scaling y by them. The
 * _FusedDepthwiseConv2dNative gets num_means 1 (ops/defs_fused.c), and its
 * second output stands for the Mean: the CPU kernel sums each block of
 * rows while its activation has them in L1 (backends/cpu/conv_fused.c), so
 * y is not read again from memory for the Mean.
 *
 * Taken: float32, NHWC, num_means 0 so far, on device types whose kernel
 * takes it (kTypes); the Mean's axes a Const of H and W (1 and 2, or -3
 * and -2, in any order), keep_dims true, waiting on no control input, and
 * read by some node (a Mean that is the model's output stays). */
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"

static const char* const kTypes[] = {"CPU"};

static bool type_takes(const char* type) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++)
    if (type && strcmp(kTypes[i], type) == 0) return true;
  return false;
}

/* Whether Const node a holds two int axes naming H and W of a rank-4 NHWC
 * value. */
static bool hw_axes(grt_opt_ctx* c, int32_t a) {
  const grt_tensor* t = a >= 0 ? grt_opt_const_value(c, a) : NULL;
  if (!t || grt_tensor_num_elements(t) != 2) return false;
  grt_dtype d = grt_tensor_dtype(t);
  if (d != GRT_INT32 && d != GRT_INT64) return false;
  bool seen[4] = {false, false, false, false};
  for (int32_t e = 0; e < 2; e++) {
    int64_t v = d == GRT_INT32 ? ((const int32_t*)grt_tensor_data(t))[e]
                               : ((const int64_t*)grt_tensor_data(t))[e];
    if (v < 0) v += 4;
    if (v < 0 || v > 3) return false;
    seen[v] = true;
  }
  return seen[1] && seen[2];
}

/* The depthwise convolution node m (a Mean) reads, when m is one this pass
 * takes in. */
static int32_t source_of(grt_opt_ctx* c, int32_t m) {
  const grt_node* n = grt_opt_node(c, m);
  /* A Mean nothing reads is an output of the model: it keeps its node. */
  if (strcmp(n->op, "Mean") != 0 || grt_opt_is_dead(c, m) || n->n_inputs != 2 ||
      n->n_controls != 0 || !grt_opt_attr_bool(n, "keep_dims", false) ||
      grt_opt_num_data_uses(c, m) == 0 || grt_opt_output_type(c, m, 0) != GRT_FLOAT32)
    return -1;
  int32_t port, ap;
  int32_t d = grt_opt_input_node(c, m, 0, &port);
  if (d < 0 || port != 0 || !hw_axes(c, grt_opt_input_node(c, m, 1, &ap))) return -1;
  const grt_node* dn = grt_opt_node(c, d);
  if (strcmp(dn->op, "_FusedDepthwiseConv2dNative") != 0 || grt_opt_is_dead(c, d) ||
      grt_opt_is_fixed(c, d) || !type_takes(grt_opt_device_type(c, d)) ||
      !grt_opt_same_device(c, d, m) || grt_opt_output_type(c, d, 0) != GRT_FLOAT32 ||
      strcmp(grt_opt_attr_string(dn, "data_format", "NHWC"), "NHWC") != 0 ||
      grt_opt_attr_int(dn, "num_means", 0) != 0)
    return -1;
  const grt_shape* y = grt_opt_output_shape(c, d, 0);
  return y && y->rank == 4 ? d : -1;
}

/* A copy of depthwise node d with num_means 1 in place of d, and its mean
 * output in place of Mean m's. */
static grt_status* rewrite(grt_opt_ctx* c, int32_t d, int32_t m) {
  int32_t s;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, d, "channel_mean", "_FusedDepthwiseConv2dNative", &s));
  /* Node d is looked up again after each addition: the array may move. */
  for (int32_t k = 0; k < grt_opt_node(c, d)->n_inputs; k++) {
    int32_t p, from = grt_opt_input_node(c, d, k, &p);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, s, from, p));
  }
  GRT_RETURN_IF_ERROR(grt_opt_copy_controls(c, s, d));
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, s, d, NULL));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(grt_opt_graph(c), s, "num_means", 1));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, d, 0, s, 0, true, true));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, m, 0, s, 1, true, false));
  grt_opt_kill(c, d);
  grt_opt_kill(c, m);
  grt_opt_take_name(c, s, d);
  /* A value fed for the Mean would no longer reach its readers. */
  grt_opt_mark_feed_unsafe(c, m);
  return NULL;
}

grt_status* grt_opt_pass_channel_mean(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), done = 0;
  for (int32_t m = 0; m < n; m++) {
    int32_t d = source_of(c, m);
    if (d < 0) continue; /* (source_of skips a convolution another Mean took) */
    GRT_RETURN_IF_ERROR(rewrite(c, d, m));
    done++;
  }
  grt_opt_count(c, done);
  if (done) grt_opt_detail(c, "%d depthwise convolutions give their channel means", (int)done);
  return NULL;
}
