// Comparing a model's output with PyTorch's, for the tests that run
// tests/models' exports (models_test, the GPU suite's real models,
// dims_option_test).
#ifndef GRT_TESTS_MODELS_COMPARE_H_
#define GRT_TESTS_MODELS_COMPARE_H_

#include <cmath>
#include <cstdio>
#include <string>

#include "grt/grt.h"

namespace grt_models {

// Closeness: |got - ref| <= kTol * (max |ref| + |ref|): relative to the
// element, with the output's scale as the floor for elements near zero.
constexpr double kTol = 1e-4;

// A status's message ("" for success), the status freed.
inline std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

inline std::string Shape(const grt_tensor* t) {
  std::string s = "[";
  for (int32_t i = 0; i < grt_tensor_rank(t); i++)
    s += (i ? ", " : "") + std::to_string(grt_tensor_dim(t, i));
  return s + "]";
}

// Compares `got` with `ref` (both float32): "" when every element is close,
// otherwise a line naming the worst element.
inline std::string Compare(const grt_tensor* got, const grt_tensor* ref) {
  if (grt_tensor_dtype(got) != GRT_FLOAT32 || grt_tensor_dtype(ref) != GRT_FLOAT32)
    return std::string("dtype ") + grt_dtype_name(grt_tensor_dtype(got)) + ", reference " +
           grt_dtype_name(grt_tensor_dtype(ref));
  if (Shape(got) != Shape(ref)) return "shape " + Shape(got) + ", reference " + Shape(ref);
  const float* g = static_cast<const float*>(grt_tensor_data(got));
  const float* r = static_cast<const float*>(grt_tensor_data(ref));
  int64_t n = grt_tensor_num_elements(ref);
  double scale = 0;
  for (int64_t i = 0; i < n; i++) scale = std::fmax(scale, std::fabs(r[i]));
  int64_t worst = -1;
  double worst_ratio = 0, max_abs = 0;
  for (int64_t i = 0; i < n; i++) {
    double diff = std::fabs((double)g[i] - r[i]);
    double ratio = std::isnan(diff) ? INFINITY : diff / (kTol * (scale + std::fabs(r[i])));
    max_abs = std::fmax(max_abs, diff);
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  if (worst < 0 || worst_ratio <= 1) return "";
  char line[256];
  snprintf(line, sizeof line,
           "element %lld of %lld: %.9g where PyTorch has %.9g (max |diff| %.3g, max |ref| %.3g, "
           "%.1fx the tolerance)",
           (long long)worst, (long long)n, g[worst], r[worst], max_abs, scale, worst_ratio);
  return line;
}

}  // namespace grt_models

#endif  // GRT_TESTS_MODELS_COMPARE_H_
