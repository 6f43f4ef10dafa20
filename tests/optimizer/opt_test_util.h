// Helpers for the optimizer pass tests: build small graphs with the public
// C API, run them with the optimizer off (rewrite=false) and on, compare,
// and look at what grt_graph_optimize made.
#ifndef GRT_TESTS_OPTIMIZER_OPT_TEST_UTIL_H_
#define GRT_TESTS_OPTIMIZER_OPT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace grt_opt_test {

#define OPT_ASSERT_OK(expr)                                            \
  do {                                                                 \
    grt_status* s_ = (expr);                                           \
    ASSERT_EQ(s_, nullptr) << #expr << ": " << grt_status_message(s_); \
  } while (0)

inline std::string Take(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

// A graph under construction; every call fails the test on error.
class Graph {
 public:
  Graph() { Check(grt_graph_new(&g_)); }
  ~Graph() { grt_graph_free(g_); }
  grt_graph* g() { return g_; }

  int32_t Node(const char* name, const char* op, std::vector<std::string> inputs = {},
               grt_dtype t = GRT_FLOAT32, const char* type_attr = "T") {
    int32_t i = -1;
    Check(grt_graph_add_node(g_, name, op, &i));
    for (const std::string& in : inputs) Check(grt_graph_add_input(g_, i, in.c_str()));
    if (type_attr) Check(grt_graph_set_attr_type(g_, i, type_attr, t));
    return i;
  }
  int32_t Placeholder(const char* name, std::vector<int64_t> dims, grt_dtype t = GRT_FLOAT32) {
    int32_t i = Node(name, "Placeholder", {}, t, "dtype");
    Check(grt_graph_set_attr_shape(g_, i, "shape", (int32_t)dims.size(), dims.data()));
    return i;
  }
  template <typename T>
  int32_t Const(const char* name, grt_dtype t, std::vector<int64_t> dims, std::vector<T> values) {
    grt_tensor* v = nullptr;
    Check(grt_tensor_new(t, (int32_t)dims.size(), dims.data(), &v));
    EXPECT_EQ(grt_tensor_byte_size(v), values.size() * sizeof(T));
    if (!values.empty()) memcpy(grt_tensor_data(v), values.data(), values.size() * sizeof(T));
    int32_t i = Node(name, "Const", {}, t, "dtype");
    Check(grt_graph_set_attr_tensor(g_, i, "value", v));
    grt_tensor_free(v);
    return i;
  }
  int32_t ConstF(const char* name, std::vector<int64_t> dims, std::vector<float> v) {
    return Const<float>(name, GRT_FLOAT32, dims, v);
  }
  int32_t ConstI(const char* name, std::vector<int64_t> dims, std::vector<int32_t> v) {
    return Const<int32_t>(name, GRT_INT32, dims, v);
  }
  void Type(int32_t i, const char* attr, grt_dtype t) {
    Check(grt_graph_set_attr_type(g_, i, attr, t));
  }
  void Str(int32_t i, const char* attr, const char* v) {
    Check(grt_graph_set_attr_string(g_, i, attr, v));
  }
  void Ints(int32_t i, const char* attr, std::vector<int64_t> v) {
    Check(grt_graph_set_attr_int_list(g_, i, attr, v.data(), (int32_t)v.size()));
  }
  void Control(int32_t i, const char* from) {
    Check(grt_graph_add_input(g_, i, (std::string("^") + from).c_str()));
  }

 private:
  static void Check(grt_status* s) { EXPECT_EQ(s, nullptr) << Take(s); }
  grt_graph* g_ = nullptr;
};

// A session over g: the optimizer on (the default) or off (rewrite=false);
// `extra` sets more options ("optimizer_off", "fold_max_bytes").
inline grt_session* Session(grt_graph* g, bool optimize,
                            std::map<std::string, std::string> extra = {}) {
  grt_session_options* o = nullptr;
  grt_status* st = grt_session_options_new(&o);
  if (!st && !optimize) st = grt_session_options_set(o, "rewrite", "false");
  if (!st) st = grt_session_options_set(o, "intra_op_threads", "1");
  for (const auto& kv : extra)
    if (!st) st = grt_session_options_set(o, kv.first.c_str(), kv.second.c_str());
  grt_session* s = nullptr;
  if (!st) st = grt_session_new(g, o, &s);
  grt_session_options_free(o);
  EXPECT_EQ(st, nullptr) << Take(st);
  return s;
}

struct Feed {
  std::string name;
  grt_tensor* value;
};

// Runs s; returns "" and the fetched tensors (caller frees), or the error.
inline std::string RunS(grt_session* s, const std::vector<Feed>& feeds,
                        const std::vector<std::string>& fetches, std::vector<grt_tensor*>* out,
                        const std::vector<std::string>& targets = {}) {
  std::vector<grt_feed> f;
  for (const Feed& x : feeds) f.push_back({x.name.c_str(), x.value});
  std::vector<const char*> fe, ta;
  for (const std::string& x : fetches) fe.push_back(x.c_str());
  for (const std::string& x : targets) ta.push_back(x.c_str());
  out->assign(fetches.size(), nullptr);
  return Take(grt_session_run(s, f.data(), (int32_t)f.size(), fe.data(), (int32_t)fe.size(),
                              ta.data(), (int32_t)ta.size(), out->data(), nullptr));
}

inline void Free(std::vector<grt_tensor*>* v) {
  for (grt_tensor* t : *v) grt_tensor_free(t);
  v->clear();
}

inline bool SameShape(const grt_tensor* a, const grt_tensor* b) {
  if (grt_tensor_dtype(a) != grt_tensor_dtype(b) || grt_tensor_rank(a) != grt_tensor_rank(b))
    return false;
  for (int32_t d = 0; d < grt_tensor_rank(a); d++)
    if (grt_tensor_dim(a, d) != grt_tensor_dim(b, d)) return false;
  return true;
}

inline bool BitEqual(const grt_tensor* a, const grt_tensor* b) {
  return a && b && SameShape(a, b) &&
         memcmp(grt_tensor_data(a), grt_tensor_data(b), grt_tensor_byte_size(a)) == 0;
}

// Runs g with the optimizer off and on, with the same feeds and fetches,
// and expects bitwise equal results. Returns the optimized session's
// report.
inline std::string ExpectSameBothWays(grt_graph* g, const std::vector<Feed>& feeds,
                                      const std::vector<std::string>& fetches,
                                      std::map<std::string, std::string> extra = {}) {
  grt_session* off = Session(g, false);
  grt_session* on = Session(g, true, extra);
  std::string report;
  if (off && on) {
    std::vector<grt_tensor*> a, b;
    EXPECT_EQ(RunS(off, feeds, fetches, &a), "");
    EXPECT_EQ(RunS(on, feeds, fetches, &b), "");
    for (size_t k = 0; k < fetches.size(); k++)
      EXPECT_TRUE(BitEqual(a[k], b[k])) << fetches[k] << " differs with the optimizer on";
    Free(&a);
    Free(&b);
    char buf[8192];
    grt_session_optimizer_report(on, buf, sizeof buf);
    report = buf;
  }
  grt_session_free(off);
  grt_session_free(on);
  return report;
}

// The graph grt_graph_optimize makes of g (caller frees), with the report.
inline grt_graph* Optimized(grt_graph* g, std::string* report = nullptr,
                            std::map<std::string, std::string> extra = {}) {
  grt_session_options* o = nullptr;
  grt_status* st = grt_session_options_new(&o);
  for (const auto& kv : extra)
    if (!st) st = grt_session_options_set(o, kv.first.c_str(), kv.second.c_str());
  grt_graph* out = nullptr;
  char* text = nullptr;
  if (!st) st = grt_graph_optimize(g, o, &out, &text);
  grt_session_options_free(o);
  EXPECT_EQ(st, nullptr) << Take(st);
  if (report) *report = text ? text : "";
  free(text);
  return out;
}

inline int CountOp(const grt_graph* g, const char* op) {
  int n = 0;
  for (int32_t i = 0; g && i < grt_graph_num_nodes(g); i++)
    n += !strcmp(grt_graph_node_op(g, i), op);
  return n;
}

// The report line of a pass (its first row), "" when absent.
inline std::string PassLine(const std::string& report, const char* pass) {
  size_t at = report.find(std::string("  ") + pass + " ");
  if (at == std::string::npos) return "";
  return report.substr(at, report.find('\n', at) - at);
}

inline grt_tensor* TensorF(std::vector<int64_t> dims, std::vector<float> v) {
  grt_tensor* t = nullptr;
  EXPECT_EQ(grt_tensor_new(GRT_FLOAT32, (int32_t)dims.size(), dims.data(), &t), nullptr);
  if (t && !v.empty()) memcpy(grt_tensor_data(t), v.data(), v.size() * sizeof(float));
  return t;
}

}  // namespace grt_opt_test

#endif  // GRT_TESTS_OPTIMIZER_OPT_TEST_UTIL_H_
