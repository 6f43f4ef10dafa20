/* One real model, timed as a host runs it (prints figures; asserts nothing
 * on time). A client of the public C API only.
 *
 *   model_bench MODEL --input IN.npy [--output OUT.npy] [--feed NAME] [--fetch NAME]
 *               [--warmup N] [--runs N] [--seconds S] [--no-rewrite]
 *               [--option KEY=VALUE]... [--serve]
 *
 * MODEL is a .onnx (converted as it loads: that load is the conversion
 * time) or a .grt file. IN.npy is fed to --feed (default: the graph's only
 * Placeholder) and --fetch (default "output", the name bench/models'
 * exporter gives every model) is fetched, through a callable, as a host that
 * runs one signature many times does. Timed, wall clock:
 *   load              grt_graph_load (for an .onnx file: the conversion)
 *   session + first   grt_session_new, the callable and its first run (the
 *                     executable is built then)
 *   runs              --warmup more runs (default 2) untimed, then --runs
 *                     (default 10), continuing until --seconds (default 0)
 *                     have passed, at most 10000: min, median and mean per run
 * The session gets intra_op_threads=2 (ONNX Runtime's setting in
 * run_ort.js) unless an --option sets it; --no-rewrite is rewrite=false.
 * --output writes the first run's output as .npy for the accuracy check.
 *
 * Prints the figures for people, then one line for bench/models/run.sh:
 *   RESULT load_ms=L create_first_ms=C min_ms=M median_ms=D mean_ms=A runs=N
 *
 * --serve: after the warm-up, instead of the timed runs, reads a count K
 * per line on stdin, runs K times and answers one line "TIMES t1 ... tK"
 * (ms), until stdin ends: bench/models/ab.py drives two builds or two
 * settings this way, a few runs of each in turn, so that the machine's
 * swings of speed (2x within minutes on a shared VM) hit both alike.
 * Exit status 0; 1 when the model fails (one line naming the step); 2 for
 * a bad argument. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grt/grt.h"
#include "tools/blas_core.h"
#include "tools/blas_threads.h"

#define MAX_OPTIONS 32
#define MAX_RUNS 10000

static const char kUsage[] =
    "usage: model_bench MODEL --input IN.npy [--output OUT.npy] [--feed NAME] [--fetch NAME]\n"
    "                   [--warmup N] [--runs N] [--seconds S] [--no-rewrite]\n"
    "                   [--option KEY=VALUE]... [--serve]\n";

typedef struct args {
  const char* model;
  const char* input;
  const char* output;
  const char* feed;
  const char* fetch;
  long warmup, runs;
  double seconds;
  const char* option_keys[MAX_OPTIONS];
  const char* option_values[MAX_OPTIONS];
  char option_text[MAX_OPTIONS][256];
  int n_options;
  bool serve;
} args;

static _Noreturn void usage_error(const char* fmt, const char* what) {
  fprintf(stderr, "model_bench: ");
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\n%s", kUsage);
  exit(2);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Exits 1 naming the model and the step when `s` is an error. */
static void check(grt_status* s, const char* model, const char* step) {
  if (!s) return;
  fprintf(stderr, "model_bench: %s: %s: %s\n", model, step, grt_status_message(s));
  grt_status_free(s);
  exit(1);
}

static long parse_count(const char* flag, const char* v, long lo) {
  char* end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno || end == v || *end || n < lo || n > MAX_RUNS) {
    fprintf(stderr, "model_bench: %s '%s': expected an integer from %ld to %d\n%s", flag, v, lo,
            MAX_RUNS, kUsage);
    exit(2);
  }
  return n;
}

static double parse_seconds(const char* v) {
  char* end;
  errno = 0;
  double s = strtod(v, &end);
  if (errno || end == v || *end || !(s >= 0 && s <= 3600))
    usage_error("--seconds '%s': expected a number of seconds from 0 to 3600", v);
  return s;
}

static void add_option(args* a, const char* kv) {
  const char* eq = strchr(kv, '=');
  if (!eq || eq == kv) usage_error("--option '%s': expected KEY=VALUE", kv);
  if (a->n_options == MAX_OPTIONS) usage_error("--option '%s': more than 32 options", kv);
  size_t klen = (size_t)(eq - kv);
  char* text = a->option_text[a->n_options];
  if (klen >= sizeof a->option_text[0]) usage_error("--option '%s': key too long", kv);
  memcpy(text, kv, klen);
  text[klen] = '\0';
  a->option_keys[a->n_options] = text;
  a->option_values[a->n_options] = eq + 1;
  a->n_options++;
}

/* "--flag VALUE" and "--flag=VALUE": the value of flag `name` at argv[*i],
 * or NULL when argv[*i] is another flag. */
static const char* flag_value(int argc, char** argv, int* i, const char* name) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n)) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n]) return NULL;
  if (*i + 1 >= argc) usage_error("%s needs a value", name);
  return argv[++*i];
}

