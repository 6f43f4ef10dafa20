/* A whole training step (grt_graph_add_train_step, behind grt
 * train-graph): the loss reduced by its mean when it is not a scalar, its
 * gradients with respect to the variables, the optimizer's updates under a
 * NoOp `train`, and a NoOp `init` for every variable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "ops/op_def.h"
#include "training/build.h"
#include "grt/training.h"

static grt_status* resolve_loss(grt_graph* g, const char* name, grt_output* out) {
  const char* src;
  size_t len;
  int32_t port;
  bool control;
  if (!name || !grt_parse_input_spec(name, &src, &len, &port, &control) || control)
    return GRT_ERROR(INVALID_ARGUMENT, "loss '%s' is not a tensor name (\"node\" or \"node:k\")",
                     name ? name : "(null)");
  int32_t node = grt_strmap_getn(&g->by_name, src, len);
  if (node < 0) return GRT_ERROR(NOT_FOUND, "loss '%s': the graph has no such node", name);
  const grt_node* n = &g->nodes[node];
  if (port >= n->sig.n_outputs)
    return GRT_ERROR(OUT_OF_RANGE, "loss '%s': node '%s' has %d outputs", name, n->name,
                     (int)n->sig.n_outputs);
  grt_dtype t = n->sig.output_types[port];
  if (t != GRT_FLOAT16 && t != GRT_BFLOAT16 && t != GRT_FLOAT32 && t != GRT_FLOAT64)
    return GRT_ERROR(INVALID_ARGUMENT, "loss '%s' is %s, not a float tensor", name,
                     grt_dtype_name(t));
  *out = (grt_output){node, port};
  return NULL;
}

/* mean(reshape(loss, [-1])): the mean over every element whatever the rank
 * (which may only be known at run time). */
static grt_output mean_of(grt_tb* b, grt_output loss) {
  grt_dtype t = b->g->nodes[loss.node].sig.output_types[loss.port];
  char* name = grt_tb_unique(b, "loss_mean");
  if (!name) return (grt_output){-1, -1};
  char sub[1024];
  int64_t flat = -1, zero = 0;
  snprintf(sub, sizeof sub, "%s/flat_shape", name);
  int32_t shape = grt_tb_ints(b, sub, &flat, 1);
  int32_t r = grt_tb_node(b, "Reshape", "%s/flat", name);
  grt_tb_type(b, r, "T", t);
  grt_tb_input(b, r, loss.node, loss.port);
  grt_tb_input(b, r, shape, 0);
  snprintf(sub, sizeof sub, "%s/axis", name);
  int32_t axis = grt_tb_ints(b, sub, &zero, 1);
  int32_t m = grt_tb_node(b, "Mean", "%s", name);
  grt_tb_type(b, m, "T", t);
  grt_tb_input(b, m, r, 0);
  grt_tb_input(b, m, axis, 0);
  grt_free(name);
  return (grt_output){m, 0};
}

/* The variables the loss depends on through data edges, in node order. */
static grt_status* reachable_variables(grt_graph* g, int32_t from, int32_t** out, int32_t* n_out) {
  int32_t n = g->n_nodes, top = 0, count = 0;
  bool* seen = grt_calloc((size_t)n + 1, 1);
  int32_t* stack = grt_malloc(((size_t)n + 1) * sizeof *stack);
  int32_t* vars = grt_malloc(((size_t)n + 1) * sizeof *vars);
  if (!seen || !stack || !vars) {
    grt_free(seen);
    grt_free(stack);
    grt_free(vars);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory finding the variables");
  }
  seen[from] = true;
  stack[top++] = from;
  while (top > 0) {
    const grt_node* v = &g->nodes[stack[--top]];
    for (int32_t k = 0; k < v->n_inputs; k++)
      if (!seen[v->inputs[k].src]) seen[stack[top++] = v->inputs[k].src] = true;
  }
  for (int32_t i = 0; i < n; i++)
    if (seen[i] && g->nodes[i].def && (g->nodes[i].def->flags & GRT_OP_VARIABLE)) vars[count++] = i;
  grt_free(seen);
  grt_free(stack);
  *out = vars;
  *n_out = count;
  return NULL;
}

