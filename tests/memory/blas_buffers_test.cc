// backends/cpu/blas_buffers.h: when k callers are between enter and leave,
// OpenBLAS's pool really has k buffers, so their GEMMs allocate nothing (an
// allocation there is unchecked, and under a memory cap it spins forever).
// A caller that arrives while another's buffer sits free between two row
// blocks used to be counted a buffer by a warm-up GEMM that only reused the
// free one.
#include <stdio.h>

#include <atomic>
#include <thread>

#include "base/status.h"
#include "gtest/gtest.h"
#include "backends/cpu/blas_buffers.h"

extern "C" {
void* blas_memory_alloc(int procpos);
void blas_memory_free(void* buffer);
}

namespace {

// The process's address space in MiB (Linux).
long mapped_mib() {
  FILE* f = fopen("/proc/self/statm", "r");
  long pages = -1;
  if (f) {
    if (fscanf(f, "%ld", &pages) != 1) pages = -1;
    fclose(f);
  }
  return pages < 0 ? -1 : pages * 4096 / (1 << 20);
}

void enter_ok() {
  grt_status* s = grt_blas_buffers_enter();
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
}

TEST(BlasBuffers, TwoCallersHaveTwoBuffers) {
  ASSERT_GE(mapped_mib(), 0);
  // Thread a takes the first buffer and lets it go; thread b then arrives
  // with that buffer free, as a late helper does.
  std::thread a([] {
    enter_ok();
    grt_blas_buffers_leave();
  });
  a.join();
  std::thread b([] {
    enter_ok();
    grt_blas_buffers_leave();
  });
  b.join();
  // Now two callers at once: c first, then d. d may wait for c to leave
  // while the pool grows, so c leaves and comes back if d is not in soon.
  std::atomic<int> phase{0};  // 1: c in; 2: d in; 3: measured
  std::atomic<bool> c_out{false};
  std::thread c([&] {
    enter_ok();
    phase = 1;
    for (int i = 0; i < 2000 && phase.load() < 2; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (phase.load() < 2) {
      grt_blas_buffers_leave();
      c_out = true;
      while (phase.load() < 2) std::this_thread::yield();
      enter_ok();
    }
    while (phase.load() < 3) std::this_thread::yield();
    grt_blas_buffers_leave();
  });
  while (phase.load() < 1) std::this_thread::yield();
  long grew = -1;
  std::thread d([&] {
    enter_ok();
    phase = 2;
    // Wait until c is back in as well (it re-enters only after d is in).
    for (int i = 0; i < 1000 && c_out.load(); i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // Two callers hold buffers now: their two GEMMs must find two in the pool.
    long before = mapped_mib();
    void* x = blas_memory_alloc(0);
    void* y = blas_memory_alloc(0);
    grew = mapped_mib() - before;
    blas_memory_free(y);
    blas_memory_free(x);
    phase = 3;
    grt_blas_buffers_leave();
  });
  d.join();
  c.join();
  EXPECT_GE(grew, 0);
  EXPECT_LT(grew, 64) << "OpenBLAS allocated a buffer for a counted caller";
}

}  // namespace
