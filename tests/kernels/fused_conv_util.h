// What the fused convolution kernels' tests (stem, pointwise, depthwise,
// expansion + depthwise, Winograd) share: the activations fused_ops names,
// in float64, the JSON of an int list, and a float32 tensor from float64
// values.
#ifndef GRT_TESTS_KERNELS_FUSED_CONV_UTIL_H_
#define GRT_TESTS_KERNELS_FUSED_CONV_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

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

}  // namespace ref
}  // namespace grt_test

#endif  // GRT_TESTS_KERNELS_FUSED_CONV_UTIL_H_
