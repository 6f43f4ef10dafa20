// Whole graphs in the JSON text form: docs/json-format.md's example, canonical
// text that comes back byte for byte, graphs that survive graph -> JSON ->
// graph unchanged, and errors that name the node.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "graph_format/formats.h"
#include "grt/graph.h"
#include "ops/graph.h"
#include "base/tensor.h"

namespace {

// docs/json-format.md's example, verbatim.
const char kContractExample[] = R"({
  "format": "grt.graph",
  "version": 1,
  "nodes": [
    {"name": "a", "op": "Const", "device": "/cpu:0",
     "attrs": {"dtype": "float32",
               "value": {"dtype": "float32", "shape": [2, 2], "values": [1, 2, 3, 4]}}},
    {"name": "w", "op": "VariableV2", "attrs": {"dtype": "float32", "shape": [2, 1]}},
    {"name": "y", "op": "MatMul", "inputs": ["a", "w:0"], "device": "/gpu:0",
     "attrs": {"transpose_a": false, "transpose_b": false}},
    {"name": "ident", "op": "Identity", "inputs": ["y", "^w"], "colocate_with": ["w"]}
  ]
}
)";

struct Graph {
  grt_graph* g = nullptr;
  ~Graph() { grt_graph_free(g); }
};

std::string Message(grt_status* s) {
  std::string m =
      s ? std::string(grt_code_name(grt_status_code(s))) + ": " + grt_status_message(s) : "OK";
  grt_status_free(s);
  return m;
}

std::string Write(grt_graph* g) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  grt_status* s = grt_format_write_json(g, f);
  fclose(f);
  EXPECT_EQ(s, nullptr) << Message(s);
  std::string out(buf, len);
  free(buf);
  return out;
}

grt_status* Parse(const std::string& text, Graph* out) {
  return grt_format_parse_json(text.data(), text.size(), &out->g);
}

TEST(JsonGraph, ParsesTheContractExample) {
  Graph gr;
  ASSERT_EQ(Parse(kContractExample, &gr), nullptr);
  grt_graph* g = gr.g;
  ASSERT_EQ(grt_graph_num_nodes(g), 4);
  EXPECT_STREQ(grt_graph_node_name(g, 0), "a");
  EXPECT_STREQ(grt_graph_node_op(g, 0), "Const");
  EXPECT_STREQ(grt_graph_node_device(g, 0), "/cpu:0");
  EXPECT_STREQ(grt_graph_node_device(g, 1), "");
  EXPECT_STREQ(grt_graph_node_device(g, 2), "/gpu:0");
  const grt_tensor* value;
  ASSERT_EQ(grt_graph_node_attr_tensor(g, 0, "value", &value), nullptr);
  ASSERT_EQ(grt_tensor_dtype(value), GRT_FLOAT32);
  ASSERT_EQ(grt_tensor_rank(value), 2);
  EXPECT_EQ(grt_tensor_dim(value, 0), 2);
  const float* v = static_cast<const float*>(grt_tensor_data(value));
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[3], 4.0f);
  grt_dtype dt;
  ASSERT_EQ(grt_graph_node_attr_type_value(g, 1, "dtype", &dt), nullptr);
  EXPECT_EQ(dt, GRT_FLOAT32);
  const grt_attr_value* shape = grt_node_find_attr(&g->nodes[1], "shape");
  ASSERT_NE(shape, nullptr);
  ASSERT_EQ(shape->type, GRT_ATTR_SHAPE);
  EXPECT_EQ(shape->u.shape.rank, 2);
  EXPECT_EQ(shape->u.shape.dims[1], 1);
  ASSERT_EQ(grt_graph_node_num_inputs(g, 2), 2);
  int32_t port = -1;
  EXPECT_STREQ(grt_graph_node_input(g, 2, 1, &port), "w");
  EXPECT_EQ(port, 0);
  bool transpose = true;
  ASSERT_EQ(grt_graph_node_attr_bool(g, 2, "transpose_a", &transpose), nullptr);
  EXPECT_FALSE(transpose);
  ASSERT_EQ(grt_graph_node_num_inputs(g, 3), 1);
  ASSERT_EQ(grt_graph_node_num_control_inputs(g, 3), 1);
  EXPECT_STREQ(grt_graph_node_control_input(g, 3, 0), "w");
  ASSERT_EQ(grt_graph_node_num_colocations(g, 3), 1);
  EXPECT_STREQ(grt_graph_node_colocation(g, 3, 0), "w");

  // Written back, it is the same text but for "w:0", which is spelt "w".
  std::string expected = kContractExample;
  expected.replace(expected.find("\"w:0\""), 5, "\"w\"");
  EXPECT_EQ(Write(g), expected);
}

