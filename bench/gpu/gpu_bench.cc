// GPU benchmarks, on a machine with an NVIDIA GPU (run_gpu_suite.sh runs
// them; PyTorch's side is in tests/gpu/torch_bench.py, which prints the same
// table's rows). In one run of about 30 to 90 s (bench/gpu/README.md says
// what each figure is and how long each part takes):
// - MatMul 8192^3 float32 and TF32 through a grt session against cuBLAS
//   called directly on the same card (goal: grt >= 95% of cuBLAS); a 4x8
//   corner of each product is checked against the host in double;
// - the device's copy bandwidth (cudaMemcpy device to device) and a Sum
//   over 2^28 float32 on the inner and on the outer axis through grt, in
//   GB/s of input read, every output checked;
// - per-op overhead on a chain of 10k small Adds on the GPU, through
//   grt_session_run, a callable, and a callable with graph_capture; each
//   result checked.
// Timings are medians, of CUDA events (cuBLAS, copies) or of host clocks
// around grt runs, which return once their results are on the host. Each
// part prints its own wall time; a table of every figure ends the run.
//
// Figures from an H200 in bench/gpu/README.md.
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
#define CHECK_CUBLAS(expr)                                                  \
  do {                                                                      \
    cublasStatus_t e_ = (expr);                                             \
    if (e_ != CUBLAS_STATUS_SUCCESS) {                                      \
      fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, e_); \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One row of the closing table: grt's figure, the reference's, their ratio.
struct Row {
  std::string what, unit, reference;
  double grt, ref;  // ref < 0: none
};
std::vector<Row> g_rows;

// Wall time of one part of the run.
struct Part {
  const char* name;
  double t0 = Now();
  explicit Part(const char* n) : name(n) {}
  ~Part() { printf("  [%s: %.1f s]\n", name, Now() - t0); }
};

grt_graph* Graph(const std::string& json) {
  grt_graph* g = nullptr;
  CHECK_GRT(grt_graph_from_json(json.c_str(), json.size(), &g));
  return g;
}

// ---- MatMul ----------------------------------------------------------------

// The same n x n values for grt's feeds and cuBLAS's device copies.
std::vector<float> Values(int64_t n, uint32_t seed) {
  std::vector<float> v((size_t)(n * n));
  uint32_t x = seed;
  for (auto& f : v) {
    x = x * 1664525u + 1013904223u;
    f = (float)((x >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  return v;
}

grt_tensor* Matrix(int64_t n, const std::vector<float>& v) {
  grt_tensor* t = nullptr;
  int64_t dims[2] = {n, n};
  CHECK_GRT(grt_tensor_new(GRT_FLOAT32, 2, dims, &t));
  memcpy(grt_tensor_data(t), v.data(), v.size() * sizeof(float));
  return t;
}

constexpr int kCornerRows = 4, kCornerCols = 8;

// Checks c's top-left corner (row-major, ldc) against a @ b in double; the
// bound is relative to sum |a_ik b_kj| (float32 rounding, or TF32's
// 10-bit mantissas).
void CheckCorner(const char* who, int64_t n, const std::vector<float>& a,
                 const std::vector<float>& b, const float* c, int64_t ldc, bool tf32) {
  for (int i = 0; i < kCornerRows; i++)
    for (int j = 0; j < kCornerCols; j++) {
      double want = 0, mag = 0;
      for (int64_t k = 0; k < n; k++) {
        double p = (double)a[(size_t)(i * n + k)] * b[(size_t)(k * n + j)];
        want += p;
        mag += std::fabs(p);
      }
      double got = c[i * ldc + j];
      if (std::fabs(got - want) > (tf32 ? 4e-3 : 1e-5) * mag + 1e-6) {
        fprintf(stderr, "%s: product[%d][%d] = %.6g, want %.6g\n", who, i, j, got, want);
        exit(1);
      }
    }
}

// cuBLAS directly: median ms of one n^3 product (10 timed after 3).
double CublasMs(int64_t n, const std::vector<float>& ha, const std::vector<float>& hb, bool tf32) {
  float *a, *b, *c;
  size_t bytes = (size_t)(n * n) * sizeof(float);
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&a), bytes));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&b), bytes));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&c), bytes));
  CHECK_CUDA(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  const float one = 1, zero = 0;
  const int ni = (int)n;
  std::vector<double> ms;
  for (int i = 0; i < 13; i++) {
    CHECK_CUDA(cudaEventRecord(e0));
    // Row-major a @ b is column-major b @ a.
    CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b, ni, a, ni,
                             &zero, c, ni));
    CHECK_CUDA(cudaEventRecord(e1));
    CHECK_CUDA(cudaEventSynchronize(e1));
    float t;
    CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
    if (i >= 3) ms.push_back(t);
  }
  float corner[kCornerRows * kCornerCols];
  CHECK_CUDA(cudaMemcpy2D(corner, kCornerCols * sizeof(float), c, (size_t)n * sizeof(float),
                          kCornerCols * sizeof(float), kCornerRows, cudaMemcpyDeviceToHost));
  CheckCorner("cuBLAS", n, ha, hb, corner, kCornerCols, tf32);
  CHECK_CUBLAS(cublasDestroy(handle));
  CHECK_CUDA(cudaEventDestroy(e0));
  CHECK_CUDA(cudaEventDestroy(e1));
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  CHECK_CUDA(cudaFree(c));
  return Median(ms);
}

