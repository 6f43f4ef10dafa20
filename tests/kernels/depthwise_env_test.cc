// GRT_CPU_DEPTHWISE, the switch with which a whole model runs grt's own
// depthwise kernel or oneDNN's (backends/cpu/conv_depthwise.h): this
// process starts with GRT_CPU_DEPTHWISE=own (BUILD), so before any
// grt_cpu_dw_set_kernel the rule gives grt's kernel what it can run, and
// a grt_cpu_dw_set_kernel afterwards still wins. Without the variable's
// reading, the default rule (oneDNN for every shape) fails the first
// expectation.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

extern "C" {
#include "backends/cpu/conv_depthwise.h"
}

namespace {

grt_cpu_conv Geom(bool nchw) {
  grt_cpu_conv g = {};
  g.w.nchw = nchw;
  g.w.strides[0] = g.w.strides[1] = 1;
  g.w.dilations[0] = g.w.dilations[1] = 1;
  g.n = 1;
  g.ih = g.iw = 14;
  g.ic = g.oc = g.groups = 32;
  g.kh = g.kw = 3;
  g.oh = g.ow = 12;
  return g;
}

TEST(DepthwiseEnv, OwnFromTheEnvironmentThenSetKernelWins) {
  const char* env = std::getenv("GRT_CPU_DEPTHWISE");
  ASSERT_NE(env, nullptr) << "BUILD sets GRT_CPU_DEPTHWISE=own";
  ASSERT_EQ(std::string(env), "own");
  grt_cpu_conv nhwc = Geom(false), nchw = Geom(true);
  EXPECT_TRUE(grt_cpu_dw_takes(&nhwc, GRT_DW_ACT_SWISH)) << "the variable asks for grt's kernel";
  EXPECT_FALSE(grt_cpu_dw_takes(&nchw, GRT_DW_ACT_SWISH)) << "NCHW stays on oneDNN";
  EXPECT_FALSE(grt_cpu_dw_takes(&nhwc, GRT_DW_ACT_OTHER)) << "Elu stays on oneDNN";
  grt_cpu_dw_set_kernel(GRT_DW_KERNEL_RULE);
  EXPECT_FALSE(grt_cpu_dw_takes(&nhwc, GRT_DW_ACT_SWISH)) << "the rule: oneDNN";
  grt_cpu_dw_set_kernel(GRT_DW_KERNEL_OWN);
  EXPECT_TRUE(grt_cpu_dw_takes(&nhwc, GRT_DW_ACT_SWISH));
  grt_cpu_dw_set_kernel(GRT_DW_KERNEL_RULE);
}

}  // namespace