// Canonical text: what the writer produces. Exercises every layout rule:
// one line at exactly 100 columns, attrs on a second line, one attr per
// line, nodes without attrs, control inputs and ports, devices as written.
const char kCanonical[] = R"({
  "format": "grt.graph",
  "version": 1,
  "nodes": [
    {"name": "p", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [-1, 3]}},
    {"name": "q", "op": "Placeholder", "device": "/job:localhost/replica:0/task:0/device:CPU:0",
     "attrs": {"dtype": "int64", "shape": null}},
    {"name": "w", "op": "VariableV2", "device": "/gpu:1",
     "attrs": {"container": "", "dtype": "float32", "shape": [2, 3], "shared_name": "weights"}},
    {"name": "c", "op": "Const",
     "attrs": {"dtype": "float32",
               "value": {"dtype": "float32", "shape": [3, 2], "values": [0.1, 1e-8, 3.4028235e38, -0.0, 1, -2.5]}}},
    {"name": "zeros", "op": "Const",
     "attrs": {"dtype": "float16",
               "value": {"dtype": "float16", "shape": [64, 64], "values": [0]}}},
    {"name": "nan", "op": "Const",
     "attrs": {"dtype": "float32",
               "value": {"dtype": "float32", "shape": [2], "base64": "AADAfwAAgP8="}}},
    {"name": "mm", "op": "MatMul", "inputs": ["p", "w"],
     "attrs": {"T": "float32", "transpose_a": false, "transpose_b": true}},
    {"name": "u", "op": "Unpack", "inputs": ["mm"], "attrs": {"T": "float32", "axis": 1, "num": 2}},
    {"name": "out", "op": "Identity", "inputs": ["u:1", "^w", "^c"], "device": "GPU:1", "colocate_with": ["w"],
     "attrs": {"T": "float32"}},
    {"name": "sq", "op": "Squeeze", "inputs": ["c"], "attrs": {"T": "float32", "squeeze_dims": []}},
    {"name": "done", "op": "NoOp", "inputs": ["^out", "^sq"]}
  ]
}
)";

TEST(JsonGraph, CanonicalTextRoundTripsByteForByte) {
  Graph gr;
  ASSERT_EQ(Message(Parse(kCanonical, &gr)), "OK");
  EXPECT_EQ(Write(gr.g), kCanonical);
  EXPECT_EQ(Message(grt_graph_validate(gr.g)), "OK");
  EXPECT_EQ(Write(gr.g), kCanonical) << "validation must not change what is written";
}

TEST(JsonGraph, EmptyGraph) {
  Graph gr;
  ASSERT_EQ(Parse(R"({"format": "grt.graph", "version": 1, "nodes": []})", &gr), nullptr);
  EXPECT_EQ(grt_graph_num_nodes(gr.g), 0);
  EXPECT_EQ(Write(gr.g),
            "{\n  \"format\": \"grt.graph\",\n  \"version\": 1,\n  \"nodes\": []\n}\n");
}

