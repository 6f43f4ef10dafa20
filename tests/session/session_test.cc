// Sessions end to end: placement, partitioning across logical CPUs with
// Send/Recv, variables across runs, feeds/fetches/targets, errors that leave
// the session usable, concurrency.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "grt/grt.h"

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

std::string Msg(grt_status* s) {
  std::string m = grt_status_message(s);
  grt_status_free(s);
  return m;
}

grt_graph* Parse(const std::string& text) {
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(text.data(), text.size(), &g);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return g;
}

grt_session_options* Options(std::initializer_list<std::pair<const char*, const char*>> kv) {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  for (auto& p : kv) {
    grt_status* s = grt_session_options_set(o, p.first, p.second);
    EXPECT_EQ(s, nullptr) << grt_status_message(s);
    grt_status_free(s);
  }
  return o;
}

std::vector<float> Floats(const grt_tensor* t) {
  const float* p = static_cast<const float*>(grt_tensor_data(t));
  return std::vector<float>(p, p + grt_tensor_num_elements(t));
}

grt_tensor* Scalar(float v) {
  grt_tensor* t = nullptr;
  grt_status_free(grt_tensor_new(GRT_FLOAT32, 0, nullptr, &t));
  *static_cast<float*>(grt_tensor_data(t)) = v;
  return t;
}

// y = (x + c) * x, with x fed; nodes pinned to three logical CPUs when
// `spread`, so the value crosses devices twice.
std::string SmallGraph(bool spread) {
  std::string d0 = spread ? "/cpu:0" : "", d1 = spread ? "/cpu:1" : "", d2 = spread ? "/cpu:2" : "";
  return R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","device":")" +
         d0 + R"(","attrs":{"dtype":"float32","shape":[2]}},
    {"name":"c","op":"Const","device":")" +
         d1 +
         R"(","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2],"values":[1,2]}}},
    {"name":"sum","op":"Add","inputs":["x","c"],"device":")" +
         d1 + R"(","attrs":{"T":"float32"}},
    {"name":"y","op":"Mul","inputs":["sum","x"],"device":")" +
         d2 + R"(","attrs":{"T":"float32"}},
    {"name":"done","op":"NoOp","inputs":["^y"],"device":")" +
         d0 + R"("}
  ]})";
}

TEST(Session, UnknownOptionIsAnError) {
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  std::string m = Msg(grt_session_options_set(o, "allow_soft_placment", "true"));
  EXPECT_NE(m.find("unknown session option 'allow_soft_placment'"), std::string::npos) << m;
  m = Msg(grt_session_options_set(o, "cpu.devices", "0"));
  EXPECT_NE(m.find("cpu.devices"), std::string::npos) << m;
  m = Msg(grt_session_options_set(o, "gpu.memory_fraction", "1.5"));
  EXPECT_NE(m.find("gpu.memory_fraction"), std::string::npos) << m;
  ASSERT_OK(grt_session_options_set(o, "gpu.virtual_devices", "1024,1024,1024,1024"));
  ASSERT_OK(grt_session_options_set(o, "ps.strategy", "round_robin"));
  grt_session_options_free(o);
}

// Thread counts go up to 4096 and no further.
TEST(Session, ThreadCountOptionsStopAt4096) {
  grt_session_options* o = nullptr;
  ASSERT_OK(grt_session_options_new(&o));
  ASSERT_OK(grt_session_options_set(o, "inter_op_threads", "4096"));
  EXPECT_EQ(Msg(grt_session_options_set(o, "inter_op_threads", "4097")),
            "option inter_op_threads: '4097' is not an integer in [0, 4096]");
  grt_session_options_free(o);
}

