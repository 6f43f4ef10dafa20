// grt_graph_validate: each fault gives its own error, naming the node.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

class Validate : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(grt_graph_new(&g_)); }
  void TearDown() override { grt_graph_free(g_); }

  int32_t Node(const char* name, const char* op, std::initializer_list<const char*> inputs = {},
               const char* T = "float32") {
    int32_t i = -1;
    grt_status* s = grt_graph_add_node(g_, name, op, &i);
    EXPECT_EQ(s, nullptr) << grt_status_message(s);
    grt_status_free(s);
    for (const char* in : inputs) {
      s = grt_graph_add_input(g_, i, in);
      EXPECT_EQ(s, nullptr) << grt_status_message(s);
      grt_status_free(s);
    }
    if (T) {
      grt_dtype t;
      grt_dtype_from_name(T, &t);
      grt_status_free(grt_graph_set_attr_type(g_, i, "T", t));
    }
    return i;
  }
  int32_t Var(const char* name, int64_t rows = 2, int64_t cols = 2) {
    int32_t i = Node(name, "VariableV2", {}, nullptr);
    grt_status_free(grt_graph_set_attr_type(g_, i, "dtype", GRT_FLOAT32));
    int64_t d[] = {rows, cols};
    grt_status_free(grt_graph_set_attr_shape(g_, i, "shape", 2, d));
    return i;
  }
  int32_t Const(const char* name, grt_dtype dt, std::initializer_list<int64_t> dims) {
    int32_t i = Node(name, "Const", {}, nullptr);
    grt_tensor* t = nullptr;
    std::vector<int64_t> d(dims);
    EXPECT_EQ(grt_tensor_new(dt, static_cast<int32_t>(d.size()), d.data(), &t), nullptr);
    grt_status_free(grt_graph_set_attr_tensor(g_, i, "value", t));
    grt_status_free(grt_graph_set_attr_type(g_, i, "dtype", dt));
    grt_tensor_free(t);
    return i;
  }
  // Validates and checks the error's code and that its message has `part`.
  void ExpectError(grt_code code, const std::string& part) {
    grt_status* s = grt_graph_validate(g_);
    ASSERT_NE(s, nullptr) << "expected an error containing: " << part;
    EXPECT_EQ(grt_status_code(s), code) << grt_status_message(s);
    EXPECT_NE(std::string(grt_status_message(s)).find(part), std::string::npos)
        << "message: " << grt_status_message(s) << "\nexpected part: " << part;
    grt_status_free(s);
  }
  grt_graph* g_ = nullptr;
};

TEST_F(Validate, AcceptsTheSeedsThreeGpuGraph) {
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_load("examples/three_gpus.json", &g);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(grt_graph_num_nodes(g), 65);
  int32_t add = grt_graph_find_node(g, "AddN");
  int32_t rank;
  int64_t d[GRT_MAX_RANK];
  ASSERT_OK(grt_graph_node_output_shape(g, add, 0, &rank, d));
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(d[0], 2);
  EXPECT_EQ(d[1], 2);
  grt_graph_free(g);
}

TEST_F(Validate, InfersTypeAndLengthAttrsFromInputs) {
  Var("a");
  Var("b");
  Node("sum", "AddN", {"a", "b"}, nullptr);  // neither N nor T given
  ASSERT_OK(grt_graph_validate(g_));
  int32_t sum = grt_graph_find_node(g_, "sum");
  int64_t n = 0;
  ASSERT_OK(grt_graph_node_attr_int(g_, sum, "N", &n));
  EXPECT_EQ(n, 2);
  grt_dtype t = GRT_DTYPE_INVALID;
  ASSERT_OK(grt_graph_node_attr_type_value(g_, sum, "T", &t));
  EXPECT_EQ(t, GRT_FLOAT32);
}

TEST_F(Validate, InferredTypeStillObeysConstraints) {
  Const("b", GRT_BOOL, {2, 2});
  Node("m", "MatMul", {"b", "b"}, nullptr);
  ExpectError(GRT_INVALID_ARGUMENT, "attr 'T' is bool, which MatMul does not allow");
}

TEST_F(Validate, UnknownOp) {
  Node("x", "NoSuchOp", {}, nullptr);
  ExpectError(GRT_NOT_FOUND, "node 'x': unknown op 'NoSuchOp'");
}

TEST_F(Validate, MissingInputNode) {
  Var("v");
  Node("id", "Identity", {"ghost"});
  ExpectError(GRT_NOT_FOUND,
              "node 'id' (Identity): input 'ghost' names a node that does not exist");
}

TEST_F(Validate, MissingControlInputNode) {
  Node("n", "NoOp", {"^ghost"}, nullptr);
  ExpectError(GRT_NOT_FOUND, "node 'n' (NoOp): control input '^ghost'");
}

TEST_F(Validate, PortOutOfRange) {
  Var("v");
  Node("id", "Identity", {"v:1"});
  ExpectError(GRT_OUT_OF_RANGE,
              "node 'id' (Identity): input 0 'v:1': node 'v' (VariableV2) has only 1 output");
}

TEST_F(Validate, WrongNumberOfInputs) {
  Var("v");
  Node("m", "MatMul", {"v"});
  ExpectError(GRT_INVALID_ARGUMENT, "node 'm' (MatMul): expects 2 data inputs, has 1");
}

