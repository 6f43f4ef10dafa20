// The memory_limit session option (per device) and the process-wide soft
// heap limit: an allocation past either fails its node with
// RESOURCE_EXHAUSTED saying what it asked for, and the session stays usable.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "grt/grt.h"
#include "tests/session/limits_common.h"

namespace {

using namespace limits_test;

grt_session* NewSession(grt_graph* g, const char* limit) {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  if (limit) {
    grt_status* st = grt_session_options_set(o, "memory_limit", limit);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
  }
  grt_status_free(grt_session_options_set(o, "intra_op_threads", "2"));
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_session_options_free(o);
  return s;
}

TEST(MemoryLimit, OptionTakesBytesWithSuffixes) {
  grt_session_options* o = nullptr;
  LT_ASSERT_OK(grt_session_options_new(&o));
  const struct {
    const char* text;
    int64_t bytes;
  } ok[] = {{"0", 0},        {"4096", 4096},    {"64K", 64 << 10},
            {"3M", 3 << 20}, {"2G", 2LL << 30}, {"5g", 5LL << 30}};
  for (const auto& c : ok) {
    LT_ASSERT_OK(grt_session_options_set(o, "memory_limit", c.text));
    EXPECT_EQ(o->memory_limit, c.bytes) << c.text;
  }
  for (const char* bad :
       {"", "-1", "12T", "1.5G", "G", "10MB", "99999999999999999999", "9000000000G"}) {
    grt_status* st = grt_session_options_set(o, "memory_limit", bad);
    ASSERT_NE(st, nullptr) << bad;
    EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(grt_status_message(st)).find("memory_limit"), std::string::npos);
    grt_status_free(st);
  }
  grt_session_options_free(o);
}

TEST(MemoryLimit, AllocationPastTheLimitFailsTheNodeAndTheSessionStaysUsable) {
  grt_graph* g = ParseGraph();
  grt_session* s = NewSession(g, "1M");
  ASSERT_NE(s, nullptr);
  // 100 x 100 floats (40 KB) fit; 1000 x 1000 (4 MB) do not.
  float small = 0;
  LT_ASSERT_OK(RunOnce(s, nullptr, 100, 100, &small));
  grt_status* st = RunOnce(s, nullptr, 1000, 1000);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED);
  std::string msg = grt_status_message(st);
  grt_status_free(st);
  EXPECT_NE(msg.find("node 'r' (RandomUniform)"), std::string::npos) << msg;
  // A limit reached reads as that, not as the machine out of memory.
  EXPECT_NE(msg.find("memory limit of 1048576 bytes on /job:localhost/replica:0/task:0/device:CPU:0"
                     " reached: asked for 4000000 bytes, 0 in use"),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("out of memory"), std::string::npos) << msg;
  // Nothing of the failed run is left, and the same small run works again
  // with the same result (RandomUniform with a seed advances per run, so
  // compare against a fresh session's second run instead of the first).
  EXPECT_EQ(DeviceBytesInUse(s), 0u);
  float again = 0;
  LT_ASSERT_OK(RunOnce(s, nullptr, 100, 100, &again));
  EXPECT_GT(again, 0.f);
  grt_session_free(s);

  // Without a limit the big run works.
  s = NewSession(g, nullptr);
  LT_ASSERT_OK(RunOnce(s, nullptr, 1000, 1000));
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(MemoryLimit, LimitIsPerDeviceAndCountsEverythingLiveAtOnce) {
  // RandomUniform's 40 KB output and Sum's input are alive together: a
  // limit just above one tensor but below what the run needs at its peak
  // still passes, because Sum's output is tiny; a limit below one tensor
  // fails. The boundary is the tensor's size plus the allocator's header.
  grt_graph* g = ParseGraph();
  grt_session* ok = NewSession(g, "48K");
  LT_ASSERT_OK(RunOnce(ok, nullptr, 100, 100));
  grt_session_free(ok);
  grt_session* tight = NewSession(g, "32K");
  grt_status* st = RunOnce(tight, nullptr, 100, 100);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED);
  grt_status_free(st);
  grt_session_free(tight);
  grt_graph_free(g);
}

TEST(SoftHeapLimit, TensorAllocationsPastItFailAndLoweringItBackWorks) {
  grt_graph* g = ParseGraph();
  grt_session* s = NewSession(g, nullptr);
  LT_ASSERT_OK(RunOnce(s, nullptr, 100, 100));
  int64_t before = grt_heap_used();
  EXPECT_GT(before, 0);  // the allocator keeps the run's blocks for reuse
  EXPECT_EQ(grt_soft_heap_limit64(-1), 0);
  EXPECT_EQ(grt_soft_heap_limit64(before + (1 << 20)), 0);
  EXPECT_EQ(grt_soft_heap_limit64(-1), before + (1 << 20));
  // 16 MB is past the limit: the run fails, and nothing stays counted.
  grt_status* st = RunOnce(s, nullptr, 2000, 2000);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED) << grt_status_message(st);
  grt_status_free(st);
  EXPECT_LE(grt_heap_used(), before + (1 << 20));
  // Small runs still fit.
  LT_ASSERT_OK(RunOnce(s, nullptr, 100, 100));
  // No limit: the big run works.
  grt_soft_heap_limit64(0);
  LT_ASSERT_OK(RunOnce(s, nullptr, 2000, 2000));
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(SoftHeapLimit, TheCountGoesBackWhenSessionsAndTensorsGo) {
  int64_t start = grt_heap_used();
  grt_graph* g = ParseGraph();
  grt_session* s = NewSession(g, nullptr);
  LT_ASSERT_OK(RunOnce(s, nullptr, 500, 500));
  grt_tensor* t = nullptr;
  int64_t dims[] = {1000};
  LT_ASSERT_OK(grt_tensor_new(GRT_FLOAT64, 1, dims, &t));
  EXPECT_GE(grt_heap_used(), start + 8000);
  grt_tensor_free(t);
  grt_session_free(s);
  grt_graph_free(g);
  EXPECT_EQ(grt_heap_used(), start);
}

}  // namespace
