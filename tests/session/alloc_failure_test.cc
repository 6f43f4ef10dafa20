// Allocation-failure injection, SQLite style: for a few representative
// graphs, count the heap allocations each step takes (load and validate,
// grt_session_new, the first run, a later run), then redo the step once for
// every n from 0 to that count with allocation n+1 failing, persistently
// (grt_mem_fail_after) and transiently (grt_mem_fail_once_after). Every
// attempt must succeed or return RESOURCE_EXHAUSTED; none may crash or hang
// (each attempt runs on its own thread and the test aborts after 10 s); and
// once injection is off the session must still run and give the right
// answer. Under --config=asan LeakSanitizer checks that nothing leaks.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/mem.h"
#include "grt/grt.h"

namespace {

// Every count so far is small enough to cover exhaustively; should a step
// ever take more than this many allocations, the first kExhaustive values
// of n are still all tried and the rest with a stride that keeps to about
// kExhaustive more attempts.
constexpr int64_t kExhaustive = 3000;
constexpr int kTimeoutSeconds = 10;

std::string Describe(const grt_status* s) {
  if (!s) return "OK";
  return std::string(grt_code_name(grt_status_code(s))) + ": " + grt_status_message(s);
}

// Runs f on a thread of its own; a hang fails the whole test (there is no
// way to stop the thread, so abort with the case named).
void WithTimeout(const std::string& what, const std::function<void()>& f) {
  std::promise<void> done;
  std::future<void> fut = done.get_future();
  std::thread th([&] {
    f();
    done.set_value();
  });
  if (fut.wait_for(std::chrono::seconds(kTimeoutSeconds)) != std::future_status::ready) {
    grt_mem_fail_after(-1);
    fprintf(stderr, "FATAL: %s: no answer after %d s (a hang)\n", what.c_str(), kTimeoutSeconds);
    fflush(stderr);
    std::abort();
  }
  th.join();
}

// A failure under injection must say the cause: out of memory.
void ExpectOomOrOk(grt_status* st, const std::string& what) {
  if (st) {
    EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED) << what << ": " << Describe(st);
    grt_status_free(st);
  }
}

std::vector<float> Floats(const grt_tensor* t) {
  const float* p = static_cast<const float*>(grt_tensor_data(t));
  return std::vector<float>(p, p + grt_tensor_num_elements(t));
}

std::vector<const char*> CStrs(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  for (const auto& s : v) out.push_back(s.c_str());
  return out;
}

// One graph and what to do with it.
struct Case {
  std::string name;
  std::function<grt_status*(grt_graph**)> load;  // loads and validates
  std::vector<std::pair<const char*, const char*>> options;
  std::vector<std::string> init;                     // targets of the first run
  std::vector<std::string> fetches, targets;         // the main run
  std::vector<std::pair<std::string, float>> feeds;  // scalars fed to the main run
  // Checks the main run's fetched values, right after `init` and one main
  // run on `s` (it may run more, unarmed). Reports with gtest.
  std::function<void(grt_session* s, grt_tensor** out, const std::string& what)> check;
};

grt_status* Run(grt_session* s, const std::vector<std::string>& fetches,
                const std::vector<std::string>& targets, grt_tensor** out,
                const std::vector<grt_feed>& feeds = {}) {
  std::vector<const char*> f = CStrs(fetches), t = CStrs(targets);
  return grt_session_run(s, feeds.data(), static_cast<int32_t>(feeds.size()), f.data(),
                         static_cast<int32_t>(f.size()), t.data(), static_cast<int32_t>(t.size()),
                         out, nullptr);
}

// The main run's feeds as tensors, made before injection is armed; free
// with FreeFeeds.
std::vector<grt_feed> MakeFeeds(const std::vector<std::pair<std::string, float>>& kv) {
  std::vector<grt_feed> feeds;
  for (const auto& p : kv) {
    grt_tensor* t = nullptr;
    grt_status* st = grt_tensor_new(GRT_FLOAT32, 0, nullptr, &t);
    EXPECT_EQ(st, nullptr) << Describe(st);
    grt_status_free(st);
    if (t) *static_cast<float*>(grt_tensor_data(t)) = p.second;
    feeds.push_back({p.first.c_str(), t});
  }
  return feeds;
}

