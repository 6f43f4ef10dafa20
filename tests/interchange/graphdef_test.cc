// TensorFlow GraphDef import and export: the seeds' graphs as TensorFlow
// writes them (generated names, `_class` colocation, `/device:GPU:1`
// devices, scalars in typed value fields, `_output_shapes`) import to the
// same graph as grt's JSON form, place the same and compute the same; every
// graph grt writes as a GraphDef reads back to the same graph; bad inputs
// are errors that name the node.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grt/grt.h"

extern "C" {
#include "base/device_name.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/tensor.h"
#include "interchange/interchange.h"
#include "ops/graph.h"
#include "ops/op_def.h"
}

namespace {

struct Graph {
  grt_graph* g = nullptr;
  ~Graph() { grt_graph_free(g); }
};

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

#define ASSERT_OK(expr)                  \
  do {                                   \
    grt_status* s_ = (expr);             \
    ASSERT_EQ(Message(s_), "") << #expr; \
  } while (0)

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string Tmp(const std::string& name) {
  const char* dir = getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string Json(grt_graph* g) {
  char* text = nullptr;
  size_t len = 0;
  grt_status* s = grt_graph_to_json(g, &text, &len);
  if (s) return "error: " + Message(s);
  std::string out(text, len);
  free(text);
  return out;
}

std::string Canonical(const char* spec) {
  grt_device_name d;
  grt_status* s = grt_device_name_parse(spec, &d);
  if (s) return "bad spec: " + Message(s);
  char buf[256];
  grt_device_name_str(&d, buf, sizeof buf);
  return buf;
}

bool TensorsEqual(const grt_tensor* a, const grt_tensor* b) {
  return a->dtype == b->dtype && grt_shape_equal(&a->shape, &b->shape) &&
         grt_tensor_byte_size(a) == grt_tensor_byte_size(b) &&
         memcmp(grt_tensor_data(a), grt_tensor_data(b), grt_tensor_byte_size(a)) == 0;
}

bool ValuesEqual(const grt_attr_value* a, const grt_attr_value* b) {
  if (!a || !b) return a == b;
  if (a->type != b->type) return false;
  grt_attr_type base = (grt_attr_type)(a->type & ~GRT_ATTR_LIST);
  int32_t n = 1;
  if (a->type & GRT_ATTR_LIST) {
    if (a->u.list.n != b->u.list.n) return false;
    n = a->u.list.n;
  }
  for (int32_t j = 0; j < n; j++) {
    grt_attr_value x = *a, y = *b;
    if (a->type & GRT_ATTR_LIST) {
      grt_attr_list_get(a, j, &x);
      grt_attr_list_get(b, j, &y);
    }
    bool same;
    switch (base) {
      case GRT_ATTR_INT:
        same = x.u.i == y.u.i;
        break;
      case GRT_ATTR_FLOAT:
        same = memcmp(&x.u.f, &y.u.f, sizeof x.u.f) == 0;
        break;
      case GRT_ATTR_BOOL:
        same = x.u.b == y.u.b;
        break;
      case GRT_ATTR_STRING:
        same = strcmp(x.u.s ? x.u.s : "", y.u.s ? y.u.s : "") == 0;
        break;
      case GRT_ATTR_TYPE:
        same = x.u.t == y.u.t;
        break;
      case GRT_ATTR_SHAPE:
        same = grt_shape_equal(&x.u.shape, &y.u.shape);
        break;
      case GRT_ATTR_TENSOR:
        same = TensorsEqual(x.u.tensor, y.u.tensor);
        break;
      default:
        same = false;
    }
    if (!same) return false;
  }
  return true;
}

// The same graph: names, ops, inputs, colocation and every declared attr
// (defaults filled in: TensorFlow writes them, grt's JSON may leave them
// out), with devices compared in canonical form.
void ExpectSameGraph(grt_graph* a, grt_graph* b) {
  ASSERT_EQ(a->n_nodes, b->n_nodes);
  for (int32_t i = 0; i < a->n_nodes; i++) {
    const grt_node* x = &a->nodes[i];
    const grt_node* y = &b->nodes[i];
    SCOPED_TRACE(x->name);
    EXPECT_STREQ(x->name, y->name);
    EXPECT_STREQ(x->op, y->op);
    EXPECT_EQ(Canonical(x->device), Canonical(y->device));
    ASSERT_EQ(x->n_inputs, y->n_inputs);
    for (int32_t k = 0; k < x->n_inputs; k++) {
      EXPECT_STREQ(x->inputs[k].node, y->inputs[k].node);
      EXPECT_EQ(x->inputs[k].port, y->inputs[k].port);
    }
    ASSERT_EQ(x->n_controls, y->n_controls);
    for (int32_t k = 0; k < x->n_controls; k++)
      EXPECT_STREQ(x->controls[k].node, y->controls[k].node);
    ASSERT_EQ(x->n_colocate, y->n_colocate);
    for (int32_t k = 0; k < x->n_colocate; k++)
      EXPECT_STREQ(x->colocate_with[k], y->colocate_with[k]);
    for (int32_t k = 0; k < x->def->n_attrs; k++) {
      const char* name = x->def->attrs[k].name;
      EXPECT_TRUE(ValuesEqual(grt_node_attr(x, name), grt_node_attr(y, name))) << name;
    }
  }
}

std::vector<std::string> Plan(grt_graph* g, const char* spec) {
  grt_device_count counts[4];
  int32_t n = 0;
  grt_device_set* ds = nullptr;
  grt_plan* plan = nullptr;
  std::vector<std::string> out;
  grt_status* s = grt_device_spec_parse(spec, counts, 4, &n);
  if (!s) s = grt_device_set_new(counts, n, &ds);
  if (!s) s = grt_place(g, ds, nullptr, &plan);
  if (s) {
    out.push_back("error: " + Message(s));
  } else {
    for (int32_t i = 0; i < grt_plan_num_nodes(plan); i++)
      out.push_back(grt_plan_node_device_name(plan, i));
  }
  grt_plan_free(plan);
  grt_device_set_free(ds);
  return out;
}

// Runs `targets` once, then fetches `fetch`, on this machine's CPU with soft
// placement (the graphs ask for GPUs).
std::vector<char> RunOnce(grt_graph* g, const char* target, const char* fetch) {
  grt_session_options* o = nullptr;
  grt_session* sess = nullptr;
  grt_tensor* out = nullptr;
  grt_status* s = grt_session_options_new(&o);
  if (!s) s = grt_session_options_set(o, "allow_soft_placement", "true");
  if (!s) s = grt_session_new(g, o, &sess);
  if (!s && target) s = grt_session_run(sess, nullptr, 0, nullptr, 0, &target, 1, nullptr, nullptr);
  if (!s) s = grt_session_run(sess, nullptr, 0, &fetch, 1, nullptr, 0, &out, nullptr);
  std::vector<char> bytes;
  if (s) {
    ADD_FAILURE() << Message(s);
  } else {
    const char* d = static_cast<const char*>(grt_tensor_data(out));
    bytes.assign(d, d + grt_tensor_byte_size(out));
  }
  grt_tensor_free(out);
  grt_session_free(sess);
  grt_session_options_free(o);
  return bytes;
}

struct Seed {
  const char* pb;
  const char* json;
  const char* target;
  const char* fetch;
};

class SeedGraphs : public ::testing::TestWithParam<Seed> {};

TEST_P(SeedGraphs, ImportLikeTheJsonFormPlaceAndRunTheSame) {
  const Seed& p = GetParam();
  Graph pb, json;
  ASSERT_OK(grt_graph_load(p.pb, &pb.g));
  ASSERT_OK(grt_graph_load(p.json, &json.g));
  ExpectSameGraph(pb.g, json.g);
  std::vector<std::string> plan = Plan(pb.g, "cpu:1,gpu:3");
  EXPECT_EQ(plan, Plan(json.g, "cpu:1,gpu:3"));
  EXPECT_EQ(plan.size(), (size_t)pb.g->n_nodes);
  std::vector<char> a = RunOnce(pb.g, p.target, p.fetch);
  std::vector<char> b = RunOnce(json.g, p.target, p.fetch);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeedGraphs,
                         ::testing::Values(Seed{"tests/interchange/data/three_gpus.pb",
                                                "examples/three_gpus.json", "init", "AddN"},
                                           Seed{"tests/interchange/data/seed_split_add.pb",
                                                "tests/interchange/data/seed_split_add.json",
                                                nullptr, "concat"}));

TEST(GraphdefImport, TensorFlowSpellingsAreKept) {
  Graph g;
  ASSERT_OK(grt_graph_load("tests/interchange/data/seed_split_add.pb", &g.g));
  int32_t add1 = grt_graph_find_node(g.g, "add_1");
  ASSERT_GE(add1, 0);
  EXPECT_STREQ(grt_graph_node_device(g.g, add1), "/device:GPU:1");
  int32_t port = -1;
  EXPECT_STREQ(grt_graph_node_input(g.g, add1, 1, &port), "split_1");
  EXPECT_EQ(port, 1);
  // `_output_shapes` is TensorFlow's bookkeeping, not an attr of Add.
  EXPECT_EQ(grt_graph_node_attr_type(g.g, grt_graph_find_node(g.g, "add"), "_output_shapes"),
            GRT_ATTR_NONE);
  Graph three;
  ASSERT_OK(grt_graph_load("tests/interchange/data/three_gpus.pb", &three.g));
  int32_t ru = grt_graph_find_node(three.g, "a_1/Initializer/random_uniform/RandomUniform");
  ASSERT_GE(ru, 0);
  ASSERT_EQ(grt_graph_node_num_colocations(three.g, ru), 1);
  EXPECT_STREQ(grt_graph_node_colocation(three.g, ru, 0), "a_1");
  // The variable's output is a reference edge, from VariableV2's signature.
  int32_t assign = grt_graph_find_node(three.g, "a_1/Assign");
  EXPECT_TRUE(three.g->nodes[assign].sig.input_is_ref[0]);
}

const grt_tensor* Value(grt_graph* g, const char* node) {
  const grt_tensor* t = nullptr;
  grt_status* s = grt_graph_node_attr_tensor(g, grt_graph_find_node(g, node), "value", &t);
  EXPECT_EQ(Message(s), "") << node;
  return t;
}

template <typename T>
std::vector<T> Elements(const grt_tensor* t) {
  const T* d = static_cast<const T*>(grt_tensor_data(t));
  return std::vector<T>(d, d + grt_tensor_num_elements(t));
}

TEST(GraphdefImport, ConstsFromTypedValueFields) {
  Graph g;
  ASSERT_OK(grt_graph_load("tests/interchange/data/typed_values.pb", &g.g));
  // One value fills the shape; fewer values are padded with the last one.
  EXPECT_EQ(Elements<float>(Value(g.g, "fill_f32")), std::vector<float>(6, 1.5f));
  EXPECT_EQ(grt_tensor_dim(Value(g.g, "fill_f32"), 1), 3);
  EXPECT_EQ(Elements<int32_t>(Value(g.g, "pad_i32")), (std::vector<int32_t>{7, -3, -3, -3, -3}));
  EXPECT_EQ(Elements<double>(Value(g.g, "zeros_f64")), std::vector<double>(4, 0.0));
  EXPECT_EQ(Elements<double>(Value(g.g, "f64")), (std::vector<double>{0.25, -1e300}));
  EXPECT_EQ(Elements<int64_t>(Value(g.g, "i64")), (std::vector<int64_t>{9000000000LL, -1}));
  EXPECT_EQ(Elements<int8_t>(Value(g.g, "i8")), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Elements<uint8_t>(Value(g.g, "u8")), (std::vector<uint8_t>{255, 1}));
  EXPECT_EQ(Elements<int16_t>(Value(g.g, "i16")), (std::vector<int16_t>{-30000}));
  EXPECT_EQ(Elements<bool>(Value(g.g, "b")), (std::vector<bool>{true, false, false}));
  std::vector<uint16_t> h = Elements<uint16_t>(Value(g.g, "h"));
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(grt_half_to_float(h[0]), 1.0f);
  EXPECT_EQ(grt_half_to_float(h[1]), -2.0f);
  EXPECT_EQ(grt_bfloat16_to_float(Elements<uint16_t>(Value(g.g, "bf"))[0]), 1.5f);
  EXPECT_EQ(grt_tensor_rank(Value(g.g, "scalar")), 0);
  grt_dtype t;
  ASSERT_OK(grt_graph_node_attr_type_value(g.g, grt_graph_find_node(g.g, "ref_typed"), "T", &t));
  EXPECT_EQ(t, GRT_FLOAT32);
  int32_t rank;
  int64_t dims[GRT_MAX_RANK];
  ASSERT_OK(grt_graph_node_output_shape(g.g, grt_graph_find_node(g.g, "ph"), 0, &rank, dims));
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(dims[0], -1);
  EXPECT_EQ(dims[1], 3);
  ASSERT_OK(
      grt_graph_node_output_shape(g.g, grt_graph_find_node(g.g, "ph_unknown"), 0, &rank, dims));
  EXPECT_EQ(rank, -1);
  // The filled constant computes: its sum is the sum of the values it holds.
  double want = 0;
  for (float v : Elements<float>(Value(g.g, "fill_f32"))) want += v;
  std::vector<char> got = RunOnce(g.g, nullptr, "sum");
  ASSERT_EQ(got.size(), sizeof(float));
  float sum;
  memcpy(&sum, got.data(), sizeof sum);
  EXPECT_EQ(sum, (float)want);
}

// JSON -> GraphDef -> grt gives back the same graph, byte for byte in the
// JSON form, and writing is deterministic.
void RoundTrip(const std::string& json_path) {
  SCOPED_TRACE(json_path);
  Graph g;
  ASSERT_OK(grt_graph_load(json_path.c_str(), &g.g));
  std::string pb = Tmp("roundtrip.pb");
  ASSERT_OK(grt_graph_save(g.g, pb.c_str()));
  std::string first = ReadFile(pb);
  Graph back;
  ASSERT_OK(grt_graph_load(pb.c_str(), &back.g));
  EXPECT_EQ(Json(back.g), Json(g.g));
  ASSERT_OK(grt_graph_save(back.g, pb.c_str()));
  EXPECT_EQ(ReadFile(pb), first);
}

TEST(GraphdefRoundTrip, SeedsAndTheJsonCorpus) {
  RoundTrip("examples/three_gpus.json");
  RoundTrip("tests/interchange/data/seed_split_add.json");
  for (const char* f :
       {"canonical_layout", "contract_example", "empty_graph", "every_dtype", "ops_and_inputs"})
    RoundTrip(std::string("tests/format_json/corpus/") + f + ".json");
}

TEST(GraphdefRoundTrip, TensorFlowsFormReadsBackTheSame) {
  for (const char* f : {"three_gpus", "seed_split_add", "typed_values"}) {
    SCOPED_TRACE(f);
    Graph g, back;
    ASSERT_OK(grt_graph_load((std::string("tests/interchange/data/") + f + ".pb").c_str(), &g.g));
    std::string pb = Tmp(std::string(f) + ".pb");
    ASSERT_OK(grt_graph_save(g.g, pb.c_str()));
    ASSERT_OK(grt_graph_load(pb.c_str(), &back.g));
    EXPECT_EQ(Json(back.g), Json(g.g));
  }
}

TEST(GraphdefFiles, SniffedWithoutAnExtension) {
  std::string copy = Tmp("three_gpus_no_extension");
  { std::ofstream(copy, std::ios::binary) << ReadFile("tests/interchange/data/three_gpus.pb"); }
  Graph a, b;
  ASSERT_OK(grt_graph_load(copy.c_str(), &a.g));
  ASSERT_OK(grt_graph_load("tests/interchange/data/three_gpus.pb", &b.g));
  EXPECT_EQ(Json(a.g), Json(b.g));
  std::string onnx = Tmp("out.onnx");
  EXPECT_NE(Message(grt_graph_save(a.g, onnx.c_str())).find("unknown output format"),
            std::string::npos);
}

TEST(GraphdefBadInput, EachCaseNamesItsFault) {
  const char* cases[] = {"absurd_fill",     "bad_class",     "big_rank",         "colocate_ghost",
                         "content_size",    "control_first", "dangling_input",   "duplicate_node",
                         "nul_at_end",      "nul_in_string", "placeholder_attr", "string_const",
                         "too_many_values", "unknown_attr",  "unknown_dtype",    "unknown_op",
                         "wrong_attr_kind"};
  for (const char* c : cases) {
    SCOPED_TRACE(c);
    std::string base = std::string("tests/interchange/bad/") + c;
    std::string text = ReadFile(base + ".pbtxt");
    const std::string tag = "# expect: ";
    ASSERT_EQ(text.compare(0, tag.size(), tag), 0);
    std::string expect = text.substr(tag.size(), text.find('\n') - tag.size());
    Graph g;
    std::string m = Message(grt_graph_load((base + ".pb").c_str(), &g.g));
    EXPECT_NE(m.find(expect), std::string::npos) << m;
    EXPECT_NE(m.find(base + ".pb"), std::string::npos) << m;  // the file is named too
    EXPECT_EQ(g.g, nullptr);
  }
}

TEST(GraphdefBadInput, GarbageAndEveryTruncation) {
  Graph g;
  const char junk[] = "\x0a\xff\xff\xff\xff\x0f";
  EXPECT_NE(
      Message(grt_graphdef_parse(junk, sizeof junk - 1, &g.g)).find("not a TensorFlow GraphDef"),
      std::string::npos);
  // Every prefix of a real GraphDef: an error or a graph, never a crash.
  std::string bytes = ReadFile("tests/interchange/data/seed_split_add.pb");
  ASSERT_GT(bytes.size(), 100u);
  int parsed = 0;
  for (size_t n = 0; n < bytes.size(); n++) {
    grt_graph* out = nullptr;
    grt_status* s = grt_graphdef_parse(bytes.data(), n, &out);
    if (!s) {
      parsed++;
      grt_status_free(grt_graph_validate(out));
    }
    grt_status_free(s);
    grt_graph_free(out);
  }
  EXPECT_GT(parsed, 0);
}

}  // namespace
