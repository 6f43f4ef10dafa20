// The op registry: every spec parses, the required ops exist with
// TensorFlow's signatures, and lookups behave.
#include <gtest/gtest.h>

#include <set>
#include <string>

extern "C" {
#include "ops/attr.h"
#include "ops/op_def.h"
#include "base/dtype.h"
#include "base/status.h"
}

namespace {

const grt_op_def* Op(const char* name) {
  const grt_op_def* d = grt_op_lookup(name);
  EXPECT_NE(d, nullptr) << name;
  return d;
}

const grt_attr_def* Attr(const grt_op_def* d, const char* name) {
  const grt_attr_def* a = grt_op_find_attr(d, name);
  EXPECT_NE(a, nullptr) << d->name << "." << name;
  return a;
}

// "a: T, b: T" style summary of an arg list, to compare with TensorFlow's.
std::string Args(const grt_arg_def* args, int32_t n) {
  std::string s;
  for (int32_t i = 0; i < n; i++) {
    const grt_arg_def& a = args[i];
    if (i) s += ", ";
    s += std::string(a.name) + ": ";
    std::string t = a.type_attr ? a.type_attr : grt_dtype_name(a.type);
    if (a.number_attr) t = std::string(a.number_attr) + " * " + t;
    if (a.is_ref) t = "Ref(" + t + ")";
    s += t;
  }
  return s;
}
std::string Inputs(const char* op) {
  const grt_op_def* d = Op(op);
  return d ? Args(d->inputs, d->n_inputs) : "";
}
std::string Outputs(const char* op) {
  const grt_op_def* d = Op(op);
  return d ? Args(d->outputs, d->n_outputs) : "";
}

uint32_t Bits(std::initializer_list<grt_dtype> ts) {
  uint32_t m = 0;
  for (grt_dtype t : ts) m |= grt_dtype_bit(t);
  return m;
}

TEST(Registry, EverySpecParses) {
  const grt_status* s = grt_op_registry_status();
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
}

TEST(Registry, RequiredOpsExist) {
  const char* required[] = {
      "Placeholder", "Const", "Identity", "NoOp", "VariableV2", "Variable", "Assign", "AssignAdd",
      "AssignSub", "RandomUniform", "RandomStandardNormal", "TruncatedNormal", "Add", "AddV2",
      "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Neg", "Square", "Sqrt", "Rsqrt", "Exp", "Log",
      "Tanh", "Sigmoid", "Relu", "ReluGrad", "MatMul", "BatchMatMulV2", "BiasAdd", "BiasAddGrad",
      "Softmax", "SparseSoftmaxCrossEntropyWithLogits", "Reshape", "Squeeze", "ExpandDims", "Pack",
      "Unpack", "ConcatV2", "Split", "Slice", "StridedSlice", "Tile", "Transpose", "Fill",
      "ZerosLike", "OnesLike", "Shape", "Size", "Rank", "Cast", "Sum", "Mean", "Max", "ArgMax",
      "Equal", "AddN", "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam",
      // Needed by gradients.
      "Prod", "Min", "Less", "Greater", "Pow", "Abs", "GreaterEqual", "LogicalNot", "Select",
      "SquaredDifference", "TanhGrad", "SigmoidGrad", "SoftmaxCrossEntropyWithLogits",
      "BroadcastGradientArgs", "StopGradient", "OneHot"};
  for (const char* name : required) EXPECT_NE(grt_op_lookup(name), nullptr) << name;
  EXPECT_GE(grt_op_count(), static_cast<int32_t>(sizeof required / sizeof required[0]));
}

TEST(Registry, LookupAndIteration) {
  EXPECT_EQ(grt_op_lookup("NoSuchOp"), nullptr);
  EXPECT_EQ(grt_op_lookup(nullptr), nullptr);
  EXPECT_EQ(grt_op_lookup("matmul"), nullptr);  // names are case-sensitive
  EXPECT_EQ(grt_op_at(-1), nullptr);
  EXPECT_EQ(grt_op_at(grt_op_count()), nullptr);
  std::set<std::string> names;
  for (int32_t i = 0; i < grt_op_count(); i++) {
    const grt_op_def* d = grt_op_at(i);
    ASSERT_NE(d, nullptr);
    EXPECT_TRUE(names.insert(d->name).second) << "duplicate " << d->name;
    EXPECT_EQ(grt_op_lookup(d->name), d);
    // Every op but NoOp (which has no outputs) infers shapes.
    if (d->n_outputs > 0) {
      EXPECT_NE(d->shape_fn, nullptr) << d->name;
    }
  }
  EXPECT_EQ(grt_op_find_attr(Op("MatMul"), "no_such_attr"), nullptr);
  EXPECT_EQ(grt_op_find_attr(nullptr, "T"), nullptr);
}

TEST(Registry, ArgNamesAndOrderMatchTensorFlow) {
  EXPECT_EQ(Inputs("MatMul"), "a: T, b: T");
  EXPECT_EQ(Outputs("MatMul"), "product: T");
  EXPECT_EQ(Inputs("BatchMatMulV2"), "x: T, y: T");
  EXPECT_EQ(Outputs("BatchMatMulV2"), "output: T");
  EXPECT_EQ(Inputs("ConcatV2"), "values: N * T, axis: Tidx");
  EXPECT_EQ(Inputs("Split"), "split_dim: int32, value: T");
  EXPECT_EQ(Outputs("Split"), "output: num_split * T");
  EXPECT_EQ(Inputs("Pack"), "values: N * T");
  EXPECT_EQ(Outputs("Unpack"), "output: num * T");
  EXPECT_EQ(Inputs("AddN"), "inputs: N * T");
  EXPECT_EQ(Outputs("AddN"), "sum: T");
  EXPECT_EQ(Inputs("Reshape"), "tensor: T, shape: Tshape");
  EXPECT_EQ(Inputs("StridedSlice"), "input: T, begin: Index, end: Index, strides: Index");
  EXPECT_EQ(Inputs("Fill"), "dims: index_type, value: T");
  EXPECT_EQ(Inputs("Transpose"), "x: T, perm: Tperm");
  EXPECT_EQ(Outputs("Transpose"), "y: T");
  EXPECT_EQ(Inputs("Sum"), "input: T, reduction_indices: Tidx");
  EXPECT_EQ(Inputs("ArgMax"), "input: T, dimension: Tidx");
  EXPECT_EQ(Outputs("ArgMax"), "output: output_type");
  EXPECT_EQ(Inputs("BiasAdd"), "value: T, bias: T");
  EXPECT_EQ(Inputs("BiasAddGrad"), "out_backprop: T");
  EXPECT_EQ(Inputs("Relu"), "features: T");
  EXPECT_EQ(Outputs("Relu"), "activations: T");
  EXPECT_EQ(Inputs("ReluGrad"), "gradients: T, features: T");
  EXPECT_EQ(Outputs("ReluGrad"), "backprops: T");
  EXPECT_EQ(Inputs("TanhGrad"), "y: T, dy: T");
  EXPECT_EQ(Outputs("Softmax"), "softmax: T");
  EXPECT_EQ(Inputs("SparseSoftmaxCrossEntropyWithLogits"), "features: T, labels: Tlabels");
  EXPECT_EQ(Outputs("SparseSoftmaxCrossEntropyWithLogits"), "loss: T, backprop: T");
  EXPECT_EQ(Inputs("Add"), "x: T, y: T");
  EXPECT_EQ(Outputs("Add"), "z: T");
  EXPECT_EQ(Outputs("Equal"), "z: bool");
  EXPECT_EQ(Inputs("Select"), "condition: bool, t: T, e: T");
  EXPECT_EQ(Inputs("Cast"), "x: SrcT");
  EXPECT_EQ(Outputs("Cast"), "y: DstT");
  EXPECT_EQ(Outputs("Rank"), "output: int32");
  EXPECT_EQ(Outputs("Shape"), "output: out_type");
  EXPECT_EQ(Inputs("OneHot"), "indices: TI, depth: int32, on_value: T, off_value: T");
  EXPECT_EQ(Outputs("BroadcastGradientArgs"), "r0: T, r1: T");
  EXPECT_EQ(Inputs("RandomUniform"), "shape: T");
  EXPECT_EQ(Outputs("RandomUniform"), "output: dtype");
  EXPECT_EQ(Inputs("NoOp"), "");
  EXPECT_EQ(Outputs("NoOp"), "");
}

TEST(Registry, RefsOnVariablesAssignsAndOptimizers) {
  EXPECT_EQ(Outputs("VariableV2"), "ref: Ref(dtype)");
  EXPECT_EQ(Outputs("Variable"), "ref: Ref(dtype)");
  EXPECT_EQ(Inputs("Assign"), "ref: Ref(T), value: T");
  EXPECT_EQ(Outputs("Assign"), "output_ref: Ref(T)");
  EXPECT_EQ(Inputs("AssignAdd"), "ref: Ref(T), value: T");
  EXPECT_EQ(Outputs("AssignSub"), "output_ref: Ref(T)");
  EXPECT_EQ(Inputs("ApplyGradientDescent"), "var: Ref(T), alpha: T, delta: T");
  EXPECT_EQ(Inputs("ApplyMomentum"), "var: Ref(T), accum: Ref(T), lr: T, grad: T, momentum: T");
  EXPECT_EQ(Inputs("ApplyAdam"),
            "var: Ref(T), m: Ref(T), v: Ref(T), beta1_power: T, beta2_power: T, lr: T, "
            "beta1: T, beta2: T, epsilon: T, grad: T");
  EXPECT_EQ(Outputs("ApplyAdam"), "out: Ref(T)");
}

TEST(Registry, Flags) {
  EXPECT_EQ(Op("VariableV2")->flags, (uint32_t)(GRT_OP_STATEFUL | GRT_OP_VARIABLE));
  EXPECT_EQ(Op("Variable")->flags, (uint32_t)(GRT_OP_STATEFUL | GRT_OP_VARIABLE));
  for (const char* op :
       {"Assign", "AssignAdd", "AssignSub", "ApplyGradientDescent", "ApplyMomentum", "ApplyAdam",
        "RandomUniform", "RandomStandardNormal", "TruncatedNormal"})
    EXPECT_EQ(Op(op)->flags, (uint32_t)GRT_OP_STATEFUL) << op;
  for (const char* op : {"Shape", "Size", "Rank"})
    EXPECT_EQ(Op(op)->flags, (uint32_t)GRT_OP_METADATA) << op;
  for (const char* op : {"MatMul", "Const", "Placeholder", "Identity", "Add", "Reshape"})
    EXPECT_EQ(Op(op)->flags, 0u) << op;
  // Only variables are VARIABLE, only Shape/Size/Rank are METADATA.
  for (int32_t i = 0; i < grt_op_count(); i++) {
    const grt_op_def* d = grt_op_at(i);
    std::string n = d->name;
    if (d->flags & GRT_OP_VARIABLE) {
      EXPECT_TRUE(n == "VariableV2" || n == "Variable") << n;
    }
    if (d->flags & GRT_OP_METADATA) {
      EXPECT_TRUE(n == "Shape" || n == "Size" || n == "Rank") << n;
    }
  }
}

TEST(Registry, AttrsAndDefaults) {
  const grt_op_def* mm = Op("MatMul");
  const grt_attr_def* ta = Attr(mm, "transpose_a");
  EXPECT_EQ(ta->type, GRT_ATTR_BOOL);
  EXPECT_TRUE(ta->has_default);
  EXPECT_FALSE(ta->default_value.u.b);
  EXPECT_FALSE(Attr(mm, "transpose_b")->default_value.u.b);
  const grt_attr_def* t = Attr(mm, "T");
  EXPECT_EQ(t->type, GRT_ATTR_TYPE);
  EXPECT_FALSE(t->has_default);
  EXPECT_TRUE(t->allowed_types & grt_dtype_bit(GRT_FLOAT32));
  EXPECT_TRUE(t->allowed_types & grt_dtype_bit(GRT_INT32));
  EXPECT_FALSE(t->allowed_types & grt_dtype_bit(GRT_BOOL));

  const grt_attr_def* n = Attr(Op("ConcatV2"), "N");
  EXPECT_EQ(n->type, GRT_ATTR_INT);
  EXPECT_TRUE(n->has_minimum);
  EXPECT_EQ(n->minimum, 2);
  EXPECT_FALSE(n->has_default);
  const grt_attr_def* tidx = Attr(Op("ConcatV2"), "Tidx");
  EXPECT_EQ(tidx->default_value.u.t, GRT_INT32);
  EXPECT_EQ(tidx->allowed_types, Bits({GRT_INT32, GRT_INT64}));
  EXPECT_EQ(Attr(Op("Pack"), "N")->minimum, 1);
  EXPECT_EQ(Attr(Op("Pack"), "axis")->default_value.u.i, 0);
  EXPECT_EQ(Attr(Op("AddN"), "N")->minimum, 1);
  EXPECT_EQ(Attr(Op("Split"), "num_split")->minimum, 1);
  EXPECT_EQ(Attr(Op("Unpack"), "num")->minimum, 0);

  const grt_op_def* var = Op("VariableV2");
  EXPECT_EQ(Attr(var, "shape")->type, GRT_ATTR_SHAPE);
  EXPECT_FALSE(Attr(var, "shape")->has_default);
  EXPECT_EQ(Attr(var, "dtype")->type, GRT_ATTR_TYPE);
  EXPECT_STREQ(Attr(var, "container")->default_value.u.s, "");
  EXPECT_STREQ(Attr(var, "shared_name")->default_value.u.s, "");

  const grt_op_def* assign = Op("Assign");
  EXPECT_TRUE(Attr(assign, "use_locking")->default_value.u.b);
  EXPECT_TRUE(Attr(assign, "validate_shape")->default_value.u.b);
  EXPECT_FALSE(Attr(Op("AssignAdd"), "use_locking")->default_value.u.b);
  EXPECT_FALSE(Attr(Op("ApplyAdam"), "use_locking")->default_value.u.b);
  EXPECT_FALSE(Attr(Op("ApplyAdam"), "use_nesterov")->default_value.u.b);
  EXPECT_FALSE(Attr(Op("ApplyMomentum"), "use_nesterov")->default_value.u.b);

  const grt_attr_def* ph_shape = Attr(Op("Placeholder"), "shape");
  EXPECT_TRUE(ph_shape->has_default);
  EXPECT_EQ(ph_shape->default_value.type, GRT_ATTR_SHAPE);
  EXPECT_EQ(ph_shape->default_value.u.shape.rank, -1);
  EXPECT_EQ(Attr(Op("Const"), "value")->type, GRT_ATTR_TENSOR);
  EXPECT_EQ(Attr(Op("Const"), "dtype")->type, GRT_ATTR_TYPE);

  EXPECT_EQ(Attr(Op("Shape"), "out_type")->default_value.u.t, GRT_INT32);
  EXPECT_EQ(Attr(Op("Size"), "out_type")->default_value.u.t, GRT_INT32);
  EXPECT_EQ(Attr(Op("ArgMax"), "output_type")->default_value.u.t, GRT_INT64);
  EXPECT_EQ(Attr(Op("ArgMax"), "Tidx")->default_value.u.t, GRT_INT32);
  EXPECT_EQ(Attr(Op("SparseSoftmaxCrossEntropyWithLogits"), "Tlabels")->default_value.u.t,
            GRT_INT64);
  EXPECT_EQ(Attr(Op("SparseSoftmaxCrossEntropyWithLogits"), "T")->allowed_types,
            Bits({GRT_FLOAT16, GRT_BFLOAT16, GRT_FLOAT32, GRT_FLOAT64}));
  EXPECT_FALSE(Attr(Op("Sum"), "keep_dims")->default_value.u.b);
  EXPECT_EQ(Attr(Op("Reshape"), "Tshape")->default_value.u.t, GRT_INT32);
  EXPECT_STREQ(Attr(Op("BiasAdd"), "data_format")->default_value.u.s, "NHWC");
  EXPECT_TRUE(Attr(Op("Equal"), "incompatible_shape_error")->default_value.u.b);
  EXPECT_FALSE(Attr(Op("Cast"), "Truncate")->default_value.u.b);
  EXPECT_EQ(Attr(Op("OneHot"), "axis")->default_value.u.i, -1);
  EXPECT_EQ(Attr(Op("OneHot"), "TI")->default_value.u.t, GRT_INT64);
  for (const char* m :
       {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
    EXPECT_EQ(Attr(Op("StridedSlice"), m)->default_value.u.i, 0) << m;
  const grt_attr_def* sq = Attr(Op("Squeeze"), "squeeze_dims");
  EXPECT_EQ(sq->type, GRT_ATTR_LIST_INT);
  EXPECT_TRUE(sq->has_default);
  EXPECT_EQ(sq->default_value.u.list.n, 0);
  const grt_op_def* ru = Op("RandomUniform");
  EXPECT_EQ(Attr(ru, "seed")->default_value.u.i, 0);
  EXPECT_EQ(Attr(ru, "seed2")->default_value.u.i, 0);
  EXPECT_EQ(Attr(ru, "dtype")->allowed_types,
            Bits({GRT_FLOAT16, GRT_BFLOAT16, GRT_FLOAT32, GRT_FLOAT64}));
  EXPECT_EQ(Attr(ru, "T")->allowed_types, Bits({GRT_INT32, GRT_INT64}));
  // Float-only math excludes integers; Neg allows signed ints but not uint8.
  EXPECT_FALSE(Attr(Op("Sqrt"), "T")->allowed_types & grt_dtype_bit(GRT_INT32));
  EXPECT_TRUE(Attr(Op("Neg"), "T")->allowed_types & grt_dtype_bit(GRT_INT8));
  EXPECT_FALSE(Attr(Op("Neg"), "T")->allowed_types & grt_dtype_bit(GRT_UINT8));
  EXPECT_EQ(Attr(Op("Identity"), "T")->allowed_types, 0u);  // any type
}

TEST(AttrType, Names) {
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_INT), "int");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_FLOAT), "float");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_BOOL), "bool");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_STRING), "string");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_TYPE), "type");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_SHAPE), "shape");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_TENSOR), "tensor");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_LIST_INT), "list(int)");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_LIST_SHAPE), "list(shape)");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_LIST_TENSOR), "list(tensor)");
  EXPECT_STREQ(grt_attr_type_name(GRT_ATTR_NONE), "none");
  EXPECT_STREQ(grt_attr_type_name(static_cast<grt_attr_type>(99)), "invalid");
  EXPECT_STREQ(grt_attr_type_name(static_cast<grt_attr_type>(GRT_ATTR_LIST)), "invalid");
  EXPECT_TRUE(grt_attr_type_valid(GRT_ATTR_INT));
  EXPECT_TRUE(grt_attr_type_valid(GRT_ATTR_LIST_TYPE));
  EXPECT_FALSE(grt_attr_type_valid(GRT_ATTR_NONE));
  EXPECT_FALSE(grt_attr_type_valid(8));
  EXPECT_FALSE(grt_attr_type_valid(GRT_ATTR_LIST));
  EXPECT_FALSE(grt_attr_type_valid(0x20 | GRT_ATTR_INT));
  EXPECT_FALSE(grt_attr_type_valid(-1));
}

}  // namespace