// A node without attrs first: nothing to sort (found by libFuzzer, where
// qsort was handed a NULL array).
TEST(JsonGraph, NodesWithoutAttrs) {
  const char text[] = R"({
  "format": "grt.graph",
  "version": 1,
  "nodes": [
    {"name": "a", "op": "NoOp"},
    {"name": "b", "op": "NoOp", "inputs": ["^a"]}
  ]
}
)";
  Graph gr;
  ASSERT_EQ(Parse(text, &gr), nullptr);
  EXPECT_EQ(Write(gr.g), text);
}

// ---- graph -> JSON -> graph ------------------------------------------------

void ExpectSameValue(const grt_attr_value& a, const grt_attr_value& b, const std::string& where);

void ExpectSameTensor(const grt_tensor* a, const grt_tensor* b, const std::string& where) {
  ASSERT_EQ(grt_tensor_dtype(a), grt_tensor_dtype(b)) << where;
  ASSERT_EQ(grt_tensor_rank(a), grt_tensor_rank(b)) << where;
  for (int32_t d = 0; d < grt_tensor_rank(a); d++)
    ASSERT_EQ(grt_tensor_dim(a, d), grt_tensor_dim(b, d)) << where;
  ASSERT_EQ(grt_tensor_byte_size(a), grt_tensor_byte_size(b)) << where;
  EXPECT_EQ(memcmp(grt_tensor_data(a), grt_tensor_data(b), grt_tensor_byte_size(a)), 0) << where;
}

void ExpectSameShape(const grt_shape& a, const grt_shape& b, const std::string& where) {
  ASSERT_EQ(a.rank, b.rank) << where;
  for (int32_t d = 0; d < a.rank; d++) EXPECT_EQ(a.dims[d], b.dims[d]) << where;
}

void ExpectSameValue(const grt_attr_value& a, const grt_attr_value& b, const std::string& where) {
  ASSERT_EQ(a.type, b.type) << where;
  bool list = a.type & GRT_ATTR_LIST;
  int32_t n = list ? a.u.list.n : 1;
  if (list) {
    ASSERT_EQ(a.u.list.n, b.u.list.n) << where;
  }
  for (int32_t i = 0; i < n; i++) {
    std::string w = where + "[" + std::to_string(i) + "]";
    switch (a.type & ~GRT_ATTR_LIST) {
      case GRT_ATTR_INT:
        EXPECT_EQ(list ? a.u.list.v.i[i] : a.u.i, list ? b.u.list.v.i[i] : b.u.i) << w;
        break;
      case GRT_ATTR_FLOAT: {
        float x = list ? a.u.list.v.f[i] : a.u.f, y = list ? b.u.list.v.f[i] : b.u.f;
        EXPECT_EQ(memcmp(&x, &y, sizeof x), 0) << w << ": " << x << " vs " << y;
        break;
      }
      case GRT_ATTR_BOOL:
        EXPECT_EQ(list ? a.u.list.v.b[i] : a.u.b, list ? b.u.list.v.b[i] : b.u.b) << w;
        break;
      case GRT_ATTR_STRING:
        EXPECT_STREQ(list ? a.u.list.v.s[i] : a.u.s, list ? b.u.list.v.s[i] : b.u.s) << w;
        break;
      case GRT_ATTR_TYPE:
        EXPECT_EQ(list ? a.u.list.v.t[i] : a.u.t, list ? b.u.list.v.t[i] : b.u.t) << w;
        break;
      case GRT_ATTR_SHAPE:
        ExpectSameShape(list ? a.u.list.v.shape[i] : a.u.shape,
                        list ? b.u.list.v.shape[i] : b.u.shape, w);
        break;
      case GRT_ATTR_TENSOR:
        ExpectSameTensor(list ? a.u.list.v.tensor[i] : a.u.tensor,
                         list ? b.u.list.v.tensor[i] : b.u.tensor, w);
        break;
      default:
        ADD_FAILURE() << w << ": unexpected attr type " << a.type;
    }
  }
}

