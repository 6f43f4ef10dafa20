// The identity pass (optimizer/pass_identity.c): an Identity on its source's
// device goes, its consumers reading the source; one with control inputs
// stays, or the ordering they give would be lost.
#include <gtest/gtest.h>

#include "opt_test_util.h"

namespace {

using namespace grt_opt_test;

TEST(Identity, GoesUnlessItCarriesControlInputs) {
  Graph g;
  g.Placeholder("x", {3});
  g.Node("first", "Neg", {"x"});
  g.Node("plain", "Identity", {"x"});
  g.Node("ordered", "Identity", {"x", "^first"});
  g.Node("a", "Neg", {"plain"});
  g.Node("b", "Neg", {"ordered"});
  std::string report;
  grt_graph* o = Optimized(g.g(), &report);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CountOp(o, "Identity"), 1) << report;
  int32_t kept = grt_graph_find_node(o, "ordered");
  ASSERT_GE(kept, 0) << report;
  EXPECT_EQ(grt_graph_node_num_control_inputs(o, kept), 1);
  EXPECT_LT(grt_graph_find_node(o, "plain"), 0) << report;
  grt_graph_free(o);
  grt_tensor* x = TensorF({3}, {1.0f, -2.0f, 0.5f});
  ExpectSameBothWays(g.g(), {{"x", x}}, {"a", "b", "first"});
  grt_tensor_free(x);
}

}  // namespace
