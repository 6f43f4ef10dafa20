// Helpers of the layout and conv_fusion tests: graphs written in the JSON
// text form, run with the optimizer on (the default) and off
// (rewrite=false), and the optimized graph's ops.
#ifndef GRT_TESTS_OPTIMIZER_CONV_TEST_UTIL_H_
#define GRT_TESTS_OPTIMIZER_CONV_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace convtest {

inline std::string Msg(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

#define CT_ASSERT_OK(expr)                       \
  do {                                           \
    grt_status* s_ = (expr);                     \
    ASSERT_EQ(s_, nullptr) << convtest::Msg(s_); \
  } while (0)

// n deterministic values in [-1, 1).
inline std::string Values(int64_t n, uint32_t seed) {
  std::string v;
  uint32_t x = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    float f = (float)((x >> 8) & 0xffff) / 32768.0f - 1.0f;
    v += (i ? "," : "") + std::to_string(f);
  }
  return v;
}

inline std::string Shape(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); i++) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

inline int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// A float32 Const node.
inline std::string Const(const std::string& name, const std::vector<int64_t>& dims, uint32_t seed) {
  return R"({"name":")" + name +
         R"(","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":)" +
         Shape(dims) + R"(,"values":[)" + Values(Count(dims), seed) + "]}}},\n";
}

inline std::string IntConst(const std::string& name, const std::vector<int64_t>& dims,
                            const std::string& values) {
  return R"({"name":")" + name +
         R"(","op":"Const","attrs":{"dtype":"int32","value":{"dtype":"int32","shape":)" +
         Shape(dims) + R"(,"values":[)" + values + "]}}},\n";
}

inline std::string Scalar(const std::string& name, float v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.9g", (double)v);  // exactly v once parsed
  return R"({"name":")" + name +
         R"(","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[)" +
         buf + "]}}},\n";
}

inline std::string Graph(const std::string& nodes) {
  std::string n = nodes;
  while (!n.empty() && (n.back() == '\n' || n.back() == ',')) n.pop_back();
  return R"({"format":"grt.graph","version":1,"nodes":[)" + n + "]}";
}

