/* grt_session: place once, make kernel state, run many times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/op_def.h"
#include "runtime/cluster/cluster.h"
#include "runtime/device/device.h"
#include "runtime/session/dims.h"
#include "runtime/session/session_internal.h"

grt_status* grt_session_place_graph(grt_session* s, grt_graph* g, grt_plan** out) {
  grt_place_options* po = NULL;
  GRT_RETURN_IF_ERROR(grt_place_options_new(&po));
  grt_place_options_set_soft_placement(po, s->opts.allow_soft_placement);
  grt_status* st = grt_place_options_set_ps_devices(po, s->opts.ps_devices);
  if (!st) st = grt_place_options_set_ps_strategy(po, s->opts.ps_strategy);
  if (!st) st = grt_place(g, s->devices, po, out);
  grt_place_options_free(po);
  return st;
}

/* With a cluster, the devices are every task's (exchanged when the
 * process joins); every rank checks the others placed (and optimized) as
 * it did once the graph is optimized (grt_session_new). */
static grt_status* place(grt_session* s) {
  GRT_RETURN_IF_ERROR(grt_session_options_device_set(&s->opts, &s->devices));
  if (s->opts.cluster[0]) {
    grt_device_set* all = NULL;
    GRT_RETURN_IF_ERROR(grt_cluster_join(s->opts.cluster, s->devices, &s->cluster, &all));
    grt_device_set_free(s->devices);
    s->devices = all;
  }
  return grt_session_place_graph(s, s->graph, &s->plan);
}

bool grt_session_node_is_remote(const grt_session* s, int32_t node) {
  return s->cluster &&
         grt_cluster_device_rank(s->cluster, s->devices, grt_plan_node_device(s->plan, node)) !=
             grt_cluster_rank(s->cluster);
}

/* A device for every device in the set this machine has, each made by the
 * backend of its type, told the values of its type's options. Devices are
 * made for the nodes the plan puts on them: a graph that runs on the CPU
 * never starts another backend's devices (a GPU's context and libraries, a
 * plugin's stream threads), however many the machine has. The CPUs are
 * always made (they cost nothing and host memory comes from them). */
