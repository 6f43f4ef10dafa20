/* MLP training throughput in towers: the Fashion-MNIST example's model
 * (784-256-256-10, Adam, batch 256) on random inputs, one tower per logical
 * CPU device, for 1, 2 and 4 towers; examples/s and the ratio to one tower
 * measured in the same run. Prints figures; asserts nothing about time.
 *
 * Two series: OpenBLAS with its own threads (the default), and with one
 * thread per GEMM call (openblas_set_num_threads(1)), since the towers'
 * GEMMs already run side by side on the inter-op threads and OpenBLAS's
 * threads then compete with them.
 *
 * --peak-rounds R: then R rounds of one tower's figure and a 1024^3 MatMul
 * through a session, in turn, and per round the training's GFLOP/s (its
 * examples/s, a mean over the steps, times the step's FLOPs per example)
 * over the MatMul's (the best of 5 runs): this machine's speed moves by a
 * quarter from one minute to the next, so a ratio of two figures taken
 * minutes apart says more about the minute than about grt. Prints the
 * median and the best round's ratio, and each step's median time.
 *
 *   bazel run -c opt //bench:train_bench [-- --steps N --batch B --towers 1,2,4 --trace OUT.json
 *                                           --trace-steps N --peak-rounds R
 *                                           --option KEY=VALUE...]
 *
 * --trace-steps N: after the figures, one tower (OpenBLAS's default
 * threads) runs N traced steps and prints where a step goes: each node's
 * minimum over the N steps, summed per kind (GEMMs, element-wise and loss,
 * optimizer updates, the rest), beside the minimum traced step's wall time
 * (the difference is scheduling and gaps; negative where two inter-op
 * threads overlap nodes), with the GEMMs' GFLOP/s against a 1024^3 MatMul
 * through a session in the same process (before and after, the better).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "examples/fashion_mnist_data.h"
#include "examples/fashion_mnist_model.h"
#include "grt/grt.h"
#include "tools/blas_core.h"

/* OpenBLAS's own (cblas.h declares it too; the bench needs no more of it). */
extern void openblas_set_num_threads(int n);

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Examples per second over `steps` steps after 3 warm-up steps. */
static const char* trace_path; /* --trace: one step of the last figure, as Chrome JSON */

static grt_status* write_trace(grt_callable* c, grt_tensor** in) {
  grt_trace* t = NULL;
  FILE* f = fopen(trace_path, "w");
  grt_status* st =
      f ? grt_trace_new(&t) : grt_status_new(GRT_UNAVAILABLE, "cannot write %s", trace_path);
  if (!st) st = grt_callable_run(c, in, NULL, t);
  if (!st) st = grt_trace_write_json(t, f);
  if (f) fclose(f);
  grt_trace_free(t);
  return st;
}

/* ---- --trace-steps: where a step goes ------------------------------------ */

enum { kMaxNodes = 256, kName = 160, kOp = 48 };

typedef struct {
  char name[kName];
  char op[kOp];
  double min_us;
} node_min;

typedef struct {
  node_min v[kMaxNodes];
  int n;
} step_table;

/* A node's kind, by its op: the table the step's figures are summed by. */
typedef struct {
  const char* prefix; /* op name prefix */
  int kind;
} kind_row;

enum { kGemm, kOptimizer, kElementwise, kOther, kKinds };
static const char* const kKindNames[kKinds] = {"GEMMs (MatMul, _FusedMatMul)",
                                               "optimizer updates (Apply*)",
                                               "element-wise, bias gradients, loss", "the rest"};
static const kind_row kKindRows[] = {
    {"MatMul", kGemm},         {"_FusedMatMul", kGemm},    {"BatchMatMul", kGemm},
    {"Apply", kOptimizer},     {"ReluGrad", kElementwise}, {"BiasAddGrad", kElementwise},
    {"Relu", kElementwise},    {"Sparse", kElementwise},   {"Mean", kElementwise},
    {"Sum", kElementwise},     {"Mul", kElementwise},      {"Add", kElementwise},
    {"RealDiv", kElementwise}, {"Tile", kElementwise},     {"Softmax", kElementwise},
};

static int kind_of(const char* op) {
  for (size_t i = 0; i < sizeof kKindRows / sizeof kKindRows[0]; i++)
    if (!strncmp(op, kKindRows[i].prefix, strlen(kKindRows[i].prefix))) return kKindRows[i].kind;
  return kOther;
}

/* Folds one traced step's slices (Chrome JSON, one slice a line) into the
 * per-node minima. */
