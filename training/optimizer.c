/* Optimizers as graph transformations (grt_graph_apply_gradients):
 * TensorFlow's GradientDescentOptimizer, MomentumOptimizer and
 * AdamOptimizer, with their slot variables, hyperparameter constants,
 * Apply* update ops, Adam's beta powers, and a NoOp that runs a step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "ops/op_def.h"
#include "training/build.h"
#include "grt/training.h"

/* What differs between the optimizers, as data. */
typedef struct optimizer_kind {
  const char* name;  /* the --optimizer value */
  const char* scope; /* TensorFlow's default optimizer name */
  const char* apply; /* the update op */
  const char* slots[2];
} optimizer_kind;

static const optimizer_kind kKinds[] = {
    {"sgd", "GradientDescent", "ApplyGradientDescent", {NULL, NULL}},
    {"momentum", "Momentum", "ApplyMomentum", {"Momentum", NULL}},
    {"adam", "Adam", "ApplyAdam", {"Adam", "Adam_1"}},
};

static const optimizer_kind* find_kind(const char* name) {
  for (size_t i = 0; name && i < sizeof kKinds / sizeof kKinds[0]; i++)
    if (strcmp(kKinds[i].name, name) == 0) return &kKinds[i];
  return NULL;
}

void grt_optimizer_defaults(grt_optimizer* o, const char* name, double learning_rate) {
  memset(o, 0, sizeof *o);
  o->name = name;
  o->learning_rate = learning_rate;
  o->momentum = 0.9;
  o->beta1 = 0.9;
  o->beta2 = 0.999;
  o->epsilon = 1e-8;
}

/* The hyperparameter constants for one dtype, made on first use. */
typedef struct hyper {
  grt_dtype t;
  int32_t lr, momentum, beta1, beta2, epsilon;
} hyper;

static const hyper* hyper_for(grt_tb* b, hyper* cache, int32_t* n_cache, const grt_optimizer* o,
                              const char* scope, grt_dtype t) {
  for (int32_t i = 0; i < *n_cache; i++)
    if (cache[i].t == t) return &cache[i];
  hyper* h = &cache[(*n_cache)++];
  h->t = t;
  /* the first dtype's constants carry TensorFlow's names; others a suffix */
  const char* sfx = *n_cache == 1 ? "" : grt_dtype_name(t);
  const char* sep = *n_cache == 1 ? "" : "_";
  char name[512];
  snprintf(name, sizeof name, "%s/learning_rate%s%s", scope, sep, sfx);
  h->lr = grt_tb_scalar(b, name, t, o->learning_rate);
  snprintf(name, sizeof name, "%s/momentum%s%s", scope, sep, sfx);
  h->momentum = strcmp(o->name, "momentum") == 0 ? grt_tb_scalar(b, name, t, o->momentum) : -1;
  bool adam = strcmp(o->name, "adam") == 0;
  snprintf(name, sizeof name, "%s/beta1%s%s", scope, sep, sfx);
  h->beta1 = adam ? grt_tb_scalar(b, name, t, o->beta1) : -1;
  snprintf(name, sizeof name, "%s/beta2%s%s", scope, sep, sfx);
  h->beta2 = adam ? grt_tb_scalar(b, name, t, o->beta2) : -1;
  snprintf(name, sizeof name, "%s/epsilon%s%s", scope, sep, sfx);
  h->epsilon = adam ? grt_tb_scalar(b, name, t, o->epsilon) : -1;
  return h;
}

/* A variable like `var` named "<var>/<slot>", colocated with it, with an
 * Assign of zeros as its initialiser. */
static int32_t add_slot(grt_tb* b, int32_t var, const char* slot, grt_dtype t,
                        const grt_shape* shape) {
  const char* vname = b->g->nodes[var].name;
  int32_t s = grt_tb_node(b, "VariableV2", "%s/%s", vname, slot);
  grt_tb_shape(b, s, "shape", shape);
  grt_tb_type(b, s, "dtype", t);
  grt_tb_colocate(b, s, var);
  char name[1024];
  snprintf(name, sizeof name, "%s/%s/Initializer/zeros/shape_as_tensor", vname, slot);
  int32_t dims = grt_tb_ints(b, name, shape->dims, shape->rank);
  snprintf(name, sizeof name, "%s/%s/Initializer/zeros/Const", vname, slot);
  int32_t zero = grt_tb_scalar(b, name, t, 0);
  int32_t fill = grt_tb_node(b, "Fill", "%s/%s/Initializer/zeros", vname, slot);
  grt_tb_type(b, fill, "T", t);
  grt_tb_input(b, fill, dims, 0);
  grt_tb_input(b, fill, zero, 0);
  int32_t assign = grt_tb_node(b, "Assign", "%s/%s/Assign", vname, slot);
  grt_tb_type(b, assign, "T", t);
  grt_tb_input(b, assign, s, 0);
  grt_tb_input(b, assign, fill, 0);
  grt_tb_colocate(b, dims, var);
  grt_tb_colocate(b, zero, var);
  grt_tb_colocate(b, fill, var);
  return s;
}

