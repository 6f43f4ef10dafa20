/* The first convolutions of resnet18 (7x7 stride 2, 3 -> 64, Relu),
 * mobilenet_v2 (3x3 stride 2, 3 -> 32, Relu6) and efficientnet_b0 (3x3
 * stride 2, 3 -> 32, SiLU) on a 224 x 224 NCHW image, at batch 1 and 8,
 * each with its bias and activation written as the ONNX importer writes
 * them: the optimizer's way before the "stem" pass (a Transpose of the
 * image to NHWC, then oneDNN's brgconv: session option optimizer_off=stem)
 * against the stem pass's (grt's stem kernel reading the image in place,
 * backends/cpu/conv_stem.c), the same graph in two sessions in one
 * process, rounds alternating. Prints min and median per way, the ratio of
 * medians (stem / oneDNN: below 1, the stem kernel is faster) and the
 * load average before and after.
 *
 *   bazel run -c opt //bench:stem_bench -- [--cpu] [--rounds N] [--runs K] [--threads T]
 *   bazel run -c opt //bench:stem_bench -- --model M.grt --input IN.npy [--cpu] [--rounds N]
 *                                          [--runs K] [--threads T]
 *
 * The second form times a whole model of bench/models (fed IN.npy at
 * "input", fetching "output") the two ways, as two sessions of one graph
 * in one process, rounds alternating: two processes of the same setting
 * (bench/models/ab.py) differed by up to 1.4x at load 6-11, which is more
 * than the stem is worth.
 *
 * Run it as the grt command runs, with GOMP_SPINCOUNT=10000 (DNNL.md,
 * "Threads"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cpu/conv_stem.h"
#include "bench/bench_stats.h"
#include "grt/grt.h"

enum { kMaxRuns = 4000 };

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
  fprintf(stderr, "stem_bench: %s: %s\n", what, grt_status_message(s));
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

static void scalar(grt_graph* g, const char* name, float v) {
  grt_tensor* t;
  check(grt_tensor_new(GRT_FLOAT32, 0, NULL, &t), name);
  *(float*)grt_tensor_data(t) = v;
  int32_t i = add(g, name, "Const", NULL, NULL);
  check(grt_graph_set_attr_type(g, i, "dtype", GRT_FLOAT32), name);
  check(grt_graph_set_attr_tensor(g, i, "value", t), name);
  grt_tensor_free(t);
}

static void constant(grt_graph* g, const char* name, grt_tensor* t) {
  int32_t i = add(g, name, "Const", NULL, NULL);
  check(grt_graph_set_attr_type(g, i, "dtype", GRT_FLOAT32), name);
  check(grt_graph_set_attr_tensor(g, i, "value", t), name);
  grt_tensor_free(t);
}

typedef struct {
  const char* model;
  int64_t k, oc;
  const char* act; /* Relu, Relu6 (Maximum, Minimum), SiLU (Sigmoid, Mul) */
} layer;

static const layer kLayers[] = {
    {"resnet18", 7, 64, "Relu"},
    {"mobilenet_v2", 3, 32, "Relu6"},
    {"efficientnet_b0", 3, 32, "SiLU"},
};

typedef struct {
  grt_graph* g;
  grt_session* s;
  grt_callable* c;
  grt_tensor* x;
} work;

/* x [batch, 3, 224, 224] -> Conv2D (stride 2, padding k / 2, NCHW) ->
 * BiasAdd -> activation, in a session with `off` as optimizer_off. */
