/* An example host application: builds a small graph through the C API,
 * validates it, saves it in both forms, loads the binary form back (constants
 * used in place from the mapped file), and runs it in a session: the MatMul
 * asks for a GPU, so the session uses soft placement on a machine without.
 *
 *   host_app [OUT_DIR]      (default: $TEST_TMPDIR or /tmp)
 *
 * Every call that can fail returns a grt_status*; this program shows the
 * pattern: check, print the message, free the status and everything else.
 * It also checks that the library it runs with is the version its headers
 * describe, takes the library's messages (the placement log) through a log
 * sink, and feeds its own memory to the session without a copy.
 *
 * Outside Bazel, against an installed grt (scripts/install.sh PREFIX):
 *   cc host_app.c $(pkg-config --cflags --libs grt) -o host_app */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grt/grt.h"

/* The library's messages, prefixed, on our stdout. */
static void log_to_stdout(void* arg, grt_log_level level, const char* message) {
  (void)level;
  printf("%s%s\n", (const char*)arg, message);
}

static int check(grt_status* s, const char* what) {
  if (!s) return 0;
  fprintf(stderr, "host_app: %s: %s\n", what, grt_status_message(s));
  grt_status_free(s);
  return 1;
}

/* y = x * w + b with a constant w and b, the kind of graph a host builds. */
static grt_status* build(grt_graph* g) {
  int32_t x, w, b, mm, y;
  grt_status* s;
  int64_t xshape[] = {-1, 3};
  if ((s = grt_graph_add_node(g, "x", "Placeholder", &x))) return s;
  if ((s = grt_graph_set_attr_type(g, x, "dtype", GRT_FLOAT32))) return s;
  if ((s = grt_graph_set_attr_shape(g, x, "shape", 2, xshape))) return s;

  int64_t wdims[] = {3, 2};
  grt_tensor* wt = NULL;
  if ((s = grt_tensor_new(GRT_FLOAT32, 2, wdims, &wt))) return s;
  float* wv = grt_tensor_data(wt);
  for (int i = 0; i < 6; i++) wv[i] = 0.5f * (float)(i + 1);
  if ((s = grt_graph_add_node(g, "w", "Const", &w)) ||
      (s = grt_graph_set_attr_type(g, w, "dtype", GRT_FLOAT32)) ||
      (s = grt_graph_set_attr_tensor(g, w, "value", wt))) {
    grt_tensor_free(wt);
    return s;
  }
  grt_tensor_free(wt); /* the graph holds its own reference */

  int64_t bdims[] = {2};
  grt_tensor* bt = NULL;
  if ((s = grt_tensor_new(GRT_FLOAT32, 1, bdims, &bt))) return s;
  ((float*)grt_tensor_data(bt))[0] = 1.0f;
  ((float*)grt_tensor_data(bt))[1] = -1.0f;
  if ((s = grt_graph_add_node(g, "b", "Const", &b)) ||
      (s = grt_graph_set_attr_type(g, b, "dtype", GRT_FLOAT32)) ||
      (s = grt_graph_set_attr_tensor(g, b, "value", bt))) {
    grt_tensor_free(bt);
    return s;
  }
  grt_tensor_free(bt);

  if ((s = grt_graph_add_node(g, "mm", "MatMul", &mm))) return s;
  if ((s = grt_graph_add_input(g, mm, "x"))) return s;
  if ((s = grt_graph_add_input(g, mm, "w"))) return s;
  if ((s = grt_graph_set_attr_type(g, mm, "T", GRT_FLOAT32))) return s;
  if ((s = grt_graph_set_device(g, mm, "/device:GPU:0"))) return s;
  if ((s = grt_graph_add_node(g, "y", "BiasAdd", &y))) return s;
  if ((s = grt_graph_add_input(g, y, "mm"))) return s;
  if ((s = grt_graph_add_input(g, y, "b"))) return s;
  if ((s = grt_graph_set_attr_type(g, y, "T", GRT_FLOAT32))) return s;
  return grt_graph_validate(g);
}

