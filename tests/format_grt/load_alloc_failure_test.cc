// Loading and writing the seeds graph with every allocation failing in turn
// (grt_mem_fail_after and grt_mem_fail_once_after, base/mem.h), as .grt and
// as .json: each attempt
// either works and gives the same graph, or returns RESOURCE_EXHAUSTED;
// nothing crashes, nothing leaks (LeakSanitizer under --config=asan), and a
// failed .grt load leaves no mapping of the file behind. jansson allocates
// through grt_malloc too (graph_format/json_alloc.c), so its failures are
// among those injected.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "base/mem.h"
#include "grt/grt.h"

namespace {

// Every count here is a few thousand at most; were one to grow past twice
// this, the first kExhaustive values of n are still all tried and the rest
// with a stride that keeps to about kExhaustive more.
constexpr int64_t kExhaustive = 4000;

std::string Describe(const grt_status* s) {
  if (!s) return "OK";
  return std::string(grt_code_name(grt_status_code(s))) + ": " + grt_status_message(s);
}

std::string TempPath(const std::string& name) {
  const char* dir = getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

// How many mappings of `path` this process has.
int Mappings(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  int n = 0;
  while (std::getline(maps, line))
    if (line.size() >= path.size() &&
        line.compare(line.size() - path.size(), path.size(), path) == 0)
      n++;
  return n;
}

// The JSON text form of `g`, unarmed: what two graphs are compared by.
std::string JsonOf(grt_graph* g) {
  char* text = nullptr;
  size_t len = 0;
  grt_status* st = grt_graph_to_json(g, &text, &len);
  EXPECT_EQ(st, nullptr) << Describe(st);
  grt_status_free(st);
  std::string out = text ? std::string(text, len) : "";
  free(text);
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class LoadAllocFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    grt_status* st = grt_graph_load("examples/three_gpus.json", &seeds_);
    ASSERT_EQ(st, nullptr) << Describe(st);
    want_ = JsonOf(seeds_);
    ASSERT_FALSE(want_.empty());
    grt_path_ = TempPath("seeds.grt");
    json_path_ = TempPath("seeds.json");
    st = grt_graph_save(seeds_, grt_path_.c_str());
    ASSERT_EQ(st, nullptr) << Describe(st);
    st = grt_graph_save(seeds_, json_path_.c_str());
    ASSERT_EQ(st, nullptr) << Describe(st);
  }
  void TearDown() override {
    grt_mem_fail_after(-1);
    grt_graph_free(seeds_);
  }

  // Runs `op` with allocation n failing, for n = 0 .. the count an unarmed
  // op takes; then `after(ok, n)`, unarmed, checks and frees what it made.
  void EveryN(const std::string& what, const std::function<grt_status*()>& op,
              const std::function<void(bool ok, int64_t n)>& after) {
    int64_t count = 0;
    for (int k = 0; k < 2; k++) {  // the second count is the steady state
      grt_mem_fail_after(-1);
      grt_status* st = op();
      count = grt_mem_fail_after(-1);
      ASSERT_EQ(st, nullptr) << what << " with injection off: " << Describe(st);
      after(true, -1);
    }
    int64_t stride = count <= 2 * kExhaustive ? 1 : (count - kExhaustive) / kExhaustive + 1;
    // Persistent failures (every allocation from the (n+1)th on), then
    // transient ones (only the (n+1)th): error paths then have memory, so
    // the code they report is what is checked.
    for (bool once : {false, true}) {
      int64_t attempts = 0, failed = 0;
      for (int64_t n = 0; n <= count; n += n < kExhaustive ? 1 : stride) {
        if (once)
          grt_mem_fail_once_after(n);
        else
          grt_mem_fail_after(n);
        grt_status* st = op();
        grt_mem_fail_after(-1);
        bool ok = !st;
        if (st) {
          EXPECT_EQ(grt_status_code(st), GRT_RESOURCE_EXHAUSTED)
              << what << (once ? " transient" : " persistent") << " n=" << n << ": "
              << Describe(st);
        }
        grt_status_free(st);
        after(ok, n);
        attempts++;
        failed += !ok;
        if (HasFailure()) {
          ADD_FAILURE() << what << (once ? " transient" : " persistent") << ": stopped at n=" << n;
          return;
        }
      }
      printf("%s takes %lld allocations, %s: %lld attempts%s, %lld returned RESOURCE_EXHAUSTED\n",
             what.c_str(), static_cast<long long>(count), once ? "transient" : "persistent",
             static_cast<long long>(attempts), stride > 1 ? " (strided)" : "",
             static_cast<long long>(failed));
      fflush(stdout);
    }
  }

  void Load(const std::string& path) {
    grt_graph* g = nullptr;
    EveryN(
        "load " + path.substr(path.rfind('/') + 1),
        [&] { return grt_graph_load(path.c_str(), &g); },
        [&](bool ok, int64_t n) {
          if (ok) {
            EXPECT_NE(g, nullptr);
            if (g) {
              EXPECT_EQ(JsonOf(g), want_) << "load " << path << " n=" << n;
            }
          } else {
            EXPECT_EQ(g, nullptr) << "load " << path << " n=" << n;
          }
          grt_graph_free(g);
          g = nullptr;
          EXPECT_EQ(Mappings(path), 0)
              << "load " << path << " n=" << n << ": the file is still mapped";
        });
  }

  grt_graph* seeds_ = nullptr;
  std::string want_, grt_path_, json_path_;
};

TEST_F(LoadAllocFailure, GrtFile) { Load(grt_path_); }

TEST_F(LoadAllocFailure, JsonFile) { Load(json_path_); }

TEST_F(LoadAllocFailure, ExampleJsonFile) { Load("examples/three_gpus.json"); }

TEST_F(LoadAllocFailure, JsonFromMemory) {
  grt_graph* g = nullptr;
  EveryN(
      "grt_graph_from_json", [&] { return grt_graph_from_json(want_.data(), want_.size(), &g); },
      [&](bool ok, int64_t n) {
        if (ok) {
          EXPECT_NE(g, nullptr) << "n=" << n;
          if (g) {
            EXPECT_EQ(JsonOf(g), want_) << "n=" << n;
          }
        } else {
          EXPECT_EQ(g, nullptr) << "n=" << n;
        }
        grt_graph_free(g);
        g = nullptr;
      });
}

TEST_F(LoadAllocFailure, WriteJsonText) {
  char* text = nullptr;
  size_t len = 0;
  EveryN(
      "grt_graph_to_json", [&] { return grt_graph_to_json(seeds_, &text, &len); },
      [&](bool ok, int64_t n) {
        if (ok) {
          EXPECT_NE(text, nullptr) << "n=" << n;
          if (text) {
            EXPECT_EQ(std::string(text, len), want_) << "n=" << n;
          }
        } else {
          EXPECT_EQ(text, nullptr) << "n=" << n;
        }
        free(text);
        text = nullptr;
      });
}

// A save that fails leaves the old file as it was (the writer writes a
// temporary and renames it into place).
TEST_F(LoadAllocFailure, SaveGrt) {
  std::string path = TempPath("saved.grt");
  grt_status* st = grt_graph_save(seeds_, path.c_str());
  ASSERT_EQ(st, nullptr) << Describe(st);
  const std::string bytes = ReadFile(path);
  EveryN(
      "grt_graph_save .grt", [&] { return grt_graph_save(seeds_, path.c_str()); },
      [&](bool, int64_t n) { EXPECT_EQ(ReadFile(path), bytes) << "n=" << n; });
}

}  // namespace
