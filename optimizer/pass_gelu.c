/* Pass "gelu": the exact GELU as exporters spell it out,
 *   x * 0.5 * (1 + erf(x / sqrt 2))
 * (torch's nn.GELU through ONNX: RealDiv(x, 1.4142135), Erf, AddV2(., 1),
 * Mul(x, .), Mul(., 0.5); also x * 0.70710677 for the division and the
 * half taken first, in either order), becomes one _Gelu (approximate false):
 * one pass over the activations instead of five. The node standing for the
 * last Mul takes its name.
 *
 * Matched from the Erf: every node of the chain but the last is read only
 * by the next one (an intermediate fetched or read elsewhere leaves the
 * chain as written), all on one device that has a float32 _Gelu kernel. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"
#include "optimizer/seq_match.h"

static const char* const kAdd[] = {"Add", "AddV2", NULL};
static const float kTol = 1e-6f;

/* The chain from one Erf: members[0..n) swallowed, `end` replaced. */
typedef struct {
  grt_sm_value x;
  int32_t members[4];
  int32_t n;
  int32_t end;
} gelu_match;

/* t = x / sqrt 2 (RealDiv) or x * (1 / sqrt 2): x, else {-1,-1}. */
static grt_sm_value scaled_input(const grt_opt_ctx* c, int32_t t) {
  grt_sm_value none = {-1, -1};
  float v;
  if (grt_sm_is(c, t, "RealDiv")) {
    grt_sm_value d = grt_sm_input(c, t, 1);
    if (d.port == 0 && grt_sm_const_scalar(c, d.node, &v) &&
        fabsf(v - (float)M_SQRT2) <= kTol * (float)M_SQRT2)
      return grt_sm_input(c, t, 0);
    return none;
  }
  if (!grt_sm_is(c, t, "Mul")) return none;
  for (int32_t k = 0; k < 2; k++) {
    grt_sm_value o = grt_sm_input(c, t, 1 - k);
    if (o.port == 0 && grt_sm_const_scalar(c, o.node, &v) &&
        fabsf(v - (float)M_SQRT1_2) <= kTol * (float)M_SQRT1_2)
      return grt_sm_input(c, t, k);
  }
  return none;
}

static bool match(const grt_opt_ctx* c, int32_t erf, gelu_match* m) {
  int32_t t = grt_sm_input(c, erf, 0).node;
  if (!grt_sm_inner(c, erf, erf) || !grt_sm_inner(c, t, erf)) return false;
  m->x = scaled_input(c, t);
  if (m->x.node < 0 || grt_opt_output_type(c, m->x.node, m->x.port) != GRT_FLOAT32) return false;
  grt_sm_value e = {erf, 0};
  int32_t a = grt_sm_only_use(c, erf);
  if (!grt_sm_is_any(c, a, kAdd) || !grt_sm_inner(c, a, erf) ||
      !grt_sm_binary_const(c, a, e, 1.0f, 0.0f))
    return false;
  grt_sm_value av = {a, 0};
  int32_t p = grt_sm_only_use(c, a);
  if (!grt_sm_is(c, p, "Mul")) return false;
  grt_sm_value o = grt_sm_other(c, p, av);
  m->members[0] = t;
  m->members[1] = erf;
  m->members[2] = a;
  float half;
  if (grt_sm_same(o, m->x) || (o.port == 0 && grt_sm_const_scalar(c, o.node, &half))) {
    /* (x * a) * 0.5 or (a * 0.5) * x: p feeds the last Mul. */
    if (!grt_sm_inner(c, p, erf)) return false;
    int32_t q = grt_sm_only_use(c, p);
    grt_sm_value pv = {p, 0};
    if (!grt_sm_is(c, q, "Mul")) return false;
    bool ok = grt_sm_same(o, m->x) ? grt_sm_binary_const(c, q, pv, 0.5f, 0.0f)
                                   : half == 0.5f && grt_sm_same(grt_sm_other(c, q, pv), m->x);
    if (!ok) return false;
    m->members[3] = p;
    m->end = q;
  } else {
    /* (x * 0.5) * a: o is a Mul of x by a half read only here. */
    if (!grt_sm_is(c, o.node, "Mul") || o.port != 0 || !grt_sm_inner(c, o.node, erf) ||
        !grt_sm_binary_const(c, o.node, m->x, 0.5f, 0.0f))
      return false;
    m->members[3] = o.node;
    m->end = p;
  }
  m->n = 4;
  const grt_node* end = grt_opt_node(c, m->end);
  return !grt_opt_is_fixed(c, m->end) && end->n_controls == 0 && end->sig.n_outputs == 1 &&
         strcmp(end->device, grt_opt_node(c, erf)->device) == 0 &&
         grt_opt_has_kernel(grt_opt_device_type(c, erf), "_Gelu", "T", GRT_FLOAT32);
}

grt_status* grt_opt_pass_gelu(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), fused = 0;
  for (int32_t i = 0; i < n; i++) {
    gelu_match m;
    if (!grt_sm_is(c, i, "Erf") || !match(c, i, &m)) continue;
    int32_t g;
    GRT_RETURN_IF_ERROR(grt_opt_add_node(c, m.end, "gelu", "_Gelu", &g));
    grt_graph* gr = grt_opt_graph(c);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, g, m.x.node, m.x.port));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(gr, g, "T", GRT_FLOAT32));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(gr, g, "approximate", false));
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, m.end, 0, g, 0, true, true));
    for (int32_t k = 0; k < m.n; k++) grt_opt_kill(c, m.members[k]);
    grt_opt_kill(c, m.end);
    grt_opt_take_name(c, g, m.end);
    fused++;
  }
  grt_opt_count(c, fused);
  if (fused) grt_opt_detail(c, "%d GELU chains (Erf form) into _Gelu", (int)fused);
  return NULL;
}