// A session running `chain` products (a @ b, then @ b again...) on GPU:0
// and fetching the last one's 4x8 corner (a Slice on the GPU, so the fetch
// is small); returns the median seconds of a run (reps after 2). With
// chain == 1 the corner is checked against the host at the first run.
double GrtChainSeconds(int64_t n, int chain, int reps, grt_tensor* a, grt_tensor* b,
                       const std::vector<float>& ha, const std::vector<float>& hb, bool tf32) {
  std::string j = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,-1]}},
    {"name":"b","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,-1]}},
    {"name":"begin","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[0,0]}}},
    {"name":"size","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[)" +
                  std::to_string(kCornerRows) + "," + std::to_string(kCornerCols) + "]}}}";
  std::string prev = "a";
  for (int i = 0; i < chain; i++) {
    std::string name = "m" + std::to_string(i);
    j += R"(,{"name":")" + name + R"(","op":"MatMul","inputs":[")" + prev +
         R"(","b"],"device":"/device:GPU:0"})";
    prev = name;
  }
  j += R"(,{"name":"y","op":"Slice","inputs":[")" + prev +
       R"(","begin","size"],"device":"/device:GPU:0"}]})";
  grt_graph* g = Graph(j);
  grt_session* s = nullptr;
  CHECK_GRT(grt_session_new(g, nullptr, &s));
  grt_feed feeds[2] = {{"a", a}, {"b", b}};
  const char* fetch = "y";
  std::vector<double> t;
  for (int i = 0; i < reps + 2; i++) {
    grt_tensor* out = nullptr;
    double t0 = Now();
    CHECK_GRT(grt_session_run(s, feeds, 2, &fetch, 1, nullptr, 0, &out, nullptr));
    if (i >= 2) t.push_back(Now() - t0);
    if (chain == 1 && i == 0)
      CheckCorner("grt", n, ha, hb, static_cast<const float*>(grt_tensor_data(out)), kCornerCols,
                  tf32);
    grt_tensor_free(out);
  }
  grt_session_free(s);
  grt_graph_free(g);
  return Median(t);
}