TEST(Session, FeedsFetchesAndMultiDeviceAgree) {
  std::vector<float> results[2];
  for (int spread = 0; spread < 2; spread++) {
    grt_graph* g = Parse(SmallGraph(spread));
    ASSERT_NE(g, nullptr);
    grt_session_options* o = Options({{"cpu.devices", spread ? "3" : "1"}});
    grt_session* s = nullptr;
    ASSERT_OK(grt_session_new(g, o, &s));
    if (spread) {
      const grt_plan* p = grt_session_plan(s);
      EXPECT_STREQ(grt_plan_node_device_name(p, grt_graph_find_node(g, "y")),
                   "/job:localhost/replica:0/task:0/device:CPU:2");
    }
    int64_t dims[] = {2};
    grt_tensor* x = nullptr;
    ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, dims, &x));
    static_cast<float*>(grt_tensor_data(x))[0] = 3;
    static_cast<float*>(grt_tensor_data(x))[1] = -4;
    grt_feed feed = {"x", x};
    const char* fetch[] = {"y", "sum:0"};
    const char* target[] = {"done"};
    grt_tensor* out[2];
    ASSERT_OK(grt_session_run(s, &feed, 1, fetch, 2, target, 1, out, nullptr));
    results[spread] = Floats(out[0]);
    EXPECT_EQ(results[spread], (std::vector<float>{(3 + 1) * 3.f, (-4 + 2) * -4.f}));
    EXPECT_EQ(Floats(out[1]), (std::vector<float>{4, -2}));
    grt_tensor_free(out[0]);
    grt_tensor_free(out[1]);
    grt_tensor_free(x);
    grt_session_free(s);
    grt_session_options_free(o);
    grt_graph_free(g);
  }
  EXPECT_EQ(results[0], results[1]);
}

// Fetched tensors belong to the caller: they stay readable after the
// session (and its devices' allocators) are freed, and free cleanly then
// (under ASan a dangling allocator is a use-after-free).
TEST(Session, FetchedTensorsOutliveTheSession) {
  grt_graph* g = Parse(SmallGraph(true));
  ASSERT_NE(g, nullptr);
  grt_session_options* o = Options({{"cpu.devices", "3"}});
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  int64_t dims[] = {2};
  grt_tensor* x = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, dims, &x));
  static_cast<float*>(grt_tensor_data(x))[0] = 3;
  static_cast<float*>(grt_tensor_data(x))[1] = -4;
  grt_feed feed = {"x", x};
  const char* fetch[] = {"y", "sum:0"};
  grt_tensor* out[2];
  ASSERT_OK(grt_session_run(s, &feed, 1, fetch, 2, nullptr, 0, out, nullptr));
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{(3 + 1) * 3.f, (-4 + 2) * -4.f}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{4, -2}));
  grt_tensor_free(out[1]);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{(3 + 1) * 3.f, (-4 + 2) * -4.f}));
  grt_tensor_free(out[0]);
  grt_tensor_free(x);
}

TEST(Session, BadFeedsAndFetchesLeaveTheSessionUsable) {
  grt_graph* g = Parse(SmallGraph(false));
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, nullptr, &s));
  const char* fetch[] = {"y"};
  grt_tensor* out[1];
  // An unfed placeholder: TensorFlow's message, naming it.
  std::string m = Msg(grt_session_run(s, nullptr, 0, fetch, 1, nullptr, 0, out, nullptr));
  EXPECT_NE(m.find("placeholder"), std::string::npos) << m;
  EXPECT_NE(m.find("'x'"), std::string::npos) << m;
  // Wrong dtype, wrong shape.
  int64_t three[] = {3};
  grt_tensor* bad = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_INT32, 1, three, &bad));
  grt_feed f = {"x", bad};
  m = Msg(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, out, nullptr));
  EXPECT_NE(m.find("feed 'x': the tensor is float32, but a int32 value was fed"), std::string::npos)
      << m;
  grt_tensor_free(bad);
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, three, &bad));
  f.value = bad;
  m = Msg(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, out, nullptr));
  EXPECT_NE(m.find("cannot feed a value of shape [3] for a tensor of shape [2]"), std::string::npos)
      << m;
  grt_tensor_free(bad);
  // A fetch of a missing node, a bad target.
  const char* missing[] = {"nope:0"};
  m = Msg(grt_session_run(s, nullptr, 0, missing, 1, nullptr, 0, out, nullptr));
  EXPECT_NE(m.find("fetch 'nope:0': the graph has no node named 'nope'"), std::string::npos) << m;
  const char* bad_target[] = {"ghost"};
  m = Msg(grt_session_run(s, nullptr, 0, nullptr, 0, bad_target, 1, out, nullptr));
  EXPECT_NE(m.find("target 'ghost'"), std::string::npos) << m;
  // Still usable.
  grt_tensor* x = Scalar(0);
  grt_tensor_free(x);
  int64_t two[] = {2};
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, two, &x));
  f = {"x", x};
  ASSERT_OK(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, out, nullptr));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 0}));
  grt_tensor_free(out[0]);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_graph_free(g);
}

