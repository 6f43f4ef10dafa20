/* GEMM libraries side by side at the shapes grt's models use: OpenBLAS's
 * cblas_sgemm, oneDNN's dnnl_sgemm, oneDNN's matmul primitive with plain row-major weights, and
 * the same primitive with weights reordered once into the layout it prefers
 * (what grt's pre-packing does for constant weights). The table in
 * backends/cpu/matmul_select.c and backends/cpu/LIBRARIES.md come from these
 * figures. Prints best-of-N microseconds per call; asserts nothing.
 *
 *   gemm_bench [--repeats N] [--threads T]
 * --threads sets OpenMP's and OpenBLAS's thread counts for both libraries
 * (default: theirs). */
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
  int repeats = 200, threads = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = atoi(argv[++i]);
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
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
