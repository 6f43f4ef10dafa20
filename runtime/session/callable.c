/* Callables: a run signature resolved, pruned and partitioned once; each
 * call goes straight to the executor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strmap.h"
#include "runtime/session/capture.h"
#include "runtime/session/session_internal.h"

struct grt_callable {
  grt_session* s;
  grt_executable* e;
  grt_capture* capture; /* with the session option graph_capture */
  int32_t n_feeds, n_fetches;
  grt_output* feeds; /* for the feed checks */
};

grt_status* grt_graph_output(const grt_graph* g, const char* name, grt_output* out) {
  const char* src;
  size_t len;
  int32_t port;
  bool control;
  if (!g || !name || !out) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph, name or output");
  if (!grt_parse_input_spec(name, &src, &len, &port, &control) || control)
    return GRT_ERROR(INVALID_ARGUMENT, "'%s' is not a tensor name (\"node\" or \"node:k\")", name);
  int32_t node = grt_strmap_getn(&g->by_name, src, len);
  if (node < 0)
    return GRT_ERROR(NOT_FOUND, "'%s': the graph has no node named '%.*s'", name, (int)len, src);
  const grt_node* n = &g->nodes[node];
  if (port >= n->sig.n_outputs)
    return GRT_ERROR(OUT_OF_RANGE, "'%s': node '%s' (%s) has %d output%s", name, n->name, n->op,
                     (int)n->sig.n_outputs, n->sig.n_outputs == 1 ? "" : "s");
  out->node = node;
  out->port = port;
  return NULL;
}

static grt_status* check_output(const grt_graph* g, const char* what, grt_output o) {
  if (o.node < 0 || o.node >= g->n_nodes)
    return GRT_ERROR(OUT_OF_RANGE, "%s: node index %d is out of range (the graph has %d nodes)",
                     what, (int)o.node, (int)g->n_nodes);
  const grt_node* n = &g->nodes[o.node];
  if (o.port < 0 || o.port >= n->sig.n_outputs)
    return GRT_ERROR(OUT_OF_RANGE, "%s: node '%s' (%s) has no output %d", what, n->name, n->op,
                     (int)o.port);
  return NULL;
}

static grt_status* make(grt_session* s, const grt_run_signature* sig, grt_callable** out) {
  grt_callable* c = grt_calloc(1, sizeof *c);
  grt_output* feeds = grt_malloc(((size_t)sig->n_feeds + 1) * sizeof *feeds);
  if (!c || !feeds) {
    grt_free(c);
    grt_free(feeds);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making a callable");
  }
  grt_status* st = grt_executable_build(s, sig, &c->e);
  if (st) {
    grt_free(c);
    grt_free(feeds);
    return st;
  }
  memcpy(feeds, sig->feeds, (size_t)sig->n_feeds * sizeof *feeds);
  if (s->opts.graph_capture && (st = grt_capture_new(s, c->e, feeds, &c->capture))) {
    grt_executable_free(c->e);
    grt_free(c);
    grt_free(feeds);
    return st;
  }
  c->s = s;
  c->feeds = feeds;
  c->n_feeds = sig->n_feeds;
  c->n_fetches = sig->n_fetches;
  *out = c;
  return NULL;
}

/* The argument checks both constructors share (pointers as void: one takes
 * handles, the other names). */
static grt_status* check_arguments(const grt_session* s, const void* feeds, int32_t n_feeds,
                                   const void* fetches, int32_t n_fetches, const void* targets,
                                   int32_t n_targets, grt_callable** out) {
  if (!out) return GRT_ERROR(INVALID_ARGUMENT, "NULL callable out-parameter");
  *out = NULL;
  if (!s || n_feeds < 0 || n_fetches < 0 || n_targets < 0 || (n_feeds && !feeds) ||
      (n_fetches && !fetches) || (n_targets && !targets))
    return GRT_ERROR(INVALID_ARGUMENT, "inconsistent feed/fetch/target arguments");
  if (n_fetches == 0 && n_targets == 0)
    return GRT_ERROR(INVALID_ARGUMENT, "a callable needs at least one fetch or target");
  return NULL;
}

/* An optimized session's callable by the user's graph's handles: they
 * index the user's graph, so they go by name (and the route decides). */
static grt_status* by_user_index(grt_session* s, const grt_output* feeds, int32_t n_feeds,
                                 const grt_output* fetches, int32_t n_fetches,
                                 const int32_t* targets, int32_t n_targets, grt_callable** out) {
  const grt_graph* g = s->user_graph;
  for (int32_t i = 0; i < n_feeds; i++) GRT_RETURN_IF_ERROR(check_output(g, "feed", feeds[i]));
  for (int32_t i = 0; i < n_fetches; i++) GRT_RETURN_IF_ERROR(check_output(g, "fetch", fetches[i]));
  for (int32_t i = 0; i < n_targets; i++)
    if (targets[i] < 0 || targets[i] >= g->n_nodes)
      return GRT_ERROR(OUT_OF_RANGE,
                       "target: node index %d is out of range (the graph has %d nodes)",
                       (int)targets[i], (int)g->n_nodes);
  int32_t n = n_feeds + n_fetches + n_targets;
  char** names = grt_calloc((size_t)n + 1, sizeof *names);
  grt_status* st = names ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making a callable");
  for (int32_t i = 0; i < n && !st; i++) {
    const grt_output* o = i < n_feeds               ? &feeds[i]
                          : i < n_feeds + n_fetches ? &fetches[i - n_feeds]
                                                    : NULL;
    const char* node = g->nodes[o ? o->node : targets[i - n_feeds - n_fetches]].name;
    size_t len = strlen(node) + 16;
    names[i] = grt_malloc(len);
    if (!names[i]) {
      st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making a callable");
      break;
    }
    if (o)
      snprintf(names[i], len, "%s:%d", node, (int)o->port);
    else
      snprintf(names[i], len, "%s", node);
  }
  if (!st)
    st = grt_session_make_callable_by_name(
        s, (const char* const*)names, n_feeds, (const char* const*)names + n_feeds, n_fetches,
        (const char* const*)names + n_feeds + n_fetches, n_targets, out);
  for (int32_t i = 0; names && i < n; i++) grt_free(names[i]);
  grt_free(names);
  return st;
}

