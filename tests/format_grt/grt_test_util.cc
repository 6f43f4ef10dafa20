#include "tests/format_grt/grt_test_util.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "graph_format/formats.h"
#include "graph_format/grt_file_format.h"
#include "ops/graph.h"
#include "base/dtype.h"
#include "base/tensor.h"

namespace grt_test {

std::string Describe(const grt_status* s) {
  if (!s) return "OK";
  return std::string(grt_code_name(grt_status_code(s))) + ": " + grt_status_message(s);
}

#define CHECK_OK(expr)                            \
  do {                                            \
    StatusPtr s_(expr);                           \
    EXPECT_EQ(s_, nullptr) << Describe(s_.get()); \
  } while (0)

namespace {

// A tensor whose bytes depend on dtype, shape and `seed`, so different
// tensors differ. Bools are 0/1 as the format requires of the data.
grt_tensor* PatternTensor(grt_dtype dtype, std::vector<int64_t> dims, int seed) {
  grt_tensor* t = nullptr;
  grt_status* s = grt_tensor_new(dtype, static_cast<int32_t>(dims.size()), dims.data(), &t);
  EXPECT_EQ(s, nullptr) << Describe(s);
  grt_status_free(s);
  if (!t) return nullptr;
  auto* p = static_cast<unsigned char*>(grt_tensor_data(t));
  size_t n = grt_tensor_byte_size(t);
  for (size_t i = 0; i < n; i++)
    p[i] = dtype == GRT_BOOL ? static_cast<unsigned char>((i + seed) % 2)
                             : static_cast<unsigned char>(i * 31 + seed * 7 + dtype);
  return t;
}

// One attr to set; applied in order (or reversed).
struct AttrSpec {
  std::string name;
  grt_attr_value value;
};

void SetAttrs(grt_graph* g, int32_t node, std::vector<AttrSpec> attrs, bool reverse) {
  if (reverse) std::reverse(attrs.begin(), attrs.end());
  for (auto& a : attrs) CHECK_OK(grt_graph_set_attr_value(g, node, a.name.c_str(), &a.value));
}

template <typename T>
T* ArenaCopy(grt_graph* g, const std::vector<T>& v) {
  T* p = static_cast<T*>(grt_arena_calloc(g->arena, v.size() ? v.size() : 1, sizeof(T)));
  for (size_t i = 0; i < v.size(); i++) p[i] = v[i];
  return p;
}

grt_attr_value Scalar(grt_attr_type t) {
  grt_attr_value v;
  memset(&v, 0, sizeof v);
  v.type = t;
  return v;
}

grt_shape Shape(int32_t rank, std::vector<int64_t> dims) {
  grt_shape s;
  memset(&s, 0, sizeof s);
  s.rank = rank;
  for (size_t i = 0; i < dims.size(); i++) s.dims[i] = dims[i];
  return s;
}

int32_t AddNode(grt_graph* g, const char* name, const char* op) {
  int32_t idx = -1;
  grt_status* s = grt_graph_add_node(g, name, op, &idx);
  EXPECT_EQ(s, nullptr) << Describe(s);
  grt_status_free(s);
  return idx;
}

void AddConst(grt_graph* g, const std::string& name, grt_tensor* t, const char* device) {
  int32_t n = AddNode(g, name.c_str(), "Const");
  CHECK_OK(grt_graph_set_attr_type(g, n, "dtype", grt_tensor_dtype(t)));
  CHECK_OK(grt_graph_set_attr_tensor(g, n, "value", t));
  if (device) CHECK_OK(grt_graph_set_device(g, n, device));
  grt_tensor_free(t);
}

float FloatBits(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

GraphPtr MakeEveryAttrGraph(bool reverse_attrs) {
  grt_graph* raw = nullptr;
  grt_status* s = grt_graph_new(&raw);
  EXPECT_EQ(s, nullptr);
  grt_status_free(s);
  GraphPtr g(raw);

  // One Const per dtype, alternating devices.
  for (int t = 1; t < GRT_NUM_DTYPES; t++) {
    grt_dtype dt = static_cast<grt_dtype>(t);
    AddConst(raw, std::string("consts/") + grt_dtype_name(dt), PatternTensor(dt, {2, 3}, t),
             t % 2 ? "/gpu:0" : "/job:localhost/replica:0/task:0/device:CPU:0");
  }
  AddConst(raw, "scalar", PatternTensor(GRT_FLOAT64, {}, 1), nullptr);
  AddConst(raw, "empty", PatternTensor(GRT_INT32, {0, 4}, 2), nullptr);
  AddConst(raw, "rank8", PatternTensor(GRT_INT8, {1, 2, 1, 3, 1, 1, 2, 1}, 3), "/device:GPU:*");

  // Every attr type on one node, with inputs, controls and colocations.
  int32_t n = AddNode(raw, "attrs/every_type", "FakeEveryAttr");
  CHECK_OK(grt_graph_add_input(raw, n, "consts/float32"));
  CHECK_OK(grt_graph_add_input(raw, n, "consts/int64:1"));
  CHECK_OK(grt_graph_add_input(raw, n, "scalar:7"));
  CHECK_OK(grt_graph_add_input(raw, n, "^empty"));
  CHECK_OK(grt_graph_add_input(raw, n, "^rank8"));
  CHECK_OK(grt_graph_add_colocation(raw, n, "consts/float32"));
  CHECK_OK(grt_graph_add_colocation(raw, n, "scalar"));
  CHECK_OK(grt_graph_set_device(raw, n, "/job:localhost/replica:0/task:0/device:GPU:1"));

  std::vector<AttrSpec> attrs;
  grt_attr_value v = Scalar(GRT_ATTR_INT);
  v.u.i = std::numeric_limits<int64_t>::min();
  attrs.push_back({"i_min", v});
  v.u.i = -1;
  attrs.push_back({"i_neg", v});
  v = Scalar(GRT_ATTR_FLOAT);
  v.u.f = -0.0f;
  attrs.push_back({"f_negzero", v});
  v.u.f = FloatBits(0x7fc01234u);  // a NaN with a payload: kept bit for bit
  attrs.push_back({"f_nan", v});
  v.u.f = std::numeric_limits<float>::infinity();
  attrs.push_back({"f_inf", v});
  v.u.f = 1.0e-45f;  // denormal
  attrs.push_back({"f_denorm", v});
  v = Scalar(GRT_ATTR_BOOL);
  v.u.b = true;
  attrs.push_back({"b_true", v});
  v.u.b = false;
  attrs.push_back({"b_false", v});
  v = Scalar(GRT_ATTR_STRING);
  v.u.s = grt_arena_strdup(raw->arena, "");
  attrs.push_back({"s_empty", v});
  v.u.s = grt_arena_strdup(raw->arena, "caf\xc3\xa9 \t\"quoted\"\n");
  attrs.push_back({"s_text", v});
  v.u.s = grt_arena_strdup(raw->arena, "consts/float32");  // shared with a node name
  attrs.push_back({"s_shared", v});
  v = Scalar(GRT_ATTR_TYPE);
  v.u.t = GRT_BFLOAT16;
  attrs.push_back({"type", v});
  v = Scalar(GRT_ATTR_SHAPE);
  v.u.shape = Shape(-1, {});
  attrs.push_back({"shape_unknown", v});
  v.u.shape = Shape(0, {});
  attrs.push_back({"shape_scalar", v});
  v.u.shape = Shape(3, {-1, 5, 0});
  attrs.push_back({"shape_partial", v});
  v.u.shape = Shape(8, {1, 2, 3, 4, 5, 6, 7, 8});
  attrs.push_back({"shape_rank8", v});
  v = Scalar(GRT_ATTR_TENSOR);
  v.u.tensor = PatternTensor(GRT_FLOAT16, {3}, 9);
  attrs.push_back({"tensor", v});

  v = Scalar(GRT_ATTR_LIST_INT);
  v.u.list.n = 4;
  v.u.list.v.i = ArenaCopy<int64_t>(raw, {3, -1, std::numeric_limits<int64_t>::max(), 0});
  attrs.push_back({"list_int", v});
  v.u.list.n = 0;
  v.u.list.v.i = ArenaCopy<int64_t>(raw, {});
  attrs.push_back({"list_int_empty", v});
  v = Scalar(GRT_ATTR_LIST_FLOAT);
  v.u.list.n = 3;
  v.u.list.v.f = ArenaCopy<float>(raw, {1.5f, -2.25f, FloatBits(0xff800001u)});
  attrs.push_back({"list_float", v});
  v = Scalar(GRT_ATTR_LIST_BOOL);
  v.u.list.n = 3;
  v.u.list.v.b = ArenaCopy<bool>(raw, {true, false, true});
  attrs.push_back({"list_bool", v});
  v = Scalar(GRT_ATTR_LIST_STRING);
  v.u.list.n = 4;
  v.u.list.v.s = ArenaCopy<const char*>(
      raw, {grt_arena_strdup(raw->arena, "a"), grt_arena_strdup(raw->arena, ""),
            grt_arena_strdup(raw->arena, "a"), grt_arena_strdup(raw->arena, "scalar")});
  attrs.push_back({"list_string", v});
  v = Scalar(GRT_ATTR_LIST_TYPE);
  std::vector<grt_dtype> all;
  for (int t = GRT_NUM_DTYPES - 1; t >= 1; t--) all.push_back(static_cast<grt_dtype>(t));
  v.u.list.n = static_cast<int32_t>(all.size());
  v.u.list.v.t = ArenaCopy<grt_dtype>(raw, all);
  attrs.push_back({"list_type", v});
  v = Scalar(GRT_ATTR_LIST_SHAPE);
  v.u.list.n = 3;
  v.u.list.v.shape = ArenaCopy<grt_shape>(raw, {Shape(2, {4, -1}), Shape(-1, {}), Shape(0, {})});
  attrs.push_back({"list_shape", v});
  v = Scalar(GRT_ATTR_LIST_TENSOR);
  v.u.list.n = 3;
  v.u.list.v.tensor = ArenaCopy<grt_tensor*>(
      raw, {PatternTensor(GRT_BOOL, {5}, 4), PatternTensor(GRT_UINT8, {0}, 5),
            PatternTensor(GRT_INT16, {}, 6)});
  attrs.push_back({"list_tensor", v});
  v = Scalar(GRT_ATTR_LIST_TENSOR);
  v.u.list.n = 0;
  v.u.list.v.tensor = ArenaCopy<grt_tensor*>(raw, {});
  attrs.push_back({"list_tensor_empty", v});
  SetAttrs(raw, n, attrs, reverse_attrs);

  // A node with nothing but a name and an op.
  AddNode(raw, "bare", "NoOp");
  return g;
}

GraphPtr MakeSmallValidGraph() {
  grt_graph* raw = nullptr;
  grt_status* s = grt_graph_new(&raw);
  EXPECT_EQ(s, nullptr);
  grt_status_free(s);
  GraphPtr g(raw);
  AddConst(raw, "x", PatternTensor(GRT_FLOAT32, {2, 3}, 1), "/cpu:0");
  int32_t w = AddNode(raw, "w", "VariableV2");
  int64_t wdims[] = {3, 2};
  CHECK_OK(grt_graph_set_attr_type(raw, w, "dtype", GRT_FLOAT32));
  CHECK_OK(grt_graph_set_attr_shape(raw, w, "shape", 2, wdims));
  CHECK_OK(grt_graph_set_device(raw, w, "/job:localhost/replica:0/task:0/device:CPU:0"));
  AddConst(raw, "w_init", PatternTensor(GRT_FLOAT32, {3, 2}, 2), nullptr);
  int32_t a = AddNode(raw, "w/Assign", "Assign");
  CHECK_OK(grt_graph_add_input(raw, a, "w"));
  CHECK_OK(grt_graph_add_input(raw, a, "w_init"));
  CHECK_OK(grt_graph_set_attr_type(raw, a, "T", GRT_FLOAT32));
  CHECK_OK(grt_graph_add_colocation(raw, a, "w"));
  int32_t m = AddNode(raw, "y", "MatMul");
  CHECK_OK(grt_graph_add_input(raw, m, "x"));
  CHECK_OK(grt_graph_add_input(raw, m, "w:0"));
  CHECK_OK(grt_graph_set_attr_type(raw, m, "T", GRT_FLOAT32));
  CHECK_OK(grt_graph_set_attr_bool(raw, m, "transpose_a", false));
  CHECK_OK(grt_graph_set_attr_bool(raw, m, "transpose_b", false));
  int32_t id = AddNode(raw, "out", "Identity");
  CHECK_OK(grt_graph_add_input(raw, id, "y"));
  CHECK_OK(grt_graph_add_input(raw, id, "^w/Assign"));
  CHECK_OK(grt_graph_set_attr_type(raw, id, "T", GRT_FLOAT32));
  int32_t init = AddNode(raw, "init", "NoOp");
  CHECK_OK(grt_graph_add_input(raw, init, "^w/Assign"));
  return g;
}

std::string WriteGrt(grt_graph* g) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  EXPECT_NE(f, nullptr);
  if (!f) return "";
  grt_status* s = grt_format_write_grt(g, f);
  EXPECT_EQ(s, nullptr) << Describe(s);
  grt_status_free(s);
  fclose(f);
  std::string out(buf, len);
  free(buf);
  return out;
}

grt_status* ParseGrt(const std::string& bytes, grt_graph** out) {
  size_t cap = (bytes.size() + 63) / 64 * 64 + 64;
  void* copy = aligned_alloc(64, cap);
  if (!bytes.empty()) memcpy(copy, bytes.data(), bytes.size());
  grt_status* s = grt_format_parse_grt(copy, bytes.size(), copy, free, out);
  if (s) free(copy);  // on failure the bytes stay ours
  return s;
}

namespace {

void ExpectSameValue(const std::string& where, const grt_attr_value& a, const grt_attr_value& b);

void ExpectSameTensor(const std::string& where, const grt_tensor* a, const grt_tensor* b) {
  ASSERT_NE(a, nullptr) << where;
  ASSERT_NE(b, nullptr) << where;
  EXPECT_EQ(grt_tensor_dtype(a), grt_tensor_dtype(b)) << where;
  ASSERT_EQ(grt_tensor_rank(a), grt_tensor_rank(b)) << where;
  for (int d = 0; d < grt_tensor_rank(a); d++)
    EXPECT_EQ(grt_tensor_dim(a, d), grt_tensor_dim(b, d)) << where << " dim " << d;
  ASSERT_EQ(grt_tensor_byte_size(a), grt_tensor_byte_size(b)) << where;
  EXPECT_EQ(0, memcmp(grt_tensor_data(a), grt_tensor_data(b), grt_tensor_byte_size(a))) << where;
}

void ExpectSameShape(const std::string& where, const grt_shape& a, const grt_shape& b) {
  ASSERT_EQ(a.rank, b.rank) << where;
  for (int d = 0; d < a.rank; d++) EXPECT_EQ(a.dims[d], b.dims[d]) << where << " dim " << d;
}

uint32_t Bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

void ExpectSameValue(const std::string& where, const grt_attr_value& a, const grt_attr_value& b) {
  ASSERT_EQ(a.type, b.type) << where;
  int base = a.type & ~GRT_ATTR_LIST;
  int n = 1;
  if (a.type & GRT_ATTR_LIST) {
    ASSERT_EQ(a.u.list.n, b.u.list.n) << where;
    n = a.u.list.n;
  }
  bool list = (a.type & GRT_ATTR_LIST) != 0;
  for (int j = 0; j < n; j++) {
    std::string at = list ? where + "[" + std::to_string(j) + "]" : where;
    switch (base) {
      case GRT_ATTR_INT:
        EXPECT_EQ(list ? a.u.list.v.i[j] : a.u.i, list ? b.u.list.v.i[j] : b.u.i) << at;
        break;
      case GRT_ATTR_FLOAT:
        EXPECT_EQ(Bits(list ? a.u.list.v.f[j] : a.u.f), Bits(list ? b.u.list.v.f[j] : b.u.f)) << at;
        break;
      case GRT_ATTR_BOOL:
        EXPECT_EQ(list ? a.u.list.v.b[j] : a.u.b, list ? b.u.list.v.b[j] : b.u.b) << at;
        break;
      case GRT_ATTR_STRING:
        EXPECT_STREQ(list ? a.u.list.v.s[j] : a.u.s, list ? b.u.list.v.s[j] : b.u.s) << at;
        break;
      case GRT_ATTR_TYPE:
        EXPECT_EQ(list ? a.u.list.v.t[j] : a.u.t, list ? b.u.list.v.t[j] : b.u.t) << at;
        break;
      case GRT_ATTR_SHAPE:
        ExpectSameShape(at, list ? a.u.list.v.shape[j] : a.u.shape,
                        list ? b.u.list.v.shape[j] : b.u.shape);
        break;
      case GRT_ATTR_TENSOR:
        ExpectSameTensor(at, list ? a.u.list.v.tensor[j] : a.u.tensor,
                         list ? b.u.list.v.tensor[j] : b.u.tensor);
        break;
      default:
        ADD_FAILURE() << at << ": unexpected attr type " << a.type;
    }
  }
}

}  // namespace

void ExpectSameGraph(const grt_graph* a, const grt_graph* b) {
  ASSERT_EQ(grt_graph_num_nodes(a), grt_graph_num_nodes(b));
  for (int32_t i = 0; i < grt_graph_num_nodes(a); i++) {
    std::string where = std::string("node ") + grt_graph_node_name(a, i);
    EXPECT_STREQ(grt_graph_node_name(a, i), grt_graph_node_name(b, i)) << where;
    EXPECT_EQ(grt_graph_find_node(b, grt_graph_node_name(a, i)), i) << where;
    EXPECT_STREQ(grt_graph_node_op(a, i), grt_graph_node_op(b, i)) << where;
    EXPECT_STREQ(grt_graph_node_device(a, i), grt_graph_node_device(b, i)) << where;
    ASSERT_EQ(grt_graph_node_num_inputs(a, i), grt_graph_node_num_inputs(b, i)) << where;
    for (int32_t k = 0; k < grt_graph_node_num_inputs(a, i); k++) {
      int32_t pa = -5, pb = -6;
      EXPECT_STREQ(grt_graph_node_input(a, i, k, &pa), grt_graph_node_input(b, i, k, &pb)) << where;
      EXPECT_EQ(pa, pb) << where << " input " << k;
    }
    ASSERT_EQ(grt_graph_node_num_control_inputs(a, i), grt_graph_node_num_control_inputs(b, i))
        << where;
    for (int32_t k = 0; k < grt_graph_node_num_control_inputs(a, i); k++)
      EXPECT_STREQ(grt_graph_node_control_input(a, i, k), grt_graph_node_control_input(b, i, k))
          << where;
    ASSERT_EQ(grt_graph_node_num_colocations(a, i), grt_graph_node_num_colocations(b, i)) << where;
    for (int32_t k = 0; k < grt_graph_node_num_colocations(a, i); k++)
      EXPECT_STREQ(grt_graph_node_colocation(a, i, k), grt_graph_node_colocation(b, i, k)) << where;
    // Attrs: the same set by name (order may differ: the format sorts them).
    const grt_node* na = &a->nodes[i];
    const grt_node* nb = &b->nodes[i];
    ASSERT_EQ(na->n_attrs, nb->n_attrs) << where;
    for (int32_t k = 0; k < na->n_attrs; k++) {
      const char* name = na->attrs[k].name;
      std::string at = where + " attr " + name;
      EXPECT_EQ(grt_graph_node_attr_type(a, i, name), grt_graph_node_attr_type(b, i, name)) << at;
      const grt_attr_value* vb = grt_node_find_attr(nb, name);
      ASSERT_NE(vb, nullptr) << at;
      ExpectSameValue(at, na->attrs[k].value, *vb);
      // The public getters agree too, where there is one for the type.
      if (na->attrs[k].value.type == GRT_ATTR_TENSOR) {
        const grt_tensor *ta = nullptr, *tb = nullptr;
        CHECK_OK(grt_graph_node_attr_tensor(a, i, name, &ta));
        CHECK_OK(grt_graph_node_attr_tensor(b, i, name, &tb));
        ExpectSameTensor(at, ta, tb);
      } else if (na->attrs[k].value.type == GRT_ATTR_INT) {
        int64_t x = 1, y = 2;
        CHECK_OK(grt_graph_node_attr_int(a, i, name, &x));
        CHECK_OK(grt_graph_node_attr_int(b, i, name, &y));
        EXPECT_EQ(x, y) << at;
      } else if (na->attrs[k].value.type == GRT_ATTR_STRING) {
        const char *x = nullptr, *y = nullptr;
        CHECK_OK(grt_graph_node_attr_string(a, i, name, &x));
        CHECK_OK(grt_graph_node_attr_string(b, i, name, &y));
        EXPECT_STREQ(x, y) << at;
      }
    }
  }
  EXPECT_EQ(grt_graph_constant_bytes(a), grt_graph_constant_bytes(b));
}

// ---- fields ----------------------------------------------------------------

uint32_t Get32(const std::string& b, uint64_t at) {
  EXPECT_LE(at + 4, b.size());
  return grt_le32(reinterpret_cast<const unsigned char*>(b.data()) + at);
}
uint64_t Get64(const std::string& b, uint64_t at) {
  EXPECT_LE(at + 8, b.size());
  return grt_le64(reinterpret_cast<const unsigned char*>(b.data()) + at);
}
void Put32(std::string* b, uint64_t at, uint32_t v) {
  ASSERT_LE(at + 4, b->size());
  grt_put_le32(reinterpret_cast<unsigned char*>(&(*b)[0]) + at, v);
}
void Put64(std::string* b, uint64_t at, uint64_t v) {
  ASSERT_LE(at + 8, b->size());
  grt_put_le64(reinterpret_cast<unsigned char*>(&(*b)[0]) + at, v);
}

void FixChecksum(std::string* b) {
  uint64_t data_offset = Get64(*b, GRT_FILE_OFF_DATA);
  ASSERT_LE(data_offset, b->size());
  ASSERT_GE(data_offset, static_cast<uint64_t>(GRT_FILE_HEADER_SIZE));
  // Computed here with zlib directly, independently of the reader.
  std::string copy = b->substr(0, data_offset);
  Put32(&copy, GRT_FILE_OFF_CHECKSUM, 0);
  uLong crc =
      crc32(0L, reinterpret_cast<const Bytef*>(copy.data()), static_cast<uInt>(copy.size()));
  Put32(b, GRT_FILE_OFF_CHECKSUM, static_cast<uint32_t>(crc));
}

Range Section(const std::string& b, uint32_t type) {
  uint64_t table = Get64(b, GRT_FILE_OFF_TABLE);
  uint32_t count = Get32(b, GRT_FILE_OFF_COUNT);
  for (uint32_t i = 0; i < count; i++) {
    uint64_t e = table + i * GRT_FILE_SECTION_ENTRY_SIZE;
    if (Get32(b, e) == type) return {e, Get64(b, e + 8), Get64(b, e + 16)};
  }
  ADD_FAILURE() << "no section of type " << type;
  return {0, 0, 0};
}

uint64_t NodeRecord(const std::string& b, int i) {
  return Section(b, GRT_SECTION_NODES).offset + static_cast<uint64_t>(i) * 32;
}

std::string StringAt(const std::string& b, uint32_t ref) {
  Range s = Section(b, GRT_SECTION_STRINGS);
  if (ref >= s.length) return "<out of range>";
  return std::string(b.c_str() + s.offset + ref);
}

int64_t AttrRecord(const std::string& b, int node, const std::string& name) {
  uint64_t first = 0;
  for (int i = 0; i < node; i++) first += Get32(b, NodeRecord(b, i) + 24);
  uint32_t n = Get32(b, NodeRecord(b, node) + 24);
  Range attrs = Section(b, GRT_SECTION_ATTRS);
  for (uint32_t k = 0; k < n; k++) {
    uint64_t at = attrs.offset + (first + k) * 16;
    if (StringAt(b, Get32(b, at)) == name) return static_cast<int64_t>(at);
  }
  return -1;
}

uint64_t TensorRecord(const std::string& b, int node, const std::string& attr) {
  int64_t at = AttrRecord(b, node, attr);
  EXPECT_GE(at, 0) << "node " << node << " has no attr " << attr;
  EXPECT_EQ(Get32(b, at + 4), static_cast<uint32_t>(GRT_ATTR_TENSOR));
  return Section(b, GRT_SECTION_TENSORS).offset + Get64(b, at + 8) * 32;
}

}  // namespace grt_test