static grt_status* make_devices(grt_session* s) {
  int32_t n = grt_device_set_count(s->devices);
  s->device = grt_calloc((size_t)n + 1, sizeof *s->device);
  bool* used = grt_calloc((size_t)n + 1, sizeof *used);
  if (!s->device || !used) {
    grt_free(used);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  s->n_devices = n;
  for (int32_t i = 0; i < s->graph->n_nodes; i++) {
    int32_t d = grt_plan_node_device(s->plan, i);
    if (d >= 0 && d < n) used[d] = true;
  }
  /* The user's graph, for runs the optimized one cannot serve (optimize.c),
   * runs on these devices too: folding may have left none on a device the
   * user's graph uses. */
  for (int32_t i = 0; s->user_graph && i < s->user_graph->n_nodes; i++) {
    int32_t d = grt_plan_node_device(s->user_plan, i);
    if (d >= 0 && d < n) used[d] = true;
  }
  for (int32_t i = 0; i < n; i++)
    if (strcasecmp(grt_device_set_type(s->devices, i), "CPU") == 0) used[i] = true;
  grt_status* st = NULL;
  for (int32_t i = 0; i < n && !st; i++) {
    if (!grt_device_set_present(s->devices, i) || !used[i]) continue;
    const char* vals[GRT_MAX_BACKEND_OPTIONS];
    int32_t nv = grt_backend_values_get(s->opts.backend, grt_device_set_type(s->devices, i), vals);
    grt_device_config cfg = {
        .id = grt_device_set_id(s->devices, i),
        .name = grt_device_set_name(s->devices, i),
        .options = vals,
        .n_options = nv,
        .memory_limit = s->opts.memory_limit,
    };
    st = grt_registry_device_new(s->devices, i, &cfg, &s->device[i]);
  }
  grt_free(used);
  return st;
}

/* Kernels for every node on its device, and their state (variables persist
 * for the session's life). */
grt_status* grt_session_make_kernels(grt_session* s, const grt_session* parent) {
  int32_t nn = s->graph->n_nodes;
  s->kernels = grt_calloc((size_t)nn + 1, sizeof *s->kernels);
  s->states = grt_calloc((size_t)nn + 1, sizeof *s->states);
  s->borrowed_state = grt_calloc((size_t)nn + 1, sizeof *s->borrowed_state);
  if (!s->kernels || !s->states || !s->borrowed_state)
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < nn; i++) {
    const grt_node* n = &s->graph->nodes[i];
    int32_t d = grt_plan_node_device(s->plan, i);
    grt_device* dev = d >= 0 && d < s->n_devices ? s->device[d] : NULL;
    if (!dev && grt_session_node_is_remote(s, i)) continue; /* another task runs it */
    if (!dev)
      return GRT_ERROR(UNAVAILABLE, "node '%s' (%s) is placed on %s, which this machine cannot run",
                       n->name, n->op, grt_plan_node_device_name(s->plan, i));
    const grt_op_kernel* k = dev->backend->kernel(n->op);
    if (!k)
      return GRT_ERROR(UNIMPLEMENTED, "node '%s': the %s backend has no kernel for op %s", n->name,
                       dev->backend->type, n->op);
    s->kernels[i] = k;
    int32_t twin = parent && n->def && (n->def->flags & (GRT_OP_STATEFUL | GRT_OP_VARIABLE))
                       ? grt_graph_find_node(parent->graph, n->name)
                       : -1;
    if (twin >= 0 && parent->kernels[twin] == k) {
      s->states[i] = parent->states[twin];
      s->borrowed_state[i] = true;
      continue;
    }
    if (k->create_state) {
      grt_status* st = k->create_state(n, &s->states[i]);
      if (st) return grt_status_prefix(st, "node '%s' (%s)", n->name, n->op);
    }
  }
  return NULL;
}

/* The placement log (log_device_placement) through the log sink, one INFO
 * message per line, never to stdout. */
static grt_status* log_placement(const grt_plan* plan) {
  char* text = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (!f) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory writing the placement log");
  grt_status* st = grt_plan_write_log(plan, f);
  if (fclose(f) != 0 && !st)
    st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory writing the placement log");
  if (!st) grt_log_lines(GRT_LOG_INFO, text, len);
  free(text); /* open_memstream's: plain malloc */
  return st;
}

grt_status* grt_session_new(grt_graph* g, const grt_session_options* opts, grt_session** out) {
  *out = NULL;
  if (!g) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph");
  if (!g->validated) GRT_RETURN_IF_ERROR(grt_graph_validate(g));
  grt_session* s = grt_calloc(1, sizeof *s);
  if (!s) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  s->graph = g;
  pthread_mutex_init(&s->cache_mu, NULL);
  pthread_mutex_init(&s->cluster_mu, NULL);
  pthread_rwlockattr_t rw;
  pthread_rwlockattr_init(&rw);
  /* A recording waits for runs in flight, then goes before new ones. */
  pthread_rwlockattr_setkind_np(&rw, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&s->capture_lock, &rw);
  pthread_rwlockattr_destroy(&rw);
  grt_status* st = grt_session_options_copy_into(opts, &s->opts);
  if (!st && s->opts.verify_constants) st = grt_graph_verify_constants(g, NULL);
  if (!st && s->opts.dims[0]) {
    st = grt_session_bind_dims(g, s->opts.dims, &s->bound);
    if (!st) s->graph = s->bound;
  }
  if (!st) st = place(s);
  /* Every rank must run the same executable. The optimizer is a function
   * of the graph, the plan and the options (its constant folding runs
   * the same kernels on the same values on every rank), so each rank
   * optimizes alone, and the check covers what it made. */
  if (!st && s->opts.rewrite) st = grt_session_optimize(s);
  if (!st && s->cluster)
    st = grt_cluster_check_plan(s->cluster, s->user_graph ? s->user_graph : s->graph,
                                grt_session_plan(s), s->graph, s->plan);
  if (!st) st = make_devices(s);
  if (!st) st = grt_session_make_kernels(s, NULL);
  /* The fusions of the session's rewrite (REWRITE.md) are decided where a
   * device is present, so on each rank for its own nodes only, and change
   * which graph nodes a run keeps: the ranks' lists of crossings would
   * disagree. A cluster runs without them. */
  if (!st && s->opts.rewrite && !s->cluster)
    st = grt_remap_new(s->graph, s->plan, s->device, s->n_devices, &s->remap);
  if (!st) st = grt_threadpool_new((int)s->opts.inter_op_threads, "inter_op", &s->inter_op);
  if (!st) st = grt_threadpool_new((int)s->opts.intra_op_threads, "intra_op", &s->intra_op);
  if (st) {
    grt_session_free(s);
    return st;
  }
  if (s->opts.log_device_placement && (st = log_placement(grt_session_plan(s)))) {
    grt_session_free(s);
    return st;
  }
  *out = s;
  return NULL;
}