void FreeFeeds(std::vector<grt_feed>& feeds) {
  for (auto& f : feeds) grt_tensor_free(f.value);
  feeds.clear();
}

void FreeAll(std::vector<grt_tensor*>& out) {
  for (auto*& t : out) {
    grt_tensor_free(t);
    t = nullptr;
  }
}

// ---- the graphs ----------------------------------------------------------

// The seeds' example: three products pinned to three GPUs, on three logical
// CPUs here through soft placement. Initial values are random, so the check
// recomputes the sum from the variables it fetches.
Case SeedsCase() {
  Case c;
  c.name = "seeds";
  c.load = [](grt_graph** g) { return grt_graph_load("examples/three_gpus.json", g); };
  c.options = {{"allow_soft_placement", "true"}, {"cpu.devices", "3"}};
  c.init = {"init"};
  c.fetches = {"AddN", "a_0/read", "b_0/read", "a_1/read", "b_1/read", "a_2/read", "b_2/read"};
  c.check = [](grt_session*, grt_tensor** out, const std::string& what) {
    float ref[4] = {0, 0, 0, 0};
    for (int k = 0; k < 3; k++) {
      std::vector<float> a = Floats(out[1 + 2 * k]), b = Floats(out[2 + 2 * k]);
      ASSERT_EQ(a.size(), 6u) << what;
      ASSERT_EQ(b.size(), 6u) << what;
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
          for (int l = 0; l < 3; l++) ref[i * 2 + j] += a[i * 3 + l] * b[l * 2 + j];
    }
    std::vector<float> got = Floats(out[0]);
    ASSERT_EQ(got.size(), 4u) << what;
    for (int i = 0; i < 4; i++) EXPECT_NEAR(got[i], ref[i], 1e-5) << what;
  };
  return c;
}

