/* Collective groups: gang scheduling of NcclAllReduce.
 *
 * Kernels are synchronous and the inter-op pool may have fewer threads
 * than a group has members, so a member never waits for its peers: the
 * executor counts members in as they become ready, and the last one runs
 * the whole group (one backend all_reduce call filling every member's
 * output) and completes every member together (executor.c). Everything
 * that could make a group wait forever is refused here, when the
 * executable is built: a wrong member count, mixed reductions, dtypes or
 * shapes, two members on one device, devices of different types, a
 * backend without all_reduce, and a member that depends on another member
 * of its group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/tensor.h"
#include "runtime/session/session_internal.h"

static const char* const kReductions[] = {"sum", "prod", "min", "max"}; /* grt_reduction order */

typedef struct {
  grt_session* s;
  grt_executable* e;
  int32_t* members;  /* exec nodes, grouped */
  int32_t* group_of; /* per exec node: group index or -1 */
  int32_t* total;    /* per cluster group: its members on every task */
} gb;

static bool is_member(const grt_session* s, const exec_node* x) {
  return x->kind == EXEC_KERNEL && x->node >= 0 && !x->rw &&
         strcmp(s->graph->nodes[x->node].op, "NcclAllReduce") == 0;
}

static const grt_node* node_of(const gb* b, int32_t x) {
  return &b->s->graph->nodes[b->e->nodes[x].node];
}

static const char* attr_str(const grt_node* n, const char* name) {
  const grt_attr_value* v = grt_node_attr(n, name);
  return v && v->type == GRT_ATTR_STRING ? v->u.s : "";
}
static int64_t attr_int(const grt_node* n, const char* name) {
  const grt_attr_value* v = grt_node_attr(n, name);
  return v && v->type == GRT_ATTR_INT ? v->u.i : -1;
}
static grt_dtype attr_type(const grt_node* n, const char* name) {
  const grt_attr_value* v = grt_node_attr(n, name);
  return v && v->type == GRT_ATTR_TYPE ? v->u.t : GRT_DTYPE_INVALID;
}

/* "'a' on /device:CPU:0, 'b' on /device:CPU:1" for a message. */
static void list_members(const gb* b, const exec_group* g, grt_strbuf* sb) {
  for (int32_t k = 0; k < g->n; k++) {
    int32_t x = b->e->group_members[g->start + k];
    grt_strbuf_printf(sb, "%s'%s' on %s", k ? ", " : "", node_of(b, x)->name,
                      b->s->device[b->e->nodes[x].device]->name);
  }
}

static grt_status* group_error(const gb* b, const exec_group* g, const char* why) {
  grt_strbuf sb = {0};
  list_members(b, g, &sb);
  grt_status* st = GRT_ERROR(INVALID_ARGUMENT, "NcclAllReduce group '%s' (members %s): %s",
                             g->shared_name, grt_strbuf_str(&sb), why);
  grt_strbuf_free(&sb);
  return st;
}

/* Members in device order (groups are small: insertion sort), so every
 * run reduces in the same order whichever member arrived last. */
static void sort_by_device(const grt_executable* e, int32_t* m, int32_t n) {
  for (int32_t i = 1; i < n; i++) {
    int32_t x = m[i], j = i;
    for (; j > 0 && e->nodes[m[j - 1]].device > e->nodes[x].device; j--) m[j] = m[j - 1];
    m[j] = x;
  }
}

