/* The fusions' pattern tests (seq_match.h). */
#include "optimizer/seq_match.h"

#include <math.h>
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"

grt_sm_value grt_sm_input(const grt_opt_ctx* c, int32_t i, int32_t k) {
  grt_sm_value v = {-1, -1};
  if (i < 0) return v;
  v.node = grt_opt_input_node(c, i, k, &v.port);
  /* A node added by this pass (an earlier rewrite's) has no signature or
   * uses yet: nothing to match. */
  if (v.node < 0 || v.node >= grt_opt_num_nodes(c)) v.node = v.port = -1;
  return v;
}

bool grt_sm_same(grt_sm_value a, grt_sm_value b) {
  return a.node >= 0 && a.node == b.node && a.port == b.port;
}

bool grt_sm_is(const grt_opt_ctx* c, int32_t i, const char* op) {
  return i >= 0 && i < grt_opt_num_nodes(c) && !grt_opt_is_dead(c, i) &&
         strcmp(grt_opt_node(c, i)->op, op) == 0;
}

bool grt_sm_is_any(const grt_opt_ctx* c, int32_t i, const char* const* ops) {
  for (; *ops; ops++)
    if (grt_sm_is(c, i, *ops)) return true;
  return false;
}

bool grt_sm_inner(const grt_opt_ctx* c, int32_t i, int32_t like) {
  if (i < 0 || i >= grt_opt_num_nodes(c) || grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i))
    return false;
  const grt_node* n = grt_opt_node(c, i);
  const grt_opt_use* u;
  if (n->n_controls > 0 || n->sig.n_outputs != 1 || grt_opt_uses(c, i, -1, &u) > 0) return false;
  if (grt_opt_output_type(c, i, 0) != GRT_FLOAT32 || grt_opt_num_data_uses(c, i) != 1) return false;
  return grt_opt_same_device(c, i, like);
}

int32_t grt_sm_only_use(const grt_opt_ctx* c, int32_t i) {
  const grt_opt_use* u;
  return grt_opt_uses(c, i, 0, &u) == 1 ? u[0].node : -1;
}

bool grt_sm_const_scalar(const grt_opt_ctx* c, int32_t i, float* out) {
  const grt_tensor* t = i >= 0 && i < grt_opt_num_nodes(c) ? grt_opt_const_value(c, i) : NULL;
  if (!t || t->dtype != GRT_FLOAT32 || grt_tensor_num_elements(t) != 1) return false;
  *out = *(const float*)grt_tensor_data(t);
  return true;
}

grt_sm_value grt_sm_other(const grt_opt_ctx* c, int32_t i, grt_sm_value x) {
  grt_sm_value none = {-1, -1};
  if (i < 0 || grt_opt_node(c, i)->n_inputs != 2) return none;
  grt_sm_value a = grt_sm_input(c, i, 0), b = grt_sm_input(c, i, 1);
  if (grt_sm_same(a, x)) return b;
  if (grt_sm_same(b, x)) return a;
  return none;
}

bool grt_sm_binary_const(const grt_opt_ctx* c, int32_t i, grt_sm_value x, float want, float tol) {
  grt_sm_value o = grt_sm_other(c, i, x);
  float v;
  return o.port == 0 && grt_sm_const_scalar(c, o.node, &v) && fabsf(v - want) <= tol * fabsf(want);
}

bool grt_sm_bias_epilogue(const grt_node* n, bool* residual, const char** act) {
  const grt_attr_value* v = grt_node_attr(n, "fused_ops");
  if (!v || v->type != GRT_ATTR_LIST_STRING || v->u.list.n < 1 || v->u.list.n > 3 ||
      strcmp(v->u.list.v.s[0], "BiasAdd") != 0)
    return false;
  int32_t i = 1;
  *residual = i < v->u.list.n && strcmp(v->u.list.v.s[i], "Add") == 0;
  i += *residual;
  *act = i < v->u.list.n ? grt_opt_row_act(v->u.list.v.s[i++]) : "";
  return *act && i == v->u.list.n && n->n_inputs == 3 + (int32_t)*residual &&
         grt_opt_attr_int(n, "num_args", -1) == 1 + (int64_t)*residual;
}

const char* grt_sm_bias_act(const grt_node* n) {
  bool residual = false;
  const char* act = "";
  return grt_sm_bias_epilogue(n, &residual, &act) && !residual ? act : NULL;
}

bool grt_sm_depthwise(const grt_opt_ctx* c, int32_t i) {
  if (!grt_sm_is(c, i, "_FusedDepthwiseConv2dNative") || grt_opt_is_fixed(c, i)) return false;
  const grt_node* n = grt_opt_node(c, i);
  int64_t means = grt_opt_attr_int(n, "num_means", 0);
  if (!grt_sm_bias_act(n) || means < 0 || means > 1 ||
      grt_opt_output_type(c, i, 0) != GRT_FLOAT32 ||
      strcmp(grt_opt_attr_string(n, "data_format", "NHWC"), "NHWC") != 0)
    return false;
  int32_t fp, f = grt_opt_input_node(c, i, 1, &fp);
  const grt_shape* s = f >= 0 ? grt_opt_output_shape(c, f, fp) : NULL;
  return s && s->rank == 4 && s->dims[3] == 1; /* a multiplier of 1 */
}

grt_status* grt_sm_take_depthwise_attrs(grt_opt_ctx* c, int32_t to, int32_t d) {
  static const char* const kSkip[] = {"fused_ops", "num_args", "epsilon", NULL};
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, to, d, kSkip));
  return grt_graph_set_attr_string(grt_opt_graph(c), to, "act",
                                   grt_sm_bias_act(grt_opt_node(c, d)));
}

const grt_shape* grt_sm_pointwise_conv(const grt_opt_ctx* c, int32_t i) {
  if (!grt_sm_is(c, i, "_FusedConv2D") || grt_opt_is_fixed(c, i)) return NULL;
  const grt_node* n = grt_opt_node(c, i);
  if (grt_opt_output_type(c, i, 0) != GRT_FLOAT32 ||
      strcmp(grt_opt_attr_string(n, "data_format", "NHWC"), "NHWC") != 0 ||
      strcmp(grt_opt_attr_string(n, "input_data_format", ""), "") != 0 ||
      !grt_opt_attr_all_ones(n, "strides", false) || !grt_opt_no_padding(n))
    return NULL;
  int32_t fp, f = grt_opt_input_node(c, i, 1, &fp);
  const grt_shape* s = f >= 0 ? grt_opt_output_shape(c, f, fp) : NULL;
  return s && s->rank == 4 && s->dims[0] == 1 && s->dims[1] == 1 && s->dims[2] >= 1 ? s : NULL;
}
