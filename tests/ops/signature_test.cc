// grt_node_compute_signature: input/output counts, dtypes and ref-ness from
// the op and the node's attrs.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "grt/graph.h"
#include "ops/graph.h"
#include "ops/op_def.h"
#include "base/status.h"
}

#include "tests/ops/infer_helper.h"

namespace {

class Signature : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(grt_graph_new(&g_), nullptr); }
  void TearDown() override { grt_graph_free(g_); }

  int32_t Add(const char* name, const char* op) {
    int32_t i = -1;
    grt_test::Status s(grt_graph_add_node(g_, name, op, &i));
    EXPECT_TRUE(s.ok()) << s.msg();
    return i;
  }
  void SetInt(int32_t n, const char* a, int64_t v) {
    grt_test::Status s(grt_graph_set_attr_int(g_, n, a, v));
    EXPECT_TRUE(s.ok()) << s.msg();
  }
  void SetType(int32_t n, const char* a, grt_dtype v) {
    grt_test::Status s(grt_graph_set_attr_type(g_, n, a, v));
    EXPECT_TRUE(s.ok()) << s.msg();
  }
  grt_status* Compute(int32_t n) {
    grt_node* node = &g_->nodes[n];
    return grt_node_compute_signature(g_, node, grt_op_lookup(node->op));
  }
  const grt_node_sig& Sig(int32_t n) { return g_->nodes[n].sig; }

  grt_graph* g_ = nullptr;
};

TEST_F(Signature, AddNExpandsToNInputs) {
  int32_t n = Add("sum", "AddN");
  SetInt(n, "N", 3);
  SetType(n, "T", GRT_FLOAT32);
  grt_test::Status s(Compute(n));
  ASSERT_TRUE(s.ok()) << s.msg();
  ASSERT_EQ(Sig(n).n_inputs, 3);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(Sig(n).input_types[i], GRT_FLOAT32);
    EXPECT_FALSE(Sig(n).input_is_ref[i]);
  }
  ASSERT_EQ(Sig(n).n_outputs, 1);
  EXPECT_EQ(Sig(n).output_types[0], GRT_FLOAT32);
  ASSERT_NE(Sig(n).output_shapes, nullptr);
  EXPECT_EQ(Sig(n).output_shapes[0].rank, -1);  // unknown until inference
}

TEST_F(Signature, SplitNumSplitGivesOutputs) {
  int32_t n = Add("split", "Split");
  SetInt(n, "num_split", 4);
  SetType(n, "T", GRT_FLOAT64);
  grt_test::Status s(Compute(n));
  ASSERT_TRUE(s.ok()) << s.msg();
  ASSERT_EQ(Sig(n).n_inputs, 2);
  EXPECT_EQ(Sig(n).input_types[0], GRT_INT32);  // split_dim is always int32
  EXPECT_EQ(Sig(n).input_types[1], GRT_FLOAT64);
  ASSERT_EQ(Sig(n).n_outputs, 4);
  for (int i = 0; i < 4; i++) {
    EXPECT_EQ(Sig(n).output_types[i], GRT_FLOAT64);
    EXPECT_EQ(Sig(n).output_shapes[i].rank, -1);
  }
}

TEST_F(Signature, ConcatV2UsesTidxDefault) {
  int32_t n = Add("cat", "ConcatV2");
  SetInt(n, "N", 2);
  SetType(n, "T", GRT_INT8);
  grt_test::Status s(Compute(n));
  ASSERT_TRUE(s.ok()) << s.msg();
  ASSERT_EQ(Sig(n).n_inputs, 3);
  EXPECT_EQ(Sig(n).input_types[0], GRT_INT8);
  EXPECT_EQ(Sig(n).input_types[1], GRT_INT8);
  EXPECT_EQ(Sig(n).input_types[2], GRT_INT32);
  SetType(n, "Tidx", GRT_INT64);
  grt_test::Status s2(Compute(n));
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(Sig(n).input_types[2], GRT_INT64);
}

TEST_F(Signature, UnpackWithZeroOutputs) {
  int32_t n = Add("u", "Unpack");
  SetInt(n, "num", 0);
  SetType(n, "T", GRT_FLOAT32);
  grt_test::Status s(Compute(n));
  ASSERT_TRUE(s.ok()) << s.msg();
  EXPECT_EQ(Sig(n).n_inputs, 1);
  EXPECT_EQ(Sig(n).n_outputs, 0);
}

