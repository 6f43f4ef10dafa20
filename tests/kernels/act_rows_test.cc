// Sigmoid and SiLU rows (backends/cpu/act_rows.c), in both forms (AVX-512
// where the CPU has it, and the portable one): against float64 over a
// sweep of float bit patterns (every sign, exponent and many mantissas),
// the special values, and every tail length of a 16-lane vector.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

extern "C" {
#include "backends/cpu/act_rows.h"
}

namespace {

double Want(grt_cpu_act act, float x) {
  double s = 1.0 / (1.0 + std::exp(-static_cast<double>(x)));
  return act == GRT_CPU_ACT_SWISH ? x * s : s;
}

// |got - want| in units of the last place of want rounded to float.
double UlpError(float got, double want) {
  float w = static_cast<float>(want);
  if (got == w) return 0;
  float a = std::fabs(w);
  double ulp = a == 0 ? std::numeric_limits<float>::denorm_min()
                      : std::nextafter(a, std::numeric_limits<float>::infinity()) - a;
  return std::fabs(got - want) / ulp;
}

float Bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

class ActRowsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { grt_cpu_act_force_portable(GetParam()); }
  void TearDown() override { grt_cpu_act_force_portable(false); }
};

TEST_P(ActRowsTest, AccurateOverFloatSweep) {
  for (grt_cpu_act act : {GRT_CPU_ACT_SIGMOID, GRT_CPU_ACT_SWISH}) {
    std::vector<float> xs;
    for (uint64_t b = 0; b < 0x100000000ull; b += 4099) {
      float x = Bits(static_cast<uint32_t>(b));
      if (std::isfinite(x)) xs.push_back(x);
    }
    std::vector<float> ys = xs;
    grt_cpu_act_row(act, ys.data(), static_cast<int64_t>(ys.size()));
    double worst = 0;
    float worst_x = 0;
    for (size_t i = 0; i < xs.size(); i++) {
      double want = Want(act, xs[i]);
      // Below x = -87.3 e^x is a denormal with few bits, and SiLU's x times
      // it carries that error: there only the absolute error is small.
      if (std::fabs(Want(GRT_CPU_ACT_SIGMOID, xs[i])) < std::numeric_limits<float>::min()) {
        EXPECT_LT(std::fabs(ys[i] - want), 1e-40) << xs[i];
        continue;
      }
      double e = UlpError(ys[i], want);
      if (e > worst) worst = e, worst_x = xs[i];
    }
    EXPECT_LE(worst, act == GRT_CPU_ACT_SWISH ? 4.0 : 3.0)
        << "act " << act << " at x = " << worst_x;
  }
}

TEST_P(ActRowsTest, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float s[] = {inf, -inf, nan, 0.0f, -0.0f, 100.0f, -100.0f, 1e-30f};
  grt_cpu_act_row(GRT_CPU_ACT_SIGMOID, s, 8);
  EXPECT_EQ(s[0], 1.0f);
  EXPECT_EQ(s[1], 0.0f);
  EXPECT_TRUE(std::isnan(s[2]));
  EXPECT_EQ(s[3], 0.5f);
  EXPECT_EQ(s[4], 0.5f);
  EXPECT_EQ(s[5], 1.0f);
  EXPECT_NEAR(s[6], std::exp(-100.0), 1e-45);
  EXPECT_EQ(s[7], 0.5f);
  float w[] = {inf, -inf, nan, 0.0f, -0.0f, 100.0f, -100.0f, 1e-30f};
  grt_cpu_act_row(GRT_CPU_ACT_SWISH, w, 8);
  EXPECT_EQ(w[0], inf);
  EXPECT_TRUE(std::isnan(w[1]));
  EXPECT_TRUE(std::isnan(w[2]));
  EXPECT_EQ(w[3], 0.0f);
  EXPECT_EQ(w[4], 0.0f);
  EXPECT_TRUE(std::signbit(w[4]));
  EXPECT_EQ(w[5], 100.0f);
  EXPECT_NEAR(w[6], -100.0 * std::exp(-100.0), 1e-40);
  EXPECT_EQ(w[7], 0.5e-30f);
}

// Every length up to three vectors: the masked tail writes its lanes and
// nothing past them.
TEST_P(ActRowsTest, TailsTouchOnlyTheRow) {
  for (int64_t n = 0; n <= 48; n++) {
    std::vector<float> buf(n + 16, 7.0f);
    for (int64_t i = 0; i < n; i++) buf[i] = 0.25f * static_cast<float>(i) - 3.0f;
    grt_cpu_act_row(GRT_CPU_ACT_SWISH, buf.data(), n);
    for (int64_t i = 0; i < n; i++) {
      float x = 0.25f * static_cast<float>(i) - 3.0f;
      EXPECT_LE(UlpError(buf[i], Want(GRT_CPU_ACT_SWISH, x)), 4.0) << "n " << n << " i " << i;
    }
    for (int64_t i = n; i < n + 16; i++) EXPECT_EQ(buf[i], 7.0f) << "n " << n << " i " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, ActRowsTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? std::string("portable") : std::string("widest");
                         });

}  // namespace
