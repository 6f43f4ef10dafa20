// The GPU suite's helpers (tests/gpu/gpu_suite*.cc): one op pinned to GPU:0
// against the same op on the CPU, on fresh random inputs. Each file that
// includes this gets its own copies (an unnamed namespace); fixtures built
// on GpuSuite need their own names per file (gtest keys suites by name).
#ifndef GRT_TESTS_GPU_GPU_SUITE_UTIL_H_
#define GRT_TESTS_GPU_GPU_SUITE_UTIL_H_

#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "grt/backend.h"
#include "grt/grt.h"

extern "C" {
#include "kernels/kernel_registry.h"
#include "ops/graph.h"
}

// The ops the suite's cases ran, every file's (defined in gpu_suite_rows.cc,
// which prints the GPU row ops no case ran).
std::set<std::string>& GpuSuiteRanOps();

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

std::mt19937_64 g_rng(std::random_device{}());

// GRT_GPU_SUITE_DRY=1: no GPU wanted; GPU pins become the CPU (or soft
// placement), so the graphs, references and comparisons of this suite are
// themselves checked on a machine without a GPU. Proves nothing about CUDA.
bool Dry() {
  const char* d = getenv("GRT_GPU_SUITE_DRY");
  return d && strcmp(d, "1") == 0;
}

// The plugin: $GRT_CUDA_PLUGIN, else beside the working directory's
// backends/cuda (the Bazel layout the script carries).
void LoadPlugin() {
  const char* env = getenv("GRT_CUDA_PLUGIN");
  std::string path = env ? env : "backends/cuda/libgrt_backend_cuda.so";
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) path = buf;
  grt_status* s = grt_backend_load(path.c_str());
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
}

int Gpus() {
  char buf[2048];
  grt_backends_report(buf, sizeof buf);
  const char* at = strstr(buf, "GPU: ");
  return at ? atoi(at + 5) : 0;
}

// A session for the suite's single-op cases: gpu.allow_growth, so each of
// the suite's thousands of sessions takes only what its op needs instead of
// reserving the card; rewrite off, so an op whose inputs are all constants
// runs its GPU kernel instead of being folded on the CPU.
grt_status* NewSession(grt_graph* g, grt_session** s) {
  grt_session_options* o = nullptr;
  grt_status* st = grt_session_options_new(&o);
  if (!st) st = grt_session_options_set(o, "gpu.allow_growth", "true");
  if (!st) st = grt_session_options_set(o, "rewrite", "false");
  if (!st) st = grt_session_new(g, o, s);
  grt_session_options_free(o);
  return st;
}

// ---- one op on the GPU against the same op on the CPU --------------------

// kEdges: floats with every fourth element NaN, +-inf, +-0 or a .5 tie;
// kNonZero: no zeros (integer divisors), either sign; kSmall: floats as
// kPositive, integers in [1, 6] (safe exponents, shifts and divisors).
enum Fill { kRandom, kPositive, kLabels, kOneHotRows, kConst, kEdges, kNonZero, kSmall };

struct Input {
  grt_dtype dt;
  std::vector<int64_t> shape;
  Fill fill = kRandom;
  std::vector<int64_t> ints;  // kConst values (int32 host-memory argument); kLabels: {classes}
};

struct Case {
  std::string op;
  std::string attrs;  // JSON members, without braces
  std::vector<Input> in;
  int outputs = 1;
  double tol = 0;  // CheckAgainstCpu's relative tolerance; 0: the dtype's default
};

std::string DtypeName(grt_dtype dt) { return grt_dtype_name(dt); }

std::string ShapeJson(const std::vector<int64_t>& s) {
  std::string j = "[";
  for (size_t i = 0; i < s.size(); i++) j += (i ? "," : "") + std::to_string(s[i]);
  return j + "]";
}

