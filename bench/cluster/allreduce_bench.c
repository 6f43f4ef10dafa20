/* All-reduce through grt across the tasks of a cluster: a graph of one fed
 * float32 vector x and one NcclAllReduce member per task
 * (/job:worker/task:R/device:CPU:0, num_devices = tasks), run as a callable
 * whose step is the transport's all-reduce of x into a new output (out of
 * place: MPI_Iallreduce); the time per step is what a mirrored training
 * step pays per gradient.
 *   mpirun -np R allreduce_bench [MAX_BYTES]
 * Rank 0 prints "bytes seconds_per_step" per size, the fastest of 3 rounds,
 * as mpi_allreduce does (run.sh pairs them).
 *   mpirun -np R allreduce_bench MAX_BYTES ab [ROUNDS]
 * alternates, round by round in one process, the transport's choice of
 * Open MPI algorithm with libnbc's own (GRT_MPI_ALLREDUCE=libnbc), and
 * prints "bytes libnbc_seconds grt_seconds median_ratio" (the fastest
 * round of each; the median over rounds of libnbc's time over grt's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/cluster/sizes.h"
#include "grt/grt.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int die(grt_status* st) {
  fprintf(stderr, "allreduce_bench: %s\n", grt_status_message(st));
  grt_status_free(st);
  return 1;
}

/* The graph for `n` floats over `tasks` tasks, as JSON. */
static char* graph_json(long long n, int tasks) {
  size_t cap = 512 + (size_t)tasks * 512;
  char* s = malloc(cap);
  if (!s) return NULL;
  int at = snprintf(s, cap,
                    "{\"format\": \"grt.graph\", \"version\": 1, \"nodes\": [{\"name\": \"x\", "
                    "\"op\": \"Placeholder\", \"attrs\": {\"dtype\": \"float32\", \"shape\": "
                    "[%lld]}}",
                    n);
  for (int r = 0; r < tasks; r++)
    at += snprintf(s + at, cap - (size_t)at,
                   ", {\"name\": \"sum%d\", \"op\": \"NcclAllReduce\", \"inputs\": [\"x\"], "
                   "\"device\": \"/job:worker/task:%d/device:CPU:0\", \"attrs\": {\"T\": "
                   "\"float32\", \"reduction\": \"sum\", \"num_devices\": %d, \"shared_name\": "
                   "\"g\"}}",
                   r, r, tasks);
  snprintf(s + at, cap - (size_t)at, "]}");
  return s;
}

static int g_rank = -1; /* this process's rank, from its first session */

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* `rounds` (at most 64) > 0: the A/B above into ab[0..2]; else the fastest
 * of 3 rounds into *out. */
static grt_status* bench_size(long long bytes, int tasks, const char* spec, int rounds, double* ab,
                              double* out) {
  long long n = bytes / (long long)sizeof(float);
  char* json = graph_json(n, tasks);
  if (!json) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  grt_graph* g = NULL;
  grt_session_options* o = NULL;
  grt_session* s = NULL;
  grt_callable* c = NULL;
  grt_tensor* x = NULL;
  grt_status* st = grt_graph_from_json(json, strlen(json), &g);
  free(json);
  if (!st) st = grt_session_options_new(&o);
  if (!st) st = grt_session_options_set(o, "cluster", spec);
  if (!st) st = grt_session_new(g, o, &s);
  if (!st) g_rank = grt_session_cluster_rank(s);
  char names[8][16];
  const char* targets[8];
  for (int r = 0; r < tasks && r < 8; r++) {
    snprintf(names[r], sizeof names[r], "sum%d", r);
    targets[r] = names[r];
  }
  const char* feeds[] = {"x"};
  if (!st) st = grt_session_make_callable_by_name(s, feeds, 1, NULL, 0, targets, tasks, &c);
  int64_t dims[1] = {n};
  if (!st) st = grt_tensor_new(GRT_FLOAT32, 1, dims, &x);
  if (!st) memset(grt_tensor_data(x), 0, (size_t)bytes);
  int reps = bench_reps(bytes);
  if (!st) st = grt_callable_run(c, &x, NULL, NULL); /* warm */
  for (int round = 0; !st && rounds == 0 && round < 3; round++) {
    double t0 = now_s();
    for (int i = 0; !st && i < reps; i++) st = grt_callable_run(c, &x, NULL, NULL);
    double dt = (now_s() - t0) / reps;
    if (round == 0 || dt < *out) *out = dt;
  }
  double t[2][64], ratio[64];
  for (int round = 0; !st && round < rounds; round++) {
    for (int k = 0; !st && k < 2; k++) { /* 0: libnbc's choice, 1: the transport's */
      if (k == 0)
        setenv("GRT_MPI_ALLREDUCE", "libnbc", 1);
      else
        unsetenv("GRT_MPI_ALLREDUCE");
      st = grt_callable_run(c, &x, NULL, NULL);
      double t0 = now_s();
      for (int i = 0; !st && i < reps; i++) st = grt_callable_run(c, &x, NULL, NULL);
      t[k][round] = (now_s() - t0) / reps;
    }
    ratio[round] = t[0][round] / t[1][round];
  }
  if (!st && rounds > 0) {
    qsort(t[0], (size_t)rounds, sizeof(double), by_value);
    qsort(t[1], (size_t)rounds, sizeof(double), by_value);
    qsort(ratio, (size_t)rounds, sizeof(double), by_value);
    ab[0] = t[0][0], ab[1] = t[1][0], ab[2] = ratio[rounds / 2];
  }
  grt_tensor_free(x);
  grt_callable_free(c);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
  return st;
}

int main(int argc, char** argv) {
  long long max = argc > 1 ? atoll(argv[1]) : kMaxBytes;
  const char* size_env = getenv("OMPI_COMM_WORLD_SIZE");
  int tasks = size_env ? atoi(size_env) : 1;
  if (tasks < 1 || tasks > 8) {
    fprintf(stderr, "allreduce_bench: run under mpirun -np 1..8\n");
    return 2;
  }
  int rounds = argc > 2 && !strcmp(argv[2], "ab") ? (argc > 3 ? atoi(argv[3]) : 7) : 0;
  if (rounds < 0 || rounds > 64) {
    fprintf(stderr, "allreduce_bench: 1 to 64 rounds\n");
    return 2;
  }
  char spec[32];
  snprintf(spec, sizeof spec, "worker:%d", tasks);
  for (long long bytes = kMinBytes; bytes <= max; bytes *= kStep) {
    double dt = 0, ab[3] = {0};
    grt_status* st = bench_size(bytes, tasks, spec, rounds, ab, &dt);
    if (st) return die(st);
    if (g_rank == 0 && rounds == 0) printf("%lld %.9f\n", bytes, dt);
    if (g_rank == 0 && rounds > 0) printf("%lld %.9f %.9f %.3f\n", bytes, ab[0], ab[1], ab[2]);
    fflush(stdout);
  }
  return 0;
}
