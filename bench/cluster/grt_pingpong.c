/* grt's half of bench/cluster/latency.sh: two ranks (cluster ps:1,worker:1)
 * run a graph whose 4 floats go from task 0 to task 1 and back each step
 * (Const on /job:ps, Identity on /job:worker, Identity on /job:ps, fetched
 * on rank 0): two crossings of a small tensor per step, through a callable
 * as a host program would run it. Rank 0 prints the round trip per step.
 *
 *   mpirun -np 2 grt_pingpong [STEPS]      (default 20000, after 2000 warm) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grt/grt.h"

static const char kGraph[] =
    "{\"format\": \"grt.graph\", \"version\": 1, \"nodes\": ["
    "{\"name\": \"ping\", \"op\": \"Const\", \"device\": \"/job:ps/task:0/device:CPU:0\", "
    "\"attrs\": {\"dtype\": \"float32\", \"value\": {\"dtype\": \"float32\", \"shape\": [4], "
    "\"values\": [1, 2, 3, 4]}}},"
    "{\"name\": \"there\", \"op\": \"Identity\", \"inputs\": [\"ping\"], "
    "\"device\": \"/job:worker/task:0/device:CPU:0\"},"
    "{\"name\": \"back\", \"op\": \"Identity\", \"inputs\": [\"there\"], "
    "\"device\": \"/job:ps/task:0/device:CPU:0\"}]}";

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static int failed(grt_status* st) {
  fprintf(stderr, "grt_pingpong: %s\n", grt_status_message(st));
  grt_status_free(st);
  return 1;
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20000, warm = 2000;
  if (steps <= 0) steps = 20000;
  grt_graph* g = NULL;
  grt_session_options* o = NULL;
  grt_session* s = NULL;
  grt_callable* c = NULL;
  grt_status* st = grt_graph_from_json(kGraph, strlen(kGraph), &g);
  if (!st) st = grt_session_options_new(&o);
  if (!st) st = grt_session_options_set(o, "cluster", "ps:1,worker:1");
  if (!st) st = grt_session_options_set(o, "intra_op_threads", "1");
  /* A graph of a constant: the optimizer (on in a cluster too) would fold
   * it where it is fetched, and nothing would cross. */
  if (!st) st = grt_session_options_set(o, "rewrite", "false");
  if (!st) st = grt_session_new(g, o, &s);
  grt_session_options_free(o);
  const char* fetch[] = {"back"};
  if (!st) st = grt_session_make_callable_by_name(s, NULL, 0, fetch, 1, NULL, 0, &c);
  if (st) return failed(st);
  double* t = calloc((size_t)steps, sizeof *t);
  if (!t) return 1;
  for (int i = 0; !st && i < warm + steps; i++) {
    grt_tensor* out = NULL;
    double t0 = now_us();
    st = grt_callable_run(c, NULL, &out, NULL);
    if (i >= warm) t[i - warm] = now_us() - t0;
    grt_tensor_free(out);
  }
  if (st) return failed(st);
  if (grt_session_cluster_rank(s) == 0) {
    qsort(t, (size_t)steps, sizeof *t, cmp);
    printf("grt  round trip of 4 floats: median %.2f us, min %.2f us (%d steps)\n", t[steps / 2],
           t[0], steps);
  }
  free(t);
  grt_callable_free(c);
  grt_session_free(s);
  grt_graph_free(g);
  return 0;
}
