/* Pass "stem": a CNN's first convolution reads the NCHW image in place.
 *
 * After `layout` and `conv_fusion`, an ONNX CNN's first convolution is a
 * _FusedConv2D in NHWC reading a Transpose of the NCHW image (perm
 * [0, 2, 3, 1]). On a device type whose kernel reads an NCHW input and
 * writes NHWC for few input channels (kTypes: the CPU's stem kernel,
 * backends/cpu/conv_stem.h), the convolution is replaced by one reading
 * the Transpose's input with input_data_format "NCHW" (ops/defs_fused.c),
 * and the Transpose, when nothing else reads it, is dropped with the dead
 * nodes. The value is the same; the transposed copy of the image (about
 * 0.1 ms at batch 1 on 224x224) is not made, and the convolution runs on
 * a kernel made for 3 channels instead of oneDNN's brgconv
 * (backends/cpu/DNNL.md, "The stem").
 *
 * Taken: float32, groups 1 (the input's channels, known, equal the
 * filter's), 1 to kMaxIc input channels, dilation 1, data_format NHWC and
 * no input_data_format yet. */
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"

/* Device types whose _FusedConv2D reads an NCHW input with input_data_format,
 * and up to how many input channels (the CPU's GRT_CPU_STEM_MAX_IC). */
typedef struct {
  const char* type;
  int64_t max_ic;
} stem_type;

static const stem_type kTypes[] = {{"CPU", 4}};

static int64_t max_ic_of(const char* type) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; i++)
    if (type && strcmp(kTypes[i].type, type) == 0) return kTypes[i].max_ic;
  return 0;
}

/* Whether Const node s holds the int permutation [0, 2, 3, 1]. */
static bool is_to_nhwc_perm(grt_opt_ctx* c, int32_t s) {
  static const int64_t kPerm[4] = {0, 2, 3, 1};
  const grt_tensor* t = s >= 0 ? grt_opt_const_value(c, s) : NULL;
  if (!t || grt_tensor_num_elements(t) != 4) return false;
  grt_dtype d = grt_tensor_dtype(t);
  if (d != GRT_INT32 && d != GRT_INT64) return false;
  for (int32_t e = 0; e < 4; e++) {
    int64_t v = d == GRT_INT32 ? ((const int32_t*)grt_tensor_data(t))[e]
                               : ((const int64_t*)grt_tensor_data(t))[e];
    if (v != kPerm[e]) return false;
  }
  return true;
}

/* The Transpose *t node i reads and its NCHW source (*src, *port) when
 * node i is a stem the device type's kernel runs (a Transpose waiting on
 * control inputs is left alone); false otherwise. */
static bool stem_source(grt_opt_ctx* c, int32_t i, int32_t* t, int32_t* src, int32_t* port) {
  const grt_node* n = grt_opt_node(c, i);
  if (strcmp(n->op, "_FusedConv2D") != 0 || grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) ||
      n->n_inputs < 3 || grt_opt_output_type(c, i, 0) != GRT_FLOAT32 ||
      strcmp(grt_opt_attr_string(n, "data_format", "NHWC"), "NHWC") != 0 ||
      grt_opt_attr_string(n, "input_data_format", "")[0] != 0 ||
      !grt_opt_attr_all_ones(n, "dilations", true))
    return false;
  int64_t max_ic = max_ic_of(grt_opt_device_type(c, i));
  int32_t tport, fport, pport;
  *t = grt_opt_input_node(c, i, 0, &tport);
  int32_t f = grt_opt_input_node(c, i, 1, &fport);
  if (max_ic == 0 || *t < 0 || f < 0 || tport != 0 || grt_opt_is_dead(c, *t)) return false;
  const grt_node* tn = grt_opt_node(c, *t);
  if (strcmp(tn->op, "Transpose") != 0 || tn->n_inputs != 2 || tn->n_controls != 0 ||
      !is_to_nhwc_perm(c, grt_opt_input_node(c, *t, 1, &pport)))
    return false;
  *src = grt_opt_input_node(c, *t, 0, port);
  if (*src < 0) return false;
  const grt_shape* x = grt_opt_output_shape(c, *src, *port);
  const grt_shape* w = grt_opt_output_shape(c, f, fport);
  /* Groups 1: the image's channels (NCHW dimension 1) are the filter's. */
  return x && w && x->rank == 4 && w->rank == 4 && x->dims[1] >= 1 && x->dims[1] <= max_ic &&
         w->dims[2] == x->dims[1];
}

/* Node i reads (src, port) in place of Transpose t. */
static grt_status* rewrite(grt_opt_ctx* c, int32_t i, int32_t t, int32_t src, int32_t port) {
  int32_t s;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, i, "stem", "_FusedConv2D", &s));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, s, src, port));
  /* Node i is looked up again after each addition: the array may move. */
  for (int32_t k = 1; k < grt_opt_node(c, i)->n_inputs; k++) {
    int32_t p, from = grt_opt_input_node(c, i, k, &p);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, s, from, p));
  }
  GRT_RETURN_IF_ERROR(grt_opt_copy_controls(c, s, i));
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, s, i, NULL));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(grt_opt_graph(c), s, "input_data_format", "NCHW"));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, s, 0, true, true));
  grt_opt_kill(c, i);
  grt_opt_take_name(c, s, i);
  /* A value fed for the Transpose would no longer reach the convolution. */
  grt_opt_mark_feed_unsafe(c, t);
  return NULL;
}

grt_status* grt_opt_pass_stem(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), done = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t t, src, port;
    if (!stem_source(c, i, &t, &src, &port)) continue;
    GRT_RETURN_IF_ERROR(rewrite(c, i, t, src, port));
    done++;
  }
  grt_opt_count(c, done);
  if (done) grt_opt_detail(c, "%d convolutions read their NCHW input in place", (int)done);
  return NULL;
}
