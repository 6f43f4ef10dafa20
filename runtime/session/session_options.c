/* Session options: one table of keys, each with its value type, default,
 * documentation, parser and field. The header's option list,
 * docs/session-options.md and `grt run --help` come from it or are checked
 * against it (tests/session/options_doc_test.cc); the keys "type.KEY" of
 * the backends (cpu.devices, gpu.*, a plugin's) come from their
 * declarations (runtime/device/backend_options.h). */
#include "runtime/session/session_options.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "optimizer/optimizer.h"
#include "runtime/cluster/cluster.h"
#include "runtime/session/dims.h"
#include "runtime/device/device.h"

typedef grt_status* (*parse_fn)(const char* key, const char* value, void* field);

static grt_status* parse_bool(const char* key, const char* v, void* field) {
  bool* out = field;
  if (!strcasecmp(v, "true") || !strcmp(v, "1"))
    *out = true;
  else if (!strcasecmp(v, "false") || !strcmp(v, "0"))
    *out = false;
  else
    return GRT_ERROR(INVALID_ARGUMENT, "option %s: '%s' is not a bool (true/false)", key, v);
  return NULL;
}

/* An integer in [min, max]; `what` names it in the error ("an integer",
 * "milliseconds"). */
static grt_status* parse_range(const char* key, const char* v, int64_t min, int64_t max,
                               const char* what, int64_t* out) {
  char* end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || errno || n < min || n > max)
    return GRT_ERROR(INVALID_ARGUMENT, "option %s: '%s' is not %s in [%lld, %lld]", key, v, what,
                     (long long)min, (long long)max);
  *out = n;
  return NULL;
}

static grt_status* parse_count(const char* key, const char* v, int64_t min, int64_t* out) {
  return parse_range(key, v, min, 4096, "an integer", out);
}

static grt_status* parse_count0(const char* key, const char* v, void* f) {
  return parse_count(key, v, 0, f);
}
/* Milliseconds, 0 to an hour. */
static grt_status* parse_millis(const char* key, const char* v, void* field) {
  return parse_range(key, v, 0, 3600000, "milliseconds", field);
}

static grt_status* parse_string(const char* key, const char* v, void* field) {
  char* copy = grt_strdup(v);
  if (!copy) return GRT_ERROR(RESOURCE_EXHAUSTED, "option %s: out of memory", key);
  grt_free(*(char**)field);
  *(char**)field = copy;
  return NULL;
}

static grt_status* parse_strategy(const char* key, const char* v, void* field) {
  if (strcmp(v, "greedy") && strcmp(v, "round_robin"))
    return GRT_ERROR(INVALID_ARGUMENT, "option %s: '%s' is not greedy or round_robin", key, v);
  return parse_string(key, v, field);
}

/* A byte count with an optional K, M or G suffix (powers of 1024): "512M".
 * 0 means no limit. */
static grt_status* parse_bytes(const char* key, const char* v, void* field) {
  char* end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  int64_t unit = 1;
  if (end != v && (*end == 'K' || *end == 'k'))
    unit = (int64_t)1 << 10, end++;
  else if (end != v && (*end == 'M' || *end == 'm'))
    unit = (int64_t)1 << 20, end++;
  else if (end != v && (*end == 'G' || *end == 'g'))
    unit = (int64_t)1 << 30, end++;
  int64_t bytes;
  if (!*v || end == v || *end || errno || n < 0 || __builtin_mul_overflow((int64_t)n, unit, &bytes))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "option %s: '%s' is not a byte count (a non-negative integer with an "
                     "optional K, M or G suffix)",
                     key, v);
  *(int64_t*)field = bytes;
  return NULL;
}

/* A list of optimizer passes: checked against the pass table, kept as
 * written. */
static grt_status* parse_pass_list(const char* key, const char* v, void* field) {
  uint64_t bits;
  grt_status* st = grt_opt_parse_pass_list(v, &bits);
  if (st) return grt_status_prefix(st, "option %s", key);
  return parse_string(key, v, field);
}

/* "NAME=SIZE,...", checked by the parser the binding uses (dims.c). */
static grt_status* parse_dims(const char* key, const char* v, void* field) {
  grt_dim_binding b[GRT_MAX_DIM_BINDINGS];
  int32_t n;
  GRT_RETURN_IF_ERROR(grt_dims_parse(v, b, &n));
  return parse_string(key, v, field);
}

