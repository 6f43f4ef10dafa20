/* The depthwise convolutions of mobilenet_v2 and efficientnet_b0 (224 x
 * 224 input, torchvision's padding of k / 2 on every side), each with its
 * bias and activation (Relu6 written Minimum(Maximum(v, 0), 6) and SiLU
 * v * Sigmoid(v), as the ONNX importer writes them), at batch 1 and
 * 8: grt's own kernel (backends/cpu/conv_depthwise.c) against oneDNN's,
 * in one process. Each layer is a session of DepthwiseConv2dNative +
 * BiasAdd + activation on a Const filter and bias, fused by the optimizer
 * into _FusedDepthwiseConv2dNative as a model's are; rounds alternate the
 * two kernels (grt_cpu_dw_set_kernel), so a change of load hits both and
 * their ratio holds. Prints min and median per kernel, the ratio of
 * medians (own / oneDNN: below 1, grt's kernel is faster), which kernel
 * grt's rule picks for the shape, and the load average before and after.
 *
 *   bazel run -c opt //bench:depthwise_bench -- [--rounds N] [--threads T] [--cpu]
 *   bazel run -c opt //bench:depthwise_bench -- --model M.grt --input IN.npy
 *                                               [--rounds N] [--threads T] [--trace PREFIX]
 *
 * The second form times a whole model of bench/models instead, the two
 * kernels alternating in one session (whole_model, below): what a layer
 * run alone again and again cannot show (the layers' neighbours, the
 * threads' hand-over) is in it.
 *
 * Run it as the grt command runs, with GOMP_SPINCOUNT=10000 (DNNL.md,
 * "Threads"): with libgomp's default, a team's idle threads spin for about
 * 6 ms after every region and, on a loaded machine, take many times longer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cpu/conv_depthwise.h"
#include "bench/bench_stats.h"
#include "grt/grt.h"

enum { kMaxRounds = 41 };

/* CLOCK_MONOTONIC, or with --cpu the process's CPU time (all threads): on
 * a machine shared with other work, what the kernels cost rather than how
 * long they waited for a core. */