/* A scalar variable (Adam's beta powers) starting at v, colocated with var. */
static int32_t add_power(grt_tb* b, const char* base, grt_dtype t, double v, int32_t var) {
  char* name = grt_tb_unique(b, base);
  if (!name) return -1;
  grt_shape scalar = {0};
  int32_t p = grt_tb_node(b, "VariableV2", "%s", name);
  grt_tb_shape(b, p, "shape", &scalar);
  grt_tb_type(b, p, "dtype", t);
  grt_tb_colocate(b, p, var);
  char cname[1024];
  snprintf(cname, sizeof cname, "%s/initial_value", name);
  int32_t init = grt_tb_scalar(b, cname, t, v);
  grt_tb_colocate(b, init, var);
  int32_t assign = grt_tb_node(b, "Assign", "%s/Assign", name);
  grt_tb_type(b, assign, "T", t);
  grt_tb_input(b, assign, p, 0);
  grt_tb_input(b, assign, init, 0);
  grt_free(name);
  return p;
}

/* Checks vars[i] and reads its dtype and shape. */
static grt_status* variable_info(grt_graph* g, int32_t var, const grt_output* grad, bool need_shape,
                                 grt_dtype* t, grt_shape* shape) {
  if (var < 0 || var >= g->n_nodes)
    return GRT_ERROR(OUT_OF_RANGE, "variable node index %d out of range", (int)var);
  const grt_node* n = &g->nodes[var];
  if (!n->def || !(n->def->flags & GRT_OP_VARIABLE))
    return GRT_ERROR(INVALID_ARGUMENT, "node '%s' (%s) is not a variable", n->name, n->op);
  *t = n->sig.output_types[0];
  if (*t != GRT_FLOAT16 && *t != GRT_BFLOAT16 && *t != GRT_FLOAT32 && *t != GRT_FLOAT64)
    return GRT_ERROR(INVALID_ARGUMENT, "variable '%s' is %s: optimizers update float variables",
                     n->name, grt_dtype_name(*t));
  *shape = n->sig.output_shapes[0];
  for (int32_t d = 0; need_shape && d <= shape->rank; d++)
    if (shape->rank < 0 || (d < shape->rank && shape->dims[d] < 0))
      return GRT_ERROR(INVALID_ARGUMENT,
                       "variable '%s': its shape must be fully known for the optimizer's slots",
                       n->name);
  if (grad->node < 0 || grad->node >= g->n_nodes ||
      grad->port >= g->nodes[grad->node].sig.n_outputs)
    return GRT_ERROR(INVALID_ARGUMENT, "variable '%s': its gradient is missing", n->name);
  grt_dtype gt = g->nodes[grad->node].sig.output_types[grad->port];
  if (gt != *t)
    return GRT_ERROR(INVALID_ARGUMENT, "variable '%s' is %s but its gradient '%s' is %s", n->name,
                     grt_dtype_name(*t), g->nodes[grad->node].name, grt_dtype_name(gt));
  return NULL;
}