/* "JOB:N,...", checked by the cluster's parser (runtime/cluster). */
static grt_status* parse_cluster(const char* key, const char* v, void* field) {
  grt_cluster_spec spec;
  if (*v) GRT_RETURN_IF_ERROR(grt_cluster_spec_parse(v, &spec));
  return parse_string(key, v, field);
}

typedef struct {
  const char* key;
  const char* type;          /* what a value looks like */
  const char* default_value; /* parsed into a new options object */
  const char* doc;           /* one line */
  parse_fn parse;
  size_t offset;
} option_row;

#define ROW(k, type, def, doc, fn, field) \
  { k, type, def, doc, fn, offsetof(grt_session_options, field) }
static const option_row kOptions[] = {
    ROW("allow_soft_placement", "bool", "false",
        "a device request that cannot be met falls back instead of failing", parse_bool,
        allow_soft_placement),
    ROW("log_device_placement", "bool", "false",
        "the placement log goes to the log sink at level INFO", parse_bool, log_device_placement),
    ROW("inter_op_threads", "integer 0 to 4096", "0",
        "most threads running ready nodes, started as work needs them; 0: one per online core",
        parse_count0, inter_op_threads),
    ROW("intra_op_threads", "integer 0 to 4096", "0",
        "threads kernels split large element counts over; 0: one per online core", parse_count0,
        intra_op_threads),
    ROW("concurrent_kernels", "bool", "false",
        "expensive nodes of one device ready at once run concurrently on the inter-op pool, "
        "each with a share of intra_op_threads; false: one after another on the thread that "
        "readied them, each with all of it",
        parse_bool, concurrent_kernels),
    ROW("ps.devices", "comma-separated device names", "",
        "runs the ps variable setter over these devices (\"\": no setter)", parse_string,
        ps_devices),
    ROW("ps.strategy", "greedy or round_robin", "greedy", "the ps variable setter's strategy",
        parse_strategy, ps_strategy),
    ROW("memory_limit", "bytes with an optional K, M or G suffix", "0",
        "the most bytes each device's allocators may hold at once; 0: no limit", parse_bytes,
        memory_limit),
    ROW("verify_constants", "bool", "false",
        "check every constant of a .grt file against its stored CRC-32C when the session is made",
        parse_bool, verify_constants),
    ROW("rewrite", "bool", "true",
        "optimize the graph (the passes optimizer_off leaves on) and pack constant weights when "
        "the session is made",
        parse_bool, rewrite),
    ROW("optimizer_off", "comma-separated optimizer pass names, or all", "",
        "graph optimizer passes switched off (grt_graph_optimize lists them; rewrite=false: all)",
        parse_pass_list, optimizer_off),
    ROW("fold_max_bytes", "bytes with an optional K, M or G suffix", "16M",
        "constant folding leaves a value larger than this unfolded", parse_bytes, fold_max_bytes),
    ROW("dims", "comma-separated NAME=SIZE", "",
        "symbolic dimensions (an ONNX model's dim_param) bound to sizes: the graph's inputs "
        "declare them when the session is made",
        parse_dims, dims),
    ROW("graph_capture", "bool", "false",
        "callables record their step once and replay it on a device that can capture", parse_bool,
        graph_capture),
    ROW("cluster", "comma-separated JOB:N", "",
        "runs the session as one task of a cluster of processes (one per MPI rank, tasks in "
        "this order; docs/distributed.md); \"\": this process alone",
        parse_cluster, cluster),
    ROW("cluster_peer_timeout_ms", "milliseconds 0 to 3600000", "8000",
        "a cluster run waiting on a task fails, naming it, once that task has not been heard "
        "from, or has been in no run, for this long (docs/distributed.md); 0: wait for ever",
        parse_millis, cluster_peer_timeout_ms),
};
#undef ROW
enum { kNumOptions = sizeof kOptions / sizeof kOptions[0] };

grt_status* grt_session_options_new(grt_session_options** out) {
  *out = NULL;
  grt_session_options* o = grt_calloc(1, sizeof *o);
  if (!o) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  grt_status* st = grt_backend_values_new(&o->backend);
  for (size_t i = 0; !st && i < kNumOptions; i++)
    st = kOptions[i].parse(kOptions[i].key, kOptions[i].default_value,
                           (char*)o + kOptions[i].offset);
  if (st) {
    grt_session_options_free(o);
    return st;
  }
  *out = o;
  return NULL;
}