static clockid_t g_clock = CLOCK_MONOTONIC;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(g_clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(grt_status* s, const char* what) {
  if (!s) return;
  fprintf(stderr, "depthwise_bench: %s: %s\n", what, grt_status_message(s));
  exit(1);
}

static int32_t add(grt_graph* g, const char* name, const char* op, const char* in0,
                   const char* in1) {
  int32_t i;
  check(grt_graph_add_node(g, name, op, &i), name);
  if (in0) check(grt_graph_add_input(g, i, in0), name);
  if (in1) check(grt_graph_add_input(g, i, in1), name);
  return i;
}

static grt_tensor* random_tensor(int32_t rank, const int64_t* dims, unsigned* seed) {
  grt_tensor* t;
  check(grt_tensor_new(GRT_FLOAT32, rank, dims, &t), "tensor");
  float* v = grt_tensor_data(t);
  for (int64_t i = 0; i < grt_tensor_num_elements(t); i++)
    v[i] = (float)rand_r(seed) / (float)RAND_MAX * 2.0f - 1.0f;
  return t;
}

static void constant(grt_graph* g, const char* name, grt_tensor* t) {
  int32_t i = add(g, name, "Const", NULL, NULL);
  check(grt_graph_set_attr_type(g, i, "dtype", GRT_FLOAT32), name);
  check(grt_graph_set_attr_tensor(g, i, "value", t), name);
  grt_tensor_free(t);
}

typedef struct {
  const char* model;
  int64_t hw, c, k, s;
} layer;

/* Input side, channels, kernel, stride of every distinct depthwise layer. */
static const layer kLayers[] = {
    {"mobilenet_v2", 112, 32, 3, 1},    {"mobilenet_v2", 112, 96, 3, 2},
    {"mobilenet_v2", 56, 144, 3, 1},    {"mobilenet_v2", 56, 144, 3, 2},
    {"mobilenet_v2", 28, 192, 3, 1},    {"mobilenet_v2", 28, 192, 3, 2},
    {"mobilenet_v2", 14, 384, 3, 1},    {"mobilenet_v2", 14, 576, 3, 1},
    {"mobilenet_v2", 14, 576, 3, 2},    {"mobilenet_v2", 7, 960, 3, 1},
    {"efficientnet_b0", 112, 32, 3, 1}, {"efficientnet_b0", 112, 96, 3, 2},
    {"efficientnet_b0", 56, 144, 3, 1}, {"efficientnet_b0", 56, 144, 5, 2},
    {"efficientnet_b0", 28, 240, 5, 1}, {"efficientnet_b0", 28, 240, 3, 2},
    {"efficientnet_b0", 14, 480, 3, 1}, {"efficientnet_b0", 14, 480, 5, 1},
    {"efficientnet_b0", 14, 672, 5, 1}, {"efficientnet_b0", 14, 672, 5, 2},
    {"efficientnet_b0", 7, 1152, 5, 1}, {"efficientnet_b0", 7, 1152, 3, 1},
};

/* A session and callable for one layer at one batch. */
typedef struct {
  grt_graph* g;
  grt_session* s;
  grt_callable* c;
  grt_tensor* x;
} work;

static void make(work* w, const layer* l, int64_t batch, int threads, unsigned* seed) {
  grt_graph* g;
  check(grt_graph_new(&g), "graph");
  int64_t xd[] = {batch, l->hw, l->hw, l->c}, fd[] = {l->k, l->k, l->c, 1}, bd[] = {l->c};
  int32_t x = add(g, "x", "Placeholder", NULL, NULL);
  check(grt_graph_set_attr_type(g, x, "dtype", GRT_FLOAT32), "x");
  check(grt_graph_set_attr_shape(g, x, "shape", 4, xd), "x");
  constant(g, "w", random_tensor(4, fd, seed));
  constant(g, "b", random_tensor(1, bd, seed));
  int32_t dw = add(g, "dw", "DepthwiseConv2dNative", "x", "w");
  int64_t strides[] = {1, l->s, l->s, 1}, p = l->k / 2, pads[] = {0, 0, p, p, p, p, 0, 0};
  check(grt_graph_set_attr_type(g, dw, "T", GRT_FLOAT32), "dw");
  check(grt_graph_set_attr_int_list(g, dw, "strides", strides, 4), "dw");
  check(grt_graph_set_attr_string(g, dw, "padding", "EXPLICIT"), "dw");
  check(grt_graph_set_attr_int_list(g, dw, "explicit_paddings", pads, 8), "dw");
  add(g, "biased", "BiasAdd", "dw", "b");
  if (strcmp(l->model, "mobilenet_v2") == 0) {
    /* Relu6 as the ONNX importer writes Clip(0, 6). */
    grt_tensor *zero, *six;
    check(grt_tensor_new(GRT_FLOAT32, 0, NULL, &zero), "zero");
    check(grt_tensor_new(GRT_FLOAT32, 0, NULL, &six), "six");
    *(float*)grt_tensor_data(zero) = 0.0f;
    *(float*)grt_tensor_data(six) = 6.0f;
    constant(g, "zero", zero);
    constant(g, "six", six);
    add(g, "lo", "Maximum", "biased", "zero");
    add(g, "y", "Minimum", "lo", "six");
  } else {
    add(g, "sig", "Sigmoid", "biased", NULL);
    add(g, "y", "Mul", "biased", "sig");
  }
  grt_session_options* o;
  check(grt_session_options_new(&o), "options");
  char t[16];
  snprintf(t, sizeof t, "%d", threads);
  check(grt_session_options_set(o, "intra_op_threads", t), "options");
  check(grt_session_new(g, o, &w->s), "session");
  grt_session_options_free(o);
  const char *feed = "x", *fetch = "y";
  check(grt_session_make_callable_by_name(w->s, &feed, 1, &fetch, 1, NULL, 0, &w->c), "callable");
  w->g = g;
  w->x = random_tensor(4, xd, seed);
}

static void drop(work* w) {
  grt_tensor_free(w->x);
  grt_callable_free(w->c);
  grt_session_free(w->s);
  grt_graph_free(w->g);
}

/* Mean seconds per run over `runs` runs. */
static double time_runs(work* w, int runs) {
  double t0 = now_s();
  for (int r = 0; r < runs; r++) {
    grt_tensor* out = NULL;
    check(grt_callable_run(w->c, &w->x, &out, NULL), "run");
    grt_tensor_free(out);
  }
  return (now_s() - t0) / runs;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Whether grt's rule gives the layer to its own kernel: the same test the
 * kernels make, through a run with the count hook. */
static const char* rule_pick(work* w) {
  grt_cpu_dw_set_kernel(GRT_DW_KERNEL_RULE);
  int64_t before = grt_cpu_dw_count();
  time_runs(w, 1);
  return grt_cpu_dw_count() > before ? "own" : "oneDNN";
}

/* Seconds per run of each of `runs` runs, into t[0..runs). */
static void time_each(work* w, int runs, double* t, grt_trace* trace) {
  for (int r = 0; r < runs; r++) {
    double t0 = now_s();
    grt_tensor* out = NULL;
    check(grt_callable_run(w->c, &w->x, &out, trace), "run");
    grt_tensor_free(out);
    t[r] = now_s() - t0;
  }
}

/* --model: a whole model (a .grt of bench/models, fed IN.npy at "input",
 * fetching "output") in one session, the kernels alternating round by
 * round, so both see the same load and the same neighbours (oneDNN's
 * convolutions before and after each depthwise one). Per kernel: min and
 * median over all runs, and the calls of grt's kernel per run (every
 * depthwise node it can take). With --trace PREFIX, each kernel's runs
 * are traced into PREFIX.own.json and PREFIX.onednn.json (the Chrome
 * trace of `grt run --trace`), for per-node times. */
static int whole_model(const char* model, const char* input, int rounds, int threads,
                       const char* trace_prefix) {
  enum { kRuns = 15, kArms = 2 };
  work w = {0};
  check(grt_graph_load(model, &w.g), model);
  check(grt_npy_read(input, &w.x), input);
  grt_session_options* o;
  check(grt_session_options_new(&o), "options");
  char t[16];
  snprintf(t, sizeof t, "%d", threads);
  check(grt_session_options_set(o, "intra_op_threads", t), "options");
  check(grt_session_new(w.g, o, &w.s), "session");
  grt_session_options_free(o);
  const char *feed = "input", *fetch = "output";
  check(grt_session_make_callable_by_name(w.s, &feed, 1, &fetch, 1, NULL, 0, &w.c), "callable");
  static const char* names[kArms] = {"own", "oneDNN"};
  static const char* files[kArms] = {"own", "onednn"};
  static double all[kArms][kMaxRounds * kRuns];
  int64_t calls[kArms] = {0};
  grt_trace* traces[kArms] = {NULL};
  for (int k = 0; trace_prefix && k < kArms; k++) check(grt_trace_new(&traces[k]), "trace");
  for (int k = 0; k < kArms; k++) { /* warm-up: plans, packed filters */
    grt_cpu_dw_set_kernel(k ? GRT_DW_KERNEL_DNNL : GRT_DW_KERNEL_OWN);
    time_runs(&w, 3);
  }
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < kArms; i++) {
      int k = (r + i) % kArms;
      grt_cpu_dw_set_kernel(k ? GRT_DW_KERNEL_DNNL : GRT_DW_KERNEL_OWN);
      int64_t before = grt_cpu_dw_count();
      time_each(&w, kRuns, &all[k][r * kRuns], traces[k]);
      calls[k] += grt_cpu_dw_count() - before;
    }
  grt_cpu_dw_set_kernel(GRT_DW_KERNEL_RULE);
  int n = rounds * kRuns;
  for (int k = 0; k < kArms; k++) {
    double s[kMaxRounds * kRuns];
    memcpy(s, all[k], sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    printf("%-16s min %8.3f  median %8.3f ms  (grt's kernel: %lld calls per run)\n", names[k],
           s[0] * 1e3, s[n / 2] * 1e3, (long long)(calls[k] / n));
  }
  for (int k = 0; trace_prefix && k < kArms; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s.%s.json", trace_prefix, files[k]);
    FILE* f = fopen(path, "w");
    if (!f) {
      fprintf(stderr, "depthwise_bench: cannot write %s\n", path);
      exit(1);
    }
    check(grt_trace_write_json(traces[k], f), path);
    fclose(f);
    grt_trace_free(traces[k]);
  }
  drop(&w);
  return 0;
}

int main(int argc, char** argv) {
  int rounds = 7, threads = 2;
  const char *model = NULL, *input = NULL, *trace = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--cpu") == 0)
      g_clock = CLOCK_PROCESS_CPUTIME_ID;
    else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0)
      rounds = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
      threads = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--model") == 0)
      model = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--input") == 0)
      input = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--trace") == 0)
      trace = argv[++i];
  }
  if (rounds < 1) rounds = 1;
  if (rounds > kMaxRounds) rounds = kMaxRounds;
  if (model) {
    grt_bench_print_load("before");
    int rc = whole_model(model, input ? input : "input.npy", rounds, threads, trace);
    grt_bench_print_load("after");
    return rc;
  }
  grt_bench_print_load("before");
  printf("%d rounds, %d intra-op threads; %s ms per run (min / median), ratio of medians\n", rounds,
         threads, g_clock == CLOCK_MONOTONIC ? "wall" : "CPU");
  printf("%-16s %-18s %5s %17s %17s %6s %s\n", "model", "layer", "batch", "own", "oneDNN", "ratio",
         "rule");
  unsigned seed = 1;
  double log_sum[2] = {0, 0}; /* by batch 1, 8 */
  int n_ratio[2] = {0, 0};
  for (size_t li = 0; li < sizeof kLayers / sizeof kLayers[0]; li++) {
    const layer* l = &kLayers[li];
    for (int64_t batch = 1; batch <= 8; batch += 7) {
      work w;
      make(&w, l, batch, threads, &seed);
      double t[2][kMaxRounds];
      /* Runs per round: about 40 ms of oneDNN, after a warm-up of each. */
      grt_cpu_dw_set_kernel(GRT_DW_KERNEL_OWN);
      time_runs(&w, 2);
      grt_cpu_dw_set_kernel(GRT_DW_KERNEL_DNNL);
      time_runs(&w, 2);
      int runs = (int)(0.04 / time_runs(&w, 3)) + 1;
      for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
          /* Alternate which goes first, so neither always follows the other. */
          int which = (r + k) % 2;
          grt_cpu_dw_set_kernel(which ? GRT_DW_KERNEL_DNNL : GRT_DW_KERNEL_OWN);
          t[which][r] = time_runs(&w, runs);
        }
      double ratio = grt_bench_median(t[0], rounds) / grt_bench_median(t[1], rounds);
      char name[32];
      snprintf(name, sizeof name, "%lldx%lldx%lld k%lld s%lld", (long long)l->hw, (long long)l->hw,
               (long long)l->c, (long long)l->k, (long long)l->s);
      printf("%-16s %-18s %5lld %7.3f / %7.3f %7.3f / %7.3f %6.2f %s\n", l->model, name,
             (long long)batch, grt_bench_minimum(t[0], rounds) * 1e3,
             grt_bench_median(t[0], rounds) * 1e3, grt_bench_minimum(t[1], rounds) * 1e3,
             grt_bench_median(t[1], rounds) * 1e3, ratio, rule_pick(&w));
      fflush(stdout);
      log_sum[batch > 1] += __builtin_log(ratio);
      n_ratio[batch > 1]++;
      drop(&w);
    }
  }
  grt_cpu_dw_set_kernel(GRT_DW_KERNEL_RULE);
  printf("geometric mean of the ratios: batch 1 %.2f, batch 8 %.2f\n",
         __builtin_exp(log_sum[0] / n_ratio[0]), __builtin_exp(log_sum[1] / n_ratio[1]));
  grt_bench_print_load("after");
  return 0;
}