TEST_F(Validate, DataCycle) {
  Var("v");
  Node("a", "Add", {"v", "c"});
  Node("b", "Identity", {"a"});
  Node("c", "Identity", {"b"});
  ExpectError(GRT_INVALID_ARGUMENT, "cycle");
  grt_status* s = grt_graph_validate(g_);
  std::string m = grt_status_message(s);
  grt_status_free(s);
  EXPECT_NE(m.find("'a' -> 'b' -> 'c' -> 'a'"), std::string::npos) << m;
}

TEST_F(Validate, ControlCycle) {
  Node("p", "NoOp", {"^q"}, nullptr);
  Node("q", "NoOp", {"^p"}, nullptr);
  ExpectError(GRT_INVALID_ARGUMENT, "cycle through data or control edges");
}

TEST_F(Validate, SelfLoop) {
  Node("p", "NoOp", {"^p"}, nullptr);
  ExpectError(GRT_INVALID_ARGUMENT, "'p' -> 'p'");
}

TEST_F(Validate, AttrOfWrongType) {
  Var("v");
  int32_t m = Node("m", "MatMul", {"v", "v"});
  grt_status_free(grt_graph_set_attr_int(g_, m, "transpose_a", 1));
  ExpectError(GRT_INVALID_ARGUMENT, "node 'm' (MatMul): attr 'transpose_a' must be bool, got int");
}

TEST_F(Validate, MissingAttr) {
  Node("p", "Placeholder", {}, nullptr);
  ExpectError(GRT_INVALID_ARGUMENT, "node 'p' (Placeholder): missing attr 'dtype'");
}

TEST_F(Validate, UndeclaredAttr) {
  int32_t n = Node("n", "NoOp", {}, nullptr);
  grt_status_free(grt_graph_set_attr_int(g_, n, "bogus", 1));
  ExpectError(GRT_INVALID_ARGUMENT, "attr 'bogus' is not an attr of NoOp");
}

TEST_F(Validate, DtypeConstraintViolated) {
  Const("b", GRT_BOOL, {2, 2});
  Node("m", "MatMul", {"b", "b"}, "bool");
  ExpectError(GRT_INVALID_ARGUMENT, "attr 'T' is bool, which MatMul does not allow");
}

TEST_F(Validate, InputDtypeMismatch) {
  Const("i", GRT_INT32, {2});
  Var("v");
  Node("a", "Add", {"v", "i"});
  ExpectError(GRT_INVALID_ARGUMENT, "node 'a' (Add): input 1 'i:0' is int32, expected float32");
}

TEST_F(Validate, ConstValueDtypeDisagreesWithAttr) {
  int32_t c = Const("c", GRT_INT32, {2});
  grt_status_free(grt_graph_set_attr_type(g_, c, "dtype", GRT_FLOAT32));
  ExpectError(GRT_INVALID_ARGUMENT, "attr 'value' is a int32 tensor but attr 'dtype' is float32");
}

TEST_F(Validate, RefInputFromValue) {
  Var("v");
  Node("r", "Identity", {"v"});
  Node("assign", "Assign", {"r", "v"});
  ExpectError(GRT_INVALID_ARGUMENT, "node 'assign' (Assign): input 0 'r:0' must be a reference");
}

TEST_F(Validate, MalformedDeviceSpec) {
  int32_t n = Node("n", "NoOp", {}, nullptr);
  grt_status_free(grt_graph_set_device(g_, n, "/gpu:zero"));
  ExpectError(GRT_INVALID_ARGUMENT, "node 'n' (NoOp): malformed device specification '/gpu:zero'");
}

// Validation parses a spec only when it differs from the last one that
// parsed: a malformed one after several good ones is still found.
TEST_F(Validate, MalformedDeviceSpecAmongGoodOnes) {
  const char* specs[] = {"/gpu:0", "/gpu:0", "/cpu:0", "/gpu:0x", "/gpu:0"};
  const char* names[] = {"a", "b", "c", "d", "e"};
  for (int i = 0; i < 5; i++) {
    int32_t n = Node(names[i], "NoOp", {}, nullptr);
    grt_status_free(grt_graph_set_device(g_, n, specs[i]));
  }
  ExpectError(GRT_INVALID_ARGUMENT, "node 'd' (NoOp): malformed device specification '/gpu:0x'");
}

TEST_F(Validate, ColocationWithMissingNode) {
  int32_t n = Node("n", "NoOp", {}, nullptr);
  grt_status_free(grt_graph_add_colocation(g_, n, "w"));
  ExpectError(GRT_NOT_FOUND, "node 'n' (NoOp): colocate_with names 'w', which does not exist");
}

TEST_F(Validate, IncompatibleShapes) {
  Var("a", 2, 3);
  Var("b", 2, 3);
  Node("m", "MatMul", {"a", "b"});
  ExpectError(GRT_INVALID_ARGUMENT, "node 'm' (MatMul)");
}

TEST_F(Validate, FixingTheFaultMakesItValid) {
  Var("a", 2, 3);
  Var("b", 3, 2);
  int32_t m = Node("m", "MatMul", {"a", "b"});
  ASSERT_OK(grt_graph_validate(g_));
  grt_status_free(grt_graph_set_attr_bool(g_, m, "transpose_b", true));
  ExpectError(GRT_INVALID_ARGUMENT, "node 'm' (MatMul)");
  grt_status_free(grt_graph_set_attr_bool(g_, m, "transpose_b", false));
  ASSERT_OK(grt_graph_validate(g_));
}

}  // namespace
