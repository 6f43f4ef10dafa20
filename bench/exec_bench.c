/* Execution benchmarks (print figures; assert nothing on time).
 *
 *   chain   a chain of 10k scalar Adds: executor overhead per node, through
 *           grt_session_run and a callable, the callable with and without a
 *           trace (alternating call by call)
 *   matmul  MatMul 1024x1024x1024 through a session, beside a direct
 *           cblas_sgemm call on the same buffers in the same process
 *   mlp     784-256-256-10 with ReLU and Softmax, batch 1 and 256, through
 *           grt_session_run and a callable (with and without a trace)
 *   mlp2    the batch-256 MLP with two steps in flight (two host threads
 *           running the same session) beside one at a time: the threading
 *           policy's check (oneDNN's OpenMP teams vs the 2 cores)
 *
 *   cifar   examples/cifar10_net.json (the seeds' CIFAR-10 tower), batch 1 and 64
 *   conv    Conv2D 3x3 64->64 SAME on 32x56x56 NHWC through a session, beside
 *           oneDNN's convolution called directly (weights packed once)
 *
 *   libs    float32 MatMul's libraries side by side, interleaved in one run
 *           (backends/cpu/LIBRARIES.md): the per-shape table beside oneDNN
 *           alone (its matmul primitive for every MatMul, and the table with
 *           dnnl_sgemm where it names OpenBLAS), on
 *           bench/gemm_bench's shapes (one MatMul on constant weights), the
 *           MLP and the CIFAR-10 net (inference), and the Fashion-MNIST MLP
 *           and CNN (one training step). Min and median over rounds of the
 *           best run of each round, and their ratios to the table's.
 *
 *   exec_bench [chain|matmul|mlp|mlp2|cifar|conv|libs|all]... [--repeats N] [--no-rewrite]
 * (several names run in the order given; none: all but libs; chain-run:
 * the chain's untraced callable runs alone, for profiling the executor)
 * (cifar and libs read examples/cifar10_net.json from the current
 * directory: run from the repository root.)
 * --no-rewrite: sessions without the graph rewrite (no fusion, no weight
 * pre-packing), for comparison.
 * bench/compare_ort.sh runs the same models in ONNX Runtime beside it (the
 * baselines must be measured in the same sitting: this machine is noisy). */
#include <cblas.h>
#include <dnnl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "backends/cpu/matmul_dnnl.h"
#include "examples/fashion_mnist_model.h"
#include "bench/bench_stats.h"
#include "grt/grt.h"
#include "tools/blas_core.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(grt_status* s, const char* what) {
  if (!s) return;
  fprintf(stderr, "exec_bench: %s: %s\n", what, grt_status_message(s));
  exit(1);
}

static int32_t add(grt_graph* g, const char* name, const char* op) {
  int32_t i;
  check(grt_graph_add_node(g, name, op, &i), name);
  return i;
}

static grt_tensor* random_tensor(int32_t rank, const int64_t* dims, unsigned* seed) {
  grt_tensor* t;
  check(grt_tensor_new(GRT_FLOAT32, rank, dims, &t), "tensor");
  float* v = grt_tensor_data(t);
  for (int64_t i = 0; i < grt_tensor_num_elements(t); i++)
    v[i] = (float)rand_r(seed) / (float)RAND_MAX * 0.2f - 0.1f;
  return t;
}

static void placeholder(grt_graph* g, const char* name, int32_t rank, const int64_t* dims) {
  int32_t i = add(g, name, "Placeholder");
  check(grt_graph_set_attr_type(g, i, "dtype", GRT_FLOAT32), name);
  check(grt_graph_set_attr_shape(g, i, "shape", rank, dims), name);
}

static void constant(grt_graph* g, const char* name, grt_tensor* t) {
  int32_t i = add(g, name, "Const");
  check(grt_graph_set_attr_type(g, i, "dtype", GRT_FLOAT32), name);
  check(grt_graph_set_attr_tensor(g, i, "value", t), name);
  grt_tensor_free(t);
}

