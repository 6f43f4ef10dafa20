/* Pass "gelu": GELU as exporters spell it out becomes one _Gelu, one pass
 * over the activations instead of five to nine. The exact form
 *   x * 0.5 * (1 + erf(x / sqrt 2))
 * (torch's nn.GELU through ONNX: RealDiv(x, 1.4142135), Erf, AddV2(., 1),
 * Mul(x, .), Mul(., 0.5); also x * 0.70710677 for the division) gives
 * approximate false; the tanh form
 *   x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
 * (torch's approximate='tanh' before opset 20: x^3 as Mul(x, Mul(x, x));
 * TensorFlow's gelu(approximate=True): Pow(x, 3)) gives approximate true.
 * In both the half may be taken first or last, in either order. The node
 * standing for the last Mul takes its name.
 *
 * Matched from the Erf or the Tanh: every node of the chain but the last is
 * read only by the next one (an intermediate fetched or read elsewhere
 * leaves the chain as written), all on one device that has a float32 _Gelu
 * kernel. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/status.h"
#include "optimizer/passes.h"
#include "optimizer/seq_match.h"

static const char* const kAdd[] = {"Add", "AddV2", NULL};
static const float kTol = 1e-6f;

/* The chain from one Erf or Tanh: members[0..n) swallowed, `end` replaced. */
typedef struct {
  grt_sm_value x;
  bool approximate;
  int32_t members[9];
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

/* x^3 as Pow(x, 3), Mul(x, Mul(x, x)) or Mul(x, Square(x)) (either order),
 * its nodes inner: x, else {-1, -1}. */
static grt_sm_value cube(const grt_opt_ctx* c, int32_t i, int32_t like, gelu_match* m) {
  grt_sm_value none = {-1, -1};
  if (!grt_sm_inner(c, i, like)) return none;
  if (grt_sm_is(c, i, "Pow")) {
    float e;
    grt_sm_value ev = grt_sm_input(c, i, 1);
    if (ev.port != 0 || !grt_sm_const_scalar(c, ev.node, &e) || e != 3.0f) return none;
    m->members[m->n++] = i;
    return grt_sm_input(c, i, 0);
  }
  if (!grt_sm_is(c, i, "Mul")) return none;
  for (int32_t k = 0; k < 2; k++) {
    grt_sm_value x = grt_sm_input(c, i, k), sq = grt_sm_input(c, i, 1 - k);
    if (sq.port != 0 || !grt_sm_inner(c, sq.node, like)) continue;
    bool square = grt_sm_is(c, sq.node, "Square") && grt_sm_same(grt_sm_input(c, sq.node, 0), x);
    bool mul = grt_sm_is(c, sq.node, "Mul") && grt_sm_same(grt_sm_input(c, sq.node, 0), x) &&
               grt_sm_same(grt_sm_input(c, sq.node, 1), x);
    if (!square && !mul) continue;
    m->members[m->n++] = sq.node;
    m->members[m->n++] = i;
    return x;
  }
  return none;
}

/* The tanh form's head: tanh(sqrt(2/pi) * (x + 0.044715 * x^3)). */
static bool head_tanh(const grt_opt_ctx* c, int32_t th, gelu_match* m) {
  int32_t t = grt_sm_input(c, th, 0).node;
  if (!grt_sm_inner(c, th, th) || !grt_sm_inner(c, t, th) || !grt_sm_is(c, t, "Mul")) return false;
  /* t = beta * u */
  grt_sm_value u = {-1, -1};
  float v;
  for (int32_t k = 0; k < 2 && u.node < 0; k++) {
    grt_sm_value o = grt_sm_input(c, t, 1 - k);
    if (o.port == 0 && grt_sm_const_scalar(c, o.node, &v) &&
        fabsf(v - 0.7978845608f) <= 1e-5f * 0.7978845608f)
      u = grt_sm_input(c, t, k);
  }
  if (u.node < 0 || u.port != 0 || !grt_sm_is_any(c, u.node, kAdd) || !grt_sm_inner(c, u.node, th))
    return false;
  m->members[m->n++] = t;
  m->members[m->n++] = u.node;
  /* u = x + kappa * x^3 (either order, kappa on either side) */
  for (int32_t k = 0; k < 2; k++) {
    grt_sm_value x = grt_sm_input(c, u.node, k), w = grt_sm_input(c, u.node, 1 - k);
    if (w.port != 0 || !grt_sm_is(c, w.node, "Mul") || !grt_sm_inner(c, w.node, th)) continue;
    for (int32_t s = 0; s < 2; s++) {
      grt_sm_value kap = grt_sm_input(c, w.node, 1 - s), x3 = grt_sm_input(c, w.node, s);
      if (kap.port != 0 || !grt_sm_const_scalar(c, kap.node, &v) ||
          fabsf(v - 0.044715f) > 1e-5f * 0.044715f || x3.port != 0)
        continue;
      gelu_match probe = *m;
      probe.members[probe.n++] = w.node;
      if (grt_sm_same(cube(c, x3.node, th, &probe), x)) {
        *m = probe;
        m->x = x;
        m->members[m->n++] = th;
        m->approximate = true;
        return true;
      }
    }
  }
  return false;
}

/* The exact form's head: erf(x / sqrt 2). */
static bool head_erf(const grt_opt_ctx* c, int32_t erf, gelu_match* m) {
  int32_t t = grt_sm_input(c, erf, 0).node;
  if (!grt_sm_inner(c, erf, erf) || !grt_sm_inner(c, t, erf)) return false;
  m->x = scaled_input(c, t);
  m->members[m->n++] = t;
  m->members[m->n++] = erf;
  m->approximate = false;
  return m->x.node >= 0;
}

/* The common tail from the Erf or Tanh node f: x * 0.5 * (1 + f). */
static bool tail(const grt_opt_ctx* c, int32_t f, gelu_match* m) {
  if (grt_opt_output_type(c, m->x.node, m->x.port) != GRT_FLOAT32) return false;
  grt_sm_value e = {f, 0};
  int32_t a = grt_sm_only_use(c, f);
  if (!grt_sm_is_any(c, a, kAdd) || !grt_sm_inner(c, a, f) ||
      !grt_sm_binary_const(c, a, e, 1.0f, 0.0f))
    return false;
  grt_sm_value av = {a, 0};
  int32_t p = grt_sm_only_use(c, a);
  if (!grt_sm_is(c, p, "Mul")) return false;
  grt_sm_value o = grt_sm_other(c, p, av);
  m->members[m->n++] = a;
  float half;
  if (grt_sm_same(o, m->x) || (o.port == 0 && grt_sm_const_scalar(c, o.node, &half))) {
    /* (x * a) * 0.5 or (a * 0.5) * x: p feeds the last Mul. */
    if (!grt_sm_inner(c, p, f)) return false;
    int32_t q = grt_sm_only_use(c, p);
    grt_sm_value pv = {p, 0};
    if (!grt_sm_is(c, q, "Mul")) return false;
    bool ok = grt_sm_same(o, m->x) ? grt_sm_binary_const(c, q, pv, 0.5f, 0.0f)
                                   : half == 0.5f && grt_sm_same(grt_sm_other(c, q, pv), m->x);
    if (!ok) return false;
    m->members[m->n++] = p;
    m->end = q;
  } else {
    /* (x * 0.5) * a: o is a Mul of x by a half read only here. */
    if (!grt_sm_is(c, o.node, "Mul") || o.port != 0 || !grt_sm_inner(c, o.node, f) ||
        !grt_sm_binary_const(c, o.node, m->x, 0.5f, 0.0f))
      return false;
    m->members[m->n++] = o.node;
    m->end = p;
  }
  const grt_node* end = grt_opt_node(c, m->end);
  return !grt_opt_is_fixed(c, m->end) && end->n_controls == 0 && end->sig.n_outputs == 1 &&
         strcmp(end->device, grt_opt_node(c, f)->device) == 0 &&
         grt_opt_has_kernel(grt_opt_device_type(c, f), "_Gelu", "T", GRT_FLOAT32);
}

static bool match(const grt_opt_ctx* c, int32_t i, gelu_match* m) {
  memset(m, 0, sizeof *m);
  if (grt_sm_is(c, i, "Erf")) return head_erf(c, i, m) && tail(c, i, m);
  if (grt_sm_is(c, i, "Tanh")) return head_tanh(c, i, m) && tail(c, i, m);
  return false;
}

grt_status* grt_opt_pass_gelu(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), fused = 0, tanh_form = 0;
  for (int32_t i = 0; i < n; i++) {
    gelu_match m;
    if (!match(c, i, &m)) continue;
    int32_t g;
    GRT_RETURN_IF_ERROR(grt_opt_add_node(c, m.end, "gelu", "_Gelu", &g));
    grt_graph* gr = grt_opt_graph(c);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, g, m.x.node, m.x.port));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(gr, g, "T", GRT_FLOAT32));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(gr, g, "approximate", m.approximate));
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, m.end, 0, g, 0, true, true));
    for (int32_t k = 0; k < m.n; k++) grt_opt_kill(c, m.members[k]);
    grt_opt_kill(c, m.end);
    grt_opt_take_name(c, g, m.end);
    fused++;
    tanh_form += m.approximate;
  }
  grt_opt_count(c, fused);
  if (fused)
    grt_opt_detail(c, "%d GELU chains (%d Erf form, %d tanh form) into _Gelu", (int)fused,
                   (int)(fused - tanh_form), (int)tanh_form);
  return NULL;
}
