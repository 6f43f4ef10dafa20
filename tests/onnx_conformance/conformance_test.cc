// ONNX backend conformance: every node test of Debian's libonnx-testdata
// (model.onnx plus test_data_set_0/input_N.pb and output_N.pb) imported,
// run on the CPU and compared with the expected outputs (atol 1e-5, rtol
// 1e-3 for floats; exact for integers and bools), once with the graph
// optimizer on (the default) and once off (rewrite=false). Prints the counts per op
// family and every failure with its reason; fails when a test listed in
// expected_pass.txt does not pass, or when fewer pass than that list holds.
// expected_failures.txt, written with it, names every other test and why.
//
//   bazel test //tests/onnx_conformance:conformance_test --test_output=all
// and, to refresh the list after a change (from the repository root):
//   GRT_ONNX_WRITE_EXPECTED=$PWD/tests/onnx_conformance/expected_pass.txt
//   bazel run //tests/onnx_conformance:conformance_test
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grt/grt.h"

extern "C" {
#include "base/dtype.h"
#include "interchange/interchange.h"
#include "interchange/protobuf_alloc.h"
#include "onnx.pb-c.h"
}

namespace {

const char* kDefaultData = "/usr/share/libonnx-testdata/data/node";

std::string ReadFile(const std::string& path, bool* ok) {
  std::ifstream f(path, std::ios::binary);
  *ok = f.good();
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string FirstLine(grt_status* s) {
  std::string m = grt_status_message(s);
  grt_status_free(s);
  return m.substr(0, m.find('\n'));
}

std::string Lower(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '_') out += (char)tolower((unsigned char)c);
  return out;
}

// What the model says about itself: graph inputs that are fed (not
// initializers), outputs, and the op family the test exercises.
struct ModelInfo {
  std::vector<std::string> inputs, outputs;
  std::string family;
};

bool ReadModelInfo(const std::string& bytes, const std::string& test, ModelInfo* info) {
  Onnx__ModelProto* m = onnx__model_proto__unpack(grt_protobuf_allocator(), bytes.size(),
                                                  reinterpret_cast<const uint8_t*>(bytes.data()));
  if (!m || !m->graph) {
    if (m) onnx__model_proto__free_unpacked(m, grt_protobuf_allocator());
    return false;
  }
  const Onnx__GraphProto* g = m->graph;
  std::set<std::string> inits;
  for (size_t i = 0; i < g->n_initializer; i++) inits.insert(g->initializer[i]->name);
  for (size_t i = 0; i < g->n_input; i++)
    if (!inits.count(g->input[i]->name)) info->inputs.push_back(g->input[i]->name);
  for (size_t i = 0; i < g->n_output; i++) info->outputs.push_back(g->output[i]->name);
  // The family: the longest op of the model whose name starts the test's
  // (test_reduce_sum_keepdims -> ReduceSum); else the first non-Constant op.
  std::string name = Lower(test.substr(test.rfind('/') + 1).substr(5));
  for (size_t i = 0; i < g->n_node; i++) {
    std::string op = g->node[i]->op_type;
    if (name.rfind(Lower(op), 0) == 0 && op.size() > info->family.size()) info->family = op;
  }
  for (size_t i = 0; i < g->n_node && info->family.empty(); i++)
    if (strcmp(g->node[i]->op_type, "Constant") != 0) info->family = g->node[i]->op_type;
  if (info->family.empty()) info->family = "Constant";
  onnx__model_proto__free_unpacked(m, grt_protobuf_allocator());
  return true;
}

std::string NodeName(const std::string& onnx) {
  char buf[512];
  grt_onnx_node_name(onnx.c_str(), buf, sizeof buf);
  return buf;
}

bool Close(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= 1e-5 + 1e-3 * std::fabs(want);
}

// Empty when equal; otherwise what differs.
std::string Compare(const grt_tensor* got, const grt_tensor* want) {
  grt_dtype t = grt_tensor_dtype(want);
  if (grt_tensor_dtype(got) != t)
    return std::string("dtype ") + grt_dtype_name(grt_tensor_dtype(got)) + ", expected " +
           grt_dtype_name(t);
  bool same_shape = grt_tensor_rank(got) == grt_tensor_rank(want);
  for (int32_t i = 0; same_shape && i < grt_tensor_rank(want); i++)
    same_shape = grt_tensor_dim(got, i) == grt_tensor_dim(want, i);
  if (!same_shape) return "shape differs";
  const void* a = grt_tensor_data(got);
  const void* b = grt_tensor_data(want);
  bool is_float = grt_dtype_is_float(t);
  for (int64_t i = 0; i < grt_tensor_num_elements(want); i++) {
    bool ok = is_float ? Close(grt_dtype_load_double(t, a, i), grt_dtype_load_double(t, b, i))
                       : grt_dtype_load_int(t, a, i) == grt_dtype_load_int(t, b, i);
    if (!ok) {
      std::ostringstream m;
      m << "element " << i << " is " << grt_dtype_load_double(t, a, i) << ", expected "
        << grt_dtype_load_double(t, b, i);
      return m.str();
    }
  }
  return "";
}

struct Result {
  std::string test, family, reason;  // reason empty: passed
};

// Imports, runs and compares one test directory, with the graph optimizer
// on (the session's default) or off (rewrite=false).
Result RunOne(const std::string& dir, bool optimize) {
  Result r;
  r.test = dir.substr(dir.rfind('/') + 1);
  bool ok;
  std::string model = ReadFile(dir + "/model.onnx", &ok);
  ModelInfo info;
  if (!ok || !ReadModelInfo(model, dir, &info)) {
    r.family = "?";
    r.reason = "model.onnx does not parse";
    return r;
  }
  r.family = info.family;
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_load((dir + "/model.onnx").c_str(), &g);
  if (s) {
    r.reason = "import: " + FirstLine(s);
    std::string prefix = dir + "/model.onnx: ";
    if (r.reason.compare(8, prefix.size(), prefix) == 0) r.reason.erase(8, prefix.size());
    return r;
  }
  std::vector<grt_tensor*> feeds_t, fetched(info.outputs.size(), nullptr);
  std::vector<grt_feed> feeds;
  std::vector<std::string> feed_names, fetch_names;
  for (size_t i = 0; i < info.inputs.size() && r.reason.empty(); i++) {
    std::string bytes = ReadFile(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb", &ok);
    grt_tensor* t = nullptr;
    s = ok ? grt_onnx_tensor_parse(bytes.data(), bytes.size(), &t)
           : grt_status_new(GRT_NOT_FOUND, "input_%zu.pb is missing", i);
    if (s) r.reason = "input: " + FirstLine(s);
    feeds_t.push_back(t);
    feed_names.push_back(NodeName(info.inputs[i]));
  }
  for (size_t i = 0; i < feeds_t.size(); i++) feeds.push_back({feed_names[i].c_str(), feeds_t[i]});
  std::vector<const char*> fetches;
  for (const std::string& o : info.outputs) fetch_names.push_back(NodeName(o));
  for (const std::string& o : fetch_names) fetches.push_back(o.c_str());
  grt_session* sess = nullptr;
  grt_session_options* opts = nullptr;
  if (r.reason.empty()) {
    s = grt_session_options_new(&opts);
    if (!s && !optimize) s = grt_session_options_set(opts, "rewrite", "false");
    if (!s) s = grt_session_new(g, opts, &sess);
    if (!s)
      s = grt_session_run(sess, feeds.data(), (int32_t)feeds.size(), fetches.data(),
                          (int32_t)fetches.size(), nullptr, 0, fetched.data(), nullptr);
    if (s) r.reason = "run: " + FirstLine(s);
  }
  for (size_t i = 0; i < info.outputs.size() && r.reason.empty(); i++) {
    std::string bytes = ReadFile(dir + "/test_data_set_0/output_" + std::to_string(i) + ".pb", &ok);
    grt_tensor* want = nullptr;
    s = ok ? grt_onnx_tensor_parse(bytes.data(), bytes.size(), &want)
           : grt_status_new(GRT_NOT_FOUND, "output_%zu.pb is missing", i);
    if (s) {
      r.reason = "expected output: " + FirstLine(s);
    } else {
      std::string diff = Compare(fetched[i], want);
      if (!diff.empty()) r.reason = "output " + info.outputs[i] + ": " + diff;
    }
    grt_tensor_free(want);
  }
  for (grt_tensor* t : fetched) grt_tensor_free(t);
  for (grt_tensor* t : feeds_t) grt_tensor_free(t);
  grt_session_free(sess);
  grt_session_options_free(opts);
  grt_graph_free(g);
  return r;
}

std::set<std::string> ReadExpected() {
  std::set<std::string> out;
  std::ifstream f("tests/onnx_conformance/expected_pass.txt");
  std::string line;
  while (std::getline(f, line))
    if (!line.empty() && line[0] != '#') out.insert(line);
  return out;
}

// Every node test, with the optimizer on or off; both must pass the list.
void NodeTests(bool optimize) {
  const char* env = getenv("GRT_ONNX_TESTDATA");
  std::string root = env ? env : kDefaultData;
  DIR* d = opendir(root.c_str());
  ASSERT_NE(d, nullptr) << root << " is missing: install libonnx-testdata (scripts/setup.sh)";
  std::vector<std::string> tests;
  while (struct dirent* e = readdir(d))
    if (strncmp(e->d_name, "test_", 5) == 0) tests.push_back(e->d_name);
  closedir(d);
  std::sort(tests.begin(), tests.end());
  ASSERT_GT(tests.size(), 0u);

  std::vector<Result> results;
  for (const std::string& t : tests) results.push_back(RunOne(root + "/" + t, optimize));

  std::map<std::string, std::pair<int, int>> by_family;  // passed, failed
  int passed = 0;
  for (const Result& r : results) {
    (r.reason.empty() ? by_family[r.family].first : by_family[r.family].second)++;
    passed += r.reason.empty();
  }
  printf("ONNX node tests, optimizer %s: %d passed, %d failed (of %zu)\n", optimize ? "on" : "off",
         passed, (int)results.size() - passed, results.size());
  printf("\nper op family (passed/total):\n");
  for (const auto& f : by_family)
    printf("  %-32s %3d/%-3d\n", f.first.c_str(), f.second.first, f.second.first + f.second.second);
  printf("\nfailures:\n");
  for (const Result& r : results)
    if (!r.reason.empty())
      printf("  %-56s [%s] %s\n", r.test.c_str(), r.family.c_str(), r.reason.c_str());

  const char* out = optimize ? getenv("GRT_ONNX_WRITE_EXPECTED") : nullptr;
  if (out) {
    std::ofstream f(out);
    f << "# ONNX node tests grt passes; conformance_test fails when one of these fails.\n"
         "# Regenerate with GRT_ONNX_WRITE_EXPECTED (see conformance_test.cc).\n";
    for (const Result& r : results)
      if (r.reason.empty()) f << r.test << "\n";
    // Beside it, every test that does not pass and why (for people: the
    // test checks only the pass list).
    std::string failures = out;
    failures = failures.substr(0, failures.rfind('/') + 1) + "expected_failures.txt";
    std::ofstream ff(failures);
    ff << "# ONNX node tests grt does not pass, with the reason (test [op family] reason).\n";
    for (const Result& r : results)
      if (!r.reason.empty()) ff << r.test << " [" << r.family << "] " << r.reason << "\n";
  }
  std::set<std::string> expected = ReadExpected();
  ASSERT_FALSE(expected.empty()) << "tests/onnx_conformance/expected_pass.txt is missing";
  for (const Result& r : results)
    if (expected.count(r.test)) {
      EXPECT_EQ(r.reason, "") << r.test << " regressed (optimizer " << (optimize ? "on" : "off")
                              << ")";
    }
  EXPECT_GE((size_t)passed, expected.size());
}

TEST(OnnxConformance, NodeTests) { NodeTests(true); }
TEST(OnnxConformance, NodeTestsOptimizerOff) { NodeTests(false); }

}  // namespace
