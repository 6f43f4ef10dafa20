// Many ONNX names that become one grt name (longer than grt keeps, or alike
// once their other characters are '_'): each gets a distinct `_K` suffix,
// found in constant time from where the last search stopped; probing
// _1, _2, ... from the start each time was quadratic in such names.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "grt/grt.h"
#include "interchange/interchange.h"

namespace {

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += (char)((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return out + (char)v;
}
std::string Field(int num, const std::string& payload) {
  return Varint((uint64_t)num << 3 | 2) + Varint(payload.size()) + payload;
}
std::string IntField(int num, uint64_t v) { return Varint((uint64_t)num << 3) + Varint(v); }

// x: float32 [1]; n Identity nodes of x whose outputs are `prefix` + i; the
// last one is the graph's output.
std::string Model(int n, const std::string& prefix) {
  std::string type = Field(1, IntField(1, 1) + Field(2, Field(1, IntField(1, 1))));
  std::string g = Field(2, "g") + Field(11, Field(1, "x") + Field(2, type));
  for (int i = 0; i < n; i++)
    g += Field(1, Field(1, "x") + Field(2, prefix + std::to_string(i)) + Field(4, "Identity"));
  g += Field(12, Field(1, prefix + std::to_string(n - 1)) + Field(2, type));
  return IntField(1, 8) + Field(8, IntField(2, 13)) + Field(7, g);
}

TEST(OnnxNamesScale, ManyNamesThatReadAlikeImportInLinearTime) {
  const int n = 20000;
  std::string b = Model(n, std::string(600, 'a'));  // past the 495 characters grt keeps
  auto t0 = std::chrono::steady_clock::now();
  grt_graph* g = nullptr;
  EXPECT_EQ(Message(grt_onnx_parse(b.data(), b.size(), &g)), "");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 2.0) << "importing " << n << " alike names took " << s << " s";
  ASSERT_NE(g, nullptr);
  EXPECT_GE(grt_graph_num_nodes(g), n + 1);
  grt_graph_free(g);
}

TEST(OnnxNamesScale, SanitizedCollisionsGetSuccessiveSuffixes) {
  // "a b", "a!b", "a#b" all read "a_b": the first keeps it, then _1, _2.
  std::string type = Field(1, IntField(1, 1) + Field(2, Field(1, IntField(1, 1))));
  std::string g = Field(2, "g") + Field(11, Field(1, "x") + Field(2, type));
  for (const char* out : {"a b", "a!b", "a#b"})
    g += Field(1, Field(1, "x") + Field(2, out) + Field(4, "Identity"));
  std::string b = IntField(1, 8) + Field(8, IntField(2, 13)) + Field(7, g);
  grt_graph* gr = nullptr;
  ASSERT_EQ(Message(grt_onnx_parse(b.data(), b.size(), &gr)), "");
  EXPECT_GE(grt_graph_find_node(gr, "a_b"), 0);
  EXPECT_GE(grt_graph_find_node(gr, "a_b_1"), 0);
  EXPECT_GE(grt_graph_find_node(gr, "a_b_2"), 0);
  grt_graph_free(gr);
}

}  // namespace
