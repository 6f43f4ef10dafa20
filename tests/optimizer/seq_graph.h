// Shared by the sequence-fusion tests: graphs written in grt's JSON text
// form with seeded random constants, run with the optimizer on and off.
#ifndef GRT_TESTS_OPTIMIZER_SEQ_GRAPH_H_
#define GRT_TESTS_OPTIMIZER_SEQ_GRAPH_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "grt/graph.h"
#include "grt/session.h"
#include "grt/status.h"
#include "grt/types.h"

namespace seqtest {

inline std::string Floats(const std::vector<float>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

inline std::vector<float> Random(size_t n, uint32_t seed, float scale = 1.0f, float shift = 0) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(shift, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(g);
  return v;
}

inline std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); i++) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// A JSON node line (without the trailing comma).
inline std::string Node(const std::string& name, const std::string& op,
                        const std::vector<std::string>& inputs, const std::string& attrs) {
  std::string s = "{\"name\":\"" + name + "\",\"op\":\"" + op + "\"";
  if (!inputs.empty()) {
    s += ",\"inputs\":[";
    for (size_t i = 0; i < inputs.size(); i++) s += (i ? ",\"" : "\"") + inputs[i] + "\"";
    s += "]";
  }
  return s + ",\"attrs\":{" + attrs + "}}";
}

inline std::string ConstF(const std::string& name, const std::vector<int64_t>& dims,
                          const std::vector<float>& v) {
  return Node(name, "Const", {},
              "\"dtype\":\"float32\",\"value\":{\"dtype\":\"float32\",\"shape\":" + Dims(dims) +
                  ",\"values\":[" + Floats(v) + "]}");
}

inline std::string ConstI(const std::string& name, const std::vector<int64_t>& v) {
  return Node(name, "Const", {},
              "\"dtype\":\"int64\",\"value\":{\"dtype\":\"int64\",\"shape\":[" +
                  std::to_string(v.size()) + "],\"values\":" + Dims(v) + "}");
}

inline std::string Placeholder(const std::string& name, const std::vector<int64_t>& dims) {
  return Node(name, "Placeholder", {}, "\"dtype\":\"float32\",\"shape\":" + Dims(dims));
}

inline std::string Graph(const std::vector<std::string>& nodes) {
  std::string s = "{\"format\":\"grt.graph\",\"version\":1,\"nodes\":[";
  for (size_t i = 0; i < nodes.size(); i++) s += (i ? ",\n" : "\n") + nodes[i];
  return s + "]}";
}

inline grt_graph* Parse(const std::string& text) {
  grt_graph* g = nullptr;
  grt_status* s = grt_graph_from_json(text.data(), text.size(), &g);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return g;
}

struct Result {
  std::vector<std::vector<float>> values;
  std::string report;
  bool ok = false;
};

// Runs `g` once feeding `feed` (name, values, dims) and fetching `fetches`,
// with the optimizer on (rewrite true) or off.
inline Result RunGraph(grt_graph* g, bool rewrite, const std::string& feed_name,
                       const std::vector<float>& feed, const std::vector<int64_t>& dims,
                       const std::vector<std::string>& fetches, const char* off = nullptr) {
  Result r;
  grt_session_options* o = nullptr;
  EXPECT_EQ(grt_session_options_new(&o), nullptr);
  EXPECT_EQ(grt_session_options_set(o, "rewrite", rewrite ? "true" : "false"), nullptr);
  if (off) EXPECT_EQ(grt_session_options_set(o, "optimizer_off", off), nullptr);
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, o, &s);
  grt_session_options_free(o);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  if (st) {
    grt_status_free(st);
    return r;
  }
  char buf[4096];
  grt_session_optimizer_report(s, buf, sizeof buf);
  r.report = buf;
  grt_tensor* in = nullptr;
  EXPECT_EQ(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &in), nullptr);
  memcpy(grt_tensor_data(in), feed.data(), feed.size() * sizeof(float));
  grt_feed f = {feed_name.c_str(), in};
  std::vector<const char*> names;
  for (const auto& n : fetches) names.push_back(n.c_str());
  std::vector<grt_tensor*> out(fetches.size(), nullptr);
  st = grt_session_run(s, feed_name.empty() ? nullptr : &f, feed_name.empty() ? 0 : 1, names.data(),
                       (int32_t)names.size(), nullptr, 0, out.data(), nullptr);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  r.ok = st == nullptr;
  grt_status_free(st);
  for (grt_tensor* t : out) {
    if (!t) continue;
    const float* p = static_cast<const float*>(grt_tensor_data(t));
    r.values.emplace_back(p, p + grt_tensor_num_elements(t));
    grt_tensor_free(t);
  }
  grt_tensor_free(in);
  grt_session_free(s);
  return r;
}

// The optimized graph's op counts (grt_graph_optimize, host CPU).
inline int CountOps(grt_graph* g, const std::string& op, std::string* report = nullptr) {
  grt_graph* out = nullptr;
  char* rep = nullptr;
  grt_status* st = grt_graph_optimize(g, nullptr, &out, &rep);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  int n = 0;
  for (int32_t i = 0; out && i < grt_graph_num_nodes(out); i++)
    n += op == grt_graph_node_op(out, i);
  if (report && rep) *report = rep;
  free(rep);
  grt_graph_free(out);
  return n;
}

inline void ExpectNear(const std::vector<float>& a, const std::vector<float>& b, float tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i++) ASSERT_NEAR(a[i], b[i], tol) << "at " << i;
}

}  // namespace seqtest

#endif  // GRT_TESTS_OPTIMIZER_SEQ_GRAPH_H_
