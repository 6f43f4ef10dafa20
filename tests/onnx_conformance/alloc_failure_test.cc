// The ONNX importer over every node test model of Debian's
// libonnx-testdata (the conformance suite's models: one or a few nodes of
// every op and attribute form ONNX tests) with each allocation failing in
// turn (grt_mem_fail_once_after, base/mem.h; protobuf-c allocates through
// grt_malloc too; grt_mem_fail_arena makes each node, name and attr the
// graph's arena hands out one more allocation that may fail). A model the importer accepts is, on
// each attempt, either refused with a message or imported as the same graph as without failures; a
// model it refuses stays refused (a failed allocation never turns a refusal into a graph, as a
// dropped error check on an allocation would); nothing crashes, nothing leaks (LeakSanitizer under
// --config=asan).
//
// This is the sweep that reaches the error paths of every op converter,
// shape inference and the folding of shape arithmetic (onnx_*.c): each
// converter's allocations fail where no small test model of
// tests/interchange has that op. Models are split over eight tests, which
// Bazel's shards run side by side.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "base/mem.h"
#include "grt/grt.h"
#include "interchange/interchange.h"

namespace {

const char* kData = "/usr/share/libonnx-testdata/data/node";
constexpr int kParts = 8;
constexpr int64_t kMaxAttempts = 400;  // per model

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string JsonOf(grt_graph* g) {
  char* text = nullptr;
  size_t len = 0;
  grt_status* s = grt_graph_to_json(g, &text, &len);
  EXPECT_EQ(s, nullptr);
  grt_status_free(s);
  std::string out = text ? std::string(text, len) : "";
  free(text);
  return out;
}

std::vector<std::string> Models() {
  std::vector<std::string> out;
  DIR* d = opendir(kData);
  if (!d) return out;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name).rfind("test_", 0) == 0) out.push_back(e->d_name);
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

struct Counts {
  int models = 0, accepted = 0, attempts = 0;
};

// Every allocation of importing `test`'s model failing in turn.
void Sweep(const std::string& test, Counts* c) {
  SCOPED_TRACE(test);
  std::string bytes = ReadFile(std::string(kData) + "/" + test + "/model.onnx");
  if (bytes.empty()) return;
  c->models++;
  grt_graph* ref = nullptr;
  grt_mem_fail_once_after(-1);
  grt_status* s = grt_onnx_parse(bytes.data(), bytes.size(), &ref);
  const int64_t total = grt_mem_fail_once_after(-1);
  const bool accepted = s == nullptr;
  // A model of thousands of allocations (Resize's cubic forms, GridSample)
  // has every stride-th one failed, from an offset of its own, so the
  // variants of one op fail different ones: the sweep stays linear in the
  // corpus, not quadratic in its largest models.
  const int64_t stride = total / kMaxAttempts + 1;
  const int64_t first = (int64_t)(std::hash<std::string>()(test) % (size_t)stride);
  std::string want = accepted ? JsonOf(ref) : "";
  grt_status_free(s);
  grt_graph_free(ref);
  c->accepted += accepted;
  for (int64_t n = first;; n += stride) {
    grt_mem_fail_once_after(n);
    grt_graph* g = nullptr;
    s = grt_onnx_parse(bytes.data(), bytes.size(), &g);
    int64_t used = grt_mem_fail_once_after(-1);
    c->attempts++;
    bool failed_one = n < used;
    if (s) {
      EXPECT_NE(std::string(grt_status_message(s)), "");
      EXPECT_EQ(g, nullptr) << "allocation " << n << ": an error and a graph";
      if (accepted) EXPECT_TRUE(failed_one) << "an error without a failed allocation";
      grt_status_free(s);
    } else {
      EXPECT_TRUE(accepted) << "allocation " << n << " failing made a refused model import";
      if (accepted && failed_one) EXPECT_EQ(JsonOf(g), want) << "allocation " << n;
    }
    grt_graph_free(g);
    if (!failed_one) return;  // past the last allocation: every one tried
  }
}

void SweepPart(int part) {
  std::vector<std::string> models = Models();
  ASSERT_GT(models.size(), 900u) << "libonnx-testdata's node tests are missing from " << kData;
  Counts c;
  grt_mem_fail_arena(true);
  for (size_t i = part; i < models.size(); i += kParts) Sweep(models[i], &c);
  grt_mem_fail_arena(false);
  printf("part %d: %d models (%d imported), %d attempts\n", part, c.models, c.accepted, c.attempts);
  // Most node tests import (conformance_test lists those that also run).
  EXPECT_GT(c.accepted, c.models * 3 / 4);
}

TEST(OnnxConformanceAllocFailure, Part0) { SweepPart(0); }
TEST(OnnxConformanceAllocFailure, Part1) { SweepPart(1); }
TEST(OnnxConformanceAllocFailure, Part2) { SweepPart(2); }
TEST(OnnxConformanceAllocFailure, Part3) { SweepPart(3); }
TEST(OnnxConformanceAllocFailure, Part4) { SweepPart(4); }
TEST(OnnxConformanceAllocFailure, Part5) { SweepPart(5); }
TEST(OnnxConformanceAllocFailure, Part6) { SweepPart(6); }
TEST(OnnxConformanceAllocFailure, Part7) { SweepPart(7); }

}  // namespace
