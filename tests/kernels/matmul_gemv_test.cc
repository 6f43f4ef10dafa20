// MatMul of one row (m 1: backends/cpu/matmul_gemv.c) against a float64
// product: b as it is ([k, n]) and transposed ([n, k]), a transposed or
// not, sizes with tails under every vector width, inline and over a pool
// (the [k, n] form's parts' sums), in each vector width the CPU runs.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"

extern "C" {
#include "backends/cpu/matmul_dnnl.h"
#include "backends/cpu/matmul_gemv.h"
}

namespace grt_test {
namespace {

std::vector<double> Uniform(int64_t n, uint32_t seed) {
  std::vector<double> v(n);
  for (double& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<double>(seed >> 8) / 8388608.0 - 1.0;  // [-1, 1)
  }
  return v;
}

void CheckRow(int64_t k, int64_t n, bool ta, bool tb, grt_threadpool* pool) {
  // Float32 inputs: the reference multiplies the values the kernel reads.
  std::vector<double> a = Uniform(k, 7), b = Uniform(k * n, 11);
  for (double& x : a) x = static_cast<float>(x);
  for (double& x : b) x = static_cast<float>(x);
  FeedRun r("MatMul");
  r.AttrType("T", GRT_FLOAT32).AttrBool("transpose_a", ta).AttrBool("transpose_b", tb);
  r.Input(MakeTensor(GRT_FLOAT32, ta ? std::vector<int64_t>{k, 1} : std::vector<int64_t>{1, k}, a));
  r.Input(MakeTensor(GRT_FLOAT32, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, b));
  ASSERT_OK(r.Run(pool));
  std::vector<double> want(n, 0.0);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < k; i++) want[j] += a[i] * b[tb ? j * k + i : i * n + j];
  SCOPED_TRACE("1x" + std::to_string(k) + "x" + std::to_string(n) + " ta=" + std::to_string(ta) +
               " tb=" + std::to_string(tb) + (pool ? " pool" : " inline"));
  // Float32 sums of k terms of magnitude under 1, in the kernel's order:
  // within a few k ulps (an error in one term is of the order of the term).
  ExpectNear(r.Output(0), {1, n}, want, 2e-7 * static_cast<double>(k));
}

TEST(MatMulGemv, OneRowMatchesFloat64InEveryWidth) {
  // Each at least 2^17 multiply-adds (the table's bound), with k and n
  // tails under 16, 8 and 4; from 600 x 700 on over a thread's share
  // (grt_dnnl_team): with the pool they run in parts.
  const int64_t sizes[][2] = {{13, 10091}, {2053, 67}, {300, 437},  {131075, 1},
                              {1, 131075}, {600, 700}, {1281, 1000}};
  for (const auto& s : sizes)
    ASSERT_TRUE(grt_matmul_pick_gemv(1, s[0], s[1])) << s[0] << "x" << s[1];
  int ran = 0;
  for (int width : {16, 8, 4}) {
    if (grt_mm_gemv_force_width(width) != 0) continue;  // not on this CPU
    ran++;
    SCOPED_TRACE("width " + std::to_string(width));
    for (const auto& s : sizes)
      for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
          for (grt_threadpool* pool : {static_cast<grt_threadpool*>(nullptr), TestPool()})
            CheckRow(s[0], s[1], ta, tb, pool);
  }
  ASSERT_EQ(grt_mm_gemv_force_width(0), 0);
  EXPECT_GE(ran, 1);  // 4 floats runs everywhere
  EXPECT_EQ(grt_mm_gemv_force_width(5), -1) << "no such copy";
}

// The table gives the kernel one row of at least 2^17 multiply-adds (below,
// OpenBLAS's GEMV), and nothing while a library is forced
// (bench/exec_bench libs).
TEST(MatMulGemv, PickedForOneLargeRowOnly) {
  EXPECT_TRUE(grt_matmul_pick_gemv(1, 1280, 1000));
  EXPECT_TRUE(grt_matmul_pick_gemv(1, 512, 256));  // 2^17
  EXPECT_FALSE(grt_matmul_pick_gemv(1, 511, 256));
  EXPECT_TRUE(grt_matmul_pick_gemv(1, INT64_C(1) << 40, INT64_C(1) << 40));  // no overflow
  EXPECT_FALSE(grt_matmul_pick_gemv(2, 1280, 1000));
  EXPECT_FALSE(grt_matmul_pick_gemv(1, 0, 1000));  // zeros: the GEMM path writes them
  EXPECT_FALSE(grt_matmul_pick_gemv(1, 1280, 0));
  grt_matmul_set_library(GRT_MM_LIBRARY_DNNL_MATMUL);
  EXPECT_FALSE(grt_matmul_pick_gemv(1, 1280, 1000));
  grt_matmul_set_library(GRT_MM_LIBRARY_TABLE);
}

}  // namespace
}  // namespace grt_test