static grt_status* apply(grt_tb* b, const optimizer_kind* kind, const grt_optimizer* o,
                         const int32_t* vars, const grt_output* grads, int32_t n,
                         const char* train_name) {
  grt_graph* g = b->g;
  bool adam = strcmp(kind->name, "adam") == 0;
  int32_t* updates = grt_calloc((size_t)n + 2, sizeof *updates);
  char* scope = grt_tb_unique(b, kind->scope);
  hyper cache[4];
  int32_t n_cache = 0;
  int32_t first = 0, beta1_power = -1, beta2_power = -1;
  grt_dtype power_type = GRT_DTYPE_INVALID;
  if (!updates || !scope) {
    grt_free(updates);
    grt_free(scope);
    return b->status ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory adding the optimizer");
  }
  for (int32_t i = 1; i < n; i++)
    if (strcmp(g->nodes[vars[i]].name, g->nodes[vars[first]].name) < 0) first = i;
  if (adam && n > 0) {
    power_type = g->nodes[vars[first]].sig.output_types[0];
    beta1_power = add_power(b, "beta1_power", power_type, o->beta1, vars[first]);
    beta2_power = add_power(b, "beta2_power", power_type, o->beta2, vars[first]);
  }
  /* Updates change variables in place, and a gradient may read a variable
   * another update changes (a layer's input gradient reads the next
   * layer's weights): no update starts before every gradient is made, or
   * training would depend on thread timing (TensorFlow 1.x's reference
   * variables leave this open). One NoOp gathers the gradients. */
  int32_t ready = -1;
  if (n > 0) {
    ready = grt_tb_node(b, "NoOp", "%s/gradients_ready", scope);
    for (int32_t i = 0; i < n; i++) grt_tb_control(b, ready, grads[i].node);
  }
  for (int32_t i = 0; i < n && !b->status; i++) {
    grt_dtype t = g->nodes[vars[i]].sig.output_types[0];
    grt_shape shape = g->nodes[vars[i]].sig.output_shapes[0];
    const hyper* h = hyper_for(b, cache, &n_cache, o, scope, t);
    int32_t slots[2] = {-1, -1};
    for (int k = 0; k < 2; k++)
      if (kind->slots[k]) slots[k] = add_slot(b, vars[i], kind->slots[k], t, &shape);
    int32_t u =
        grt_tb_node(b, kind->apply, "%s/update_%s/%s", scope, g->nodes[vars[i]].name, kind->apply);
    grt_tb_type(b, u, "T", t);
    grt_tb_input(b, u, vars[i], 0);
    if (adam) {
      grt_tb_input(b, u, slots[0], 0);
      grt_tb_input(b, u, slots[1], 0);
      grt_tb_input(b, u, beta1_power, 0);
      grt_tb_input(b, u, beta2_power, 0);
      grt_tb_input(b, u, h->lr, 0);
      grt_tb_input(b, u, h->beta1, 0);
      grt_tb_input(b, u, h->beta2, 0);
      grt_tb_input(b, u, h->epsilon, 0);
      grt_tb_input(b, u, grads[i].node, grads[i].port);
      grt_tb_bool(b, u, "use_nesterov", o->use_nesterov);
    } else if (slots[0] >= 0) { /* momentum */
      grt_tb_input(b, u, slots[0], 0);
      grt_tb_input(b, u, h->lr, 0);
      grt_tb_input(b, u, grads[i].node, grads[i].port);
      grt_tb_input(b, u, h->momentum, 0);
      grt_tb_bool(b, u, "use_nesterov", o->use_nesterov);
    } else {
      grt_tb_input(b, u, h->lr, 0);
      grt_tb_input(b, u, grads[i].node, grads[i].port);
    }
    grt_tb_control(b, u, ready);
    updates[i] = u;
  }
  int32_t n_updates = n;
  if (adam && n > 0 && !b->status) {
    /* after every update: beta powers *= betas (TensorFlow's _finish) */
    const hyper* h = hyper_for(b, cache, &n_cache, o, scope, power_type);
    int32_t powers[2] = {beta1_power, beta2_power}, betas[2] = {h->beta1, h->beta2};
    for (int k = 0; k < 2; k++) {
      grt_dtype t = h->t;
      int32_t mul = grt_tb_node(b, "Mul", k == 0 ? "%s/mul" : "%s/mul_1", scope);
      grt_tb_type(b, mul, "T", t);
      grt_tb_input(b, mul, powers[k], 0);
      grt_tb_input(b, mul, betas[k], 0);
      for (int32_t i = 0; i < n; i++) grt_tb_control(b, mul, updates[i]);
      grt_tb_colocate(b, mul, powers[k]);
      int32_t assign = grt_tb_node(b, "Assign", k == 0 ? "%s/Assign" : "%s/Assign_1", scope);
      grt_tb_type(b, assign, "T", t);
      grt_tb_input(b, assign, powers[k], 0);
      grt_tb_input(b, assign, mul, 0);
      for (int32_t i = 0; i < n; i++) grt_tb_control(b, assign, updates[i]);
      updates[n_updates++] = assign;
    }
  }
  int32_t train = grt_tb_node(b, "NoOp", "%s", train_name ? train_name : "train");
  for (int32_t i = 0; i < n_updates; i++) grt_tb_control(b, train, updates[i]);
  grt_free(updates);
  grt_free(scope);
  return NULL;
}

grt_status* grt_graph_apply_gradients(grt_graph* g, const grt_optimizer* o, const int32_t* vars,
                                      const grt_output* grads, int32_t n, const char* train_name) {
  if (!g || !o || n < 0 || (n > 0 && (!vars || !grads)))
    return GRT_ERROR(INVALID_ARGUMENT, "applying gradients: NULL graph, optimizer, vars or grads");
  const optimizer_kind* kind = find_kind(o->name);
  if (!kind)
    return GRT_ERROR(INVALID_ARGUMENT, "unknown optimizer '%s' (sgd, momentum or adam)",
                     o->name ? o->name : "(null)");
  GRT_RETURN_IF_ERROR(grt_status_prefix(grt_graph_validate(g), "applying gradients"));
  for (int32_t i = 0; i < n; i++) {
    grt_dtype t;
    grt_shape shape;
    GRT_RETURN_IF_ERROR(variable_info(g, vars[i], &grads[i], kind->slots[0] != NULL, &t, &shape));
  }
  grt_graph_mark mark;
  GRT_RETURN_IF_ERROR(grt_status_prefix(grt_graph_mark_take(g, &mark), "applying gradients"));
  grt_tb b = {g, NULL};
  grt_status* s = apply(&b, kind, o, vars, grads, n, train_name);
  if (!s) s = b.status;
  if (!s) s = grt_graph_validate(g);
  if (s) grt_graph_mark_rollback(g, &mark);
  grt_graph_mark_release(&mark);
  return s ? grt_status_prefix(s, "applying gradients (%s)", kind->name) : NULL;
}
