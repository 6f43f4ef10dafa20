// base/alloc_failure.h and its use by tensor allocation: an allocator's
// reason for a failure reaches the out-of-memory error once, never a later
// failure that left none, and a reason left on another thread stays there.
#include "base/alloc_failure.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "base/tensor.h"
#include "grt/backend.h"

namespace {

// Fails every request; with `why`, says so through grt_allocator_fail_reason.
struct Failing {
  grt_allocator base;
  bool why;
};

void* FailAlloc(grt_allocator* a, size_t size, size_t) {
  if (reinterpret_cast<Failing*>(a)->why)
    grt_allocator_fail_reason(
        grt_status_new(GRT_RESOURCE_EXHAUSTED, "in use 7 of limit 9 (asked %zu)", size));
  return nullptr;
}
void NoFree(grt_allocator*, void*) {}

std::string AllocError(Failing* f) {
  grt_shape s = {1, {4}};
  grt_tensor* t = nullptr;
  grt_status* st = grt_tensor_new_device(&f->base, GRT_FLOAT32, &s, &t);
  EXPECT_EQ(t, nullptr);
  EXPECT_NE(st, nullptr);
  std::string m = st ? grt_status_message(st) : "";
  EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED);
  grt_status_free(st);
  return m;
}

TEST(AllocFailure, ReasonIsAppendedOnce) {
  Failing with = {{"X", FailAlloc, NoFree}, true};
  Failing without = {{"Y", FailAlloc, NoFree}, false};
  EXPECT_EQ(AllocError(&with),
            "X allocator: out of memory allocating 16 bytes: in use 7 of limit 9 (asked 16)");
  EXPECT_EQ(AllocError(&without), "Y allocator: out of memory allocating 16 bytes");
  EXPECT_EQ(grt_allocator_take_failure(), nullptr);
}

TEST(AllocFailure, StaleReasonIsDroppedBeforeTheNextAllocation) {
  grt_allocator_fail_reason(grt_status_new(GRT_RESOURCE_EXHAUSTED, "stale"));
  Failing without = {{"Y", FailAlloc, NoFree}, false};
  EXPECT_EQ(AllocError(&without), "Y allocator: out of memory allocating 16 bytes");
}

TEST(AllocFailure, ReasonsArePerThreadAndFreedWithTheThread) {
  std::thread t(
      [] { grt_allocator_fail_reason(grt_status_new(GRT_RESOURCE_EXHAUSTED, "theirs")); });
  t.join();  // never taken: the thread's key destructor frees it (LeakSanitizer checks)
  EXPECT_EQ(grt_allocator_take_failure(), nullptr);
  grt_allocator_fail_reason(grt_status_new(GRT_RESOURCE_EXHAUSTED, "first"));
  grt_allocator_fail_reason(grt_status_new(GRT_RESOURCE_EXHAUSTED, "second"));  // replaces
  grt_status* s = grt_allocator_take_failure();
  ASSERT_NE(s, nullptr);
  EXPECT_STREQ(grt_status_message(s), "second");
  grt_status_free(s);
}

}  // namespace
