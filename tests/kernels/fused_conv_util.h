// What the fused convolution kernels' tests (stem, pointwise, depthwise,
// expansion + depthwise, Winograd) share: the activations fused_ops names,
// in float64, the JSON of an int list, a float32 tensor from float64
// values, one step of a graph in a session, and the comparison with the
// float64 loops.
#ifndef GRT_TESTS_KERNELS_FUSED_CONV_UTIL_H_
#define GRT_TESTS_KERNELS_FUSED_CONV_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernels/conv_ref.h"

extern "C" {
#include "grt/grt.h"
}

namespace grt_test {
namespace ref {

constexpr double kAlpha = 0.25;  // the tests' leakyrelu_alpha

// The activation fused_ops calls `act` ("None" or "": none), on x.
inline double Activate(const std::string& act, double x) {
  if (act == "Relu") return std::max(0.0, x);
  if (act == "LeakyRelu") return x > 0 ? x : kAlpha * x;
  if (act == "Relu6") return std::min(std::max(0.0, x), 6.0);
  if (act == "Elu") return x > 0 ? x : std::expm1(x);
  if (act == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (act == "Tanh") return std::tanh(x);
  if (act == "_HardSwish") return x * std::min(std::max(x + 3, 0.0), 6.0) / 6;
  if (act == "_Swish") return x / (1 + std::exp(-x));
  return x;
}

// "[1,2,3]".
inline std::string Ints(const Dims& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// A new float32 tensor of shape d holding v (the caller frees it).
inline grt_tensor* F32(const Dims& d, const Vals& v) {
  grt_tensor* t = nullptr;
  EXPECT_EQ(grt_tensor_new(GRT_FLOAT32, static_cast<int32_t>(d.size()), d.data(), &t), nullptr);
  float* p = static_cast<float*>(grt_tensor_data(t));
  for (size_t i = 0; i < v.size(); i++) p[i] = static_cast<float>(v[i]);
  return t;
}

// Runs graph `json` once in a session of `threads` intra-op threads,
// feeding `feeds` (their tensors are freed here) and fetching `fetches`;
// "" or the error. *got: the fetched floats, one fetch after the other.
// *runs: how far `count` (a kernel's count of its runs) moved in the step.
inline std::string RunStep(const std::string& json, int threads, std::vector<grt_feed> feeds,
                           const std::vector<const char*>& fetches, int64_t (*count)(),
                           std::vector<float>* got, int64_t* runs) {
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(json.c_str(), json.size(), &g);
  grt_session_options* o = nullptr;
  if (!s) s = grt_session_options_new(&o);
  if (!s) s = grt_session_options_set(o, "intra_op_threads", std::to_string(threads).c_str());
  grt_session* sess = nullptr;
  if (!s) s = grt_session_new(g, o, &sess);
  std::vector<grt_tensor*> out(fetches.size(), nullptr);
  int64_t before = count();
  if (!s)
    s = grt_session_run(sess, feeds.data(), static_cast<int32_t>(feeds.size()), fetches.data(),
                        static_cast<int32_t>(fetches.size()), nullptr, 0, out.data(), nullptr);
  *runs = count() - before;
  for (grt_feed& f : feeds) grt_tensor_free(f.value);
  std::string err = s ? grt_status_message(s) : "";
  grt_status_free(s);
  got->clear();
  for (grt_tensor* t : out) {
    if (!t) continue;
    const float* p = static_cast<const float*>(grt_tensor_data(t));
    got->insert(got->end(), p, p + grt_tensor_byte_size(t) / sizeof(float));
    grt_tensor_free(t);
  }
  grt_session_free(sess);
  grt_session_options_free(o);
  grt_graph_free(g);
  return err;
}

// |got - want| <= tol max(1, |want|) over the first n of want (all by
// default), got holding exactly n; "" or the first miss.
inline std::string CompareTol(const std::vector<float>& got, const Vals& want, double tol,
                              size_t n = SIZE_MAX) {
  if (n == SIZE_MAX) n = want.size();
  if (got.size() != n) return "size " + std::to_string(got.size()) + " vs " + std::to_string(n);
  for (size_t i = 0; i < n; i++)
    if (!(std::fabs(got[i] - want[i]) <= tol * std::max(1.0, std::fabs(want[i]))))
      return "element " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " +
             std::to_string(want[i]);
  return "";
}

}  // namespace ref
}  // namespace grt_test

#endif  // GRT_TESTS_KERNELS_FUSED_CONV_UTIL_H_