static void binary(grt_graph* g, const char* name, const char* op, const char* a, const char* b) {
  int32_t i = add(g, name, op);
  check(grt_graph_add_input(g, i, a), name);
  check(grt_graph_add_input(g, i, b), name);
}

static void unary(grt_graph* g, const char* name, const char* op, const char* a) {
  int32_t i = add(g, name, op);
  check(grt_graph_add_input(g, i, a), name);
}

static int g_no_rewrite;

static grt_session* session_for(grt_graph* g) {
  grt_session_options* o;
  check(grt_session_options_new(&o), "options");
  if (g_no_rewrite) check(grt_session_options_set(o, "rewrite", "false"), "options");
  grt_session* s;
  check(grt_session_new(g, o, &s), "session");
  grt_session_options_free(o);
  return s;
}

/* Best wall time of `repeats` runs of fetch with one feed. */
static double best_run(grt_session* s, const char* feed, grt_tensor* value, const char* fetch,
                       int repeats) {
  grt_feed f = {feed, value};
  const char* fetches[] = {fetch};
  double best = 1e30;
  for (int r = 0; r < repeats; r++) {
    grt_tensor* out;
    double t0 = now_s();
    check(grt_session_run(s, &f, 1, fetches, 1, NULL, 0, &out, NULL), "run");
    double t = now_s() - t0;
    grt_tensor_free(out);
    if (t < best) best = t;
  }
  return best;
}

/* Best wall time of a callable's run with one feed and one fetch, tracing
 * off and on alternating call by call (a fresh trace for each traced call,
 * made and freed outside the timing), so both figures come from the same
 * moments of a noisy machine. `warm` calls first, untimed. */
static int g_untraced_only; /* chain-run: no traced calls, for a profile of the executor alone */

static void best_call(grt_callable* c, grt_tensor* x, int warm, int repeats, double* off,
                      double* on) {
  *off = *on = 1e30;
  for (int r = 0; r < warm + repeats; r++) {
    for (int traced = 0; traced < 2 - g_untraced_only; traced++) {
      grt_trace* trace = NULL;
      if (traced) check(grt_trace_new(&trace), "trace");
      grt_tensor* out;
      double t0 = now_s();
      check(grt_callable_run(c, &x, &out, trace), "callable run");
      double dt = now_s() - t0;
      grt_tensor_free(out);
      grt_trace_free(trace);
      double* best = traced ? on : off;
      if (r >= warm && dt < *best) *best = dt;
    }
  }
}

static grt_callable* callable_for(grt_session* s, const char* feed, const char* fetch) {
  grt_callable* c;
  check(grt_session_make_callable_by_name(s, &feed, 1, &fetch, 1, NULL, 0, &c), "callable");
  return c;
}