// A two-layer MLP with its gradients written out and one step of gradient
// descent: loss = sum((relu(x W1 + b1) W2 - t)^2). The updates wait for
// every gradient, so a step is deterministic.
const char kMlp[] = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[4,3],"values":[0.5,-1,2, 1,0.25,-0.5, -1.5,1,0.75, 0.1,0.2,0.3]}}},
 {"name":"t","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[4,2],"values":[1,0, 0,1, 0.5,0.5, -1,2]}}},
 {"name":"W1","op":"VariableV2","attrs":{"dtype":"float32","shape":[3,5]}},
 {"name":"W1/init","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[3,5],"values":[0.1,-0.2,0.3,0.4,-0.5, 0.6,0.7,-0.8,0.9,0.1, -0.2,0.3,0.4,-0.5,0.6]}}},
 {"name":"W1/Assign","op":"Assign","inputs":["W1","W1/init"],"attrs":{"T":"float32"}},
 {"name":"W1/read","op":"Identity","inputs":["W1"],"attrs":{"T":"float32"}},
 {"name":"b1","op":"VariableV2","attrs":{"dtype":"float32","shape":[5]}},
 {"name":"b1/init","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[5],"values":[0.05,-0.05,0.15,0,0.2]}}},
 {"name":"b1/Assign","op":"Assign","inputs":["b1","b1/init"],"attrs":{"T":"float32"}},
 {"name":"b1/read","op":"Identity","inputs":["b1"],"attrs":{"T":"float32"}},
 {"name":"W2","op":"VariableV2","attrs":{"dtype":"float32","shape":[5,2]}},
 {"name":"W2/init","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[5,2],"values":[0.3,-0.1, 0.2,0.4, -0.6,0.5, 0.7,-0.3, 0.1,0.2]}}},
 {"name":"W2/Assign","op":"Assign","inputs":["W2","W2/init"],"attrs":{"T":"float32"}},
 {"name":"W2/read","op":"Identity","inputs":["W2"],"attrs":{"T":"float32"}},
 {"name":"init","op":"NoOp","inputs":["^W1/Assign","^b1/Assign","^W2/Assign"]},
 {"name":"z","op":"MatMul","inputs":["x","W1/read"],"attrs":{"T":"float32"}},
 {"name":"z1","op":"BiasAdd","inputs":["z","b1/read"],"attrs":{"T":"float32"}},
 {"name":"h","op":"Relu","inputs":["z1"],"attrs":{"T":"float32"}},
 {"name":"y","op":"MatMul","inputs":["h","W2/read"],"attrs":{"T":"float32"}},
 {"name":"diff","op":"Sub","inputs":["y","t"],"attrs":{"T":"float32"}},
 {"name":"sq","op":"Square","inputs":["diff"],"attrs":{"T":"float32"}},
 {"name":"axes","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[0,1]}}},
 {"name":"loss","op":"Sum","inputs":["sq","axes"],"attrs":{"T":"float32","Tidx":"int32"}},
 {"name":"d","op":"Add","inputs":["diff","diff"],"attrs":{"T":"float32"}},
 {"name":"gW2","op":"MatMul","inputs":["h","d"],"attrs":{"T":"float32","transpose_a":true}},
 {"name":"dh","op":"MatMul","inputs":["d","W2/read"],"attrs":{"T":"float32","transpose_b":true}},
 {"name":"dz","op":"ReluGrad","inputs":["dh","h"],"attrs":{"T":"float32"}},
 {"name":"gW1","op":"MatMul","inputs":["x","dz"],"attrs":{"T":"float32","transpose_a":true}},
 {"name":"gb1","op":"BiasAddGrad","inputs":["dz"],"attrs":{"T":"float32"}},
 {"name":"lr","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[0.05]}}},
 {"name":"grads","op":"NoOp","inputs":["^gW1","^gb1","^gW2","^loss"]},
 {"name":"upd_W1","op":"ApplyGradientDescent","inputs":["W1","lr","gW1","^grads"],"attrs":{"T":"float32"}},
 {"name":"upd_b1","op":"ApplyGradientDescent","inputs":["b1","lr","gb1","^grads"],"attrs":{"T":"float32"}},
 {"name":"upd_W2","op":"ApplyGradientDescent","inputs":["W2","lr","gW2","^grads"],"attrs":{"T":"float32"}},
 {"name":"train","op":"NoOp","inputs":["^upd_W1","^upd_b1","^upd_W2"]}
]})";

struct MlpReference {
  float loss = 0;
  std::vector<float> w1, b1, w2;  // after one step
};

// The step computed here in double precision from the constants above.
MlpReference MlpByHand() {
  const double x[4][3] = {{0.5, -1, 2}, {1, 0.25, -0.5}, {-1.5, 1, 0.75}, {0.1, 0.2, 0.3}};
  const double t[4][2] = {{1, 0}, {0, 1}, {0.5, 0.5}, {-1, 2}};
  double w1[3][5] = {
      {0.1, -0.2, 0.3, 0.4, -0.5}, {0.6, 0.7, -0.8, 0.9, 0.1}, {-0.2, 0.3, 0.4, -0.5, 0.6}};
  double b1[5] = {0.05, -0.05, 0.15, 0, 0.2};
  double w2[5][2] = {{0.3, -0.1}, {0.2, 0.4}, {-0.6, 0.5}, {0.7, -0.3}, {0.1, 0.2}};
  const double lr = 0.05;
  double h[4][5], d[4][2], loss = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) {
      double z = b1[j];
      for (int k = 0; k < 3; k++) z += x[i][k] * w1[k][j];
      h[i][j] = z > 0 ? z : 0;
    }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++) {
      double y = 0;
      for (int k = 0; k < 5; k++) y += h[i][k] * w2[k][j];
      double diff = y - t[i][j];
      loss += diff * diff;
      d[i][j] = 2 * diff;
    }
  double dz[4][5];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) {
      double dh = 0;
      for (int k = 0; k < 2; k++) dh += d[i][k] * w2[j][k];
      dz[i][j] = h[i][j] > 0 ? dh : 0;
    }
  MlpReference r;
  r.loss = static_cast<float>(loss);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 5; b++) {
      double g = 0;
      for (int i = 0; i < 4; i++) g += x[i][a] * dz[i][b];
      r.w1.push_back(static_cast<float>(w1[a][b] - lr * g));
    }
  for (int b = 0; b < 5; b++) {
    double g = 0;
    for (int i = 0; i < 4; i++) g += dz[i][b];
    r.b1.push_back(static_cast<float>(b1[b] - lr * g));
  }
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 2; b++) {
      double g = 0;
      for (int i = 0; i < 4; i++) g += h[i][a] * d[i][b];
      r.w2.push_back(static_cast<float>(w2[a][b] - lr * g));
    }
  return r;
}