inline grt_tensor* Input(const std::vector<int64_t>& dims, uint32_t seed) {
  grt_tensor* t = nullptr;
  EXPECT_EQ(nullptr, grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &t));
  float* p = (float*)grt_tensor_data(t);
  uint32_t x = seed;
  for (int64_t i = 0; i < Count(dims); i++) {
    x = x * 1664525u + 1013904223u;
    p[i] = (float)((x >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
  return t;
}

struct Result {
  std::vector<std::vector<float>> out;
  std::vector<std::vector<int64_t>> shapes;
  std::string report;
  std::string error;
};

// Runs `text` once with `options` ("key=value" pairs), feeding `feeds` and
// fetching `fetches`.
inline Result RunGraph(const std::string& text, const std::vector<std::string>& options,
                       const std::vector<std::pair<std::string, grt_tensor*>>& feeds,
                       const std::vector<std::string>& fetches) {
  Result r;
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(text.data(), text.size(), &g);
  grt_session_options* o = nullptr;
  if (!s) s = grt_session_options_new(&o);
  for (const std::string& kv : options) {
    size_t eq = kv.find('=');
    if (!s) s = grt_session_options_set(o, kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str());
  }
  grt_session* sess = nullptr;
  if (!s) s = grt_session_new(g, o, &sess);
  std::vector<grt_feed> f;
  for (auto& p : feeds) f.push_back({p.first.c_str(), p.second});
  std::vector<const char*> names;
  for (auto& n : fetches) names.push_back(n.c_str());
  std::vector<grt_tensor*> out(fetches.size(), nullptr);
  if (!s)
    s = grt_session_run(sess, f.data(), (int32_t)f.size(), names.data(), (int32_t)names.size(),
                        nullptr, 0, out.data(), nullptr);
  if (!s) {
    char buf[4096];
    grt_session_optimizer_report(sess, buf, sizeof buf);
    r.report = buf;
    for (grt_tensor* t : out) {
      const float* p = (const float*)grt_tensor_data(t);
      r.out.emplace_back(p, p + grt_tensor_num_elements(t));
      std::vector<int64_t> d;
      for (int32_t i = 0; i < grt_tensor_rank(t); i++) d.push_back(grt_tensor_dim(t, i));
      r.shapes.push_back(d);
    }
  }
  r.error = Msg(s);
  for (grt_tensor* t : out) grt_tensor_free(t);
  grt_session_free(sess);
  grt_session_options_free(o);
  grt_graph_free(g);
  return r;
}

// Runs with the optimizer and without and expects the same fetches within
// `tol` (relative to the largest magnitude). Returns the optimized run.
inline Result ExpectSame(const std::string& text,
                         const std::vector<std::pair<std::string, grt_tensor*>>& feeds,
                         const std::vector<std::string>& fetches, float tol = 1e-5f,
                         const std::vector<std::string>& options = {}) {
  std::vector<std::string> off = options;
  off.push_back("rewrite=false");
  Result want = RunGraph(text, off, feeds, fetches);
  Result got = RunGraph(text, options, feeds, fetches);
  EXPECT_EQ(want.error, "");
  EXPECT_EQ(got.error, "");
  if (!want.error.empty() || !got.error.empty()) return got;
  EXPECT_EQ(want.shapes, got.shapes);
  for (size_t k = 0; k < want.out.size(); k++) {
    float big = 1e-6f;
    for (float v : want.out[k]) big = std::fmax(big, std::fabs(v));
    EXPECT_EQ(want.out[k].size(), got.out[k].size());
    size_t bad = 0;
    for (size_t i = 0; i < want.out[k].size() && i < got.out[k].size() && bad < 3; i++)
      if (!(std::fabs(want.out[k][i] - got.out[k][i]) <= tol * big)) {
        bad++;
        ADD_FAILURE() << fetches[k] << " element " << i << ": " << got.out[k][i] << ", want "
                      << want.out[k][i] << "\n"
                      << got.report;
      }
  }
  return got;
}

// The optimized graph's ops (name -> op) and data_format attrs, through
// grt_graph_optimize.
struct Optimized {
  std::map<std::string, std::string> op;
  std::map<std::string, int> count;
  std::string json;
  std::string report;
};

inline Optimized Optimize(const std::string& text, const std::vector<std::string>& options = {}) {
  Optimized r;
  grt_graph* g = nullptr;
  EXPECT_EQ("", Msg(grt_graph_from_json(text.data(), text.size(), &g)));
  grt_session_options* o = nullptr;
  EXPECT_EQ("", Msg(grt_session_options_new(&o)));
  for (const std::string& kv : options) {
    size_t eq = kv.find('=');
    EXPECT_EQ("",
              Msg(grt_session_options_set(o, kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str())));
  }
  grt_graph* out = nullptr;
  char* report = nullptr;
  EXPECT_EQ("", Msg(grt_graph_optimize(g, o, &out, &report)));
  if (out) {
    for (int32_t i = 0; i < grt_graph_num_nodes(out); i++) {
      r.op[grt_graph_node_name(out, i)] = grt_graph_node_op(out, i);
      r.count[grt_graph_node_op(out, i)]++;
    }
    char* js = nullptr;
    size_t len = 0;
    EXPECT_EQ("", Msg(grt_graph_to_json(out, &js, &len)));
    // Without white space, so tests may look for `"key":value`.
    for (size_t i = 0; js && i < len; i++)
      if (js[i] != ' ' && js[i] != '\n') r.json += js[i];
    free(js);
  }
  if (report) r.report = report;
  free(report);
  grt_graph_free(out);
  grt_graph_free(g);
  grt_session_options_free(o);
  return r;
}

}  // namespace convtest

#endif  // GRT_TESTS_OPTIMIZER_CONV_TEST_UTIL_H_
