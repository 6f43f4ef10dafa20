// The GraphDef and ONNX importers (and the GraphDef writer) with every
// allocation failing in turn (grt_mem_fail_once_after, base/mem.h;
// protobuf-c allocates through grt_malloc too): each attempt either works
// and gives the same graph as without failures, or returns an error;
// nothing crashes, nothing leaks (LeakSanitizer under --config=asan).
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/mem.h"
#include "grt/grt.h"
#include "interchange/interchange.h"

namespace {

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
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  std::string out = text ? std::string(text, len) : "";
  free(text);
  return out;
}

using Parse = grt_status* (*)(const void*, size_t, grt_graph**);

// Parses (and validates) with allocation n failing, for every n until a
// parse needs no more than n allocations.
void EveryFailure(const std::string& path, Parse parse) {
  SCOPED_TRACE(path);
  std::string bytes = ReadFile(path);
  ASSERT_FALSE(bytes.empty());
  grt_graph* ref = nullptr;
  grt_status* s = parse(bytes.data(), bytes.size(), &ref);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  std::string want = JsonOf(ref);
  grt_graph_free(ref);
  int failures = 0;
  for (int64_t n = 0;; n++) {
    grt_mem_fail_once_after(n);
    grt_graph* g = nullptr;
    s = parse(bytes.data(), bytes.size(), &g);
    if (!s) s = grt_graph_validate(g);
    int64_t used = grt_mem_fail_once_after(-1);
    if (s) {
      failures++;
      EXPECT_NE(std::string(grt_status_message(s)), "");
      grt_status_free(s);
      grt_graph_free(g);
      continue;
    }
    if (n < used) {
      EXPECT_EQ(JsonOf(g), want) << "allocation " << n;
    }
    // Writing as a GraphDef with allocation n failing: an error or bytes.
    char* buf = nullptr;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    grt_mem_fail_once_after(n);
    s = grt_graphdef_write(g, f);
    grt_mem_fail_once_after(-1);
    fclose(f);
    free(buf);
    grt_status_free(s);
    grt_graph_free(g);
    if (n >= used) {  // no allocation failed: every one has been tried
      printf("%s: %lld allocations, %d failed attempts\n", path.c_str(), (long long)used, failures);
      break;
    }
  }
  EXPECT_GT(failures, 0);
}

// The graph as JSON, or, for one the JSON writer refuses (a GraphDef the
// reader takes but validation does not: bad/colocate_ghost), its error.
std::string Describe(grt_graph* g) {
  char* text = nullptr;
  size_t len = 0;
  grt_status* s = grt_graph_to_json(g, &text, &len);
  std::string out = s ? std::string("error: ") + grt_status_message(s) : std::string(text, len);
  grt_status_free(s);
  free(text);
  return out;
}

// Every file of `dir` ending in `suffix`, sorted.
std::vector<std::string> Files(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(dir + "/" + n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Parses `path` with each allocation failing in turn, arena allocations
// too (grt_mem_fail_arena: every node, name and attr the reader adds), the
// file accepted or refused: an accepted file gives an error or the same
// graph; a refused one stays refused (a failure never turns a refusal into
// a graph); no leak.
void EveryFailureWithArena(const std::string& path, Parse parse) {
  SCOPED_TRACE(path);
  std::string bytes = ReadFile(path);
  ASSERT_FALSE(bytes.empty());
  grt_graph* ref = nullptr;
  grt_mem_fail_once_after(-1);
  grt_status* s = parse(bytes.data(), bytes.size(), &ref);
  int64_t plain = grt_mem_fail_once_after(-1);
  const bool accepted = s == nullptr;
  std::string want = accepted ? Describe(ref) : "";
  grt_status_free(s);
  grt_graph_free(ref);
  grt_mem_fail_arena(true);
  // The arena's allocations count now: more of them than the heap's alone
  // (a reader adds nodes and names in its arena).
  grt_mem_fail_once_after(-1);
  grt_status_free(parse(bytes.data(), bytes.size(), &ref));
  grt_graph_free(ref);
  int64_t with_arena = grt_mem_fail_once_after(-1);
  if (accepted) {
    EXPECT_GT(with_arena, plain);
  }
  for (int64_t n = 0;; n++) {
    grt_mem_fail_once_after(n);
    grt_graph* g = nullptr;
    s = parse(bytes.data(), bytes.size(), &g);
    int64_t used = grt_mem_fail_once_after(-1);
    if (s) {
      EXPECT_NE(std::string(grt_status_message(s)), "");
      EXPECT_EQ(g, nullptr);
      grt_status_free(s);
    } else {
      EXPECT_TRUE(accepted) << "allocation " << n << " failing made a refused file import";
      if (n < used) {
        EXPECT_EQ(Describe(g), want) << "allocation " << n;
      }
    }
    grt_graph_free(g);
    if (n >= used) break;
  }
  grt_mem_fail_arena(false);
}

TEST(InterchangeAllocFailure, EveryCorpusFileWithArenaFailures) {
  std::vector<std::string> onnx = Files("tests/interchange/onnx", ".onnx");
  ASSERT_GT(onnx.size(), 60u);
  for (const std::string& f : onnx) EveryFailureWithArena(f, grt_onnx_parse);
  std::vector<std::string> pb = Files("tests/interchange/data", ".pb");
  std::vector<std::string> bad = Files("tests/interchange/bad", ".pb");
  pb.insert(pb.end(), bad.begin(), bad.end());
  ASSERT_GT(pb.size(), 15u);
  for (const std::string& f : pb) EveryFailureWithArena(f, grt_graphdef_parse);
}

TEST(InterchangeAllocFailure, GraphDefSeeds) {
  EveryFailure("tests/interchange/data/seed_split_add.pb", grt_graphdef_parse);
  EveryFailure("tests/interchange/data/typed_values.pb", grt_graphdef_parse);
}

TEST(InterchangeAllocFailure, OnnxModels) {
  EveryFailure("tests/interchange/onnx/gemm_relu.onnx", grt_onnx_parse);
  EveryFailure("tests/interchange/onnx/fed_reshape.onnx", grt_onnx_parse);
  EveryFailure("tests/interchange/onnx/split_concat.onnx", grt_onnx_parse);
  // Old opsets' forms, rewritten before conversion (onnx_legacy.c).
  for (const char* legacy : {"legacy_opset3", "legacy_opset6", "legacy_opset8", "legacy_opset9"})
    EveryFailure((std::string("tests/interchange/onnx/") + legacy + ".onnx").c_str(),
                 grt_onnx_parse);
  // Shape inference, folded shape arithmetic and a symbolic dim.
  EveryFailure("tests/interchange/onnx/shapes_subgraph.onnx", grt_onnx_parse);
  EveryFailure("tests/interchange/onnx/shapes_ceil_pool.onnx", grt_onnx_parse);
  EveryFailure("tests/interchange/onnx/shapes_layernorm.onnx", grt_onnx_parse);
  EveryFailure("tests/interchange/onnx/rnn_every_attr.onnx", grt_onnx_parse);
}

}  // namespace