static void fold_trace(step_table* t, const char* json) {
  for (const char* line = json; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    char name[kName], op[kOp];
    double ts, dur;
    if (strncmp(line, "{\"ph\":\"X\"", 9)) continue;
    const char* nm = strstr(line, "\"name\":\"");
    const char* tsp = strstr(line, "\"ts\":");
    const char* opp = strstr(line, "\"op\":\"");
    if (!nm || !tsp || !opp || sscanf(nm, "\"name\":\"%159[^\"]\"", name) != 1 ||
        sscanf(tsp, "\"ts\":%lf,\"dur\":%lf", &ts, &dur) != 2 ||
        sscanf(opp, "\"op\":\"%47[^\"]\"", op) != 1)
      continue;
    int i = 0;
    while (i < t->n && strcmp(t->v[i].name, name)) i++;
    if (i == t->n) {
      if (t->n == kMaxNodes) continue;
      snprintf(t->v[i].name, kName, "%s", name);
      snprintf(t->v[i].op, kOp, "%s", op);
      t->v[i].min_us = dur;
      t->n++;
    } else if (dur < t->v[i].min_us) {
      t->v[i].min_us = dur;
    }
  }
}

/* Best GFLOP/s of a 1024^3 MatMul (fed x constant) through a session. */
static grt_status* sgemm_peak(double* gflops) {
  enum { N = 1024 };
  int64_t d[2] = {N, N};
  grt_graph* g = NULL;
  grt_session* s = NULL;
  grt_tensor *a = NULL, *b = NULL;
  int32_t x, w, mm;
  grt_status* st = grt_graph_new(&g);
  if (!st) st = grt_tensor_new(GRT_FLOAT32, 2, d, &a);
  if (!st) st = grt_tensor_new(GRT_FLOAT32, 2, d, &b);
  if (!st) {
    float* pa = grt_tensor_data(a);
    float* pb = grt_tensor_data(b);
    for (int64_t i = 0; i < (int64_t)N * N; i++) pa[i] = pb[i] = (float)(i % 7) * 0.01f;
  }
  if (!st) st = grt_graph_add_node(g, "x", "Placeholder", &x);
  if (!st) st = grt_graph_set_attr_type(g, x, "dtype", GRT_FLOAT32);
  if (!st) st = grt_graph_add_node(g, "w", "Const", &w);
  if (!st) st = grt_graph_set_attr_type(g, w, "dtype", GRT_FLOAT32);
  if (!st) st = grt_graph_set_attr_tensor(g, w, "value", b);
  if (!st) st = grt_graph_add_node(g, "y", "MatMul", &mm);
  if (!st) st = grt_graph_add_input(g, mm, "x");
  if (!st) st = grt_graph_add_input(g, mm, "w");
  if (!st) st = grt_session_new(g, NULL, &s);
  double best = 1e30;
  for (int r = 0; !st && r < 6; r++) {
    grt_feed f = {"x", a};
    const char* fetch = "y";
    grt_tensor* out = NULL;
    double t0 = now_s();
    st = grt_session_run(s, &f, 1, &fetch, 1, NULL, 0, &out, NULL);
    double t = now_s() - t0;
    grt_tensor_free(out);
    if (r > 0 && t < best) best = t; /* the first packs the weights */
  }
  if (!st) *gflops = 2.0 * N * N * N / best * 1e-9;
  grt_session_free(s);
  grt_graph_free(g);
  grt_tensor_free(a);
  grt_tensor_free(b);
  return st;
}

static void print_load(void) {
  double l[3] = {-1, -1, -1};
  FILE* f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) != 3) l[0] = -1;
    fclose(f);
  }
  printf("load average: %.2f %.2f %.2f\n", l[0], l[1], l[2]);
}

static int trace_steps; /* --trace-steps */

/* 784-256-256-10: forward 784*256 + 256*256 + 256*10 multiply-adds per
 * example, backward twice that less the input's gradient (784*256). */
static const double kMacsPerExample = 3.0 * (256.0 * 256 + 256.0 * 10) + 2.0 * 784 * 256;