void MatMuls(int64_t n) {
  Part part("MatMul");
  const double flop = 2.0 * n * n * n;
  std::vector<float> ha = Values(n, 12345), hb = Values(n, 777);
  double direct[2];
  for (bool tf32 : {false, true}) direct[tf32] = CublasMs(n, ha, hb, tf32) / 1e3;
  grt_tensor* a = Matrix(n, ha);
  grt_tensor* b = Matrix(n, hb);
  for (bool tf32 : {false, true}) {
    setenv("GRT_CUDA_ALLOW_TF32", tf32 ? "1" : "0", 1);
    // Ten chained products minus one (which checks its corner): the same
    // feeds, copies and slice in both, nine products between them.
    double one = GrtChainSeconds(n, 1, 5, a, b, ha, hb, tf32);
    double ten = GrtChainSeconds(n, 10, 5, a, b, ha, hb, tf32);
    double grt = (ten - one) / 9;
    std::string what = "MatMul " + std::to_string(n) + "^3 " + (tf32 ? "tf32" : "fp32");
    printf(
        "%s: cuBLAS direct %.2f ms (%.1f TFLOP/s), grt %.2f ms (%.1f TFLOP/s), "
        "grt/cuBLAS throughput %.3f\n",
        what.c_str(), direct[tf32] * 1e3, flop / direct[tf32] / 1e12, grt * 1e3, flop / grt / 1e12,
        direct[tf32] / grt);
    g_rows.push_back(
        {what, "TFLOP/s", "cuBLAS direct", flop / grt / 1e12, flop / direct[tf32] / 1e12});
  }
  setenv("GRT_CUDA_ALLOW_TF32", "0", 1);
  grt_tensor_free(a);
  grt_tensor_free(b);
}

// ---- reduction throughput against copy bandwidth -------------------------

constexpr int64_t kSide = 16384;  // 2^28 float32 = 1 GiB
constexpr float kFillValue = 0.5f;

// cudaMemcpy device to device of 1 GiB: GB/s counting what it reads and
// writes (2 GiB per copy), the figure a memory-bound kernel is held to.
double CopyGBs() {
  size_t bytes = (size_t)(kSide * kSide) * sizeof(float);
  void *a, *b;
  CHECK_CUDA(cudaMalloc(&a, bytes));
  CHECK_CUDA(cudaMalloc(&b, bytes));
  CHECK_CUDA(cudaMemset(a, 0, bytes));
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  std::vector<double> ms;
  for (int i = 0; i < 12; i++) {
    CHECK_CUDA(cudaEventRecord(e0));
    CHECK_CUDA(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaEventRecord(e1));
    CHECK_CUDA(cudaEventSynchronize(e1));
    float t;
    CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
    if (i >= 2) ms.push_back(t);
  }
  CHECK_CUDA(cudaEventDestroy(e0));
  CHECK_CUDA(cudaEventDestroy(e1));
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  return 2.0 * (double)bytes / (Median(ms) / 1e3) / 1e9;
}

