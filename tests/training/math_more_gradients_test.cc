// The gradients of the ops added for ONNX import (ops/grad_math_more.c,
// ops/grad_array_more.c)
// against central differences in float64, inside each function's domain
// and away from the points where it is not differentiable.
#include "tests/training/grad_check.h"

namespace grt_test {
namespace {

const grt_dtype F64 = GRT_FLOAT64;

TEST(MathMoreGradients, Unary) {
  for (const char* op : {"Sin", "Cos", "Atan", "Sinh", "Cosh", "Asinh", "Erf"})
    GradCheck(op).Type("T", F64).X({2, 3}, {}, -2, 2).Check();
  GradCheck("Tan").Type("T", F64).X({2, 3}, {}, -1.2, 1.2).Check();
  for (const char* op : {"Asin", "Acos", "Atanh"})
    GradCheck(op).Type("T", F64).X({2, 3}, {}, -0.9, 0.9).Check();
  GradCheck("Acosh").Type("T", F64).X({2, 3}, {}, 1.2, 4).Check();
  // Sign's gradient is zero away from 0 (a step function).
  GradCheck("Sign").Type("T", F64).X({4}, {-1.5, -0.2, 0.3, 2.0}).Check();
}

TEST(MathMoreGradients, FloorModWithBroadcasting) {
  // x / y away from integers, where floor(x / y) is locally constant.
  GradCheck("FloorMod")
      .Type("T", F64)
      .X({2, 3}, {1.3, -2.7, 4.1, 5.6, -0.4, 7.2})
      .X({3}, {2.5, -1.5, 3.0})
      .Check();
}

TEST(MathMoreGradients, DivWithBroadcasting) {
  // Div on floats is RealDiv: divisors kept away from 0.
  GradCheck("Div")
      .Type("T", F64)
      .X({2, 3}, {1.3, -2.7, 4.1, 5.6, -0.4, 7.2})
      .X({3}, {2.5, -1.5, 3.0})
      .Check();
}

TEST(MathMoreGradients, ReverseSequence) {
  grt_tensor* lens = Tensor(GRT_INT64, {3}, {2, 0, 4});
  GradCheck("ReverseSequence")
      .Type("T", F64)
      .Type("Tlen", GRT_INT64)
      .Int("seq_dim", 1)
      .Int("batch_dim", 0)
      .X({3, 4, 2})
      .C(lens)
      .Check();
}

}  // namespace
}  // namespace grt_test