/* N traced steps of c: the table of where a step goes (see the header). */
static grt_status* trace_table(grt_callable* c, grt_tensor** in, int batch) {
  static step_table t;
  t.n = 0;
  double peak0 = 0, peak1 = 0, wall = 1e30;
  print_load();
  grt_status* st = sgemm_peak(&peak0);
  for (int i = 0; !st && i < trace_steps; i++) {
    grt_trace* tr = NULL;
    char* json = NULL;
    size_t len = 0;
    st = grt_trace_new(&tr);
    double t0 = now_s();
    if (!st) st = grt_callable_run(c, in, NULL, tr);
    double dt = now_s() - t0;
    FILE* f = st ? NULL : open_memstream(&json, &len);
    if (!st && !f) st = grt_status_new(GRT_UNAVAILABLE, "open_memstream failed");
    if (!st) st = grt_trace_write_json(tr, f);
    if (f) fclose(f);
    if (!st) fold_trace(&t, json);
    free(json);
    grt_trace_free(tr);
    if (dt < wall) wall = dt;
  }
  if (!st) st = sgemm_peak(&peak1);
  if (st) return st;
  print_load();
  double peak = peak0 > peak1 ? peak0 : peak1;
  double sum[kKinds] = {0}, total = 0;
  int count[kKinds] = {0};
  for (int i = 0; i < t.n; i++) {
    int k = kind_of(t.v[i].op);
    sum[k] += t.v[i].min_us;
    count[k]++;
    total += t.v[i].min_us;
  }
  double macs = kMacsPerExample;
  double gemm_gflops = sum[kGemm] > 0 ? 2.0 * macs * batch / (sum[kGemm] * 1e3) : 0;
  printf("where a step goes: %d traced steps, each node's minimum (us), summed by kind\n",
         trace_steps);
  for (int k = 0; k < kKinds; k++)
    printf("  %-38s %3d nodes %9.1f us %5.1f%%\n", kKindNames[k], count[k], sum[k],
           total > 0 ? 100.0 * sum[k] / total : 0);
  printf("  %-38s %3d nodes %9.1f us\n", "sum of the minima", t.n, total);
  printf("  %-38s           %9.1f us (difference: %.1f us of scheduling and gaps)\n",
         "fastest traced step, wall", wall * 1e6, wall * 1e6 - total);
  printf(
      "  GEMMs: %.0f GFLOP/s over their minima; 1024^3 MatMul through a session: %.0f GFLOP/s "
      "(ratio %.2f); the step's FLOPs over its fastest traced wall time: %.0f GFLOP/s (ratio "
      "%.2f)\n",
      gemm_gflops, peak, peak > 0 ? gemm_gflops / peak : 0, 2.0 * macs * batch / (wall * 1e9),
      peak > 0 ? 2.0 * macs * batch / (wall * 1e9) / peak : 0);
  printf("  the nodes of 1 us and more, slowest first:\n");
  for (int pass = 0; pass < t.n; pass++) {
    int best = -1;
    for (int i = 0; i < t.n; i++)
      if (t.v[i].min_us >= 1.0 && (best < 0 || t.v[i].min_us > t.v[best].min_us)) best = i;
    if (best < 0) break;
    printf("    %9.1f us  %s (%s)\n", t.v[best].min_us, t.v[best].name, t.v[best].op);
    t.v[best].min_us = -1;
  }
  return NULL;
}

/* --option KEY=VALUE: session options for every session (up to 8). */
static const char* options[8];
static int n_options;

/* One figure: examples/s over the steps (a mean), and the fastest and the
 * median step. */
typedef struct {
  double examples_per_s, step_min_s, step_median_s;
} figure;

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static grt_status* measure(int towers, int batch, int steps, figure* out) {
  fmnist_model_options mo = {.towers = towers, .cpus = towers, .learning_rate = 1e-3, .seed = 1};
  grt_graph* g = NULL;
  grt_session_options* so = NULL;
  grt_session* s = NULL;
  grt_callable* c = NULL;
  grt_tensor *x = NULL, *y = NULL;
  char cpus[16];
  snprintf(cpus, sizeof cpus, "%d", towers);
  int64_t xd[2] = {batch, FMNIST_PIXELS}, yd[1] = {batch};
  grt_status* st = fmnist_build_mlp(&mo, &g);
  if (!st) st = grt_session_options_new(&so);
  if (!st) st = grt_session_options_set(so, "cpu.devices", cpus);
  for (int i = 0; !st && i < n_options; i++) {
    char kv[128];
    snprintf(kv, sizeof kv, "%s", options[i]);
    char* eq = strchr(kv, '=');
    if (eq) *eq = '\0';
    st = eq ? grt_session_options_set(so, kv, eq + 1)
            : grt_status_new(GRT_INVALID_ARGUMENT, "--option '%s': expected KEY=VALUE", kv);
  }
  if (!st) st = grt_session_new(g, so, &s);
  const char* init[] = {"init"};
  if (!st) st = grt_session_run(s, NULL, 0, NULL, 0, init, 1, NULL, NULL);
  const char* feeds[] = {"x", "labels"};
  const char* targets[] = {"train"};
  if (!st) st = grt_session_make_callable_by_name(s, feeds, 2, NULL, 0, targets, 1, &c);
  if (!st) st = grt_tensor_new(GRT_FLOAT32, 2, xd, &x);
  if (!st) st = grt_tensor_new(GRT_INT32, 1, yd, &y);
  if (!st) {
    unsigned r = 1;
    float* xp = grt_tensor_data(x);
    int32_t* yp = grt_tensor_data(y);
    for (int64_t i = 0; i < (int64_t)batch * FMNIST_PIXELS; i++)
      xp[i] = (float)(rand_r(&r) % 256) / 255.0f;
    for (int i = 0; i < batch; i++) yp[i] = rand_r(&r) % FMNIST_CLASSES;
  }
  grt_tensor* in[2] = {x, y};
  double* dt = st ? NULL : calloc((size_t)steps, sizeof *dt);
  if (!st && !dt) st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  double t0 = 0;
  for (int i = 0; !st && i < steps + 3; i++) {
    if (i == 3) t0 = now_s();
    double t1 = now_s();
    st = grt_callable_run(c, in, NULL, NULL);
    if (i >= 3) dt[i - 3] = now_s() - t1;
  }
  if (!st) {
    out->examples_per_s = (double)steps * batch / (now_s() - t0);
    qsort(dt, (size_t)steps, sizeof *dt, cmp_double);
    out->step_min_s = dt[0];
    out->step_median_s = dt[steps / 2];
  }
  free(dt);
  if (!st && trace_path) st = write_trace(c, in);
  if (!st && trace_steps > 0 && towers == 1) st = trace_table(c, in, batch);
  grt_tensor_free(x);
  grt_tensor_free(y);
  grt_callable_free(c);
  grt_session_free(s);
  grt_session_options_free(so);
  grt_graph_free(g);
  return st;
}

