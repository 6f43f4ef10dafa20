// Shape functions seen through grt_graph_validate: constants feed shape
// inputs, shapes flow from node to node, errors carry the node name.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "tests/ops/infer_helper.h"

namespace {

class Flow : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(grt_graph_new(&g_), nullptr); }
  void TearDown() override { grt_graph_free(g_); }

  void Ok(grt_status* s) {
    EXPECT_EQ(s, nullptr) << grt_status_message(s);
    grt_status_free(s);
  }
  int32_t Node(const char* name, const char* op, std::initializer_list<const char*> inputs) {
    int32_t i = -1;
    Ok(grt_graph_add_node(g_, name, op, &i));
    for (const char* in : inputs) Ok(grt_graph_add_input(g_, i, in));
    return i;
  }
  int32_t Placeholder(const char* name, grt_dtype dt, std::vector<int64_t> dims) {
    int32_t i = Node(name, "Placeholder", {});
    Ok(grt_graph_set_attr_type(g_, i, "dtype", dt));
    Ok(grt_graph_set_attr_shape(g_, i, "shape", static_cast<int32_t>(dims.size()), dims.data()));
    return i;
  }
  int32_t Var(const char* name, std::vector<int64_t> dims) {
    int32_t i = Node(name, "VariableV2", {});
    Ok(grt_graph_set_attr_type(g_, i, "dtype", GRT_FLOAT32));
    Ok(grt_graph_set_attr_shape(g_, i, "shape", static_cast<int32_t>(dims.size()), dims.data()));
    return i;
  }
  int32_t IntConst(const char* name, std::vector<int32_t> values, bool scalar = false) {
    int32_t i = Node(name, "Const", {});
    int64_t n = static_cast<int64_t>(values.size());
    grt_tensor* t = nullptr;
    Ok(grt_tensor_new(GRT_INT32, scalar ? 0 : 1, &n, &t));
    for (size_t k = 0; k < values.size(); k++)
      static_cast<int32_t*>(grt_tensor_data(t))[k] = values[k];
    Ok(grt_graph_set_attr_tensor(g_, i, "value", t));
    Ok(grt_graph_set_attr_type(g_, i, "dtype", GRT_INT32));
    grt_tensor_free(t);
    return i;
  }
  void T(int32_t node, const char* attr = "T", grt_dtype dt = GRT_FLOAT32) {
    Ok(grt_graph_set_attr_type(g_, node, attr, dt));
  }
  std::string OutShape(const char* name, int32_t k = 0) {
    int32_t rank = -2;
    int64_t dims[GRT_MAX_RANK];
    grt_status* s = grt_graph_node_output_shape(g_, grt_graph_find_node(g_, name), k, &rank, dims);
    if (s) {
      std::string m = grt_status_message(s);
      grt_status_free(s);
      return "error: " + m;
    }
    return rank < 0 ? "<unknown>" : grt_test::Str(grt_shape_make(rank, dims));
  }

  grt_graph* g_ = nullptr;
};

TEST_F(Flow, SoftmaxRegressionShapes) {
  Placeholder("x", GRT_FLOAT32, {-1, 784});
  Placeholder("labels", GRT_INT64, {-1});
  Var("w", {784, 10});
  Var("b", {10});
  T(Node("mm", "MatMul", {"x", "w"}));
  T(Node("logits", "BiasAdd", {"mm", "b"}));
  T(Node("probs", "Softmax", {"logits"}));
  T(Node("xent", "SparseSoftmaxCrossEntropyWithLogits", {"logits", "labels"}));
  IntConst("axis0", {0}, true);
  T(Node("loss", "Mean", {"xent:0", "axis0"}));
  IntConst("new_shape", {-1, 5});
  T(Node("r", "Reshape", {"logits", "new_shape"}));
  IntConst("perm", {1, 0});
  T(Node("wt", "Transpose", {"w", "perm"}));
  T(Node("shape_of_w", "Shape", {"w"}));
  T(Node("zeros", "Fill", {"shape_of_w", "zero"}));
  // Fill's value: a float scalar constant.
  int32_t z = Node("zero", "Const", {});
  grt_tensor* t = nullptr;
  Ok(grt_tensor_new(GRT_FLOAT32, 0, nullptr, &t));
  Ok(grt_graph_set_attr_tensor(g_, z, "value", t));
  Ok(grt_graph_set_attr_type(g_, z, "dtype", GRT_FLOAT32));
  grt_tensor_free(t);

  grt_status* s = grt_graph_validate(g_);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(OutShape("mm"), "[?,10]");
  EXPECT_EQ(OutShape("logits"), "[?,10]");
  EXPECT_EQ(OutShape("probs"), "[?,10]");
  EXPECT_EQ(OutShape("xent", 0), "[?]");
  EXPECT_EQ(OutShape("xent", 1), "[?,10]");
  EXPECT_EQ(OutShape("loss"), "[]");
  EXPECT_EQ(OutShape("r"), "[?,5]");
  EXPECT_EQ(OutShape("wt"), "[10,784]");
  EXPECT_EQ(OutShape("shape_of_w"), "[2]");
  // Shape's output is not a constant, so Fill knows only the rank.
  EXPECT_EQ(OutShape("zeros"), "[?,?]");
}

