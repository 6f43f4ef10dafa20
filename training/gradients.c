/* Symbolic gradients as a graph transformation (grt_graph_add_gradients),
 * TensorFlow's gradients_util: the ops between the xs and the ys are
 * visited from the ys back in reverse topological order; each op's output
 * gradients are summed (AddN) where several consumers contributed, and its
 * gradient function (ops/grad.h) turns them into its inputs' gradients.
 *
 * As in TensorFlow: an op on the way whose float inputs are not reached
 * from any x is a stop (its gradient function is not called); no gradient
 * enters an integer or bool tensor; a missing gradient of a float output
 * of an op that has some is zeros; an op with no gradient defined is an
 * error only when a gradient must pass through it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "ops/grad.h"
#include "ops/op_def.h"

typedef struct grad_list {
  grt_tref* v;
  int32_t n, cap;
} grad_list;

typedef struct engine {
  grt_graph* g;
  int32_t n_fwd;     /* the nodes before the transformation */
  int32_t* out_base; /* node -> index of its output 0 in lists/agg */
  grad_list* lists;  /* per forward output: the gradients that reached it */
  grt_tref* agg;     /* per forward output: their sum, or NONE */
  bool* between;     /* reached from an x and reaching a y */
  int32_t* order;    /* the between nodes, inputs before consumers */
  int32_t n_order;
  char* prefix;
  bool colocate;
} engine;

static grt_status* oom(void) {
  return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory adding gradients");
}

static bool is_float(grt_dtype t) {
  return t == GRT_FLOAT16 || t == GRT_BFLOAT16 || t == GRT_FLOAT32 || t == GRT_FLOAT64;
}

static void engine_free(engine* e) {
  if (e->lists)
    for (int32_t i = 0; i < e->out_base[e->n_fwd]; i++) grt_free(e->lists[i].v);
  grt_free(e->lists);
  grt_free(e->agg);
  grt_free(e->out_base);
  grt_free(e->between);
  grt_free(e->order);
  grt_free(e->prefix);
}