void ExpectSameGraph(const grt_graph* a, const grt_graph* b) {
  ASSERT_EQ(a->n_nodes, b->n_nodes);
  for (int32_t i = 0; i < a->n_nodes; i++) {
    const grt_node& x = a->nodes[i];
    const grt_node& y = b->nodes[i];
    std::string w = std::string("node '") + x.name + "'";
    EXPECT_STREQ(x.name, y.name);
    EXPECT_STREQ(x.op, y.op) << w;
    EXPECT_STREQ(x.device, y.device) << w;
    ASSERT_EQ(x.n_inputs, y.n_inputs) << w;
    for (int32_t k = 0; k < x.n_inputs; k++) {
      EXPECT_STREQ(x.inputs[k].node, y.inputs[k].node) << w;
      EXPECT_EQ(x.inputs[k].port, y.inputs[k].port) << w;
    }
    ASSERT_EQ(x.n_controls, y.n_controls) << w;
    for (int32_t k = 0; k < x.n_controls; k++) EXPECT_STREQ(x.controls[k].node, y.controls[k].node);
    ASSERT_EQ(x.n_colocate, y.n_colocate) << w;
    for (int32_t k = 0; k < x.n_colocate; k++) EXPECT_STREQ(x.colocate_with[k], y.colocate_with[k]);
    ASSERT_EQ(x.n_attrs, y.n_attrs) << w;
    for (int32_t k = 0; k < x.n_attrs; k++) {
      const grt_attr_value* other = grt_node_find_attr(&y, x.attrs[k].name);
      ASSERT_NE(other, nullptr) << w << " lost attr " << x.attrs[k].name;
      ExpectSameValue(x.attrs[k].value, *other, w + " attr " + x.attrs[k].name);
    }
  }
}

#define OK(expr) ASSERT_EQ(Message(expr), "OK")

// A graph built through the API with awkward values: big and non-finite
// tensors (base64), half floats, int64 extremes, escaped strings, odd
// device spellings.
void BuildAwkwardGraph(grt_graph* g) {
  int32_t n;
  OK(grt_graph_add_node(g, "x", "Placeholder", &n));
  OK(grt_graph_set_attr_type(g, n, "dtype", GRT_FLOAT32));
  int64_t dims[2] = {-1, 50};
  OK(grt_graph_set_attr_shape(g, n, "shape", 2, dims));
  OK(grt_graph_set_device(g, n, "/device:GPU"));

  OK(grt_graph_add_node(g, "big", "Const", &n));
  OK(grt_graph_set_attr_type(g, n, "dtype", GRT_FLOAT32));
  grt_tensor* t;
  int64_t wd[2] = {50, 100};
  OK(grt_tensor_new(GRT_FLOAT32, 2, wd, &t));
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  for (int i = 0; i < 5000; i++) static_cast<float*>(grt_tensor_data(t))[i] = normal(rng);
  OK(grt_graph_set_attr_tensor(g, n, "value", t));
  grt_tensor_free(t);

  OK(grt_graph_add_node(g, "odd", "Const", &n));
  OK(grt_graph_set_attr_type(g, n, "dtype", GRT_FLOAT16));
  int64_t four = 4;
  OK(grt_tensor_new(GRT_FLOAT16, 1, &four, &t));
  uint16_t halves[4] = {0x3555, 0x7C00, 0x0001, 0x8000};  // 1/3, inf, subnormal, -0
  memcpy(grt_tensor_data(t), halves, sizeof halves);
  OK(grt_graph_set_attr_tensor(g, n, "value", t));
  grt_tensor_free(t);

  OK(grt_graph_add_node(g, "ints", "Const", &n));
  OK(grt_graph_set_attr_type(g, n, "dtype", GRT_INT64));
  int64_t three = 3;
  OK(grt_tensor_new(GRT_INT64, 1, &three, &t));
  int64_t iv[3] = {INT64_MIN, 0, INT64_MAX};
  memcpy(grt_tensor_data(t), iv, sizeof iv);
  OK(grt_graph_set_attr_tensor(g, n, "value", t));
  grt_tensor_free(t);

  OK(grt_graph_add_node(g, "v", "VariableV2", &n));
  OK(grt_graph_set_attr_type(g, n, "dtype", GRT_FLOAT32));
  int64_t vd[2] = {50, 100};
  OK(grt_graph_set_attr_shape(g, n, "shape", 2, vd));
  OK(grt_graph_set_attr_string(g, n, "shared_name", "quote\" slash\\ tab\t caf\xc3\xa9"));
  OK(grt_graph_set_device(g, n, "/job:localhost/replica:0/task:0/device:CPU:0"));

  OK(grt_graph_add_node(g, "mm", "MatMul", &n));
  OK(grt_graph_add_input(g, n, "x"));
  OK(grt_graph_add_input(g, n, "v:0"));
  OK(grt_graph_add_input(g, n, "^big"));
  OK(grt_graph_set_attr_type(g, n, "T", GRT_FLOAT32));
  OK(grt_graph_set_attr_bool(g, n, "transpose_b", true));
  OK(grt_graph_add_colocation(g, n, "v"));

  OK(grt_graph_add_node(g, "parts", "Unpack", &n));
  OK(grt_graph_add_input(g, n, "mm"));
  OK(grt_graph_set_attr_int(g, n, "num", 100));
  OK(grt_graph_set_attr_int(g, n, "axis", 1));
  OK(grt_graph_set_attr_type(g, n, "T", GRT_FLOAT32));

  OK(grt_graph_add_node(g, "last", "Identity", &n));
  OK(grt_graph_add_input(g, n, "parts:99"));
  OK(grt_graph_set_attr_type(g, n, "T", GRT_FLOAT32));
  OK(grt_graph_set_device(g, n, "gpu:0"));

  OK(grt_graph_add_node(g, "sq", "Squeeze", &n));
  OK(grt_graph_add_input(g, n, "last"));
  int64_t sd[2] = {0, -1};
  OK(grt_graph_set_attr_int_list(g, n, "squeeze_dims", sd, 2));
  OK(grt_graph_set_attr_type(g, n, "T", GRT_FLOAT32));
}

