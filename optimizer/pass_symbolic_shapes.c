/* Pass "symbolic_shapes": the shape arithmetic an ONNX export writes
 * around every Reshape (Shape -> Gather -> ExpandDims -> Concat, Equal ->
 * Select, Slice, TruncateDiv...) computed before run time although the
 * batch is unknown (symbolic.h: the batch is a symbol S, carried through
 * the graph). Two rewrites:
 *
 *   (a) a small integer output whose elements are all constants, whatever
 *       S is, becomes a Const (those that only other such outputs read
 *       simply go);
 *   (b) Reshape(x, t) whose target is constant but for one entry c*S
 *       becomes Reshape(x, t') with -1 there, when x's element count is
 *       C*S with C = c * (the product of t's other entries, all > 0): then
 *       for every S the kernel solves the -1 to C*S / product = c*S, the
 *       entry it replaces (S = 0 included: 0 / product = 0). The chain
 *       that computed t then dies. The entry may also be c*S that is a
 *       constant z != 0 at S = 0 (ONNX's 0-copy picking another dim:
 *       sym_reshape_entry), where the written graph fails at S = 0 or
 *       solves to the same.
 *
 * Constant folding cannot do either: Shape of a tensor with an unknown
 * batch has no value before run time, so nothing after it folds.
 *
 * A rewritten value no longer reads the nodes it was computed from; every
 * node it depended on (up to, not including, the Placeholders, whose
 * batch is the symbol) is marked unsafe to feed, so a run feeding one of
 * them is served by the user's graph. */
#include <string.h>

#include "base/checked.h"
#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "optimizer/passes.h"
#include "optimizer/symbolic.h"

static bool is_feed_point(const char* op) {
  return !strcmp(op, "Placeholder") || !strcmp(op, "PlaceholderWithDefault");
}

/* Whether node i may be replaced by a Const of its value. */
static bool replaceable(const sym_graph* g, int32_t i) {
  grt_opt_ctx* c = g->c;
  const grt_node* n = grt_opt_node(c, i);
  if (grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) || n->n_controls > 0) return false;
  if (n->sig.n_outputs != 1 || n->n_inputs == 0 || is_feed_point(n->op)) return false;
  return !grt_opt_const_value(c, i) && sym_values_known(sym_graph_out(g, i, 0));
}

/* Node i's value as a tensor: its dims are constants where its values
 * are tracked (the static shape may not have known them all). */
static grt_status* const_of(const sym_graph* g, int32_t i, grt_tensor** out) {
  const sym_out* o = sym_graph_out(g, i, 0);
  grt_dtype t = grt_opt_output_type(g->c, i, 0);
  int64_t dims[GRT_MAX_RANK];
  for (int32_t d = 0; d < o->rank; d++) dims[d] = o->dims[d].c;
  GRT_RETURN_IF_ERROR(grt_tensor_new(t, o->rank, dims, out));
  for (int32_t k = 0; k < o->n_values; k++)
    grt_dtype_store_int(t, grt_tensor_data(*out), k, o->values[k].c);
  return NULL;
}

/* (a): known values read by a node whose value is not known. */
static grt_status* replace_known(sym_graph* g, bool* known, bool* touched, int32_t* count) {
  grt_opt_ctx* c = g->c;
  for (int32_t i = 0; i < g->n; i++) known[i] = replaceable(g, i);
  for (int32_t i = 0; i < g->n; i++) {
    if (!known[i]) continue;
    const grt_opt_use* u = NULL;
    int32_t nu = grt_opt_uses(c, i, 0, &u);
    bool frontier = false;
    for (int32_t k = 0; k < nu && !frontier; k++) frontier = !known[u[k].node];
    grt_dtype t = grt_opt_output_type(c, i, 0);
    if (!frontier || !grt_opt_has_kernel(grt_opt_device_type(c, i), "Const", "dtype", t)) continue;
    grt_tensor* v = NULL;
    GRT_RETURN_IF_ERROR(const_of(g, i, &v));
    int32_t k = -1;
    grt_status* st = grt_opt_add_const(c, i, "known", v, &k);
    grt_tensor_free(v);
    if (st) return st;
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, k, 0, true, true));
    grt_opt_kill(c, i);
    grt_opt_take_name(c, k, i);
    touched[i] = true;
    (*count)++;
  }
  return NULL;
}

/* (b) for Reshape i: the index of the one symbolic target entry, or -1. */
static int32_t solvable_entry(const sym_graph* g, int32_t i) {
  const sym_out* x = sym_input(g, i, 0);
  const sym_out* t = sym_input(g, i, 1);
  if (!x || !t || x->rank < 0 || t->n_values < 1 || sym_values_known(t)) return -1;
  int32_t at = -1;
  int64_t product = 1;
  for (int32_t d = 0; d < t->n_values; d++) {
    sym v = sym_reshape_entry(x, t, d);
    if (v.kind == SYM_SCALED && at < 0) {
      at = d;
      continue;
    }
    /* A -1 or 0 of its own, a second symbol, an unknown: not this rule. */
    if (v.kind != SYM_CONST || v.c <= 0 || !grt_checked_mul_i64(product, v.c, &product)) return -1;
  }
  if (at < 0) return -1;
  sym all = sym_const(1);
  for (int32_t d = 0; d < x->rank; d++) all = sym_mul(all, x->dims[d]);
  sym want = sym_mul(sym_reshape_entry(x, t, at), sym_const(product));
  return all.kind == SYM_SCALED && sym_equal(all, want) ? at : -1;
}

