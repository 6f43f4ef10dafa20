/* grt run FILE [options] (the option table below; docs/cli.md).
 * grt run --help: this, and every session option (grt_session_options_describe).
 * Runs a graph through a session; fetches are printed as JSON tensors, one
 * per line, after the last step. --restore loads the variables after
 * --init, --save writes them after the last step (docs/checkpoint-format.md).
 * The steps run through one callable (feeds read once, the executable built
 * once).
 * With --steps N on a terminal, a progress line goes to stderr at most once a
 * second (step, steps/s, the first fetch when it is a scalar); --quiet
 * silences it. With --cluster (under mpirun: docs/distributed.md) every rank
 * runs its task's part and rank 0 alone prints the fetches. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grt/grt.h"
#include "tools/closest.h"
#include "tools/commands.h"
#include "tools/hints.h"
#include "tools/option_flag.h"
#include "tools/options.h"
#include "tools/report.h"

typedef struct {
  const char* file;
  const char* devices;
  bool soft, log;
  const char* log_file;  /* the library's messages (the placement log) to this file */
  bool no_rewrite;       /* session option rewrite=false */
  bool optimizer_report; /* the optimizer's report on stderr once the session is made */
  const char* init;
  const char* steps_text;
  long steps;
  const char* trace;
  const char* save;
  const char* restore;
  bool quiet;
  const char* memory_limit;
  const char* cluster; /* session option cluster */
  const char* timeout_text;
  long long timeout_ms;
  bool compact;
  bool no_mmap;
  bool graph_capture; /* steps through a callable with graph_capture */
  grt_cli_list feed_args, fetch_args, target_args;
  grt_cli_list options; /* "KEY=VALUE" of --option, set after the flags' options */
  int n_feeds, n_fetches, n_targets;
  grt_feed* feeds;
  const char** fetches;
  const char** targets;
} run_args;

static const grt_cli_option kOptions[] = {
    {"--devices", NULL, GRT_CLI_VALUE, offsetof(run_args, devices), "SPEC",
     "cpu:N logical CPUs; every other device must exist (default: all found)"},
    {"--soft-placement", NULL, GRT_CLI_FLAG, offsetof(run_args, soft), NULL,
     "a request that cannot be met falls back to a device that can run the node"},
    {"--log-device-placement", "--log", GRT_CLI_FLAG, offsetof(run_args, log), NULL,
     "the placement log on stderr (fetches alone stay on stdout)"},
    {"--log-file", NULL, GRT_CLI_VALUE, offsetof(run_args, log_file), "FILE",
     "the placement log to FILE instead (implies --log-device-placement)"},
    {"--no-rewrite", NULL, GRT_CLI_FLAG, offsetof(run_args, no_rewrite), NULL,
     "no graph optimizer: every node runs as written"},
    {"--optimizer-report", NULL, GRT_CLI_FLAG, offsetof(run_args, optimizer_report), NULL,
     "what each optimizer pass did, on stderr"},
    {"--feed", NULL, GRT_CLI_LIST, offsetof(run_args, feed_args), "NAME=VALUE",
     "VALUE a JSON tensor {\"dtype\",\"shape\",\"values\"} or @file.npy"},
    {"--fetch", NULL, GRT_CLI_LIST, offsetof(run_args, fetch_args), "NAME[:K]",
     "printed as a JSON tensor, one a line, after the last step"},
    {"--target", NULL, GRT_CLI_LIST, offsetof(run_args, target_args), "NAME",
     "a node run for its effect"},
    {"--init", NULL, GRT_CLI_VALUE, offsetof(run_args, init), "TARGET",
     "a node run once before the steps (the variables' initialisers)"},
    {"--restore", NULL, GRT_CLI_VALUE, offsetof(run_args, restore), "CKPT",
     "every variable loaded from a checkpoint, after --init"},
    {"--steps", NULL, GRT_CLI_VALUE, offsetof(run_args, steps_text), "N",
     "the feeds, fetches and targets run N times (default 1)"},
    {"--quiet", NULL, GRT_CLI_FLAG, offsetof(run_args, quiet), NULL,
     "no progress lines on a terminal"},
    {"--save", NULL, GRT_CLI_VALUE, offsetof(run_args, save), "CKPT",
     "every variable written to a checkpoint after the last step"},
    {"--trace", NULL, GRT_CLI_VALUE, offsetof(run_args, trace), "OUT.json",
     "a Chrome trace of everything run"},
    {"--memory-limit", NULL, GRT_CLI_VALUE, offsetof(run_args, memory_limit), "BYTES[K|M|G]",
     "each device's allocators hold at most this at once"},
    {"--timeout-ms", NULL, GRT_CLI_VALUE, offsetof(run_args, timeout_text), "MS",
     "each run fails once it has taken MS milliseconds (0: no deadline)"},
    {"--compact", NULL, GRT_CLI_FLAG, offsetof(run_args, compact), NULL,
     "fetched tensors in the short form for people"},
    {"--no-mmap", NULL, GRT_CLI_FLAG, offsetof(run_args, no_mmap), NULL,
     "read a .grt FILE into memory instead of mapping it"},
    {"--graph-capture", NULL, GRT_CLI_FLAG, offsetof(run_args, graph_capture), NULL,
     "the steps run as one callable, recorded once and replayed where the device can"},
    {"--cluster", NULL, GRT_CLI_VALUE, offsetof(run_args, cluster), "JOB:N,...",
     "one task of a cluster of processes, run under mpirun -np N (docs/distributed.md)"},
    {"--option", NULL, GRT_CLI_LIST, offsetof(run_args, options), "KEY=VALUE",
     "a session option (listed below), set after the flags' own"},
};

