// Test helpers for the placer: small graphs built through the public graph
// API, and a placed plan queried by node name.
#ifndef GRT_TESTS_PLACER_PLACER_HELPER_H_
#define GRT_TESTS_PLACER_PLACER_HELPER_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include "grt/graph.h"
#include "grt/placer.h"
#include "grt/types.h"
}

namespace grt_test {

// Owns a status for the length of an assertion.
struct Status {
  grt_status* s = nullptr;
  explicit Status(grt_status* st = nullptr) : s(st) {}
  ~Status() { grt_status_free(s); }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  bool ok() const { return s == nullptr; }
  grt_code code() const { return grt_status_code(s); }
  std::string msg() const { return grt_status_message(s); }
};

#define GRT_ASSERT_OK(expr)                              \
  do {                                                   \
    ::grt_test::Status st_(expr);                        \
    ASSERT_TRUE(st_.ok()) << #expr << ": " << st_.msg(); \
  } while (0)

class Graph {
 public:
  Graph() { EXPECT_EQ(grt_graph_new(&g_), nullptr); }
  ~Graph() { grt_graph_free(g_); }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  grt_graph* get() { return g_; }

  // Any op: data inputs ("x", "x:1"), then control inputs ("^x").
  Graph& Node(const std::string& name, const char* op, std::vector<std::string> inputs = {},
              const std::string& device = "") {
    Ok(grt_graph_add_node(g_, name.c_str(), op, &last_));
    for (const std::string& in : inputs) Ok(grt_graph_add_input(g_, last_, in.c_str()));
    if (!device.empty()) Ok(grt_graph_set_device(g_, last_, device.c_str()));
    return *this;
  }
  Graph& T(grt_dtype t, const char* attr = "T") {
    Ok(grt_graph_set_attr_type(g_, last_, attr, t));
    return *this;
  }
  Graph& Int(const char* attr, int64_t v) {
    Ok(grt_graph_set_attr_int(g_, last_, attr, v));
    return *this;
  }
  Graph& ColocateWith(const std::string& other) {
    Ok(grt_graph_add_colocation(g_, last_, other.c_str()));
    return *this;
  }
  Graph& Device(const std::string& device) {
    Ok(grt_graph_set_device(g_, last_, device.c_str()));
    return *this;
  }

  Graph& Var(const std::string& name, std::vector<int64_t> shape, const std::string& device = "",
             grt_dtype dtype = GRT_FLOAT32, const char* op = "VariableV2") {
    Node(name, op, {}, device);
    Ok(grt_graph_set_attr_type(g_, last_, "dtype", dtype));
    Ok(grt_graph_set_attr_shape(g_, last_, "shape", (int32_t)shape.size(), shape.data()));
    return *this;
  }
  Graph& Const(const std::string& name, std::vector<int64_t> shape, const std::string& device = "",
               grt_dtype dtype = GRT_FLOAT32) {
    Node(name, "Const", {}, device);
    grt_tensor* t = nullptr;
    Ok(grt_tensor_new(dtype, (int32_t)shape.size(), shape.data(), &t));
    Ok(grt_graph_set_attr_tensor(g_, last_, "value", t));
    grt_tensor_free(t);
    Ok(grt_graph_set_attr_type(g_, last_, "dtype", dtype));
    return *this;
  }
  Graph& Placeholder(const std::string& name, const std::string& device = "",
                     grt_dtype dtype = GRT_FLOAT32) {
    Node(name, "Placeholder", {}, device);
    Ok(grt_graph_set_attr_type(g_, last_, "dtype", dtype));
    return *this;
  }
  // An op with one type attr "T".
  Graph& Op(const std::string& name, const char* op, std::vector<std::string> inputs,
            const std::string& device = "", grt_dtype t = GRT_FLOAT32) {
    Node(name, op, inputs, device);
    return T(t);
  }
  Graph& AddN(const std::string& name, std::vector<std::string> inputs,
              const std::string& device = "") {
    Op(name, "AddN", inputs, device);
    return Int("N", (int64_t)inputs.size());
  }
  // TensorFlow's variable pattern: v, v/Assign (from a constant colocated
  // with v), v/read.
  Graph& Variable(const std::string& v, std::vector<int64_t> shape, const std::string& device = "",
                  grt_dtype dtype = GRT_FLOAT32) {
    Var(v, shape, device, dtype);
    Const(v + "/init", shape, device, dtype).ColocateWith(v);
    Op(v + "/Assign", "Assign", {v, v + "/init"}, device, dtype).ColocateWith(v);
    Op(v + "/read", "Identity", {v}, device, dtype).ColocateWith(v);
    return *this;
  }

