/* Pass "layer_norm": layer normalization spelled out node by node becomes
 * one _LayerNorm (ops/defs_fused_seq.c). Two spellings are known:
 *   - the ONNX importer's LayerNormalization (opset 17) and TensorFlow's
 *     own: m = Mean(x), d = Sub(x, m), Mean(Square(d)), AddV2(eps), Rsqrt,
 *     Mul(d, .), then Mul(gamma), AddV2(beta);
 *   - torch's opset < 17 export: ReduceMean, Sub, Pow(d, 2), ReduceMean,
 *     Add(eps), Sqrt, Div(d, .), Mul(gamma), Add(beta).
 * Both Means reduce the same trailing axes (kept), the epsilon is a scalar
 * Const, gamma and beta (each optional) Consts whose dims align with the
 * normalized ones (they become vectors). The node standing for the last of
 * the chain takes its name; every other member must be read only inside
 * the chain (d twice), so a fetched or shared intermediate leaves it as
 * written, and the chain runs on one device with a float32 kernel. */
#include <math.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "optimizer/passes.h"
#include "optimizer/seq_match.h"

static const char* const kAdd[] = {"Add", "AddV2", NULL};

typedef struct {
  grt_sm_value x;
  int32_t begin; /* first normalized axis */
  int64_t n;     /* normalized elements */
  float eps;
  int32_t gamma, beta; /* Const nodes, or -1 */
  int32_t members[10];
  int32_t n_members;
  int32_t end;
} ln_match;

/* Mean over trailing axes of a rank-known x, dims kept: the first axis. */
static bool trailing_mean(const grt_opt_ctx* c, int32_t m, int32_t* begin) {
  if (!grt_sm_is(c, m, "Mean")) return false;
  const grt_attr_value* kd = grt_node_find_attr(grt_opt_node(c, m), "keep_dims");
  if (!kd || kd->type != GRT_ATTR_BOOL || !kd->u.b) return false;
  grt_sm_value in = grt_sm_input(c, m, 0), ax = grt_sm_input(c, m, 1);
  if (in.node < 0) return false;
  const grt_shape* xs = grt_opt_output_shape(c, in.node, in.port);
  const grt_tensor* t = ax.port == 0 ? grt_opt_const_value(c, ax.node) : NULL;
  if (!xs || xs->rank < 1 || !t || t->shape.rank > 1) return false;
  int64_t k = grt_tensor_num_elements(t);
  if (k < 1 || k > xs->rank) return false;
  bool seen[GRT_MAX_RANK] = {false};
  for (int64_t j = 0; j < k; j++) {
    int64_t a = t->dtype == GRT_INT32   ? ((const int32_t*)grt_tensor_data(t))[j]
                : t->dtype == GRT_INT64 ? ((const int64_t*)grt_tensor_data(t))[j]
                                        : INT64_MAX;
    if (a < 0) a += xs->rank;
    if (a < 0 || a >= xs->rank || seen[a]) return false;
    seen[a] = true;
  }
  *begin = xs->rank - (int32_t)k;
  for (int32_t a = *begin; a < xs->rank; a++)
    if (!seen[a] || xs->dims[a] < 0) return false;
  return true;
}

/* A float32 Const whose dims, right-aligned against x's, match the
 * normalized axes and are 1 elsewhere, holding n elements. */
static bool affine_param(const grt_opt_ctx* c, grt_sm_value v, const ln_match* m) {
  const grt_tensor* t = v.port == 0 ? grt_opt_const_value(c, v.node) : NULL;
  const grt_shape* xs = grt_opt_output_shape(c, m->x.node, m->x.port);
  if (!t || t->dtype != GRT_FLOAT32 || grt_tensor_num_elements(t) != m->n) return false;
  if (t->shape.rank > xs->rank) return false;
  for (int32_t k = 0; k < t->shape.rank; k++) {
    int32_t a = xs->rank - t->shape.rank + k;
    if (t->shape.dims[k] != (a >= m->begin ? xs->dims[a] : 1)) return false;
  }
  return true;
}

static void add_member(ln_match* m, int32_t i) { m->members[m->n_members++] = i; }

/* From the first Mean m1: the chain up to the normalized value, then the
 * optional scale and shift. */