static grt_status* named_variables(grt_graph* g, const grt_train_options* o, int32_t** out) {
  int32_t* vars = grt_malloc(((size_t)o->n_vars + 1) * sizeof *vars);
  if (!vars) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < o->n_vars; i++) {
    vars[i] = grt_graph_find_node(g, o->vars[i]);
    const grt_node* v = vars[i] >= 0 ? &g->nodes[vars[i]] : NULL;
    if (!v || !v->def || !(v->def->flags & GRT_OP_VARIABLE)) {
      grt_free(vars);
      return v ? GRT_ERROR(INVALID_ARGUMENT, "--vars: node '%s' (%s) is not a variable", v->name,
                           v->op)
               : GRT_ERROR(NOT_FOUND, "--vars: the graph has no node named '%s'", o->vars[i]);
    }
  }
  *out = vars;
  return NULL;
}

static grt_status* build(grt_graph* g, const grt_train_options* o, int32_t** vars_out,
                         grt_output** grads_out) {
  grt_output loss;
  GRT_RETURN_IF_ERROR(resolve_loss(g, o->loss, &loss));
  const grt_shape* shape = &g->nodes[loss.node].sig.output_shapes[loss.port];
  if (shape->rank != 0) {
    grt_tb b = {g, NULL};
    loss = mean_of(&b, loss);
    GRT_RETURN_IF_ERROR(b.status);
    GRT_RETURN_IF_ERROR(grt_graph_validate(g));
  }
  int32_t *vars = NULL, n = o->n_vars;
  GRT_RETURN_IF_ERROR(n > 0 ? named_variables(g, o, &vars)
                            : reachable_variables(g, loss.node, &vars, &n));
  *vars_out = vars;
  grt_output* xs = grt_malloc(((size_t)n + 1) * sizeof *xs);
  grt_output* dx = grt_malloc(((size_t)n + 1) * sizeof *dx);
  *grads_out = dx;
  if (!xs || !dx) {
    grt_free(xs);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory adding the gradients");
  }
  for (int32_t i = 0; i < n; i++) xs[i] = (grt_output){vars[i], 0};
  grt_status* s = grt_graph_add_gradients(g, "gradients", &loss, 1, xs, n, NULL,
                                          o->colocate_gradients_with_ops, dx);
  grt_free(xs);
  GRT_RETURN_IF_ERROR(s);
  /* named variables must be reached; found ones without a gradient (behind a
   * StopGradient) are left alone, as TensorFlow's minimize does */
  int32_t kept = 0;
  for (int32_t i = 0; i < n; i++) {
    if (dx[i].node < 0 && o->n_vars > 0)
      return GRT_ERROR(INVALID_ARGUMENT, "no gradient reaches variable '%s' from the loss '%s'",
                       g->nodes[vars[i]].name, o->loss);
    if (dx[i].node < 0) continue;
    vars[kept] = vars[i];
    dx[kept++] = dx[i];
  }
  if (kept == 0)
    return GRT_ERROR(INVALID_ARGUMENT, "no gradient reaches any variable from the loss '%s'",
                     o->loss);
  GRT_RETURN_IF_ERROR(grt_graph_apply_gradients(g, &o->optimizer, vars, dx, kept, o->train_name));
  return grt_graph_add_init(g, o->init_name ? o->init_name : "init");
}

grt_status* grt_graph_add_train_step(grt_graph* g, const grt_train_options* o) {
  if (!g || !o) return GRT_ERROR(INVALID_ARGUMENT, "adding a train step: NULL graph or options");
  GRT_RETURN_IF_ERROR(grt_status_prefix(grt_graph_validate(g), "adding a train step"));
  grt_graph_mark mark;
  GRT_RETURN_IF_ERROR(grt_status_prefix(grt_graph_mark_take(g, &mark), "adding a train step"));
  int32_t* vars = NULL;
  grt_output* grads = NULL;
  grt_status* s = build(g, o, &vars, &grads);
  grt_free(vars);
  grt_free(grads);
  if (s) grt_graph_mark_rollback(g, &mark);
  grt_graph_mark_release(&mark);
  return s;
}
