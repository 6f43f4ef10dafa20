/* Pass "depthwise_project": an inverted residual block's 1x1 projection
 * (+ residual) taken into the _FusedExpandDepthwise it reads
 * (ops/defs_fused.c, num_project).
 *
 * MobileNetV2's blocks project the depthwise convolution's output (96 to
 * 192 channels in its early blocks) back to few channels (16 to 64), and
 * only the projection reads it. With the projection inside, the CPU
 * kernel projects each depthwise row while it is in cache
 * (backends/cpu/conv_expand_dw.c): the depthwise output (56x56x144 at
 * batch 1: 1.8 MB) is neither written nor read back. Runs after
 * expand_depthwise: a block whose expansion is fused is taken whole. A
 * block without an expansion (MobileNetV2's first: a 3x3 depthwise
 * convolution of the stem's 112x112x32 output, projected to 16 channels)
 * becomes a _FusedExpandDepthwise with num_expand 0, up to the table's
 * depth.
 *
 * Taken, on device types whose kernel takes it (kTypes, with the largest
 * projection filter that kernel runs faster inside than the library
 * alone):
 * - a _FusedExpandDepthwise with its expansion, without a projection and
 *   with num_means 0, float32; or a _FusedDepthwiseConv2dNative as
 *   expand_depthwise takes them (grt_sm_depthwise) with num_means 0 and
 *   at most the table's channels;
 *   whose output only this projection reads (no other data or control
 *   use);
 * - the projection: a _FusedConv2D, float32, NHWC with no
 *   input_data_format, a [1, 1, C, P] filter of at most the table's C x P,
 *   strides of 1 and no padding, fused_ops [BiasAdd], [BiasAdd, Add] (the
 *   block's residual) and either with one activation after it (Relu,
 *   Relu6, LeakyRelu, Sigmoid, Tanh, _HardSwish, _Swish), on the same
 *   device, waiting on no control input. */
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"
#include "optimizer/seq_match.h"

typedef struct {
  const char* type;
  int64_t max_filter;  /* C x P */
  int64_t max_plain_c; /* C of a block without an expansion */
} device_row;

/* Without an expansion: mnasnet1_0's first block (3x3, 32 -> 16 at
 * 112x112) 1922 -> 1736 µs at batch 8, mobilenet_v2's the same; its 5x5
 * blocks of 120 -> 40 at 28x28 760 -> 1317 and 618 -> 1272 (per-node
 * minima, 28 Nov 2026): only the narrow ones are taken. */
static const device_row kTypes[] = {{"CPU", 192 * 64, 32}};

static const device_row* type_row(const char* type) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++)
    if (type && strcmp(kTypes[i].type, type) == 0) return &kTypes[i];
  return NULL;
}

/* Whether node s is a block this pass gives a projection: a live, not
 * fixed _FusedExpandDepthwise without a projection or means, float32; or
 * a depthwise convolution the block passes fuse (grt_sm_depthwise) with
 * num_means 0, which becomes one without an expansion. */
static bool takes_block(grt_opt_ctx* c, int32_t s, int64_t c_depth, const device_row* row) {
  if (grt_sm_depthwise(c, s))
    return grt_opt_attr_int(grt_opt_node(c, s), "num_means", 0) == 0 && c_depth <= row->max_plain_c;
  const grt_node* sn = grt_opt_node(c, s);
  return grt_sm_is(c, s, "_FusedExpandDepthwise") && !grt_opt_is_fixed(c, s) &&
         grt_opt_attr_int(sn, "num_project", -1) == 0 &&
         grt_opt_attr_int(sn, "num_means", -1) == 0 && grt_opt_attr_int(sn, "num_expand", 2) == 2 &&
         sn->n_inputs == 5 && grt_opt_output_type(c, s, 0) == GRT_FLOAT32;
}

/* The block that projection p reads, when the pair is one this pass takes
 * (*residual, *act: p's epilogue). */
static int32_t block_of(grt_opt_ctx* c, int32_t p, bool* residual, const char** act) {
  const grt_shape* pf = grt_sm_pointwise_conv(c, p);
  const device_row* row = type_row(grt_opt_device_type(c, p));
  if (!pf || !row || pf->dims[3] < 1 || pf->dims[2] * pf->dims[3] > row->max_filter ||
      grt_opt_node(c, p)->n_controls != 0 ||
      !grt_sm_bias_epilogue(grt_opt_node(c, p), residual, act))
    return -1;
  int32_t port, s = grt_opt_input_node(c, p, 0, &port);
  const grt_opt_use* uses;
  if (s < 0 || port != 0 || !takes_block(c, s, pf->dims[2], row) || !grt_opt_same_device(c, s, p) ||
      grt_opt_num_data_uses(c, s) != 1 || grt_opt_uses(c, s, -1, &uses) != 0)
    return -1;
  return s;
}

/* One _FusedExpandDepthwise with projection p in place of block s and p. */
static grt_status* rewrite(grt_opt_ctx* c, int32_t s, int32_t p, bool residual, const char* act) {
  /* A depthwise convolution's inputs are x, filter and bias: the fused
   * node's without an expansion. */
  const bool expands = strcmp(grt_opt_node(c, s)->op, "_FusedExpandDepthwise") == 0;
  const int32_t block_inputs = expands ? 5 : 3;
  int32_t t;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, s, "project", "_FusedExpandDepthwise", &t));
  /* Inputs: the block's, then the projection's filter, bias and residual.
   * Nodes are looked up again after each addition: the array may move. */
  for (int32_t i = 0; i < block_inputs + 2 + (int32_t)residual; i++) {
    int32_t port, from = i < block_inputs ? grt_opt_input_node(c, s, i, &port)
                                          : grt_opt_input_node(c, p, i - block_inputs + 1, &port);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, t, from, port));
  }
  GRT_RETURN_IF_ERROR(grt_opt_copy_controls(c, t, s));
  GRT_RETURN_IF_ERROR(expands ? grt_opt_copy_attrs(c, t, s, NULL)
                              : grt_sm_take_depthwise_attrs(c, t, s));
  grt_graph* g = grt_opt_graph(c);
  if (!expands) GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, t, "num_expand", 0));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, t, "num_project", 2 + (int64_t)residual));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(g, t, "project_act", act));
  const grt_attr_value* a = grt_node_attr(grt_opt_node(c, p), "leakyrelu_alpha");
  if (a && a->type == GRT_ATTR_FLOAT)
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(g, t, "project_leakyrelu_alpha", a->u.f));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, p, 0, t, 0, true, true));
  grt_opt_kill(c, p);
  grt_opt_kill(c, s);
  grt_opt_take_name(c, t, p);
  /* A value fed for the block's depthwise output would no longer reach
   * the projection. */
  grt_opt_mark_feed_unsafe(c, s);
  return NULL;
}

grt_status* grt_opt_pass_depthwise_project(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), done = 0;
  for (int32_t p = 0; p < n; p++) {
    bool residual = false;
    const char* act = "";
    int32_t s = block_of(c, p, &residual, &act);
    if (s < 0) continue;
    GRT_RETURN_IF_ERROR(rewrite(c, s, p, residual, act));
    done++;
  }
  grt_opt_count(c, done);
  if (done)
    grt_opt_detail(c, "%d projections computed inside their block's depthwise convolution",
                   (int)done);
  return NULL;
}