void ExpectNearAll(const std::vector<float>& got, const std::vector<float>& want,
                   const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); i++)
    EXPECT_NEAR(got[i], want[i], 1e-4) << what << " [" << i << "]";
}

Case MlpCase() {
  Case c;
  c.name = "mlp";
  c.load = [](grt_graph** g) { return grt_graph_from_json(kMlp, sizeof kMlp - 1, g); };
  c.init = {"init"};
  c.fetches = {"loss"};
  c.targets = {"train"};
  c.check = [](grt_session* s, grt_tensor** out, const std::string& what) {
    static const MlpReference ref = MlpByHand();
    std::vector<float> loss = Floats(out[0]);
    ASSERT_EQ(loss.size(), 1u) << what;
    EXPECT_NEAR(loss[0], ref.loss, 1e-4) << what;
    std::vector<grt_tensor*> vars(3, nullptr);
    grt_status* st = Run(s, {"W1/read", "b1/read", "W2/read"}, {}, vars.data());
    ASSERT_EQ(st, nullptr) << what << ": " << Describe(st);
    ExpectNearAll(Floats(vars[0]), ref.w1, what + " W1");
    ExpectNearAll(Floats(vars[1]), ref.b1, what + " b1");
    ExpectNearAll(Floats(vars[2]), ref.w2, what + " W2");
    FreeAll(vars);
  };
  return c;
}

// Effects ordered by control edges that cross devices: v = 0; inc adds 1 on
// cpu:0; `after` on cpu:1 waits for it; `read` on cpu:1 reads v after that;
// y on cpu:2 scales it by the fed k, and `done` on cpu:0 waits for y.
const char kControl[] = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"v","op":"VariableV2","device":"/cpu:0","attrs":{"dtype":"float32","shape":[]}},
 {"name":"zero","op":"Const","device":"/cpu:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[0]}}},
 {"name":"one","op":"Const","device":"/cpu:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[1]}}},
 {"name":"k","op":"Placeholder","device":"/cpu:2","attrs":{"dtype":"float32","shape":[]}},
 {"name":"init","op":"Assign","inputs":["v","zero"],"device":"/cpu:0","attrs":{"T":"float32"}},
 {"name":"inc","op":"AssignAdd","inputs":["v","one"],"device":"/cpu:0","attrs":{"T":"float32"}},
 {"name":"after","op":"NoOp","inputs":["^inc"],"device":"/cpu:1"},
 {"name":"read","op":"Identity","inputs":["v","^after"],"device":"/cpu:1","attrs":{"T":"float32"}},
 {"name":"y","op":"Mul","inputs":["read","k"],"device":"/cpu:2","attrs":{"T":"float32"}},
 {"name":"done","op":"NoOp","inputs":["^y","^after"],"device":"/cpu:0"}
]})";

Case ControlCase() {
  Case c;
  c.name = "control";
  c.load = [](grt_graph** g) { return grt_graph_from_json(kControl, sizeof kControl - 1, g); };
  c.options = {{"cpu.devices", "3"}};
  c.init = {"init"};
  c.fetches = {"read", "y"};
  c.targets = {"done"};
  c.feeds = {{"k", 3.f}};
  c.check = [](grt_session*, grt_tensor** out, const std::string& what) {
    EXPECT_EQ(Floats(out[0]), std::vector<float>{1}) << what;
    EXPECT_EQ(Floats(out[1]), std::vector<float>{3}) << what;
  };
  return c;
}