TEST(JsonGraph, GraphToJsonToGraphIsIdentical) {
  Graph built;
  OK(grt_graph_new(&built.g));
  BuildAwkwardGraph(built.g);
  if (HasFatalFailure()) return;
  std::string text = Write(built.g);
  EXPECT_NE(text.find("\"base64\""), std::string::npos) << "5000 elements and inf are base64";
  EXPECT_NE(text.find("\"values\": [-9223372036854775808, 0, 9223372036854775807]"),
            std::string::npos);
  Graph back;
  ASSERT_EQ(Message(Parse(text, &back)), "OK") << text;
  ExpectSameGraph(built.g, back.g);
  EXPECT_EQ(Write(back.g), text);  // and the text is stable
}

TEST(JsonGraph, OutputDoesNotDependOnAttrOrder) {
  Graph a, b;
  OK(grt_graph_new(&a.g));
  OK(grt_graph_new(&b.g));
  int32_t n;
  OK(grt_graph_add_node(a.g, "m", "MatMul", &n));
  OK(grt_graph_set_attr_bool(a.g, n, "transpose_a", true));
  OK(grt_graph_set_attr_type(a.g, n, "T", GRT_FLOAT64));
  OK(grt_graph_set_attr_bool(a.g, n, "transpose_b", false));
  OK(grt_graph_add_node(b.g, "m", "MatMul", &n));
  OK(grt_graph_set_attr_bool(b.g, n, "transpose_b", false));
  OK(grt_graph_set_attr_bool(b.g, n, "transpose_a", true));
  OK(grt_graph_set_attr_type(b.g, n, "T", GRT_FLOAT64));
  std::string text = Write(a.g);
  EXPECT_EQ(text, Write(b.g));
  EXPECT_NE(text.find(R"("attrs": {"T": "float64", "transpose_a": true, "transpose_b": false})"),
            std::string::npos)
      << text;
}

