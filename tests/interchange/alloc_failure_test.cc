// The GraphDef and ONNX importers (and the GraphDef writer) with every
// allocation failing in turn (grt_mem_fail_once_after, base/mem.h;
// protobuf-c allocates through grt_malloc too): each attempt either works
// and gives the same graph as without failures, or returns an error;
// nothing crashes, nothing leaks (LeakSanitizer under --config=asan).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

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
  EXPECT_EQ(s, nullptr);
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
