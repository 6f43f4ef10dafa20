// The gradient engine: sums at fan-out, StopGradient, integer inputs,
// unreachable xs, ops without a gradient (an error that leaves the graph as
// it was), and colocate_gradients_with_ops under placement on two CPUs.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tests/training/grad_check.h"

namespace grt_test {
namespace {

grt_graph* FromJson(const std::string& nodes) {
  std::string text = "{\"format\":\"grt.graph\",\"version\":1,\"nodes\":[" + nodes + "]}";
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(text.data(), text.size(), &g);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return g;
}

grt_output Out(grt_graph* g, const char* name, int32_t port = 0) {
  return {grt_graph_find_node(g, name), port};
}

std::string Name(grt_graph* g, grt_output o) {
  return std::string(grt_graph_node_name(g, o.node)) + ":" + std::to_string(o.port);
}

const char* kX64 = R"({"name":"x","op":"Placeholder","attrs":{"dtype":"float64"}})";

TEST(Gradients, FanOutIsSummedWithAddN) {
  // y = x * x + x: x feeds three inputs, so dy/dx = 2x + 1 is an AddN of three
  grt_graph* g = FromJson(std::string(kX64) + R"(,
    {"name":"sq","op":"Mul","inputs":["x","x"]},
    {"name":"y","op":"AddV2","inputs":["sq","x"]})");
  ASSERT_NE(g, nullptr);
  grt_output y = Out(g, "y"), x = Out(g, "x"), dx;
  ASSERT_OK(grt_graph_add_gradients(g, nullptr, &y, 1, &x, 1, nullptr, false, &dx));
  ASSERT_GE(dx.node, 0);
  EXPECT_STREQ(grt_graph_node_op(g, dx.node), "AddN");
  int64_t n = 0;
  ASSERT_OK(grt_graph_node_attr_int(g, dx.node, "N", &n));
  EXPECT_EQ(n, 3);
  std::vector<double> xs = {-1.5, 0.25, 3.0};
  grt_tensor* xt = Tensor(GRT_FLOAT64, {3}, xs);
  std::vector<Value> v = RunGraph(g, {"x"}, {xt}, {Name(g, dx)});
  grt_tensor_free(xt);
  ASSERT_EQ(v[0].v.size(), 3u);
  for (int i = 0; i < 3; i++) EXPECT_DOUBLE_EQ(v[0].v[i], 2 * xs[i] + 1);
  grt_graph_free(g);
}

TEST(Gradients, StopGradientBlocksItsInput) {
  // y = x * stop_gradient(x): dy/dx = stop_gradient(x) = x, not 2x
  grt_graph* g = FromJson(std::string(kX64) + R"(,
    {"name":"s","op":"StopGradient","inputs":["x"]},
    {"name":"y","op":"Mul","inputs":["x","s"]},
    {"name":"only","op":"StopGradient","inputs":["x"]})");
  ASSERT_NE(g, nullptr);
  grt_output y = Out(g, "y"), x = Out(g, "x"), dx;
  ASSERT_OK(grt_graph_add_gradients(g, nullptr, &y, 1, &x, 1, nullptr, false, &dx));
  ASSERT_GE(dx.node, 0);
  std::vector<double> xs = {-2, 0.5};
  grt_tensor* xt = Tensor(GRT_FLOAT64, {2}, xs);
  std::vector<Value> v = RunGraph(g, {"x"}, {xt}, {Name(g, dx)});
  grt_tensor_free(xt);
  ASSERT_EQ(v[0].v.size(), 2u);
  EXPECT_DOUBLE_EQ(v[0].v[0], -2);
  EXPECT_DOUBLE_EQ(v[0].v[1], 0.5);
  // through a StopGradient alone nothing arrives: TensorFlow's None
  grt_output only = Out(g, "only");
  ASSERT_OK(grt_graph_add_gradients(g, nullptr, &only, 1, &x, 1, nullptr, false, &dx));
  EXPECT_EQ(dx.node, -1);
  EXPECT_EQ(dx.port, -1);
  grt_graph_free(g);
}

TEST(Gradients, IntegerTensorsGetNoGradient) {
  // y = cast(k) * w with k int32: dk is None, dw = cast(k); the integer
  // reduction axes of a Sum get none either
  grt_graph* g = FromJson(R"(
    {"name":"k","op":"Placeholder","attrs":{"dtype":"int32"}},
    {"name":"w","op":"Placeholder","attrs":{"dtype":"float64"}},
    {"name":"c","op":"Cast","inputs":["k"],"attrs":{"DstT":"float64"}},
    {"name":"m","op":"Mul","inputs":["c","w"]},
    {"name":"axis","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[],"values":[0]}}},
    {"name":"y","op":"Sum","inputs":["m","axis"]})");
  ASSERT_NE(g, nullptr);
  grt_output y = Out(g, "y"), xs[3] = {Out(g, "k"), Out(g, "w"), Out(g, "axis")}, dx[3];
  ASSERT_OK(grt_graph_add_gradients(g, nullptr, &y, 1, xs, 3, nullptr, false, dx));
  EXPECT_EQ(dx[0].node, -1);
  EXPECT_EQ(dx[2].node, -1);
  ASSERT_GE(dx[1].node, 0);
  grt_tensor* k = Tensor(GRT_INT32, {3}, {4, -1, 7});
  grt_tensor* w = Tensor(GRT_FLOAT64, {3}, {0.5, 0.5, 0.5});
  std::vector<Value> v = RunGraph(g, {"k", "w"}, {k, w}, {Name(g, dx[1])});
  grt_tensor_free(k);
  grt_tensor_free(w);
  EXPECT_EQ(v[0].v, (std::vector<double>{4, -1, 7}));
  grt_graph_free(g);
}

TEST(Gradients, UnreachableXIsNone) {
  grt_graph* g = FromJson(std::string(kX64) + R"(,
    {"name":"z","op":"Placeholder","attrs":{"dtype":"float64"}},
    {"name":"y","op":"Square","inputs":["x"]})");
  ASSERT_NE(g, nullptr);
  grt_output y = Out(g, "y"), xs[2] = {Out(g, "z"), Out(g, "x")}, dx[2];
  ASSERT_OK(grt_graph_add_gradients(g, nullptr, &y, 1, xs, 2, nullptr, false, dx));
  EXPECT_EQ(dx[0].node, -1);
  EXPECT_GE(dx[1].node, 0);
  grt_graph_free(g);
}

TEST(Gradients, OpWithoutGradientIsAnErrorAndTheGraphIsUnchanged) {
  grt_graph* g = FromJson(std::string(kX64) + R"(,
    {"name":"e","op":"Exp","inputs":["x"]},
    {"name":"axis","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[],"values":[0]}}},
    {"name":"p","op":"Prod","inputs":["e","axis"]},
    {"name":"y","op":"Square","inputs":["p"]})");
  ASSERT_NE(g, nullptr);
  char* before = nullptr;
  size_t before_len = 0;
  ASSERT_OK(grt_graph_to_json(g, &before, &before_len));
  grt_output y = Out(g, "y"), x = Out(g, "x"), dx = {7, 7};
  grt_status* s = grt_graph_add_gradients(g, nullptr, &y, 1, &x, 1, nullptr, false, &dx);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(grt_status_code(s), GRT_UNIMPLEMENTED);
  EXPECT_NE(std::strstr(grt_status_message(s), "Prod"), nullptr) << grt_status_message(s);
  EXPECT_NE(std::strstr(grt_status_message(s), "'p'"), nullptr) << grt_status_message(s);
  grt_status_free(s);
  EXPECT_EQ(dx.node, -1);
  char* after = nullptr;
  size_t after_len = 0;
  ASSERT_OK(grt_graph_to_json(g, &after, &after_len));
  EXPECT_EQ(std::string(before, before_len), std::string(after, after_len));
  free(before);
  free(after);
  // a y of an integer type has no default gradient
  grt_output k = Out(g, "axis");
  s = grt_graph_add_gradients(g, nullptr, &k, 1, &x, 1, nullptr, false, &dx);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  grt_status_free(s);
  grt_graph_free(g);
}

TEST(Gradients, SecondCallGetsItsOwnPrefix) {
  grt_graph* g = FromJson(std::string(kX64) + R"(,{"name":"y","op":"Exp","inputs":["x"]})");
  ASSERT_NE(g, nullptr);
  grt_output y = Out(g, "y"), x = Out(g, "x"), d1, d2;
  ASSERT_OK(grt_graph_add_gradients(g, nullptr, &y, 1, &x, 1, nullptr, false, &d1));
  ASSERT_OK(grt_graph_add_gradients(g, nullptr, &y, 1, &x, 1, nullptr, false, &d2));
  EXPECT_EQ(std::string(grt_graph_node_name(g, d1.node)).rfind("gradients/", 0), 0u);
  EXPECT_EQ(std::string(grt_graph_node_name(g, d2.node)).rfind("gradients_1/", 0), 0u);
  grt_graph_free(g);
}

// The forward pass split over cpu:0 and cpu:1; with the flag every gradient
// node of a forward node shares its device, without it they do not.
TEST(Gradients, ColocateGradientsWithOpsFollowsTheForwardDevices) {
  const std::string fwd = R"(
    {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[4,3]}},
    {"name":"w","op":"VariableV2","device":"/cpu:1","attrs":{"dtype":"float32","shape":[3,2]}},
    {"name":"h","op":"MatMul","inputs":["x","w"],"device":"/cpu:1"},
    {"name":"a","op":"Tanh","inputs":["h"],"device":"/cpu:1"},
    {"name":"sq","op":"Square","inputs":["a"],"device":"/cpu:0"},
    {"name":"axes","op":"Const","device":"/cpu:0","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[0,1]}}},
    {"name":"loss","op":"Mean","inputs":["sq","axes"],"device":"/cpu:0"})";
  for (bool colocate : {true, false}) {
    SCOPED_TRACE(colocate);
    grt_graph* g = FromJson(fwd);
    ASSERT_NE(g, nullptr);
    int32_t n_fwd = grt_graph_num_nodes(g);
    grt_output y = Out(g, "loss"), x = Out(g, "w"), dx;
    ASSERT_OK(grt_graph_add_gradients(g, nullptr, &y, 1, &x, 1, nullptr, colocate, &dx));
    grt_device_set* ds = nullptr;
    ASSERT_OK(grt_device_set_from_spec("cpu:2", &ds));
    grt_plan* plan = nullptr;
    ASSERT_OK(grt_place(g, ds, nullptr, &plan));
    int checked = 0, elsewhere = 0;
    for (int32_t i = n_fwd; i < grt_graph_num_nodes(g); i++) {
      std::string name = grt_graph_node_name(g, i);
      // gradients/<fwd>_grad/...
      size_t a = name.find('/'), b = name.find("_grad/");
      if (a == std::string::npos || b == std::string::npos) continue;
      int32_t f = grt_graph_find_node(g, name.substr(a + 1, b - a - 1).c_str());
      ASSERT_GE(f, 0) << name;
      checked++;
      bool same =
          std::strcmp(grt_plan_node_device_name(plan, i), grt_plan_node_device_name(plan, f)) == 0;
      if (colocate) {
        EXPECT_TRUE(same) << name << " on " << grt_plan_node_device_name(plan, i);
        EXPECT_EQ(grt_plan_node_reason(plan, i), GRT_REASON_COLOCATION) << name;
      }
      elsewhere += !same;
    }
    EXPECT_GT(checked, 5);
    if (!colocate) {
      EXPECT_GT(elsewhere, 0);  // unconstrained: the default device
    }
    grt_plan_free(plan);
    grt_device_set_free(ds);
    grt_graph_free(g);
  }
}

}  // namespace
}  // namespace grt_test