TEST(JsonGraph, WriterRejectsStringsJsonCannotHold) {
  Graph gr;
  OK(grt_graph_new(&gr.g));
  int32_t n;
  OK(grt_graph_add_node(gr.g, "v", "VariableV2", &n));
  OK(grt_graph_set_attr_string(gr.g, n, "container", "\xff\xfe"));
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  std::string m = Message(grt_format_write_json(gr.g, f));
  fclose(f);
  free(buf);
  EXPECT_EQ(m,
            "INVALID_ARGUMENT: node 'v' (VariableV2): attr 'container': string is not valid "
            "UTF-8, which JSON cannot hold");
}

// ---- errors name the node ---------------------------------------------------

std::string ParseError(const std::string& nodes) {
  Graph gr;
  return Message(Parse(R"({"format": "grt.graph", "version": 1, "nodes": [)" + nodes + "]}", &gr));
}

TEST(JsonGraph, ErrorsNameTheNodeAndAttr) {
  EXPECT_EQ(
      ParseError(
          R"({"name": "w", "op": "VariableV2", "attrs": {"dtype": "float32", "shape": "2x1"}})"),
      "INVALID_ARGUMENT: node 'w' (VariableV2): attr 'shape': expected a list of ints or "
      "null, got a string");
  EXPECT_EQ(ParseError(R"({"name": "m", "op": "MatMul", "attrs": {"transpose": true}})"),
            "INVALID_ARGUMENT: node 'm' (MatMul): attr 'transpose' is not declared by MatMul (it "
            "declares: transpose_a, transpose_b, T, grad_a, grad_b)");
  EXPECT_EQ(ParseError(R"({"name": "n", "op": "NoOp", "attrs": {"T": "float32"}})"),
            "INVALID_ARGUMENT: node 'n' (NoOp): attr 'T' is not declared by NoOp (it declares no "
            "attrs)");
  EXPECT_EQ(
      ParseError(
          R"({"name": "c", "op": "Const", "attrs": {"value": {"dtype": "int8", "shape": [2], "values": [1, 2, 3]}}})"),
      "INVALID_ARGUMENT: node 'c' (Const): attr 'value': tensor: \"values\" has 3 values but "
      "shape [2] has 2 elements (give 2, or 1 to fill)");
  EXPECT_EQ(ParseError(R"({"name": "a", "op": "NoOp"}, {"name": "a", "op": "NoOp"})"),
            "INVALID_ARGUMENT: nodes[1]: duplicate node name 'a' (also nodes[0])");
  EXPECT_EQ(
      ParseError(R"({"name": "a b", "op": "NoOp"})"),
      "INVALID_ARGUMENT: nodes[0]: invalid node name 'a b' (use letters, digits and _ . / -)");
  EXPECT_EQ(ParseError(R"({"name": "i", "op": "Identity", "inputs": ["x", 3]})"),
            "INVALID_ARGUMENT: node 'i' (Identity): input 1 must be a string, got an integer");
  EXPECT_EQ(ParseError(R"({"name": "i", "op": "Identity", "colocate_with": "w"})"),
            "INVALID_ARGUMENT: node 'i' (Identity): \"colocate_with\" must be a list of node "
            "names, got a string");
  EXPECT_EQ(ParseError(R"({"name": "i", "op": "Identity", "colocate_with": ["w x"]})"),
            "INVALID_ARGUMENT: node 'i' (Identity): \"colocate_with\" entry 0 'w x' is not a "
            "valid node name");
  EXPECT_EQ(ParseError(R"({"name": "i", "op": "Identity", "attrs": []})"),
            "INVALID_ARGUMENT: node 'i' (Identity): \"attrs\" must be an object, got a list");
  EXPECT_EQ(ParseError(R"(7)"),
            "INVALID_ARGUMENT: nodes[0]: expected a node object, got an integer");
}

TEST(JsonGraph, UnknownOpIsNotFound) {
  EXPECT_EQ(ParseError(R"({"name": "x", "op": "Frobnicate"})"),
            "NOT_FOUND: node 'x': unknown op 'Frobnicate' (not registered)");
}

}  // namespace
