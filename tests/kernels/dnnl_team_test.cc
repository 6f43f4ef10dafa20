// The team a oneDNN call runs on (backends/cpu/dnnl_util.h): one thread per
// GRT_DNNL_MACS_PER_THREAD multiply-adds, at least one, at most the
// intra-op budget. The seeds' MLP at batch 1 (1 x 784 x 256) must run
// alone: with a team of two it paid a sleeping worker's wake-up on every
// call and ran ~1.6x slower on the 2-vCPU host.
#include <gtest/gtest.h>

#include "backends/cpu/dnnl_util.h"
#include "backends/cpu/matmul_dnnl.h"
#include "base/threadpool.h"

namespace {

TEST(DnnlTeam, SmallProductsRunAloneLargeOnesOnTheBudget) {
  grt_threadpool* pool = nullptr;
  ASSERT_EQ(grt_threadpool_new(2, "team-test", &pool), nullptr);
  grt_kernel_ctx ctx = {};
  ctx.intra_op = pool;
  EXPECT_EQ(grt_dnnl_team(&ctx, 1.0 * 784 * 256), 1);  // MLP layer, batch 1
  EXPECT_EQ(grt_dnnl_team(&ctx, 0), 1);
  EXPECT_EQ(grt_dnnl_team(&ctx, GRT_DNNL_MACS_PER_THREAD - 1.0), 1);
  EXPECT_EQ(grt_dnnl_team(&ctx, 2.0 * GRT_DNNL_MACS_PER_THREAD), 2);
  EXPECT_EQ(grt_dnnl_team(&ctx, 256.0 * 784 * 256), 2);  // batch 256: the budget
  EXPECT_EQ(grt_dnnl_team(&ctx, 1e18), 2);
  grt_threadpool_free(pool);
}

// A product of a few rows streams its weights: its work counts 4 per
// multiply-add, so resnet18's classifier at batch 1 (1 x 512 x 1000, 2 MB
// of weights) gets the budget while the seeds' MLP layers at batch 1 stay
// alone.
TEST(DnnlTeam, FewRowProductsCountTheirWeightStream) {
  grt_threadpool* pool = nullptr;
  ASSERT_EQ(grt_threadpool_new(2, "team-test", &pool), nullptr);
  grt_kernel_ctx ctx = {};
  ctx.intra_op = pool;
  EXPECT_EQ(grt_dnnl_team(&ctx, grt_mm_team_work(1, 512, 1000)), 2);
  EXPECT_EQ(grt_dnnl_team(&ctx, grt_mm_team_work(1, 784, 256)), 1);
  EXPECT_EQ(grt_dnnl_team(&ctx, grt_mm_team_work(1, 256, 256)), 1);
  EXPECT_EQ(grt_mm_team_work(4, 100, 100), 4.0 * 4 * 100 * 100);
  EXPECT_EQ(grt_mm_team_work(5, 100, 100), 5.0 * 100 * 100);
  EXPECT_EQ(grt_dnnl_team(&ctx, grt_mm_team_work(5, 512, 100)), 1);  // counted once
  grt_threadpool_free(pool);
}

TEST(DnnlTeam, NoPoolMeansOneThread) {
  grt_kernel_ctx ctx = {};
  EXPECT_EQ(grt_dnnl_team(&ctx, 1e12), 1);
}

}  // namespace
