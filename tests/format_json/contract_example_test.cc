// docs/json-format.md's example graph, as users will first try it, must
// load: parse and validate (grt_graph_from_json), then save as JSON.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "grt/graph.h"

namespace {

TEST(ContractExample, LoadsAndValidates) {
  std::ifstream in("tests/format_json/corpus/contract_example.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(text.data(), text.size(), &g);
  EXPECT_EQ(std::string(grt_status_message(s)), "");
  grt_status_free(s);
  if (g) {
    char* json = nullptr;
    size_t len = 0;
    s = grt_graph_to_json(g, &json, &len);
    EXPECT_EQ(std::string(grt_status_message(s)), "");
    grt_status_free(s);
    free(json);
  }
  grt_graph_free(g);
}

}  // namespace