static void parse_args(int argc, char** argv, args* a) {
  memset(a, 0, sizeof *a);
  a->fetch = "output";
  a->warmup = 2;
  a->runs = 10;
  for (int i = 1; i < argc; i++) {
    const char* v;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(kUsage, stdout);
      exit(0);
    } else if (!strcmp(argv[i], "--serve")) {
      a->serve = true;
    } else if (!strcmp(argv[i], "--no-rewrite")) {
      add_option(a, "rewrite=false");
    } else if ((v = flag_value(argc, argv, &i, "--input"))) {
      a->input = v;
    } else if ((v = flag_value(argc, argv, &i, "--output"))) {
      a->output = v;
    } else if ((v = flag_value(argc, argv, &i, "--feed"))) {
      a->feed = v;
    } else if ((v = flag_value(argc, argv, &i, "--fetch"))) {
      a->fetch = v;
    } else if ((v = flag_value(argc, argv, &i, "--warmup"))) {
      a->warmup = parse_count("--warmup", v, 0);
    } else if ((v = flag_value(argc, argv, &i, "--runs"))) {
      a->runs = parse_count("--runs", v, 1);
    } else if ((v = flag_value(argc, argv, &i, "--seconds"))) {
      a->seconds = parse_seconds(v);
    } else if ((v = flag_value(argc, argv, &i, "--option"))) {
      add_option(a, v);
    } else if (argv[i][0] == '-') {
      usage_error("unknown argument '%s'", argv[i]);
    } else if (a->model) {
      usage_error("a second model '%s' (one per run)", argv[i]);
    } else {
      a->model = argv[i];
    }
  }
  if (!a->model) usage_error("%s", "no model given");
  if (!a->input) usage_error("%s", "--input IN.npy is needed");
}

/* The session options: intra_op_threads=2 unless given, then --option's in
 * order (a bad key or value is the library's error, naming it). */
static grt_session_options* make_options(const args* a) {
  grt_session_options* o;
  check(grt_session_options_new(&o), a->model, "session options");
  bool intra_given = false;
  for (int i = 0; i < a->n_options; i++)
    intra_given |= !strcmp(a->option_keys[i], "intra_op_threads");
  if (!intra_given)
    check(grt_session_options_set(o, "intra_op_threads", "2"), a->model, "session options");
  for (int i = 0; i < a->n_options; i++) {
    grt_status* s = grt_session_options_set(o, a->option_keys[i], a->option_values[i]);
    if (s) {
      fprintf(stderr, "model_bench: --option %s=%s: %s\n", a->option_keys[i], a->option_values[i],
              grt_status_message(s));
      grt_status_free(s);
      exit(2);
    }
  }
  return o;
}

/* The graph's only Placeholder, the feed when --feed is not given. */
static const char* only_placeholder(const grt_graph* g, const char* model) {
  const char* found = NULL;
  int count = 0;
  for (int32_t i = 0; i < grt_graph_num_nodes(g); i++) {
    if (strcmp(grt_graph_node_op(g, i), "Placeholder")) continue;
    if (count++ == 0) found = grt_graph_node_name(g, i);
  }
  if (count == 1) return found;
  fprintf(stderr, "model_bench: %s: %d Placeholders: name the input with --feed\n", model, count);
  exit(1);
}

/* NumPy's spelling of each dtype, by grt_dtype value. */
static const char* const kNpyDescr[GRT_NUM_DTYPES] = {
    [GRT_FLOAT16] = "<f2", [GRT_FLOAT32] = "<f4", [GRT_FLOAT64] = "<f8",
    [GRT_INT8] = "|i1",    [GRT_INT16] = "<i2",   [GRT_INT32] = "<i4",
    [GRT_INT64] = "<i8",   [GRT_UINT8] = "|u1",   [GRT_BOOL] = "|b1",
};

/* Writes `t` as a version 1.0 .npy file (the header padded to a multiple
 * of 64 bytes, as NumPy writes it). bfloat16 has no NumPy type. */
