// Many ONNX names that become one grt name (alike once their characters
// grt cannot use are '_'): each gets a distinct `_K` suffix, found in
// constant time from where the last search stopped; probing _1, _2, ...
// from the start each time was quadratic in such names. Valid names, long
// or not, are kept whole.
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

// i written in characters grt's names cannot hold (each becomes '_').
std::string Invalid(int i) {
  static const char kDigits[] = " !#$%&*+";
  std::string s;
  for (int k = 0; k < 5; k++, i /= 8) s += kDigits[i % 8];
  return s;
}

// x: float32 [1]; n Identity nodes of x whose outputs are `prefix` + i
// (written as `spell` does); the last one is the graph's output.
std::string Model(int n, const std::string& prefix, std::string (*spell)(int)) {
  std::string type = Field(1, IntField(1, 1) + Field(2, Field(1, IntField(1, 1))));
  std::string g = Field(2, "g") + Field(11, Field(1, "x") + Field(2, type));
  for (int i = 0; i < n; i++)
    g += Field(1, Field(1, "x") + Field(2, prefix + spell(i)) + Field(4, "Identity"));
  g += Field(12, Field(1, prefix + spell(n - 1)) + Field(2, type));
  return IntField(1, 8) + Field(8, IntField(2, 13)) + Field(7, g);
}

std::string Decimal(int i) { return std::to_string(i); }

double ImportSeconds(const std::string& b, int n) {
  auto t0 = std::chrono::steady_clock::now();
  grt_graph* g = nullptr;
  EXPECT_EQ(Message(grt_onnx_parse(b.data(), b.size(), &g)), "");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(g, nullptr);
  if (g) {
    EXPECT_GE(grt_graph_num_nodes(g), n + 1);
  }
  grt_graph_free(g);
  return s;
}

// Linear, not quadratic: four times the names take about four times as
// long (sixteen if each searched the suffixes from _1), under a sanitizer
// or a loaded machine too, where no fixed time limit holds.
TEST(OnnxNamesScale, ManyNamesThatReadAlikeImportInLinearTime) {
  const int n = 5000;
  double small = ImportSeconds(Model(n, std::string(100, 'a'), Invalid), n);
  double large = ImportSeconds(Model(4 * n, std::string(100, 'a'), Invalid), 4 * n);
  EXPECT_LT(large, 8 * small + 0.05)
      << n << " alike names took " << small << " s, " << 4 * n << " took " << large << " s";
}

TEST(OnnxNamesScale, LongValidNamesAreKeptWhole) {
  const int n = 2000;
  std::string b = Model(n, std::string(600, 'a'), Decimal);
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_onnx_parse(b.data(), b.size(), &g)), "");
  for (int i = 0; i < n; i += 397)
    EXPECT_GE(grt_graph_find_node(g, (std::string(600, 'a') + std::to_string(i)).c_str()), 0) << i;
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
