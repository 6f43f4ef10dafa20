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
 *   bazel run -c opt //bench:train_bench [-- --steps N --batch B --towers 1,2,4 --trace OUT.json]
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

static grt_status* measure(int towers, int batch, int steps, double* out) {
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
  double t0 = 0;
  for (int i = 0; !st && i < steps + 3; i++) {
    if (i == 3) t0 = now_s();
    st = grt_callable_run(c, in, NULL, NULL);
  }
  if (!st) *out = (double)steps * batch / (now_s() - t0);
  if (!st && trace_path) st = write_trace(c, in);
  grt_tensor_free(x);
  grt_tensor_free(y);
  grt_callable_free(c);
  grt_session_free(s);
  grt_session_options_free(so);
  grt_graph_free(g);
  return st;
}

int main(int argc, char** argv) {
  grt_select_blas_core(argv);
  int steps = 40, batch = 256;
  int towers[8] = {1, 2, 4}, n = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--steps"))
      steps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--batch"))
      batch = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--trace"))
      trace_path = argv[i + 1];
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
    for (int i = 0; i < n; i++) {
      double eps = 0;
      grt_status* st = measure(towers[i], batch, steps, &eps);
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
  return 0;
}