// A tensor fed twice is an error, wherever the repeat sits among the feeds
// (here before a third feed, whose entry the check has not reached yet).
TEST(Session, FeedGivenTwiceIsAnError) {
  grt_graph* g = Parse(SmallGraph(true));
  grt_session* s = nullptr;
  grt_session_options* o = Options({{"cpu.devices", "3"}});
  ASSERT_OK(grt_session_new(g, o, &s));
  int64_t two[] = {2};
  grt_tensor* x = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, two, &x));
  std::memset(grt_tensor_data(x), 0, 2 * sizeof(float));
  const char* fetch[] = {"y"};
  grt_tensor* out[1];
  grt_feed twice[] = {{"x", x}, {"x:0", x}, {"c", x}};
  std::string m = Msg(grt_session_run(s, twice, 3, fetch, 1, nullptr, 0, out, nullptr));
  EXPECT_NE(m.find("feed 'x:0' is given twice"), std::string::npos) << m;
  // The same feeds once each run: c fed as zeros gives (0 + 0) * 0.
  grt_feed once[] = {{"x", x}, {"c", x}};
  ASSERT_OK(grt_session_run(s, once, 2, fetch, 1, nullptr, 0, out, nullptr));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 0}));
  grt_tensor_free(out[0]);
  grt_tensor_free(x);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

TEST(Session, KernelErrorNamesTheNode) {
  grt_graph* g = Parse(R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"Placeholder","attrs":{"dtype":"float32"}},
    {"name":"b","op":"Placeholder","attrs":{"dtype":"float32"}},
    {"name":"m","op":"MatMul","inputs":["a","b"],"attrs":{"T":"float32"}}]})");
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, nullptr, &s));
  int64_t d23[] = {2, 3}, d43[] = {4, 3};
  grt_tensor *a = nullptr, *b = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 2, d23, &a));
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 2, d43, &b));
  grt_feed f[] = {{"a", a}, {"b", b}};
  const char* fetch[] = {"m"};
  grt_tensor* out[1];
  std::string m = Msg(grt_session_run(s, f, 2, fetch, 1, nullptr, 0, out, nullptr));
  EXPECT_NE(m.find("node 'm' (MatMul)"), std::string::npos) << m;
  grt_tensor_free(a);
  grt_tensor_free(b);
  grt_session_free(s);
  grt_graph_free(g);
}

