// Gradients of the convolution family (ops/grad_conv.c) against central
// differences. The CPU kernels of these ops are float32 only, so the check
// runs in float32 with a larger step and tolerance; each op is linear or
// piecewise linear in its inputs here, so the differences stay accurate.
// Skipped where the graph has no convolution ops (their family is added
// on its own branch).
#include <cstring>

#include "tests/training/grad_check.h"

namespace grt_test {
namespace {

const grt_dtype F32 = GRT_FLOAT32;

bool HaveOp(const char* op) {
  grt_graph* g = nullptr;
  grt_status_free(grt_graph_new(&g));
  grt_status* s = grt_graph_add_node(g, "n", op, nullptr);
  if (!s) s = grt_graph_validate(g);
  bool unknown = s && std::strstr(grt_status_message(s), "unknown op");
  grt_status_free(s);
  grt_graph_free(g);
  return !unknown;
}

#define REQUIRE_OP(op) \
  if (!HaveOp(op)) GTEST_SKIP() << op << " is not registered in this build"

TEST(ConvGradients, Conv2DBothFormatsAndPaddings) {
  REQUIRE_OP("Conv2D");
  for (const char* padding : {"VALID", "SAME"}) {
    SCOPED_TRACE(padding);
    GradCheck("Conv2D", F32)
        .Ints("strides", {1, 2, 1, 1})
        .String("padding", padding)
        .X({2, 5, 4, 3})
        .X({3, 2, 3, 2})
        .Check(2e-3);
    GradCheck("Conv2D", F32)
        .Ints("strides", {1, 1, 1, 2})
        .String("padding", padding)
        .String("data_format", "NCHW")
        .X({1, 3, 4, 5})
        .X({2, 2, 3, 2})
        .Check(2e-3);
  }
}

TEST(ConvGradients, Pooling) {
  REQUIRE_OP("MaxPool");
  // distinct values spread apart, so a small step never changes the maximum
  std::vector<double> v;
  for (int i = 0; i < 2 * 4 * 4 * 2; i++) v.push_back(((i * 37) % 64) * 0.1 - 3.2);
  for (const char* padding : {"VALID", "SAME"}) {
    SCOPED_TRACE(padding);
    GradCheck("MaxPool", F32)
        .Ints("ksize", {1, 2, 2, 1})
        .Ints("strides", {1, 2, 1, 1})
        .String("padding", padding)
        .X({2, 4, 4, 2}, v)
        .Check(2e-3);
    GradCheck("AvgPool", F32)
        .Ints("ksize", {1, 2, 3, 1})
        .Ints("strides", {1, 1, 2, 1})
        .String("padding", padding)
        .X({2, 4, 4, 2})
        .Check(2e-3);
  }
}

TEST(ConvGradients, LocalResponseNormalization) {
  REQUIRE_OP("LRN");
  GradCheck("LRN", F32).Int("depth_radius", 2).X({1, 2, 2, 6}, {}, 0.1, 1.0).Check(5e-3, 1e-3);
}

TEST(ConvGradients, FusedBatchNormTraining) {
  REQUIRE_OP("FusedBatchNormV3");
  GradCheck("FusedBatchNormV3", F32)
      .Float("epsilon", 0.001f)
      .X({2, 3, 2, 3}, {}, -2, 2)
      .X({3}, {}, 0.5, 1.5)
      .X({3})
      .C(Tensor(F32, {0}, {}))
      .C(Tensor(F32, {0}, {}))
      .Check(1e-2, 1e-3);
}

}  // namespace
}  // namespace grt_test
