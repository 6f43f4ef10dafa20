/* The optimizer's driver: copy the graph, run the pass table, compact and
 * validate after each pass, report. */
#include "optimizer/optimizer.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "base/status.h"
#include "ops/node_copy.h"
#include "optimizer/ctx.h"
#include "optimizer/passes.h"

#define DEFAULT_FOLD_MAX_BYTES (16 << 20)

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static grt_status* oom(void) { return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory"); }

/* Adds to `dst` node i of c->g under `name`, its inputs, controls and
 * colocations renamed by new_name[] (colocations with dropped nodes are
 * dropped: the device they asked for is already decided). */
static grt_status* copy_node(grt_graph* dst, const grt_opt_ctx* c, int32_t i, const char* name,
                             const char* const* new_name, int32_t* out) {
  const grt_graph* g = c->g;
  const grt_node* n = &g->nodes[i];
  GRT_RETURN_IF_ERROR(grt_graph_add_node(dst, name, n->op, out));
  const char* device = c->device[i] ? c->device[i] : n->device;
  GRT_RETURN_IF_ERROR(grt_graph_set_device(dst, *out, device));
  char spec[600];
  for (int32_t k = 0; k < n->n_inputs + n->n_controls; k++) {
    bool ctl = k >= n->n_inputs;
    const grt_input* in = ctl ? &n->controls[k - n->n_inputs] : &n->inputs[k];
    int32_t s = in->src;
    if (s < 0 || s >= g->n_nodes || !new_name[s])
      return GRT_ERROR(INTERNAL, "node '%s' still reads '%s', which the pass removed", n->name,
                       in->node);
    if (ctl)
      snprintf(spec, sizeof spec, "^%s", new_name[s]);
    else if (in->port == 0)
      snprintf(spec, sizeof spec, "%s", new_name[s]);
    else
      snprintf(spec, sizeof spec, "%s:%d", new_name[s], (int)in->port);
    GRT_RETURN_IF_ERROR(grt_graph_add_input(dst, *out, spec));
  }
  for (int32_t k = 0; k < n->n_colocate; k++) {
    int32_t s = grt_graph_find_node(g, n->colocate_with[k]);
    if (s >= 0 && new_name[s])
      GRT_RETURN_IF_ERROR(grt_graph_add_colocation(dst, *out, new_name[s]));
  }
  for (int32_t k = 0; k < n->n_attrs; k++) {
    grt_attr_value v;
    GRT_RETURN_IF_ERROR(grt_attr_value_copy(dst->arena, &n->attrs[k].value, &v));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_value(dst, *out, n->attrs[k].name, &v));
  }
  return NULL;
}

/* Node i's flags as they will be once renamed: a node that takes an input
 * node's name (a fusion's, standing for a model output) is that node, new
 * or not, had uses or not, as the node it replaces. */
static uint8_t kept_flags(const grt_opt_ctx* c, int32_t i) {
  int32_t from = c->take_name[i];
  if (from < 0) return c->flags[i];
  return (uint8_t)((c->flags[i] & ~(OPT_NEW | OPT_HAD_USES)) |
                   (c->flags[from] & (OPT_NEW | OPT_HAD_USES | OPT_NO_FEED)));
}

/* Marks dead every node nothing live uses that may go (ctx.h's flags),
 * repeatedly, as dropping one can leave its inputs unused. */
static grt_status* drop_unused(grt_opt_ctx* c) {
  grt_graph* g = c->g;
  int32_t n = g->n_nodes;
  int32_t* uses = grt_calloc((size_t)n + 1, sizeof *uses);
  /* Every node is pushed once at the start and at most once more, when its
   * last use goes: 2n slots. */
  int32_t* work = grt_calloc(2 * (size_t)n + 1, sizeof *work);
  if (!uses || !work) {
    grt_free(uses);
    grt_free(work);
    return oom();
  }
  for (int32_t i = 0; i < n; i++) {
    if (c->flags[i] & OPT_DEAD) continue;
    const grt_node* nd = &g->nodes[i];
    for (int32_t k = 0; k < nd->n_inputs; k++)
      if (nd->inputs[k].src >= 0) uses[nd->inputs[k].src]++;
    for (int32_t k = 0; k < nd->n_controls; k++)
      if (nd->controls[k].src >= 0) uses[nd->controls[k].src]++;
  }
  int32_t nw = 0;
  for (int32_t i = 0; i < n; i++) work[nw++] = i;
  while (nw > 0) {
    int32_t i = work[--nw];
    if ((c->flags[i] & OPT_DEAD) || uses[i] > 0) continue;
    if (!(kept_flags(c, i) & (OPT_NEW | OPT_HAD_USES))) continue;
    if (g->nodes[i].def && (g->nodes[i].def->flags & (GRT_OP_STATEFUL | GRT_OP_VARIABLE))) continue;
    c->flags[i] |= OPT_DEAD;
    const grt_node* nd = &g->nodes[i];
    for (int32_t k = 0; k < nd->n_inputs + nd->n_controls; k++) {
      const grt_input* in = k < nd->n_inputs ? &nd->inputs[k] : &nd->controls[k - nd->n_inputs];
      if (in->src >= 0 && --uses[in->src] == 0) work[nw++] = in->src;
    }
  }
  grt_free(uses);
  grt_free(work);
  return NULL;
}

