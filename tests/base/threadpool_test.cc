// base/threadpool.h: workers start when work first needs them, never more
// than the pool's size, and idle workers sleep instead of spinning; a
// parallel_for is cut into pieces of about 8 ms of nominal work with a
// check of the caller's cancellation between them.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "base/cancel.h"
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

// The ranges a parallel_for hands out, and a cancel after the first.
struct Ranges {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> seen;
  int64_t* epoch = nullptr;  // bumped by the first call when set
};

void Record(void* arg, int64_t b, int64_t e) {
  Ranges* r = static_cast<Ranges*>(arg);
  std::lock_guard<std::mutex> lock(r->mu);
  r->seen.push_back({b, e});
  if (r->epoch) __atomic_add_fetch(r->epoch, 1, __ATOMIC_ACQ_REL);
}

// Each [b, e) once, covering [0, n); returns the longest.
int64_t Covered(Ranges& r, int64_t n) {
  std::sort(r.seen.begin(), r.seen.end());
  int64_t at = 0, longest = 0;
  for (auto& [b, e] : r.seen) {
    EXPECT_EQ(b, at);
    longest = std::max(longest, e - b);
    at = e;
  }
  EXPECT_EQ(at, n);
  return longest;
}

// 1000 units of 2^20 nominal ns (about a second): pieces of 8 units (2^23)
// whether run inline (no pool) or on a pool, when the caller has a token.
TEST(ThreadPool, ParallelForCutsLongWorkIntoPiecesOfAbout8ms) {
  int64_t epoch = 0;
  grt_cancel_token t;
  grt_cancel_token_init(&t, &epoch, 0);
  const grt_cancel_token* prev = grt_cancel_set_current(&t);
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(2, "t", &p), nullptr);
  for (grt_threadpool* pool : {(grt_threadpool*)nullptr, p}) {
    Ranges r;
    grt_parallel_for(pool, 1000, 1 << 20, Record, &r);
    EXPECT_LE(Covered(r, 1000), 8) << (pool ? "pool" : "inline");
  }
  // The coarse form keeps a few shards per thread: 12 for 2 workers.
  Ranges coarse;
  grt_parallel_for_coarse(p, 1000, 1 << 20, Record, &coarse);
  EXPECT_GE(Covered(coarse, 1000), 80);
  // Without a token, work run inline is one call.
  grt_cancel_set_current(nullptr);
  Ranges whole;
  grt_parallel_for(nullptr, 1000, 1 << 20, Record, &whole);
  EXPECT_EQ(whole.seen.size(), 1u);
  grt_threadpool_free(p);
  grt_cancel_set_current(prev);
}

// A run cancelled during the first piece gets no further piece, inline or
// on a pool (where the shards in flight finish).
TEST(ThreadPool, ParallelForStopsBetweenPiecesOnceCancelled) {
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(2, "t", &p), nullptr);
  for (grt_threadpool* pool : {(grt_threadpool*)nullptr, p}) {
    int64_t epoch = 0;
    grt_cancel_token t;
    grt_cancel_token_init(&t, &epoch, 0);
    const grt_cancel_token* prev = grt_cancel_set_current(&t);
    Ranges r;
    r.epoch = &epoch;
    grt_parallel_for(pool, 1000, 1 << 20, Record, &r);
    grt_cancel_set_current(prev);
    EXPECT_GE(r.seen.size(), 1u);
    EXPECT_LE(r.seen.size(), pool ? 3u : 1u) << (pool ? "pool" : "inline");
    EXPECT_EQ(grt_cancel_check(&t), GRT_CANCELLED);
  }
  grt_threadpool_free(p);
}

}  // namespace

// A team runner installed (grt_threadpool_set_team_runner; the CPU backend
// installs OpenMP's) runs the shards in place of the pool's workers: every
// unit once, on at most the pool's size of threads with the caller among
// them, no worker started, and a cancelled run stops between shards.
std::atomic<int> g_team_calls{0}, g_team_largest{0};

void ThreadTeam(void (*body)(void*), void* arg, int threads) {
  g_team_calls++;
  int seen = g_team_largest.load();
  while (threads > seen && !g_team_largest.compare_exchange_weak(seen, threads)) {
  }
  std::vector<std::thread> others;
  for (int i = 1; i < threads; i++) others.emplace_back(body, arg);
  body(arg);
  for (auto& t : others) t.join();
}

TEST(ThreadPool, ATeamRunnerRunsTheShardsInPlaceOfTheWorkers) {
  grt_threadpool* p = nullptr;
  ASSERT_EQ(grt_threadpool_new(3, "t", &p), nullptr);
  grt_threadpool_set_team_runner(ThreadTeam);
  Ranges r;
  grt_parallel_for(p, 1000, 1000000, Record, &r);
  Covered(r, 1000);
  EXPECT_EQ(g_team_calls, 1);
  EXPECT_EQ(g_team_largest, 3);
  EXPECT_EQ(grt_threadpool_started(p), 0);
  // Tiny work still runs inline, without the team.
  Ranges tiny;
  grt_parallel_for(p, 10, 1, Record, &tiny);
  EXPECT_EQ(tiny.seen.size(), 1u);
  EXPECT_EQ(g_team_calls, 1);
  // Cancelled during the first shard: the shards already claimed finish, no
  // more are handed out.
  int64_t epoch = 0;
  grt_cancel_token t;
  grt_cancel_token_init(&t, &epoch, 0);
  const grt_cancel_token* prev = grt_cancel_set_current(&t);
  Ranges cut;
  cut.epoch = &epoch;
  grt_parallel_for(p, 1000, 1 << 20, Record, &cut);
  grt_cancel_set_current(prev);
  EXPECT_GE(cut.seen.size(), 1u);
  EXPECT_LE(cut.seen.size(), 3u);
  grt_threadpool_set_team_runner(nullptr);
  // Uninstalled: the pool's workers again.
  Ranges back;
  grt_parallel_for(p, 1000, 1000000, Record, &back);
  Covered(back, 1000);
  EXPECT_EQ(g_team_calls, 2);
  EXPECT_GE(grt_threadpool_started(p), 1);
  grt_threadpool_free(p);
}
