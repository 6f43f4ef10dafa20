// The seeds' MLP training step on one GPU: the Fashion-MNIST example's model
// (784-256-256-10, ReLU, Adam, examples/fashion_mnist_model.h) with every
// node asked for /device:GPU:0 (soft placement: ops without a GPU kernel
// stay on the CPU, and the line printed says how many), batch 256 of random
// inputs fed from host memory each step, as tests/gpu/torch_mlp.py does
// with PyTorch. Median step time of a callable, plain and with
// graph_capture, each with the batch left unknown and declared (fixed).
// The loss after the timed steps must be below the first
// step's (same batch every step): the figure is of a step that trains.
//
//   mlp_bench [batch] [steps]     (GRT_CUDA_PLUGIN names the plugin)
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

extern "C" {  // the examples' headers are C's
#include "examples/fashion_mnist_data.h"
#include "examples/fashion_mnist_model.h"
}
#include "grt/backend.h"
#include "grt/grt.h"

namespace {

void Check(grt_status* st, const char* what) {
  if (!st) return;
  fprintf(stderr, "mlp_bench: %s: %s\n", what, grt_status_message(st));
  exit(1);
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

float Loss(grt_callable* c, grt_tensor* const* feeds) {
  grt_tensor* loss = nullptr;
  Check(grt_callable_run(c, feeds, &loss, nullptr), "loss");
  float v = *static_cast<const float*>(grt_tensor_data(loss));
  grt_tensor_free(loss);
  return v;
}

// Median seconds per training step; *gpu_nodes/*nodes from the plan. With
// `fixed`, the inputs declare the batch (as a graph built for one batch
// size does), so the shape arithmetic of the loss's gradient folds to
// constants instead of running on the GPU each step.
double Measure(int batch, int steps, bool capture, bool fixed, int* gpu_nodes, int* nodes) {
  fmnist_model_options mo = {1, 1, 1e-3, 1};
  grt_graph* g = nullptr;
  Check(fmnist_build_mlp(&mo, &g), "building the MLP");
  for (int32_t i = 0; i < grt_graph_num_nodes(g); i++)
    Check(grt_graph_set_device(g, i, "/device:GPU:0"), "pinning to GPU:0");
  // int64 labels, as PyTorch's cross-entropy takes: an int32 tensor on a GPU
  // lives in host memory (TensorFlow's convention, kept by grt's GPU rows),
  // and a step that reads a feed in host memory cannot be captured.
  if (fixed) {
    int64_t xd[2] = {batch, FMNIST_PIXELS}, yd[1] = {batch};
    Check(grt_graph_set_attr_shape(g, grt_graph_find_node(g, "x"), "shape", 2, xd), "fixed batch");
    Check(grt_graph_set_attr_shape(g, grt_graph_find_node(g, "labels"), "shape", 1, yd),
          "fixed batch");
  }
  // The labels' path: the Placeholder, the towers' Split, the loss.
  for (int32_t i = 0; i < grt_graph_num_nodes(g); i++) {
    const char *op = grt_graph_node_op(g, i), *name = grt_graph_node_name(g, i);
    size_t n = strlen(name);
    const char* attr = strcmp(op, "SparseSoftmaxCrossEntropyWithLogits") == 0 ? "Tlabels"
                       : n < 6 || strcmp(name + n - 6, "labels") != 0         ? nullptr
                       : strcmp(op, "Placeholder") == 0                       ? "dtype"
                                                                              : "T";
    if (attr) Check(grt_graph_set_attr_type(g, i, attr, GRT_INT64), "int64 labels");
  }
  grt_session_options* o = nullptr;
  Check(grt_session_options_new(&o), "options");
  Check(grt_session_options_set(o, "allow_soft_placement", "true"), "options");
  Check(grt_session_options_set(o, "gpu.allow_growth", "true"), "options");
  Check(grt_session_options_set(o, "graph_capture", capture ? "true" : "false"), "options");
  grt_session* s = nullptr;
  Check(grt_session_new(g, o, &s), "session");
  grt_session_options_free(o);
  const grt_plan* p = grt_session_plan(s);
  *nodes = grt_plan_num_nodes(p);
  *gpu_nodes = 0;
  for (int32_t i = 0; i < *nodes; i++)
    if (strstr(grt_plan_node_device_name(p, i), "GPU")) ++*gpu_nodes;
  const char* init = "init";
  Check(grt_session_run(s, nullptr, 0, nullptr, 0, &init, 1, nullptr, nullptr), "init");

  int64_t xd[2] = {batch, FMNIST_PIXELS}, yd[1] = {batch};
  grt_tensor *x = nullptr, *y = nullptr;
  Check(grt_tensor_new(GRT_FLOAT32, 2, xd, &x), "x");
  Check(grt_tensor_new(GRT_INT64, 1, yd, &y), "labels");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pixel(0, 1);
  float* xp = static_cast<float*>(grt_tensor_data(x));
  int64_t* yp = static_cast<int64_t*>(grt_tensor_data(y));
  for (int64_t i = 0; i < (int64_t)batch * FMNIST_PIXELS; i++) xp[i] = pixel(rng);
  for (int i = 0; i < batch; i++) yp[i] = (int64_t)(rng() % FMNIST_CLASSES);
  const char* feeds[] = {"x", "labels"};
  const char* train = "train";
  const char* loss_name = "loss";
  grt_callable *step = nullptr, *loss = nullptr;
  Check(grt_session_make_callable_by_name(s, feeds, 2, nullptr, 0, &train, 1, &step), "callable");
  Check(grt_session_make_callable_by_name(s, feeds, 2, &loss_name, 1, nullptr, 0, &loss),
        "callable");
  grt_tensor* in[2] = {x, y};
  float first = Loss(loss, in);
  std::vector<double> t;
  for (int i = 0; i < steps + 5; i++) {
    double t0 = Now();
    Check(grt_callable_run(step, in, nullptr, nullptr), "step");
    if (i >= 5) t.push_back(Now() - t0);
  }
  float last = Loss(loss, in);
  if (!(last < first)) {
    fprintf(stderr, "mlp_bench: the loss did not fall (%g then %g)\n", first, last);
    exit(1);
  }
  if (capture) {
    char report[600];
    grt_callable_capture_report(step, report, sizeof report);
    printf("  capture: %s\n", report);
  }
  grt_callable_free(step);
  grt_callable_free(loss);
  grt_tensor_free(x);
  grt_tensor_free(y);
  grt_session_free(s);
  grt_graph_free(g);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const char* plugin = getenv("GRT_CUDA_PLUGIN");
  std::string path = plugin ? plugin : "backends/cuda/libgrt_backend_cuda.so";
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) path = buf;
  Check(grt_backend_load(path.c_str()), "loading the CUDA plugin");
  int batch = argc > 1 ? atoi(argv[1]) : 256;
  int steps = argc > 2 ? atoi(argv[2]) : 200;
  for (bool fixed : {false, true})
    for (bool capture : {false, true}) {
      int gpu = 0, n = 0;
      double s = Measure(batch, steps, capture, fixed, &gpu, &n);
      printf(
          "MLP 784-256-256-10 Adam step, batch %d%s%s: grt %.3f ms (median of %d; %d of %d "
          "nodes on the GPU)\n",
          batch, fixed ? ", fixed batch" : "", capture ? ", graph_capture" : "", s * 1e3, steps,
          gpu, n);
    }
  return 0;
}
