/* grt_graph_add_mirrored_train_step: per-tower gradients with respect to
 * each tower's own variable copies, all-reduced on every tower's device,
 * and one identical update per copy (include/grt/parallel.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strmap.h"
#include "grt/parallel.h"
#include "ops/graph.h"
#include "ops/op_def.h"

typedef struct {
  grt_graph* g;
  const grt_mirrored_train_options* o;
  int32_t n_vars;    /* mirrored variables (tower 0's names) */
  int32_t* copies;   /* [tower * n_vars + v]: node of tower's copy of variable v */
  grt_output* grads; /* [tower * n_vars + v]: tower's gradient of its copy */
} mt;

static int32_t node_named(const grt_graph* g, const char* name) {
  return grt_strmap_get(&g->by_name, name);
}

static void tensor_name(const grt_graph* g, grt_output t, char* buf, size_t size) {
  if (t.port == 0)
    snprintf(buf, size, "%s", g->nodes[t.node].name);
  else
    snprintf(buf, size, "%s:%d", g->nodes[t.node].name, (int)t.port);
}

static bool is_variable(const grt_node* n) { return n->def && (n->def->flags & GRT_OP_VARIABLE); }

/* The variables with a copy in every tower: tower K's copy of X is
 * "tower_K/X" (K > 0), tower 0's is X itself. With one tower: every
 * variable. */
static grt_status* find_copies(mt* m) {
  grt_graph* g = m->g;
  int32_t N = m->o->towers, nn = g->n_nodes;
  m->copies = grt_calloc((size_t)N * (size_t)nn + 1, sizeof *m->copies);
  if (!m->copies) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  char name[1024];
  for (int32_t i = 0; i < nn; i++) {
    const grt_node* n = &g->nodes[i];
    if (!is_variable(n) || strncmp(n->name, "tower_", 6) == 0) continue;
    int32_t v = m->n_vars;
    bool all = true;
    m->copies[v] = i;
    for (int32_t k = 1; all && k < N; k++) {
      snprintf(name, sizeof name, "tower_%d/%s", (int)k, n->name);
      int32_t c = node_named(g, name);
      all = c >= 0;
      m->copies[(size_t)k * (size_t)nn + (size_t)v] = c;
    }
    if (all) m->n_vars++;
  }
  /* Compact rows from stride nn to stride n_vars. */
  for (int32_t k = 1; k < N; k++)
    memmove(&m->copies[(size_t)k * (size_t)m->n_vars], &m->copies[(size_t)k * (size_t)nn],
            (size_t)m->n_vars * sizeof *m->copies);
  if (m->n_vars == 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "no mirrored variables: replicate the graph with mirrored first");
  return NULL;
}

/* "tower_K/<loss>/mean": the mean of tower K's part of the loss. */
static grt_status* tower_mean(mt* m, int32_t k, grt_output* out) {
  grt_graph* g = m->g;
  char loss[900], name[1000], axes[1000];
  snprintf(loss, sizeof loss, "tower_%d/%s", (int)k, m->o->loss);
  int32_t l = node_named(g, loss);
  if (l < 0) return GRT_ERROR(NOT_FOUND, "loss '%s' has no tower copy '%s'", m->o->loss, loss);
  int32_t rank = g->nodes[l].sig.output_shapes[0].rank;
  if (rank < 0) return GRT_ERROR(INVALID_ARGUMENT, "loss '%s' has an unknown rank", loss);
  int64_t r64 = rank;
  grt_tensor* t = NULL;
  GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_INT32, 1, &r64, &t));
  for (int32_t i = 0; i < rank; i++) ((int32_t*)grt_tensor_data(t))[i] = i;
  snprintf(axes, sizeof axes, "%s/mean_axes", loss);
  snprintf(name, sizeof name, "%s/mean", loss);
  int32_t a = -1, n = -1;
  grt_status* st = grt_graph_add_node(g, axes, "Const", &a);
  if (!st) st = grt_graph_set_attr_type(g, a, "dtype", GRT_INT32);
  if (!st) st = grt_graph_set_attr_tensor(g, a, "value", t);
  grt_tensor_free(t);
  if (!st) st = grt_graph_add_node(g, name, "Mean", &n);
  if (!st) st = grt_graph_add_input(g, n, loss);
  if (!st) st = grt_graph_add_input(g, n, axes);
  if (!st) st = grt_graph_set_attr_type(g, n, "T", g->nodes[l].sig.output_types[0]);
  if (!st) st = grt_graph_set_attr_type(g, n, "Tidx", GRT_INT32);
  if (!st) st = grt_graph_set_device(g, n, m->o->tower_devices[k]);
  *out = (grt_output){n, 0};
  return st;
}

