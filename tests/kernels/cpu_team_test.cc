// backends/cpu/cpu_team.c: with the CPU backend loaded, grt_parallel_for
// runs its shards on the calling thread's OpenMP team (the threads oneDNN's
// primitives run on), sized as a oneDNN call's team is.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <mutex>
#include <set>

extern "C" {
#include "backends/cpu/dnnl_util.h"
#include "base/threadpool.h"
}

namespace {

struct Seen {
  std::mutex mu;
  std::set<int> threads;  // omp_get_thread_num() of each shard
  int64_t units = 0;
  int outside = 0;  // shards run outside any parallel region
};

void Note(void* arg, int64_t b, int64_t e) {
  Seen* s = static_cast<Seen*>(arg);
  std::lock_guard<std::mutex> lock(s->mu);
  s->threads.insert(omp_get_thread_num());
  s->units += e - b;
  if (!omp_in_parallel()) s->outside++;
}

grt_threadpool* Pool(int n) {
  grt_threadpool* p = nullptr;
  EXPECT_EQ(grt_threadpool_new(n, "intra", &p), nullptr);
  return p;
}

TEST(CpuTeam, LoopsRunOnTheOpenMpTeam) {
  grt_threadpool* p = Pool(2);
  Seen s;
  grt_parallel_for(p, 1000, 1000000, Note, &s);  // about a second of nominal work
  EXPECT_EQ(s.units, 1000);
  EXPECT_EQ(s.outside, 0);
  // A team of two, the caller its member 0; the pool's own workers stay unstarted.
  for (int t : s.threads) EXPECT_TRUE(t == 0 || t == 1) << t;
  EXPECT_EQ(grt_threadpool_started(p), 0);
  grt_threadpool_free(p);
}

TEST(CpuTeam, ALoopInsideARegionRunsOnItsOwnThread) {
  grt_threadpool* p = Pool(2);
  std::atomic<int64_t> units{0};
  std::atomic<int> bad{0};
#pragma omp parallel num_threads(2)
  {
    Seen s;
    grt_parallel_for(p, 1000, 1000000, Note, &s);
    units += s.units;
    // Run by this member alone: one thread number, its own.
    if (s.threads.size() != 1 || *s.threads.begin() != omp_get_thread_num()) bad++;
  }
  EXPECT_EQ(units, 2000);
  EXPECT_EQ(bad, 0);
  grt_threadpool_free(p);
}

// While another execution holds its share of the budget (a oneDNN call on
// another executor thread), a loop gets the rest: here one thread, so it
// runs on the caller outside any region.
TEST(CpuTeam, TheBudgetIsSharedWithExecutionsInProgress) {
  grt_threadpool* p = Pool(2);
  EXPECT_EQ(grt_dnnl_team_enter(2), 2);
  Seen s;
  grt_parallel_for(p, 1000, 1000000, Note, &s);
  grt_dnnl_team_leave();
  EXPECT_EQ(s.units, 1000);
  EXPECT_EQ(s.threads, std::set<int>{0});
  EXPECT_GT(s.outside, 0);
  grt_threadpool_free(p);
}

}  // namespace
