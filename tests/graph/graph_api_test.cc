// The public graph API: building, querying, attr defaults, ownership.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

struct StatusGuard {
  grt_status* s;
  ~StatusGuard() { grt_status_free(s); }
};

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

TEST(GraphApi, BuildAndQuery) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  int32_t a, w, y, id;
  ASSERT_OK(grt_graph_add_node(g, "a", "Placeholder", &a));
  ASSERT_OK(grt_graph_set_attr_type(g, a, "dtype", GRT_FLOAT32));
  int64_t dims[] = {-1, 2};
  ASSERT_OK(grt_graph_set_attr_shape(g, a, "shape", 2, dims));
  ASSERT_OK(grt_graph_add_node(g, "w", "VariableV2", &w));
  ASSERT_OK(grt_graph_set_attr_type(g, w, "dtype", GRT_FLOAT32));
  int64_t wd[] = {2, 1};
  ASSERT_OK(grt_graph_set_attr_shape(g, w, "shape", 2, wd));
  ASSERT_OK(grt_graph_add_node(g, "y", "MatMul", &y));
  ASSERT_OK(grt_graph_add_input(g, y, "a"));
  ASSERT_OK(grt_graph_add_input(g, y, "w:0"));
  ASSERT_OK(grt_graph_set_device(g, y, "/gpu:0"));
  ASSERT_OK(grt_graph_set_attr_type(g, y, "T", GRT_FLOAT32));
  ASSERT_OK(grt_graph_add_node(g, "ident", "Identity", &id));
  ASSERT_OK(grt_graph_add_input(g, id, "y"));
  ASSERT_OK(grt_graph_add_input(g, id, "^w"));
  ASSERT_OK(grt_graph_add_colocation(g, id, "w"));
  ASSERT_OK(grt_graph_set_attr_type(g, id, "T", GRT_FLOAT32));

  ASSERT_OK(grt_graph_validate(g));
  EXPECT_EQ(grt_graph_num_nodes(g), 4);
  EXPECT_EQ(grt_graph_find_node(g, "y"), y);
  EXPECT_EQ(grt_graph_find_node(g, "nope"), -1);
  EXPECT_STREQ(grt_graph_node_op(g, y), "MatMul");
  EXPECT_STREQ(grt_graph_node_device(g, y), "/gpu:0");
  EXPECT_STREQ(grt_graph_node_device(g, a), "");
  ASSERT_EQ(grt_graph_node_num_inputs(g, y), 2);
  int32_t port = -5;
  EXPECT_STREQ(grt_graph_node_input(g, y, 1, &port), "w");
  EXPECT_EQ(port, 0);
  EXPECT_EQ(grt_graph_node_input(g, y, 2, &port), nullptr);
  ASSERT_EQ(grt_graph_node_num_control_inputs(g, id), 1);
  EXPECT_STREQ(grt_graph_node_control_input(g, id, 0), "w");
  ASSERT_EQ(grt_graph_node_num_colocations(g, id), 1);
  EXPECT_STREQ(grt_graph_node_colocation(g, id, 0), "w");

  // Defaults come from the op definition when the node does not set them.
  bool ta = true;
  ASSERT_OK(grt_graph_node_attr_bool(g, y, "transpose_a", &ta));
  EXPECT_FALSE(ta);
  EXPECT_EQ(grt_graph_node_attr_type(g, y, "transpose_a"), GRT_ATTR_NONE);
  int64_t i64;
  grt_status* s = grt_graph_node_attr_int(g, y, "T", &i64);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  grt_status_free(s);
  s = grt_graph_node_attr_int(g, y, "nope", &i64);
  EXPECT_EQ(grt_status_code(s), GRT_NOT_FOUND);
  grt_status_free(s);

  // Inferred outputs: MatMul [?,2] x [2,1] -> [?,1].
  EXPECT_EQ(grt_graph_node_num_outputs(g, y), 1);
  EXPECT_EQ(grt_graph_node_output_type(g, y, 0), GRT_FLOAT32);
  int32_t rank;
  int64_t out[GRT_MAX_RANK];
  ASSERT_OK(grt_graph_node_output_shape(g, y, 0, &rank, out));
  ASSERT_EQ(rank, 2);
  EXPECT_EQ(out[0], -1);
  EXPECT_EQ(out[1], 1);
  grt_graph_free(g);
}