static grt_status* tower_gradients(mt* m, int32_t k) {
  grt_output y;
  GRT_RETURN_IF_ERROR(tower_mean(m, k, &y));
  int32_t V = m->n_vars;
  grt_output* xs = grt_calloc((size_t)V, sizeof *xs);
  if (!xs) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t v = 0; v < V; v++)
    xs[v] = (grt_output){m->copies[(size_t)k * (size_t)V + (size_t)v], 0};
  char prefix[64];
  snprintf(prefix, sizeof prefix, "gradients_tower_%d", (int)k);
  grt_status* st = grt_graph_add_gradients(m->g, prefix, &y, 1, xs, V, NULL, true,
                                           &m->grads[(size_t)k * (size_t)V]);
  grt_free(xs);
  return st;
}

/* The sum for tower j of variable v as tower j's member of one NcclAllReduce
 * group per variable: the session reduces the group in device order. */
static grt_status* collective_sum(mt* m, int32_t v, int32_t j, const char* var, grt_dtype dt,
                                  const char* sum) {
  grt_graph* g = m->g;
  int32_t N = m->o->towers, V = m->n_vars, s = -1;
  char in[1000], group[1000];
  tensor_name(g, m->grads[(size_t)j * (size_t)V + (size_t)v], in, sizeof in);
  snprintf(group, sizeof group, "allreduce/%s", var);
  GRT_RETURN_IF_ERROR(grt_graph_add_node(g, sum, "NcclAllReduce", &s));
  GRT_RETURN_IF_ERROR(grt_graph_add_input(g, s, in));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, s, "T", dt));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(g, s, "reduction", "sum"));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, s, "num_devices", N));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_string(g, s, "shared_name", group));
  return grt_graph_set_device(g, s, m->o->tower_devices[j]);
}

/* On tower j's device: (grad_0 + ... + grad_{N-1}) * 1/N for variable v, in
 * the same order everywhere, so every device gets the same bits. */
static grt_status* all_reduce(mt* m, int32_t v, int32_t j, grt_output* out) {
  grt_graph* g = m->g;
  int32_t N = m->o->towers, V = m->n_vars;
  /* Adding nodes may move g->nodes: take what is needed of the variable first. */
  const char* var = g->nodes[m->copies[v]].name; /* the graph's arena: does not move */
  grt_dtype dt = g->nodes[m->copies[v]].sig.output_types[0];
  char sum[1000], scale[1000], mean[1000], in[1000];
  snprintf(sum, sizeof sum, "allreduce/%s/sum_%d", var, (int)j);
  snprintf(scale, sizeof scale, "allreduce/%s/scale_%d", var, (int)j);
  snprintf(mean, sizeof mean, "allreduce/%s/mean_%d", var, (int)j);
  const char* dev = m->o->tower_devices[j];
  int32_t s = -1, c = -1, x = -1;
  if (m->o->all_reduce == GRT_ALL_REDUCE_COLLECTIVE) {
    GRT_RETURN_IF_ERROR(collective_sum(m, v, j, var, dt, sum));
  } else {
    GRT_RETURN_IF_ERROR(grt_graph_add_node(g, sum, N > 1 ? "AddN" : "Identity", &s));
    for (int32_t k = 0; k < N; k++) {
      tensor_name(g, m->grads[(size_t)k * (size_t)V + (size_t)v], in, sizeof in);
      GRT_RETURN_IF_ERROR(grt_graph_add_input(g, s, in));
    }
    if (N > 1) GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, s, "N", N));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, s, "T", dt));
    GRT_RETURN_IF_ERROR(grt_graph_set_device(g, s, dev));
  }
  grt_tensor* t = NULL;
  GRT_RETURN_IF_ERROR(grt_tensor_new(dt, 0, NULL, &t));
  if (dt == GRT_FLOAT64)
    *(double*)grt_tensor_data(t) = 1.0 / N;
  else
    *(float*)grt_tensor_data(t) = 1.0f / (float)N;
  grt_status* st = grt_graph_add_node(g, scale, "Const", &c);
  if (!st) st = grt_graph_set_attr_type(g, c, "dtype", dt);
  if (!st) st = grt_graph_set_attr_tensor(g, c, "value", t);
  grt_tensor_free(t);
  if (!st) st = grt_graph_set_device(g, c, dev);
  if (!st) st = grt_graph_add_node(g, mean, "Mul", &x);
  if (!st) st = grt_graph_add_input(g, x, sum);
  if (!st) st = grt_graph_add_input(g, x, scale);
  if (!st) st = grt_graph_set_attr_type(g, x, "T", dt);
  if (!st) st = grt_graph_set_device(g, x, dev);
  *out = (grt_output){x, 0};
  return st;
}