void grt_session_options_clear(grt_session_options* o) {
  grt_free(o->ps_devices);
  grt_free(o->ps_strategy);
  grt_free(o->optimizer_off);
  o->optimizer_off = NULL;
  grt_free(o->dims);
  o->dims = NULL;
  grt_free(o->cluster);
  o->cluster = NULL;
  grt_backend_values_free(o->backend);
  o->ps_devices = o->ps_strategy = NULL;
  o->backend = NULL;
}

void grt_session_options_free(grt_session_options* o) {
  if (!o) return;
  grt_session_options_clear(o);
  grt_free(o);
}

grt_status* grt_session_options_copy_into(const grt_session_options* in, grt_session_options* out) {
  grt_session_options* defaults = NULL;
  if (!in) {
    GRT_RETURN_IF_ERROR(grt_session_options_new(&defaults));
    in = defaults;
  }
  *out = *in;
  out->ps_devices = grt_strdup(in->ps_devices);
  out->ps_strategy = grt_strdup(in->ps_strategy);
  out->optimizer_off = grt_strdup(in->optimizer_off);
  out->dims = grt_strdup(in->dims);
  out->cluster = grt_strdup(in->cluster);
  out->backend = NULL;
  grt_status* st = grt_backend_values_copy(in->backend, &out->backend);
  grt_session_options_free(defaults);
  if (!st &&
      (!out->ps_devices || !out->ps_strategy || !out->optimizer_off || !out->dims || !out->cluster))
    st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  if (st) grt_session_options_clear(out);
  return st;
}

/* Every key, the session's and then the backends': "a, b, c". */
static void list_keys(grt_strbuf* out) {
  for (size_t i = 0; i < kNumOptions; i++)
    grt_strbuf_printf(out, "%s%s", i ? ", " : "", kOptions[i].key);
  grt_strbuf lines = {0};
  grt_backend_options_describe(&lines);
  for (const char* p = grt_strbuf_str(&lines); *p;) {
    const char* tab = strchr(p, '\t');
    const char* nl = strchr(p, '\n');
    if (!tab || !nl) break;
    grt_strbuf_printf(out, ", %.*s", (int)(tab - p), p);
    p = nl + 1;
  }
  grt_free(lines.s);
}

grt_status* grt_session_options_set(grt_session_options* o, const char* key, const char* value) {
  if (!o || !key || !value) return GRT_ERROR(INVALID_ARGUMENT, "NULL session option argument");
  for (size_t i = 0; i < kNumOptions; i++) {
    if (strcmp(key, kOptions[i].key) == 0)
      return kOptions[i].parse(key, value, (char*)o + kOptions[i].offset);
  }
  grt_status* st = grt_backend_values_set(o->backend, key, value);
  if (grt_status_code(st) != GRT_NOT_FOUND) return st;
  grt_status_free(st);
  grt_strbuf known = {0};
  list_keys(&known);
  st = known.failed ? GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory")
                    : GRT_ERROR(INVALID_ARGUMENT, "unknown session option '%s' (known: %s)", key,
                                grt_strbuf_str(&known));
  grt_free(known.s);
  return st;
}

size_t grt_session_options_describe(char* buf, size_t size) {
  grt_strbuf b = {0};
  for (size_t i = 0; i < kNumOptions; i++)
    grt_strbuf_printf(&b, "%s\t%s\t%s\t%s\n", kOptions[i].key, kOptions[i].type,
                      kOptions[i].default_value, kOptions[i].doc);
  grt_backend_options_describe(&b);
  size_t len = b.failed ? 0 : b.len;
  if (size) snprintf(buf, size, "%s", b.failed ? "" : grt_strbuf_str(&b));
  grt_free(b.s);
  return len;
}

grt_status* grt_session_options_device_set(const grt_session_options* o, grt_device_set** out) {
  *out = NULL;
  const grt_backend_values* v = o ? o->backend : NULL;
  /* cpu.devices: the CPU's option decides its count (its probe says 1). */
  int32_t cpus = grt_backend_values_devices(v, "CPU", 1);
  return grt_device_set_from_machine_split(cpus, v, out);
}
