// The graph hash every rank of a cluster compares at start-up
// (runtime/cluster/plan_hash.c): graphs that differ only in an attr's value
// (a Const's tensor, an int, a list) hash apart; attr order does not count.
#include <string>

#include "grt/grt.h"
#include "gtest/gtest.h"
#include "runtime/cluster/plan_hash.h"

namespace {

// One Const `c` of `values` (float32, shape [1, n]) and a Squeeze reading
// it whose attrs are `attrs` (JSON object members).
std::string Graph(const std::string& values, int n, const std::string& attrs) {
  return R"({"format": "grt.graph", "version": 1, "nodes": [
    {"name": "c", "op": "Const", "attrs": {"dtype": "float32",
      "value": {"dtype": "float32", "shape": [1, )" +
         std::to_string(n) + R"(], "values": [)" + values + R"(]}}},
    {"name": "i", "op": "Squeeze", "inputs": ["c"], "attrs": {)" +
         attrs + R"(}}]})";
}

uint64_t Hash(const std::string& json) {
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_from_json(json.data(), json.size(), &g);
  EXPECT_EQ(st, nullptr) << (st ? grt_status_message(st) : "") << "\n" << json;
  grt_status_free(st);
  if (!g) return 0;
  uint64_t h = grt_cluster_graph_hash(g);
  grt_graph_free(g);
  return h;
}

TEST(PlanHash, SameGraphSameHash) {
  std::string g = Graph("1, 2", 2, R"("T": "float32")");
  EXPECT_EQ(Hash(g), Hash(g));
}

TEST(PlanHash, AConstantsValueCounts) {
  uint64_t a = Hash(Graph("1, 2", 2, R"("T": "float32")"));
  EXPECT_NE(a, Hash(Graph("1, 3", 2, R"("T": "float32")")));
  EXPECT_NE(a, Hash(Graph("1, 2, 0", 3, R"("T": "float32")")));
  // -0 and 0 are other bits: another constant.
  EXPECT_NE(Hash(Graph("0, 2", 2, R"("T": "float32")")),
            Hash(Graph("-0.0, 2", 2, R"("T": "float32")")));
}

TEST(PlanHash, AnAttrsValueCounts) {
  uint64_t base = Hash(Graph("1, 2", 2, R"("T": "float32", "squeeze_dims": [0])"));
  EXPECT_NE(base, Hash(Graph("1, 2", 2, R"("T": "float32", "squeeze_dims": [-2])")));
  EXPECT_NE(base, Hash(Graph("1, 2", 2, R"("T": "float32", "squeeze_dims": [])")));
  EXPECT_NE(base, Hash(Graph("1, 2", 2, R"("T": "float32")")));
}

TEST(PlanHash, AttrOrderDoesNotCount) {
  EXPECT_EQ(Hash(Graph("1, 2", 2, R"("T": "float32", "squeeze_dims": [0])")),
            Hash(Graph("1, 2", 2, R"("squeeze_dims": [0], "T": "float32")")));
}

}  // namespace
