/* grt run FILE [--devices SPEC] [--soft-placement] [--log-device-placement] [--no-rewrite]
 *              [--feed NAME=VALUE]... [--fetch NAME[:K]]... [--target NAME]...
 *              [--init TARGET] [--restore CKPT] [--steps N] [--quiet]
 *              [--save CKPT] [--trace OUT.json]
 *              [--memory-limit BYTES[K|M|G]] [--timeout-ms MS] [--compact] [--no-mmap]
 *              [--graph-capture] [--cluster JOB:N,...] [--option KEY=VALUE]...
 * grt run --help: this, and every session option (grt_session_options_describe).
 * Runs a graph through a session; fetches are printed as JSON tensors, one
 * per line, after the last step. --restore loads the variables after
 * --init, --save writes them after the last step (docs/checkpoint-format.md).
 * With --steps N on a terminal, a progress line goes to stderr at most once a
 * second (step, steps/s, the first fetch when it is a scalar); --quiet
 * silences it. With --cluster (under mpirun: docs/distributed.md) every rank
 * runs its task's part and rank 0 alone prints the fetches. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grt/grt.h"
#include "tools/closest.h"
#include "tools/commands.h"
#include "tools/report.h"

static const char kUsage[] =
    "usage: grt run FILE [--devices SPEC] [--soft-placement] [--log-device-placement] "
    "[--no-rewrite] [--optimizer-report]\n"
    "               [--feed NAME=VALUE]... [--fetch NAME[:K]]... [--target NAME]...\n"
    "               [--init TARGET] [--restore CKPT] [--steps N] [--quiet]\n"
    "               [--save CKPT] [--trace OUT.json]\n"
    "               [--memory-limit BYTES[K|M|G]] [--timeout-ms MS] [--compact] [--no-mmap]\n"
    "               [--graph-capture] [--cluster JOB:N,...] [--option KEY=VALUE]...\n"
    "  VALUE: a JSON tensor {\"dtype\",\"shape\",\"values\"} or @file.npy\n"
    "  --option KEY=VALUE: a session option (listed below by --help), set after the flags' own\n"
    "  --cluster ps:1,worker:2: one task of a cluster of processes; run under mpirun -np N\n";

typedef struct {
  const char* file;
  const char* devices;
  const char* cluster; /* session option cluster */
  bool soft, log;
  bool no_rewrite;       /* session option rewrite=false */
  bool optimizer_report; /* the optimizer's report on stderr once the session is made */
  const char* init;
  long steps;
  const char* trace;
  const char* save;
  const char* restore;
  bool quiet;
  const char* memory_limit;
  long long timeout_ms;
  bool compact;
  bool no_mmap;
  bool graph_capture; /* steps through a callable with graph_capture */
  int n_feeds, n_fetches, n_targets, n_options;
  const char** options; /* "KEY=VALUE" of --option, set after the flags' options */
  grt_feed* feeds;
  const char** fetches;
  const char** targets;
} run_args;

static int usage(const char* why) {
  if (why) fprintf(stderr, "grt run: %s\n", why);
  fputs(kUsage, stderr);
  return 2;
}

/* "--opt VALUE" or "--opt=VALUE". */
static const char* value_of(int argc, char** argv, int* i, const char* opt) {
  size_t n = strlen(opt);
  if (strncmp(argv[*i], opt, n) != 0) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n] != '\0' || *i + 1 >= argc) return NULL;
  return argv[++*i];
}