static bool push(grad_list* l, grt_tref t) {
  if (l->n == l->cap) {
    int32_t cap = l->cap ? l->cap * 2 : 2;
    grt_tref* v = grt_realloc(l->v, (size_t)cap * sizeof *v);
    if (!v) return false;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = t;
  return true;
}

/* "gradients", or "gradients_<k>" when a node already lives under it. */
static grt_status* choose_prefix(engine* e, const char* want) {
  const char* base = want && *want ? want : "gradients";
  grt_strbuf b = {0};
  grt_strbuf_puts(&b, base);
  for (int k = 1; !b.failed; k++) {
    bool used = false;
    for (int32_t i = 0; i < e->g->n_nodes && !used; i++) {
      const char* name = e->g->nodes[i].name;
      used = strncmp(name, b.s, b.len) == 0 && (name[b.len] == '/' || name[b.len] == 0);
    }
    if (!used) break;
    grt_strbuf_reset(&b);
    grt_strbuf_printf(&b, "%s_%d", base, k);
  }
  if (b.failed) {
    grt_strbuf_free(&b);
    return oom();
  }
  e->prefix = b.s;
  return NULL;
}

/* between[] and the topological order over it (Kahn's algorithm on data
 * edges). */
static grt_status* mark_between(engine* e, const grt_output* ys, int32_t n_ys, const grt_output* xs,
                                int32_t n_xs) {
  int32_t n = e->n_fwd;
  grt_status* s = NULL;
  int32_t *n_cons = grt_calloc((size_t)n + 1, sizeof *n_cons), *cons = NULL;
  int32_t* stack = grt_malloc(((size_t)n + 1) * sizeof *stack);
  int32_t* indeg = grt_calloc((size_t)n + 1, sizeof *indeg);
  bool *from_x = grt_calloc((size_t)n + 1, 1), *to_y = grt_calloc((size_t)n + 1, 1);
  e->between = grt_calloc((size_t)n + 1, 1);
  e->order = grt_malloc(((size_t)n + 1) * sizeof *e->order);
  if (!n_cons || !stack || !indeg || !from_x || !to_y || !e->between || !e->order) {
    s = oom();
    goto done;
  }
  /* consumer lists, compressed: node i's consumers at cons[n_cons[i]..] */
  int64_t edges = 0;
  for (int32_t i = 0; i < n; i++) edges += e->g->nodes[i].n_inputs;
  cons = grt_malloc(((size_t)edges + 1) * sizeof *cons);
  if (!cons) {
    s = oom();
    goto done;
  }
  for (int32_t i = 0; i < n; i++)
    for (int32_t k = 0; k < e->g->nodes[i].n_inputs; k++)
      n_cons[e->g->nodes[i].inputs[k].src + 1]++;
  for (int32_t i = 0; i < n; i++) n_cons[i + 1] += n_cons[i];
  for (int32_t i = 0; i < n; i++)
    for (int32_t k = 0; k < e->g->nodes[i].n_inputs; k++)
      cons[indeg[e->g->nodes[i].inputs[k].src]++ + n_cons[e->g->nodes[i].inputs[k].src]] = i;
  /* forward from the xs */
  int32_t top = 0;
  for (int32_t j = 0; j < n_xs; j++)
    if (!from_x[xs[j].node]) from_x[stack[top++] = xs[j].node] = true;
  while (top > 0) {
    int32_t v = stack[--top];
    for (int32_t c = n_cons[v]; c < n_cons[v + 1]; c++)
      if (!from_x[cons[c]]) from_x[stack[top++] = cons[c]] = true;
  }
  /* backward from the ys */
  for (int32_t j = 0; j < n_ys; j++)
    if (!to_y[ys[j].node]) to_y[stack[top++] = ys[j].node] = true;
  while (top > 0) {
    const grt_node* v = &e->g->nodes[stack[--top]];
    for (int32_t k = 0; k < v->n_inputs; k++)
      if (!to_y[v->inputs[k].src]) to_y[stack[top++] = v->inputs[k].src] = true;
  }
  for (int32_t i = 0; i < n; i++) e->between[i] = from_x[i] && to_y[i];
  /* topological order of the between nodes */
  memset(indeg, 0, (size_t)n * sizeof *indeg);
  for (int32_t i = 0; i < n; i++)
    if (e->between[i])
      for (int32_t k = 0; k < e->g->nodes[i].n_inputs; k++)
        indeg[i] += e->between[e->g->nodes[i].inputs[k].src];
  for (int32_t i = 0; i < n; i++)
    if (e->between[i] && indeg[i] == 0) stack[top++] = i;
  while (top > 0) {
    int32_t v = stack[--top];
    e->order[e->n_order++] = v;
    for (int32_t c = n_cons[v]; c < n_cons[v + 1]; c++)
      if (e->between[cons[c]] && --indeg[cons[c]] == 0) stack[top++] = cons[c];
  }
done:
  grt_free(n_cons);
  grt_free(cons);
  grt_free(stack);
  grt_free(indeg);
  grt_free(from_x);
  grt_free(to_y);
  return s;
}

/* A builder for node `fwd`'s gradient, named under "<prefix>/<scope>". */
static grt_status* builder_init(engine* e, grt_grad_builder* b, int32_t fwd, const char* scope) {
  memset(b, 0, sizeof *b);
  b->g = e->g;
  b->fwd = fwd;
  grt_strbuf name = {0};
  grt_strbuf_printf(&name, "%s/%s", e->prefix, scope);
  if (name.failed) {
    grt_strbuf_free(&name);
    return oom();
  }
  b->scope = name.s;
  if (e->colocate) {
    const grt_node* n = &e->g->nodes[fwd];
    b->colocate_one = n->name;
    b->colocate = n->n_colocate > 0 ? n->colocate_with : &b->colocate_one;
    b->n_colocate = n->n_colocate > 0 ? n->n_colocate : 1;
  }
  return NULL;
}

static grt_status* builder_done(grt_grad_builder* b, const char* what) {
  grt_free((char*)b->scope);
  grt_status* s = b->status;
  return s ? grt_status_prefix(s, "%s", what) : NULL;
}

/* The sum of what reached output `k` of `node`. */
static grt_tref aggregate(grt_grad_builder* b, grad_list* l) {
  if (l->n == 0) return GRT_TREF_NONE;
  if (l->n == 1) return l->v[0];
  int32_t s = grt_gb_add(b, "AddN", l->v, l->n);
  grt_gb_set_type(b, s, "T", l->v[0].dtype);
  grt_gb_set_int(b, s, "N", l->n);
  return grt_gb_ref(s, 0, l->v[0].dtype);
}

static grt_status* backprop_node(engine* e, int32_t v) {
  /* a copy: the node array moves as nodes are added, while what the node
   * points to (its inputs, signature, names) stays in the graph's arena */
  const grt_node snapshot = e->g->nodes[v];
  const grt_node* n = &snapshot;
  int32_t base = e->out_base[v], n_out = n->sig.n_outputs;
  grt_status* s;
  grt_strbuf scope = {0};
  grt_strbuf_printf(&scope, "%s_grad", n->name);
  if (scope.failed) return oom();
  grt_grad_builder b;
  s = builder_init(e, &b, v, scope.s);
  grt_strbuf_free(&scope);
  if (s) return s;
  bool any = false;
  for (int32_t k = 0; k < n_out; k++) {
    e->agg[base + k] = aggregate(&b, &e->lists[base + k]);
    any = any || grt_tref_ok(e->agg[base + k]);
  }
  /* a stop: none of its float inputs comes from an x */
  bool reached = false;
  for (int32_t i = 0; i < n->n_inputs; i++)
    reached = reached || (e->between[n->inputs[i].src] && is_float(n->sig.input_types[i]));
  const grt_grad_entry* row = n->def ? n->def->grad : NULL;
  if (!b.status && any && reached && !row)
    grt_gb_fail(&b, GRT_UNIMPLEMENTED,
                "no gradient is defined for op %s (node '%s'), which lies between the "
                "variables and the loss",
                n->op, n->name);
  if (b.status || !any || !reached || !row->fn) return builder_done(&b, "adding gradients");

  grt_tref* dy = grt_calloc((size_t)n_out + 1, sizeof *dy);
  bool* has_dy = grt_calloc((size_t)n_out + 1, sizeof *has_dy);
  grt_tref* dx = grt_calloc((size_t)n->n_inputs + 1, sizeof *dx);
  if (!dy || !has_dy || !dx) {
    grt_gb_fail(&b, GRT_RESOURCE_EXHAUSTED, "out of memory adding gradients");
  } else {
    for (int32_t k = 0; k < n_out; k++) {
      has_dy[k] = grt_tref_ok(e->agg[base + k]);
      dy[k] = e->agg[base + k];
      if (!has_dy[k] && is_float(n->sig.output_types[k]))
        dy[k] = grt_gb_unary(&b, "ZerosLike", grt_gb_output(&b, k));
    }
    for (int32_t i = 0; i < n->n_inputs; i++) dx[i] = GRT_TREF_NONE;
    b.has_dy = has_dy;
    if (!b.status) row->fn(&b, dy, dx);
    for (int32_t i = 0; !b.status && i < n->n_inputs; i++) {
      int32_t src = n->inputs[i].src;
      if (!grt_tref_ok(dx[i]) || !e->between[src] || !is_float(n->sig.input_types[i])) continue;
      if (!push(&e->lists[e->out_base[src] + n->inputs[i].port], dx[i]))
        grt_gb_fail(&b, GRT_RESOURCE_EXHAUSTED, "out of memory adding gradients");
    }
  }
  grt_free(dy);
  grt_free(has_dy);
  grt_free(dx);
  return builder_done(&b, "adding gradients");
}

static grt_status* check_output(const grt_graph* g, const char* what, int32_t j, grt_output o) {
  if (o.node < 0 || o.node >= g->n_nodes)
    return GRT_ERROR(OUT_OF_RANGE, "adding gradients: %s[%d] names node %d (the graph has %d)",
                     what, (int)j, (int)o.node, (int)g->n_nodes);
  const grt_node* n = &g->nodes[o.node];
  if (o.port < 0 || o.port >= n->sig.n_outputs)
    return GRT_ERROR(OUT_OF_RANGE, "adding gradients: %s[%d]: node '%s' has no output %d", what,
                     (int)j, n->name, (int)o.port);
  return NULL;
}

static grt_status* seed(engine* e, const grt_output* ys, int32_t n_ys, const grt_output* dys) {
  for (int32_t j = 0; j < n_ys; j++) {
    const grt_node* y = &e->g->nodes[ys[j].node];
    grt_dtype t = y->sig.output_types[ys[j].port];
    if (!is_float(t))
      return GRT_ERROR(INVALID_ARGUMENT, "adding gradients: y '%s:%d' is %s, not a float tensor",
                       y->name, (int)ys[j].port, grt_dtype_name(t));
    if (!e->between[ys[j].node]) continue;
    grt_tref dy;
    if (dys) {
      const grt_node* d = &e->g->nodes[dys[j].node];
      dy = (grt_tref){dys[j].node, dys[j].port, d->sig.output_types[dys[j].port]};
      if (dy.dtype != t)
        return GRT_ERROR(INVALID_ARGUMENT, "adding gradients: dy '%s:%d' is %s but y '%s' is %s",
                         d->name, (int)dys[j].port, grt_dtype_name(dy.dtype), y->name,
                         grt_dtype_name(t));
    } else {
      grt_grad_builder b;
      GRT_RETURN_IF_ERROR(builder_init(e, &b, ys[j].node, "grad_ys"));
      dy = grt_gb_unary(&b, "OnesLike", grt_gb_output(&b, ys[j].port));
      GRT_RETURN_IF_ERROR(builder_done(&b, "adding gradients"));
    }
    if (!push(&e->lists[e->out_base[ys[j].node] + ys[j].port], dy)) return oom();
  }
  return NULL;
}

static grt_status* run(engine* e, const char* prefix, const grt_output* ys, int32_t n_ys,
                       const grt_output* xs, int32_t n_xs, const grt_output* dys, grt_output* dx) {
  grt_graph* g = e->g;
  for (int32_t j = 0; j < n_ys; j++) {
    GRT_RETURN_IF_ERROR(check_output(g, "ys", j, ys[j]));
    if (dys) GRT_RETURN_IF_ERROR(check_output(g, "dys", j, dys[j]));
  }
  for (int32_t j = 0; j < n_xs; j++) GRT_RETURN_IF_ERROR(check_output(g, "xs", j, xs[j]));
  GRT_RETURN_IF_ERROR(choose_prefix(e, prefix));
  e->out_base = grt_malloc(((size_t)e->n_fwd + 1) * sizeof *e->out_base);
  if (!e->out_base) return oom();
  e->out_base[0] = 0;
  for (int32_t i = 0; i < e->n_fwd; i++)
    e->out_base[i + 1] = e->out_base[i] + g->nodes[i].sig.n_outputs;
  size_t n_out = (size_t)e->out_base[e->n_fwd] + 1;
  e->lists = grt_calloc(n_out, sizeof *e->lists);
  e->agg = grt_malloc(n_out * sizeof *e->agg);
  if (!e->lists || !e->agg) return oom();
  for (size_t i = 0; i < n_out; i++) e->agg[i] = GRT_TREF_NONE;
  GRT_RETURN_IF_ERROR(mark_between(e, ys, n_ys, xs, n_xs));
  GRT_RETURN_IF_ERROR(seed(e, ys, n_ys, dys));
  for (int32_t k = e->n_order - 1; k >= 0; k--) GRT_RETURN_IF_ERROR(backprop_node(e, e->order[k]));
  for (int32_t j = 0; j < n_xs; j++) {
    grt_tref t = e->agg[e->out_base[xs[j].node] + xs[j].port];
    dx[j] = grt_tref_ok(t) ? (grt_output){t.node, t.port} : (grt_output){-1, -1};
  }
  return grt_status_prefix(grt_graph_validate(g), "the graph with its gradients");
}

grt_status* grt_graph_add_gradients(grt_graph* g, const char* prefix, const grt_output* ys,
                                    int32_t n_ys, const grt_output* xs, int32_t n_xs,
                                    const grt_output* dys, bool colocate_gradients_with_ops,
                                    grt_output* dx) {
  if (!g || n_ys < 0 || n_xs < 0 || (n_ys > 0 && !ys) || (n_xs > 0 && (!xs || !dx)))
    return GRT_ERROR(INVALID_ARGUMENT, "adding gradients: NULL graph, ys, xs or dx");
  GRT_RETURN_IF_ERROR(grt_status_prefix(grt_graph_validate(g), "adding gradients"));
  grt_graph_mark mark;
  GRT_RETURN_IF_ERROR(grt_status_prefix(grt_graph_mark_take(g, &mark), "adding gradients"));
  engine e = {0};
  e.g = g;
  e.n_fwd = g->n_nodes;
  e.colocate = colocate_gradients_with_ops;
  grt_status* s = run(&e, prefix, ys, n_ys, xs, n_xs, dys, dx);
  engine_free(&e);
  if (s) {
    grt_graph_mark_rollback(g, &mark);
    for (int32_t j = 0; j < n_xs; j++) dx[j] = (grt_output){-1, -1};
  }
  grt_graph_mark_release(&mark);
  return s;
}