/* The checks of one group, its members sorted by device. */
static grt_status* check_group(gb* b, exec_group* g) {
  char why[1024];
  int32_t* m = &b->e->group_members[g->start];
  const grt_node* first = node_of(b, m[0]);
  int64_t want = attr_int(first, "num_devices");
  const char* red = attr_str(first, "reduction");
  grt_dtype t = attr_type(first, "T");
  for (int32_t k = 0; k < g->n; k++) {
    const grt_node* n = node_of(b, m[k]);
    if (attr_int(n, "num_devices") != want) {
      snprintf(why, sizeof why, "'%s' has num_devices %lld but '%s' has %lld", n->name,
               (long long)attr_int(n, "num_devices"), first->name, (long long)want);
      return group_error(b, g, why);
    }
    if (strcmp(attr_str(n, "reduction"), red) != 0) {
      snprintf(why, sizeof why, "'%s' has reduction '%s' but '%s' has '%s'", n->name,
               attr_str(n, "reduction"), first->name, red);
      return group_error(b, g, why);
    }
    if (attr_type(n, "T") != t) {
      snprintf(why, sizeof why, "'%s' has T %s but '%s' has %s", n->name,
               grt_dtype_name(attr_type(n, "T")), first->name, grt_dtype_name(t));
      return group_error(b, g, why);
    }
    if (!grt_shape_compatible(&n->sig.output_shapes[0], &first->sig.output_shapes[0])) {
      char s1[128], s2[128];
      snprintf(why, sizeof why, "'%s' has shape %s but '%s' has %s", n->name,
               grt_shape_str(&n->sig.output_shapes[0], s1, sizeof s1), first->name,
               grt_shape_str(&first->sig.output_shapes[0], s2, sizeof s2));
      return group_error(b, g, why);
    }
    if (k > 0 && b->e->nodes[m[k]].device == b->e->nodes[m[k - 1]].device) {
      snprintf(why, sizeof why, "'%s' and '%s' are both on %s: each member needs its own device",
               node_of(b, m[k - 1])->name, n->name, b->s->device[b->e->nodes[m[k]].device]->name);
      return group_error(b, g, why);
    }
  }
  int32_t total = g->cluster ? b->total[g->cluster - 1] : g->n;
  if (want != total) {
    snprintf(why, sizeof why,
             "num_devices is %lld but this run has %d member%s (every member must run: fetch "
             "or target all of them)",
             (long long)want, (int)total, total == 1 ? "" : "s");
    return group_error(b, g, why);
  }
  g->reduction = GRT_REDUCE_SUM;
  for (int r = 0; r < 4; r++)
    if (strcmp(red, kReductions[r]) == 0) g->reduction = (grt_reduction)r;
  grt_device* d0 = b->s->device[b->e->nodes[m[0]].device];
  for (int32_t k = 1; k < g->n; k++) {
    grt_device* d = b->s->device[b->e->nodes[m[k]].device];
    if (d->backend != d0->backend) {
      snprintf(why, sizeof why,
               "members on devices of different types (%s, %s): grt reduces only among "
               "devices of one type",
               d0->name, d->name);
      return group_error(b, g, why);
    }
  }
  g->backend = d0->backend;
  if (!g->backend || !g->backend->all_reduce) {
    snprintf(why, sizeof why, "the %s backend has no all-reduce",
             g->backend ? g->backend->type : "?");
    return group_error(b, g, why);
  }
  return NULL;
}

/* A member reachable from another member of its group would wait for a
 * group that waits for it. */
static grt_status* check_no_cycle(gb* b, const exec_group* g, int32_t gi, int32_t* stamp,
                                  int32_t* stack) {
  const grt_executable* e = b->e;
  for (int32_t k = 0; k < g->n; k++) {
    int32_t from = e->group_members[g->start + k];
    int32_t top = 0;
    stack[top++] = from;
    stamp[from] = from + 1;
    while (top > 0) {
      int32_t x = stack[--top];
      for (int32_t i = e->nodes[x].succ_start; i < e->nodes[x].succ_end; i++) {
        int32_t y = e->succ[i];
        if (stamp[y] == from + 1) continue;
        stamp[y] = from + 1;
        if (b->group_of[y] == gi) {
          char why[600];
          snprintf(why, sizeof why,
                   "'%s' depends on '%s' of the same group, so the group could never start",
                   node_of(b, y)->name, node_of(b, from)->name);
          return group_error(b, g, why);
        }
        stack[top++] = y;
      }
    }
  }
  return NULL;
}

