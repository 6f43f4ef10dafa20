// Deadlines (grt_run_options_set_timeout_ms) and grt_session_cancel from
// another thread: runs stop with DEADLINE_EXCEEDED or CANCELLED, free every
// buffer they made, and the session keeps working. The race test cancels
// at random moments; run it under --config=tsan and --config=asan too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "grt/grt.h"
#include "base/cancel.h"
#include "tests/session/limits_common.h"

namespace {

using namespace limits_test;

grt_session* NewSession(grt_graph* g) {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  grt_status_free(grt_session_options_set(o, "intra_op_threads", "2"));
  grt_status_free(grt_session_options_set(o, "inter_op_threads", "2"));
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_session_options_free(o);
  return s;
}

grt_run_options* Timeout(int64_t ms) {
  grt_run_options* ro = nullptr;
  grt_status_free(grt_run_options_new(&ro));
  grt_status_free(grt_run_options_set_timeout_ms(ro, ms));
  return ro;
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(RunOptions, RejectsNegativeTimeouts) {
  grt_run_options* ro = nullptr;
  LT_ASSERT_OK(grt_run_options_new(&ro));
  grt_status* st = grt_run_options_set_timeout_ms(ro, -1);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
  grt_status_free(st);
  LT_ASSERT_OK(grt_run_options_set_timeout_ms(ro, 0));
  grt_run_options_free(ro);
  grt_run_options_free(nullptr);
}

TEST(Deadline, LongRunStopsInsideTheKernelAndTheSessionStaysUsable) {
  grt_graph* g = ParseGraph();
  grt_session* s = NewSession(g);
  // How long the big run takes without a deadline, for the bound below.
  auto t0 = std::chrono::steady_clock::now();
  LT_ASSERT_OK(RunOnce(s, nullptr, 3000, 3000));
  double full = Seconds(t0);
  grt_run_options* ro = Timeout(1);
  t0 = std::chrono::steady_clock::now();
  grt_status* st = RunOnce(s, ro, 3000, 3000);
  double stopped = Seconds(t0);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_DEADLINE_EXCEEDED) << grt_status_message(st);
  std::string msg = grt_status_message(st);
  grt_status_free(st);
  EXPECT_NE(msg.find("timeout of 1 ms"), std::string::npos) << msg;
  EXPECT_NE(msg.find("node '"), std::string::npos) << msg;
  // It stopped early: at shard boundaries of RandomUniform, not after Sum.
  EXPECT_LT(stopped, full) << "deadline run " << stopped << " s, full run " << full << " s";
  EXPECT_EQ(DeviceBytesInUse(s), 0u);
  grt_run_options_free(ro);
  // A generous deadline, and none, both work afterwards.
  ro = Timeout(600000);
  float a = 0, b = 0;
  LT_ASSERT_OK(RunOnce(s, ro, 10, 10, &a));
  LT_ASSERT_OK(RunOnce(s, nullptr, 10, 10, &b));
  EXPECT_GT(a, 0.f);
  EXPECT_GT(b, 0.f);
  grt_run_options_free(ro);
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(Cancel, AnotherThreadStopsARunInFlight) {
  grt_graph* g = ParseGraph();
  grt_session* s = NewSession(g);
  std::atomic<bool> started{false};
  grt_status* st = nullptr;
  std::thread runner([&] {
    started = true;
    // Big enough to take a while: the cancel lands while it runs.
    st = RunOnce(s, nullptr, 4000, 4000);
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  grt_session_cancel(s);
  runner.join();
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_CANCELLED) << grt_status_message(st);
  EXPECT_NE(std::string(grt_status_message(st)).find("run cancelled"), std::string::npos);
  grt_status_free(st);
  EXPECT_EQ(DeviceBytesInUse(s), 0u);
  // Runs after the cancel are not affected.
  LT_ASSERT_OK(RunOnce(s, nullptr, 10, 10));
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(Cancel, KernelsSeeItThroughTheirContext) {
  grt_cancel_token t;
  int64_t epoch = 5;
  grt_cancel_token_init(&t, &epoch, 0);
  grt_kernel_ctx ctx = {};
  EXPECT_FALSE(grt_kernel_cancelled(&ctx));  // no token: never cancelled
  ctx.cancel = &t;
  EXPECT_FALSE(grt_kernel_cancelled(&ctx));
  epoch = 6;
  EXPECT_TRUE(grt_kernel_cancelled(&ctx));
  epoch = 5;  // the verdict sticks
  EXPECT_TRUE(grt_kernel_cancelled(&ctx));
  EXPECT_EQ(grt_cancel_check(&t), GRT_CANCELLED);
  grt_cancel_token_init(&t, &epoch, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  EXPECT_EQ(grt_cancel_check(&t), GRT_DEADLINE_EXCEEDED);
}

// Several threads run the graph (each run checked against a fresh
// session's value) while another cancels at random moments: every run ends
// either with the right value or CANCELLED, nothing else; no buffer is left
// once all runs are done; the session then works.
TEST(Cancel, RandomMomentsRace) {
  grt_graph* g = ParseGraph();
  grt_session* s = NewSession(g);
  const int kThreads = 3, kRunsEach = 12;
  std::atomic<int> ok{0}, cancelled{0}, other{0}, running{kThreads};
  std::string other_msg;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(1234 + t);
      for (int i = 0; i < kRunsEach; i++) {
        int32_t rows = 50 + static_cast<int32_t>(rng() % 600);
        float v = -1;
        grt_status* st = RunOnce(s, nullptr, rows, 200, &v);
        if (!st) {
          // The mean of uniform [0, 1) draws, times two: near 1 per element.
          double per = v / (rows * 200.0);
          if (per > 0.9 && per < 1.1)
            ok++;
          else
            other++;
        } else if (grt_status_code(st) == GRT_CANCELLED) {
          cancelled++;
        } else {
          other++;
          other_msg = grt_status_message(st);
        }
        grt_status_free(st);
      }
      running--;
    });
  }
  std::mt19937 rng(99);
  while (running > 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
    grt_session_cancel(s);
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(other.load(), 0) << other_msg;
  EXPECT_EQ(ok + cancelled, kThreads * kRunsEach);
  EXPECT_GT(cancelled.load(), 0);
  EXPECT_EQ(DeviceBytesInUse(s), 0u);
  LT_ASSERT_OK(RunOnce(s, nullptr, 100, 100));
  grt_session_free(s);
  grt_graph_free(g);
}

}  // namespace