/* With only_run, just the callable runs (for profiling the executor). */
static void bench_chain(int repeats, int only_run) {
  enum { kNodes = 10000 };
  grt_graph* g;
  check(grt_graph_new(&g), "graph");
  placeholder(g, "x", 0, NULL);
  int64_t none[1] = {0};
  unsigned seed = 1;
  constant(g, "one", random_tensor(0, none, &seed));
  char prev[32] = "x", name[32];
  for (int i = 0; i < kNodes; i++) {
    snprintf(name, sizeof name, "add%d", i);
    binary(g, name, "Add", prev, "one");
    memcpy(prev, name, sizeof prev);
  }
  grt_session* s = session_for(g);
  grt_tensor* x = random_tensor(0, none, &seed);
  best_run(s, "x", x, prev, 3); /* warm: builds the cached executable */
  double t = only_run ? 0 : best_run(s, "x", x, prev, repeats);
  if (!only_run)
    printf("chain of %d scalar Adds, grt_session_run: %.3f ms per run, %.0f ns per node\n", kNodes,
           t * 1e3, t * 1e9 / kNodes);

  /* The same through a callable: no names, no cache lookup; and with a
   * trace, to show what tracing costs when on (off, the executor tests one
   * pointer per node). */
  grt_callable* c = callable_for(s, "x", prev);
  double best, traced;
  best_call(c, x, 3, repeats, &best, &traced);
  printf("chain of %d scalar Adds, grt_callable_run: %.3f ms per run, %.1f ns per node\n", kNodes,
         best * 1e3, best * 1e9 / kNodes);
  printf(
      "chain of %d scalar Adds, grt_callable_run with a trace: %.3f ms per run, %.1f ns per "
      "node (tracing on costs %.1f ns per node)\n",
      kNodes, traced * 1e3, traced * 1e9 / kNodes, (traced - best) * 1e9 / kNodes);
  grt_callable_free(c);
  if (only_run) repeats = 0;

  /* Load + place + create a session, from a .grt file as a host would. */
  char path[] = "/tmp/grt-chain-XXXXXX.grt";
  int fd = mkstemps(path, 4);
  if (fd < 0) {
    perror("mkstemps");
    exit(1);
  }
  close(fd);
  check(grt_graph_save(g, path), "save");
  best = 1e30;
  for (int r = 0; r < repeats; r++) {
    double t0 = now_s();
    grt_graph* lg;
    check(grt_graph_load(path, &lg), "load");
    grt_session* ls = session_for(lg);
    double dt = now_s() - t0;
    grt_session_free(ls);
    grt_graph_free(lg);
    if (dt < best) best = dt;
  }
  unlink(path);
  if (!only_run)
    printf("chain of %d scalar Adds, load .grt + place + create session: %.2f ms\n", kNodes,
           best * 1e3);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

static void bench_matmul(int repeats) {
  enum { N = 1024 };
  int64_t dims[] = {N, N};
  grt_graph* g;
  check(grt_graph_new(&g), "graph");
  placeholder(g, "a", 2, dims);
  unsigned seed = 2;
  constant(g, "b", random_tensor(2, dims, &seed));
  binary(g, "c", "MatMul", "a", "b");
  grt_session* s = session_for(g);
  grt_tensor* a = random_tensor(2, dims, &seed);
  double flops = 2.0 * N * N * N;
  best_run(s, "a", a, "c", 2);
  double t_grt = best_run(s, "a", a, "c", repeats);
  /* The same product by a direct BLAS call. */
  float* c = aligned_alloc(64, sizeof(float) * N * N);
  const grt_tensor* b;
  check(grt_graph_node_attr_tensor(g, grt_graph_find_node(g, "b"), "value", &b), "b");
  double t_blas = 1e30;
  for (int r = 0; r < repeats + 2; r++) {
    double t0 = now_s();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, grt_tensor_data(a), N,
                grt_tensor_data(b), N, 0.0f, c, N);
    double t = now_s() - t0;
    if (t < t_blas) t_blas = t;
  }
  printf(
      "MatMul %dx%dx%d: session %.1f GFLOP/s, direct cblas_sgemm %.1f GFLOP/s, "
      "ratio %.3f (goal >= 0.95)\n",
      N, N, N, flops / t_grt * 1e-9, flops / t_blas * 1e-9, t_blas / t_grt);
  const char* core = getenv("OPENBLAS_CORETYPE");
  printf("  OPENBLAS_CORETYPE=%s\n", core ? core : "(unset)");
  free(c);
  grt_tensor_free(a);
  grt_session_free(s);
  grt_graph_free(g);
}