static void write_npy(const grt_tensor* t, const char* path, const char* model) {
  grt_dtype dt = grt_tensor_dtype(t);
  const char* descr = (int)dt < GRT_NUM_DTYPES ? kNpyDescr[dt] : NULL;
  if (!descr) {
    fprintf(stderr, "model_bench: %s: output of type %s has no .npy spelling\n", model,
            grt_dtype_name(dt));
    exit(1);
  }
  char shape[512] = "";
  size_t len = 0;
  for (int32_t i = 0; i < grt_tensor_rank(t); i++)
    len += (size_t)snprintf(shape + len, sizeof shape - len, "%lld,%s",
                            (long long)grt_tensor_dim(t, i), grt_tensor_rank(t) > 1 ? " " : "");
  char header[640];
  int n = snprintf(header, sizeof header,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape);
  int total = 10 + n + 1; /* magic, version, length; the dict; '\n' */
  int pad = (64 - total % 64) % 64;
  FILE* f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "model_bench: %s: cannot write: %s\n", path, strerror(errno));
    exit(1);
  }
  unsigned hlen = (unsigned)(n + pad + 1);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, hlen & 0xff, hlen >> 8};
  bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n;
  for (int i = 0; i < pad && ok; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF;
  size_t bytes = grt_tensor_byte_size(t);
  ok = ok && (bytes == 0 || fwrite(grt_tensor_data(t), 1, bytes, f) == bytes);
  if (fclose(f) != 0 || !ok) {
    fprintf(stderr, "model_bench: %s: cannot write: %s\n", path, strerror(errno));
    exit(1);
  }
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* OpenBLAS and libgomp read their environment once, as they load: the
 * first run of this program sets OPENBLAS_NUM_THREADS=1 (grt splits GEMMs
 * over its own pool) and the OpenMP team's wait where unset, and starts
 * again, as the grt command does (tools/blas_threads.h; a host owns its
 * environment). */
static void set_environment(char** argv) {
  bool changed = grt_blas_threads_set();
  grt_select_blas_core(argv); /* re-executes (with both set) on some CPUs */
  if (changed) execv("/proc/self/exe", argv);
}

/* The timed runs and their report (without --serve). */
static void timed_runs(const args* aa, grt_callable* c, grt_tensor* input, double load_s,
                       double create_first_s) {
  const args a = *aa;
  grt_tensor* out;
  static double times[MAX_RUNS];
  long n = 0;
  double start = now_s();
  while (n < MAX_RUNS && (n < a.runs || now_s() - start < a.seconds)) {
    double r0 = now_s();
    check(grt_callable_run(c, &input, &out, NULL), a.model, "timed run");
    times[n++] = now_s() - r0;
    grt_tensor_free(out);
  }
  /* The mean over the loop's wall time, outputs freed included: the
   * statistic `grt run --steps` gives (a step count's wall time over the
   * steps), so the command's per-step cost is compared like with like. */
  double mean_ms = (now_s() - start) / (double)n * 1e3;
  qsort(times, (size_t)n, sizeof times[0], cmp_double);
  double min_ms = times[0] * 1e3;
  double median_ms = (n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2) * 1e3;

  printf("%s: load %.1f ms%s; session + first run %.1f ms\n", a.model, load_s * 1e3,
         strstr(a.model, ".onnx") ? " (conversion from ONNX)" : "", create_first_s * 1e3);
  printf("%s: %ld runs: min %.3f ms, median %.3f ms\n", a.model, n, min_ms, median_ms);
  printf(
      "RESULT load_ms=%.3f create_first_ms=%.3f min_ms=%.4f median_ms=%.4f mean_ms=%.4f runs=%ld\n",
      load_s * 1e3, create_first_s * 1e3, min_ms, median_ms, mean_ms, n);
}

/* --serve: K runs per line of stdin, their times on one line each. */
static void serve(grt_callable* c, grt_tensor* input, const char* model) {
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    long k = strtol(line, NULL, 10);
    if (k < 1 || k > MAX_RUNS) k = 1;
    printf("TIMES");
    for (long i = 0; i < k; i++) {
      grt_tensor* out;
      double r0 = now_s();
      check(grt_callable_run(c, &input, &out, NULL), model, "served run");
      printf(" %.4f", (now_s() - r0) * 1e3);
      grt_tensor_free(out);
    }
    printf("\n");
    fflush(stdout);
  }
}

int main(int argc, char** argv) {
  args a;
  parse_args(argc, argv, &a);
  set_environment(argv);
  grt_session_options* opts = make_options(&a);

  grt_tensor* input;
  check(grt_npy_read(a.input, &input), a.input, "reading the input");

  double t0 = now_s();
  grt_graph* g;
  check(grt_graph_load(a.model, &g), a.model, "load");
  double load_s = now_s() - t0;
  const char* feed = a.feed ? a.feed : only_placeholder(g, a.model);
  if (grt_graph_find_node(g, a.fetch) < 0) {
    fprintf(stderr, "model_bench: %s: no node '%s' to fetch: name the output with --fetch\n",
            a.model, a.fetch);
    exit(1);
  }

  t0 = now_s();
  grt_session* s;
  check(grt_session_new(g, opts, &s), a.model, "session");
  grt_callable* c;
  check(grt_session_make_callable_by_name(s, &feed, 1, &a.fetch, 1, NULL, 0, &c), a.model,
        "callable");
  grt_tensor* out;
  check(grt_callable_run(c, &input, &out, NULL), a.model, "first run");
  double create_first_s = now_s() - t0;
  if (a.output) write_npy(out, a.output, a.model);
  grt_tensor_free(out);

  for (long i = 0; i < a.warmup; i++) {
    check(grt_callable_run(c, &input, &out, NULL), a.model, "warm-up run");
    grt_tensor_free(out);
  }
  if (a.serve) {
    serve(c, input, a.model);
  } else {
    timed_runs(&a, c, input, load_s, create_first_s);
  }
  grt_callable_free(c);
  grt_session_free(s);
  grt_graph_free(g);
  grt_tensor_free(input);
  grt_session_options_free(opts);
  return 0;
}