// Wide: 100 scalar constants ready at once (more than the executor's
// inline work stack holds) summed by one AddN, and a 5000-element constant
// whose three consumers are too big to run inline (so two go to the
// inter-op pool: concurrent_kernels=true, which hands one device's kernels
// over as the default no longer does), summed on the second device.
constexpr int kWideConsts = 100;
constexpr int kBig = 5000;

float BigValue(int i) { return static_cast<float>(i % 7 - 3); }

std::string WideGraph() {
  std::string j = R"({"format":"grt.graph","version":1,"nodes":[)";
  std::string addn_inputs;
  for (int i = 0; i < kWideConsts; i++) {
    j +=
        R"({"name":"c)" + std::to_string(i) +
        R"(","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[)" +
        std::to_string(i) + "]}}},\n";
    addn_inputs += (i ? ",\"c" : "\"c") + std::to_string(i) + "\"";
  }
  j += R"({"name":"sum","op":"AddN","inputs":[)" + addn_inputs +
       R"(],"attrs":{"T":"float32"}},)"
       "\n";
  std::string values;
  for (int i = 0; i < kBig; i++)
    values += (i ? "," : "") + std::to_string(static_cast<int>(BigValue(i)));
  j +=
      R"({"name":"big","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[)" +
      std::to_string(kBig) + R"(],"values":[)" + values + "]}}},\n";
  j += R"({"name":"r1","op":"Relu","inputs":["big"],"attrs":{"T":"float32"}},
 {"name":"r2","op":"Neg","inputs":["big"],"attrs":{"T":"float32"}},
 {"name":"r3","op":"Square","inputs":["big"],"attrs":{"T":"float32"}},
 {"name":"all","op":"AddN","inputs":["r1","r2","r3"],"device":"/cpu:1","attrs":{"T":"float32"}},
 {"name":"axis","op":"Const","device":"/cpu:1","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[1],"values":[0]}}},
 {"name":"total","op":"Sum","inputs":["all","axis"],"device":"/cpu:1","attrs":{"T":"float32","Tidx":"int32"}},
 {"name":"init","op":"NoOp"}
]})";
  return j;
}

Case WideCase() {
  Case c;
  c.name = "wide";
  c.load = [](grt_graph** g) {
    static const std::string text = WideGraph();
    return grt_graph_from_json(text.data(), text.size(), g);
  };
  c.options = {{"cpu.devices", "2"}, {"concurrent_kernels", "true"}};
  c.init = {"init"};
  c.fetches = {"sum", "total"};
  c.check = [](grt_session*, grt_tensor** out, const std::string& what) {
    double total = 0;
    for (int i = 0; i < kBig; i++) {
      double v = BigValue(i);
      total += (v > 0 ? v : 0) - v + v * v;
    }
    EXPECT_EQ(Floats(out[0]), std::vector<float>{kWideConsts * (kWideConsts - 1) / 2.f}) << what;
    EXPECT_EQ(Floats(out[1]), std::vector<float>{static_cast<float>(total)}) << what;
  };
  return c;
}

// ---- the driver ----------------------------------------------------------

grt_session_options* MakeOptions(const Case& c) {
  grt_session_options* o = nullptr;
  grt_status* st = grt_session_options_new(&o);
  EXPECT_EQ(st, nullptr) << Describe(st);
  grt_status_free(st);
  for (auto& kv : c.options) {
    st = grt_session_options_set(o, kv.first, kv.second);
    EXPECT_EQ(st, nullptr) << Describe(st);
    grt_status_free(st);
  }
  return o;
}

// With injection off: init, one main run, and the check.
void ResetRunAndCheck(const Case& c, grt_session* s, const std::string& what) {
  std::vector<grt_tensor*> out(c.fetches.size() + 1, nullptr);
  grt_status* st = Run(s, {}, c.init, out.data());
  ASSERT_EQ(st, nullptr) << what << ": init after injection: " << Describe(st);
  std::vector<grt_feed> feeds = MakeFeeds(c.feeds);
  st = Run(s, c.fetches, c.targets, out.data(), feeds);
  FreeFeeds(feeds);
  ASSERT_EQ(st, nullptr) << what << ": run after injection: " << Describe(st);
  c.check(s, out.data(), what + " (after injection)");
  FreeAll(out);
}

