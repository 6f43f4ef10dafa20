// backends/cpu/address_space.h: while one thread holds the address space still,
// grt's calls that take new address space on other threads (large blocks,
// mapped pages, a thread's first allocation, thread creation) wait for the
// release; small blocks from an existing arena and the holder's own calls
// do not.
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <functional>
#include <thread>

#include "backends/cpu/address_space.h"
#include "base/mem.h"
#include "base/threadpool.h"
#include "gtest/gtest.h"

namespace {

void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, nullptr);
}

// Waits up to `ms` for `flag`; true when it was set.
bool wait_for(const std::atomic<bool>& flag, int ms) {
  for (int i = 0; i < ms && !flag.load(); i++) sleep_ms(1);
  return flag.load();
}

// Runs `work` on a new thread while this one holds the address space;
// true when it finished within `ms` (it should not when it waits for the
// release). With `arena_first` the thread makes its first allocation before
// the hold, so only what `work` does can make it wait.
bool finishes_while_held(const std::function<void()>& work, bool arena_first, int ms) {
  std::atomic<bool> ready{false}, go{false}, done{false};
  std::thread t([&] {
    if (arena_first) grt_free(grt_malloc(16));
    ready = true;
    while (!go.load()) sleep_ms(1);
    work();
    done = true;
  });
  EXPECT_TRUE(wait_for(ready, 10000));
  grt_address_space_hold();
  go = true;
  bool early = wait_for(done, ms);
  grt_address_space_release();
  t.join();
  EXPECT_TRUE(done.load());
  return early;
}

constexpr int kWaits = 200;     // ms a waiting call is watched
constexpr int kPasses = 10000;  // ms a call that must not wait gets, on a loaded machine

TEST(AddressSpace, LargeBlockWaitsForRelease) {
  EXPECT_FALSE(finishes_while_held(
      [] {
        void* p = grt_malloc(4 << 20);
        EXPECT_NE(p, nullptr);
        grt_free(p);
      },
      true, kWaits));
}

TEST(AddressSpace, MappedPagesWaitForRelease) {
  EXPECT_FALSE(finishes_while_held(
      [] {
        void* p = grt_map_pages(1 << 20);
        EXPECT_NE(p, nullptr);
        grt_unmap_pages(p, 1 << 20);
      },
      true, kWaits));
}

TEST(AddressSpace, FirstAllocationOnAThreadWaits) {
  // Even a free() reserves glibc's arena for a new thread.
  void* p = grt_malloc(16);
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(finishes_while_held([p] { grt_free(p); }, false, kWaits));
  EXPECT_FALSE(finishes_while_held([] { grt_free(grt_malloc(16)); }, false, kWaits));
  void* a = nullptr;
  ASSERT_EQ(grt_posix_memalign(&a, 64, 256), 0);
  EXPECT_FALSE(finishes_while_held([a] { grt_posix_memalign_free(a); }, false, kWaits));
}

TEST(AddressSpace, ThreadCreationWaits) {
  EXPECT_FALSE(finishes_while_held(
      [] {
        grt_threadpool* pool = nullptr;
        EXPECT_EQ(grt_threadpool_new(1, "t", &pool), nullptr);
        // Workers start with the first task, not with the pool.
        EXPECT_TRUE(grt_threadpool_schedule(
            pool, [](void*) {}, nullptr));
        grt_threadpool_free(pool);
      },
      true, kWaits));
}

TEST(AddressSpace, SmallBlockOnAThreadWithAnArenaDoesNotWait) {
  EXPECT_TRUE(finishes_while_held(
      [] {
        void* p = grt_malloc(64);
        EXPECT_NE(p, nullptr);
        grt_free(p);
      },
      true, kPasses));
}

TEST(AddressSpace, TheHoldersOwnCallsPass) {
  std::atomic<bool> done{false};
  std::thread t([&] {
    grt_address_space_hold();
    void* big = grt_malloc(4 << 20);
    void* pages = grt_map_pages(1 << 20);
    EXPECT_NE(big, nullptr);
    EXPECT_NE(pages, nullptr);
    grt_free(big);
    grt_unmap_pages(pages, 1 << 20);
    grt_address_space_release();
    done = true;
  });
  if (!wait_for(done, kPasses)) {
    t.detach();  // stuck on its own hold: report it rather than hang
    FAIL() << "the holder waited for itself";
  }
  t.join();
}

}  // namespace