TEST(GraphApi, RejectsBadNamesDuplicatesAndInputs) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  int32_t n;
  grt_status* s = grt_graph_add_node(g, "bad name", "NoOp", &n);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(grt_status_message(s)).find("bad name"), std::string::npos);
  grt_status_free(s);
  s = grt_graph_add_node(g, "", "NoOp", &n);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  grt_status_free(s);
  ASSERT_OK(grt_graph_add_node(g, "x", "NoOp", &n));
  s = grt_graph_add_node(g, "x", "NoOp", nullptr);
  EXPECT_EQ(grt_status_code(s), GRT_ALREADY_EXISTS);
  EXPECT_NE(std::string(grt_status_message(s)).find("duplicate node name 'x'"), std::string::npos);
  grt_status_free(s);
  for (const char* bad : {"", "a:", ":1", "a:b", "^a:1", "a b", "^", "a:99999999999"}) {
    s = grt_graph_add_input(g, n, bad);
    EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT) << bad;
    grt_status_free(s);
  }
  ASSERT_OK(grt_graph_add_input(g, n, "^y"));
  s = grt_graph_add_input(g, n, "z");
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(grt_status_message(s)).find("after a control input"), std::string::npos);
  grt_status_free(s);
  s = grt_graph_set_device(g, 7, "/cpu:0");
  EXPECT_EQ(grt_status_code(s), GRT_OUT_OF_RANGE);
  grt_status_free(s);
  s = grt_graph_set_attr_tensor(g, n, "value", nullptr);
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  grt_status_free(s);
  grt_graph_free(g);
  grt_graph_free(nullptr);
}

TEST(GraphApi, TensorAttrsAreSharedNotCopied) {
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_new(&g));
  int32_t c;
  ASSERT_OK(grt_graph_add_node(g, "c", "Const", &c));
  int64_t dims[] = {3};
  grt_tensor* t = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_INT32, 1, dims, &t));
  static_cast<int32_t*>(grt_tensor_data(t))[2] = 7;
  ASSERT_OK(grt_graph_set_attr_tensor(g, c, "value", t));
  ASSERT_OK(grt_graph_set_attr_type(g, c, "dtype", GRT_INT32));
  grt_tensor_free(t);  // the graph keeps its own reference
  ASSERT_OK(grt_graph_validate(g));
  const grt_tensor* v = nullptr;
  ASSERT_OK(grt_graph_node_attr_tensor(g, c, "value", &v));
  EXPECT_EQ(static_cast<const int32_t*>(grt_tensor_data(v))[2], 7);
  EXPECT_EQ(grt_graph_constant_bytes(g), 12u);
  // Replacing an attr releases the old tensor (checked by ASan/valgrind runs).
  grt_tensor* t2 = nullptr;
  ASSERT_OK(grt_tensor_new(GRT_INT32, 1, dims, &t2));
  ASSERT_OK(grt_graph_set_attr_tensor(g, c, "value", t2));
  grt_tensor_free(t2);
  grt_graph_free(g);
}

// The signature node by node (grt_graph_node_roles): a Placeholder is a
// feed, an unused node with outputs an output (the loss, though the
// backward pass reads it), an unused node without outputs or updating a
// variable a target (init, train), and everything else, the backward
// pass's own unused tensors included, none.
TEST(GraphApi, NodeRolesAreTheSignature) {
  const char* json = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1,2]}},
    {"name":"w","op":"VariableV2","attrs":{"dtype":"float32","shape":[2,1]}},
    {"name":"w0","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2,1],"values":[1,2]}}},
    {"name":"w/Assign","op":"Assign","inputs":["w","w0"],"attrs":{"T":"float32"}},
    {"name":"init","op":"NoOp","inputs":["^w/Assign"]},
    {"name":"y","op":"MatMul","inputs":["x","w"],"attrs":{"T":"float32"}},
    {"name":"loss","op":"Sum","inputs":["y","axes"],"attrs":{"T":"float32","Tidx":"int32"}},
    {"name":"axes","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":[2],"values":[0,1]}}},
    {"name":"gradients/dx","op":"Identity","inputs":["loss"],"attrs":{"T":"float32"}},
    {"name":"lr","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[0.1]}}},
    {"name":"train","op":"ApplyGradientDescent","inputs":["w","lr","w0"],"attrs":{"T":"float32"}}]})";
  grt_graph* g = nullptr;
  ASSERT_OK(grt_graph_from_json(json, strlen(json), &g));
  int32_t n = grt_graph_num_nodes(g);
  // Stored as ints with -1 where nothing was written: -1 is no
  // grt_node_role, and loading it as one is undefined (UBSan's enum check).
  std::vector<int32_t> raw(n, -1);
  static_assert(sizeof(grt_node_role) == sizeof(int32_t), "roles are written as ints");
  ASSERT_OK(grt_graph_node_roles(g, reinterpret_cast<grt_node_role*>(raw.data())));
  auto role = [&](const char* name) { return raw[grt_graph_find_node(g, name)]; };
  EXPECT_EQ(role("x"), GRT_ROLE_FEED);
  EXPECT_EQ(role("loss"), GRT_ROLE_OUTPUT) << "the backward pass's use does not hide it";
  EXPECT_EQ(role("init"), GRT_ROLE_TARGET);
  EXPECT_EQ(role("train"), GRT_ROLE_TARGET) << "updates a variable, though it has an output";
  for (const char* none : {"w", "w0", "w/Assign", "y", "axes", "gradients/dx", "lr"})
    EXPECT_EQ(role(none), GRT_ROLE_NONE) << none;
  grt_status* st = grt_graph_node_roles(g, nullptr);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
  grt_status_free(st);
  grt_graph_free(g);
}

}  // namespace
