// The GPU suite, GPU memory per process (backends/cuda/gpu_memory.h): each
// logical GPU's allocator is made by the first session and shared by the
// later ones, so sessions in a loop are cheap, a held (or leaked) session
// does not starve the next, memory_limit bounds one session on the GPU,
// and options that differ from a held allocator's are refused.
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs
// the cases that mean something on the CPU: the loop and memory_limit).
#include "tests/gpu/gpu_suite_util.h"

#include <algorithm>

namespace {

class GpuMemory : public GpuSuite {};

// a (n x 1) times b (1 x n) on GPU:0: an n*n float product (4 n^2 bytes),
// its maximum fetched.
const char* kOuter = R"({"format":"grt.graph","version":1,"nodes":[
  {"name":"a","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,1]}},
  {"name":"b","op":"Placeholder","attrs":{"dtype":"float32","shape":[1,-1]}},
  {"name":"m","op":"MatMul","inputs":["a","b"],"device":"/device:GPU:0"},
  {"name":"y","op":"Max","inputs":["m","axes"],"device":"/device:GPU:0"},
  {"name":"axes","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[0,1]}}}
]})";

// A session over kOuter with options "key=value" pairs (soft placement in
// the dry run).
grt_status* NewSession(grt_graph* g, const std::vector<std::pair<std::string, std::string>>& kv,
                       grt_session** s) {
  grt_session_options* o = nullptr;
  grt_status* st = grt_session_options_new(&o);
  if (!st && Dry()) st = grt_session_options_set(o, "allow_soft_placement", "true");
  for (auto& p : kv)
    if (!st) st = grt_session_options_set(o, p.first.c_str(), p.second.c_str());
  if (!st) st = grt_session_new(g, o, s);
  grt_session_options_free(o);
  return st;
}

// Runs the n*n product; the status, and the maximum checked when it ran.
grt_status* RunOuter(grt_session* s, int64_t n) {
  Input ai{GRT_FLOAT32, {n, 1}}, bi{GRT_FLOAT32, {1, n}};
  grt_tensor* a = Random(ai);
  grt_tensor* b = Random(bi);
  grt_feed feeds[2] = {{"a", a}, {"b", b}};
  const char* fetch = "y";
  grt_tensor* out = nullptr;
  grt_status* st = grt_session_run(s, feeds, 2, &fetch, 1, nullptr, 0, &out, nullptr);
  if (!st) {
    const float* av = static_cast<const float*>(grt_tensor_data(a));
    const float* bv = static_cast<const float*>(grt_tensor_data(b));
    float amax = *std::max_element(av, av + n), amin = *std::min_element(av, av + n);
    float bmax = *std::max_element(bv, bv + n), bmin = *std::min_element(bv, bv + n);
    float want = std::max(std::max(amax * bmax, amax * bmin), std::max(amin * bmax, amin * bmin));
    EXPECT_NEAR(*static_cast<float*>(grt_tensor_data(out)), want, 1e-5f * std::fabs(want));
  }
  grt_tensor_free(out);
  grt_tensor_free(a);
  grt_tensor_free(b);
  return st;
}

struct Graph {
  grt_graph* g = nullptr;
  Graph() { EXPECT_EQ(grt_graph_from_json(kOuter, strlen(kOuter), &g), nullptr); }
  ~Graph() { grt_graph_free(g); }
};

// Sessions made, run once and freed in a loop: the first makes GPU:0's
// allocator (reserving the card), the rest share it, so each costs its
// streams and cuBLAS handle, not a reservation of the card.
TEST_F(GpuMemory, SessionsInALoopShareTheAllocator) {
  Graph graph;
  using Clock = std::chrono::steady_clock;
  auto once = [&] {
    grt_session* s = nullptr;
    ASSERT_OK(NewSession(graph.g, {}, &s));
    ASSERT_OK(RunOuter(s, 64));
    grt_session_free(s);
  };
  auto t0 = Clock::now();
  once();
  double first = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  const int kSessions = 200;
  t0 = Clock::now();
  for (int i = 0; i < kSessions && !HasFatalFailure(); i++) once();
  double each = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / kSessions;
  printf("sessions: first %.2f ms, then %.3f ms each (create, one run, free; %d sessions)\n", first,
         each, kSessions);
  if (!Dry()) {
    EXPECT_LT(each, 100.0) << "each session costs what a card's reservation does";
  }
}