static grt_status* give_minus_one(sym_graph* g, int32_t i, int32_t at) {
  grt_opt_ctx* c = g->c;
  const sym_out* t = sym_input(g, i, 1);
  int32_t port = 0, tport = 0;
  int32_t x = grt_opt_input_node(c, i, 0, &port);
  int32_t src = grt_opt_input_node(c, i, 1, &tport);
  grt_dtype dt = grt_opt_output_type(c, src, tport);
  int64_t len = t->n_values;
  grt_tensor* v = NULL;
  GRT_RETURN_IF_ERROR(grt_tensor_new(dt, 1, &len, &v));
  for (int32_t d = 0; d < t->n_values; d++)
    grt_dtype_store_int(dt, grt_tensor_data(v), d, d == at ? -1 : t->values[d].c);
  int32_t k = -1, r = -1;
  grt_status* st = grt_opt_add_const(c, i, "shape", v, &k);
  grt_tensor_free(v);
  if (st) return st;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, i, "solved", "Reshape", &r));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, r, x, port));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, r, k, 0));
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, r, i, NULL));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, r, 0, true, true));
  grt_opt_kill(c, i);
  grt_opt_take_name(c, r, i);
  return NULL;
}

static grt_status* solve_reshapes(sym_graph* g, bool* touched, int32_t* count) {
  grt_opt_ctx* c = g->c;
  for (int32_t i = 0; i < g->n; i++) {
    const grt_node* n = grt_opt_node(c, i);
    if (strcmp(n->op, "Reshape") != 0 || grt_opt_is_dead(c, i) || n->n_controls > 0) continue;
    int32_t tport = 0;
    int32_t src = grt_opt_input_node(c, i, 1, &tport);
    grt_dtype dt = src >= 0 ? grt_opt_output_type(c, src, tport) : GRT_DTYPE_INVALID;
    if (dt != GRT_INT32 && dt != GRT_INT64) continue;
    if (!grt_opt_has_kernel(grt_opt_device_type(c, i), "Const", "dtype", dt)) continue;
    int32_t at = solvable_entry(g, i);
    if (at < 0) continue;
    GRT_RETURN_IF_ERROR(give_minus_one(g, i, at));
    touched[i] = true;
    (*count)++;
  }
  return NULL;
}

/* Every node the rewritten ones depended on, up to the feed points, is
 * unsafe to feed: its value (or shape) was used ahead of time. */
static grt_status* mark_sources(sym_graph* g, const bool* touched) {
  grt_opt_ctx* c = g->c;
  bool* seen = grt_calloc((size_t)g->n + 1, sizeof *seen);
  int32_t* stack = grt_calloc((size_t)g->n + 1, sizeof *stack);
  if (!seen || !stack) {
    grt_free(seen);
    grt_free(stack);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  int32_t top = 0;
  for (int32_t i = 0; i < g->n; i++)
    if (touched[i]) stack[top++] = i, seen[i] = true;
  while (top > 0) {
    int32_t i = stack[--top];
    const grt_node* n = grt_opt_node(c, i);
    for (int32_t k = 0; k < n->n_inputs; k++) {
      int32_t s = n->inputs[k].src;
      if (s < 0 || s >= g->n || seen[s]) continue;
      seen[s] = true;
      if (is_feed_point(grt_opt_node(c, s)->op)) continue;
      grt_opt_mark_feed_unsafe(c, s);
      stack[top++] = s;
    }
  }
  grt_free(seen);
  grt_free(stack);
  return NULL;
}

grt_status* grt_opt_pass_symbolic_shapes(grt_opt_ctx* c) {
  sym_graph g;
  grt_status* st = sym_graph_build(c, &g);
  bool* known = grt_calloc((size_t)g.n + 1, sizeof *known);
  bool* touched = grt_calloc((size_t)g.n + 1, sizeof *touched);
  if (!st && (!known || !touched)) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  int32_t n_known = 0, n_solved = 0;
  if (!st) st = replace_known(&g, known, touched, &n_known);
  if (!st) st = solve_reshapes(&g, touched, &n_solved);
  if (!st && n_known + n_solved > 0) st = mark_sources(&g, touched);
  if (!st) {
    grt_opt_count(c, n_known + n_solved);
    grt_opt_detail(c, "%d values known, %d Reshapes given a -1 (%d symbols)", n_known, n_solved,
                   g.n_symbols);
  }
  sym_graph_free(&g);
  grt_free(known);
  grt_free(touched);
  return st;
}