grt_status* grt_session_make_callable(grt_session* s, const grt_output* feeds, int32_t n_feeds,
                                      const grt_output* fetches, int32_t n_fetches,
                                      const int32_t* targets, int32_t n_targets,
                                      grt_callable** out) {
  GRT_RETURN_IF_ERROR(
      check_arguments(s, feeds, n_feeds, fetches, n_fetches, targets, n_targets, out));
  if (s->user_graph)
    return by_user_index(s, feeds, n_feeds, fetches, n_fetches, targets, n_targets, out);
  const grt_graph* g = s->graph;
  for (int32_t i = 0; i < n_feeds; i++) GRT_RETURN_IF_ERROR(check_output(g, "feed", feeds[i]));
  for (int32_t i = 0; i < n_fetches; i++) GRT_RETURN_IF_ERROR(check_output(g, "fetch", fetches[i]));
  for (int32_t i = 0; i < n_targets; i++)
    if (targets[i] < 0 || targets[i] >= g->n_nodes)
      return GRT_ERROR(OUT_OF_RANGE,
                       "target: node index %d is out of range (the graph has %d nodes)",
                       (int)targets[i], (int)g->n_nodes);
  grt_run_signature sig = {
      n_feeds, n_fetches, n_targets, (grt_output*)feeds, (grt_output*)fetches, (int32_t*)targets};
  return make(s, &sig, out);
}

grt_status* grt_session_make_callable_by_name(grt_session* s, const char* const* feeds,
                                              int32_t n_feeds, const char* const* fetches,
                                              int32_t n_fetches, const char* const* targets,
                                              int32_t n_targets, grt_callable** out) {
  GRT_RETURN_IF_ERROR(
      check_arguments(s, feeds, n_feeds, fetches, n_fetches, targets, n_targets, out));
  grt_feed* named = grt_calloc((size_t)n_feeds + 1, sizeof *named);
  if (!named) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making a callable");
  for (int32_t i = 0; i < n_feeds; i++) named[i].name = feeds[i];
  grt_status* rs = grt_session_route(s, named, n_feeds, fetches, n_fetches, targets, n_targets, &s);
  if (rs) {
    grt_free(named);
    return rs;
  }
  grt_run_signature sig;
  grt_status* st = grt_run_signature_resolve(s->graph, named, n_feeds, fetches, n_fetches, targets,
                                             n_targets, &sig);
  grt_free(named);
  if (st) return st;
  st = make(s, &sig, out);
  grt_run_signature_clear(&sig);
  return st;
}

void grt_callable_free(grt_callable* c) {
  if (!c) return;
  grt_capture_free(c->capture);
  grt_executable_free(c->e);
  grt_free(c->feeds);
  grt_free(c);
}

grt_status* grt_callable_run(grt_callable* c, grt_tensor* const* feeds, grt_tensor** out_values,
                             grt_trace* trace) {
  return grt_callable_run_with_options(c, NULL, feeds, out_values, trace);
}

grt_status* grt_callable_run_with_options(grt_callable* c, const grt_run_options* opts,
                                          grt_tensor* const* feeds, grt_tensor** out_values,
                                          grt_trace* trace) {
  if (!c) return GRT_ERROR(INVALID_ARGUMENT, "NULL callable");
  if ((c->n_feeds && !feeds) || (c->n_fetches && !out_values))
    return GRT_ERROR(INVALID_ARGUMENT, "NULL feeds or out_values for a callable that has them");
  for (int32_t i = 0; i < c->n_fetches; i++) out_values[i] = NULL;
  for (int32_t i = 0; i < c->n_feeds; i++)
    GRT_RETURN_IF_ERROR(grt_session_check_feed(c->s, c->feeds[i], NULL, feeds[i]));
  if (trace) grt_trace_begin_run(trace, c->s);
  if (c->capture) return grt_capture_call(c->capture, opts, feeds, out_values, trace);
  return grt_executor_run(c->s, c->e, opts, feeds, out_values, trace);
}

size_t grt_callable_capture_report(const grt_callable* c, char* buf, size_t size) {
  if (!c) return (size_t)snprintf(buf, size, "NULL callable");
  if (!c->capture) return (size_t)snprintf(buf, size, "off (session option graph_capture)");
  return grt_capture_report(c->capture, buf, size);
}
