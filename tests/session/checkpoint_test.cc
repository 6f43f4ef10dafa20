// Checkpoints: save and restore round trips, damaged, truncated and
// mismatched files (clear errors, nothing half-restored), and a saver
// killed at random points never leaving the destination incomplete.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <atomic>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "base/mem.h"
#include "grt/grt.h"

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

std::string Msg(grt_status* s) {
  if (!s) return "";
  std::string m = grt_status_message(s);
  grt_status_free(s);
  return m;
}

// Variables w (float32 [n], on cpu:0) and b (b_dtype [2], on cpu:1);
// `init` assigns them from the placeholders w0 and b0; `step` adds one to
// every element of both.
std::string Graph(int n, const char* b_dtype = "float32", int bn = 2, bool extra_var = false) {
  std::string N = std::to_string(n), bt = b_dtype;
  std::string b_shape = "[" + std::to_string(bn) + "]", b_ones;
  for (int i = 0; i < bn; i++) b_ones += i ? ",1" : "1";
  std::string g = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"w","op":"VariableV2","device":"/cpu:0","attrs":{"dtype":"float32","shape":[)" +
                  N + R"(]}},
    {"name":"b","op":"VariableV2","device":"/cpu:1","attrs":{"dtype":")" +
                  bt + R"(","shape":)" + b_shape + R"(}},
    {"name":"w0","op":"Placeholder","attrs":{"dtype":"float32","shape":[)" +
                  N + R"(]}},
    {"name":"b0","op":"Placeholder","attrs":{"dtype":")" +
                  bt + R"(","shape":)" + b_shape + R"(}},
    {"name":"init_w","op":"Assign","inputs":["w","w0"],"device":"/cpu:0","attrs":{"T":"float32"}},
    {"name":"init_b","op":"Assign","inputs":["b","b0"],"device":"/cpu:1","attrs":{"T":")" +
                  bt + R"("}},
    {"name":"init","op":"NoOp","inputs":["^init_w","^init_b"]},
    {"name":"dims_w","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[1],"values":[)" +
                  N + R"(]}}},
    {"name":"one","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[1]}}},
    {"name":"ones_w","op":"Fill","inputs":["dims_w","one"],"attrs":{"T":"float32"}},
    {"name":"add_w","op":"AssignAdd","inputs":["w","ones_w"],"device":"/cpu:0","attrs":{"T":"float32"}},
    {"name":"ones_b","op":"Const","attrs":{"dtype":")" +
                  bt + R"(","value":{"dtype":")" + bt + R"(","shape":)" + b_shape +
                  R"(,"values":[)" + b_ones + R"(]}}},
    {"name":"add_b","op":"AssignAdd","inputs":["b","ones_b"],"device":"/cpu:1","attrs":{"T":")" +
                  bt + R"("}},
    {"name":"step","op":"NoOp","inputs":["^add_w","^add_b"]})";
  if (extra_var)
    g += R"(,
    {"name":"c","op":"VariableV2","attrs":{"dtype":"float32","shape":[1]}})";
  return g + "]}";
}

struct Sess {
  grt_graph* g = nullptr;
  grt_session* s = nullptr;
  explicit Sess(const std::string& text) {
    grt_status* st = grt_graph_from_json(text.data(), text.size(), &g);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    grt_session_options* o = nullptr;
    grt_status_free(grt_session_options_new(&o));
    grt_status_free(grt_session_options_set(o, "cpu.devices", "2"));
    st = grt_session_new(g, o, &s);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    grt_session_options_free(o);
  }
  ~Sess() {
    grt_session_free(s);
    grt_graph_free(g);
  }
  grt_status* Init(const std::vector<float>& w, const std::vector<float>& b) {
    int64_t nw = (int64_t)w.size(), nb = (int64_t)b.size();
    grt_tensor *tw = nullptr, *tb = nullptr;
    grt_status_free(grt_tensor_new(GRT_FLOAT32, 1, &nw, &tw));
    grt_status_free(grt_tensor_new(GRT_FLOAT32, 1, &nb, &tb));
    memcpy(grt_tensor_data(tw), w.data(), w.size() * 4);
    memcpy(grt_tensor_data(tb), b.data(), b.size() * 4);
    grt_feed feeds[] = {{"w0", tw}, {"b0", tb}};
    const char* targets[] = {"init"};
    grt_status* st = grt_session_run(s, feeds, 2, nullptr, 0, targets, 1, nullptr, nullptr);
    grt_tensor_free(tw);
    grt_tensor_free(tb);
    return st;
  }
  grt_status* Step() {
    const char* targets[] = {"step"};
    return grt_session_run(s, nullptr, 0, nullptr, 0, targets, 1, nullptr, nullptr);
  }
  std::vector<float> Get(const char* name) {
    grt_tensor* t = nullptr;
    const char* fetches[] = {name};
    grt_status* st = grt_session_run(s, nullptr, 0, fetches, 1, nullptr, 0, &t, nullptr);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    if (!t) return {};
    const float* p = static_cast<const float*>(grt_tensor_data(t));
    std::vector<float> v(p, p + grt_tensor_num_elements(t));
    grt_tensor_free(t);
    return v;
  }
};

std::string TempDir() {
  const char* base = getenv("TEST_TMPDIR");
  std::string d = std::string(base ? base : "/tmp") + "/ckptXXXXXX";
  std::vector<char> buf(d.begin(), d.end());
  buf.push_back('\0');
  EXPECT_NE(mkdtemp(buf.data()), nullptr);
  return buf.data();
}

std::string ReadAll(const std::string& path) {
  std::string s;
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return s;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  fclose(f);
  return s;
}

void WriteAll(const std::string& path, const std::string& bytes) {
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  fclose(f);
}

TEST(Checkpoint, RoundTripIntoAFreshSessionAndBack) {
  std::string dir = TempDir(), path = dir + "/model.ckpt";
  std::vector<float> w = {1.5f, -2.25f, 3.0f, 1e-7f, -0.0f}, b = {7, 8};
  {
    Sess a(Graph(5));
    ASSERT_OK(a.Init(w, b));
    ASSERT_OK(grt_session_save_variables(a.s, path.c_str()));
    ASSERT_OK(a.Step());
    EXPECT_EQ(a.Get("b"), std::vector<float>({8, 9}));
    // Restoring into the same session brings back the saved values.
    ASSERT_OK(grt_session_restore_variables(a.s, path.c_str()));
    EXPECT_EQ(a.Get("w"), w);
    EXPECT_EQ(a.Get("b"), b);
  }
  Sess c(Graph(5));
  ASSERT_OK(grt_session_restore_variables(c.s, path.c_str()));  // no init needed
  EXPECT_EQ(c.Get("w"), w);
  EXPECT_EQ(c.Get("b"), b);
  ASSERT_OK(c.Step());
  EXPECT_EQ(c.Get("b"), std::vector<float>({8, 9}));
}

// A save or restore honours the run options' deadline as a run does: one
// that takes longer than its timeout (16 MiB of w written with fsync, or
// read and checksummed, against 1 ms) fails DEADLINE_EXCEEDED naming the
// file, a save leaves the previous checkpoint whole and a restore assigns
// nothing; with no timeout the same calls succeed.
TEST(Checkpoint, SaveAndRestoreHonourTheDeadline) {
  std::string dir = TempDir(), path = dir + "/big.ckpt";
  const int n = 1 << 22;
  std::vector<float> w(n), b = {1, 2};
  for (int i = 0; i < n; i++) w[i] = (float)(i % 1000);
  Sess a(Graph(n));
  ASSERT_OK(a.Init(w, b));
  ASSERT_OK(grt_session_save_variables_with_options(a.s, path.c_str(), nullptr));
  std::string before = ReadAll(path);
  grt_run_options* o = nullptr;
  ASSERT_OK(grt_run_options_new(&o));
  ASSERT_OK(grt_run_options_set_timeout_ms(o, 1));
  ASSERT_OK(a.Step());  // the variables now differ from the file
  grt_status* st = grt_session_save_variables_with_options(a.s, path.c_str(), o);
  ASSERT_NE(st, nullptr) << "a 16 MiB save within 1 ms";
  EXPECT_EQ(grt_status_code(st), GRT_DEADLINE_EXCEEDED);
  std::string m = Msg(st);
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("timeout of 1 ms"), std::string::npos) << m;
  EXPECT_TRUE(ReadAll(path) == before) << "the previous checkpoint was replaced";
  st = grt_session_restore_variables_with_options(a.s, path.c_str(), o);
  ASSERT_NE(st, nullptr) << "a 16 MiB restore within 1 ms";
  EXPECT_EQ(grt_status_code(st), GRT_DEADLINE_EXCEEDED);
  m = Msg(st);
  EXPECT_NE(m.find("restoring variables from " + path), std::string::npos) << m;
  EXPECT_EQ(a.Get("b"), std::vector<float>({2, 3})) << "a stopped restore assigned b";
  // No deadline: the same restore goes through.
  ASSERT_OK(grt_run_options_set_timeout_ms(o, 0));
  ASSERT_OK(grt_session_restore_variables_with_options(a.s, path.c_str(), o));
  EXPECT_EQ(a.Get("b"), b);
  grt_run_options_free(o);
}

TEST(Checkpoint, SavingAnUninitialisedVariableNamesItAndLeavesTheFileAlone) {
  std::string dir = TempDir(), path = dir + "/m.ckpt";
  WriteAll(path, "previous");
  Sess a(Graph(3));
  std::string m = Msg(grt_session_save_variables(a.s, path.c_str()));
  EXPECT_NE(m.find("variable 'w' has no value"), std::string::npos) << m;
  EXPECT_EQ(ReadAll(path), "previous");
}

// Every variable keeps its old value when a restore fails.
void ExpectUnchanged(Sess& a, const std::vector<float>& w, const std::vector<float>& b) {
  EXPECT_EQ(a.Get("w"), w);
  EXPECT_EQ(a.Get("b"), b);
}

TEST(Checkpoint, MismatchedCheckpointsNameTheVariableAndRestoreNothing) {
  std::string dir = TempDir(), path = dir + "/m.ckpt";
  {
    Sess a(Graph(4, "float32", 3));  // b has 3 elements here
    ASSERT_OK(a.Init({1, 2, 3, 4}, {5, 6, 7}));
    ASSERT_OK(grt_session_save_variables(a.s, path.c_str()));
  }
  Sess a(Graph(4));  // w matches, b does not: w must not change either
  ASSERT_OK(a.Init({9, 9, 9, 9}, {0, 0}));
  grt_status* st = grt_session_restore_variables(a.s, path.c_str());
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
  std::string m = Msg(st);
  EXPECT_NE(m.find("variable 'b' has shape [2] in the graph but [3] in the checkpoint"),
            std::string::npos)
      << m;
  ExpectUnchanged(a, {9, 9, 9, 9}, {0, 0});

  Sess other_w(Graph(6));
  m = Msg(grt_session_restore_variables(other_w.s, path.c_str()));
  EXPECT_NE(m.find("variable 'w' has shape [6] in the graph but [4]"), std::string::npos) << m;

  Sess extra(Graph(4, "float32", 3, /*extra_var=*/true));
  m = Msg(grt_session_restore_variables(extra.s, path.c_str()));
  EXPECT_NE(m.find("variable 'c' is not in the checkpoint"), std::string::npos) << m;

  Sess dbl(Graph(4, "float64", 3));
  m = Msg(grt_session_restore_variables(dbl.s, path.c_str()));
  EXPECT_NE(m.find("variable 'b' is float64 in the graph but float32 in the checkpoint"),
            std::string::npos)
      << m;

  m = Msg(grt_session_restore_variables(a.s, (dir + "/missing.ckpt").c_str()));
  EXPECT_NE(m.find("missing.ckpt"), std::string::npos) << m;
  ExpectUnchanged(a, {9, 9, 9, 9}, {0, 0});
}

TEST(Checkpoint, EveryTruncationAndEveryFlippedByteIsCaughtOrHarmless) {
  std::string dir = TempDir(), good = dir + "/good.ckpt", bad = dir + "/bad.ckpt";
  std::vector<float> w = {1, 2, 3}, b = {4, 5};
  Sess a(Graph(3));
  ASSERT_OK(a.Init(w, b));
  ASSERT_OK(grt_session_save_variables(a.s, good.c_str()));
  std::string bytes = ReadAll(good);
  ASSERT_GT(bytes.size(), 48u);
  std::vector<float> w9 = {9, 9, 9}, b9 = {9, 9};
  for (size_t len = 0; len < bytes.size(); len++) {
    WriteAll(bad, bytes.substr(0, len));
    ASSERT_OK(a.Init(w9, b9));
    grt_status* st = grt_session_restore_variables(a.s, bad.c_str());
    ASSERT_NE(st, nullptr) << "truncated to " << len << " bytes";
    EXPECT_EQ(grt_status_code(st), GRT_DATA_LOSS) << grt_status_message(st);
    grt_status_free(st);
    ExpectUnchanged(a, w9, b9);
  }
  int caught = 0;
  for (size_t at = 0; at < bytes.size(); at++) {
    std::string damaged = bytes;
    damaged[at] = (char)(damaged[at] ^ 0x20);
    WriteAll(bad, damaged);
    ASSERT_OK(a.Init(w9, b9));
    grt_status* st = grt_session_restore_variables(a.s, bad.c_str());
    if (st) {
      caught++;
      std::string m = Msg(st);
      EXPECT_NE(m.find("bad.ckpt"), std::string::npos) << m;
      ExpectUnchanged(a, w9, b9);
    } else {
      // Only the alignment padding is unchecked, and it carries nothing.
      ExpectUnchanged(a, w, b);
    }
  }
  EXPECT_GT(caught, (int)bytes.size() / 2);
  // Damage inside w's data names w.
  std::string damaged = bytes;
  damaged[bytes.find(std::string("\x00\x00\x80\x3f", 4), 48)] ^= 1;  // w[0] == 1.0f
  WriteAll(bad, damaged);
  std::string m = Msg(grt_session_restore_variables(a.s, bad.c_str()));
  EXPECT_NE(m.find("variable 'w': the data's checksum does not match"), std::string::npos) << m;
}

// Every allocation of a restore failing in turn: each failure is an error
// that names the file (the reader's own messages do; the rest get it on the
// way up) and leaves the variables as they were, or is absorbed and the
// restore completes.
TEST(Checkpoint, EveryAllocationFailureWhileRestoringNamesTheFile) {
  std::string dir = TempDir(), good = dir + "/alloc.ckpt";
  std::vector<float> w = {1, 2, 3}, b = {4, 5}, w9 = {9, 9, 9}, b9 = {9, 9};
  Sess a(Graph(3));
  ASSERT_OK(a.Init(w, b));
  ASSERT_OK(grt_session_save_variables(a.s, good.c_str()));
  int failed = 0;
  for (int64_t k = 0;; k++) {
    ASSERT_OK(a.Init(w9, b9));
    grt_mem_fail_once_after(k);
    grt_status* st = grt_session_restore_variables(a.s, good.c_str());
    int64_t made = grt_mem_fail_once_after(-1);
    if (st) {
      failed++;
      std::string m = Msg(st);
      EXPECT_NE(m.find("alloc.ckpt"), std::string::npos) << "allocation " << k << ": " << m;
      ExpectUnchanged(a, w9, b9);
    } else {
      ExpectUnchanged(a, w, b);
      if (made <= k) break;  // no allocation failed: all were tried
    }
    ASSERT_LT(k, 10000) << "restoring never stopped allocating";
  }
  EXPECT_GT(failed, 3);
}

// What a saving child shows the test through shared memory: whether it is
// inside a save, how many steps+saves it finished and how long they took.
struct SaverMarks {
  std::atomic<int> saving;
  std::atomic<int> saves;
  std::atomic<int64_t> loop_ns;
};

int64_t NowNs() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

// A child saves over and over (a step between saves), picking up from the
// checkpoint each time it starts; it is killed at a random moment after its
// first save (within two save loops, however slow the machine), so each
// round makes progress and most kills land inside a save. After each kill
// the destination must restore cleanly, with every element of w and b equal
// to one count that never goes backwards, and nothing else may be left in
// the directory.
TEST(Checkpoint, KilledWhileSavingNeverLosesTheCheckpoint) {
  std::string dir = TempDir(), path = dir + "/live.ckpt";
  const int n = 1 << 17;  // 512 KiB: a save takes long enough to be hit
  std::string graph = Graph(n);
  {
    Sess a(graph);
    ASSERT_OK(a.Init(std::vector<float>(n, 0.0f), {0, 0}));
    ASSERT_OK(grt_session_save_variables(a.s, path.c_str()));
  }
  void* shared =
      mmap(nullptr, sizeof(SaverMarks), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  SaverMarks* marks = new (shared) SaverMarks;
  std::mt19937 rng(12345);
  float last = 0;
  int progressed = 0, interrupted = 0;
  for (int round = 0; round < 24; round++) {
    marks->saving = 0;
    marks->saves = 0;
    marks->loop_ns = 0;
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Sess c(graph);
      if (grt_session_restore_variables(c.s, path.c_str())) _exit(3);
      for (;;) {
        int64_t start = NowNs();
        if (c.Step()) _exit(5);
        marks->saving = 1;
        if (grt_session_save_variables(c.s, path.c_str())) _exit(5);
        marks->saving = 0;
        marks->loop_ns += NowNs() - start;
        marks->saves++;
      }
    }
    // Wait for the first save (a minute at most: sanitizers, loaded hosts).
    for (int waited = 0; marks->saves == 0 && waited < 60000; waited++) usleep(1000);
    int saves = marks->saves;
    if (saves == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      FAIL() << "the child saved nothing in a minute";
    }
    int64_t loop_us = marks->loop_ns / saves / 1000;
    usleep((useconds_t)std::uniform_int_distribution<int64_t>(0, 2 * loop_us + 1)(rng));
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child stopped by itself: " << status;
    if (marks->saving) interrupted++;
    Sess check(graph);
    ASSERT_OK(grt_session_restore_variables(check.s, path.c_str()));
    std::vector<float> w = check.Get("w"), b = check.Get("b");
    ASSERT_EQ(w.size(), (size_t)n);
    float c = b[0];
    EXPECT_EQ(b[1], c);
    for (int i = 0; i < n; i++) ASSERT_EQ(w[i], c) << "element " << i << ", round " << round;
    EXPECT_GE(c, last);
    if (c > last) progressed++;
    last = c;
  }
  marks->~SaverMarks();
  munmap(shared, sizeof(SaverMarks));
  EXPECT_EQ(progressed, 24);
  EXPECT_GT(interrupted, 0) << "no kill landed inside a save";
  // Killed saves leave at most a temporary of the checkpoint (a kill between
  // naming the new file and renaming it over the old one); the next save,
  // here by this process, sweeps it, so only the checkpoint itself is left.
  auto strays_in = [&](bool remove) {
    DIR* d = opendir(dir.c_str());
    int n = 0;
    if (!d) return -1;
    while (struct dirent* e = readdir(d))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "live.ckpt")) {
        EXPECT_EQ(strncmp(e->d_name, "live.ckpt.tmp.", 14), 0) << e->d_name;
        n++;
        if (remove) unlink((dir + "/" + e->d_name).c_str());
      }
    closedir(d);
    return n;
  };
  int strays = strays_in(false);
  {
    Sess check(graph);
    ASSERT_OK(grt_session_restore_variables(check.s, path.c_str()));
    ASSERT_OK(grt_session_save_variables(check.s, path.c_str()));
  }
  EXPECT_EQ(strays_in(true), 0) << "the next save left temporaries of killed saves behind";
  printf("%d of 24 kills interrupted a save, %d stray files; the count reached %g\n", interrupted,
         strays, last);
}

}  // namespace