static grt_graph* mlp_graph(void) {
  static const int64_t kSizes[] = {784, 256, 256, 10};
  grt_graph* g;
  check(grt_graph_new(&g), "graph");
  int64_t xdims[] = {-1, 784};
  placeholder(g, "x", 2, xdims);
  unsigned seed = 3;
  char prev[32] = "x";
  for (int l = 0; l < 3; l++) {
    char w[32], b[32], mm[32], ba[32], act[32];
    snprintf(w, sizeof w, "w%d", l);
    snprintf(b, sizeof b, "b%d", l);
    snprintf(mm, sizeof mm, "mm%d", l);
    snprintf(ba, sizeof ba, "bias%d", l);
    snprintf(act, sizeof act, "relu%d", l);
    int64_t wd[] = {kSizes[l], kSizes[l + 1]};
    constant(g, w, random_tensor(2, wd, &seed));
    constant(g, b, random_tensor(1, &wd[1], &seed));
    binary(g, mm, "MatMul", prev, w);
    binary(g, ba, "BiasAdd", mm, b);
    if (l < 2) {
      unary(g, act, "Relu", ba);
      memcpy(prev, act, sizeof prev);
    } else {
      memcpy(prev, ba, sizeof prev);
    }
  }
  unary(g, "probs", "Softmax", prev);
  return g;
}

static void bench_mlp(int repeats) {
  grt_graph* g = mlp_graph();
  unsigned seed = 4;
  grt_session* s = session_for(g);
  grt_callable* c = callable_for(s, "x", "probs");
  static const int64_t kBatches[] = {1, 256};
  for (int i = 0; i < 2; i++) {
    int64_t dims[] = {kBatches[i], 784};
    grt_tensor* x = random_tensor(2, dims, &seed);
    best_run(s, "x", x, "probs", 10);
    double t = best_run(s, "x", x, "probs", repeats * (i == 0 ? 100 : 10));
    printf("MLP 784-256-256-10 + softmax, batch %3lld: %.1f us per run\n", (long long)kBatches[i],
           t * 1e6);
    double off, on;
    best_call(c, x, 10, repeats * (i == 0 ? 100 : 10), &off, &on);
    printf(
        "MLP 784-256-256-10 + softmax, batch %3lld, grt_callable_run: %.1f us per run (with a "
        "trace: %.1f)\n",
        (long long)kBatches[i], off * 1e6, on * 1e6);
    grt_tensor_free(x);
  }
  grt_callable_free(c);
  grt_session_free(s);
  grt_graph_free(g);
}

typedef struct {
  grt_session* s;
  grt_tensor* x;
  int runs;
} mlp_job;

static void* mlp_runs(void* arg) {
  mlp_job* j = arg;
  grt_feed f = {"x", j->x};
  const char* fetches[] = {"probs"};
  for (int r = 0; r < j->runs; r++) {
    grt_tensor* out;
    check(grt_session_run(j->s, &f, 1, fetches, 1, NULL, 0, &out, NULL), "run");
    grt_tensor_free(out);
  }
  return NULL;
}

/* Wall time of `runs` runs on each of `threads` host threads at once. */
static double concurrent(grt_session* s, grt_tensor* x, int threads, int runs) {
  pthread_t t[2];
  mlp_job j = {s, x, runs};
  double t0 = now_s();
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, mlp_runs, &j);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  return now_s() - t0;
}

