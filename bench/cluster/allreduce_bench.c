/* All-reduce through grt across the tasks of a cluster: a graph of one fed
 * float32 vector x and one NcclAllReduce member per task
 * (/job:worker/task:R/device:CPU:0, num_devices = tasks), run as a callable
 * whose step is the transport's all-reduce of x into a new output (out of
 * place: MPI_Iallreduce); the time per step is what a mirrored training
 * step pays per gradient.
 *   mpirun -np R allreduce_bench [MAX_BYTES]
 * Rank 0 prints "bytes seconds_per_step" per size, the fastest of 3 rounds,
 * as mpi_allreduce does (run.sh pairs them). */
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

static grt_status* bench_size(long long bytes, int tasks, const char* spec, double* out) {
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
  for (int round = 0; !st && round < 3; round++) {
    double t0 = now_s();
    for (int i = 0; !st && i < reps; i++) st = grt_callable_run(c, &x, NULL, NULL);
    double dt = (now_s() - t0) / reps;
    if (round == 0 || dt < *out) *out = dt;
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
  char spec[32];
  snprintf(spec, sizeof spec, "worker:%d", tasks);
  for (long long bytes = kMinBytes; bytes <= max; bytes *= kStep) {
    double dt = 0;
    grt_status* st = bench_size(bytes, tasks, spec, &dt);
    if (st) return die(st);
    if (g_rank == 0) printf("%lld %.9f\n", bytes, dt);
    fflush(stdout);
  }
  return 0;
}
