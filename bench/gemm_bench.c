/* GEMM libraries side by side at the shapes grt's models use: OpenBLAS's
 * cblas_sgemm, oneDNN's dnnl_sgemm, oneDNN's matmul primitive with plain row-major weights, and
 * the same primitive with weights reordered once into the layout it prefers
 * (what grt's pre-packing does for constant weights). The table in
 * backends/cpu/matmul_select.c and backends/cpu/LIBRARIES.md come from these
 * figures. Prints best-of-N microseconds per call; asserts nothing.
 *
 *   gemm_bench [--repeats N] [--threads T] [--training [--rounds R]]
 * --threads sets OpenMP's and OpenBLAS's thread counts for both libraries
 * (default: theirs).
 * --training: the products of one training step of the MLP 784-256-256-10
 * at batch 256 with their transposes (the weight gradients read the
 * activations transposed, the input gradients the weights), in OpenBLAS
 * and oneDNN's sgemm with transpose flags and oneDNN's matmul on strided
 * descriptors (what grt's matmul_dnnl.c builds for a transposed operand),
 * R rounds interleaved; min and median over the rounds of each round's
 * best, and GFLOP/s at the min. */
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/blas_core.h"

extern void openblas_set_num_threads(int);

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CHECK(x)                                                    \
  do {                                                              \
    dnnl_status_t st_ = (x);                                        \
    if (st_ != dnnl_success) {                                      \
      fprintf(stderr, "gemm_bench: %s failed: %d\n", #x, (int)st_); \
      exit(1);                                                      \
    }                                                               \
  } while (0)

static float* random_floats(size_t n, unsigned* seed) {
  float* p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
  for (size_t i = 0; i < n; i++) p[i] = (float)rand_r(seed) / (float)RAND_MAX - 0.5f;
  return p;
}

typedef struct {
  dnnl_primitive_t prim;
  dnnl_memory_desc_t src, wei, dst, wei_plain;
} mm_prim;

static mm_prim make_matmul(dnnl_engine_t eng, int64_t m, int64_t k, int64_t n, int packed) {
  mm_prim p;
  dnnl_dims_t sd = {m, k}, wd = {k, n}, dd = {m, n};
  CHECK(dnnl_memory_desc_init_by_tag(&p.src, 2, sd, dnnl_f32, dnnl_ab));
  CHECK(dnnl_memory_desc_init_by_tag(&p.wei_plain, 2, wd, dnnl_f32, dnnl_ab));
  CHECK(dnnl_memory_desc_init_by_tag(&p.wei, 2, wd, dnnl_f32,
                                     packed ? dnnl_format_tag_any : dnnl_ab));
  CHECK(dnnl_memory_desc_init_by_tag(&p.dst, 2, dd, dnnl_f32, dnnl_ab));
  dnnl_matmul_desc_t d;
  CHECK(dnnl_matmul_desc_init(&d, &p.src, &p.wei, NULL, &p.dst));
  dnnl_primitive_desc_t pd;
  CHECK(dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL));
  p.wei = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  CHECK(dnnl_primitive_create(&p.prim, pd));
  dnnl_primitive_desc_destroy(pd);
  return p;
}

/* Best microseconds of `repeats` calls. */
static double time_dnnl(dnnl_engine_t eng, dnnl_stream_t strm, const mm_prim* p, float* a, float* b,
                        float* c, int repeats) {
  dnnl_memory_t ma, mb, mc, mplain;
  CHECK(dnnl_memory_create(&ma, &p->src, eng, a));
  CHECK(dnnl_memory_create(&mplain, &p->wei_plain, eng, b));
  CHECK(dnnl_memory_create(&mb, &p->wei, eng, DNNL_MEMORY_ALLOCATE));
  CHECK(dnnl_memory_create(&mc, &p->dst, eng, c));
  /* Reorder once (a copy even when the layout is plain). */
  dnnl_primitive_desc_t rpd;
  CHECK(dnnl_reorder_primitive_desc_create(&rpd, &p->wei_plain, eng, &p->wei, eng, NULL));
  dnnl_primitive_t r;
  CHECK(dnnl_primitive_create(&r, rpd));
  dnnl_primitive_desc_destroy(rpd);
  dnnl_exec_arg_t ra[] = {{DNNL_ARG_FROM, mplain}, {DNNL_ARG_TO, mb}};
  CHECK(dnnl_primitive_execute(r, strm, 2, ra));
  CHECK(dnnl_stream_wait(strm));
  dnnl_primitive_destroy(r);
  dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
  double best = 1e30;
  for (int i = 0; i < repeats + 3; i++) {
    double t0 = now_s();
    CHECK(dnnl_primitive_execute(p->prim, strm, 3, args));
    CHECK(dnnl_stream_wait(strm));
    double t = now_s() - t0;
    if (i >= 3 && t < best) best = t;
  }
  dnnl_memory_destroy(ma);
  dnnl_memory_destroy(mb);
  dnnl_memory_destroy(mc);
  dnnl_memory_destroy(mplain);
  return best * 1e6;
}

