// The public graph API: building, querying, attr defaults, ownership.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
