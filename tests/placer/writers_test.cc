// The plan's writers: TensorFlow's placement log, the JSON plan and DOT
// (the grt command draws SVG from it).
#include <gtest/gtest.h>
#include <jansson.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/placer/placer_helper.h"

namespace {

using grt_test::Graph;
using grt_test::PlaceArgs;
using grt_test::Placed;

template <typename Writer>
std::string Capture(Writer write, const grt_plan* plan) {
  char* text = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  grt_test::Status s(write(plan, f));
  EXPECT_TRUE(s.ok()) << s.msg();
  fclose(f);
  std::string out(text, len);
  free(text);
  return out;
}

void Small(Graph& g) {
  g.Variable("w", {2, 2}, "/gpu:1");
  g.Placeholder("x", "/cpu:0").Op("y", "MatMul", {"x", "w/read"});
  g.Op("s", "Shape", {"y"});
  g.Op("out", "Neg", {"y"}, "/gpu:7");
}

TEST(WritersTest, PlacementLogInTensorFlowsFormat) {
  Graph g;
  Small(g);
  Placed p(g, "cpu:1,gpu:2", true);
  ASSERT_TRUE(p.ok()) << p.error();
  std::string log = Capture(grt_plan_write_log, p.plan());
  const std::string cpu = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string gpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
  const std::string gpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";
  EXPECT_EQ(log, "Device mapping:\n" + cpu + " -> device: 0, name: logical CPU device\n" + gpu0 +
                     " -> device: 0, name: logical GPU device (declared; not on this machine)\n" +
                     gpu1 +
                     " -> device: 1, name: logical GPU device (declared; not on this machine)\n" +
                     "w: (VariableV2): " + gpu1 + "\n" + "w/init: (Const): " + gpu1 + "\n" +
                     "w/Assign: (Assign): " + gpu1 + "\n" + "w/read: (Identity): " + gpu1 + "\n" +
                     "x: (Placeholder): " + cpu + "\n" + "y: (MatMul): " + gpu0 + "\n" +
                     "s: (Shape): " + gpu0 + "\n" + "out: (Neg): " + gpu0 +
                     " (soft placement: requested /device:GPU:7)\n");
}

TEST(WritersTest, JsonPlanExplainsEveryNode) {
  Graph g;
  Small(g);
  g.Op("peek", "Identity", {"w"}).ColocateWith("w");
  g.Var("pv", {3});
  Placed p(g, PlaceArgs{"cpu:1,gpu:2", true, "/gpu:1,/gpu:0", "greedy"});
  ASSERT_TRUE(p.ok()) << p.error();
  std::string text = Capture(grt_plan_write_json, p.plan());
  json_error_t err;
  json_t* root = json_loads(text.c_str(), 0, &err);
  ASSERT_NE(root, nullptr) << err.text << " at line " << err.line << "\n" << text;
  EXPECT_STREQ(json_string_value(json_object_get(root, "format")), "grt.plan");
  EXPECT_TRUE(json_is_true(json_object_get(root, "soft_placement")));
  EXPECT_EQ(json_array_size(json_object_get(root, "devices")), 3u);
  json_t* nodes = json_object_get(root, "nodes");
  ASSERT_EQ(json_array_size(nodes), (size_t)grt_graph_num_nodes(g.get()));
  auto node = [&](const char* name) -> json_t* {
    for (size_t i = 0; i < json_array_size(nodes); i++) {
      json_t* n = json_array_get(nodes, i);
      if (std::string(json_string_value(json_object_get(n, "name"))) == name) return n;
    }
    ADD_FAILURE() << name;
    return json_object();
  };
  auto reason = [&](const char* name, const char* key) {
    json_t* v = json_object_get(json_object_get(node(name), "reason"), key);
    return v && json_is_string(v) ? std::string(json_string_value(v)) : std::string("<none>");
  };
  EXPECT_STREQ(json_string_value(json_object_get(node("w"), "requested")), "/gpu:1");
  EXPECT_STREQ(json_string_value(json_object_get(node("w"), "assigned")),
               "/job:localhost/replica:0/task:0/device:GPU:1");
  EXPECT_EQ(reason("w", "kind"), "explicit");
  EXPECT_EQ(reason("w/read", "kind"), "explicit");
  EXPECT_EQ(reason("peek", "kind"), "colocation");
  EXPECT_EQ(reason("peek", "with"), "w");
  EXPECT_EQ(reason("s", "kind"), "input");
  EXPECT_EQ(reason("s", "input"), "y");
  EXPECT_EQ(reason("y", "kind"), "default");
  EXPECT_EQ(reason("out", "kind"), "soft_fallback");
  EXPECT_EQ(reason("out", "cause"), "no_such_device");
  EXPECT_EQ(reason("out", "from"), "/gpu:7");
  EXPECT_EQ(reason("out", "to"), "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(reason("out", "dropped"), "id");
  EXPECT_NE(reason("out", "text").find("soft placement"), std::string::npos);
  // The ps setter, with its loads.
  EXPECT_EQ(reason("pv", "kind"), "ps_setter");
  EXPECT_EQ(reason("pv", "ps_device"), "/gpu:1");
  json_t* r = json_object_get(node("pv"), "reason");
  EXPECT_EQ(json_integer_value(json_object_get(r, "bytes")), 12);
  EXPECT_EQ(json_integer_value(json_array_get(json_object_get(r, "loads_after"), 0)), 12);
  EXPECT_STREQ(json_string_value(json_object_get(json_object_get(root, "ps"), "strategy")),
               "greedy");
  // Copies out of w/read (GPU:1) to y (GPU:0), and of x (CPU) to y.
  json_t* copies = json_object_get(node("w/read"), "copies");
  ASSERT_EQ(json_array_size(copies), 1u);
  EXPECT_EQ(json_integer_value(json_object_get(json_array_get(copies, 0), "port")), 0);
  EXPECT_STREQ(json_string_value(json_object_get(json_array_get(copies, 0), "to")),
               "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(json_array_size(json_object_get(node("x"), "copies")), 1u);
  EXPECT_EQ(json_integer_value(json_object_get(root, "num_copies")), grt_plan_num_copies(p.plan()));
  json_decref(root);
}

TEST(WritersTest, JsonRecordsIgnoredColocation) {
  Graph g;
  g.Const("a", {2}, "/job:ps").Const("b", {2}, "/job:worker").ColocateWith("a");
  Placed p(g, "cpu:1", true);
  ASSERT_TRUE(p.ok()) << p.error();
  std::string text = Capture(grt_plan_write_json, p.plan());
  json_t* root = json_loads(text.c_str(), 0, nullptr);
  ASSERT_NE(root, nullptr) << text;
  json_t* ignored = json_object_get(root, "colocation_ignored");
  ASSERT_EQ(json_array_size(ignored), 1u);
  EXPECT_STREQ(json_string_value(json_object_get(json_array_get(ignored, 0), "node")), "b");
  EXPECT_STREQ(json_string_value(json_object_get(json_array_get(ignored, 0), "with")), "a");
  json_decref(root);
}

TEST(WritersTest, DotColoursDevicesAndMarksCrossings) {
  Graph g;
  Small(g);
  g.Node("done", "NoOp", {"^out"});
  Placed p(g, "cpu:1,gpu:2", true);
  ASSERT_TRUE(p.ok()) << p.error();
  std::string dot = Capture(grt_plan_write_dot, p.plan());
  EXPECT_EQ(dot.rfind("digraph plan {", 0), 0u);
  EXPECT_NE(dot.find("d0 [label=\"CPU:0\", fillcolor="), std::string::npos) << dot;
  int x = p.Index("x"), y = p.Index("y"), s = p.Index("s");
  EXPECT_NE(dot.find("n" + std::to_string(x) + " [label=\"x\\nPlaceholder\\nCPU:0\""),
            std::string::npos)
      << dot;
  // x (CPU) -> y (GPU:0) crosses; y -> s does not.
  EXPECT_NE(dot.find("n" + std::to_string(x) + " -> n" + std::to_string(y) +
                     " [color=\"red\", penwidth=2, xlabel=\"copy\", style=\"dashed\"];"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("n" + std::to_string(y) + " -> n" + std::to_string(s) + ";"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("style=\"dotted\""), std::string::npos);  // the control edge
}

// Saving pictures (DOT files, SVG through Graphviz) is the grt command's job
// now: cli_test's PlanJsonAndPictures covers `grt place --dot`.

}  // namespace
