// Captured steps (session option graph_capture) on the TEST backend, which
// records its streams as CUDA Graphs do: work kept with raw addresses only,
// any sync during a recording refused, and every replay checked to touch
// only memory still allocated. So these tests check the executor's side of
// capture on any machine: the recording's memory is kept (a replay over
// freed memory fails), feeds reach the recorded copies and fetches come
// back, results equal uncaptured runs and a float64 reference, a variable
// given a new tensor or new feed shapes record again, steps that cannot be
// captured say why and run as usual, and calls from several threads agree.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "grt/backend.h"
#include "grt/grt.h"
#include "tests/plugin/plugin_test_util.h"

namespace {

// m = x @ w, y = m * m + m, upd = (acc += y); all on TEST:0. x is fed;
// w and acc are variables set from fed values by Assign.
const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
  {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,3]}},
  {"name":"w_init","op":"Placeholder","attrs":{"dtype":"float32","shape":[3,2]}},
  {"name":"acc_init","op":"Placeholder","attrs":{"dtype":"float32","shape":[2,2]}},
  {"name":"w","op":"VariableV2","device":"/device:TEST:0","attrs":{"dtype":"float32","shape":[3,2]}},
  {"name":"acc","op":"VariableV2","device":"/device:TEST:0","attrs":{"dtype":"float32","shape":[2,2]}},
  {"name":"assign_w","op":"Assign","inputs":["w","w_init"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"assign_acc","op":"Assign","inputs":["acc","acc_init"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"m","op":"MatMul","inputs":["x","w"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"sq","op":"Mul","inputs":["m","m"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"y","op":"Add","inputs":["sq","m"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"upd","op":"AssignAdd","inputs":["acc","y"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"cpu_y","op":"Mul","inputs":["y","y"],"device":"/cpu:0","attrs":{"T":"float32"}}
]})";

struct Fixture : ::testing::Test {
  grt_graph* g = nullptr;
  void SetUp() override {
    ASSERT_OK(grt_backend_load(PluginPath("libgrt_backend_test.so").c_str()));
    ASSERT_OK(grt_graph_from_json(kGraph, strlen(kGraph), &g));
  }
  void TearDown() override { grt_graph_free(g); }
};

grt_tensor* Tensor(std::vector<int64_t> dims, const std::vector<float>& v) {
  grt_tensor* t = nullptr;
  EXPECT_EQ(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &t), nullptr);
  memcpy(grt_tensor_data(t), v.data(), v.size() * sizeof(float));
  return t;
}

grt_session* Session(grt_graph* g, bool capture) {
  grt_session_options* o = nullptr;
  EXPECT_EQ(grt_session_options_new(&o), nullptr);
  EXPECT_EQ(grt_session_options_set(o, "graph_capture", capture ? "true" : "false"), nullptr);
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_session_options_free(o);
  return s;
}

void Init(grt_session* s, const std::vector<float>& w, const std::vector<float>& acc) {
  grt_tensor* wt = Tensor({3, 2}, w);
  grt_tensor* at = Tensor({2, 2}, acc);
  grt_feed feeds[2] = {{"w_init", wt}, {"acc_init", at}};
  const char* targets[2] = {"assign_w", "assign_acc"};
  ASSERT_OK(grt_session_run(s, feeds, 2, nullptr, 0, targets, 2, nullptr, nullptr));
  grt_tensor_free(wt);
  grt_tensor_free(at);
}

std::string Report(const grt_callable* c) {
  char buf[600];
  grt_callable_capture_report(c, buf, sizeof buf);
  return buf;
}

// y = (x @ w)^2 + x @ w in float64 (rows of x by 3, w 3 by 2).
std::vector<double> Reference(const std::vector<float>& x, const std::vector<float>& w) {
  size_t rows = x.size() / 3;
  std::vector<double> y(rows * 2);
  for (size_t i = 0; i < rows; i++)
    for (size_t j = 0; j < 2; j++) {
      double m = 0;
      for (size_t k = 0; k < 3; k++) m += (double)x[i * 3 + k] * w[k * 2 + j];
      y[i * 2 + j] = m * m + m;
    }
  return y;
}

// Elements of y that differ from the reference for x (a size mismatch
// counts as one).
int Mismatches(const grt_tensor* y, const std::vector<float>& xv, const std::vector<float>& w) {
  std::vector<double> want = Reference(xv, w);
  std::vector<float> got = Floats(y);
  if (got.size() != want.size()) return 1;
  int bad = 0;
  for (size_t i = 0; i < got.size(); i++)
    bad += std::abs(got[i] - want[i]) > 1e-4 * (1 + std::abs(want[i]));
  return bad;
}

const std::vector<float> kW = {0.5f, -1, 2, 0.25f, -0.75f, 1.5f};

// A capturing session with w = kW and the callable x -> y.
grt_session* SessionWithY(grt_graph* g, grt_callable** c) {
  grt_session* s = Session(g, true);
  Init(s, kW, {0, 0, 0, 0});
  const char* feeds[1] = {"x"};
  const char* fetches[1] = {"y"};
  grt_status* st = grt_session_make_callable_by_name(s, feeds, 1, fetches, 1, nullptr, 0, c);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  return s;
}

std::vector<float> Input(int call, size_t rows) {
  std::vector<float> x(rows * 3);
  for (size_t i = 0; i < x.size(); i++)
    x[i] = (float)((call * 5 + (int)i) % 7) - 3.0f + 0.25f * call;
  return x;
}

TEST_F(Fixture, RecordsOnTheSecondCallAndReplaysWithFreshFeedsAndVariables) {
  grt_session* s = Session(g, true);
  grt_session* plain = Session(g, false);
  std::vector<float> w = {0.5f, -1, 2, 0.25f, -0.75f, 1.5f}, acc0 = {0, 0, 0, 0};
  Init(s, w, acc0);
  Init(plain, w, acc0);
  const char* feeds[1] = {"x"};
  const char* fetches[2] = {"y", "upd"};
  grt_callable *c = nullptr, *pc = nullptr;
  ASSERT_OK(grt_session_make_callable_by_name(s, feeds, 1, fetches, 2, nullptr, 0, &c));
  ASSERT_OK(grt_session_make_callable_by_name(plain, feeds, 1, fetches, 2, nullptr, 0, &pc));
  EXPECT_NE(Report(c).find("not yet recorded"), std::string::npos) << Report(c);
  EXPECT_EQ(Report(pc), "off (session option graph_capture)");
  std::vector<double> acc(4, 0.0);
  for (int call = 0; call < 8; call++) {
    std::vector<float> xv = Input(call, 2);
    grt_tensor* x = Tensor({2, 3}, xv);
    grt_tensor *out[2] = {nullptr, nullptr}, *pout[2] = {nullptr, nullptr};
    ASSERT_OK(grt_callable_run(c, &x, out, nullptr));
    ASSERT_OK(grt_callable_run(pc, &x, pout, nullptr));
    std::vector<double> want = Reference(xv, w);
    for (int i = 0; i < 4; i++) acc[i] += (float)want[i];
    std::vector<float> y = Floats(out[0]), a = Floats(out[1]);
    ASSERT_EQ(y.size(), 4u);
    for (int i = 0; i < 4; i++) {
      EXPECT_NEAR(y[i], want[i], 1e-4 * (1 + std::abs(want[i])))
          << "call " << call << " y[" << i << "]";
      EXPECT_NEAR(a[i], acc[i], 1e-3 * (1 + std::abs(acc[i])))
          << "call " << call << " acc[" << i << "]";
    }
    // The same kernels run in the same order: the same bits as uncaptured.
    EXPECT_EQ(y, Floats(pout[0])) << "call " << call;
    EXPECT_EQ(a, Floats(pout[1])) << "call " << call;
    for (grt_tensor* t : {out[0], out[1], pout[0], pout[1], x}) grt_tensor_free(t);
  }
  std::string r = Report(c);
  EXPECT_NE(r.find("captured on /job:localhost/replica:0/task:0/device:TEST:0: 6 kernels; 1 "
                   "recording, 7 replays"),
            std::string::npos)
      << r;

  // A new tensor for w (Assign): the next call records again and uses it.
  w = {1, 2, 3, 4, 5, 6};
  Init(s, w, acc0);
  std::vector<float> xv = Input(9, 2);
  grt_tensor* x = Tensor({2, 3}, xv);
  grt_tensor* out[2] = {nullptr, nullptr};
  ASSERT_OK(grt_callable_run(c, &x, out, nullptr));
  std::vector<double> want = Reference(xv, w);
  for (int i = 0; i < 4; i++) {
    EXPECT_NEAR(Floats(out[0])[i], want[i], 1e-4 * (1 + std::abs(want[i])));
    EXPECT_NEAR(Floats(out[1])[i], (float)want[i], 1e-3 * (1 + std::abs(want[i])));
  }
  for (grt_tensor* t : {out[0], out[1], x}) grt_tensor_free(t);
  EXPECT_NE(Report(c).find("2 recordings, 8 replays"), std::string::npos) << Report(c);
  grt_callable_free(c);
  grt_callable_free(pc);
  grt_session_free(s);
  grt_session_free(plain);
}

TEST_F(Fixture, NewFeedShapesRecordAgain) {
  grt_callable* c = nullptr;
  grt_session* s = SessionWithY(g, &c);
  const size_t rows[] = {2, 2, 2, 5, 5, 1, 1, 1};
  for (int call = 0; call < 8; call++) {
    std::vector<float> xv = Input(call, rows[call]);
    grt_tensor* x = Tensor({(int64_t)rows[call], 3}, xv);
    grt_tensor* y = nullptr;
    ASSERT_OK(grt_callable_run(c, &x, &y, nullptr));
    EXPECT_EQ(Mismatches(y, xv, kW), 0) << "call " << call;
    grt_tensor_free(x);
    grt_tensor_free(y);
  }
  // Shapes 2 (recorded on call 1), 5 (call 3), 1 (call 5).
  EXPECT_NE(Report(c).find("3 recordings, 7 replays"), std::string::npos) << Report(c);
  grt_callable_free(c);
  grt_session_free(s);
}

TEST_F(Fixture, StepsThatCannotBeCapturedSayWhyAndRunAsUsual) {
  grt_session* s = Session(g, true);
  std::vector<float> w = {0.5f, -1, 2, 0.25f, -0.75f, 1.5f};
  Init(s, w, {0, 0, 0, 0});
  struct Case {
    std::vector<const char*> feeds, fetches;
    const char* why;
  };
  const Case cases[] = {
      {{"x"},
       {"cpu_y"},
       "not captured: node 'cpu_y' (Mul) runs on /job:localhost/replica:0/task:0/device:CPU:0, "
       "whose work cannot be recorded"},
      {{"w_init"},
       {"assign_w"},
       "not captured: node 'assign_w' (Assign) on /job:localhost/replica:0/task:0/device:TEST:0: "
       "its kernel gives the variable a new tensor on each call"},
      {{"x"}, {"x"}, "not captured: the step runs no kernel"},
  };
  for (const Case& k : cases) {
    grt_callable* c = nullptr;
    ASSERT_OK(grt_session_make_callable_by_name(s, k.feeds.data(), 1, k.fetches.data(), 1, nullptr,
                                                0, &c));
    EXPECT_EQ(Report(c), k.why);
    for (int call = 0; call < 3; call++) {
      std::vector<float> v = std::string(k.feeds[0]) == "w_init"
                                 ? std::vector<float>{1, 2, 3, 4, 5, 6}
                                 : Input(call, 2);
      grt_tensor* in = Tensor(std::string(k.feeds[0]) == "w_init" ? std::vector<int64_t>{3, 2}
                                                                  : std::vector<int64_t>{2, 3},
                              v);
      grt_tensor* out = nullptr;
      ASSERT_OK(grt_callable_run(c, &in, &out, nullptr));
      std::vector<float> got = Floats(out);
      if (std::string(k.fetches[0]) == "cpu_y") {
        std::vector<double> y = Reference(v, w);
        for (size_t i = 0; i < got.size(); i++)
          EXPECT_NEAR(got[i], y[i] * y[i], 1e-3 * (1 + y[i] * y[i]));
      } else {
        EXPECT_EQ(got, v);
      }
      grt_tensor_free(in);
      grt_tensor_free(out);
    }
    EXPECT_EQ(Report(c), k.why);
    grt_callable_free(c);
  }
  grt_session_free(s);
}

TEST_F(Fixture, ARefusedRecordingGivesCaptureUpAndRunsAsUsual) {
  setenv("GRT_TEST_REFUSE_RECORDING", "1", 1);
  grt_callable* c = nullptr;
  grt_session* s = SessionWithY(g, &c);
  for (int call = 0; call < 5; call++) {
    std::vector<float> xv = Input(call, 2);
    grt_tensor* x = Tensor({2, 3}, xv);
    grt_tensor* y = nullptr;
    ASSERT_OK(grt_callable_run(c, &x, &y, nullptr));
    EXPECT_EQ(Mismatches(y, xv, kW), 0) << "call " << call;
    grt_tensor_free(x);
    grt_tensor_free(y);
  }
  unsetenv("GRT_TEST_REFUSE_RECORDING");
  EXPECT_EQ(
      Report(c),
      "not captured: /job:localhost/replica:0/task:0/device:TEST:0 could not record the step: "
      "TEST: the recording on /job:localhost/replica:0/task:0/device:TEST:0 failed");
  grt_callable_free(c);
  grt_session_free(s);
}

TEST_F(Fixture, CallsFromSeveralThreadsEachGetTheirOwnResult) {
  grt_callable* c = nullptr;
  grt_session* s = SessionWithY(g, &c);
  std::vector<int> bad(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      for (int call = 0; call < 10; call++) {
        std::vector<float> xv = Input(t * 100 + call, 3);
        grt_tensor* x = Tensor({3, 3}, xv);
        grt_tensor* y = nullptr;
        grt_status* st = grt_callable_run(c, &x, &y, nullptr);
        bad[t] += st ? 1 : Mismatches(y, xv, kW);
        grt_status_free(st);
        grt_tensor_free(x);
        grt_tensor_free(y);
      }
    });
  // Plain runs of the same session meanwhile wait for the recording.
  for (int call = 0; call < 10; call++) {
    std::vector<float> xv = Input(call, 2);
    grt_tensor* x = Tensor({2, 3}, xv);
    grt_feed f = {"x", x};
    const char* fetch = "y";
    grt_tensor* y = nullptr;
    ASSERT_OK(grt_session_run(s, &f, 1, &fetch, 1, nullptr, 0, &y, nullptr));
    EXPECT_EQ(Mismatches(y, xv, kW), 0) << "plain run " << call;
    grt_tensor_free(x);
    grt_tensor_free(y);
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; t++) EXPECT_EQ(bad[t], 0) << "thread " << t;
  EXPECT_NE(Report(c).find("1 recording, 39 replays"), std::string::npos) << Report(c);
  grt_callable_free(c);
  grt_session_free(s);
}

}  // namespace