  void Validate() {
    grt_status* s = grt_graph_validate(g_);
    EXPECT_EQ(s, nullptr) << grt_status_message(s);
    grt_status_free(s);
  }

 private:
  void Ok(grt_status* s) {
    EXPECT_EQ(s, nullptr) << grt_status_message(s);
    grt_status_free(s);
  }
  grt_graph* g_ = nullptr;
  int32_t last_ = -1;
};

// A device set from a spec ("cpu:1,gpu:2,test:1") as the placer alone makes
// it: the CPUs present, the other devices declared only (what
// grt_device_set_from_spec gives on a machine without those backends; that
// one lives in the runtime, which these tests do not link).
inline grt_status* SpecSet(const char* spec, grt_device_set** out) {
  grt_device_count counts[16];
  int32_t n = 0;
  *out = nullptr;
  grt_status* s = grt_device_spec_parse(spec, counts, 16, &n);
  return s ? s : grt_device_set_new(counts, n, out);
}

struct PlaceArgs {
  std::string devices = "cpu:1";
  bool soft = false;
  std::string ps;
  std::string strategy;
};

// A plan (or the error placing failed with), queried by node name.
class Placed {
 public:
  Placed(Graph& g, const PlaceArgs& a) : g_(g.get()) {
    grt_device_set* ds = nullptr;
    grt_place_options* o = nullptr;
    Status set(SpecSet(a.devices.c_str(), &ds));
    EXPECT_TRUE(set.ok()) << set.msg();
    EXPECT_EQ(grt_place_options_new(&o), nullptr);
    grt_place_options_set_soft_placement(o, a.soft);
    if (!a.ps.empty()) {
      EXPECT_EQ(grt_place_options_set_ps_devices(o, a.ps.c_str()), nullptr);
    }
    if (!a.strategy.empty()) {
      EXPECT_EQ(grt_place_options_set_ps_strategy(o, a.strategy.c_str()), nullptr);
    }
    status_.s = grt_place(g.get(), ds, o, &plan_);
    grt_device_set_free(ds);
    grt_place_options_free(o);
  }
  Placed(Graph& g, const std::string& devices, bool soft = false)
      : Placed(g, PlaceArgs{devices, soft, "", ""}) {}
  ~Placed() { grt_plan_free(plan_); }
  Placed(const Placed&) = delete;
  Placed& operator=(const Placed&) = delete;

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  std::string error() const { return status_.msg(); }
  grt_plan* plan() const { return plan_; }

  int32_t Index(const std::string& name) const {
    int32_t i = grt_graph_find_node(g_, name.c_str());
    EXPECT_GE(i, 0) << name;
    return i;
  }
  // "GPU:1"
  std::string Dev(const std::string& name) const {
    if (!plan_) return "<no plan: " + error() + ">";
    const grt_device_set* ds = grt_plan_devices(plan_);
    int32_t d = grt_plan_node_device(plan_, Index(name));
    return std::string(grt_device_set_type(ds, d)) + ":" + std::to_string(grt_device_set_id(ds, d));
  }
  grt_place_reason Reason(const std::string& name) const {
    return grt_plan_node_reason(plan_, Index(name));
  }
  grt_place_cause Cause(const std::string& name) const {
    return grt_plan_node_cause(plan_, Index(name));
  }
  std::string Text(const std::string& name) const {
    char buf[1024];
    grt_plan_node_reason_text(plan_, Index(name), buf, sizeof buf);
    return buf;
  }

 private:
  grt_graph* g_;
  grt_plan* plan_ = nullptr;
  Status status_;
};

}  // namespace grt_test

#endif  // GRT_TESTS_PLACER_PLACER_HELPER_H_
