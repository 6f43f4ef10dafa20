// base/mem.h's space hooks: the calls that may take new address space in
// one piece (large blocks, mapped pages, a thread's first allocation, a
// pool thread's start) are bracketed, begin and end paired on the same
// thread; small blocks on a thread that has its arena are not; without
// hooks nothing is called.
#include <atomic>
#include <thread>

#include "base/mem.h"
#include "base/threadpool.h"
#include "gtest/gtest.h"

namespace {

std::atomic<int> g_begins{0}, g_ends{0};
thread_local int t_open = 0;  // brackets open on this thread
std::atomic<bool> g_nested{false};

void Begin() {
  if (t_open++ != 0) g_nested = true;
  g_begins++;
}

void End() {
  if (--t_open != 0) g_nested = true;
  g_ends++;
}

const grt_mem_space_hooks kCounting = {Begin, End};

// Brackets opened by `work` on this thread, with the counting hooks.
int Brackets(void (*work)()) {
  grt_free(grt_malloc(16));  // this thread has its arena
  grt_mem_set_space_hooks(&kCounting);
  int before = g_begins.load();
  work();
  grt_mem_set_space_hooks(nullptr);
  EXPECT_EQ(g_begins.load(), g_ends.load());
  EXPECT_FALSE(g_nested.load());
  return g_begins.load() - before;
}

TEST(SpaceHooks, LargeBlocksAndPagesAreBracketed) {
  EXPECT_EQ(Brackets([] { grt_free(grt_malloc(1 << 20)); }), 1);
  EXPECT_EQ(Brackets([] { grt_free(grt_calloc(1, 1 << 20)); }), 1);
  EXPECT_EQ(Brackets([] { grt_unmap_pages(grt_map_pages(1 << 20), 1 << 20); }), 1);
}

TEST(SpaceHooks, SmallBlocksOnAThreadWithAnArenaAreNot) {
  EXPECT_EQ(Brackets([] {
              for (int i = 0; i < 100; i++) grt_free(grt_malloc(64));
            }),
            0);
}

TEST(SpaceHooks, AThreadsFirstAllocationAndAPoolsThreadsAre) {
  EXPECT_EQ(Brackets([] {
              std::thread t([] { grt_free(grt_malloc(16)); });
              t.join();
            }),
            1);
  // Each of the pool's threads is started inside a bracket (its stack);
  // a pool thread's own first allocations may add more. Workers start on
  // demand, so three tasks that wait for each other make the pool start
  // all three.
  EXPECT_GE(Brackets([] {
              grt_threadpool* pool = nullptr;
              EXPECT_EQ(grt_threadpool_new(3, "hooks", &pool), nullptr);
              static std::atomic<int> arrived;
              arrived = 0;
              for (int i = 0; i < 3; i++)
                EXPECT_TRUE(grt_threadpool_schedule(
                    pool,
                    [](void*) {
                      arrived++;
                      while (arrived.load() < 3) std::this_thread::yield();
                    },
                    nullptr));
              grt_threadpool_free(pool);
              EXPECT_EQ(arrived.load(), 3);
            }),
            3);
}

TEST(SpaceHooks, WithoutHooksNothingIsCalled) {
  grt_mem_set_space_hooks(nullptr);
  int before = g_begins.load();
  grt_free(grt_malloc(1 << 20));
  std::thread t([] { grt_free(grt_malloc(16)); });
  t.join();
  EXPECT_EQ(g_begins.load(), before);
}

}  // namespace