std::string GraphJson(const Case& c, const std::string& device) {
  GpuSuiteRanOps().insert(c.op);
  std::string j = R"({"format":"grt.graph","version":1,"nodes":[)";
  std::string inputs;
  for (size_t i = 0; i < c.in.size(); i++) {
    const Input& in = c.in[i];
    std::string name = "x" + std::to_string(i);
    inputs += (i ? "," : "") + ("\"" + name + "\"");
    if (in.fill == kConst) {
      std::string vals;
      for (size_t k = 0; k < in.ints.size(); k++)
        vals += (k ? "," : "") + std::to_string(in.ints[k]);
      j += R"({"name":")" + name + R"(","op":"Const","device":"/cpu:0","attrs":{"dtype":")" +
           DtypeName(in.dt) + R"(","value":{"dtype":")" + DtypeName(in.dt) + R"(","shape":)" +
           ShapeJson(in.shape) + R"(,"values":[)" + vals + "]}}},";
    } else {
      j += R"({"name":")" + name + R"(","op":"Placeholder","device":"/cpu:0","attrs":{"dtype":")" +
           DtypeName(in.dt) + R"(","shape":)" + ShapeJson(in.shape) + "}},";
    }
  }
  j += R"({"name":"y","op":")" + c.op + R"(","inputs":[)" + inputs + R"(],"device":")" + device +
       R"(","attrs":{)" + c.attrs + "}}]}";
  return j;
}

// float16 and bfloat16 bits from a float (round to nearest even) and back:
// the suite fills and reads those dtypes through float.
uint16_t HalfBits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
  int32_t exp = (int32_t)((x >> 23) & 0xff);
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00);
  uint32_t h, rem, halfway;
  if (e <= 0) {  // subnormal or zero
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000;
    int shift = 14 - e;
    h = mant >> shift;
    rem = mant & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  } else {
    h = ((uint32_t)e << 10) | (mant >> 13);
    rem = mant & 0x1fff;
    halfway = 0x1000;
  }
  if (rem > halfway || (rem == halfway && (h & 1))) h++;  // a carry moves into the exponent
  return (uint16_t)(sign | h);
}
float HalfValue(uint16_t h) {
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) return sign * std::ldexp((float)mant, -24);
  if (exp == 31) return mant ? NAN : sign * INFINITY;
  return sign * std::ldexp((float)(mant | 0x400), exp - 25);
}
uint16_t Bf16Bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}
float Bf16Value(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

grt_tensor* Random(const Input& in) {
  grt_tensor* t = nullptr;
  EXPECT_EQ(grt_tensor_new(in.dt, (int32_t)in.shape.size(), in.shape.data(), &t), nullptr);
  int64_t n = grt_tensor_num_elements(t);
  std::uniform_real_distribution<double> u(in.fill == kPositive || in.fill == kSmall ? 0.1 : -2.0,
                                           2.0);
  int64_t classes = in.ints.empty() ? 1 : in.ints[0];
  std::uniform_int_distribution<int64_t> lab(0, classes - 1), small(-50, 50);
  if (in.fill == kSmall) {
    lab = std::uniform_int_distribution<int64_t>(1, 6);
    small = lab;
  }
  void* d = grt_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    switch (in.dt) {
      case GRT_FLOAT32:
        static_cast<float*>(d)[i] = (float)u(g_rng);
        break;
      case GRT_FLOAT64:
        static_cast<double*>(d)[i] = u(g_rng);
        break;
      case GRT_FLOAT16:
        static_cast<uint16_t*>(d)[i] = HalfBits((float)u(g_rng));
        break;
      case GRT_BFLOAT16:
        static_cast<uint16_t*>(d)[i] = Bf16Bits((float)u(g_rng));
        break;
      case GRT_INT32:
        static_cast<int32_t*>(d)[i] = (int32_t)(in.fill == kLabels ? lab(g_rng) : small(g_rng));
        break;
      case GRT_INT64:
        static_cast<int64_t*>(d)[i] = in.fill == kLabels ? lab(g_rng) : small(g_rng);
        break;
      case GRT_BOOL:
        static_cast<uint8_t*>(d)[i] = (uint8_t)(g_rng() & 1);
        break;
      case GRT_UINT8:
        static_cast<uint8_t*>(d)[i] =
            (uint8_t)(in.fill == kLabels || in.fill == kSmall ? lab(g_rng) : g_rng() % 200);
        break;
      case GRT_INT8:
        static_cast<int8_t*>(d)[i] = (int8_t)small(g_rng);
        break;
      case GRT_INT16:
        static_cast<int16_t*>(d)[i] = (int16_t)small(g_rng);
        break;
      default:
        break;
    }
  }
  if (in.fill == kEdges || in.fill == kNonZero) {
    const double edges[] = {NAN, INFINITY, -INFINITY, 0.0,  -0.0, 0.5,
                            1.5, 2.5,      -0.5,      -1.5, -2.5, 1e30};
    std::uniform_int_distribution<int64_t> nz(1, 50);
    for (int64_t i = 0; i < n; i++) {
      double e = edges[(i / 4) % (sizeof edges / sizeof edges[0])];
      int64_t z = (g_rng() & 1) ? nz(g_rng) : -nz(g_rng);
      bool edge = in.fill == kEdges && i % 4 == 0;
      switch (in.dt) {
        case GRT_FLOAT32:
          if (edge) static_cast<float*>(d)[i] = (float)e;
          break;
        case GRT_FLOAT64:
          if (edge) static_cast<double*>(d)[i] = e;
          break;
        case GRT_FLOAT16:
          if (edge) static_cast<uint16_t*>(d)[i] = HalfBits((float)e);
          break;
        case GRT_BFLOAT16:
          if (edge) static_cast<uint16_t*>(d)[i] = Bf16Bits((float)e);
          break;
        case GRT_INT32:
          if (in.fill == kNonZero) static_cast<int32_t*>(d)[i] = (int32_t)z;
          break;
        case GRT_INT64:
          if (in.fill == kNonZero) static_cast<int64_t*>(d)[i] = z;
          break;
        default:
          break;
      }
    }
  }
  if (in.fill == kOneHotRows && in.shape.size() == 2) {  // dense labels: rows summing to 1
    int64_t cols = in.shape[1];
    for (int64_t r = 0; r < in.shape[0]; r++) {
      double sum = 0;
      for (int64_t k = 0; k < cols; k++) {
        double v = std::fabs(u(g_rng));
        sum += v;
        if (in.dt == GRT_FLOAT32)
          static_cast<float*>(d)[r * cols + k] = (float)v;
        else
          static_cast<double*>(d)[r * cols + k] = v;
      }
      for (int64_t k = 0; k < cols; k++) {
        if (in.dt == GRT_FLOAT32)
          static_cast<float*>(d)[r * cols + k] /= (float)sum;
        else
          static_cast<double*>(d)[r * cols + k] /= sum;
      }
    }
  }
  return t;
}

