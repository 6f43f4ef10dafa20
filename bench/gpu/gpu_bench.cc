// GPU benchmarks, on a machine with an NVIDIA GPU (run_gpu_suite.sh runs
// them; PyTorch's side is in tests/gpu/torch_bench.py). Prints, side by
// side in one run:
// - MatMul 8192^3 float32 (and TF32) through a grt session against cuBLAS
//   called directly on the same card (goal: grt >= 95% of cuBLAS);
// - per-op overhead on a chain of 10k small Adds on the GPU.
//
// UNVERIFIED: written on a machine without a GPU.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "grt/backend.h"
#include "grt/grt.h"

namespace {

#define CHECK_GRT(expr)                                                           \
  do {                                                                            \
    grt_status* s_ = (expr);                                                      \
    if (s_) {                                                                     \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, grt_status_message(s_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)
#define CHECK_CUDA(expr)                                                          \
  do {                                                                            \
    cudaError_t e_ = (expr);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

grt_tensor* RandomMatrix(int64_t r, int64_t c) {
  grt_tensor* t = nullptr;
  int64_t dims[2] = {r, c};
  CHECK_GRT(grt_tensor_new(GRT_FLOAT32, 2, dims, &t));
  float* p = static_cast<float*>(grt_tensor_data(t));
  uint32_t x = 12345;
  for (int64_t i = 0; i < r * c; i++) {
    x = x * 1664525u + 1013904223u;
    p[i] = (float)((x >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  return t;
}

// cuBLAS directly: median ms of one 8192^3 product.
double CublasMs(int n, bool tf32) {
  float *a, *b, *c;
  size_t bytes = (size_t)n * n * sizeof(float);
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&a), bytes));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&b), bytes));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&c), bytes));
  std::vector<float> h((size_t)n * n);
  for (size_t i = 0; i < h.size(); i++) h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  CHECK_CUDA(cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b, h.data(), bytes, cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const float one = 1, zero = 0;
  std::vector<double> ms;
  for (int i = 0; i < 13; i++) {
    cudaEventRecord(e0);
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t;
    cudaEventElapsedTime(&t, e0, e1);
    if (i >= 3) ms.push_back(t);
  }
  cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return Median(ms);
}

// A session running `chain` products (a @ b, then @ b again...) and a Sum on
// GPU:0; returns the median seconds of a run.
double GrtChainSeconds(int n, int chain, int reps) {
  std::string j = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,-1]}},
    {"name":"b","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,-1]}},
    {"name":"axes","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[0,1]}}})";
  std::string prev = "a";
  for (int i = 0; i < chain; i++) {
    std::string name = "m" + std::to_string(i);
    j += R"(,{"name":")" + name + R"(","op":"MatMul","inputs":[")" + prev +
         R"(","b"],"device":"/device:GPU:0"})";
    prev = name;
  }
  j += R"(,{"name":"y","op":"Sum","inputs":[")" + prev + R"(","axes"],"device":"/device:GPU:0"}]})";
  grt_graph* g = nullptr;
  CHECK_GRT(grt_graph_from_json(j.c_str(), j.size(), &g));
  grt_session* s = nullptr;
  CHECK_GRT(grt_session_new(g, nullptr, &s));
  grt_tensor* a = RandomMatrix(n, n);
  grt_tensor* b = RandomMatrix(n, n);
  grt_feed feeds[2] = {{"a", a}, {"b", b}};
  const char* fetch = "y";
  std::vector<double> t;
  for (int i = 0; i < reps + 2; i++) {
    grt_tensor* out = nullptr;
    double t0 = Now();
    CHECK_GRT(grt_session_run(s, feeds, 2, &fetch, 1, nullptr, 0, &out, nullptr));
    if (i >= 2) t.push_back(Now() - t0);
    grt_tensor_free(out);
  }
  grt_tensor_free(a);
  grt_tensor_free(b);
  grt_session_free(s);
  grt_graph_free(g);
  return Median(t);
}