grt_session* NewSession(grt_graph* g, const grt_session_options* o) {
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  EXPECT_EQ(st, nullptr) << Describe(st);
  grt_status_free(st);
  return s;
}

// Persistent: every allocation from the (n+1)th on fails, so error paths
// run out of memory too (and report the preallocated out-of-memory status).
// Transient: only the (n+1)th fails, so error paths have memory and the
// code they report is the code checked; work may also carry on and succeed.
enum Mode { kPersistent, kTransient };
const char* const kModeNames[] = {"persistent", "transient"};

void Arm(Mode mode, int64_t n) {
  if (mode == kPersistent)
    grt_mem_fail_after(n);
  else
    grt_mem_fail_once_after(n);
}

enum Step { kLoad, kSessionNew, kFirstRun, kLaterRun, kCachedRun, kNumSteps };
const char* const kStepNames[] = {"load+validate", "session_new", "first run (init)",
                                  "later run (new signature)", "later run (cached)"};

// One attempt at `step` with allocation n failing (n < 0: none). Returns
// the allocations the armed part took; *ok says whether the step worked.
int64_t Attempt(const Case& c, grt_graph* g, const grt_session_options* o, Step step, Mode mode,
                int64_t n, bool* ok = nullptr) {
  bool ignored;
  if (!ok) ok = &ignored;
  *ok = false;
  std::string what =
      c.name + " " + kStepNames[step] + " " + kModeNames[mode] + " n=" + std::to_string(n);
  int64_t count = 0;
  grt_mem_fail_after(-1);
  if (step == kLoad) {
    grt_graph* got = nullptr;
    Arm(mode, n);
    grt_status* st = c.load(&got);
    count = grt_mem_fail_after(-1);
    *ok = !st;
    if (st) {
      EXPECT_EQ(got, nullptr) << what;
    } else {
      EXPECT_EQ(grt_graph_num_nodes(got), grt_graph_num_nodes(g)) << what;
    }
    ExpectOomOrOk(st, what);
    grt_graph_free(got);
    return count;
  }
  if (step == kSessionNew) {
    grt_session* s = nullptr;
    Arm(mode, n);
    grt_status* st = grt_session_new(g, o, &s);
    count = grt_mem_fail_after(-1);
    *ok = !st;
    if (st) {
      EXPECT_EQ(s, nullptr) << what;
    }
    ExpectOomOrOk(st, what);
    if (s) ResetRunAndCheck(c, s, what);
    grt_session_free(s);
    return count;
  }
  grt_session* s = NewSession(g, o);
  if (!s) return 0;
  std::vector<grt_tensor*> out(c.fetches.size() + 1, nullptr);
  std::vector<grt_feed> feeds = MakeFeeds(c.feeds);
  grt_status* st = nullptr;
  if (step == kLaterRun || step == kCachedRun) {
    st = Run(s, {}, c.init, out.data());
    EXPECT_EQ(st, nullptr) << what << ": " << Describe(st);
    grt_status_free(st);
  }
  if (step == kCachedRun) {
    st = Run(s, c.fetches, c.targets, out.data(), feeds);
    EXPECT_EQ(st, nullptr) << what << ": " << Describe(st);
    grt_status_free(st);
    FreeAll(out);
    st = Run(s, {}, c.init, out.data());
    EXPECT_EQ(st, nullptr) << what << ": " << Describe(st);
    grt_status_free(st);
  }
  const bool init = step == kFirstRun;
  Arm(mode, n);
  st = init ? Run(s, {}, c.init, out.data()) : Run(s, c.fetches, c.targets, out.data(), feeds);
  count = grt_mem_fail_after(-1);
  *ok = !st;
  if (st) {
    for (size_t i = 0; i < c.fetches.size(); i++) EXPECT_EQ(out[i], nullptr) << what;
  } else if (!init) {
    c.check(s, out.data(), what);
  }
  ExpectOomOrOk(st, what);
  FreeAll(out);
  FreeFeeds(feeds);
  ResetRunAndCheck(c, s, what);
  grt_session_free(s);
  return count;
}