static double time_blas(int64_t m, int64_t k, int64_t n, float* a, float* b, float* c,
                        int repeats) {
  double best = 1e30;
  for (int i = 0; i < repeats + 3; i++) {
    double t0 = now_s();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)k,
                b, (int)n, 0.0f, c, (int)n);
    double t = now_s() - t0;
    if (i >= 3 && t < best) best = t;
  }
  return best * 1e6;
}

static double time_dnnl_sgemm(int64_t m, int64_t k, int64_t n, float* a, float* b, float* c,
                              int repeats) {
  double best = 1e30;
  for (int i = 0; i < repeats + 3; i++) {
    double t0 = now_s();
    CHECK(dnnl_sgemm('N', 'N', m, n, k, 1.0f, a, k, b, n, 0.0f, c, n));
    double t = now_s() - t0;
    if (i >= 3 && t < best) best = t;
  }
  return best * 1e6;
}

/* ---- --training ------------------------------------------------------------ */

/* A rows x cols row-major matrix stored transposed (cols x rows) when t. */
static void md_strided(int64_t rows, int64_t cols, int t, dnnl_memory_desc_t* md) {
  dnnl_dims_t d = {rows, cols};
  dnnl_dims_t s = {t ? 1 : cols, t ? rows : 1};
  CHECK(dnnl_memory_desc_init_by_strides(md, 2, d, dnnl_f32, s));
}

typedef struct {
  const char* what;
  int64_t m, k, n;
  int ta, tb;
} train_gemm;

enum { kTrainLibs = 3, kMaxRounds = 41 };

static double time_one(int lib, const train_gemm* g, dnnl_primitive_t prim, dnnl_stream_t strm,
                       dnnl_exec_arg_t* args, const float* a, const float* b, float* c, int rep) {
  int64_t lda = g->ta ? g->m : g->k, ldb = g->tb ? g->k : g->n;
  double best = 1e30;
  for (int i = 0; i < rep; i++) {
    double t0 = now_s();
    if (lib == 0)
      cblas_sgemm(CblasRowMajor, g->ta ? CblasTrans : CblasNoTrans,
                  g->tb ? CblasTrans : CblasNoTrans, (int)g->m, (int)g->n, (int)g->k, 1.0f, a,
                  (int)lda, b, (int)ldb, 0.0f, c, (int)g->n);
    else if (lib == 1)
      CHECK(dnnl_sgemm(g->ta ? 'T' : 'N', g->tb ? 'T' : 'N', g->m, g->n, g->k, 1.0f, a, lda, b, ldb,
                       0.0f, c, g->n));
    else {
      CHECK(dnnl_primitive_execute(prim, strm, 3, args));
      CHECK(dnnl_stream_wait(strm));
    }
    double t = now_s() - t0;
    if (t < best) best = t;
  }
  return best;
}

