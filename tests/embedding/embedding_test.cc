// The embedding API: grt_version, grt_tensor_wrap (host memory handed over
// without a copy), the log sink (the library never writes to stdout).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "grt/grt.h"

extern "C" {
#include "base/log.h"
#include "base/mem.h"
}

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

// Takes the status: its code, and frees it.
grt_code CodeOf(grt_status* s) {
  grt_code c = grt_status_code(s);
  grt_status_free(s);
  return c;
}

TEST(Version, LibraryMatchesHeader) {
  EXPECT_STREQ(grt_version(), GRT_VERSION_STRING);
  EXPECT_STREQ(grt_version(), "0.2.0");
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", GRT_VERSION_MAJOR, GRT_VERSION_MINOR, GRT_VERSION_PATCH);
  EXPECT_STREQ(grt_version(), want);
}

// ---- grt_tensor_wrap ------------------------------------------------------

struct Freed {
  int calls = 0;
  void* data = nullptr;
  size_t len = 0;
};

void CountFree(void* data, size_t len, void* arg) {
  Freed* f = static_cast<Freed*>(arg);
  f->calls++;
  f->data = data;
  f->len = len;
}

void FreeMalloced(void* data, size_t len, void* arg) {
  free(data);
  static_cast<std::atomic<int>*>(arg)->fetch_add(1);
}

TEST(TensorWrap, UsesTheMemoryInPlaceAndDeallocatesWithTheLastReference) {
  alignas(8) float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t dims[] = {2, 3};
  Freed f;
  grt_tensor* t = nullptr;
  ASSERT_OK(grt_tensor_wrap(data, GRT_FLOAT32, 2, dims, CountFree, &f, &t));
  EXPECT_EQ(grt_tensor_data(t), data);
  EXPECT_EQ(grt_tensor_dtype(t), GRT_FLOAT32);
  EXPECT_EQ(grt_tensor_rank(t), 2);
  EXPECT_EQ(grt_tensor_dim(t, 1), 3);
  EXPECT_EQ(grt_tensor_byte_size(t), sizeof data);
  grt_tensor* second = grt_tensor_ref(t);
  grt_tensor_free(t);
  EXPECT_EQ(f.calls, 0);
  grt_tensor_free(second);
  EXPECT_EQ(f.calls, 1);
  EXPECT_EQ(f.data, data);
  EXPECT_EQ(f.len, sizeof data);
}

TEST(TensorWrap, NaturalAlignmentIsEnough) {
  alignas(64) char block[64 + 16] = {};
  int64_t dims[] = {2};
  Freed f;
  grt_tensor* t = nullptr;
  // float32 at a 4-byte (not 64-byte) boundary: fine.
  ASSERT_OK(grt_tensor_wrap(block + 4, GRT_FLOAT32, 1, dims, CountFree, &f, &t));
  grt_tensor_free(t);
  EXPECT_EQ(f.calls, 1);
  // int8 and bool anywhere; float16 at 2.
  ASSERT_OK(grt_tensor_wrap(block + 1, GRT_INT8, 1, dims, nullptr, nullptr, &t));
  grt_tensor_free(t);
  ASSERT_OK(grt_tensor_wrap(block + 2, GRT_FLOAT16, 1, dims, nullptr, nullptr, &t));
  grt_tensor_free(t);
}

TEST(TensorWrap, FailuresLeaveTheMemoryWithTheCaller) {
  alignas(64) char block[128] = {};
  int64_t dims[] = {2, 2};
  int64_t negative[] = {2, -1};
  Freed f;
  grt_tensor* t = reinterpret_cast<grt_tensor*>(0x1);
  // Misaligned for the dtype.
  EXPECT_EQ(CodeOf(grt_tensor_wrap(block + 2, GRT_FLOAT32, 2, dims, CountFree, &f, &t)),
            GRT_INVALID_ARGUMENT);
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(CodeOf(grt_tensor_wrap(block + 4, GRT_INT64, 2, dims, CountFree, &f, &t)),
            GRT_INVALID_ARGUMENT);
  // Bad dtype, rank, dims; NULL data for elements.
  EXPECT_EQ(CodeOf(grt_tensor_wrap(block, GRT_DTYPE_INVALID, 2, dims, CountFree, &f, &t)),
            GRT_INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(grt_tensor_wrap(block, GRT_FLOAT32, GRT_MAX_RANK + 1, dims, CountFree, &f, &t)),
            GRT_INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(grt_tensor_wrap(block, GRT_FLOAT32, -1, dims, CountFree, &f, &t)),
            GRT_INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(grt_tensor_wrap(block, GRT_FLOAT32, 2, nullptr, CountFree, &f, &t)),
            GRT_INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(grt_tensor_wrap(block, GRT_FLOAT32, 2, negative, CountFree, &f, &t)),
            GRT_INVALID_ARGUMENT);
  EXPECT_EQ(CodeOf(grt_tensor_wrap(nullptr, GRT_FLOAT32, 2, dims, CountFree, &f, &t)),
            GRT_INVALID_ARGUMENT);
  // Out of memory for the tensor's own headers.
  for (int n = 0; n < 2; n++) {
    grt_mem_fail_after(n);
    grt_status* s = grt_tensor_wrap(block, GRT_FLOAT32, 2, dims, CountFree, &f, &t);
    grt_mem_fail_after(-1);
    EXPECT_EQ(CodeOf(s), GRT_RESOURCE_EXHAUSTED) << n;
    EXPECT_EQ(t, nullptr);
  }
  EXPECT_EQ(f.calls, 0);
}

