// The CUDA random kernels' Philox (backends/cuda/philox.cuh, compiled here
// as plain C++) gives the CPU kernels' streams: the same blocks after any
// skip, including counter carries, and the same samples. This checks the
// arithmetic on a host; the device build of the same code is UNVERIFIED.
#include <gtest/gtest.h>

#include <random>

#include "backends/cuda/philox.cuh"

extern "C" {
#include "backends/cpu/random_philox.h"
}

namespace {

using grt_philox_hd::Philox;

TEST(CudaPhilox, SameBlocksAsTheCpuAfterAnySkip) {
  std::mt19937_64 rng(7);
  const uint64_t skips[] = {0,
                            1,
                            3,
                            255,
                            256,
                            0xffffffffull,
                            0x100000000ull,
                            0xfffffffffffffffeull,
                            0xffffffffffffffffull};
  for (int t = 0; t < 200; t++) {
    uint64_t seed = rng(), seed2 = rng();
    if (t == 0) seed = seed2 = 0;
    grt_philox cpu;
    grt_philox_init(&cpu, seed, seed2);
    Philox gpu = grt_philox_hd::Make(seed, seed2);
    // Counters near their carries.
    if (t % 3 == 1) {
      cpu.counter[0] = gpu.counter[0] = 0xfffffffeu;
      cpu.counter[1] = gpu.counter[1] = 0xffffffffu;
    }
    for (uint64_t skip : skips) {
      grt_philox c = cpu;
      Philox g = gpu;
      grt_philox_skip(&c, skip);
      grt_philox_hd::Skip(&g, skip);
      for (int k = 0; k < 3; k++) {
        uint32_t a[4], b[4];
        grt_philox_next(&c, a);
        grt_philox_hd::Next(&g, b);
        for (int i = 0; i < 4; i++) ASSERT_EQ(a[i], b[i]) << "seed " << seed << " skip " << skip;
      }
      for (int i = 0; i < 4; i++) ASSERT_EQ(c.counter[i], g.counter[i]);
    }
  }
}

TEST(CudaPhilox, SameSamplesAsTheCpu) {
  std::mt19937 rng(11);
  for (int t = 0; t < 100000; t++) {
    uint32_t x0 = rng(), x1 = rng(), x2 = rng(), x3 = rng();
    if (t == 0) x0 = 0;  // u1 clamped to epsilon
    ASSERT_EQ(grt_philox_uint32_to_float(x0), grt_philox_hd::ToFloat(x0));
    ASSERT_EQ(grt_philox_uint64_to_double(x0, x1), grt_philox_hd::ToDouble(x0, x1));
    float a0, a1, b0, b1;
    grt_philox_box_muller_float(x0, x1, &a0, &a1);
    grt_philox_hd::BoxMullerFloat(x0, x1, &b0, &b1);
    ASSERT_EQ(a0, b0) << t;
    ASSERT_EQ(a1, b1) << t;
    double c0, c1, d0, d1;
    grt_philox_box_muller_double(x0, x1, x2, x3, &c0, &c1);
    grt_philox_hd::BoxMullerDouble(x0, x1, x2, x3, &d0, &d1);
    ASSERT_EQ(c0, d0) << t;
    ASSERT_EQ(c1, d1) << t;
  }
}

}  // namespace
