// The importer's shape inference against ONNX's own: every node test of
// Debian's libonnx-testdata imported with its value_info and output shape
// declarations dropped (so grt infers from the inputs alone, as ONNX did),
// and every value's shape compared with expected_shapes.txt, which
// make_expected_shapes.py writes from onnx.shape_inference. A value whose
// rank or a known dimension differs is a failure, reported by test and
// value; values grt leaves less specific than ONNX are counted, not failed
// (GRT_SHAPES_VERBOSE=1 lists them).
//
//   bazel test //tests/onnx_conformance:shape_test --test_output=all
#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "grt/grt.h"

extern "C" {
#include "interchange/interchange.h"
#include "interchange/protobuf_alloc.h"
#include "onnx.pb-c.h"
}

namespace {

const char* kDefaultData = "/usr/share/libonnx-testdata/data/node";

// test -> value -> dims (-1 unknown); a scalar is an empty vector.
using Expected = std::map<std::string, std::map<std::string, std::vector<int64_t>>>;

Expected ReadExpected() {
  Expected out;
  std::ifstream f("tests/onnx_conformance/expected_shapes.txt");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string test, value, dims;
    ss >> test >> value >> dims;
    std::vector<int64_t> v;
    if (dims != "-") {
      std::istringstream ds(dims);
      std::string d;
      while (std::getline(ds, d, ',')) v.push_back(d == "?" ? -1 : std::stoll(d));
    }
    out[test][value] = v;
  }
  return out;
}

std::string Str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); i++)
    s += (i ? "," : "") + (d[i] < 0 ? std::string("?") : std::to_string(d[i]));
  return s + "]";
}

// The model without its value_info and without its outputs' shapes.
std::string Undeclared(const std::string& bytes) {
  Onnx__ModelProto* m = onnx__model_proto__unpack(grt_protobuf_allocator(), bytes.size(),
                                                  reinterpret_cast<const uint8_t*>(bytes.data()));
  if (!m || !m->graph) {
    if (m) onnx__model_proto__free_unpacked(m, grt_protobuf_allocator());
    return bytes;
  }
  Onnx__GraphProto* g = m->graph;
  size_t n_value_info = g->n_value_info;
  g->n_value_info = 0;
  std::vector<Onnx__TensorShapeProto*> shapes(g->n_output, nullptr);
  for (size_t i = 0; i < g->n_output; i++) {
    Onnx__TypeProto* t = g->output[i]->type;
    if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && t->tensor_type) {
      shapes[i] = t->tensor_type->shape;
      t->tensor_type->shape = nullptr;
    }
  }
  std::string out(onnx__model_proto__get_packed_size(m), '\0');
  onnx__model_proto__pack(m, reinterpret_cast<uint8_t*>(&out[0]));
  // Put back what was taken out, so that it is freed with the rest.
  g->n_value_info = n_value_info;
  for (size_t i = 0; i < g->n_output; i++)
    if (shapes[i]) g->output[i]->type->tensor_type->shape = shapes[i];
  onnx__model_proto__free_unpacked(m, grt_protobuf_allocator());
  return out;
}

void Collect(void* user, const char* value, const grt_shape* shape) {
  auto* got = static_cast<std::map<std::string, grt_shape>*>(user);
  (*got)[value] = *shape;
}

TEST(OnnxShapes, MatchOnnxShapeInference) {
  const char* env = getenv("GRT_ONNX_TESTDATA");
  std::string root = env ? env : kDefaultData;
  Expected expected = ReadExpected();
  ASSERT_GT(expected.size(), 100u) << "tests/onnx_conformance/expected_shapes.txt is missing";
  int models = 0, compared = 0, known = 0, less = 0;
  std::vector<std::string> mismatches;
  for (const auto& test : expected) {
    std::ifstream f(root + "/" + test.first + "/model.onnx", std::ios::binary);
    if (!f.good()) continue;
    std::stringstream ss;
    ss << f.rdbuf();
    std::string bytes = Undeclared(ss.str());
    std::map<std::string, grt_shape> got;
    grt_graph* g = nullptr;
    grt_status* s = grt_onnx_parse_shapes(bytes.data(), bytes.size(), Collect, &got, &g);
    if (s) {  // not imported: conformance_test reports why
      grt_status_free(s);
      continue;
    }
    grt_graph_free(g);
    models++;
    for (const auto& v : test.second) {
      auto it = got.find(v.first);
      if (it == got.end()) continue;
      const grt_shape& sh = it->second;
      const std::vector<int64_t>& want = v.second;
      compared++;
      std::vector<int64_t> have(sh.dims, sh.dims + (sh.rank > 0 ? sh.rank : 0));
      bool bad = sh.rank >= 0 && (size_t)sh.rank != want.size();
      bool full = sh.rank >= 0 && !bad;
      for (size_t d = 0; !bad && sh.rank >= 0 && d < want.size(); d++) {
        if (have[d] >= 0 && want[d] >= 0 && have[d] != want[d]) bad = true;
        if (have[d] < 0 && want[d] >= 0) full = false;
      }
      if (bad)
        mismatches.push_back(test.first + " " + v.first + ": grt " +
                             (sh.rank < 0 ? std::string("unknown") : Str(have)) + ", ONNX " +
                             Str(want));
      else if (full)
        known++;
      else if (++less && getenv("GRT_SHAPES_VERBOSE"))
        printf("  less specific: %s %s: grt %s, ONNX %s\n", test.first.c_str(), v.first.c_str(),
               sh.rank < 0 ? "unknown" : Str(have).c_str(), Str(want).c_str());
    }
  }
  printf(
      "%d models imported; %d values compared: %d as specific as ONNX's, %d less specific, "
      "%zu in conflict\n",
      models, compared, known, less, mismatches.size());
  for (const std::string& m : mismatches) printf("  %s\n", m.c_str());
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " values disagree with ONNX";
  EXPECT_GT(models, 700);
  // Today's figure (less specific values are ops without a shape function
  // or with run-time parameters); a drop means inference got weaker.
  EXPECT_GE(known, 3450);
}

}  // namespace