/* Did the pass just run change anything compaction would? Every edit of
 * the graph goes through ops/graph.h or edit.c, which clear `validated`;
 * a kill or a rename only marks the context. A pass that changed nothing
 * leaves the graph as the last compaction made it, so copying and
 * validating it again (the bulk of session creation on large graphs:
 * a 10k-node chain spent ~70% of it there) is skipped. */
static bool changed(const grt_opt_ctx* c) {
  if (!c->g->validated || c->g->n_nodes != c->n_start) return true;
  for (int32_t i = 0; i < c->n_start; i++)
    if ((c->flags[i] & OPT_DEAD) || c->take_name[i] >= 0) return true;
  return false;
}

/* Replaces c->g by its live nodes (renames applied) and validates it. */
static grt_status* compact(grt_opt_ctx* c) {
  GRT_RETURN_IF_ERROR(drop_unused(c));
  grt_graph* g = c->g;
  int32_t n = g->n_nodes;
  const char** new_name = grt_calloc((size_t)n + 1, sizeof *new_name);
  if (!new_name) return oom();
  for (int32_t i = 0; i < n; i++) {
    if (c->flags[i] & OPT_DEAD) continue;
    int32_t from = c->take_name[i];
    new_name[i] = from >= 0 ? g->nodes[from].name : g->nodes[i].name;
  }
  grt_graph* dst = NULL;
  grt_status* st = grt_graph_new(&dst);
  if (!st) st = grt_graph_reserve(dst, n);
  uint8_t* flags = grt_calloc((size_t)n + 1, sizeof *flags);
  const char** dev_type = grt_calloc((size_t)n + 1, sizeof *dev_type);
  const char** device = grt_calloc((size_t)n + 1, sizeof *device);
  if (!st && (!flags || !dev_type || !device)) st = oom();
  int32_t m = 0;
  for (int32_t i = 0; i < n && !st; i++) {
    if (!new_name[i]) continue;
    int32_t k = -1;
    st = copy_node(dst, c, i, new_name[i], new_name, &k);
    if (st) break;
    flags[k] = kept_flags(c, i);
    dev_type[k] = c->dev_type[i];
    device[k] = c->device[i];
    m++;
  }
  grt_free(new_name);
  if (!st) st = grt_graph_validate(dst);
  if (st) {
    grt_free(flags);
    grt_free(dev_type);
    grt_free(device);
    grt_graph_free(dst);
    return st;
  }
  grt_graph_free(c->g);
  c->g = dst;
  for (int32_t i = 0; i < m; i++) {
    c->flags[i] = flags[i];
    c->dev_type[i] = dev_type[i];
    c->device[i] = device[i];
    c->take_name[i] = -1;
  }
  for (int32_t i = m; i < c->cap; i++) {
    c->flags[i] = 0;
    c->take_name[i] = -1;
  }
  grt_free(flags);
  grt_free(dev_type);
  grt_free(device);
  return NULL;
}

/* The working copy of the input graph, with its per-node facts. */
static grt_status* start(grt_opt_ctx* c, const grt_graph* in) {
  int32_t n = in->n_nodes;
  GRT_RETURN_IF_ERROR(grt_opt_ctx_reserve(c, n + 1));
  bool* used = grt_calloc((size_t)n + 1, sizeof *used);
  if (!used) return oom();
  for (int32_t i = 0; i < n; i++) {
    const grt_node* nd = &in->nodes[i];
    for (int32_t k = 0; k < nd->n_inputs; k++)
      if (nd->inputs[k].src >= 0) used[nd->inputs[k].src] = true;
    for (int32_t k = 0; k < nd->n_controls; k++)
      if (nd->controls[k].src >= 0) used[nd->controls[k].src] = true;
  }
  /* The copy below reads c->g's arrays: point it at the input for now. */
  c->g = (grt_graph*)in;
  const char** names = grt_calloc((size_t)n + 1, sizeof *names);
  grt_graph* dst = NULL;
  grt_status* st = names ? grt_graph_new(&dst) : oom();
  if (!st) st = grt_graph_reserve(dst, n);
  for (int32_t i = 0; i < n && !st; i++) { /* names is NULL when st says so */
    names[i] = in->nodes[i].name;
    c->flags[i] = used[i] ? OPT_HAD_USES : 0;
    if (c->env && c->env->node_device_type && c->env->node_device_type[i])
      c->dev_type[i] = c->env->node_device_type[i];
    c->device[i] = c->env && c->env->node_device ? c->env->node_device[i] : NULL;
  }
  for (int32_t i = 0; i < n && !st; i++) {
    int32_t k;
    st = copy_node(dst, c, i, names[i], names, &k);
  }
  grt_free(names);
  grt_free(used);
  c->g = NULL;
  if (!st) st = grt_graph_validate(dst);
  if (st) {
    grt_graph_free(dst);
    return st;
  }
  c->g = dst;
  return NULL;
}