static grt_status* build(mt* m) {
  const grt_mirrored_train_options* o = m->o;
  int32_t N = o->towers;
  GRT_RETURN_IF_ERROR(find_copies(m));
  int32_t V = m->n_vars;
  size_t NV = (size_t)N * (size_t)V;
  m->grads = grt_calloc(NV + 1, sizeof *m->grads);
  grt_output* reduced = grt_calloc(NV + 1, sizeof *reduced);
  int32_t* vars = grt_calloc(NV + 1, sizeof *vars);
  grt_status* st =
      m->grads && reduced && vars ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t k = 0; !st && k < N; k++) st = tower_gradients(m, k);
  int32_t n = 0;
  for (int32_t v = 0; !st && v < V; v++) {
    if (m->grads[v].node < 0) continue; /* no gradient reaches it (the same in every tower) */
    for (int32_t j = 0; !st && j < N; j++) {
      st = all_reduce(m, v, j, &reduced[n]);
      vars[n++] = m->copies[(size_t)j * (size_t)V + (size_t)v];
    }
  }
  if (!st && n == 0)
    st = GRT_ERROR(INVALID_ARGUMENT, "the loss '%s' depends on no variable", o->loss);
  if (!st)
    st = grt_graph_apply_gradients(m->g, &o->optimizer, vars, reduced, n,
                                   o->train_name ? o->train_name : "train");
  if (!st) st = grt_graph_add_init(m->g, o->init_name ? o->init_name : "init");
  grt_free(reduced);
  grt_free(vars);
  return st;
}

grt_status* grt_graph_add_mirrored_train_step(grt_graph* g, const grt_mirrored_train_options* o) {
  if (!g || !o || !o->loss || o->towers < 1 || !o->tower_devices)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "mirrored training needs a graph, a loss, towers and their devices");
  if (o->all_reduce != GRT_ALL_REDUCE_ADD_N && o->all_reduce != GRT_ALL_REDUCE_COLLECTIVE)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "mirrored training: all_reduce %d is neither ADD_N (0) nor COLLECTIVE (1)",
                     (int)o->all_reduce);
  if (!g->validated) GRT_RETURN_IF_ERROR(grt_graph_validate(g));
  grt_graph_mark mark;
  GRT_RETURN_IF_ERROR(grt_graph_mark_take(g, &mark));
  mt m = {.g = g, .o = o};
  grt_status* st = build(&m);
  if (!st) st = grt_graph_validate(g);
  grt_free(m.copies);
  grt_free(m.grads);
  if (st) {
    grt_graph_mark_rollback(g, &mark);
    grt_status_free(grt_graph_validate(g));
    return grt_status_prefix(st, "mirrored training");
  }
  grt_graph_mark_release(&mark);
  return NULL;
}