TEST(TensorWrap, EmptyTensorsMayHaveNoData) {
  int64_t dims[] = {0, 3};
  Freed f;
  grt_tensor* t = nullptr;
  ASSERT_OK(grt_tensor_wrap(nullptr, GRT_FLOAT32, 2, dims, CountFree, &f, &t));
  EXPECT_EQ(grt_tensor_num_elements(t), 0);
  grt_tensor_free(t);
  EXPECT_EQ(f.calls, 1);
  EXPECT_EQ(f.len, 0u);
}

const char kAddGraph[] = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[3]}},
 {"name":"c","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[3],"values":[10,20,30]}}},
 {"name":"y","op":"Add","inputs":["x","c"]}]})";

grt_graph* Parse(const char* text) {
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(text, strlen(text), &g);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return g;
}

TEST(TensorWrap, FedToASessionAndFetchedBack) {
  grt_graph* g = Parse(kAddGraph);
  ASSERT_NE(g, nullptr);
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g, nullptr, &s));
  std::atomic<int> frees{0};
  float* x = static_cast<float*>(malloc(3 * sizeof(float)));
  x[0] = 1;
  x[1] = 2;
  x[2] = 3;
  int64_t dims[] = {3};
  grt_tensor* xt = nullptr;
  ASSERT_OK(grt_tensor_wrap(x, GRT_FLOAT32, 1, dims, FreeMalloced, &frees, &xt));
  grt_feed feed = {"x", xt};
  const char* fetch[] = {"y", "x"};
  grt_tensor* out[2] = {nullptr, nullptr};
  ASSERT_OK(grt_session_run(s, &feed, 1, fetch, 2, nullptr, 0, out, nullptr));
  const float* y = static_cast<const float*>(grt_tensor_data(out[0]));
  EXPECT_EQ(y[0], 11);
  EXPECT_EQ(y[2], 33);
  // Fetching the fed tensor hands back the host's memory, still alive.
  EXPECT_EQ(grt_tensor_data(out[1]), x);
  grt_tensor_free(xt);
  EXPECT_EQ(frees.load(), 0);
  grt_tensor_free(out[1]);
  EXPECT_EQ(frees.load(), 1);
  grt_tensor_free(out[0]);
  grt_session_free(s);
  grt_graph_free(g);
}

TEST(TensorWrap, AsAConstantTheGraphKeepsItAlive) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  int32_t c;
  ASSERT_OK(grt_graph_add_node(g, "c", "Const", &c));
  ASSERT_OK(grt_graph_set_attr_type(g, c, "dtype", GRT_INT32));
  alignas(4) int32_t v[2] = {7, 8};
  int64_t dims[] = {2};
  Freed f;
  grt_tensor* t = nullptr;
  ASSERT_OK(grt_tensor_wrap(v, GRT_INT32, 1, dims, CountFree, &f, &t));
  ASSERT_OK(grt_graph_set_attr_tensor(g, c, "value", t));
  grt_tensor_free(t);
  EXPECT_EQ(f.calls, 0);
  ASSERT_OK(grt_graph_validate(g));
  grt_graph_free(g);
  EXPECT_EQ(f.calls, 1);
}

// ---- the log sink ---------------------------------------------------------

struct Captured {
  std::mutex mu;
  std::vector<std::pair<grt_log_level, std::string>> lines;
};

void Capture(void* arg, grt_log_level level, const char* message) {
  Captured* c = static_cast<Captured*>(arg);
  std::lock_guard<std::mutex> lock(c->mu);
  c->lines.emplace_back(level, message);
}

// Restores the default sink however a test ends.
struct SinkGuard {
  SinkGuard(grt_log_fn fn, void* arg) { grt_set_log_sink(fn, arg); }
  ~SinkGuard() { grt_set_log_sink(nullptr, nullptr); }
};

TEST(LogSink, HelperSplitsLines) {
  Captured c;
  SinkGuard guard(Capture, &c);
  const char text[] = "one\n\nthree\n";
  grt_log_lines(GRT_LOG_WARNING, text, strlen(text));
  std::string long_line(1000, 'x');
  grt_log(GRT_LOG_ERROR, "%s|%d", long_line.c_str(), 42);
  ASSERT_EQ(c.lines.size(), 4u);
  EXPECT_EQ(c.lines[0].second, "one");
  EXPECT_EQ(c.lines[1].second, "");
  EXPECT_EQ(c.lines[2].second, "three");
  EXPECT_EQ(c.lines[0].first, GRT_LOG_WARNING);
  EXPECT_EQ(c.lines[3].first, GRT_LOG_ERROR);
  EXPECT_EQ(c.lines[3].second, long_line + "|42");
}