// The seeds' example: three products pinned to three GPUs, summed on the
// CPU; on this machine (no GPU) soft placement runs it on the CPU.
TEST(Session, SeedsThreeGpuExampleWithSoftPlacement) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_load("examples/three_gpus.json", &g));
  grt_session* s = nullptr;
  std::string m = Msg(grt_session_new(g, nullptr, &s));
  EXPECT_NE(m.find("Cannot assign a device for operation a_0"), std::string::npos) << m;
  grt_session_options* o = Options({{"allow_soft_placement", "true"}});
  ASSERT_OK(grt_session_new(g, o, &s));
  // Reading a variable before init: TensorFlow's error.
  const char* sum[] = {"AddN"};
  grt_tensor* out[7];
  m = Msg(grt_session_run(s, nullptr, 0, sum, 1, nullptr, 0, out, nullptr));
  EXPECT_NE(m.find("Attempting to use uninitialized value"), std::string::npos) << m;
  const char* init[] = {"init"};
  ASSERT_OK(grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, out, nullptr));
  const char* fetch[] = {"AddN",     "a_0/read", "b_0/read", "a_1/read",
                         "b_1/read", "a_2/read", "b_2/read"};
  ASSERT_OK(grt_session_run(s, nullptr, 0, fetch, 7, nullptr, 0, out, nullptr));
  // Reference: the sum of the three products, computed here.
  float ref[4] = {0, 0, 0, 0};
  for (int k = 0; k < 3; k++) {
    std::vector<float> a = Floats(out[1 + 2 * k]), b = Floats(out[2 + 2 * k]);
    for (float v : a) EXPECT_TRUE(v >= -1 && v < 1);
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        for (int l = 0; l < 3; l++) ref[i * 2 + j] += a[i * 3 + l] * b[l * 2 + j];
  }
  std::vector<float> got = Floats(out[0]);
  for (int i = 0; i < 4; i++) EXPECT_NEAR(got[i], ref[i], 1e-5);
  // Variables persist: a second run gives the same sum.
  grt_tensor* again[1];
  ASSERT_OK(grt_session_run(s, nullptr, 0, fetch, 1, nullptr, 0, again, nullptr));
  EXPECT_EQ(Floats(again[0]), got);
  grt_tensor_free(again[0]);
  for (auto* t : out) grt_tensor_free(t);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

TEST(Session, ControlEdgesAcrossDevicesOrderEffects) {
  // v = 0; a1: v += 1 (cpu:0); a2 on cpu:1 runs after a1 via a control edge
  // and reads v; the control dependency crosses devices as a Send/Recv.
  grt_graph* g = Parse(R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"v","op":"VariableV2","device":"/cpu:0","attrs":{"dtype":"float32","shape":[]}},
    {"name":"zero","op":"Const","device":"/cpu:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[0]}}},
    {"name":"one","op":"Const","device":"/cpu:0","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[1]}}},
    {"name":"init","op":"Assign","inputs":["v","zero"],"device":"/cpu:0","attrs":{"T":"float32"}},
    {"name":"inc","op":"AssignAdd","inputs":["v","one"],"device":"/cpu:0","attrs":{"T":"float32"}},
    {"name":"after","op":"NoOp","inputs":["^inc"],"device":"/cpu:1"},
    {"name":"read","op":"Identity","inputs":["v","^after"],"device":"/cpu:1","attrs":{"T":"float32"}}]})");
  grt_session_options* o = Options({{"cpu.devices", "2"}});
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  const char* init[] = {"init"};
  grt_tensor* out[1];
  ASSERT_OK(grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, out, nullptr));
  const char* fetch[] = {"read"};
  for (int step = 1; step <= 3; step++) {
    ASSERT_OK(grt_session_run(s, nullptr, 0, fetch, 1, nullptr, 0, out, nullptr));
    EXPECT_EQ(Floats(out[0])[0], static_cast<float>(step));
    grt_tensor_free(out[0]);
  }
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