const grt_cli_syntax grt_run_syntax = {
    "run",
    "FILE [options]",
    "  at least one of --fetch, --target, --init, --restore, --save\n",
    kOptions,
    sizeof kOptions / sizeof kOptions[0],
    {offsetof(run_args, file)},
    1,
    "more than one FILE given ('%s')",
};

static int usage(const char* why) {
  return grt_cli_usage_error(&grt_run_syntax, why ? "%s" : NULL, why);
}

static grt_status* load_feed(grt_feed* f);
static void hint_feed(const run_args* a, const grt_status* st);

/* A flag's value that a session option (`key`) or, with key NULL, the
 * device-spec parser checks (whether the machine has the devices is the
 * run's to find): 0, or the usage error printed. */
static int check_value(const char* flag, const char* key, const char* value) {
  grt_status* st = NULL;
  if (key) {
    st = grt_cli_try_option(key, value);
  } else {
    grt_device_set* ds = NULL;
    st = grt_device_set_from_spec(value, &ds);
    grt_device_set_free(ds);
  }
  if (!st) return 0;
  fprintf(stderr, "grt run: %s %s: %s\n", flag, value, grt_status_message(st));
  grt_status_free(st);
  return usage(NULL);
}

/* 0 parsed, 2 usage error, -1 help printed. */
static int parse_args(int argc, char** argv, run_args* a) {
  int rc = grt_cli_parse(&grt_run_syntax, argc, argv, a);
  if (rc) return rc;
  a->steps = 1;
  if (a->steps_text) {
    char* end;
    errno = 0;
    a->steps = strtol(a->steps_text, &end, 10);
    if (*end || errno || a->steps < 1) return usage("--steps needs a positive integer");
  }
  if (a->timeout_text) {
    char* end;
    errno = 0;
    a->timeout_ms = strtoll(a->timeout_text, &end, 10);
    if (*end || errno || a->timeout_ms < 0)
      return usage("--timeout-ms needs a non-negative integer (0: no deadline)");
  }
  for (int i = 0; i < a->feed_args.n; i++) {
    const char* eq = strchr(a->feed_args.items[i], '=');
    if (!eq || eq == a->feed_args.items[i]) return usage("--feed needs NAME=VALUE");
  }
  if (grt_cli_bad_key_value(&a->options)) return usage("--option needs KEY=VALUE");
  /* Values a session option or the device-spec parser checks are checked
   * now: a malformed one is a usage error (2) like a malformed --steps,
   * not a failed run (1). */
  if (grt_cli_check_options(&grt_run_syntax, &a->options)) return 2;
  if (a->memory_limit && check_value("--memory-limit", "memory_limit", a->memory_limit)) return 2;
  if (a->devices && check_value("--devices", NULL, a->devices)) return 2;
  if (a->log_file) a->log = true;
  if (!a->file) return usage("no FILE given");
  if (!a->fetch_args.n && !a->target_args.n && !a->init && !a->restore && !a->save)
    return usage("nothing to run: give --fetch, --target, --init, --restore or --save");
  /* The feeds are split and loaded later, in place: each NAME=VALUE copied. */
  a->feeds = calloc((size_t)a->feed_args.n + 1, sizeof *a->feeds);
  if (!a->feeds) return usage("out of memory");
  for (int i = 0; i < a->feed_args.n; i++) {
    a->feeds[i].name = strdup(a->feed_args.items[i]);
    if (!a->feeds[i].name) return usage("out of memory");
    a->n_feeds++;
  }
  /* A tensor written on the command line is read now: one that does not
   * parse is a usage error (an @file is read with the graph). */
  for (int i = 0; i < a->n_feeds; i++) {
    if (strchr(a->feeds[i].name, '=')[1] == '@') continue;
    grt_status* st = load_feed(&a->feeds[i]);
    if (st) {
      fprintf(stderr, "grt run: %s\n", grt_status_message(st));
      hint_feed(a, st);
      grt_status_free(st);
      return usage(NULL);
    }
  }
  a->fetches = a->fetch_args.items;
  a->n_fetches = a->fetch_args.n;
  a->targets = a->target_args.items;
  a->n_targets = a->target_args.n;
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

/* A feed value that is not JSON but looks like a .npy name was meant as
 * @file; one that names another file, as that file's text. (By name only:
 * opening it could block on a FIFO.) */
static void hint_feed(const run_args* a, const grt_status* st) {
  const char* message = grt_status_message(st);
  if (strncmp(message, "--feed ", 7) != 0) return;
  for (int i = 0; i < a->n_feeds; i++) {
    const char* name = a->feeds[i].name; /* "NAME", split by load_feed at the '=' */
    size_t n = strlen(name);
    if (strchr(name, '=') || strncmp(message + 7, name, n) != 0 || message[7 + n] != ':') continue;
    const char* v = name + n + 1;
    size_t len = strlen(v);
    bool npy = len > 4 && strcmp(v + len - 4, ".npy") == 0;
    if (v[0] == '@' || v[0] == '{' || (!npy && access(v, F_OK) != 0)) continue;
    if (npy)
      fprintf(stderr, "hint: a feed from a file takes an @: --feed %s=@%s\n", name, v);
    else /* @ reads .npy alone: a JSON file goes in as its text */
      fprintf(stderr,
              "hint: the value is JSON text; --feed %s=@FILE reads a .npy file, and a JSON "
              "file's text goes in as --feed \"%s=$(cat %s)\"\n",
              name, name, v);
    return;
  }
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

/* --log-file: every message of the library, one a line. */
static void log_to_file(void* file, grt_log_level level, const char* message) {
  (void)level;
  fputs(message, file);
  fputc('\n', file);
}

static grt_status* run(run_args* a) {
  grt_graph* g = NULL;
  grt_session_options* o = NULL;
  grt_session* s = NULL;
  grt_trace* trace = NULL;
  grt_tensor** out = calloc((size_t)a->n_fetches + 1, sizeof *out);
  grt_status* st = out ? NULL : grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  FILE* log = NULL;
  if (!st && a->log_file) {
    log = fopen(a->log_file, "w");
    if (!log)
      st = grt_status_new(GRT_UNAVAILABLE, "--log-file %s: cannot open: %s", a->log_file,
                          strerror(errno));
    else
      grt_set_log_sink(log_to_file, log);
  }
  for (int i = 0; !st && i < a->n_feeds; i++)
    if (!a->feeds[i].value) st = load_feed(&a->feeds[i]); /* @files: inline ones are loaded */
  if (!st) st = grt_graph_load_flags(a->file, a->no_mmap ? GRT_LOAD_NO_MMAP : 0, &g);
  if (!st) st = check_names(g, a);
  if (!st) st = grt_session_options_new(&o);
  if (!st && a->devices) st = apply_devices(a->devices, o);
  if (!st && a->cluster && (st = grt_session_options_set(o, "cluster", a->cluster)))
    st = grt_status_prefix(st, "--cluster");
  if (!st && a->soft) st = grt_session_options_set(o, "allow_soft_placement", "true");
  if (!st && a->log) st = grt_session_options_set(o, "log_device_placement", "true");
  if (!st && a->no_rewrite) st = grt_session_options_set(o, "rewrite", "false");
  if (!st && a->memory_limit) {
    st = grt_session_options_set(o, "memory_limit", a->memory_limit);
    if (st) st = grt_status_prefix(st, "--memory-limit");
  }
  if (!st && a->graph_capture) st = grt_session_options_set(o, "graph_capture", "true");
  if (!st) st = grt_cli_set_options(o, &a->options);
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
  if (!st && a->restore) st = grt_session_restore_variables_with_options(s, a->restore, ro);
  /* The steps run through one callable, as a host would: the feeds were
   * parsed and loaded once above, names are resolved and the executable
   * built once here, and each step pays only the callable's run (with
   * --graph-capture, recorded on its second call and replayed after where
   * the device can record). Fetches are formatted after the last step. */
  grt_callable* c = NULL;
  grt_tensor** fed = NULL;
  if (!st && (a->n_fetches || a->n_targets)) {
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
  for (long step = 0; !st && c && step < a->steps; step++) {
    for (int i = 0; i < a->n_fetches; i++) {
      grt_tensor_free(out[i]);
      out[i] = NULL;
    }
    st = grt_callable_run_with_options(c, ro, fed, out, trace);
    if (st && a->steps > 1) st = grt_status_prefix(st, "step %ld", step + 1);
    if (!st && progress && (now_s() - last_line >= 1.0 || step + 1 == a->steps)) {
      print_progress(a, step + 1, start, out);
      last_line = now_s();
    }
  }
  if (!st && c && a->graph_capture && !a->quiet) {
    char report[600];
    grt_callable_capture_report(c, report, sizeof report);
    fprintf(stderr, "graph capture: %s\n", report);
  }
  grt_callable_free(c);
  free(fed);
  if (!st && a->save) st = grt_session_save_variables_with_options(s, a->save, ro);
  for (int i = 0; !st && speaks && i < a->n_fetches; i++)
    st = print_tensor(a->fetches[i], out[i], a->compact);
  if (!st && trace) st = grt_write_file_atomic(a->trace, write_trace, trace);
  if (st) {
    fflush(stdout);
    grt_cli_report("run", st);
    hint_feed(a, st);
    if (!a->init) grt_cli_hint_init(g, st);
  }
  for (int i = 0; out && i < a->n_fetches; i++) grt_tensor_free(out[i]);
  free(out);
  for (int i = 0; i < a->n_feeds; i++) grt_tensor_free(a->feeds[i].value);
  grt_trace_free(trace);
  grt_run_options_free(ro);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
  if (log) {
    grt_set_log_sink(NULL, NULL);
    fclose(log);
  }
  return st;
}

/* grt run --help: the usage, then every session option --option takes, as
 * the library's table and the backends' declarations describe them (so the
 * list cannot drift from what the library accepts). */
static int help(void) {
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
  run_args a;
  memset(&a, 0, sizeof a);
  int rc = parse_args(argc, argv, &a);
  if (rc < 0) rc = help(); /* the usage is out: the session options follow */
  if (rc == 0 && a.file) {
    fflush(stdout);
    grt_status* st = run(&a); /* reported there, with hints */
    if (st) {
      grt_status_free(st);
      rc = 1;
    }
  }
  for (int i = 0; i < a.n_feeds; i++) free((char*)a.feeds[i].name);
  free(a.feeds);
  grt_cli_free(&grt_run_syntax, &a);
  return rc;
}