double At(const grt_tensor* t, int64_t i) {
  const void* d = grt_tensor_data(t);
  switch (grt_tensor_dtype(t)) {
    case GRT_FLOAT32:
      return static_cast<const float*>(d)[i];
    case GRT_FLOAT64:
      return static_cast<const double*>(d)[i];
    case GRT_FLOAT16:
      return HalfValue(static_cast<const uint16_t*>(d)[i]);
    case GRT_BFLOAT16:
      return Bf16Value(static_cast<const uint16_t*>(d)[i]);
    case GRT_INT32:
      return static_cast<const int32_t*>(d)[i];
    case GRT_INT64:
      return (double)static_cast<const int64_t*>(d)[i];
    case GRT_BOOL:
      return static_cast<const uint8_t*>(d)[i] != 0;
    case GRT_UINT8:
      return static_cast<const uint8_t*>(d)[i];
    case GRT_INT8:
      return static_cast<const int8_t*>(d)[i];
    case GRT_INT16:
      return static_cast<const int16_t*>(d)[i];
    default:
      return NAN;
  }
}

// A copy of t that does not depend on the session that made it: a fetched
// tensor's memory may belong to a device the session frees with it.
grt_tensor* Detach(grt_tensor* t) {
  if (!t) return nullptr;
  std::vector<int64_t> dims(grt_tensor_rank(t));
  for (int32_t d = 0; d < grt_tensor_rank(t); d++) dims[d] = grt_tensor_dim(t, d);
  grt_tensor* c = nullptr;
  EXPECT_EQ(grt_tensor_new(grt_tensor_dtype(t), grt_tensor_rank(t), dims.data(), &c), nullptr);
  if (c) memcpy(grt_tensor_data(c), grt_tensor_data(t), grt_tensor_byte_size(t));
  grt_tensor_free(t);
  return c;
}

