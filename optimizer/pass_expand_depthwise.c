/* Pass "expand_depthwise": an inverted residual block's expansion and its
 * depthwise convolution as one _FusedExpandDepthwise (ops/defs_fused.c).
 *
 * MobileNetV2's and EfficientNet's blocks widen their input with a 1x1
 * convolution (+ bias + activation) whose output only the depthwise
 * convolution after it reads. The fused node computes the expanded rows
 * each output row's window needs into a small ring of its own and never
 * writes the expanded tensor (backends/cpu/conv_expand_dw.c): at
 * 112x112x96 that tensor is 4.8 MB per image, written and read back.
 *
 * Taken, on device types whose kernel takes it (kTypes, with the most
 * input channels that kernel expands):
 * - a _FusedDepthwiseConv2dNative, float32, NHWC, fused_ops [BiasAdd]
 *   with at most an activation after it (no residual), num_means 0 or 1,
 *   its filter a multiplier of 1;
 * - reading output 0 of a _FusedConv2D, float32, NHWC with no
 *   input_data_format, fused_ops [BiasAdd] with at most an activation,
 *   a [1, 1, K, C] filter of at most the table's K, strides of 1 and no
 *   padding, read by nothing else (no other data or control use), on the
 *   same device, waiting on no control input;
 * - the activations Relu, Relu6, LeakyRelu, Sigmoid, Tanh, _HardSwish and
 *   _Swish (both kernels' register and row forms). */
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"
#include "optimizer/seq_match.h"

typedef struct {
  const char* type;
  int64_t max_in_channels; /* the expansion kernel's (conv_stem.h) */
} device_row;

static const device_row kTypes[] = {{"CPU", 32}};

static const device_row* type_row(const char* type) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++)
    if (type && strcmp(kTypes[i].type, type) == 0) return &kTypes[i];
  return NULL;
}

/* The expansion node the depthwise node d reads, when the pair is one this
 * pass takes. */
static int32_t expansion_of(grt_opt_ctx* c, int32_t d) {
  if (!grt_sm_depthwise(c, d)) return -1;
  const device_row* row = type_row(grt_opt_device_type(c, d));
  int32_t port;
  int32_t e = grt_opt_input_node(c, d, 0, &port);
  if (!row || e < 0 || port != 0) return -1;
  /* A 1x1 convolution only d reads, of at most the table's K. */
  const grt_shape* ef = grt_sm_pointwise_conv(c, e);
  if (!ef || ef->dims[2] > row->max_in_channels || !grt_sm_bias_act(grt_opt_node(c, e)) ||
      !grt_sm_inner(c, e, d))
    return -1;
  return e;
}

/* One _FusedExpandDepthwise in place of expansion e and depthwise d. */
static grt_status* rewrite(grt_opt_ctx* c, int32_t e, int32_t d) {
  int32_t s;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, d, "expand", "_FusedExpandDepthwise", &s));
  /* Nodes are looked up again after each addition: the array may move.
   * Inputs: x, the expansion's filter and bias, the depthwise's. */
  static const struct {
    bool depthwise;
    int32_t input;
  } kInputs[] = {{false, 0}, {false, 1}, {false, 2}, {true, 1}, {true, 2}};
  for (size_t k = 0; k < sizeof kInputs / sizeof kInputs[0]; k++) {
    int32_t p, from = grt_opt_input_node(c, kInputs[k].depthwise ? d : e, kInputs[k].input, &p);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, s, from, p));
  }
  GRT_RETURN_IF_ERROR(grt_opt_copy_controls(c, s, d));
  GRT_RETURN_IF_ERROR(grt_sm_take_depthwise_attrs(c, s, d));
  grt_graph* g = grt_opt_graph(c);
  GRT_RETURN_IF_ERROR(
      grt_graph_set_attr_string(g, s, "expand_act", grt_sm_bias_act(grt_opt_node(c, e))));
  const grt_attr_value* a = grt_node_attr(grt_opt_node(c, e), "leakyrelu_alpha");
  if (a && a->type == GRT_ATTR_FLOAT)
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(g, s, "expand_leakyrelu_alpha", a->u.f));
  int32_t outputs = 1 + (int32_t)grt_opt_attr_int(grt_opt_node(c, d), "num_means", 0);
  for (int32_t o = 0; o < outputs; o++)
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, d, o, s, o, o == 0, true));
  grt_opt_kill(c, d);
  grt_opt_kill(c, e);
  grt_opt_take_name(c, s, d);
  /* A value fed for the expansion would no longer reach the depthwise. */
  grt_opt_mark_feed_unsafe(c, e);
  return NULL;
}

grt_status* grt_opt_pass_expand_depthwise(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), done = 0;
  for (int32_t d = 0; d < n; d++) {
    int32_t e = expansion_of(c, d);
    if (e < 0) continue;
    GRT_RETURN_IF_ERROR(rewrite(c, e, d));
    done++;
  }
  grt_opt_count(c, done);
  if (done)
    grt_opt_detail(c, "%d expansions computed inside their depthwise convolution", (int)done);
  return NULL;
}
