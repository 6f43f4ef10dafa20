// Hostile ONNX models: int64 attributes and constants that do not fit what
// grt keeps them in, axes out of range or repeated, attributes given twice
// or of the wrong kind, names given twice (tests/interchange/onnx/
// hostile_*.textproto, each with the error it must give on its first line,
// "# expect: "; they seed the ONNX fuzz target too). And names: a valid
// ONNX name is the grt name users feed and fetch, whatever else the model
// holds; only invalid ones are changed, and grt inspect shows the original.
#include <dirent.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

const char kDir[] = "tests/interchange/onnx";

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

std::vector<std::string> Hostile() {
  std::vector<std::string> out;
  DIR* d = opendir(kDir);
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    const std::string suffix = ".textproto";
    if (n.rfind("hostile_", 0) == 0 && n.size() > suffix.size() &&
        n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(n.substr(0, n.size() - suffix.size()));
  }
  closedir(d);
  return out;
}

TEST(OnnxHostile, EachBadModelIsRefusedWithItsError) {
  std::vector<std::string> cases = Hostile();
  ASSERT_GE(cases.size(), 15u) << "the hostile_*.textproto models are missing from " << kDir;
  for (const std::string& c : cases) {
    SCOPED_TRACE(c);
    std::string base = std::string(kDir) + "/" + c;
    std::ifstream f(base + ".textproto");
    std::string line;
    std::getline(f, line);
    const std::string tag = "# expect: ";
    ASSERT_EQ(line.compare(0, tag.size(), tag), 0) << "no '# expect: ' line";
    grt_graph* g = nullptr;
    std::string m = Message(grt_graph_load((base + ".onnx").c_str(), &g));
    EXPECT_NE(m.find(line.substr(tag.size())), std::string::npos) << m;
    EXPECT_EQ(g, nullptr);
    grt_graph_free(g);
  }
}

std::vector<float> RunFloats(grt_graph* g,
                             const std::vector<std::pair<const char*, grt_tensor*>>& feeds,
                             const char* fetch) {
  grt_session* s = nullptr;
  EXPECT_EQ(Message(grt_session_new(g, nullptr, &s)), "");
  std::vector<grt_feed> f;
  for (auto& p : feeds) f.push_back({p.first, p.second});
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_session_run(s, f.data(), (int32_t)f.size(), &fetch, 1, nullptr, 0, &out,
                                    nullptr)),
            "");
  std::vector<float> v;
  if (out) {
    const float* p = static_cast<const float*>(grt_tensor_data(out));
    v.assign(p, p + grt_tensor_num_elements(out));
  }
  grt_tensor_free(out);
  grt_session_free(s);
  return v;
}

grt_tensor* Floats(std::vector<int64_t> dims, std::vector<float> v) {
  grt_tensor* t = nullptr;
  EXPECT_EQ(Message(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &t)), "");
  memcpy(grt_tensor_data(t), v.data(), v.size() * sizeof(float));
  return t;
}

std::string OnnxName(grt_graph* g, const char* node) {
  int32_t i = grt_graph_find_node(g, node);
  if (i < 0) return "<no node>";
  if (grt_graph_node_attr_type(g, i, "onnx_name") != GRT_ATTR_STRING) return "";
  const char* s = "";
  EXPECT_EQ(Message(grt_graph_node_attr_string(g, i, "onnx_name", &s)), "");
  return s;
}

TEST(OnnxHostile, ValidNamesStayAndOnlyInvalidOnesAreRenamed) {
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_graph_load("tests/interchange/onnx/names_sanitized_first.onnx", &g)), "");
  // "a b" comes first but may not take a_b, the other input's own name.
  EXPECT_EQ(OnnxName(g, "a_b"), "");
  EXPECT_EQ(OnnxName(g, "a_b_1"), "a b");
  grt_tensor* real = Floats({2}, {10, 20});
  grt_tensor* renamed = Floats({2}, {1, 2});
  EXPECT_EQ(RunFloats(g, {{"a_b", real}, {"a_b_1", renamed}}, "y"), (std::vector<float>{9, 18}));
  grt_tensor_free(real);
  grt_tensor_free(renamed);
  grt_graph_free(g);
}

TEST(OnnxHostile, HelperNamesNeverTakeTheModelsNames) {
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_graph_load("tests/interchange/onnx/names_helper_after.onnx", &g)), "");
  EXPECT_STREQ(grt_graph_node_op(g, grt_graph_find_node(g, "h/matmul_0")), "Relu");
  EXPECT_STREQ(grt_graph_node_op(g, grt_graph_find_node(g, "y_z")), "Neg");
  grt_tensor* x = Floats({1, 2}, {2, 3});
  // h = x W + b = [2.5, -2.5]
  EXPECT_EQ(RunFloats(g, {{"x", x}}, "h/matmul_0"), (std::vector<float>{2.5f, 0}));
  EXPECT_EQ(RunFloats(g, {{"x", x}}, "y_z"), (std::vector<float>{-2.5f, 2.5f}));
  grt_tensor_free(x);
  grt_graph_free(g);
}

// A loss target outside [0, C) that is not ignore_index is an error at run
// time (it was a 0 loss, and NaN as a mean); ignore_index itself may lie
// outside, and targets inside run as before.
TEST(OnnxHostile, LossTargetOutOfRangeIsAnError) {
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_graph_load("tests/interchange/onnx/nll_fed.onnx", &g)), "");
  grt_session* s = nullptr;
  ASSERT_EQ(Message(grt_session_new(g, nullptr, &s)), "");
  std::vector<float> xv(12);
  for (int i = 0; i < 12; i++) xv[i] = -0.1f * (float)(i + 1);
  grt_tensor* x = Floats({2, 3, 2}, xv);
  grt_tensor* w = Floats({3}, {1, 1, 1});
  int64_t dims[2] = {2, 2};
  const char* fetch = "loss";
  for (int64_t bad : {int64_t{3}, int64_t{7}, int64_t{-1}, int64_t{1} << 40}) {
    SCOPED_TRACE(bad);
    grt_tensor* t = nullptr;
    ASSERT_EQ(Message(grt_tensor_new(GRT_INT64, 2, dims, &t)), "");
    int64_t* tv = static_cast<int64_t*>(grt_tensor_data(t));
    tv[0] = 0, tv[1] = 2, tv[2] = bad, tv[3] = 0;
    grt_feed feeds[] = {{"x", x}, {"target", t}, {"weight", w}};
    grt_tensor* out = nullptr;
    std::string m = Message(grt_session_run(s, feeds, 3, &fetch, 1, nullptr, 0, &out, nullptr));
    EXPECT_NE(m.find("is not in [0, 3)"), std::string::npos) << m;
    EXPECT_EQ(out, nullptr);
    grt_tensor_free(out);
    // ignore_index (1) is not checked; in range is fine.
    tv[2] = 1;
    out = nullptr;
    EXPECT_EQ(Message(grt_session_run(s, feeds, 3, &fetch, 1, nullptr, 0, &out, nullptr)), "");
    if (out) {
      EXPECT_NEAR(*(const float*)grt_tensor_data(out), -(xv[0] + xv[5] + xv[7]) / 3, 1e-6);
    }
    grt_tensor_free(out);
    grt_tensor_free(t);
  }
  grt_tensor_free(x);
  grt_tensor_free(w);
  grt_session_free(s);
  grt_graph_free(g);
}

}  // namespace
