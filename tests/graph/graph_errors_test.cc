// The graph builder's argument checks that the coverage run found untested
// (docs/testing.md, "Uncovered error paths"), each by its message: a
// colocation naming no valid node, attrs with an empty name or an invalid
// type, shape attrs past rank 8 or below -1, and asking for an output's
// shape before validation. Each refused call leaves the node as it was.
#include <gtest/gtest.h>

#include <string>

#include "grt/graph.h"
#include "grt/status.h"
#include "ops/graph.h"

namespace {

std::string Take(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "OK";
  grt_status_free(s);
  return m;
}

#define EXPECT_SAYS(call, says)                                          \
  do {                                                                   \
    std::string m_ = Take(call);                                         \
    EXPECT_NE(m_.find(says), std::string::npos) << "got '" << m_ << "'"; \
  } while (0)

TEST(GraphBuilderErrors, EachBadArgumentIsNamed) {
  grt_graph* g = nullptr;
  ASSERT_EQ(Take(grt_graph_new(&g)), "OK");
  int32_t p = -1;
  ASSERT_EQ(Take(grt_graph_add_node(g, "p", "Placeholder", &p)), "OK");
  EXPECT_SAYS(grt_graph_add_colocation(g, p, "^q"),
              "node 'p': colocate_with names an invalid node name '^q'");
  EXPECT_SAYS(grt_graph_add_colocation(g, p, nullptr),
              "node 'p': colocate_with names an invalid node name '(null)'");
  EXPECT_SAYS(grt_graph_set_attr_type(g, p, "", GRT_FLOAT32), "node 'p': empty attr name");
  grt_attr_value bad = {};
  bad.type = (grt_attr_type)99;
  EXPECT_SAYS(grt_graph_set_attr_value(g, p, "x", &bad),
              "node 'p': attr 'x' has an invalid type 99");
  int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_SAYS(grt_graph_set_attr_shape(g, p, "shape", 9, nine),
              "attr 'shape': rank 9 exceeds the maximum of 8");
  int64_t below[2] = {2, -2};
  EXPECT_SAYS(grt_graph_set_attr_shape(g, p, "shape", 2, below),
              "attr 'shape': dimension 1 is -2 (use -1 for unknown)");
  EXPECT_EQ(g->nodes[p].n_attrs, 0);
  // The boundaries that pass: rank 8, an unknown dimension.
  int64_t eight[8] = {1, 1, 1, 1, 1, 1, 1, -1};
  EXPECT_EQ(Take(grt_graph_set_attr_shape(g, p, "shape", 8, eight)), "OK");
  EXPECT_EQ(Take(grt_graph_set_attr_type(g, p, "dtype", GRT_FLOAT32)), "OK");
  int32_t rank = 0;
  int64_t dims[8];
  EXPECT_SAYS(grt_graph_node_output_shape(g, p, 0, &rank, dims),
              "graph is not validated: call grt_graph_validate");
  ASSERT_EQ(Take(grt_graph_validate(g)), "OK");
  ASSERT_EQ(Take(grt_graph_node_output_shape(g, p, 0, &rank, dims)), "OK");
  EXPECT_EQ(rank, 8);
  EXPECT_EQ(dims[7], -1);
  grt_graph_free(g);
}

}  // namespace
