// Large GEMMs split into row blocks over the intra-op pool, one
// single-threaded BLAS call per block (OpenBLAS: backends/cpu/blas_buffers.h;
// oneDNN's sgemm for float32 where matmul_select.c's table says so), give
// what a float64 loop gives, for every transpose, block remainder and batch
// layout.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

extern "C" {
#include "base/threadpool.h"
#include "backends/cpu/matmul_dnnl.h"
#include "backends/cpu/matmul_gemm.h"
}

namespace {

template <typename T>
void Check(grt_dtype dt, int64_t m, int64_t n, int64_t k, bool ta, bool tb, int64_t batch,
           grt_threadpool* pool) {
  std::mt19937 rng(static_cast<unsigned>(m * 7 + n * 3 + k + ta * 2 + tb + batch * 11));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> a(batch * m * k), b(k * n), c(batch * m * n, T(-7));
  for (auto& x : a) x = static_cast<T>(u(rng));
  for (auto& x : b) x = static_cast<T>(u(rng));
  grt_gemm_plan p = {};
  p.m = m, p.n = n, p.k = k, p.ta = ta, p.tb = tb, p.batch = batch;
  p.brank = batch > 1 ? 1 : 0;
  p.bdims[0] = batch;
  p.xstride[0] = 1;
  p.ystride[0] = 0;  // B shared by every batch
  grt_status* s = grt_gemm_run(&p, dt, a.data(), b.data(), c.data(), pool);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  for (int64_t e = 0; e < batch; e++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double want = 0;
        for (int64_t q = 0; q < k; q++) {
          double av = a[e * m * k + (ta ? q * m + i : i * k + q)];
          double bv = b[tb ? j * k + q : q * n + j];
          want += av * bv;
        }
        double got = c[e * m * n + i * n + j];
        ASSERT_NEAR(got, want, 1e-4 * std::sqrt(double(k)) + 1e-9)
            << "m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb
            << " batch=" << batch << " at " << e << "," << i << "," << j;
      }
}

TEST(GemmBlocks, SplitGemmsMatchFloat64Loops) {
  grt_threadpool* pool = nullptr;
  ASSERT_EQ(grt_threadpool_new(3, "gemm-test", &pool), nullptr);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Check<float>(GRT_FLOAT32, 203, 67, 91, ta, tb, 1, pool);   // 2 blocks, a short last one
      Check<double>(GRT_FLOAT64, 150, 80, 70, ta, tb, 1, pool);  // one: a team of one
      Check<double>(GRT_FLOAT64, 300, 80, 70, ta, tb, 1, pool);  // 3 blocks, a short last one
      Check<float>(GRT_FLOAT32, 40, 33, 200, ta, tb, 1, pool);   // 3 blocks of 16 rows
      Check<float>(GRT_FLOAT32, 17, 5, 3, ta, tb, 1, pool);      // small: one call
    }
  Check<float>(GRT_FLOAT32, 70, 50, 60, false, false, 3, pool);     // batched as one tall GEMM
  Check<float>(GRT_FLOAT32, 70, 50, 60, true, false, 3, pool);      // batched, one by one
  Check<float>(GRT_FLOAT32, 203, 67, 91, false, true, 1, nullptr);  // no pool
  grt_threadpool_free(pool);
}

// The same shapes with float32 on oneDNN's sgemm (the benchmark's switch,
// matmul_dnnl.h: the table's OpenBLAS rows go to dnnl_sgemm), which the
// table itself never picks.
TEST(GemmBlocks, DnnlSgemmBlocksMatchFloat64Loops) {
  grt_threadpool* pool = nullptr;
  ASSERT_EQ(grt_threadpool_new(3, "gemm-test", &pool), nullptr);
  EXPECT_FALSE(grt_matmul_pick_sgemm(203, 91, 67));
  EXPECT_FALSE(grt_matmul_pick_sgemm(1030, 512, 512));
  grt_matmul_set_library(GRT_MM_LIBRARY_DNNL_ONLY);
  EXPECT_TRUE(grt_matmul_pick_sgemm(203, 91, 67));
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Check<float>(GRT_FLOAT32, 203, 67, 91, ta, tb, 1, pool);
      Check<float>(GRT_FLOAT32, 40, 33, 200, ta, tb, 1, pool);
      Check<float>(GRT_FLOAT32, 1, 5, 300, ta, tb, 1, pool);  // a single row
    }
  Check<float>(GRT_FLOAT32, 70, 50, 60, true, false, 3, pool);
  Check<float>(GRT_FLOAT32, 1030, 64, 48, false, true, 1, pool);  // 3 blocks, a short last one
  grt_matmul_set_library(GRT_MM_LIBRARY_TABLE);
  EXPECT_FALSE(grt_matmul_pick_sgemm(203, 91, 67));
  grt_threadpool_free(pool);
}

// matmul_select.c: a transposed left operand with fewer than 16 result
// columns goes to OpenBLAS whatever its size (matmul_test checks the values).
TEST(GemmBlocks, NarrowTransposedProductsPickOpenBlas) {
  EXPECT_FALSE(grt_matmul_pick_dnnl(256, 256, 10, true));
  EXPECT_TRUE(grt_matmul_pick_dnnl(256, 256, 10, false));
  EXPECT_TRUE(grt_matmul_pick_dnnl(256, 256, 16, true));
  EXPECT_FALSE(grt_matmul_pick_dnnl_if_packed(4096, 4096, 15, true));
  EXPECT_TRUE(grt_matmul_pick_dnnl_if_packed(4096, 4096, 16, true));
}

}  // namespace
