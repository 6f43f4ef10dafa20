// base/threadpool.h: workers start when work first needs them, never more
// than the pool's size, and idle workers sleep instead of spinning.
#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <string>
#include <thread>

extern "C" {
#include "base/threadpool.h"
}

namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Gate {
  std::atomic<int> arrived{0};
  std::atomic<bool> open{false};
};

void WaitAtGate(void* arg) {
  Gate* g = static_cast<Gate*>(arg);
  g->arrived++;
  while (!g->open) std::this_thread::yield();
}

TEST(ThreadPool, MakingAPoolStartsNoThread) {
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(8, "t", &p), nullptr);
  EXPECT_EQ(grt_threadpool_size(p), 8);
  EXPECT_EQ(grt_threadpool_started(p), 0);
  grt_threadpool_free(p);
}

// The size is capped at 1024 threads: 1024 is a pool (its workers start
// only when needed, so this starts none), 1025 an error naming the count.
TEST(ThreadPool, SizeUpTo1024) {
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(1024, "t", &p), nullptr);
  EXPECT_EQ(grt_threadpool_size(p), 1024);
  grt_threadpool_free(p);
  grt_status* s = grt_threadpool_new(1025, "t", &p);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(grt_status_message(s)).find("1025 threads"), std::string::npos);
  EXPECT_EQ(p, nullptr);
  grt_status_free(s);
}

TEST(ThreadPool, TasksThatRunTogetherStartOneWorkerEachUpToTheSize) {
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(3, "t", &p), nullptr);
  Gate g;
  // Three tasks that hold their workers: three workers, all running at once.
  for (int i = 0; i < 3; i++) ASSERT_TRUE(grt_threadpool_schedule(p, WaitAtGate, &g));
  while (g.arrived < 3) std::this_thread::yield();
  EXPECT_EQ(grt_threadpool_started(p), 3);
  // A fourth waits in the queue: the pool never grows past its size.
  ASSERT_TRUE(grt_threadpool_schedule(p, WaitAtGate, &g));
  EXPECT_EQ(grt_threadpool_started(p), 3);
  g.open = true;
  grt_threadpool_free(p);  // finishes the queued task, joins the workers
  EXPECT_EQ(g.arrived, 4);
}

TEST(ThreadPool, OneTaskAtATimeReusesTheIdleWorker) {
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(4, "t", &p), nullptr);
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; i++) {
    ASSERT_TRUE(grt_threadpool_schedule(
        p, [](void* a) { (*static_cast<std::atomic<int>*>(a))++; }, &ran));
    while (ran <= i) std::this_thread::yield();
    // The worker may still be between its task and its wait: let it sleep.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(grt_threadpool_started(p), 1);
  grt_threadpool_free(p);
}

TEST(ThreadPool, IdleWorkersDoNotSpin) {
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(4, "t", &p), nullptr);
  Gate g;
  for (int i = 0; i < 4; i++) ASSERT_TRUE(grt_threadpool_schedule(p, WaitAtGate, &g));
  while (g.arrived < 4) std::this_thread::yield();
  g.open = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // all back to idle
  ASSERT_EQ(grt_threadpool_started(p), 4);
  double cpu0 = CpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Four spinning workers would burn up to 0.8 s of CPU here.
  EXPECT_LT(CpuSeconds() - cpu0, 0.02);
  grt_threadpool_free(p);
}

TEST(ThreadPool, ParallelForStartsWorkersOnlyForWorkWorthSplitting) {
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(2, "t", &p), nullptr);
  std::atomic<int64_t> sum{0};
  auto add = [](void* ctx, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) *static_cast<std::atomic<int64_t>*>(ctx) += i;
  };
  grt_parallel_for(p, 100, 1, add, &sum);  // tiny: inline
  EXPECT_EQ(sum, 4950);
  EXPECT_EQ(grt_threadpool_started(p), 0);
  sum = 0;
  grt_parallel_for(p, 1000, 1000000, add, &sum);  // a second of nominal work: split
  EXPECT_EQ(sum, 499500);
  EXPECT_GE(grt_threadpool_started(p), 1);
  EXPECT_LE(grt_threadpool_started(p), 2);
  grt_threadpool_free(p);
}

}  // namespace