TEST_F(Flow, ErrorsNameTheNode) {
  Placeholder("x", GRT_FLOAT32, {4, 784});
  Var("w", {783, 10});
  T(Node("mm", "MatMul", {"x", "w"}));
  grt_test::Status s(grt_graph_validate(g_));
  EXPECT_EQ(s.code(), GRT_INVALID_ARGUMENT);
  EXPECT_NE(
      s.msg().find("node 'mm' (MatMul): Matrix size-incompatible: In[0]: [4,784], In[1]: [783,10]"),
      std::string::npos)
      << s.msg();
}

TEST_F(Flow, ReshapeCountMismatchThroughConst) {
  Placeholder("x", GRT_FLOAT32, {2, 3});
  IntConst("shape", {4});
  T(Node("r", "Reshape", {"x", "shape"}));
  grt_test::Status s(grt_graph_validate(g_));
  EXPECT_EQ(s.code(), GRT_INVALID_ARGUMENT);
  EXPECT_NE(
      s.msg().find("node 'r' (Reshape): Cannot reshape a tensor with 6 elements to shape [4]"),
      std::string::npos)
      << s.msg();
}

TEST_F(Flow, SplitOutputsAndConcat) {
  Placeholder("x", GRT_FLOAT32, {6, 4});
  IntConst("dim", {0}, true);
  int32_t sp = Node("sp", "Split", {"dim", "x"});
  T(sp);
  Ok(grt_graph_set_attr_int(g_, sp, "num_split", 3));
  IntConst("axis", {1}, true);
  int32_t cat = Node("cat", "ConcatV2", {"sp:0", "sp:2", "axis"});
  T(cat);
  Ok(grt_graph_set_attr_int(g_, cat, "N", 2));
  grt_status* s = grt_graph_validate(g_);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(grt_graph_node_num_outputs(g_, sp), 3);
  EXPECT_EQ(OutShape("sp", 2), "[2,4]");
  EXPECT_EQ(OutShape("cat"), "[2,8]");
}

// grt_graph_infer_node: one node at a time, as a graph is built (the ONNX
// importer), with constants beyond Const nodes' from a callback.
const grt_tensor* SixByOne(void* user, int32_t node, int32_t port) {
  (void)node;
  return port == 0 ? static_cast<const grt_tensor*>(user) : nullptr;
}

TEST_F(Flow, InferNodeOneAtATimeWithCallerValues) {
  Placeholder("x", GRT_FLOAT32, {2, 3});
  int32_t s = Node("s", "Shape", {"x"});
  T(s);
  int32_t r = Node("r", "Reshape", {"x", "s"});
  T(r);
  int64_t two = 2;
  grt_tensor* v = nullptr;
  Ok(grt_tensor_new(GRT_INT32, 1, &two, &v));
  static_cast<int32_t*>(grt_tensor_data(v))[0] = 6;
  static_cast<int32_t*>(grt_tensor_data(v))[1] = 1;
  // r before its input s: refused, naming the input.
  grt_test::Status early(grt_graph_infer_node(g_, r, SixByOne, v));
  EXPECT_NE(early.msg().find("node 'r' (Reshape): input 0 'x' is not a node inferred before it"),
            std::string::npos)
      << early.msg();
  for (int32_t i = 0; i <= r; i++) Ok(grt_graph_infer_node(g_, i, SixByOne, v));
  const grt_shape& shape = g_->nodes[r].sig.output_shapes[0];
  ASSERT_EQ(shape.rank, 2);
  EXPECT_EQ(shape.dims[0], 6);  // the callback's value, not Shape(x)'s
  EXPECT_EQ(shape.dims[1], 1);
  EXPECT_EQ(g_->nodes[s].sig.output_shapes[0].dims[0], 2);
  grt_tensor_free(v);
}

}  // namespace