/* --peak-rounds: one tower's training and the 1024^3 MatMul in turn. */
static grt_status* against_peak(int batch, int steps, int rounds) {
  enum { kMaxRounds = 64 };
  if (rounds > kMaxRounds) rounds = kMaxRounds;
  double ratio[kMaxRounds], best = 0;
  printf("training against the SGEMM peak, %d rounds in turn (one tower, batch %d, %d steps)\n",
         rounds, batch, steps);
  print_load();
  for (int r = 0; r < rounds; r++) {
    figure fig = {0};
    double peak = 0;
    grt_status* st = measure(1, batch, steps, &fig);
    if (!st) st = sgemm_peak(&peak);
    if (st) return st;
    double gflops = fig.examples_per_s * 2.0 * kMacsPerExample * 1e-9;
    ratio[r] = gflops / peak;
    if (ratio[r] > best) best = ratio[r];
    printf(
        "  round %2d: %7.0f examples/s, %5.1f GFLOP/s; 1024^3 MatMul %5.1f GFLOP/s; ratio %.3f; "
        "steps min %.0f, median %.0f us\n",
        r + 1, fig.examples_per_s, gflops, peak, ratio[r], fig.step_min_s * 1e6,
        fig.step_median_s * 1e6);
    fflush(stdout);
  }
  print_load();
  qsort(ratio, (size_t)rounds, sizeof ratio[0], cmp_double);
  double median =
      rounds % 2 ? ratio[rounds / 2] : 0.5 * (ratio[rounds / 2 - 1] + ratio[rounds / 2]);
  printf("RATIO median=%.3f best=%.3f\n", median, best);
  return NULL;
}

int main(int argc, char** argv) {
  grt_select_blas_core(argv);
  int steps = 40, batch = 256;
  int towers[8] = {1, 2, 4}, n = 3, peak_rounds = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--steps"))
      steps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--batch"))
      batch = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--trace"))
      trace_path = argv[i + 1];
    else if (!strcmp(argv[i], "--trace-steps"))
      trace_steps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--peak-rounds"))
      peak_rounds = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--option") && n_options < 8)
      options[n_options++] = argv[i + 1];
    else if (!strcmp(argv[i], "--towers")) {
      n = 0;
      for (char* t = strtok(argv[i + 1], ","); t && n < 8; t = strtok(NULL, ","))
        towers[n++] = atoi(t);
    }
  }
  printf(
      "MLP 784-256-256-10 training (Adam), batch %d, %d steps per figure; one tower per logical "
      "CPU device\n",
      batch, steps);
  printf("%-22s %-8s %14s %16s\n", "OpenBLAS threads", "towers", "examples/s", "vs first row");
  double base = 0;
  for (int series = 0; series < 2; series++) {
    if (series == 1) openblas_set_num_threads(1);
    if (series == 1) trace_steps = 0; /* the table once, with OpenBLAS's default threads */
    for (int i = 0; i < n; i++) {
      figure fig = {0};
      grt_status* st = measure(towers[i], batch, steps, &fig);
      double eps = fig.examples_per_s;
      if (st) {
        fprintf(stderr, "train_bench: %d towers: %s\n", towers[i], grt_status_message(st));
        grt_status_free(st);
        return 1;
      }
      if (base == 0) base = eps;
      printf("%-22s %-8d %14.0f %15.2fx\n", series ? "1 per call" : "default", towers[i], eps,
             eps / base);
      fflush(stdout);
    }
  }
  grt_status* st = peak_rounds > 0 ? against_peak(batch, steps, peak_rounds) : NULL;
  if (st) {
    fprintf(stderr, "train_bench: %s\n", grt_status_message(st));
    grt_status_free(st);
    return 1;
  }
  return 0;
}