// Runs `c` pinned to `device`; outputs into out (host tensors).
void RunOn(const Case& c, const std::string& device, const std::vector<grt_tensor*>& feeds,
           std::vector<grt_tensor*>* out) {
  out->assign(c.outputs, nullptr);
  std::string json = GraphJson(c, device);
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_from_json(json.c_str(), json.size(), &g);
  ASSERT_EQ(st, nullptr) << grt_status_message(st) << "\n" << json;
  grt_session* s = nullptr;
  ASSERT_OK(NewSession(g, &s));
  std::vector<grt_feed> fd;
  std::vector<std::string> names;
  for (size_t i = 0; i < c.in.size(); i++) names.push_back("x" + std::to_string(i));
  for (size_t i = 0, k = 0; i < c.in.size(); i++)
    if (c.in[i].fill != kConst) fd.push_back(grt_feed{names[i].c_str(), feeds[k++]});
  std::vector<std::string> fetch_names;
  for (int k = 0; k < c.outputs; k++) fetch_names.push_back("y:" + std::to_string(k));
  std::vector<const char*> fetches;
  for (auto& f : fetch_names) fetches.push_back(f.c_str());
  out->assign(c.outputs, nullptr);
  st = grt_session_run(s, fd.data(), (int32_t)fd.size(), fetches.data(), (int32_t)fetches.size(),
                       nullptr, 0, out->data(), nullptr);
  EXPECT_EQ(st, nullptr) << c.op << " on " << device << ": " << grt_status_message(st);
  grt_status_free(st);
  for (auto& t : *out) t = Detach(t);
  grt_session_free(s);
  grt_graph_free(g);
}

// Dry: that a GPU row allows case `c` (its op with these dtypes); on a GPU
// one that none allows is placed elsewhere or refused, which a dry run,
// whose GPU pins are the CPU, would not show.
void ExpectGpuRow(const Case& c) {
  std::string json = GraphJson(c, "/device:GPU:0");
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_from_json(json.c_str(), json.size(), &g);
  ASSERT_EQ(st, nullptr) << grt_status_message(st) << "\n" << json;
  int32_t y = grt_graph_find_node(g, "y");
  ASSERT_GE(y, 0);
  EXPECT_GE(grt_kernel_find(&g->nodes[y], GRT_DEVICE_GPU), 0)
      << c.op << " {" << c.attrs << "}: no GPU row allows this case";
  grt_graph_free(g);
}

[[maybe_unused]] void CheckAgainstCpu(const Case& c) {
  SCOPED_TRACE(c.op + " {" + c.attrs + "} " + (c.in.empty() ? "" : DtypeName(c.in[0].dt)));
  if (Dry()) ExpectGpuRow(c);
  std::vector<grt_tensor*> feeds;
  for (const Input& in : c.in)
    if (in.fill != kConst) feeds.push_back(Random(in));
  std::vector<grt_tensor*> gpu, cpu;
  RunOn(c, Dry() ? "/cpu:0" : "/device:GPU:0", feeds, &gpu);
  RunOn(c, "/cpu:0", feeds, &cpu);
  for (int k = 0; k < c.outputs; k++) {
    ASSERT_NE(gpu[k], nullptr);
    ASSERT_NE(cpu[k], nullptr);
    ASSERT_EQ(grt_tensor_dtype(gpu[k]), grt_tensor_dtype(cpu[k]));
    ASSERT_EQ(grt_tensor_rank(gpu[k]), grt_tensor_rank(cpu[k]));
    for (int32_t d = 0; d < grt_tensor_rank(cpu[k]); d++)
      ASSERT_EQ(grt_tensor_dim(gpu[k], d), grt_tensor_dim(cpu[k], d));
    int64_t n = grt_tensor_num_elements(cpu[k]);
    double err = 0, norm = 0;
    for (int64_t i = 0; i < n; i++) {
      double a = At(gpu[k], i), b = At(cpu[k], i);
      ASSERT_FALSE(std::isnan(a) != std::isnan(b)) << "output " << k << " element " << i;
      if (std::isnan(b) || a == b) continue;  // a == b: equal infinities too
      err += (a - b) * (a - b);
      norm += b * b;
    }
    grt_dtype dt = grt_tensor_dtype(cpu[k]);
    // float16/bfloat16: the GPU's float32 math may round differently from
    // libm's by an ulp of float32, which can move a result by one ulp of
    // the narrow type.
    double tol = c.tol                ? c.tol
                 : dt == GRT_FLOAT32  ? 1e-5
                 : dt == GRT_FLOAT64  ? 1e-12
                 : dt == GRT_FLOAT16  ? 1e-3
                 : dt == GRT_BFLOAT16 ? 8e-3
                                      : 0;
    EXPECT_LE(std::sqrt(err), tol * std::sqrt(norm) + (tol ? 1e-30 : 0)) << "output " << k;
  }
  for (auto* t : feeds) grt_tensor_free(t);
  for (auto* t : gpu) grt_tensor_free(t);
  for (auto* t : cpu) grt_tensor_free(t);
}

