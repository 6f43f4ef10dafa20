// grt_kernel_attr_string_list, the public accessor a backend plugin reads
// list(string) attrs through (the CUDA plugin's fused_ops): the graph's
// strings in order, an empty list, and INVALID_ARGUMENT naming the attr for
// one that is missing or of another type.
#include <gtest/gtest.h>

#include <string>

#include "grt/backend.h"
#include "grt/grt.h"
#include "ops/graph.h"

namespace {

TEST(KernelAttrStringList, ReadsTheGraphsStrings) {
  const std::string json =
      R"({"format":"grt.graph","version":1,"nodes":[)"
      R"({"name":"a","op":"Placeholder","attrs":{"dtype":"float32","shape":[2,2]}},)"
      R"({"name":"f","op":"_FusedMatMul","inputs":["a","a","a"],)"
      R"("attrs":{"num_args":1,"fused_ops":["BiasAdd","Relu6"]}},)"
      R"({"name":"e","op":"_FusedMatMul","inputs":["a","a"],"attrs":{"num_args":0,"fused_ops":[]}}]})";
  grt_graph* g = nullptr;
  grt_status* st = grt_graph_from_json(json.c_str(), json.size(), &g);
  ASSERT_EQ(st, nullptr) << grt_status_message(st);
  grt_kernel_ctx ctx = {};
  ctx.node = &g->nodes[1];
  const char* const* v = nullptr;
  int32_t n = -1;
  ASSERT_EQ(grt_kernel_attr_string_list(&ctx, "fused_ops", &v, &n), nullptr);
  ASSERT_EQ(n, 2);
  EXPECT_STREQ(v[0], "BiasAdd");
  EXPECT_STREQ(v[1], "Relu6");

  ctx.node = &g->nodes[2];
  ASSERT_EQ(grt_kernel_attr_string_list(&ctx, "fused_ops", &v, &n), nullptr);
  EXPECT_EQ(n, 0);

  for (const char* name : {"num_args", "no_such_attr"}) {
    st = grt_kernel_attr_string_list(&ctx, name, &v, &n);
    ASSERT_NE(st, nullptr) << name;
    EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(grt_status_message(st)).find(name), std::string::npos)
        << grt_status_message(st);
    grt_status_free(st);
  }
  grt_graph_free(g);
}

}  // namespace