static void bench_mlp2(int repeats) {
  grt_graph* g = mlp_graph();
  grt_session* s = session_for(g);
  unsigned seed = 5;
  int64_t dims[] = {256, 784};
  grt_tensor* x = random_tensor(2, dims, &seed);
  int runs = repeats * 5;
  concurrent(s, x, 1, 5);
  double best1 = 1e30, best2 = 1e30;
  for (int round = 0; round < 3; round++) {
    double t1 = concurrent(s, x, 1, runs) / runs;
    double t2 = concurrent(s, x, 2, runs) / (2.0 * runs);
    if (t1 < best1) best1 = t1;
    if (t2 < best2) best2 = t2;
  }
  printf(
      "MLP batch 256, one step at a time: %.1f us per step; two steps in flight: %.1f us per "
      "step (%.2fx the throughput)\n",
      best1 * 1e6, best2 * 1e6, best1 / best2);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

static void bench_cifar(int repeats) {
  grt_graph* g;
  check(grt_graph_load("examples/cifar10_net.json", &g), "examples/cifar10_net.json");
  grt_session* s = session_for(g);
  const char* init[] = {"init"};
  check(grt_session_run(s, NULL, 0, NULL, 0, init, 1, NULL, NULL), "init");
  unsigned seed = 6;
  static const int64_t kBatches[] = {1, 64};
  for (int i = 0; i < 2; i++) {
    int64_t dims[] = {kBatches[i], 24, 24, 3};
    grt_tensor* x = random_tensor(4, dims, &seed);
    best_run(s, "images", x, "probs", 3);
    double t = best_run(s, "images", x, "probs", repeats * (i == 0 ? 10 : 1));
    printf("CIFAR-10 conv net, batch %2lld: %.1f us per run\n", (long long)kBatches[i], t * 1e6);
    grt_tensor_free(x);
  }
  grt_session_free(s);
  grt_graph_free(g);
}

#define DNNL_OK(x)                                    \
  do {                                                \
    if ((x) != dnnl_success) {                        \
      fprintf(stderr, "exec_bench: %s failed\n", #x); \
      exit(1);                                        \
    }                                                 \
  } while (0)

/* Best seconds of a oneDNN forward convolution on the same buffers, with
 * its weights reordered once into the layout it prefers. */
static double direct_conv(const float* src, const float* filter_hwio, float* dst, int repeats) {
  dnnl_engine_t eng;
  dnnl_stream_t strm;
  DNNL_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
  DNNL_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
  dnnl_memory_desc_t smd, wmd_user, wmd_any, dmd;
  dnnl_dims_t sd = {32, 64, 56, 56}, wd = {64, 64, 3, 3}, st = {1, 1}, pad = {1, 1};
  DNNL_OK(dnnl_memory_desc_init_by_tag(&smd, 4, sd, dnnl_f32, dnnl_nhwc));
  DNNL_OK(dnnl_memory_desc_init_by_tag(&dmd, 4, sd, dnnl_f32, dnnl_nhwc));
  DNNL_OK(dnnl_memory_desc_init_by_tag(&wmd_user, 4, wd, dnnl_f32, dnnl_hwio));
  DNNL_OK(dnnl_memory_desc_init_by_tag(&wmd_any, 4, wd, dnnl_f32, dnnl_format_tag_any));
  dnnl_convolution_desc_t cd;
  DNNL_OK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
                                             &smd, &wmd_any, NULL, &dmd, st, pad, pad));
  dnnl_primitive_desc_t pd;
  DNNL_OK(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, NULL));
  const dnnl_memory_desc_t* wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  dnnl_primitive_t conv;
  DNNL_OK(dnnl_primitive_create(&conv, pd));
  dnnl_memory_t ms, mw_user, mw, md;
  DNNL_OK(dnnl_memory_create(&ms, &smd, eng, (void*)src));
  DNNL_OK(dnnl_memory_create(&md, &dmd, eng, dst));
  DNNL_OK(dnnl_memory_create(&mw_user, &wmd_user, eng, (void*)filter_hwio));
  DNNL_OK(dnnl_memory_create(&mw, wmd, eng, DNNL_MEMORY_ALLOCATE));
  dnnl_primitive_desc_t rpd;
  DNNL_OK(dnnl_reorder_primitive_desc_create(&rpd, &wmd_user, eng, wmd, eng, NULL));
  dnnl_primitive_t reorder;
  DNNL_OK(dnnl_primitive_create(&reorder, rpd));
  dnnl_exec_arg_t ra[] = {{DNNL_ARG_FROM, mw_user}, {DNNL_ARG_TO, mw}};
  DNNL_OK(dnnl_primitive_execute(reorder, strm, 2, ra));
  DNNL_OK(dnnl_stream_wait(strm));
  dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
  double best = 1e30;
  for (int r = 0; r < repeats + 1; r++) {
    double t0 = now_s();
    DNNL_OK(dnnl_primitive_execute(conv, strm, 3, args));
    DNNL_OK(dnnl_stream_wait(strm));
    double t = now_s() - t0;
    if (r > 0 && t < best) best = t;
  }
  dnnl_primitive_destroy(reorder);
  dnnl_primitive_desc_destroy(rpd);
  dnnl_primitive_destroy(conv);
  dnnl_primitive_desc_destroy(pd);
  dnnl_memory_destroy(ms);
  dnnl_memory_destroy(md);
  dnnl_memory_destroy(mw_user);
  dnnl_memory_destroy(mw);
  dnnl_stream_destroy(strm);
  dnnl_engine_destroy(eng);
  return best;
}

