/* Placer benchmark: layered synthetic graphs of 10k, 100k and 1M nodes with
 * explicit requests, colocation groups, variables (with the ps setter) and
 * metadata ops, placed on cpu:1,gpu:4. Prints ns/node per size; asserts
 * nothing about time.
 *
 *   bazel run //bench:place_bench [-- N ...]   (.bazelrc builds with -O2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grt/grt.h"
#include "grt/placer.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(grt_status* s, const char* what) {
  if (!s) return;
  fprintf(stderr, "place_bench: %s: %s\n", what, grt_status_message(s));
  exit(1);
}

static int32_t add(grt_graph* g, const char* op, const char* fmt, int a, int b) {
  char name[64];
  snprintf(name, sizeof name, fmt, a, b);
  int32_t i;
  check(grt_graph_add_node(g, name, op, &i), "add node");
  return i;
}

/* Width 100; each layer: 100 element-wise ops reading two nodes of the
 * layer before. Every 10th layer pins its ops to a GPU; every layer adds a
 * variable group (VariableV2 + init Const + Assign + read Identity, the
 * last two colocated) and a Shape of one of its ops. */
static grt_graph* build(int32_t target) {
  enum { kWidth = 100 };
  grt_graph* g;
  check(grt_graph_new(&g), "new graph");
  char prev[kWidth][32], cur[kWidth][32];
  for (int j = 0; j < kWidth; j++) {
    int32_t p = add(g, "Placeholder", "x_%d%.0d", j, 0);
    check(grt_graph_set_attr_type(g, p, "dtype", GRT_FLOAT32), "attr");
    snprintf(prev[j], sizeof prev[j], "x_%d", j);
  }
  int64_t var_shape[2] = {16, 16};
  for (int layer = 0; grt_graph_num_nodes(g) < target; layer++) {
    /* a variable group */
    int32_t v = add(g, "VariableV2", "v%d%.0d", layer, 0);
    check(grt_graph_set_attr_type(g, v, "dtype", GRT_FLOAT32), "attr");
    check(grt_graph_set_attr_shape(g, v, "shape", 2, var_shape), "attr");
    char vname[32], rname[32];
    snprintf(vname, sizeof vname, "v%d", layer);
    int32_t init = add(g, "ZerosLike", "v%d/init%.0d", layer, 0);
    check(grt_graph_add_input(g, init, prev[0]), "input");
    check(grt_graph_set_attr_type(g, init, "T", GRT_FLOAT32), "attr");
    check(grt_graph_add_colocation(g, init, vname), "coloc");
    int32_t as = add(g, "Assign", "v%d/Assign%.0d", layer, 0);
    check(grt_graph_add_input(g, as, vname), "input");
    char iname[32];
    snprintf(iname, sizeof iname, "v%d/init", layer);
    check(grt_graph_add_input(g, as, iname), "input");
    check(grt_graph_set_attr_type(g, as, "T", GRT_FLOAT32), "attr");
    int32_t rd = add(g, "Identity", "v%d/read%.0d", layer, 0);
    check(grt_graph_add_input(g, rd, vname), "input");
    check(grt_graph_set_attr_type(g, rd, "T", GRT_FLOAT32), "attr");
    check(grt_graph_add_colocation(g, rd, vname), "coloc");
    snprintf(rname, sizeof rname, "v%d/read", layer);
    /* the layer */
    char device[16] = "";
    if (layer % 10 == 0) snprintf(device, sizeof device, "/gpu:%d", (layer / 10) % 4);
    for (int j = 0; j < kWidth; j++) {
      int32_t n = add(g, j == 0 ? "Mul" : "AddV2", "l%d_%d", layer, j);
      check(grt_graph_add_input(g, n, prev[j]), "input");
      check(grt_graph_add_input(g, n, j == 0 ? rname : prev[(j + 1) % kWidth]), "input");
      check(grt_graph_set_attr_type(g, n, "T", GRT_FLOAT32), "attr");
      if (device[0]) check(grt_graph_set_device(g, n, device), "device");
      snprintf(cur[j], sizeof cur[j], "l%d_%d", layer, j);
    }
    int32_t sh = add(g, "Shape", "l%d_shape%.0d", layer, 0);
    check(grt_graph_add_input(g, sh, cur[layer % kWidth]), "input");
    check(grt_graph_set_attr_type(g, sh, "T", GRT_FLOAT32), "attr");
    memcpy(prev, cur, sizeof prev);
  }
  return g;
}

int main(int argc, char** argv) {
  int32_t sizes[8] = {10000, 100000, 1000000};
  int n_sizes = 3;
  if (argc > 1) {
    n_sizes = 0;
    for (int i = 1; i < argc && n_sizes < 8; i++) sizes[n_sizes++] = atoi(argv[i]);
  }
  grt_device_set* ds;
  grt_place_options* opts;
  check(grt_device_set_from_spec("cpu:1,gpu:4", &ds), "devices");
  check(grt_place_options_new(&opts), "options");
  check(grt_place_options_set_ps_devices(opts, "/gpu:0,/gpu:1,/gpu:2,/gpu:3"), "ps");
  printf("%10s %10s %12s %12s %12s %10s %10s\n", "nodes", "copies", "build s", "validate s",
         "place s", "ns/node", "MB plan");
  for (int k = 0; k < n_sizes; k++) {
    double t0 = now();
    grt_graph* g = build(sizes[k]);
    double t1 = now();
    check(grt_graph_validate(g), "validate");
    double t2 = now();
    double best = 1e30;
    int32_t copies = 0;
    for (int rep = 0; rep < 3; rep++) {
      grt_plan* plan;
      double a = now();
      check(grt_place(g, ds, opts, &plan), "place");
      double b = now();
      if (b - a < best) best = b - a;
      copies = grt_plan_num_copies(plan);
      grt_plan_free(plan);
    }
    int32_t n = grt_graph_num_nodes(g);
    /* per node: device, request, detail, kernel, spec, ps record (int32) and
     * reason, cause, stage (bytes), plus the copy index */
    double plan_mb = ((double)n * (6 * 4 + 3 + 4) + (double)copies * 20) / 1e6;
    printf("%10d %10d %12.3f %12.3f %12.3f %10.1f %10.1f\n", (int)n, (int)copies, t1 - t0, t2 - t1,
           best, best * 1e9 / n, plan_mb);
    fflush(stdout);
    grt_graph_free(g);
  }
  grt_place_options_free(opts);
  grt_device_set_free(ds);
  return 0;
}