static bool match(const grt_opt_ctx* c, int32_t m1, ln_match* m) {
  m->n_members = 0;
  m->gamma = m->beta = -1;
  if (!trailing_mean(c, m1, &m->begin) || !grt_sm_inner(c, m1, m1)) return false;
  m->x = grt_sm_input(c, m1, 0);
  if (grt_opt_output_type(c, m->x.node, m->x.port) != GRT_FLOAT32) return false;
  const grt_shape* xs = grt_opt_output_shape(c, m->x.node, m->x.port);
  m->n = 1;
  for (int32_t a = m->begin; a < xs->rank; a++) m->n *= xs->dims[a];
  add_member(m, m1);
  int32_t d = grt_sm_only_use(c, m1);
  if (!grt_sm_is(c, d, "Sub") || !grt_sm_same(grt_sm_input(c, d, 0), m->x) ||
      grt_sm_input(c, d, 1).node != m1)
    return false;
  /* d is read twice: by the square and by the normalizing Mul/RealDiv. */
  const grt_node* dn = grt_opt_node(c, d);
  const grt_opt_use* u;
  if (grt_opt_is_fixed(c, d) || dn->n_controls > 0 || grt_opt_uses(c, d, -1, &u) > 0 ||
      grt_opt_uses(c, d, 0, &u) != 2 || strcmp(dn->device, grt_opt_node(c, m1)->device) != 0)
    return false;
  grt_sm_value dv = {d, 0};
  int32_t sq = -1, norm = -1;
  for (int32_t k = 0; k < 2; k++) {
    int32_t v = u[k].node;
    if (grt_sm_is(c, v, "Square") ||
        (grt_sm_is(c, v, "Pow") && u[k].input == 0 && grt_sm_binary_const(c, v, dv, 2.0f, 0.0f)))
      sq = v;
    else
      norm = v;
  }
  if (sq < 0 || norm < 0 || !grt_sm_inner(c, sq, m1)) return false;
  add_member(m, d);
  add_member(m, sq);
  int32_t m2 = grt_sm_only_use(c, sq), begin2;
  if (!trailing_mean(c, m2, &begin2) || begin2 != m->begin || !grt_sm_inner(c, m2, m1))
    return false;
  add_member(m, m2);
  int32_t ve = grt_sm_only_use(c, m2);
  grt_sm_value m2v = {m2, 0};
  grt_sm_value ev = grt_sm_other(c, ve, m2v);
  if (!grt_sm_is_any(c, ve, kAdd) || ev.port != 0 || !grt_sm_const_scalar(c, ev.node, &m->eps) ||
      !(m->eps >= 0.0f) || !grt_sm_inner(c, ve, m1))
    return false;
  add_member(m, ve);
  int32_t root = grt_sm_only_use(c, ve);
  if (!grt_sm_inner(c, root, m1)) return false;
  grt_sm_value rv = {root, 0};
  if (grt_sm_is(c, root, "Rsqrt")) {
    if (!grt_sm_is(c, norm, "Mul") || !grt_sm_same(grt_sm_other(c, norm, dv), rv)) return false;
  } else if (grt_sm_is(c, root, "Sqrt")) {
    if (!grt_sm_is(c, norm, "RealDiv") || !grt_sm_same(grt_sm_input(c, norm, 0), dv) ||
        !grt_sm_same(grt_sm_input(c, norm, 1), rv))
      return false;
  } else {
    return false;
  }
  add_member(m, root);
  m->end = norm;
  /* Optional: * gamma, then + beta. */
  grt_sm_value ev2 = {norm, 0};
  int32_t next = grt_sm_inner(c, norm, m1) ? grt_sm_only_use(c, norm) : -1;
  if (grt_sm_is(c, next, "Mul") && affine_param(c, grt_sm_other(c, next, ev2), m)) {
    m->gamma = grt_sm_other(c, next, ev2).node;
    add_member(m, norm);
    m->end = next;
    ev2.node = next;
    next = grt_sm_inner(c, next, m1) ? grt_sm_only_use(c, next) : -1;
  }
  if (grt_sm_is_any(c, next, kAdd) && affine_param(c, grt_sm_other(c, next, ev2), m)) {
    m->beta = grt_sm_other(c, next, ev2).node;
    add_member(m, m->end);
    m->end = next;
  }
  const grt_node* end = grt_opt_node(c, m->end);
  const grt_shape* es = grt_opt_output_shape(c, m->end, 0);
  return !grt_opt_is_fixed(c, m->end) && end->n_controls == 0 && end->sig.n_outputs == 1 &&
         grt_opt_output_type(c, m->end, 0) == GRT_FLOAT32 && es && es->rank == xs->rank &&
         strcmp(end->device, grt_opt_node(c, m1)->device) == 0 &&
         grt_opt_has_kernel(grt_opt_device_type(c, m1), "_LayerNorm", "T", GRT_FLOAT32);
}

/* A vector Const of the n normalized elements: param's values, else fill. */
static grt_status* vector_const(grt_opt_ctx* c, int32_t like, const char* suffix, int32_t param,
                                int64_t n, float fill, int32_t* out) {
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_FLOAT32, 1, &n, &t));
  float* v = grt_tensor_data(t);
  if (param >= 0)
    memcpy(v, grt_tensor_data(grt_opt_const_value(c, param)), (size_t)n * sizeof *v);
  else
    for (int64_t k = 0; k < n; k++) v[k] = fill;
  grt_status* s = grt_opt_add_const(c, like, suffix, t, out);
  grt_tensor_free(t);
  return s;
}

grt_status* grt_opt_pass_layer_norm(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), fused = 0;
  for (int32_t i = 0; i < n; i++) {
    ln_match m;
    if (!grt_sm_is(c, i, "Mean") || !match(c, i, &m)) continue;
    int32_t gamma, beta, ln;
    GRT_RETURN_IF_ERROR(vector_const(c, m.end, "gamma", m.gamma, m.n, 1.0f, &gamma));
    GRT_RETURN_IF_ERROR(vector_const(c, m.end, "beta", m.beta, m.n, 0.0f, &beta));
    GRT_RETURN_IF_ERROR(grt_opt_add_node(c, m.end, "layer_norm", "_LayerNorm", &ln));
    grt_graph* g = grt_opt_graph(c);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, ln, m.x.node, m.x.port));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, ln, gamma, 0));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, ln, beta, 0));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, ln, "T", GRT_FLOAT32));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(g, ln, "epsilon", m.eps));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, ln, "begin_norm_axis", m.begin));
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, m.end, 0, ln, 0, true, true));
    for (int32_t k = 0; k < m.n_members; k++) grt_opt_kill(c, m.members[k]);
    grt_opt_kill(c, m.end);
    grt_opt_take_name(c, ln, m.end);
    fused++;
  }
  grt_opt_count(c, fused);
  if (fused) grt_opt_detail(c, "%d layer normalizations into _LayerNorm", (int)fused);
  return NULL;
}