/* ---- groups across the tasks of a cluster ------------------------------ */

typedef struct {
  const char* name;
  const grt_node* first; /* its first member in graph order */
  int32_t members, rank; /* rank: the first member's, or -1 once members are on several */
} span;

/* How many tasks hold a member of group `name`. */
static int32_t tasks_of(const gb* b, const uint8_t* kept, const char* name) {
  const grt_graph* graph = b->s->graph;
  int32_t size = grt_cluster_size(b->s->cluster), n = 0;
  uint8_t* seen = grt_calloc((size_t)size, 1);
  for (int32_t v = 0; seen && v < graph->n_nodes; v++) {
    const grt_node* node = &graph->nodes[v];
    if (!kept[v] || strcmp(node->op, "NcclAllReduce") != 0 ||
        strcmp(attr_str(node, "shared_name"), name) != 0)
      continue;
    int32_t r =
        grt_cluster_device_rank(b->s->cluster, b->s->devices, grt_plan_node_device(b->s->plan, v));
    if (r >= 0 && !seen[r]++) n++;
  }
  grt_free(seen);
  return n; /* out of memory: 0, so the group is refused */
}

static int cmp_span(const void* a, const void* b) {
  return strcmp(((const span*)a)->name, ((const span*)b)->name);
}

/* The groups the run keeps whose members are on several tasks, in
 * shared_name order (the same list on every rank: one graph, one plan, one
 * pruning), each linked to this task's group of that name if it has one. */
static grt_status* build_cluster_groups(gb* b, grt_strmap* local, const uint8_t* kept) {
  const grt_graph* graph = b->s->graph;
  grt_executable* e = b->e;
  grt_strmap by_name;
  grt_strmap_init(&by_name);
  span* sp = grt_calloc((size_t)graph->n_nodes + 1, sizeof *sp);
  grt_status* st = sp ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  int32_t n = 0;
  for (int32_t v = 0; !st && v < graph->n_nodes; v++) {
    const grt_node* node = &graph->nodes[v];
    if (!kept[v] || strcmp(node->op, "NcclAllReduce") != 0) continue;
    int32_t rank =
        grt_cluster_device_rank(b->s->cluster, b->s->devices, grt_plan_node_device(b->s->plan, v));
    const char* name = attr_str(node, "shared_name");
    int32_t i = grt_strmap_get(&by_name, name);
    if (i < 0) {
      i = n++;
      sp[i] = (span){name, node, 0, rank};
      if (grt_strmap_put(&by_name, name, i, NULL) < 0)
        st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    }
    sp[i].members++;
    if (sp[i].rank != rank) sp[i].rank = -1;
  }
  int32_t m = 0;
  for (int32_t i = 0; !st && i < n; i++)
    if (sp[i].rank < 0) sp[m++] = sp[i];
  if (!st && m > 0) {
    qsort(sp, (size_t)m, sizeof *sp, cmp_span);
    e->cluster_groups = grt_calloc((size_t)m, sizeof *e->cluster_groups);
    b->total = grt_calloc((size_t)m, sizeof *b->total);
    if (!e->cluster_groups || !b->total) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int32_t i = 0; !st && i < m; i++) {
    exec_cluster_group* c = &e->cluster_groups[e->n_cluster_groups++];
    const grt_node* first = sp[i].first;
    const grt_shape* shape = &first->sig.output_shapes[0];
    c->shared_name = sp[i].name;
    c->dtype = attr_type(first, "T");
    c->group = grt_strmap_get(local, sp[i].name);
    b->total[i] = sp[i].members;
    if (c->group >= 0) e->groups[c->group].cluster = i + 1;
    if (strcmp(attr_str(first, "reduction"), "sum") != 0) {
      st = GRT_ERROR(INVALID_ARGUMENT,
                     "NcclAllReduce group '%s' spans tasks of the cluster with reduction '%s': "
                     "only sum reduces across tasks",
                     c->shared_name, attr_str(first, "reduction"));
      break;
    }
    /* A task without a member adds zeros of the members' shape: it must
     * know the shape without running them. Where every task has a member
     * the count may come from the values (-1 here). */
    c->count = shape->rank < 0 ? -1 : 1;
    for (int32_t d = 0; d < shape->rank && c->count >= 0; d++)
      c->count = shape->dims[d] < 0 ? -1 : c->count * shape->dims[d];
    if (c->count < 0 && tasks_of(b, kept, c->shared_name) < grt_cluster_size(b->s->cluster)) {
      char text[GRT_SHAPE_STR_MAX];
      st = GRT_ERROR(INVALID_ARGUMENT,
                     "NcclAllReduce group '%s' spans tasks of the cluster, but its members' "
                     "shape %s is not fully known: every task adds its part, those without a "
                     "member zeros of that shape (give every task a member: a mirrored cluster "
                     "needs no ps job)",
                     c->shared_name, grt_shape_str(shape, text, sizeof text));
    }
  }
  grt_free(sp);
  grt_strmap_clear(&by_name);
  return st;
}

