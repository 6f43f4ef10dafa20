/* The graph optimizer in a session (optimizer/DESIGN.md): run it once the
 * graph is placed, run the optimized graph, and keep the user's graph for
 * the runs the optimized one cannot serve. Also grt_graph_optimize, the
 * same passes for `grt convert --optimize`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "base/tensor.h"
#include "optimizer/optimizer.h"
#include "runtime/session/dims.h"
#include "runtime/session/session_internal.h"

/* Constant folding's evaluator: the nodes to fold run in a session of
 * their own on the host CPU, exactly as written (no optimizer: no
 * recursion), with the parent's thread and memory limits. */
typedef struct fold_ctx {
  int64_t intra_op_threads;
  int64_t memory_limit;
} fold_ctx;

static grt_status* fold_eval(void* ctx, grt_graph* g, const char* const* fetches, int32_t n,
                             grt_tensor** out) {
  const fold_ctx* fc = ctx;
  for (int32_t i = 0; i < g->n_nodes; i++)
    GRT_RETURN_IF_ERROR(grt_graph_set_device(g, i, "/device:CPU:0"));
  grt_session_options* o = NULL;
  GRT_RETURN_IF_ERROR(grt_session_options_new(&o));
  char buf[32];
  grt_status* st = grt_session_options_set(o, "rewrite", "false");
  snprintf(buf, sizeof buf, "%lld", (long long)fc->intra_op_threads);
  if (!st) st = grt_session_options_set(o, "intra_op_threads", buf);
  if (!st) st = grt_session_options_set(o, "inter_op_threads", "1");
  snprintf(buf, sizeof buf, "%lld", (long long)fc->memory_limit);
  if (!st) st = grt_session_options_set(o, "memory_limit", buf);
  grt_session* s = NULL;
  if (!st) st = grt_session_new(g, o, &s);
  if (!st) st = grt_session_run(s, NULL, 0, fetches, n, NULL, 0, out, NULL);
  grt_session_free(s);
  grt_session_options_free(o);
  return st;
}

static grt_status* options_of(const grt_session_options* so, grt_opt_options* oo) {
  memset(oo, 0, sizeof *oo);
  oo->fold_max_bytes = so->fold_max_bytes;
  if (!so->rewrite) {
    oo->off = ~(uint64_t)0;
    return NULL;
  }
  return grt_opt_parse_pass_list(so->optimizer_off, &oo->off);
}

static bool changed(const grt_opt_report* r) {
  for (int32_t i = 0; i < r->n_passes; i++)
    if (r->passes[i].ran && r->passes[i].changes > 0) return true;
  return r->nodes_after != r->nodes_before;
}

grt_status* grt_session_optimize(grt_session* s) {
  grt_opt_options oo;
  GRT_RETURN_IF_ERROR(options_of(&s->opts, &oo));
  if (oo.off == ~(uint64_t)0) return NULL;
  const grt_graph* g = s->graph;
  int32_t n = g->n_nodes;
  const char** types = grt_calloc((size_t)n + 1, sizeof *types);
  const char** devs = grt_calloc((size_t)n + 1, sizeof *devs);
  if (!types || !devs) {
    grt_free(types);
    grt_free(devs);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int32_t i = 0; i < n; i++) {
    int32_t d = grt_plan_node_device(s->plan, i);
    types[i] = d >= 0 ? grt_device_set_type(s->devices, d) : NULL;
    devs[i] = d >= 0 ? grt_device_set_name(s->devices, d) : NULL;
  }
  fold_ctx fc = {s->opts.intra_op_threads, s->opts.memory_limit};
  grt_opt_env env = {types, devs, fold_eval, &fc};
  grt_status* st = grt_optimize(g, &env, &oo, &s->opt);
  grt_free(types);
  grt_free(devs);
  if (st) return st;
  if (!changed(&s->opt.report)) {
    /* Nothing to gain: run the user's graph, keep only the report. */
    grt_graph_free(s->opt.graph);
    grt_free(s->opt.feed_safe);
    s->opt.graph = NULL;
    s->opt.feed_safe = NULL;
    return NULL;
  }
  /* Every node of the optimized graph is pinned to the device the plan
   * gave it (or its original): placing it again decides nothing new, but
   * makes the copies and host-memory flags of its own edges. */
  grt_plan* plan = NULL;
  GRT_RETURN_IF_ERROR(grt_session_place_graph(s, s->opt.graph, &plan));
  s->user_graph = s->graph;
  s->user_plan = s->plan;
  s->graph = s->opt.graph;
  s->plan = plan;
  return NULL;
}

/* ---- the user's graph, for the runs the optimized one cannot serve ---- */