static int parse_args(int argc, char** argv, run_args* a) {
  a->feeds = calloc((size_t)argc, sizeof *a->feeds);
  a->fetches = calloc((size_t)argc, sizeof *a->fetches);
  a->targets = calloc((size_t)argc, sizeof *a->targets);
  a->options = calloc((size_t)argc, sizeof *a->options);
  a->steps = 1;
  if (!a->feeds || !a->fetches || !a->targets || !a->options) return usage("out of memory");
  for (int i = 1; i < argc; i++) {
    const char* v;
    if (argv[i][0] != '-') {
      if (a->file) return usage("more than one FILE given");
      a->file = argv[i];
    } else if (!strcmp(argv[i], "--no-rewrite")) {
      a->no_rewrite = true;
    } else if (!strcmp(argv[i], "--optimizer-report")) {
      a->optimizer_report = true;
    } else if (!strcmp(argv[i], "--soft-placement")) {
      a->soft = true;
    } else if (!strcmp(argv[i], "--log-device-placement") || !strcmp(argv[i], "--log")) {
      a->log = true;
    } else if ((v = value_of(argc, argv, &i, "--devices"))) {
      a->devices = v;
    } else if ((v = value_of(argc, argv, &i, "--cluster"))) {
      a->cluster = v;
    } else if ((v = value_of(argc, argv, &i, "--feed"))) {
      const char* eq = strchr(v, '=');
      if (!eq || eq == v) return usage("--feed needs NAME=VALUE");
      a->feeds[a->n_feeds++].name = v; /* split later */
    } else if ((v = value_of(argc, argv, &i, "--fetch"))) {
      a->fetches[a->n_fetches++] = v;
    } else if ((v = value_of(argc, argv, &i, "--option"))) {
      const char* eq = strchr(v, '=');
      if (!eq || eq == v) return usage("--option needs KEY=VALUE");
      a->options[a->n_options++] = v;
    } else if ((v = value_of(argc, argv, &i, "--target"))) {
      a->targets[a->n_targets++] = v;
    } else if ((v = value_of(argc, argv, &i, "--init"))) {
      a->init = v;
    } else if ((v = value_of(argc, argv, &i, "--steps"))) {
      char* end;
      errno = 0;
      a->steps = strtol(v, &end, 10);
      if (!*v || *end || errno || a->steps < 1) return usage("--steps needs a positive integer");
    } else if ((v = value_of(argc, argv, &i, "--trace"))) {
      a->trace = v;
    } else if ((v = value_of(argc, argv, &i, "--save"))) {
      a->save = v;
    } else if ((v = value_of(argc, argv, &i, "--restore"))) {
      a->restore = v;
    } else if (!strcmp(argv[i], "--quiet")) {
      a->quiet = true;
    } else if ((v = value_of(argc, argv, &i, "--memory-limit"))) {
      a->memory_limit = v; /* checked by the session option */
    } else if ((v = value_of(argc, argv, &i, "--timeout-ms"))) {
      char* end;
      errno = 0;
      a->timeout_ms = strtoll(v, &end, 10);
      if (!*v || *end || errno || a->timeout_ms < 0)
        return usage("--timeout-ms needs a non-negative integer (0: no deadline)");
    } else if (!strcmp(argv[i], "--compact")) {
      a->compact = true;
    } else if (!strcmp(argv[i], "--graph-capture")) {
      a->graph_capture = true;
    } else if (!strcmp(argv[i], "--no-mmap")) {
      a->no_mmap = true;
    } else {
      fprintf(stderr, "grt run: unknown or incomplete option '%s'\n", argv[i]);
      return usage(NULL);
    }
  }
  if (!a->file) return usage("no FILE given");
  if (a->n_fetches == 0 && a->n_targets == 0 && !a->init && !a->restore && !a->save)
    return usage("nothing to run: give --fetch, --target, --init, --restore or --save");
  return 0;
}

/* "cpu:N[,gpu:M,...]" -> session options; every device but the logical
 * CPUs must exist on this machine (grt place plans for absent devices, grt
 * run cannot run on them). */
static grt_status* apply_devices(const char* spec, grt_session_options* o) {
  grt_device_set* ds = NULL;
  grt_status* st = grt_device_set_from_spec(spec, &ds);
  if (st) return st;
  int32_t cpus = grt_device_set_count_type(ds, "CPU");
  for (int32_t i = 0; !st && i < grt_device_set_count(ds); i++) {
    if (grt_device_set_present(ds, i)) continue;
    const char* type = grt_device_set_type(ds, i);
    int32_t asked = grt_device_set_count_type(ds, type), have = 0;
    for (int32_t j = 0; j < grt_device_set_count(ds); j++)
      have += grt_device_set_present(ds, j) && strcmp(grt_device_set_type(ds, j), type) == 0;
    st = grt_status_new(GRT_FAILED_PRECONDITION,
                        "--devices %s asks for %d %s%s, but this machine has %d (grt place "
                        "can plan for devices you don't have; grt run needs them)",
                        spec, (int)asked, type, asked == 1 ? "" : "s", (int)have);
  }
  grt_device_set_free(ds);
  if (st) return st;
  char n[32];
  snprintf(n, sizeof n, "%d", (int)(cpus > 0 ? cpus : 1));
  return grt_session_options_set(o, "cpu.devices", n);
}

