// Gradients of grouped Conv2D and of the 3-D convolution and pools
// (ops/grad_conv.c: Conv2DBackpropInput/Filter with groups,
// Conv3DBackpropInputV2/FilterV2, MaxPool3DGrad, AvgPool3DGrad) against
// central differences in float32, as conv_gradients_test.cc checks the 2-D
// family (a target of its own, so each stays well inside the small tests'
// time limit under ASan).
#include <vector>

#include "tests/training/grad_check.h"

namespace grt_test {
namespace {

const grt_dtype F32 = GRT_FLOAT32;

// A grouped Conv2D (the input's depth a multiple of the filter's), as
// ResNeXt and RegNet train: two and three groups, both formats, strided
// and dilated.
TEST(ConvGradients, GroupedConv2D) {
  GradCheck("Conv2D", F32)
      .Ints("strides", {1, 1, 2, 1})
      .String("padding", "SAME")
      .X({1, 4, 5, 4})
      .X({3, 2, 2, 6})
      .Check(2e-3);
  GradCheck("Conv2D", F32)
      .Ints("strides", {1, 1, 1, 1})
      .Ints("dilations", {1, 1, 2, 1})
      .String("padding", "VALID")
      .String("data_format", "NCHW")
      .X({1, 6, 3, 4})
      .X({2, 2, 2, 3})
      .Check(2e-3);
}

// Conv3D (plain and grouped, both formats, SAME and VALID, strided and
// dilated) and the 3-D pools: Conv3DBackpropInputV2/FilterV2,
// MaxPool3DGrad, AvgPool3DGrad.
TEST(ConvGradients, Conv3DAndPool3D) {
  // Small: every input element costs two runs.
  GradCheck("Conv3D", F32)
      .Ints("strides", {1, 1, 2, 1, 1})
      .String("padding", "SAME")
      .X({1, 3, 3, 2, 2})
      .X({2, 2, 1, 2, 2})
      .Check(2e-3);
  GradCheck("Conv3D", F32)
      .Ints("strides", {1, 1, 1, 1, 2})
      .Ints("dilations", {1, 1, 2, 1, 1})
      .String("padding", "VALID")
      .String("data_format", "NCDHW")
      .X({1, 4, 3, 2, 3})
      .X({2, 1, 2, 2, 2})  // two groups
      .Check(2e-3);
  std::vector<double> v;  // distinct values spread apart: the maxima stay put
  for (int i = 0; i < 3 * 4 * 3 * 2; i++) v.push_back(((i * 37) % 72) * 0.1 - 3.6);
  GradCheck("MaxPool3D", F32)
      .Ints("ksize", {1, 2, 2, 1, 1})
      .Ints("strides", {1, 1, 2, 2, 1})
      .String("padding", "SAME")
      .X({1, 3, 4, 3, 2}, v)
      .Check(2e-3);
  GradCheck("AvgPool3D", F32)
      .Ints("ksize", {1, 1, 2, 2, 2})
      .Ints("strides", {1, 1, 1, 2, 1})
      .String("padding", "VALID")
      .String("data_format", "NCDHW")
      .X({1, 2, 3, 4, 3})
      .Check(2e-3);
}

}  // namespace
}  // namespace grt_test