void grt_session_free(grt_session* s) {
  if (!s) return;
  /* The fallback borrows from this session: it goes first. */
  grt_session_free(s->fallback);
  bool own = !s->parent; /* a fallback owns only its kernels, states and cache */
  if (own) grt_threadpool_free(s->inter_op);
  if (own) grt_threadpool_free(s->intra_op);
  for (grt_executable* e = s->cache; e;) {
    grt_executable* next = e->next;
    grt_executable_free(e);
    e = next;
  }
  if (s->states) {
    for (int32_t i = 0; i < s->graph->n_nodes; i++)
      if (s->states[i] && s->kernels[i] && s->kernels[i]->free_state &&
          !(s->borrowed_state && s->borrowed_state[i]))
        s->kernels[i]->free_state(s->states[i]);
  }
  grt_remap_free(s->remap);
  grt_free(s->states);
  grt_free(s->borrowed_state);
  grt_free(s->kernels);
  if (own) {
    for (int32_t i = 0; s->device && i < s->n_devices; i++) grt_device_free(s->device[i]);
    grt_free(s->device);
    grt_plan_free(s->plan);
    grt_plan_free(s->user_plan);
    grt_device_set_free(s->devices);
  }
  grt_opt_result_clear(&s->opt);
  grt_graph_free(s->bound); /* after the states and plans that read it */
  grt_session_options_clear(&s->opts);
  pthread_mutex_destroy(&s->cache_mu);
  pthread_mutex_destroy(&s->cluster_mu);
  pthread_rwlock_destroy(&s->capture_lock);
  grt_free(s);
}

int32_t grt_session_cluster_rank(const grt_session* s) {
  return s && s->cluster ? grt_cluster_rank(s->cluster) : -1;
}

/* The user's graph's plan: what the placement log shows, whatever runs. */
const grt_plan* grt_session_plan(const grt_session* s) {
  return s ? (s->user_plan ? s->user_plan : s->plan) : NULL;
}

/* A fed value must have the tensor's dtype and a shape its inferred shape
 * allows. */
/* The checks run on every call of a callable: the feed's name is formatted
 * only for a message (an snprintf per feed was a visible part of a batch-1
 * step). */
static bool feed_ok(const grt_node* n, int32_t port, const grt_tensor* value) {
  return value && value->dtype == n->sig.output_types[port] &&
         grt_shape_compatible(&value->shape, &n->sig.output_shapes[port]);
}