static grt_status* make_fallback(grt_session* s, grt_session** out) {
  grt_session* f = grt_calloc(1, sizeof *f);
  if (!f) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  f->parent = s;
  f->graph = s->user_graph;
  f->plan = s->user_plan;
  f->devices = s->devices;
  f->device = s->device;
  f->n_devices = s->n_devices;
  f->inter_op = s->inter_op;
  f->intra_op = s->intra_op;
  f->cluster = s->cluster; /* its steps are numbered with the parent's (executor.c) */
  pthread_mutex_init(&f->cache_mu, NULL);
  pthread_rwlock_init(&f->capture_lock, NULL);
  grt_status* st = grt_session_options_copy_into(&s->opts, &f->opts);
  if (!st) f->opts.rewrite = false;
  if (!st) st = grt_session_make_kernels(f, s);
  if (st) {
    grt_session_free(f);
    return st;
  }
  *out = f;
  return NULL;
}

/* Whether the optimized graph serves a run: every name is one of its
 * nodes (same name, same value: optimizer.h) and every fed one may be fed. */
static bool serves(const grt_session* s, const grt_feed* feeds, int32_t n_feeds,
                   const char* const* fetches, int32_t n_fetches, const char* const* targets,
                   int32_t n_targets) {
  grt_output at;
  for (int32_t i = 0; i < n_feeds; i++) {
    grt_status* st = grt_graph_output(s->graph, feeds[i].name, &at);
    if (st) {
      grt_status_free(st);
      return false;
    }
    if (s->opt.feed_safe && !s->opt.feed_safe[at.node]) return false;
  }
  for (int32_t i = 0; i < n_fetches; i++) {
    grt_status* st = grt_graph_output(s->graph, fetches[i], &at);
    if (st) {
      grt_status_free(st);
      return false;
    }
  }
  for (int32_t i = 0; i < n_targets; i++)
    if (grt_graph_find_node(s->graph, targets[i]) < 0) return false;
  return true;
}

grt_status* grt_session_route(grt_session* s, const grt_feed* feeds, int32_t n_feeds,
                              const char* const* fetches, int32_t n_fetches,
                              const char* const* targets, int32_t n_targets, grt_session** out) {
  *out = s;
  if (!s->user_graph || serves(s, feeds, n_feeds, fetches, n_fetches, targets, n_targets))
    return NULL;
  pthread_mutex_lock(&s->cache_mu);
  grt_status* st = s->fallback ? NULL : make_fallback(s, &s->fallback);
  pthread_mutex_unlock(&s->cache_mu);
  if (!st) *out = s->fallback;
  return st;
}

/* ---- reports and the public entry points ------------------------------ */

static grt_status* report_text(const grt_opt_report* r, char** out) {
  size_t len = 0;
  *out = NULL;
  FILE* f = open_memstream(out, &len);
  if (!f) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  grt_opt_report_write(r, f);
  if (fclose(f) != 0) {
    free(*out);
    *out = NULL;
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  return NULL;
}

size_t grt_session_optimizer_report(const grt_session* s, char* buf, size_t size) {
  if (!s) return (size_t)snprintf(buf, size, "NULL session");
  if (s->opt.report.n_passes == 0)
    return (size_t)snprintf(buf, size,
                            "optimizer: off (session option rewrite or optimizer_off)\n");
  char* text = NULL;
  grt_status* st = report_text(&s->opt.report, &text);
  if (st) {
    grt_status_free(st);
    return (size_t)snprintf(buf, size, "optimizer: out of memory writing the report\n");
  }
  size_t n =
      (size_t)snprintf(buf, size, "%s%s", text,
                       s->user_graph ? "" : "(nothing changed: the graph runs as written)\n");
  free(text);
  return n;
}

grt_status* grt_graph_optimize(grt_graph* g, const grt_session_options* opts, grt_graph** out,
                               char** report) {
  if (!out) return GRT_ERROR(INVALID_ARGUMENT, "NULL out-parameter");
  *out = NULL;
  if (report) *report = NULL;
  if (!g) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph");
  if (!g->validated) GRT_RETURN_IF_ERROR(grt_graph_validate(g));
  grt_session_options so;
  GRT_RETURN_IF_ERROR(grt_session_options_copy_into(opts, &so));
  grt_opt_options oo;
  grt_status* st = options_of(&so, &oo);
  fold_ctx fc = {so.intra_op_threads, so.memory_limit};
  /* dims binds symbolic dimensions first, as a session does (dims.c). */
  grt_graph* bound = NULL;
  if (!st && so.dims[0]) st = grt_session_bind_dims(g, so.dims, &bound);
  grt_session_options_clear(&so);
  if (st) return st;
  grt_opt_env env = {NULL, NULL, fold_eval, &fc};
  grt_opt_result r;
  st = grt_optimize(bound ? bound : g, &env, &oo, &r);
  grt_graph_free(bound);
  if (st) return st;
  if (report && (st = report_text(&r.report, report))) {
    grt_opt_result_clear(&r);
    return st;
  }
  *out = r.graph;
  r.graph = NULL;
  grt_opt_result_clear(&r);
  return NULL;
}