static void bench_conv(int repeats) {
  grt_graph* g;
  check(grt_graph_new(&g), "graph");
  int64_t xd[] = {32, 56, 56, 64}, fd[] = {3, 3, 64, 64};
  placeholder(g, "x", 4, xd);
  unsigned seed = 8;
  grt_tensor* filter = random_tensor(4, fd, &seed);
  grt_tensor_ref(filter);
  constant(g, "filter", filter);
  int32_t c = add(g, "conv", "Conv2D");
  check(grt_graph_add_input(g, c, "x"), "conv");
  check(grt_graph_add_input(g, c, "filter"), "conv");
  check(grt_graph_set_attr_int_list(g, c, "strides", (const int64_t[]){1, 1, 1, 1}, 4), "conv");
  check(grt_graph_set_attr_string(g, c, "padding", "SAME"), "conv");
  grt_session* s = session_for(g);
  grt_tensor* x = random_tensor(4, xd, &seed);
  int n = repeats / 4 < 3 ? 3 : repeats / 4;
  best_run(s, "x", x, "conv", 1);
  double t_grt = best_run(s, "x", x, "conv", n);
  float* dst = aligned_alloc(64, sizeof(float) * 32 * 56 * 56 * 64);
  double t_dnnl = direct_conv(grt_tensor_data(x), grt_tensor_data(filter), dst, n);
  double flops = 2.0 * 32 * 56 * 56 * 64 * 64 * 9;
  printf(
      "Conv2D 3x3 64->64 on 32x56x56 NHWC: session %.1f GFLOP/s, direct oneDNN %.1f GFLOP/s, "
      "ratio %.3f (goal >= 0.90)\n",
      flops / t_grt * 1e-9, flops / t_dnnl * 1e-9, t_dnnl / t_grt);
  free(dst);
  grt_tensor_free(filter);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

/* ---- libs: today's per-shape choice beside oneDNN alone ------------------- */

enum { kLibs = 3, kMaxWork = 24, kMaxRounds = 41 };
static const grt_mm_library kLibOrder[kLibs] = {GRT_MM_LIBRARY_TABLE, GRT_MM_LIBRARY_DNNL_MATMUL,
                                                GRT_MM_LIBRARY_DNNL_ONLY};
static const char* const kLibNames[kLibs] = {"table", "dnnl matmul", "dnnl only"};

/* One workload: a callable with its feeds. */
typedef struct {
  char name[48];
  grt_graph* g;
  grt_session* s;
  grt_callable* c;
  grt_tensor* in[2];
  int n_out;
  int runs; /* per round and library, sized to about 30 ms */
  double t[kLibs][kMaxRounds];
} libs_work;

static void libs_run(libs_work* w) {
  grt_tensor* out[1] = {NULL};
  check(grt_callable_run(w->c, w->in, w->n_out ? out : NULL, NULL), w->name);
  grt_tensor_free(out[0]);
}

static void libs_callable(libs_work* w, const char* feed0, const char* feed1, const char* fetch,
                          const char* target) {
  const char* feeds[] = {feed0, feed1};
  const char* fetches[] = {fetch};
  const char* targets[] = {target};
  check(grt_session_make_callable_by_name(w->s, feeds, feed1 ? 2 : 1, fetches, fetch ? 1 : 0,
                                          targets, target ? 1 : 0, &w->c),
        w->name);
  w->n_out = fetch ? 1 : 0;
}

static void libs_matmul(libs_work* w, int64_t m, int64_t k, int64_t n, unsigned* seed) {
  snprintf(w->name, sizeof w->name, "MatMul %lldx%lldx%lld", (long long)m, (long long)k,
           (long long)n);
  check(grt_graph_new(&w->g), "graph");
  int64_t xd[] = {m, k}, wd[] = {k, n};
  placeholder(w->g, "x", 2, xd);
  constant(w->g, "w", random_tensor(2, wd, seed));
  binary(w->g, "y", "MatMul", "x", "w");
  w->s = session_for(w->g);
  libs_callable(w, "x", NULL, "y", NULL);
  w->in[0] = random_tensor(2, xd, seed);
}

/* A session on g (taking it), its variables initialised where it has any. */
static void libs_session(libs_work* w, const char* name, grt_graph* g) {
  snprintf(w->name, sizeof w->name, "%s", name);
  w->g = g;
  w->s = session_for(g);
  const char* init[] = {"init"};
  if (grt_graph_find_node(g, "init") >= 0)
    check(grt_session_run(w->s, NULL, 0, NULL, 0, init, 1, NULL, NULL), "init");
}

static void libs_infer(libs_work* w, const char* name, grt_graph* g, const char* feed, int32_t rank,
                       const int64_t* dims, const char* fetch, unsigned* seed) {
  libs_session(w, name, g);
  libs_callable(w, feed, NULL, fetch, NULL);
  w->in[0] = random_tensor(rank, dims, seed);
}

static void libs_train(libs_work* w, const char* name, grt_graph* g, int64_t batch,
                       unsigned* seed) {
  libs_session(w, name, g);
  libs_callable(w, "x", "labels", NULL, "train");
  w->in[0] = random_tensor(2, (int64_t[]){batch, 784}, seed);
  int64_t yd[] = {batch};
  check(grt_tensor_new(GRT_INT32, 1, yd, &w->in[1]), "labels");
  int32_t* y = grt_tensor_data(w->in[1]);
  for (int64_t i = 0; i < batch; i++) y[i] = rand_r(seed) % 10;
}

static void bench_libs(int rounds) {
  static const int64_t kShapes[][3] = {
      {1, 784, 256},  {1, 256, 256},  {1, 256, 10},   {256, 784, 256},    {256, 256, 256},
      {256, 256, 10}, {1, 2304, 384}, {1, 384, 192},  {1, 192, 10},       {64, 2304, 384},
      {64, 384, 192}, {64, 192, 10},  {32, 512, 512}, {1024, 1024, 1024},
  };
  if (rounds > kMaxRounds) rounds = kMaxRounds;
  if (rounds < 1) rounds = 1;
  static libs_work work[kMaxWork];
  int n = 0;
  unsigned seed = 11;
  for (size_t i = 0; i < sizeof kShapes / sizeof kShapes[0]; i++)
    libs_matmul(&work[n++], kShapes[i][0], kShapes[i][1], kShapes[i][2], &seed);
  libs_infer(&work[n++], "MLP infer b1", mlp_graph(), "x", 2, (int64_t[]){1, 784}, "probs", &seed);
  libs_infer(&work[n++], "MLP infer b256", mlp_graph(), "x", 2, (int64_t[]){256, 784}, "probs",
             &seed);
  for (int b = 0; b < 2; b++) {
    grt_graph* g;
    check(grt_graph_load("examples/cifar10_net.json", &g), "examples/cifar10_net.json");
    int64_t batch = b ? 64 : 1;
    libs_infer(&work[n++], b ? "CIFAR infer b64" : "CIFAR infer b1", g, "images", 4,
               (int64_t[]){batch, 24, 24, 3}, "probs", &seed);
  }
  fmnist_model_options mo = {.towers = 1, .cpus = 1, .learning_rate = 1e-3, .seed = 1};
  grt_graph* g;
  check(fmnist_build_mlp(&mo, &g), "fmnist mlp");
  libs_train(&work[n++], "FMNIST MLP train b256", g, 256, &seed);
  check(fmnist_build_cnn(&mo, &g), "fmnist cnn");
  libs_train(&work[n++], "FMNIST CNN train b64", g, 64, &seed);

  /* Warm every library's plans and packed weights, then size the rounds. */
  for (int i = 0; i < n; i++) {
    double best = 1e30;
    for (int l = 0; l < kLibs; l++) {
      grt_matmul_set_library(kLibOrder[l]);
      for (int r = 0; r < 3; r++) {
        double t0 = now_s();
        libs_run(&work[i]);
        double t = now_s() - t0;
        if (t < best) best = t;
      }
    }
    work[i].runs = best > 0.03 ? 1 : (int)(0.03 / best);
  }
  grt_bench_print_load("before");
  /* Interleaved: each round runs every workload under each library in
   * turn, the order rotating, so drifts in the machine's load fall on all. */
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++)
      for (int q = 0; q < kLibs; q++) {
        int l = (q + r + i) % kLibs;
        grt_matmul_set_library(kLibOrder[l]);
        double best = 1e30;
        for (int k = 0; k < work[i].runs; k++) {
          double t0 = now_s();
          libs_run(&work[i]);
          double t = now_s() - t0;
          best = t < best ? t : best;
        }
        work[i].t[l][r] = best;
      }
  grt_matmul_set_library(GRT_MM_LIBRARY_TABLE);
  grt_bench_print_load("after");
  printf(
      "%d rounds of about 30 ms per workload and library; microseconds per run: min / median "
      "over the rounds of each round's best run; ratios to the table's (min, median)\n",
      rounds);
  printf("%-22s | %19s", "workload", kLibNames[0]);
  for (int l = 1; l < kLibs; l++) printf(" | %19s %13s", kLibNames[l], "ratio");
  printf("\n");
  for (int i = 0; i < n; i++) {
    libs_work* w = &work[i];
    double mn[kLibs], md[kLibs];
    for (int l = 0; l < kLibs; l++) {
      mn[l] = grt_bench_minimum(w->t[l], rounds) * 1e6;
      md[l] = grt_bench_median(w->t[l], rounds) * 1e6;
    }
    printf("%-22s | %9.1f %9.1f", w->name, mn[0], md[0]);
    for (int l = 1; l < kLibs; l++)
      printf(" | %9.1f %9.1f %6.3f %6.3f", mn[l], md[l], mn[l] / mn[0], md[l] / md[0]);
    printf("\n");
    grt_callable_free(w->c);
    grt_tensor_free(w->in[0]);
    grt_tensor_free(w->in[1]);
    grt_session_free(w->s);
    grt_graph_free(w->g);
  }
}