grt_status* grt_session_check_feed(const grt_session* s, grt_output at, const char* name,
                                   const grt_tensor* value) {
  const grt_node* n = &s->graph->nodes[at.node];
  if (feed_ok(n, at.port, value)) return NULL;
  char buf[256];
  if (!name) { /* a callable's feed: output 0 by the node's name, as feeds are usually given */
    if (at.port == 0)
      snprintf(buf, sizeof buf, "%s", n->name);
    else
      snprintf(buf, sizeof buf, "%s:%d", n->name, (int)at.port);
    name = buf;
  }
  if (!value) return GRT_ERROR(INVALID_ARGUMENT, "feed '%s': no value", name);
  if (value->dtype != n->sig.output_types[at.port])
    return GRT_ERROR(INVALID_ARGUMENT, "feed '%s': the tensor is %s, but a %s value was fed", name,
                     grt_dtype_name(n->sig.output_types[at.port]), grt_dtype_name(value->dtype));
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT,
                   "feed '%s': cannot feed a value of shape %s for a tensor of shape %s", name,
                   grt_shape_str(&value->shape, a, sizeof a),
                   grt_shape_str(&n->sig.output_shapes[at.port], b, sizeof b));
}

static grt_status* check_feed(const grt_session* s, const grt_feed* f) {
  if (!f->name || !f->value) return GRT_ERROR(INVALID_ARGUMENT, "feed with a NULL name or value");
  grt_output at;
  GRT_RETURN_IF_ERROR(grt_graph_output(s->graph, f->name, &at));
  return grt_session_check_feed(s, at, f->name, f->value);
}

grt_status* grt_session_run(grt_session* s, const grt_feed* feeds, int32_t n_feeds,
                            const char* const* fetches, int32_t n_fetches,
                            const char* const* targets, int32_t n_targets, grt_tensor** out_values,
                            grt_trace* trace) {
  return grt_session_run_with_options(s, NULL, feeds, n_feeds, fetches, n_fetches, targets,
                                      n_targets, out_values, trace);
}

void grt_session_cancel(grt_session* s) {
  if (!s) return;
  __atomic_add_fetch(&s->cancel_epoch, 1, __ATOMIC_ACQ_REL);
  pthread_mutex_lock(&s->cache_mu);
  grt_session* f = s->fallback;
  pthread_mutex_unlock(&s->cache_mu);
  if (f) grt_session_cancel(f);
}

grt_status* grt_session_run_with_options(grt_session* s, const grt_run_options* opts,
                                         const grt_feed* feeds, int32_t n_feeds,
                                         const char* const* fetches, int32_t n_fetches,
                                         const char* const* targets, int32_t n_targets,
                                         grt_tensor** out_values, grt_trace* trace) {
  if (!s) return GRT_ERROR(INVALID_ARGUMENT, "NULL session");
  if (n_feeds < 0 || n_fetches < 0 || n_targets < 0 || (n_feeds && !feeds) ||
      (n_fetches && (!fetches || !out_values)) || (n_targets && !targets))
    return GRT_ERROR(INVALID_ARGUMENT, "inconsistent feed/fetch/target arguments");
  if (n_fetches == 0 && n_targets == 0)
    return GRT_ERROR(INVALID_ARGUMENT, "a run needs at least one fetch or target");
  for (int32_t i = 0; i < n_fetches; i++) out_values[i] = NULL;
  for (int32_t i = 0; i < n_feeds; i++)
    if (!feeds[i].name || !feeds[i].value)
      return GRT_ERROR(INVALID_ARGUMENT, "feed with a NULL name or value");
  GRT_RETURN_IF_ERROR(
      grt_session_route(s, feeds, n_feeds, fetches, n_fetches, targets, n_targets, &s));
  for (int32_t i = 0; i < n_feeds; i++) GRT_RETURN_IF_ERROR(check_feed(s, &feeds[i]));
  grt_executable* e;
  GRT_RETURN_IF_ERROR(
      grt_session_executable(s, feeds, n_feeds, fetches, n_fetches, targets, n_targets, &e));
  grt_tensor* stack[16];
  grt_tensor** values = n_feeds <= 16 ? stack : grt_malloc((size_t)n_feeds * sizeof *values);
  if (!values) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < n_feeds; i++) values[i] = feeds[i].value;
  if (trace) grt_trace_begin_run(trace, s);
  grt_status* st = grt_executor_run(s, e, opts, values, out_values, trace);
  if (values != stack) grt_free(values);
  return st;
}