static void print_graph(const grt_graph* g) {
  for (int32_t i = 0; i < grt_graph_num_nodes(g); i++) {
    int32_t rank;
    int64_t dims[GRT_MAX_RANK];
    printf("  %-4s %-12s device=%-16s", grt_graph_node_name(g, i), grt_graph_node_op(g, i),
           grt_graph_node_device(g, i)[0] ? grt_graph_node_device(g, i) : "(any)");
    grt_status* s = grt_graph_node_output_shape(g, i, 0, &rank, dims);
    if (!s) {
      printf(" output %s[", grt_dtype_name(grt_graph_node_output_type(g, i, 0)));
      for (int32_t d = 0; d < rank; d++) printf(d ? ",%lld" : "%lld", (long long)dims[d]);
      printf("]");
    }
    grt_status_free(s);
    printf("\n");
  }
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : getenv("TEST_TMPDIR");
  if (!dir) dir = "/tmp";
  if (strcmp(grt_version(), GRT_VERSION_STRING) != 0) {
    fprintf(stderr, "host_app: built against grt %s but running with %s\n", GRT_VERSION_STRING,
            grt_version());
    return 1;
  }
  grt_set_log_sink(log_to_stdout, "grt: ");
  char grt_path[4096], json_path[4096];
  snprintf(grt_path, sizeof grt_path, "%s/host_app.grt", dir);
  snprintf(json_path, sizeof json_path, "%s/host_app.json", dir);

  grt_graph* g = NULL;
  if (check(grt_graph_new(&g), "new graph")) return 1;
  int failed = check(build(g), "build") || check(grt_graph_save(g, grt_path), "save .grt") ||
               check(grt_graph_save(g, json_path), "save .json");
  grt_graph_free(g);
  if (failed) return 1;

  grt_graph* loaded = NULL;
  if (check(grt_graph_load(grt_path, &loaded), "load .grt")) return 1;
  printf("loaded %s: %d nodes, %zu bytes of constants\n", grt_path,
         (int)grt_graph_num_nodes(loaded), grt_graph_constant_bytes(loaded));
  print_graph(loaded);

  /* The constant comes back bit for bit, read in place from the file. */
  const grt_tensor* w = NULL;
  int rc = check(grt_graph_node_attr_tensor(loaded, grt_graph_find_node(loaded, "w"), "value", &w),
                 "read w");
  if (!rc) {
    const float* wv = grt_tensor_data(w);
    for (int i = 0; i < 6; i++) {
      if (wv[i] != 0.5f * (float)(i + 1)) {
        fprintf(stderr, "host_app: w[%d] is %g, expected %g\n", i, wv[i], 0.5 * (i + 1));
        rc = 1;
      }
    }
  }
  /* Run it: y = x * w + b for one row x, checked against the same sum here. */
  grt_session_options* opts = NULL;
  grt_session* session = NULL;
  grt_tensor* x = NULL;
  grt_tensor* y = NULL;
  int64_t xdims[] = {1, 3};
  float xdata[3] = {1.0f, 2.0f, 3.0f}; /* ours: the tensor wraps it, no copy */
  if (!rc) rc = check(grt_session_options_new(&opts), "session options");
  if (!rc) rc = check(grt_session_options_set(opts, "allow_soft_placement", "true"), "option");
  if (!rc) rc = check(grt_session_options_set(opts, "log_device_placement", "true"), "option");
  if (!rc) rc = check(grt_session_new(loaded, opts, &session), "session");
  if (!rc) rc = check(grt_tensor_wrap(xdata, GRT_FLOAT32, 2, xdims, NULL, NULL, &x), "x");
  if (!rc) {
    grt_feed feed = {"x", x};
    const char* fetch[] = {"y"};
    rc = check(grt_session_run(session, &feed, 1, fetch, 1, NULL, 0, &y, NULL), "run");
  }
  if (!rc) {
    const float* wv = grt_tensor_data(w);
    const float* xv = grt_tensor_data(x);
    const float bias[2] = {1.0f, -1.0f};
    const float* yv = grt_tensor_data(y);
    printf("y = x * w + b = [%g, %g] on %s\n", yv[0], yv[1],
           grt_plan_node_device_name(grt_session_plan(session), grt_graph_find_node(loaded, "mm")));
    for (int j = 0; j < 2; j++) {
      float want = bias[j];
      for (int k = 0; k < 3; k++) want += xv[k] * wv[k * 2 + j];
      if (yv[j] != want) {
        fprintf(stderr, "host_app: y[%d] is %g, expected %g\n", j, yv[j], want);
        rc = 1;
      }
    }
  }
  grt_tensor_free(y);
  grt_tensor_free(x);
  grt_session_free(session);
  grt_session_options_free(opts);

  /* A bad graph gives an error naming the node, and nothing leaks. */
  grt_graph* bad = NULL;
  const char* text =
      "{\"format\":\"grt.graph\",\"version\":1,\"nodes\":["
      "{\"name\":\"m\",\"op\":\"MatMul\",\"inputs\":[\"ghost\",\"ghost\"],"
      "\"attrs\":{\"T\":\"float32\"}}]}";
  grt_status* s = grt_graph_from_json(text, strlen(text), &bad);
  if (!s || !strstr(grt_status_message(s), "'ghost'")) {
    fprintf(stderr, "host_app: a graph with a missing input was not rejected properly\n");
    rc = 1;
  } else {
    printf("bad graph rejected: %s\n", grt_status_message(s));
  }
  grt_status_free(s);
  grt_graph_free(bad);
  grt_graph_free(loaded);
  if (!rc) printf("host_app: ok\n");
  return rc;
}