static int cmp_double(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

static void bench_training(dnnl_engine_t eng, dnnl_stream_t strm, int rounds) {
  static const train_gemm kStep[] = {
      {"dense1 forward  x.W1", 256, 784, 256, 0, 0}, {"dense2 forward  h1.W2", 256, 256, 256, 0, 0},
      {"dense3 forward  h2.W3", 256, 256, 10, 0, 0}, {"dense3 dW  h2^T.dy", 256, 256, 10, 1, 0},
      {"dense3 dx  dy.W3^T", 256, 10, 256, 0, 1},    {"dense2 dW  h1^T.dy", 256, 256, 256, 1, 0},
      {"dense2 dx  dy.W2^T", 256, 256, 256, 0, 1},   {"dense1 dW  x^T.dy", 784, 256, 256, 1, 0},
  };
  enum { kN = sizeof kStep / sizeof kStep[0] };
  static const char* const kLib[kTrainLibs] = {"openblas", "dnnl sgemm", "dnnl matmul"};
  if (rounds > kMaxRounds) rounds = kMaxRounds;
  if (rounds < 1) rounds = 1;
  static double t[kN][kTrainLibs][kMaxRounds];
  unsigned seed = 9;
  float *a[kN], *b[kN], *c[kN];
  dnnl_primitive_t prim[kN];
  dnnl_memory_t mem[kN][3];
  dnnl_exec_arg_t args[kN][3];
  int rep[kN];
  for (int i = 0; i < kN; i++) {
    const train_gemm* g = &kStep[i];
    a[i] = random_floats((size_t)(g->m * g->k), &seed);
    b[i] = random_floats((size_t)(g->k * g->n), &seed);
    c[i] = random_floats((size_t)(g->m * g->n), &seed);
    dnnl_memory_desc_t sd, wd, dd;
    md_strided(g->m, g->k, g->ta, &sd);
    md_strided(g->k, g->n, g->tb, &wd);
    md_strided(g->m, g->n, 0, &dd);
    dnnl_matmul_desc_t d;
    CHECK(dnnl_matmul_desc_init(&d, &sd, &wd, NULL, &dd));
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_primitive_desc_create(&pd, &d, NULL, eng, NULL));
    CHECK(dnnl_primitive_create(&prim[i], pd));
    dnnl_primitive_desc_destroy(pd);
    CHECK(dnnl_memory_create(&mem[i][0], &sd, eng, a[i]));
    CHECK(dnnl_memory_create(&mem[i][1], &wd, eng, b[i]));
    CHECK(dnnl_memory_create(&mem[i][2], &dd, eng, c[i]));
    args[i][0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mem[i][0]};
    args[i][1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mem[i][1]};
    args[i][2] = (dnnl_exec_arg_t){DNNL_ARG_DST, mem[i][2]};
    /* Warm each library, then size a round to about 10 ms. */
    double best = 1e30;
    for (int l = 0; l < kTrainLibs; l++) {
      double x = time_one(l, g, prim[i], strm, args[i], a[i], b[i], c[i], 3);
      best = x < best ? x : best;
    }
    rep[i] = best > 0.01 ? 1 : (int)(0.01 / best);
  }
  FILE* f = fopen("/proc/loadavg", "r");
  char load[64] = "?";
  if (f) {
    if (!fgets(load, sizeof load, f)) snprintf(load, sizeof load, "?");
    fclose(f);
  }
  printf("load average before: %s", load);
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < kN; i++)
      for (int q = 0; q < kTrainLibs; q++) {
        int l = (q + r + i) % kTrainLibs;
        t[i][l][r] = time_one(l, &kStep[i], prim[i], strm, args[i], a[i], b[i], c[i], rep[i]);
      }
  f = fopen("/proc/loadavg", "r");
  if (f) {
    if (!fgets(load, sizeof load, f)) snprintf(load, sizeof load, "?");
    fclose(f);
  }
  printf("load average after: %s", load);
  printf("%d rounds; us per call: min / median over rounds, GFLOP/s at the min\n", rounds);
  printf("%-22s %4s %4s %4s %2s%2s |", "product", "m", "k", "n", "ta", "tb");
  for (int l = 0; l < kTrainLibs; l++) printf(" %24s |", kLib[l]);
  printf("\n");
  double sum[kTrainLibs] = {0}, flops = 0;
  for (int i = 0; i < kN; i++) {
    const train_gemm* g = &kStep[i];
    double fl = 2.0 * g->m * g->k * g->n;
    flops += fl;
    printf("%-22s %4lld %4lld %4lld %2d%2d |", g->what, (long long)g->m, (long long)g->k,
           (long long)g->n, g->ta, g->tb);
    for (int l = 0; l < kTrainLibs; l++) {
      double v[kMaxRounds];
      memcpy(v, t[i][l], sizeof(double) * (size_t)rounds);
      qsort(v, (size_t)rounds, sizeof v[0], cmp_double);
      sum[l] += v[0];
      printf(" %7.1f %7.1f %6.0fGF |", v[0] * 1e6, v[rounds / 2] * 1e6, fl / v[0] * 1e-9);
    }
    printf("\n");
  }
  printf("%-40s |", "the step's products, sum of the minima");
  for (int l = 0; l < kTrainLibs; l++)
    printf(" %7.1f us %9.0fGF |", sum[l] * 1e6, flops / sum[l] * 1e-9);
  printf("\n");
  for (int i = 0; i < kN; i++) {
    dnnl_primitive_destroy(prim[i]);
    for (int j = 0; j < 3; j++) dnnl_memory_destroy(mem[i][j]);
    free(a[i]);
    free(b[i]);
    free(c[i]);
  }
}