static grt_status* build_groups(gb* b, const uint8_t* kept) {
  grt_executable* e = b->e;
  const grt_graph* graph = b->s->graph;
  grt_strmap by_name;
  grt_strmap_init(&by_name);
  int32_t n_members = 0;
  grt_status* st = NULL;
  int32_t* count = grt_calloc((size_t)e->n_nodes + 1, sizeof *count);
  if (!count) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t x = 0; !st && x < e->n_nodes; x++) {
    b->group_of[x] = -1;
    const exec_node* xn = &e->nodes[x];
    if (!is_member(b->s, xn)) continue;
    const grt_node* n = &graph->nodes[xn->node];
    const char* name = attr_str(n, "shared_name");
    if (!name[0]) {
      st = GRT_ERROR(INVALID_ARGUMENT, "node '%s' (NcclAllReduce): shared_name is empty", n->name);
      break;
    }
    int32_t gi = grt_strmap_get(&by_name, name);
    if (gi < 0) {
      gi = e->n_groups;
      if (grt_strmap_put(&by_name, name, gi, NULL) < 0) {
        st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
        break;
      }
      e->n_groups++;
    }
    b->group_of[x] = gi;
    count[gi]++;
    n_members++;
  }
  if (!st && e->n_groups > 0) {
    e->groups = grt_calloc((size_t)e->n_groups, sizeof *e->groups);
    e->group_members = grt_calloc((size_t)n_members, sizeof *e->group_members);
    if (!e->groups || !e->group_members) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  if (!st && e->n_groups > 0) {
    int32_t at = 0;
    for (int32_t gi = 0; gi < e->n_groups; gi++) {
      e->groups[gi].start = at;
      at += count[gi];
    }
    for (int32_t x = 0; x < e->n_nodes; x++) {
      int32_t gi = b->group_of[x];
      if (gi < 0) continue;
      exec_group* g = &e->groups[gi];
      if (g->n == 0) g->shared_name = attr_str(&graph->nodes[e->nodes[x].node], "shared_name");
      e->group_members[g->start + g->n++] = x;
      e->nodes[x].collective = gi + 1;
    }
    for (int32_t gi = 0; gi < e->n_groups; gi++)
      sort_by_device(e, &e->group_members[e->groups[gi].start], e->groups[gi].n);
  }
  if (!st && kept) st = build_cluster_groups(b, &by_name, kept);
  for (int32_t gi = 0; !st && gi < e->n_groups; gi++) st = check_group(b, &e->groups[gi]);
  if (!st && e->n_groups > 0) {
    int32_t* stamp = grt_calloc((size_t)e->n_nodes + 1, sizeof *stamp);
    int32_t* stack = grt_calloc((size_t)e->n_nodes + 1, sizeof *stack);
    if (!stamp || !stack) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    for (int32_t gi = 0; !st && gi < e->n_groups; gi++)
      st = check_no_cycle(b, &e->groups[gi], gi, stamp, stack);
    grt_free(stamp);
    grt_free(stack);
  }
  grt_free(count);
  grt_strmap_clear(&by_name);
  return st;
}