// A session filling a [16384, 16384] float32 on GPU:0 and summing it over
// `axis` `sums` times (separate nodes: the optimizer is off, so common
// subexpressions are not merged and the Fill is not folded), the sums added
// up and fetched (16384 values, each checked: sums * 0.5 * 16384, exact in
// float32). Returns the median seconds of a run.
double GrtSumsSeconds(int axis, int sums) {
  std::string j = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"dims","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[)" +
                  std::to_string(kSide) + "," + std::to_string(kSide) + R"(]}}},
    {"name":"v","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[)" +
                  std::to_string(kFillValue) + R"(]}}},
    {"name":"axis","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[1],"values":[)" +
                  std::to_string(axis) + R"(]}}},
    {"name":"x","op":"Fill","inputs":["dims","v"],"device":"/device:GPU:0"})";
  std::string addn;
  for (int i = 0; i < sums; i++) {
    std::string name = "s" + std::to_string(i);
    j += R"(,{"name":")" + name + R"(","op":"Sum","inputs":["x","axis"],"device":"/device:GPU:0"})";
    addn += (i ? ",\"" : "\"") + name + "\"";
  }
  j += R"(,{"name":"y","op":"AddN","inputs":[)" + addn + R"(],"device":"/device:GPU:0"}]})";
  grt_graph* g = Graph(j);
  grt_session_options* o = nullptr;
  CHECK_GRT(grt_session_options_new(&o));
  CHECK_GRT(grt_session_options_set(o, "optimizer_off", "all"));
  grt_session* s = nullptr;
  CHECK_GRT(grt_session_new(g, o, &s));
  grt_session_options_free(o);
  const char* fetch = "y";
  const float want = (float)sums * kFillValue * (float)kSide;
  std::vector<double> t;
  for (int i = 0; i < 12; i++) {
    grt_tensor* out = nullptr;
    double t0 = Now();
    CHECK_GRT(grt_session_run(s, nullptr, 0, &fetch, 1, nullptr, 0, &out, nullptr));
    if (i >= 2) t.push_back(Now() - t0);
    const float* y = static_cast<const float*>(grt_tensor_data(out));
    if (grt_tensor_num_elements(out) != kSide) {
      fprintf(stderr, "Sum over axis %d: %lld outputs, want %lld\n", axis,
              (long long)grt_tensor_num_elements(out), (long long)kSide);
      exit(1);
    }
    for (int64_t k = 0; k < kSide; k++)
      if (y[k] != want) {
        fprintf(stderr, "Sum over axis %d: y[%lld] = %g, want %g\n", axis, (long long)k, y[k],
                want);
        exit(1);
      }
    grt_tensor_free(out);
  }
  grt_session_free(s);
  grt_graph_free(g);
  return Median(t);
}

void Reductions(double copy_gbs) {
  Part part("Sum 2^28");
  const double bytes = (double)(kSide * kSide) * sizeof(float);
  printf("copy device to device, 1 GiB: %.0f GB/s (read + write)\n", copy_gbs);
  for (int axis : {1, 0}) {
    // Twenty sums more than one, so the Fill and the run's fixed costs cancel.
    double per_sum = (GrtSumsSeconds(axis, 21) - GrtSumsSeconds(axis, 1)) / 20;
    double gbs = bytes / per_sum / 1e9;
    std::string what = std::string("Sum 2^28 f32, ") + (axis ? "inner" : "outer") + " axis";
    printf("%s: %.3f ms, %.0f GB/s read, %.2f of the copy's bandwidth\n", what.c_str(),
           per_sum * 1e3, gbs, gbs / copy_gbs);
    g_rows.push_back({what, "GB/s", "copy D2D", gbs, copy_gbs});
  }
}

// ---- per-op overhead -------------------------------------------------------

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
  grt_graph* g = Graph(j);
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

void Chains() {
  Part part("10k Add chain");
  const struct {
    Mode mode;
    const char* what;
  } kModes[] = {{kSessionRun, "10k Add chain, session_run"},
                {kCallable, "10k Add chain, callable"},
                {kCaptured, "10k Add chain, captured"}};
  for (const auto& m : kModes) {
    double us = GrtOverheadUs(10000, m.mode);
    printf("%s: %.2f us per op\n", m.what, us);
    g_rows.push_back({m.what, "us/op", "", us, -1});
  }
}

void Table(const char* gpu) {
  printf("\n== grt on %s\n%-32s %10s %-8s %-14s %10s %7s\n", gpu, "figure", "grt", "unit",
         "reference", "ref", "ratio");
  for (const Row& r : g_rows) {
    if (r.ref < 0)
      printf("%-32s %10.2f %-8s\n", r.what.c_str(), r.grt, r.unit.c_str());
    else
      printf("%-32s %10.2f %-8s %-14s %10.2f %7.3f\n", r.what.c_str(), r.grt, r.unit.c_str(),
             r.reference.c_str(), r.ref, r.grt / r.ref);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double t0 = Now();
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
  const int64_t n = argc > 1 ? atoll(argv[1]) : 8192;
  // The copy's figure is taken before any grt session holds device memory.
  double copy_gbs = CopyGBs();
  MatMuls(n);
  Reductions(copy_gbs);
  Chains();
  Table(p.name);
  printf("gpu_bench: %.1f s in all\n", Now() - t0);
  return 0;
}