// memory_limit bounds one session's GPU:0: a product past it fails with
// RESOURCE_EXHAUSTED naming the limit, the device and the allocator's
// state; the session then runs a small one, and another session with no
// limit, alive at once, runs the large one from the shared allocator.
TEST_F(GpuMemory, MemoryLimitRefusesOnTheGpuAndTheSessionStaysUsable) {
  Graph graph;
  grt_session *limited = nullptr, *free_one = nullptr;
  ASSERT_OK(NewSession(graph.g, {{"memory_limit", "64M"}}, &limited));
  grt_status* st = RunOuter(limited, 5000);  // 100 MB of product
  ASSERT_NE(st, nullptr);
  std::string msg = grt_status_message(st);
  printf("memory_limit message: %s\n", msg.c_str());
  EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED) << msg;
  grt_status_free(st);
  EXPECT_NE(msg.find("memory limit of 67108864 bytes on"), std::string::npos) << msg;
  EXPECT_NE(msg.find("100000000"), std::string::npos) << msg;
  if (!Dry()) {
    EXPECT_NE(msg.find("GPU:0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("the session's memory_limit of 67108864 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("largest free chunk"), std::string::npos) << msg;
  }
  ASSERT_OK(RunOuter(limited, 1000));  // 4 MB: the session stays usable
  ASSERT_OK(NewSession(graph.g, {}, &free_one));
  ASSERT_OK(RunOuter(free_one, 5000));
  ASSERT_OK(RunOuter(limited, 1000));
  grt_session_free(free_one);
  grt_session_free(limited);
}

// A session still held (as one a failed ASSERT leaks) keeps only its own
// tensors: the next session shares GPU:0's allocator and runs a 6.4 GB
// product, where a session reserving the card for itself found only the
// headroom the first left (2% of the card) and failed.
TEST_F(GpuMemory, AHeldSessionDoesNotStarveTheNext) {
  if (Dry()) GTEST_SKIP() << "the CPU has no shared reservation";
  Graph graph;
  grt_session *held = nullptr, *next = nullptr;
  ASSERT_OK(NewSession(graph.g, {}, &held));
  ASSERT_OK(RunOuter(held, 5000));
  for (int i = 0; i < 3; i++) {
    ASSERT_OK(NewSession(graph.g, {}, &next));
    grt_status* st = RunOuter(next, 40000);
    EXPECT_EQ(st, nullptr) << i << ": " << grt_status_message(st);
    grt_status_free(st);
    grt_session_free(next);
  }
  grt_session_free(held);
}

// gpu.allow_growth and gpu.memory_fraction are per process: a session
// asking for others while one holds GPU:0's allocator is refused, naming
// both; once none holds it, the allocator is made again with the new ones.
TEST_F(GpuMemory, DifferentGpuOptionsWhileASessionHoldsTheGpu) {
  if (Dry()) GTEST_SKIP() << "gpu.* options do not reach the CPU";
  Graph graph;
  grt_session *a = nullptr, *b = nullptr;
  ASSERT_OK(NewSession(graph.g, {}, &a));
  ASSERT_OK(RunOuter(a, 64));
  grt_status* st = NewSession(graph.g, {{"gpu.allow_growth", "true"}}, &b);
  ASSERT_NE(st, nullptr);
  std::string msg = grt_status_message(st);
  printf("mismatch message: %s\n", msg.c_str());
  EXPECT_EQ(grt_status_code(st), GRT_FAILED_PRECONDITION) << msg;
  EXPECT_NE(msg.find("asks for gpu.allow_growth=true"), std::string::npos) << msg;
  EXPECT_NE(msg.find("made with gpu.allow_growth=false"), std::string::npos) << msg;
  grt_status_free(st);
  ASSERT_OK(RunOuter(a, 64));  // the holder is untouched
  grt_session_free(a);
  ASSERT_OK(NewSession(graph.g, {{"gpu.allow_growth", "true"}}, &b));
  ASSERT_OK(RunOuter(b, 5000));
  grt_session_free(b);
  // Back to the defaults for the cases after this one.
  ASSERT_OK(NewSession(graph.g, {}, &a));
  ASSERT_OK(RunOuter(a, 64));
  grt_session_free(a);
}

}  // namespace
