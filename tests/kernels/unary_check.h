// Unary element-wise ops against references computed in the test: shared by
// the element-wise suites (the activations and the math added for import).
#ifndef GRT_TESTS_KERNELS_UNARY_CHECK_H_
#define GRT_TESTS_KERNELS_UNARY_CHECK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/kernels/harness.h"
#include "tests/kernels/kernel_test_util.h"

namespace grt_test {

using Vals = std::vector<double>;

// Deterministic values that every float type holds exactly: k/8 in
// [lo, hi).
inline Vals Seq(int64_t n, double lo, double hi, uint32_t seed = 1) {
  Vals v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  int64_t steps = static_cast<int64_t>((hi - lo) * 8);
  for (int64_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    v[i] = lo + static_cast<double>((s >> 8) % steps) / 8.0;
  }
  return v;
}

// An op, its reference in float64 and the input range.
struct UnaryCase {
  const char* op;
  std::function<double(double)> f;
  double lo, hi;
};

// Each case over [3, 700] inputs (more than one half-conversion chunk) in
// every float dtype; float32 within f32_tol, the others within their
// precision.
inline void CheckUnaryCases(const std::vector<UnaryCase>& cases, uint32_t seed, double f32_tol) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16}) {
    for (const UnaryCase& c : cases) {
      SCOPED_TRACE(std::string(c.op) + " " + grt_dtype_name(dt));
      std::vector<int64_t> d = {3, 700};
      grt_tensor* x = MakeTensor(dt, d, Seq(Count(d), c.lo, c.hi, seed));
      Vals want(Count(d));
      for (int64_t i = 0; i < Count(d); i++) want[i] = c.f(At(x, i));
      double tol = dt == GRT_FLOAT64   ? 1e-12
                   : dt == GRT_FLOAT32 ? f32_tol
                   : dt == GRT_FLOAT16 ? 1e-3
                                       : 8e-3;
      OpRun r(c.op);
      r.AttrType("T", dt).Input(x);
      ASSERT_OK(r.Run());
      EXPECT_EQ(grt_tensor_dtype(r.Output(0)), dt);
      ExpectNear(r.Output(0), d, want, tol);
    }
  }
}

}  // namespace grt_test

#endif  // GRT_TESTS_KERNELS_UNARY_CHECK_H_