static void make(work* w, const layer* l, int64_t batch, int threads, const char* off,
                 unsigned seed) {
  grt_graph* g;
  check(grt_graph_new(&g), "graph");
  int64_t xd[] = {batch, 3, 224, 224}, fd[] = {l->k, l->k, 3, l->oc}, bd[] = {l->oc};
  int32_t x = add(g, "x", "Placeholder", NULL, NULL);
  check(grt_graph_set_attr_type(g, x, "dtype", GRT_FLOAT32), "x");
  check(grt_graph_set_attr_shape(g, x, "shape", 4, xd), "x");
  unsigned s = seed;
  constant(g, "w", random_tensor(4, fd, &s));
  constant(g, "b", random_tensor(1, bd, &s));
  int32_t cv = add(g, "conv", "Conv2D", "x", "w");
  int64_t strides[] = {1, 1, 2, 2}, p = l->k / 2, pads[] = {0, 0, 0, 0, p, p, p, p};
  check(grt_graph_set_attr_type(g, cv, "T", GRT_FLOAT32), "conv");
  check(grt_graph_set_attr_int_list(g, cv, "strides", strides, 4), "conv");
  check(grt_graph_set_attr_string(g, cv, "padding", "EXPLICIT"), "conv");
  check(grt_graph_set_attr_int_list(g, cv, "explicit_paddings", pads, 8), "conv");
  check(grt_graph_set_attr_string(g, cv, "data_format", "NCHW"), "conv");
  int32_t b = add(g, "biased", "BiasAdd", "conv", "b");
  check(grt_graph_set_attr_string(g, b, "data_format", "NCHW"), "biased");
  if (strcmp(l->act, "Relu") == 0) {
    add(g, "y", "Relu", "biased", NULL);
  } else if (strcmp(l->act, "Relu6") == 0) {
    scalar(g, "zero", 0.0f);
    scalar(g, "six", 6.0f);
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
  if (off) check(grt_session_options_set(o, "optimizer_off", off), "options");
  check(grt_session_new(g, o, &w->s), "session");
  grt_session_options_free(o);
  const char *feed = "x", *fetch = "y";
  check(grt_session_make_callable_by_name(w->s, &feed, 1, &fetch, 1, NULL, 0, &w->c), "callable");
  w->g = g;
  s = seed + 7;
  w->x = random_tensor(4, xd, &s);
}

static void drop(work* w) {
  grt_tensor_free(w->x);
  grt_callable_free(w->c);
  grt_session_free(w->s);
  grt_graph_free(w->g);
}

static void run_once(work* w, double* t) {
  double t0 = now_s();
  grt_tensor* out = NULL;
  check(grt_callable_run(w->c, &w->x, &out, NULL), "run");
  grt_tensor_free(out);
  *t = now_s() - t0;
}

/* The largest difference between the two ways' outputs. */
static double max_diff(work* a, work* b) {
  grt_tensor *ya = NULL, *yb = NULL;
  check(grt_callable_run(a->c, &a->x, &ya, NULL), "run");
  check(grt_callable_run(b->c, &b->x, &yb, NULL), "run");
  const float *pa = grt_tensor_data(ya), *pb = grt_tensor_data(yb);
  double d = 0;
  for (int64_t i = 0; i < grt_tensor_num_elements(ya); i++) {
    double e = pa[i] > pb[i] ? pa[i] - pb[i] : pb[i] - pa[i];
    if (e > d) d = e;
  }
  grt_tensor_free(ya);
  grt_tensor_free(yb);
  return d;
}

/* One session of the model at `path` with `off` as optimizer_off. */
static void make_model(work* w, const char* path, const char* input, int threads, const char* off) {
  check(grt_graph_load(path, &w->g), path);
  grt_session_options* o;
  check(grt_session_options_new(&o), "options");
  char t[16];
  snprintf(t, sizeof t, "%d", threads);
  check(grt_session_options_set(o, "intra_op_threads", t), "options");
  if (off) check(grt_session_options_set(o, "optimizer_off", off), "options");
  check(grt_session_new(w->g, o, &w->s), "session");
  grt_session_options_free(o);
  const char *feed = "input", *fetch = "output";
  check(grt_session_make_callable_by_name(w->s, &feed, 1, &fetch, 1, NULL, 0, &w->c), "callable");
  check(grt_npy_read(input, &w->x), input);
}

static int whole_model(const char* path, const char* input, int rounds, int runs, int threads) {
  static double ta[kMaxRuns], tb[kMaxRuns];
  work a, b;
  make_model(&a, path, input, threads, "stem");
  make_model(&b, path, input, threads, NULL);
  double d = max_diff(&a, &b);
  int64_t before = grt_cpu_stem_count();
  run_once(&a, &ta[0]);
  int64_t off_runs = grt_cpu_stem_count() - before;
  run_once(&b, &tb[0]);
  int64_t on_runs = grt_cpu_stem_count() - before - off_runs;
  printf("stem kernel calls per run: %lld with the pass off, %lld on\n", (long long)off_runs,
         (long long)on_runs);
  for (int w = 0; w < 3; w++) run_once(&b, &tb[0]), run_once(&a, &ta[0]);
  int n = 0;
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < runs; k++, n++) {
      if (r % 2)
        run_once(&a, &ta[n]), run_once(&b, &tb[n]);
      else
        run_once(&b, &tb[n]), run_once(&a, &ta[n]);
    }
  double ma = grt_bench_median(ta, n), mb = grt_bench_median(tb, n);
  printf(
      "%s: stem pass off min / median %.3f / %.3f ms, on %.3f / %.3f ms, on / off (medians) "
      "%.3f, max |diff| %.1e\n",
      path, grt_bench_minimum(ta, n) * 1e3, ma * 1e3, grt_bench_minimum(tb, n) * 1e3, mb * 1e3,
      mb / ma, d);
  drop(&a);
  drop(&b);
  return 0;
}