int main(int argc, char** argv) {
  grt_select_blas_core(argv);
  const char* names[16];
  int n_names = 0, repeats = 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
      repeats = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-rewrite"))
      g_no_rewrite = 1;
    else if (n_names < 16)
      names[n_names++] = argv[i];
  }
  if (n_names == 0) names[n_names++] = "all";
  if (repeats < 1) repeats = 1;
  for (int k = 0; k < n_names; k++) {
    const char* which = names[k];
    if (!strcmp(which, "all") || !strcmp(which, "chain")) bench_chain(repeats, 0);
    if (!strcmp(which, "chain-run")) {
      g_untraced_only = 1;
      bench_chain(repeats, 1);
      g_untraced_only = 0;
    }
    if (!strcmp(which, "all") || !strcmp(which, "matmul")) bench_matmul(repeats);
    if (!strcmp(which, "all") || !strcmp(which, "mlp")) bench_mlp(repeats);
    if (!strcmp(which, "all") || !strcmp(which, "mlp2")) bench_mlp2(repeats);
    if (!strcmp(which, "all") || !strcmp(which, "cifar")) bench_cifar(repeats);
    if (!strcmp(which, "all") || !strcmp(which, "conv")) bench_conv(repeats);
    if (!strcmp(which, "libs")) bench_libs(repeats);
  }
  return 0;
}