static void clear_ctx(grt_opt_ctx* c) {
  grt_opt_ctx_free_index(c);
  grt_free(c->flags);
  grt_free(c->dev_type);
  grt_free(c->device);
  grt_free(c->take_name);
  grt_graph_free(c->g);
  memset(c, 0, sizeof *c);
}

grt_status* grt_optimize(const grt_graph* in, const grt_opt_env* env, const grt_opt_options* opts,
                         grt_opt_result* out) {
  memset(out, 0, sizeof *out);
  if (!in || !in->validated)
    return GRT_ERROR(INVALID_ARGUMENT, "the optimizer needs a validated graph");
  double t0 = now_ms();
  grt_opt_ctx c = {0};
  c.env = env;
  c.fold_max_bytes =
      opts && opts->fold_max_bytes > 0 ? opts->fold_max_bytes : DEFAULT_FOLD_MAX_BYTES;
  uint64_t off = opts ? opts->off : 0;
  grt_status* st = start(&c, in);
  out->report.nodes_before = in->n_nodes;
  int32_t np = grt_opt_pass_count();
  for (int32_t p = 0; p < np && !st; p++) {
    grt_opt_pass_report* r = out->report.n_passes < GRT_OPT_MAX_REPORTED
                                 ? &out->report.passes[out->report.n_passes++]
                                 : NULL;
    grt_opt_pass_report scratch;
    if (!r) r = &scratch;
    memset(r, 0, sizeof *r);
    r->pass = grt_opt_pass_name(p);
    r->nodes_before = r->nodes_after = c.g->n_nodes;
    if (off & grt_opt_pass_bit(r->pass)) continue;
    double t = now_ms();
    c.rep = r;
    c.n_start = c.g->n_nodes;
    st = grt_opt_index_uses(&c);
    if (!st) st = grt_opt_passes[p].run(&c);
    if (!st && changed(&c)) st = compact(&c);
    c.rep = NULL;
    if (st) {
      st = grt_status_prefix(st, "optimizer pass '%s'", r->pass);
      break;
    }
    r->ran = true;
    r->nodes_after = c.g->n_nodes;
    r->ms = now_ms() - t;
  }
  if (!st) {
    out->feed_safe = grt_calloc((size_t)c.g->n_nodes + 1, sizeof *out->feed_safe);
    if (!out->feed_safe) st = oom();
  }
  if (st) {
    clear_ctx(&c);
    grt_opt_result_clear(out);
    return st;
  }
  for (int32_t i = 0; i < c.g->n_nodes; i++) out->feed_safe[i] = !(c.flags[i] & OPT_NO_FEED);
  out->graph = c.g;
  c.g = NULL;
  out->report.nodes_after = out->graph->n_nodes;
  out->report.ms = now_ms() - t0;
  clear_ctx(&c);
  return NULL;
}

void grt_opt_result_clear(grt_opt_result* r) {
  if (!r) return;
  grt_graph_free(r->graph);
  grt_free(r->feed_safe);
  memset(r, 0, sizeof *r);
}

void grt_opt_report_write(const grt_opt_report* r, FILE* f) {
  fprintf(f, "optimizer: %d -> %d nodes in %.1f ms\n", (int)r->nodes_before, (int)r->nodes_after,
          r->ms);
  for (int32_t i = 0; i < r->n_passes; i++) {
    const grt_opt_pass_report* p = &r->passes[i];
    if (!p->ran) {
      fprintf(f, "  %-24s off\n", p->pass);
      continue;
    }
    fprintf(f, "  %-24s %5d -> %5d nodes  %4d changes  %7.2f ms%s%s\n", p->pass,
            (int)p->nodes_before, (int)p->nodes_after, (int)p->changes, p->ms,
            p->detail[0] ? "  " : "", p->detail);
  }
}