// Runs `c` on the GPU (the CPU when dry) and on the CPU and expects both to
// fail with `code` and a message holding `text` (the index and divisor
// checks). Every input is given as kConst values but fed through a
// Placeholder, so the graph's shape functions do not see the values and
// the kernels' own checks are what fail.
inline void ExpectSameError(const Case& c, grt_code code, const std::string& text) {
  SCOPED_TRACE(c.op + " {" + c.attrs + "} expecting an error");
  Case fed = c;
  std::vector<grt_tensor*> feeds;
  for (Input& in : fed.in) {
    in.fill = kRandom;
    grt_tensor* t = nullptr;
    ASSERT_OK(grt_tensor_new(in.dt, (int32_t)in.shape.size(), in.shape.data(), &t));
    void* d = grt_tensor_data(t);
    for (size_t i = 0; i < in.ints.size() && (int64_t)i < grt_tensor_num_elements(t); i++) {
      int64_t v = in.ints[i];
      switch (in.dt) {
        case GRT_FLOAT32:
          static_cast<float*>(d)[i] = (float)v;
          break;
        case GRT_FLOAT64:
          static_cast<double*>(d)[i] = (double)v;
          break;
        case GRT_INT32:
          static_cast<int32_t*>(d)[i] = (int32_t)v;
          break;
        case GRT_INT64:
          static_cast<int64_t*>(d)[i] = v;
          break;
        default:
          static_cast<uint8_t*>(d)[i] = (uint8_t)v;
          break;
      }
    }
    feeds.push_back(t);
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < fed.in.size(); i++) names.push_back("x" + std::to_string(i));
  std::vector<grt_feed> fd;
  for (size_t i = 0; i < feeds.size(); i++) fd.push_back(grt_feed{names[i].c_str(), feeds[i]});
  for (const char* device : {"/device:GPU:0", "/cpu:0"}) {
    std::string json = GraphJson(fed, Dry() ? "/cpu:0" : device);
    grt_graph* g = nullptr;
    ASSERT_OK(grt_graph_from_json(json.c_str(), json.size(), &g));
    grt_session* s = nullptr;
    ASSERT_OK(NewSession(g, &s));
    const char* fetch = "y:0";
    grt_tensor* out = nullptr;
    grt_status* st =
        grt_session_run(s, fd.data(), (int32_t)fd.size(), &fetch, 1, nullptr, 0, &out, nullptr);
    EXPECT_NE(st, nullptr) << device;
    if (st) {
      EXPECT_EQ(grt_status_code(st), code) << device << ": " << grt_status_message(st);
      EXPECT_NE(std::string(grt_status_message(st)).find(text), std::string::npos)
          << device << ": " << grt_status_message(st);
    }
    grt_status_free(st);
    grt_tensor_free(out);
    grt_session_free(s);
    grt_graph_free(g);
  }
  for (auto* t : feeds) grt_tensor_free(t);
}

// The dtypes the GPU rows of `op` allow for its type attr `attr` (the
// int32-on-host rows included), in dtype order: the cases to run for each
// dtype a row promises. Fails when no GPU row of `op` constrains `attr`.
[[maybe_unused]] std::vector<grt_dtype> RowDtypes(const char* op, const char* attr) {
  uint32_t mask = 0;
  const grt_kernel_def* const* rows = nullptr;
  int32_t n = grt_kernel_find_op(op, &rows);
  for (int32_t i = 0; i < n; i++)
    if (rows[i]->device == GRT_DEVICE_GPU)
      for (int32_t c = 0; c < rows[i]->n_constraints; c++)
        if (strcmp(rows[i]->constraints[c].attr, attr) == 0)
          mask |= rows[i]->constraints[c].allowed;
  EXPECT_NE(mask, 0u) << op << " has no GPU row constraining " << attr;
  std::vector<grt_dtype> out;
  for (int t = 1; t < GRT_NUM_DTYPES; t++)
    if (mask & (1u << t)) out.push_back((grt_dtype)t);
  return out;
}

class GpuSuite : public ::testing::Test {
 protected:
  void SetUp() override {
    LoadPlugin();
    if (Gpus() == 0 && !Dry()) GTEST_SKIP() << "no GPU on this machine";
  }
};

const grt_dtype kFloats[] = {GRT_FLOAT32, GRT_FLOAT64};

}  // namespace

#endif  // GRT_TESTS_GPU_GPU_SUITE_UTIL_H_