// Per-op time on a chain of `ops` Adds of 16 floats on GPU:0: through
// grt_session_run, a callable, or a callable with graph_capture (recorded
// on its second call, replayed from the third).
enum Mode { kSessionRun, kCallable, kCaptured };
double GrtOverheadUs(int ops, Mode mode) {
  std::string j = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[16]}},
    {"name":"a0","op":"Identity","inputs":["x"],"device":"/device:GPU:0"})";
  for (int i = 1; i <= ops; i++)
    j += R"(,{"name":"a)" + std::to_string(i) + R"(","op":"Add","inputs":["a)" +
         std::to_string(i - 1) + R"(","x"],"device":"/device:GPU:0"})";
  j += "]}";
  grt_graph* g = nullptr;
  CHECK_GRT(grt_graph_from_json(j.c_str(), j.size(), &g));
  grt_session_options* o = nullptr;
  CHECK_GRT(grt_session_options_new(&o));
  CHECK_GRT(grt_session_options_set(o, "graph_capture", mode == kCaptured ? "true" : "false"));
  grt_session* s = nullptr;
  CHECK_GRT(grt_session_new(g, o, &s));
  grt_session_options_free(o);
  grt_tensor* x = nullptr;
  int64_t dims[1] = {16};
  CHECK_GRT(grt_tensor_new(GRT_FLOAT32, 1, dims, &x));
  float* xv = static_cast<float*>(grt_tensor_data(x));
  for (int i = 0; i < 16; i++) xv[i] = 0.5f * i;
  grt_feed feed = {"x", x};
  std::string last = "a" + std::to_string(ops);
  const char* fetch = last.c_str();
  const char* feed_name = "x";
  grt_callable* c = nullptr;
  if (mode != kSessionRun)
    CHECK_GRT(grt_session_make_callable_by_name(s, &feed_name, 1, &fetch, 1, nullptr, 0, &c));
  std::vector<double> t;
  for (int i = 0; i < 9; i++) {
    grt_tensor* out = nullptr;
    double t0 = Now();
    if (c)
      CHECK_GRT(grt_callable_run(c, &x, &out, nullptr));
    else
      CHECK_GRT(grt_session_run(s, &feed, 1, &fetch, 1, nullptr, 0, &out, nullptr));
    if (i >= 3) t.push_back(Now() - t0);
    // a_ops = x * (ops + 1): the result is checked, not only timed.
    const float* y = static_cast<const float*>(grt_tensor_data(out));
    for (int k = 0; k < 16; k++)
      if (std::abs(y[k] - xv[k] * (ops + 1)) > 1e-3f * std::abs(xv[k] * (ops + 1)) + 1e-3f) {
        fprintf(stderr, "chain: a%d[%d] = %g, want %g\n", ops, k, y[k], xv[k] * (ops + 1));
        exit(1);
      }
    grt_tensor_free(out);
  }
  if (c) {
    char report[600];
    grt_callable_capture_report(c, report, sizeof report);
    printf("  capture: %s\n", report);
  }
  grt_callable_free(c);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
  return Median(t) / ops * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const char* plugin = getenv("GRT_CUDA_PLUGIN");
  std::string path = plugin ? plugin : "backends/cuda/libgrt_backend_cuda.so";
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) path = buf;
  CHECK_GRT(grt_backend_load(path.c_str()));
  char report[1024];
  grt_backends_report(report, sizeof report);
  printf("%s", report);
  cudaDeviceProp p;
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  printf("GPU 0: %s, compute capability %d.%d\n", p.name, p.major, p.minor);
  const int n = argc > 1 ? atoi(argv[1]) : 8192;
  const double flop = 2.0 * n * n * n;
  for (bool tf32 : {false, true}) {
    setenv("GRT_CUDA_ALLOW_TF32", tf32 ? "1" : "0", 1);
    double direct = CublasMs(n, tf32) / 1e3;
    // Ten chained products minus the feeds, copies and sum alone.
    double with = GrtChainSeconds(n, 10, 5), without = GrtChainSeconds(n, 0, 5);
    double grt = (with - without) / 10;
    printf(
        "MatMul %d^3 %s: cuBLAS direct %.2f ms (%.1f TFLOP/s), grt %.2f ms (%.1f TFLOP/s), "
        "grt/cuBLAS throughput %.3f\n",
        n, tf32 ? "tf32" : "fp32", direct * 1e3, flop / direct / 1e12, grt * 1e3, flop / grt / 1e12,
        direct / grt);
  }
  printf("chain of 10000 Adds on GPU:0: %.2f us per op\n", GrtOverheadUs(10000, kSessionRun));
  printf("chain of 10000 Adds on GPU:0, callable: %.2f us per op\n",
         GrtOverheadUs(10000, kCallable));
  printf("chain of 10000 Adds on GPU:0, callable with graph_capture: %.2f us per op\n",
         GrtOverheadUs(10000, kCaptured));
  return 0;
}