TEST(Session, ConcurrentRunsGiveTheSameResults) {
  grt_graph* g = Parse(SmallGraph(true));
  grt_session_options* o = Options({{"cpu.devices", "3"}});
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; t++) {
    threads.emplace_back([&, t] {
      int64_t dims[] = {2};
      for (int i = 0; i < 1000; i++) {
        grt_tensor* x = nullptr;
        grt_status_free(grt_tensor_new(GRT_FLOAT32, 1, dims, &x));
        float a = static_cast<float>(t), b = static_cast<float>(i);
        static_cast<float*>(grt_tensor_data(x))[0] = a;
        static_cast<float*>(grt_tensor_data(x))[1] = b;
        grt_feed f = {"x", x};
        const char* fetch[] = {"y"};
        grt_tensor* out[1] = {nullptr};
        grt_status* st = grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, out, nullptr);
        if (st || Floats(out[0]) != std::vector<float>{(a + 1) * a, (b + 2) * b}) failures[t]++;
        grt_status_free(st);
        grt_tensor_free(out[0]);
        grt_tensor_free(x);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; t++) EXPECT_EQ(failures[t], 0) << "thread " << t;
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

TEST(Session, TraceHasASlicePerKernelAndCopy) {
  grt_graph* g = Parse(SmallGraph(true));
  grt_session_options* o = Options({{"cpu.devices", "3"}});
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  grt_trace* tr = nullptr;
  ASSERT_OK(grt_trace_new(&tr));
  int64_t dims[] = {2};
  grt_tensor* x = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, dims, &x));
  grt_feed f = {"x", x};
  const char* fetch[] = {"y"};
  grt_tensor* out[1];
  ASSERT_OK(grt_session_run(s, &f, 1, fetch, 1, nullptr, 0, out, tr));
  grt_tensor_free(out[0]);
  // c, sum, y, plus a Send/Recv for sum->y (cpu:1 -> cpu:2); the fed x goes
  // straight to its consumers.
  EXPECT_EQ(grt_trace_num_events(tr), 3 + 2);
  char* buf = nullptr;
  size_t len = 0;
  FILE* mem = open_memstream(&buf, &len);
  ASSERT_OK(grt_trace_write_json(tr, mem));
  fclose(mem);
  std::string json(buf, len);
  free(buf);
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(json.find("\"cat\":\"send\""), std::string::npos);
  EXPECT_NE(json.find("device:CPU:2"), std::string::npos);
  grt_tensor_free(x);
  grt_trace_free(tr);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

}  // namespace

namespace {

// A callable gives what grt_session_run gives, by handles or names, and
// rejects bad handles and feeds naming what is wrong.
TEST(Callable, MatchesSessionRunAndChecksArguments) {
  grt_graph* g = Parse(SmallGraph(true));
  grt_session_options* o = Options({{"cpu.devices", "3"}});
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, o, &s));
  grt_output x, y;
  ASSERT_OK(grt_graph_output(g, "x", &x));
  ASSERT_OK(grt_graph_output(g, "y:0", &y));
  grt_callable* c = nullptr;
  ASSERT_OK(grt_session_make_callable(s, &x, 1, &y, 1, nullptr, 0, &c));
  const char* feed_names[] = {"x"};
  const char* fetch_names[] = {"y"};
  grt_callable* cn = nullptr;
  ASSERT_OK(grt_session_make_callable_by_name(s, feed_names, 1, fetch_names, 1, nullptr, 0, &cn));
  grt_tensor* xv = nullptr;
  int64_t dims[1] = {2};
  ASSERT_OK(grt_tensor_new(GRT_FLOAT32, 1, dims, &xv));
  static_cast<float*>(grt_tensor_data(xv))[0] = 3;
  static_cast<float*>(grt_tensor_data(xv))[1] = -4;
  grt_tensor *a = nullptr, *b = nullptr;
  ASSERT_OK(grt_callable_run(c, &xv, &a, nullptr));
  ASSERT_OK(grt_callable_run(cn, &xv, &b, nullptr));
  EXPECT_EQ(Floats(a), (std::vector<float>{12, 8}));  // (x + [1,2]) * x
  EXPECT_EQ(Floats(b), Floats(a));
  grt_tensor_free(a);
  grt_tensor_free(b);
  grt_output bad = {1000, 0};
  grt_callable* none = nullptr;
  std::string m = Msg(grt_session_make_callable(s, &x, 1, &bad, 1, nullptr, 0, &none));
  EXPECT_EQ(none, nullptr);
  EXPECT_NE(m.find("fetch: node index 1000 is out of range"), std::string::npos) << m;
  grt_tensor* wrong = Scalar(1);
  grt_tensor* out = nullptr;
  m = Msg(grt_callable_run(cn, &wrong, &out, nullptr));
  EXPECT_NE(m.find("cannot feed a value of shape"), std::string::npos) << m;
  EXPECT_EQ(Msg(grt_graph_output(g, "nope", &x)).find("no node named 'nope'") != std::string::npos,
            true);
  grt_tensor_free(wrong);
  grt_tensor_free(xv);
  grt_callable_free(cn);
  grt_callable_free(c);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

}  // namespace
