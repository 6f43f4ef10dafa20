// The CPU kernels whose own loops check the run's cancellation through a
// work meter (backends/cpu/work_meter.h): with the thread's token already
// fired, each returns CANCELLED on an input of more than one meter step
// (about a millisecond of work) instead of running to its end; with a live
// token the same input runs to a whole result. Deterministic: no clock, no
// deadline (tests/session:kernel_deadlines_test times the families that
// take seconds).
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/harness.h"

extern "C" {
#include "base/cancel.h"
}

namespace {

using grt_test::OpRun;
using grt_test::T_;

// Runs r with the calling thread's token fired (cancelled) or live.
grt_code RunWithToken(OpRun& r, bool fired) {
  int64_t epoch = 0;
  grt_cancel_token t;
  grt_cancel_token_init(&t, &epoch, 0);
  if (fired) epoch = 1;
  const grt_cancel_token* prev = grt_cancel_set_current(&t);
  grt_status* st = r.Run();
  grt_cancel_set_current(prev);
  grt_code code = st ? grt_status_code(st) : GRT_OK;
  if (st && code != GRT_CANCELLED) ADD_FAILURE() << grt_status_message(st);
  grt_status_free(st);
  return code;
}

std::vector<double> Wave(int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; i++) v[i] = std::sin(1.7 * (double)i + 0.3);
  return v;
}

// Each case builds the same kernel run twice.
struct Case {
  const char* name;
  void (*build)(OpRun& r);
};

const Case kCases[] = {
    {"Cumsum",
     [](OpRun& r) {
       r.AttrType("T", GRT_FLOAT32).AttrType("Tidx", GRT_INT32);
       r.Input(T_<float>({1 << 21}, {1})).Input(T_<int32_t>({}, {0}));
     }},
    {"GatherV2",  // 4096 rows of 4 KiB
     [](OpRun& r) {
       r.AttrType("Tparams", GRT_FLOAT32).AttrType("Tindices", GRT_INT32);
       r.AttrType("Taxis", GRT_INT32);
       r.Input(T_<float>({4, 1024}, {1})).Input(T_<int32_t>({4096}, {0}));
       r.Input(T_<int32_t>({}, {0}));
     }},
    {"GatherNd",
     [](OpRun& r) {
       r.AttrType("Tparams", GRT_FLOAT32).AttrType("Tindices", GRT_INT32);
       r.Input(T_<float>({4, 1024}, {1})).Input(T_<int32_t>({4096, 1}, {0}));
     }},
    {"TensorScatterAdd",
     [](OpRun& r) {
       r.AttrType("T", GRT_FLOAT32).AttrType("Tindices", GRT_INT32);
       r.Input(T_<float>({4, 1024}, {1})).Input(T_<int32_t>({4096, 1}, {0}));
       r.Input(T_<float>({4096, 1024}, {1}));
     }},
    {"Pad",
     [](OpRun& r) {
       r.AttrType("T", GRT_FLOAT32).AttrType("Tpaddings", GRT_INT32);
       r.Input(T_<float>({1024, 1024}, {1})).Input(T_<int32_t>({2, 2}, {0, 1, 1, 0}));
     }},
    {"Einsum",
     [](OpRun& r) {
       r.AttrType("T", GRT_FLOAT32).AttrInt("N", 2).AttrString("equation", "ij,jk->ik");
       r.Input(T_<float>({64, 64}, Wave(64 * 64))).Input(T_<float>({64, 64}, Wave(64 * 64)));
     }},
    {"TopKV2",
     [](OpRun& r) {
       r.AttrType("T", GRT_FLOAT32);
       r.Input(T_<float>({1 << 21}, Wave(1 << 21))).Input(T_<int32_t>({}, {16}));
     }},
    {"MatrixDeterminant",
     [](OpRun& r) {
       r.AttrType("T", GRT_FLOAT32);
       r.Input(T_<float>({256, 256}, Wave(256 * 256)));
     }},
};

TEST(WorkMeter, MeteredKernelsStopOnceTheRunIsCancelled) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    OpRun stopped(c.name);
    c.build(stopped);
    EXPECT_EQ(RunWithToken(stopped, true), GRT_CANCELLED);
    OpRun whole(c.name);
    c.build(whole);
    EXPECT_EQ(RunWithToken(whole, false), GRT_OK);
    EXPECT_NE(whole.Output(0), nullptr);
  }
}

// No token (a kernel run outside a session): the meter never stops it.
TEST(WorkMeter, WithoutATokenNothingStops) {
  OpRun r("Cumsum");
  kCases[0].build(r);
  ASSERT_EQ(grt_cancel_current(), nullptr);
  ASSERT_OK(r.Run());
  EXPECT_EQ(grt_test::At(r.Output(0), (1 << 21) - 1), (double)(1 << 21));
}

}  // namespace