grt_status* grt_collective_groups_build(grt_session* s, grt_executable* e, const uint8_t* kept) {
  /* Most executables have no collective: they allocate nothing here. A
   * cluster's task may hold no member of a group it still takes part in. */
  bool any = false;
  for (int32_t x = 0; !any && x < e->n_nodes; x++) any = is_member(s, &e->nodes[x]);
  for (int32_t v = 0; kept && !any && v < s->graph->n_nodes; v++)
    any = kept[v] && strcmp(s->graph->nodes[v].op, "NcclAllReduce") == 0;
  if (!any) return NULL;
  gb b = {.s = s, .e = e};
  b.group_of = grt_malloc(((size_t)e->n_nodes + 1) * sizeof *b.group_of);
  if (!b.group_of) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  grt_status* st = build_groups(&b, kept);
  grt_free(b.group_of);
  grt_free(b.total);
  return st;
}

grt_status* grt_collective_output_new(grt_device* d, const grt_tensor* like, grt_tensor** out) {
  grt_allocator* a = d->memory[GRT_MEMORY_DEVICE];
  /* Device memory apart from host memory keeps tensor headers off it. */
  return a == d->memory[GRT_MEMORY_HOST] ? grt_tensor_new_packed(a, like->dtype, &like->shape, out)
                                         : grt_tensor_new_device(a, like->dtype, &like->shape, out);
}

grt_status* grt_collective_group_run(grt_session* s, const grt_executable* e, const exec_group* g,
                                     grt_tensor* const* inputs, grt_tensor** outputs,
                                     const grt_cancel_token* cancel) {
  grt_status* st = NULL;
  const grt_tensor* in0 = inputs[0];
  for (int32_t k = 0; k < g->n; k++) outputs[k] = NULL;
  for (int32_t k = 1; !st && k < g->n; k++) {
    if (inputs[k]->dtype != in0->dtype || !grt_shape_equal(&inputs[k]->shape, &in0->shape)) {
      char s1[128], s2[128];
      const grt_graph* graph = s->graph;
      st = GRT_ERROR(
          INVALID_ARGUMENT,
          "NcclAllReduce group '%s': '%s' got a %s tensor of shape %s but '%s' got a "
          "%s tensor of shape %s",
          g->shared_name, graph->nodes[e->nodes[e->group_members[g->start + k]].node].name,
          grt_dtype_name(inputs[k]->dtype), grt_shape_str(&inputs[k]->shape, s1, sizeof s1),
          graph->nodes[e->nodes[e->group_members[g->start]].node].name, grt_dtype_name(in0->dtype),
          grt_shape_str(&in0->shape, s2, sizeof s2));
    }
  }
  grt_device** devs = grt_calloc((size_t)g->n, sizeof *devs);
  if (!st && !devs) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t k = 0; !st && k < g->n; k++) {
    grt_device* d = s->device[e->nodes[e->group_members[g->start + k]].device];
    devs[k] = d;
    st = grt_collective_output_new(d, in0, &outputs[k]);
    if (st)
      st = grt_status_prefix(st, "NcclAllReduce group '%s': output on %s", g->shared_name, d->name);
  }
  if (!st) {
    grt_all_reduce_args a = {
        .shared_name = g->shared_name,
        .reduction = g->reduction,
        .n = g->n,
        .devices = devs,
        .inputs = (const grt_tensor* const*)inputs,
        .outputs = outputs,
        .intra_op = s->intra_op,
        .cancel = cancel,
    };
    st = g->backend->all_reduce(&a);
    if (st) st = grt_status_prefix(st, "NcclAllReduce group '%s'", g->shared_name);
  }
  grt_free(devs);
  if (st) {
    for (int32_t k = 0; k < g->n; k++) {
      grt_tensor_free(outputs[k]);
      outputs[k] = NULL;
    }
  }
  return st;
}