TEST(MemInjection, PersistentAndTransient) {
  grt_mem_fail_after(2);
  void* a = grt_malloc(8);
  void* b = grt_malloc(8);
  void* c = grt_malloc(8);
  void* d = grt_malloc(8);
  EXPECT_EQ(grt_mem_fail_after(-1), 4);
  EXPECT_TRUE(a && b && !c && !d);
  free(a);
  free(b);
  grt_mem_fail_once_after(1);
  a = grt_malloc(8);
  b = grt_malloc(8);
  c = grt_malloc(8);
  EXPECT_EQ(grt_mem_fail_after(-1), 3);
  EXPECT_TRUE(a && !b && c);
  free(a);
  free(c);
}

class AllocFailure : public ::testing::TestWithParam<int> {};

Case CaseAt(int i) {
  switch (i) {
    case 0:
      return SeedsCase();
    case 1:
      return MlpCase();
    case 2:
      return ControlCase();
    default:
      return WideCase();
  }
}

TEST_P(AllocFailure, EveryAllocationOfEveryStep) {
  const Case c = CaseAt(GetParam());
  // Unarmed first: this also builds the process-wide registries (ops,
  // kernels, backends), which are made once and are not what is tested.
  grt_graph* g = nullptr;
  grt_status* st = c.load(&g);
  ASSERT_EQ(st, nullptr) << Describe(st);
  grt_session_options* o = MakeOptions(c);
  for (int step = 0; step < kNumSteps; step++) {
    Step sp = static_cast<Step>(step);
    int64_t count = 0;
    // Counted twice: the second time is the steady state (caches warm).
    for (int k = 0; k < 2; k++)
      WithTimeout(c.name + " counting " + kStepNames[sp],
                  [&] { count = Attempt(c, g, o, sp, kPersistent, -1); });
    if (HasFatalFailure() || HasFailure()) break;
    int64_t stride = count <= 2 * kExhaustive ? 1 : (count - kExhaustive) / kExhaustive + 1;
    printf("%s: %s takes %lld allocations; injecting at n = 0..%lld%s\n", c.name.c_str(),
           kStepNames[sp], static_cast<long long>(count), static_cast<long long>(count),
           stride > 1 ? (" (stride " + std::to_string(stride) + " after " +
                         std::to_string(kExhaustive) + ")")
                            .c_str()
                      : "");
    fflush(stdout);
    for (Mode mode : {kPersistent, kTransient}) {
      int64_t attempts = 0, failed = 0;
      for (int64_t n = 0; n <= count; n += n < kExhaustive ? 1 : stride) {
        bool ok = false;
        WithTimeout(c.name + " " + kStepNames[sp] + " with allocation " + std::to_string(n) +
                        " failing (" + kModeNames[mode] + ")",
                    [&] { Attempt(c, g, o, sp, mode, n, &ok); });
        attempts++;
        failed += !ok;
        // One report per step is enough to go on.
        if (HasFailure()) {
          ADD_FAILURE() << c.name << " " << kStepNames[sp] << " " << kModeNames[mode]
                        << ": stopped at n=" << n;
          break;
        }
      }
      printf("  %s: %lld attempts, %lld returned RESOURCE_EXHAUSTED, the rest succeeded\n",
             kModeNames[mode], static_cast<long long>(attempts), static_cast<long long>(failed));
      if (HasFailure()) break;
    }
    if (HasFailure()) break;
    // Plenty of room: it must simply work.
    bool ok = false;
    WithTimeout(c.name + " " + kStepNames[sp] + " with room",
                [&] { Attempt(c, g, o, sp, kPersistent, 2 * count + 1000, &ok); });
    EXPECT_TRUE(ok) << c.name << " " << kStepNames[sp] << " failed with room to spare";
  }
  grt_mem_fail_after(-1);
  grt_session_options_free(o);
  grt_graph_free(g);
}

INSTANTIATE_TEST_SUITE_P(Graphs, AllocFailure, ::testing::Values(0, 1, 2, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return CaseAt(info.param).name;
                         });

}  // namespace