/* NAME=VALUE with VALUE a JSON tensor or @file.npy. */
static grt_status* load_feed(grt_feed* f) {
  char* eq = strchr(f->name, '=');
  *eq = '\0';
  const char* v = eq + 1;
  grt_status* s = v[0] == '@' ? grt_npy_read(v + 1, &f->value)
                              : grt_json_tensor_from_text(v, strlen(v), &f->value);
  return s ? grt_status_prefix(s, "--feed %s", f->name) : NULL;
}

/* Every element, unless --compact asks for the short form a person reads
 * (one value for a uniform tensor, base64 for big or non-finite ones). */
static grt_status* print_tensor(const char* name, const grt_tensor* t, bool compact) {
  char* text;
  size_t len;
  grt_status* s = grt_json_tensor_format(t, compact ? GRT_JSON_TENSOR_COMPACT : 0, &text, &len);
  if (s) return grt_status_prefix(s, "fetch '%s'", name);
  fwrite(text, 1, len, stdout);
  fputc('\n', stdout);
  free(text);
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One progress line on stderr: the step, the rate since the first step,
 * and the first fetch when it is a float scalar (the loss, usually). */
static void print_progress(const run_args* a, long step, double start, grt_tensor* const* out) {
  double rate = (double)step / (now_s() - start + 1e-9);
  fprintf(stderr, "step %ld/%ld  %.1f steps/s", step, a->steps, rate);
  const grt_tensor* t = a->n_fetches ? out[0] : NULL;
  if (t && grt_tensor_num_elements(t) == 1 && grt_tensor_dtype(t) == GRT_FLOAT32)
    fprintf(stderr, "  %s=%.6g", a->fetches[0], (double)*(const float*)grt_tensor_data(t));
  else if (t && grt_tensor_num_elements(t) == 1 && grt_tensor_dtype(t) == GRT_FLOAT64)
    fprintf(stderr, "  %s=%.6g", a->fetches[0], *(const double*)grt_tensor_data(t));
  fputc('\n', stderr);
}

static grt_status* write_trace(void* trace, FILE* f) { return grt_trace_write_json(trace, f); }

/* A name a flag gives that the graph lacks, caught before the session is
 * made, with what was probably meant: the closest node names, and for a
 * feed the graph's Placeholders (what is usually fed). */
static grt_status* check_name(const grt_graph* g, const char* flag, const char* name) {
  /* Feeds and fetches name tensors ("node:k"); targets and --init nodes. */
  bool tensor = strcmp(flag, "--feed") == 0 || strcmp(flag, "--fetch") == 0;
  grt_output o;
  grt_status* st = tensor ? grt_graph_output(g, name, &o)
                   : grt_graph_find_node(g, name) < 0
                       ? grt_status_new(GRT_NOT_FOUND, "no node named '%s'", name)
                       : NULL;
  if (st && grt_status_code(st) != GRT_NOT_FOUND) return grt_status_prefix(st, "%s", flag);
  if (!st) return NULL;
  int32_t n = grt_graph_num_nodes(g);
  const char** names = calloc((size_t)n + 1, sizeof *names);
  if (!names) return st;
  int32_t n_ph = 0;
  for (int32_t i = 0; i < n; i++) names[i] = grt_graph_node_name(g, i);
  const char* close[3];
  size_t len = strcspn(name, ":");
  char* base = strndup(name, len);
  size_t found = base ? grt_closest_names(base, names, (size_t)n, close, 3) : 0;
  free(base);
  char hint[1024] = "";
  size_t at = 0;
  for (size_t k = 0; k < found && at < sizeof hint; k++)
    at += (size_t)snprintf(hint + at, sizeof hint - at, "%s'%s'",
                           k == 0           ? "; did you mean "
                           : k + 1 == found ? " or "
                                            : ", ",
                           close[k]);
  if (found && at < sizeof hint) at += (size_t)snprintf(hint + at, sizeof hint - at, "?");
  if (strcmp(flag, "--feed") == 0) {
    for (int32_t i = 0; i < n && at < sizeof hint; i++) {
      if (strcmp(grt_graph_node_op(g, i), "Placeholder") != 0) continue;
      if (n_ph++ == 8) {
        at += (size_t)snprintf(hint + at, sizeof hint - at, ", ...");
        break;
      }
      at += (size_t)snprintf(hint + at, sizeof hint - at, "%s%s",
                             n_ph == 1 ? " (its placeholders: " : ", ", names[i]);
    }
    if (n_ph && at < sizeof hint) snprintf(hint + at, sizeof hint - at, ")");
  }
  free(names);
  grt_status* out = grt_status_new(GRT_NOT_FOUND, "%s %s: the graph has no node named '%.*s'%s",
                                   flag, name, (int)len, name, hint);
  grt_status_free(st);
  return out;
}

/* Every name the flags give (feeds, fetches, targets, --init). */
static grt_status* check_names(const grt_graph* g, const run_args* a) {
  grt_status* st = NULL;
  for (int i = 0; !st && i < a->n_feeds; i++) st = check_name(g, "--feed", a->feeds[i].name);
  for (int i = 0; !st && i < a->n_fetches; i++) st = check_name(g, "--fetch", a->fetches[i]);
  for (int i = 0; !st && i < a->n_targets; i++) st = check_name(g, "--target", a->targets[i]);
  if (!st && a->init) st = check_name(g, "--init", a->init);
  return st;
}

static grt_status* run(run_args* a) {
  grt_graph* g = NULL;
  grt_session_options* o = NULL;
  grt_session* s = NULL;
  grt_trace* trace = NULL;
  grt_tensor** out = calloc((size_t)a->n_fetches + 1, sizeof *out);
  grt_status* st = out ? NULL : grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  for (int i = 0; !st && i < a->n_feeds; i++) st = load_feed(&a->feeds[i]);
  if (!st) st = grt_graph_load_flags(a->file, a->no_mmap ? GRT_LOAD_NO_MMAP : 0, &g);
  if (!st) st = check_names(g, a);
  if (!st) st = grt_session_options_new(&o);
  if (!st && a->devices) st = apply_devices(a->devices, o);
  if (!st && a->soft) st = grt_session_options_set(o, "allow_soft_placement", "true");
  if (!st && a->log) st = grt_session_options_set(o, "log_device_placement", "true");
  if (!st && a->no_rewrite) st = grt_session_options_set(o, "rewrite", "false");
  if (!st && a->memory_limit) {
    st = grt_session_options_set(o, "memory_limit", a->memory_limit);
    if (st) st = grt_status_prefix(st, "--memory-limit");
  }
  if (!st && a->graph_capture) st = grt_session_options_set(o, "graph_capture", "true");
  if (!st && a->cluster && (st = grt_session_options_set(o, "cluster", a->cluster)))
    st = grt_status_prefix(st, "--cluster");
  for (int i = 0; !st && i < a->n_options; i++) {
    const char* eq = strchr(a->options[i], '=');
    char* key = strndup(a->options[i], (size_t)(eq - a->options[i]));
    st = key ? grt_session_options_set(o, key, eq + 1)
             : grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
    free(key);
    if (st) st = grt_status_prefix(st, "--option %s", a->options[i]);
  }
  grt_run_options* ro = NULL;
  if (!st) st = grt_run_options_new(&ro);
  if (!st) st = grt_run_options_set_timeout_ms(ro, a->timeout_ms);
  if (!st) st = grt_session_new(g, o, &s);
  if (!st && a->optimizer_report) {
    char report[8192];
    grt_session_optimizer_report(s, report, sizeof report);
    fputs(report, stderr);
  }
  if (!st && a->trace) st = grt_trace_new(&trace);
  if (!st && a->init) {
    const char* init[] = {a->init};
    st = grt_session_run_with_options(s, ro, NULL, 0, NULL, 0, init, 1, NULL, trace);
    if (st) st = grt_status_prefix(st, "--init %s", a->init);
  }
  if (!st && a->restore) st = grt_session_restore_variables(s, a->restore);
  /* --graph-capture: the steps run as one callable, recorded on its second
   * call and replayed after where the device can record. */
  grt_callable* c = NULL;
  grt_tensor** fed = NULL;
  if (!st && a->graph_capture && (a->n_fetches || a->n_targets)) {
    fed = calloc((size_t)a->n_feeds + 1, sizeof *fed);
    const char** names = calloc((size_t)a->n_feeds + 1, sizeof *names);
    if (!fed || !names) st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
    for (int i = 0; !st && i < a->n_feeds; i++) {
      fed[i] = a->feeds[i].value;
      names[i] = a->feeds[i].name;
    }
    if (!st)
      st = grt_session_make_callable_by_name(s, names, a->n_feeds, a->fetches, a->n_fetches,
                                             a->targets, a->n_targets, &c);
    free(names);
  }
  /* In a cluster, rank 0 speaks for every task (fetches are gathered to it). */
  bool speaks = !s || grt_session_cluster_rank(s) <= 0;
  bool progress = !a->quiet && a->steps > 1 && isatty(STDERR_FILENO) && speaks;
  double start = now_s(), last_line = start;
  for (long step = 0; !st && step < a->steps && (a->n_fetches || a->n_targets); step++) {
    for (int i = 0; i < a->n_fetches; i++) {
      grt_tensor_free(out[i]);
      out[i] = NULL;
    }
    if (c)
      st = grt_callable_run_with_options(c, ro, fed, out, trace);
    else
      st = grt_session_run_with_options(s, ro, a->feeds, a->n_feeds, a->fetches, a->n_fetches,
                                        a->targets, a->n_targets, out, trace);
    if (st && a->steps > 1) st = grt_status_prefix(st, "step %ld", step + 1);
    if (!st && progress && (now_s() - last_line >= 1.0 || step + 1 == a->steps)) {
      print_progress(a, step + 1, start, out);
      last_line = now_s();
    }
  }
  if (!st && c && !a->quiet) {
    char report[600];
    grt_callable_capture_report(c, report, sizeof report);
    fprintf(stderr, "graph capture: %s\n", report);
  }
  grt_callable_free(c);
  free(fed);
  if (!st && a->save) st = grt_session_save_variables(s, a->save);
  for (int i = 0; !st && speaks && i < a->n_fetches; i++)
    st = print_tensor(a->fetches[i], out[i], a->compact);
  if (!st && trace) st = grt_write_file_atomic(a->trace, write_trace, trace);
  for (int i = 0; out && i < a->n_fetches; i++) grt_tensor_free(out[i]);
  free(out);
  for (int i = 0; i < a->n_feeds; i++) grt_tensor_free(a->feeds[i].value);
  grt_trace_free(trace);
  grt_run_options_free(ro);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
  return st;
}

/* grt run --help: the usage, then every session option --option takes, as
 * the library's table and the backends' declarations describe them (so the
 * list cannot drift from what the library accepts). */
static int help(void) {
  fputs(kUsage, stdout);
  size_t need = grt_session_options_describe(NULL, 0);
  char* text = malloc(need + 1);
  if (!text) return usage("out of memory");
  grt_session_options_describe(text, need + 1);
  printf("\nsession options (--option KEY=VALUE; docs/session-options.md):\n");
  for (char* line = text; *line;) {
    char* nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    char* f[4] = {line, "", "", ""};
    for (int k = 1; k < 4; k++) {
      char* tab = strchr(f[k - 1], '\t');
      if (!tab) break;
      *tab = '\0';
      f[k] = tab + 1;
    }
    printf("  %-22s %s (default %s)\n  %-22s %s\n", f[0], f[1], *f[2] ? f[2] : "none", "", f[3]);
    if (!nl) break;
    line = nl + 1;
  }
  free(text);
  return 0;
}

int grt_cmd_run(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return help();
  run_args a;
  memset(&a, 0, sizeof a);
  int rc = parse_args(argc, argv, &a);
  if (rc == 0) {
    fflush(stdout);
    grt_status* st = run(&a);
    if (st) {
      fflush(stdout);
      grt_cli_report("run", st);
      grt_status_free(st);
      rc = 1;
    }
  }
  free(a.feeds);
  free(a.fetches);
  free(a.targets);
  free(a.options);
  return rc;
}