int main(int argc, char** argv) {
  int rounds = 15, runs = 4, threads = 2;
  const char *model = NULL, *input = NULL;
  for (int i = 1; i < argc; i++) {
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (strcmp(argv[i], "--cpu") == 0) {
      g_clock = CLOCK_PROCESS_CPUTIME_ID;
      continue;
    }
    if (strcmp(argv[i], "--rounds") == 0) {
      rounds = atoi(v);
    } else if (strcmp(argv[i], "--runs") == 0) {
      runs = atoi(v);
    } else if (strcmp(argv[i], "--threads") == 0) {
      threads = atoi(v);
    } else if (strcmp(argv[i], "--model") == 0) {
      model = v;
    } else if (strcmp(argv[i], "--input") == 0) {
      input = v;
    } else {
      fprintf(stderr, "stem_bench: unknown argument '%s'\n", argv[i]);
      return 2;
    }
    i++;
  }
  if (rounds < 1 || runs < 1 || rounds * runs > kMaxRuns || threads < 1) {
    fprintf(stderr, "stem_bench: --rounds N --runs K (N K <= %d) --threads T\n", kMaxRuns);
    return 2;
  }
  if (!model != !input) {
    fprintf(stderr, "stem_bench: --model and --input go together\n");
    return 2;
  }
  grt_bench_print_load("before");
  if (model) {
    int rc = whole_model(model, input, rounds, runs, threads);
    grt_bench_print_load("after");
    return rc;
  }
  printf(
      "| layer | batch | Transpose + oneDNN min / median ms | stem min / median ms | stem / "
      "oneDNN (medians) | max |diff| |\n|---|---:|---:|---:|---:|---:|\n");
  static double ta[kMaxRuns], tb[kMaxRuns];
  for (size_t li = 0; li < sizeof kLayers / sizeof kLayers[0]; li++)
    for (int64_t batch = 1; batch <= 8; batch += 7) {
      const layer* l = &kLayers[li];
      work a, b;
      make(&a, l, batch, threads, "stem", 1);
      make(&b, l, batch, threads, NULL, 1);
      double d = max_diff(&a, &b);
      int64_t before = grt_cpu_stem_count();
      for (int w = 0; w < 3; w++) run_once(&b, &tb[0]), run_once(&a, &ta[0]);
      if (grt_cpu_stem_count() == before) {
        fprintf(stderr, "stem_bench: the stem kernel did not run %s\n", l->model);
        return 1;
      }
      int n = 0;
      for (int r = 0; r < rounds; r++)
        for (int k = 0; k < runs; k++, n++) {
          if (r % 2)
            run_once(&a, &ta[n]), run_once(&b, &tb[n]);
          else
            run_once(&b, &tb[n]), run_once(&a, &ta[n]);
        }
      double ma = grt_bench_median(ta, n), mb = grt_bench_median(tb, n);
      printf("| %s | %lld | %.3f / %.3f | %.3f / %.3f | %.3f | %.1e |\n", l->model,
             (long long)batch, grt_bench_minimum(ta, n) * 1e3, ma * 1e3,
             grt_bench_minimum(tb, n) * 1e3, mb * 1e3, mb / ma, d);
      fflush(stdout);
      drop(&a);
      drop(&b);
    }
  grt_bench_print_load("after");
  return 0;
}