// Runs `fn` with stdout and stderr going to files; returns what reached them.
template <typename F>
std::pair<std::string, std::string> WithStdStreamsCaptured(F fn) {
  fflush(stdout);
  fflush(stderr);
  std::string dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  std::string out_path = dir + "/embed_stdout.txt", err_path = dir + "/embed_stderr.txt";
  int saved_out = dup(1), saved_err = dup(2);
  FILE* out = fopen(out_path.c_str(), "w+");
  FILE* err = fopen(err_path.c_str(), "w+");
  dup2(fileno(out), 1);
  dup2(fileno(err), 2);
  fn();
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  auto slurp = [](FILE* f) {
    std::string s;
    rewind(f);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    fclose(f);
    return s;
  };
  return {slurp(out), slurp(err)};
}

grt_session_options* LogOptions() {
  grt_session_options* o = nullptr;
  grt_status_free(grt_session_options_new(&o));
  grt_status_free(grt_session_options_set(o, "log_device_placement", "true"));
  return o;
}

TEST(LogSink, PlacementLogGoesToTheSinkOneLinePerCall) {
  grt_graph* g = Parse(kAddGraph);
  ASSERT_NE(g, nullptr);
  grt_session_options* o = LogOptions();
  Captured c;
  grt_session* s = nullptr;
  grt_status* st = nullptr;
  auto streams = WithStdStreamsCaptured([&] {
    SinkGuard guard(Capture, &c);
    st = grt_session_new(g, o, &s);
  });
  ASSERT_EQ(st, nullptr) << grt_status_message(st);
  EXPECT_EQ(streams.first, "");   // never stdout
  EXPECT_EQ(streams.second, "");  // the sink, not stderr
  ASSERT_GE(c.lines.size(), 5u);
  EXPECT_EQ(c.lines[0].second, "Device mapping:");
  for (auto& l : c.lines) {
    EXPECT_EQ(l.first, GRT_LOG_INFO);
    EXPECT_EQ(l.second.find('\n'), std::string::npos);
  }
  EXPECT_EQ(c.lines.back().second, "y: (Add): /job:localhost/replica:0/task:0/device:CPU:0");
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

TEST(LogSink, DefaultIsStderrNeverStdout) {
  grt_graph* g = Parse(kAddGraph);
  ASSERT_NE(g, nullptr);
  grt_session_options* o = LogOptions();
  grt_session* s = nullptr;
  grt_status* st = nullptr;
  Captured c;
  grt_set_log_sink(Capture, &c);
  grt_set_log_sink(nullptr, nullptr);  // restores the default
  auto streams = WithStdStreamsCaptured([&] { st = grt_session_new(g, o, &s); });
  ASSERT_EQ(st, nullptr) << grt_status_message(st);
  EXPECT_TRUE(c.lines.empty());
  EXPECT_EQ(streams.first, "");
  EXPECT_EQ(streams.second.rfind("Device mapping:\n", 0), 0u) << streams.second;
  EXPECT_NE(streams.second.find("y: (Add): /job:localhost/replica:0/task:0/device:CPU:0\n"),
            std::string::npos);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

// Sessions logging from several threads at once: the sink is never entered
// twice at the same time and each placement log arrives whole.
std::atomic<int> g_in_sink{0};
std::atomic<int> g_overlaps{0};

void Serialised(void* arg, grt_log_level level, const char* message) {
  if (g_in_sink.fetch_add(1) != 0) g_overlaps++;
  std::this_thread::yield();
  static_cast<std::vector<std::string>*>(arg)->push_back(
      message);  // unlocked: the sink is serialised
  g_in_sink.fetch_sub(1);
}

TEST(LogSink, ThreadSafeAndBlocksStayWhole) {
  grt_graph* g = Parse(kAddGraph);
  ASSERT_NE(g, nullptr);
  grt_session_options* o = LogOptions();
  std::vector<std::string> lines;
  {
    SinkGuard guard(Serialised, &lines);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
      threads.emplace_back([&] {
        for (int i = 0; i < 5; i++) {
          grt_session* s = nullptr;
          grt_status* st = grt_session_new(g, o, &s);
          EXPECT_EQ(st, nullptr) << grt_status_message(st);
          grt_status_free(st);
          grt_session_free(s);
        }
      });
    // Swapping sinks while others log is safe too.
    for (int i = 0; i < 50; i++) grt_set_log_sink(Serialised, &lines);
    for (auto& th : threads) th.join();
  }
  EXPECT_EQ(g_overlaps.load(), 0);
  ASSERT_EQ(lines.size() % 20, 0u);
  size_t block = lines.size() / 20;
  for (size_t i = 0; i < lines.size(); i++) {
    EXPECT_EQ(lines[i], lines[i % block]) << i;  // every block identical and whole
  }
  grt_session_options_free(o);
  grt_graph_free(g);
}

}  // namespace