TEST_F(Signature, RefsAndFixedTypes) {
  int32_t v = Add("v", "VariableV2");
  SetType(v, "dtype", GRT_FLOAT32);
  grt_test::Status s(Compute(v));
  ASSERT_TRUE(s.ok()) << s.msg();
  EXPECT_EQ(Sig(v).n_inputs, 0);
  ASSERT_EQ(Sig(v).n_outputs, 1);
  EXPECT_TRUE(Sig(v).output_is_ref[0]);
  EXPECT_EQ(Sig(v).output_types[0], GRT_FLOAT32);

  int32_t a = Add("a", "Assign");
  SetType(a, "T", GRT_FLOAT32);
  grt_test::Status s2(Compute(a));
  ASSERT_TRUE(s2.ok()) << s2.msg();
  ASSERT_EQ(Sig(a).n_inputs, 2);
  EXPECT_TRUE(Sig(a).input_is_ref[0]);
  EXPECT_FALSE(Sig(a).input_is_ref[1]);
  EXPECT_TRUE(Sig(a).output_is_ref[0]);

  int32_t adam = Add("adam", "ApplyAdam");
  SetType(adam, "T", GRT_FLOAT64);
  grt_test::Status s3(Compute(adam));
  ASSERT_TRUE(s3.ok()) << s3.msg();
  ASSERT_EQ(Sig(adam).n_inputs, 10);
  for (int i = 0; i < 10; i++) {
    EXPECT_EQ(Sig(adam).input_is_ref[i], i < 3) << i;
    EXPECT_EQ(Sig(adam).input_types[i], GRT_FLOAT64);
  }

  int32_t r = Add("r", "Rank");
  SetType(r, "T", GRT_BOOL);
  grt_test::Status s4(Compute(r));
  ASSERT_TRUE(s4.ok());
  EXPECT_EQ(Sig(r).input_types[0], GRT_BOOL);
  EXPECT_EQ(Sig(r).output_types[0], GRT_INT32);

  int32_t am = Add("am", "ArgMax");
  SetType(am, "T", GRT_FLOAT32);
  grt_test::Status s5(Compute(am));
  ASSERT_TRUE(s5.ok());
  EXPECT_EQ(Sig(am).output_types[0], GRT_INT64);  // output_type's default

  int32_t c = Add("c", "Cast");
  SetType(c, "SrcT", GRT_INT32);
  SetType(c, "DstT", GRT_FLOAT16);
  grt_test::Status s6(Compute(c));
  ASSERT_TRUE(s6.ok());
  EXPECT_EQ(Sig(c).input_types[0], GRT_INT32);
  EXPECT_EQ(Sig(c).output_types[0], GRT_FLOAT16);

  int32_t e = Add("e", "Equal");
  SetType(e, "T", GRT_INT64);
  grt_test::Status s7(Compute(e));
  ASSERT_TRUE(s7.ok());
  EXPECT_EQ(Sig(e).output_types[0], GRT_BOOL);

  int32_t noop = Add("noop", "NoOp");
  grt_test::Status s8(Compute(noop));
  ASSERT_TRUE(s8.ok());
  EXPECT_EQ(Sig(noop).n_inputs, 0);
  EXPECT_EQ(Sig(noop).n_outputs, 0);
}

TEST_F(Signature, MissingNumberAttr) {
  int32_t n = Add("x", "AddN");
  SetType(n, "T", GRT_FLOAT32);
  EXPECT_GRT_ERROR(Compute(n), GRT_INVALID_ARGUMENT, "node 'x' (AddN): attr 'N' is missing");
}

TEST_F(Signature, NumberAttrBelowMinimum) {
  int32_t n = Add("x", "AddN");
  SetInt(n, "N", 0);
  SetType(n, "T", GRT_FLOAT32);
  EXPECT_GRT_ERROR(Compute(n), GRT_INVALID_ARGUMENT, "node 'x' (AddN): attr 'N' must be >= 1");
  int32_t c = Add("c", "ConcatV2");
  SetInt(c, "N", 1);
  SetType(c, "T", GRT_FLOAT32);
  EXPECT_GRT_ERROR(Compute(c), GRT_INVALID_ARGUMENT, "attr 'N' must be >= 2, got 1");
  int32_t u = Add("u", "Unpack");
  SetInt(u, "num", -1);
  SetType(u, "T", GRT_FLOAT32);
  EXPECT_GRT_ERROR(Compute(u), GRT_INVALID_ARGUMENT, "attr 'num' must be >= 0, got -1");
}

TEST_F(Signature, NumberAttrTooLarge) {
  int32_t n = Add("x", "AddN");
  SetInt(n, "N", int64_t{1} << 40);
  SetType(n, "T", GRT_FLOAT32);
  EXPECT_GRT_ERROR(Compute(n), GRT_INVALID_ARGUMENT, "above the supported maximum");
}

TEST_F(Signature, WrongAttrTypes) {
  int32_t n = Add("x", "AddN");
  grt_test::Status b(grt_graph_set_attr_bool(g_, n, "N", true));
  SetType(n, "T", GRT_FLOAT32);
  EXPECT_GRT_ERROR(Compute(n), GRT_INVALID_ARGUMENT,
                   "node 'x' (AddN): attr 'N' must be int, got bool");

  int32_t m = Add("m", "MatMul");
  SetInt(m, "T", 3);
  EXPECT_GRT_ERROR(Compute(m), GRT_INVALID_ARGUMENT,
                   "node 'm' (MatMul): attr 'T' must be type, got int");

  int32_t k = Add("k", "MatMul");
  EXPECT_GRT_ERROR(Compute(k), GRT_INVALID_ARGUMENT, "node 'k' (MatMul): attr 'T' is missing");
}

TEST_F(Signature, NullArguments) {
  EXPECT_GRT_ERROR(grt_node_compute_signature(g_, nullptr, grt_op_lookup("NoOp")),
                   GRT_INVALID_ARGUMENT, "NULL");
}

}  // namespace