static double max_diff(const float* x, const float* y, size_t n) {
  double d = 0;
  for (size_t i = 0; i < n; i++) {
    double e = x[i] > y[i] ? x[i] - y[i] : y[i] - x[i];
    if (e > d) d = e;
  }
  return d;
}

int main(int argc, char** argv) {
  grt_select_blas_core(argv);
  int repeats = 200, threads = 0, training = 0, rounds = 9;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = atoi(argv[++i]);
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    if (!strcmp(argv[i], "--training")) training = 1;
  }
  if (threads > 0) {
    omp_set_num_threads(threads);
    openblas_set_num_threads(threads);
  }
  /* m x k times k x n: the MLP 784-256-256-10 at batch 1 and 256, the
   * small conv net's fully connected layers at batch 1 and 64, a square;
   * the classifiers of resnet18 and efficientnet_b0 (bench/models) at batch
   * 1 and 8. */
  static const int64_t kShapes[][3] = {
      {1, 784, 256},   {1, 256, 256},   {1, 256, 10},   {256, 784, 256},    {256, 256, 256},
      {256, 256, 10},  {1, 2304, 384},  {1, 384, 192},  {1, 192, 10},       {64, 2304, 384},
      {64, 384, 192},  {64, 192, 10},   {32, 512, 512}, {1024, 1024, 1024}, {1, 512, 1000},
      {1, 1280, 1000}, {8, 1280, 1000},
  };
  dnnl_engine_t eng;
  CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
  dnnl_stream_t strm;
  CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
  const char* core = getenv("OPENBLAS_CORETYPE");
  printf("threads: OpenMP %d, OPENBLAS_CORETYPE=%s\n", omp_get_max_threads(),
         core ? core : "(unset)");
  if (training) {
    bench_training(eng, strm, rounds);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
  }
  printf("%6s %5s %5s | %10s %12s %12s %12s | %s\n", "m", "k", "n", "openblas", "dnnl sgemm",
         "dnnl plain", "dnnl packed", "best");
  unsigned seed = 7;
  for (size_t s = 0; s < sizeof kShapes / sizeof kShapes[0]; s++) {
    int64_t m = kShapes[s][0], k = kShapes[s][1], n = kShapes[s][2];
    int rep = m * k * n > 100000000 ? 10 : repeats;
    float* a = random_floats((size_t)(m * k), &seed);
    float* b = random_floats((size_t)(k * n), &seed);
    float* c1 = random_floats((size_t)(m * n), &seed);
    float* c2 = random_floats((size_t)(m * n), &seed);
    double tb = time_blas(m, k, n, a, b, c1, rep);
    double ts = time_dnnl_sgemm(m, k, n, a, b, c2, rep);
    mm_prim plain = make_matmul(eng, m, k, n, 0), packed = make_matmul(eng, m, k, n, 1);
    double tp = time_dnnl(eng, strm, &plain, a, b, c2, rep);
    double tk = time_dnnl(eng, strm, &packed, a, b, c2, rep);
    double diff = max_diff(c1, c2, (size_t)(m * n));
    double best_t = tb;
    const char* best = "openblas";
    if (ts < best_t) best_t = ts, best = "dnnl sgemm";
    if (tp < best_t) best_t = tp, best = "dnnl plain";
    if (tk < best_t) best_t = tk, best = "dnnl packed";
    printf("%6lld %5lld %5lld | %8.1fus %10.1fus %10.1fus %10.1fus | %s (max diff %.1e)\n",
           (long long)m, (long long)k, (long long)n, tb, ts, tp, tk, best, diff);
    dnnl_primitive_destroy(plain.prim);
    dnnl_primitive_destroy(packed.prim);
    free(a);
    free(b);
    free(c1);
    free(c2);
  }
  dnnl_stream_destroy(strm);
  dnnl_engine_destroy(eng);
  return 0;
}
