/* The walk of symbolic.h over a graph: every output starts from grt's
 * static shape (a fresh symbol for each unknown dim, a Const's value),
 * then, in an order where each node comes after its inputs, the dims
 * rules (symbolic_dims.c) and the value rules (symbolic_values.c) narrow
 * it. */
#include <string.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "optimizer/symbolic.h"

const sym_out* sym_graph_out(const sym_graph* g, int32_t node, int32_t port) {
  if (node < 0 || node >= g->n || port < 0 || port >= grt_opt_node(g->c, node)->sig.n_outputs)
    return NULL;
  return &g->out[g->slot[node] + port];
}

const sym_out* sym_input(const sym_graph* g, int32_t i, int32_t k) {
  int32_t port = 0;
  int32_t src = grt_opt_input_node(g->c, i, k, &port);
  return src >= 0 ? sym_graph_out(g, src, port) : NULL;
}

/* Values are tracked for small integer and bool tensors of known shape. */
static void track_values(sym_graph* g, int32_t i, int32_t port, sym_out* o) {
  grt_dtype t = grt_opt_output_type(g->c, i, port);
  if (t != GRT_INT32 && t != GRT_INT64 && t != GRT_BOOL) return;
  int64_t count = o->rank >= 0 ? 1 : -1;
  for (int32_t d = 0; d < o->rank && count >= 0; d++)
    count = o->dims[d].kind == SYM_CONST ? count * o->dims[d].c : -1;
  if (count < 0 || count > SYM_MAX_VALUES) return;
  o->n_values = (int32_t)count;
  for (int32_t k = 0; k < o->n_values; k++) o->values[k] = sym_unknown();
}

/* The static shape, each unknown dim a fresh symbol; values unknown but
 * a Const's. */
static void start_out(sym_graph* g, int32_t i, int32_t port, sym_out* o) {
  const grt_shape* s = grt_opt_output_shape(g->c, i, port);
  o->rank = s ? s->rank : -1;
  o->n_values = -1;
  for (int32_t d = 0; d < o->rank; d++)
    o->dims[d] = s->dims[d] >= 0 ? sym_const(s->dims[d]) : (sym){SYM_SCALED, g->n_symbols++, 1, 0};
  grt_dtype t = grt_opt_output_type(g->c, i, port);
  track_values(g, i, port, o);
  int64_t count = o->n_values;
  if (count < 0) return;
  const grt_tensor* v = grt_opt_const_value(g->c, i);
  if (!v || grt_tensor_num_elements(v) != count) return;
  for (int32_t k = 0; k < o->n_values; k++)
    o->values[k] = sym_const(grt_dtype_load_int(t, grt_tensor_data(v), k));
}

/* Nodes in an order where each comes after its data inputs (Kahn's);
 * nodes on a cycle (a while loop) are left out and keep their start. */
static grt_status* order(const sym_graph* g, int32_t* out, int32_t* n_out) {
  int32_t* pending = grt_calloc((size_t)g->n + 1, sizeof *pending);
  if (!pending) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  int32_t m = 0;
  for (int32_t i = 0; i < g->n; i++) {
    pending[i] = grt_opt_node(g->c, i)->n_inputs;
    if (pending[i] == 0) out[m++] = i;
  }
  for (int32_t h = 0; h < m; h++) {
    int32_t i = out[h];
    for (int32_t p = 0; p < grt_opt_node(g->c, i)->sig.n_outputs; p++) {
      const grt_opt_use* u = NULL;
      int32_t nu = grt_opt_uses(g->c, i, p, &u);
      for (int32_t k = 0; k < nu; k++)
        if (--pending[u[k].node] == 0) out[m++] = u[k].node;
    }
  }
  grt_free(pending);
  *n_out = m;
  return NULL;
}

grt_status* sym_graph_build(grt_opt_ctx* c, sym_graph* g) {
  memset(g, 0, sizeof *g);
  g->c = c;
  g->n = grt_opt_num_nodes(c);
  g->slot = grt_calloc((size_t)g->n + 1, sizeof *g->slot);
  int32_t slots = 0;
  for (int32_t i = 0; g->slot && i < g->n; i++) {
    g->slot[i] = slots;
    slots += grt_opt_node(c, i)->sig.n_outputs;
  }
  g->out = grt_calloc((size_t)slots + 1, sizeof *g->out);
  int32_t* seq = grt_calloc((size_t)g->n + 1, sizeof *seq);
  if (!g->slot || !g->out || !seq) {
    grt_free(seq);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int32_t i = 0; i < g->n; i++)
    for (int32_t p = 0; p < grt_opt_node(c, i)->sig.n_outputs; p++)
      start_out(g, i, p, &g->out[g->slot[i] + p]);
  int32_t m = 0;
  grt_status* st = order(g, seq, &m);
  for (int32_t h = 0; h < m && !st; h++) {
    int32_t i = seq[h];
    if (grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i)) continue;
    for (int32_t p = 0; p < grt_opt_node(c, i)->sig.n_outputs && !st; p++) {
      sym_out* o = &g->out[g->slot[i] + p];
      st = sym_infer_dims(g, i, p, o);
      if (!st && o->n_values < 0) track_values(g, i, p, o);
      if (!st && o->n_values >= 0 && !grt_opt_const_value(c, i)) sym_infer_values(g, i, p, o);
    }
  }
  grt_free(seq);
  return st;
}

void sym_graph_free(sym_graph* g) {
  grt_free(g->slot);
  grt_free(g->out);
  g->slot = NULL;
  g->out = NULL;
}
