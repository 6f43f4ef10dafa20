// Deadlines against kernels that run long in one piece: a big OpenBLAS GEMM
// stops between its row blocks instead of running to its end, and a run
// whose last kernel cannot stop (one oneDNN call) and finishes after the
// deadline still fails: a run past its deadline never reports success.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "grt/grt.h"
#include "tests/session/limits_common.h"

namespace {

using namespace limits_test;

grt_graph* Parse(const std::string& text) {
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(text.c_str(), text.size(), &g);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return g;
}

grt_session* NewSession(grt_graph* g) {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  // One pool thread and the caller: a GEMM made of one block per thread
  // runs half its work in a block nothing can stop.
  grt_status_free(grt_session_options_set(o, "intra_op_threads", "1"));
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  grt_session_options_free(o);
  return s;
}

grt_tensor* Filled(std::vector<int64_t> dims, float seed) {
  grt_tensor* t = nullptr;
  grt_status_free(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &t));
  float* p = static_cast<float*>(grt_tensor_data(t));
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  for (int64_t i = 0; i < n; i++) p[i] = std::sin(seed + 0.001f * (float)(i % 7919));
  return t;
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

// Runs `fetch` with the feeds; returns the status and the time taken.
grt_status* TimedRun(grt_session* s, const grt_run_options* ro, std::vector<grt_feed> feeds,
                     const char* fetch, grt_tensor** out, double* seconds) {
  auto t0 = std::chrono::steady_clock::now();
  grt_status* st = grt_session_run_with_options(s, ro, feeds.data(), (int32_t)feeds.size(), &fetch,
                                                1, nullptr, 0, out, nullptr);
  *seconds = Seconds(t0);
  return st;
}

// 4096 x 1024 times 1024 x 1024 goes to OpenBLAS (over 2^28 multiply-adds).
// Before, it was one block per thread: a deadline could only skip the
// blocks not yet started, so at least half the GEMM ran.
TEST(DeadlineInKernels, BigGemmStopsBetweenRowBlocks) {
  grt_graph* g = Parse(R"({"format": "grt.graph", "version": 1, "nodes": [
    {"name": "a", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [4096, 1024]}},
    {"name": "b", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [1024, 1024]}},
    {"name": "c", "op": "MatMul", "inputs": ["a", "b"]}]})");
  ASSERT_NE(g, nullptr);
  grt_session* s = NewSession(g);
  grt_tensor* a = Filled({4096, 1024}, 1.f);
  grt_tensor* b = Filled({1024, 1024}, 2.f);
  std::vector<grt_feed> feeds = {{"a", a}, {"b", b}};
  grt_tensor* out = nullptr;
  double full = 0, stopped = 0;
  LT_ASSERT_OK(TimedRun(s, nullptr, feeds, "c", &out, &full));  // warms OpenBLAS's buffers
  grt_tensor_free(out);
  out = nullptr;
  LT_ASSERT_OK(TimedRun(s, nullptr, feeds, "c", &out, &full));
  grt_tensor_free(out);
  out = nullptr;
  int64_t ms = (int64_t)(full * 1000 / 20);
  grt_run_options* ro = Timeout(ms > 0 ? ms : 1);
  grt_status* st = TimedRun(s, ro, feeds, "c", &out, &stopped);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_DEADLINE_EXCEEDED) << grt_status_message(st);
  grt_status_free(st);
  EXPECT_EQ(out, nullptr);
  // The deadline fell a twentieth of the way in; the blocks in flight then
  // finish (two threads, 16 blocks of 256 rows), the rest are skipped.
  EXPECT_LT(stopped, 0.35 * full) << "deadline run " << stopped << " s, full run " << full << " s";
  EXPECT_EQ(DeviceBytesInUse(s), 0u);
  grt_run_options_free(ro);
  grt_tensor_free(a);
  grt_tensor_free(b);
  grt_session_free(s);
  grt_graph_free(g);
}

// A Conv2D is one oneDNN call: nothing can stop it once it started. When
// the deadline passes while it runs, the run fails DEADLINE_EXCEEDED all
// the same (it used to succeed: its output was whole), with no fetch and
// nothing left allocated.
TEST(DeadlineInKernels, ADeadlinePassingDuringTheLastKernelFailsTheRun) {
  grt_graph* g = Parse(R"({"format": "grt.graph", "version": 1, "nodes": [
    {"name": "x", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [-1, -1, -1, 64]}},
    {"name": "f", "op": "Const", "attrs": {"dtype": "float32", "value":
      {"dtype": "float32", "shape": [3, 3, 64, 64], "values": [0.01]}}},
    {"name": "y", "op": "Conv2D", "inputs": ["x", "f"],
     "attrs": {"strides": [1, 1, 1, 1], "padding": "SAME"}}]})");
  ASSERT_NE(g, nullptr);
  grt_session* s = NewSession(g);
  int64_t side = 96;
  bool checked = false;
  for (int attempt = 0; attempt < 6 && !checked; attempt++) {
    grt_tensor* x = Filled({1, side, side, 64}, 3.f);
    std::vector<grt_feed> feeds = {{"x", x}};
    grt_tensor* want = nullptr;
    grt_tensor* got = nullptr;
    double full = 0, with_deadline = 0;
    LT_ASSERT_OK(TimedRun(s, nullptr, feeds, "y", &want, &full));
    grt_tensor_free(want);
    want = nullptr;
    LT_ASSERT_OK(TimedRun(s, nullptr, feeds, "y", &want, &full));
    grt_tensor_free(want);
    int64_t ms = (int64_t)(full * 1000 / 4);
    if (ms < 5) {  // too quick to put a deadline inside it: make it bigger
      grt_tensor_free(x);
      side *= 2;
      continue;
    }
    grt_run_options* ro = Timeout(ms);
    grt_status* st = TimedRun(s, ro, feeds, "y", &got, &with_deadline);
    grt_run_options_free(ro);
    if (st && std::string(grt_status_message(st)).find("before node") != std::string::npos) {
      // The machine was too busy to start the kernel in time: try again.
      grt_status_free(st);
    } else if (with_deadline * 1000 > (double)ms) {
      // The deadline did pass during the kernel.
      ASSERT_NE(st, nullptr) << "a run past its deadline succeeded";
      EXPECT_EQ(grt_status_code(st), GRT_DEADLINE_EXCEEDED) << grt_status_message(st);
      grt_status_free(st);
      EXPECT_EQ(got, nullptr);
      checked = true;
    } else {
      grt_status_free(st);
    }
    grt_tensor_free(got);
    grt_tensor_free(x);
  }
  EXPECT_TRUE(checked) << "no attempt had the deadline pass inside the Conv2D";
  EXPECT_EQ(DeviceBytesInUse(s), 0u);
  grt_session_free(s);
  grt_graph_free(g);
}

}  // namespace
