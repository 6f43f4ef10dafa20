// Test helper: runs one op's shape function directly through grt_shape_ctx,
// on a node built with the public graph API (so attrs and defaults behave
// exactly as in a loaded graph).
#ifndef GRT_TESTS_OPS_INFER_HELPER_H_
#define GRT_TESTS_OPS_INFER_HELPER_H_

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "grt/graph.h"
#include "ops/graph.h"
#include "ops/op_def.h"
#include "base/shape.h"
#include "base/status.h"
}

namespace grt_test {

inline grt_shape S(std::vector<int64_t> dims) {
  return grt_shape_make(static_cast<int32_t>(dims.size()), dims.data());
}
inline grt_shape U() { return grt_shape_unknown(); }

inline std::string Str(const grt_shape& s) {
  char buf[GRT_SHAPE_STR_MAX];
  return grt_shape_str(&s, buf, sizeof buf);
}

// Owns a status for the length of an assertion.
struct Status {
  grt_status* s = nullptr;
  explicit Status(grt_status* st) : s(st) {}
  ~Status() { grt_status_free(s); }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  bool ok() const { return s == nullptr; }
  grt_code code() const { return grt_status_code(s); }
  std::string msg() const { return grt_status_message(s); }
};

class Infer {
 public:
  explicit Infer(const char* op) : op_(op) {
    EXPECT_EQ(grt_graph_new(&g_), nullptr);
    Check(grt_graph_add_node(g_, "n", op, &node_));
    def_ = grt_op_lookup(op);
    EXPECT_NE(def_, nullptr) << op;
  }
  ~Infer() {
    for (grt_tensor* t : owned_) grt_tensor_free(t);
    grt_graph_free(g_);
  }
  Infer(const Infer&) = delete;
  Infer& operator=(const Infer&) = delete;

  Infer& Int(const char* name, int64_t v) {
    return Check(grt_graph_set_attr_int(g_, node_, name, v));
  }
  Infer& Bool(const char* name, bool v) {
    return Check(grt_graph_set_attr_bool(g_, node_, name, v));
  }
  Infer& Str(const char* name, const char* v) {
    return Check(grt_graph_set_attr_string(g_, node_, name, v));
  }
  Infer& Type(const char* name, grt_dtype v) {
    return Check(grt_graph_set_attr_type(g_, node_, name, v));
  }
  Infer& Shape(const char* name, const grt_shape& s) {
    return Check(grt_graph_set_attr_shape(g_, node_, name, s.rank, s.dims));
  }
  Infer& Ints(const char* name, std::vector<int64_t> v) {
    return Check(
        grt_graph_set_attr_int_list(g_, node_, name, v.data(), static_cast<int32_t>(v.size())));
  }
  Infer& Tensor(const char* name, grt_dtype dt, const grt_shape& s) {
    grt_tensor* t = nullptr;
    Check(grt_tensor_new(dt, s.rank, s.dims, &t));
    Check(grt_graph_set_attr_tensor(g_, node_, name, t));
    grt_tensor_free(t);
    return *this;
  }

  // An input of a given shape (value unknown).
  Infer& In(const grt_shape& s, grt_dtype dt = GRT_FLOAT32) {
    shapes_.push_back(s);
    types_.push_back(dt);
    values_.push_back(nullptr);
    return *this;
  }
  // A constant int32 vector input (or scalar when `scalar`).
  Infer& Const(std::vector<int64_t> v, bool scalar = false, grt_dtype dt = GRT_INT32) {
    int64_t n = static_cast<int64_t>(v.size());
    grt_tensor* t = nullptr;
    Check(grt_tensor_new(dt, scalar ? 0 : 1, &n, &t));
    for (size_t i = 0; i < v.size(); i++) {
      if (dt == GRT_INT64)
        static_cast<int64_t*>(grt_tensor_data(t))[i] = v[i];
      else
        static_cast<int32_t*>(grt_tensor_data(t))[i] = static_cast<int32_t>(v[i]);
    }
    owned_.push_back(t);
    shapes_.push_back(scalar ? grt_shape_scalar() : S({n}));
    types_.push_back(dt);
    values_.push_back(t);
    return *this;
  }
  Infer& Scalar(int64_t v) { return Const({v}, true); }

  // Runs the shape function with `n_out` outputs (all starting unknown).
  grt_status* Run(int32_t n_out = 1) {
    out_.assign(static_cast<size_t>(n_out), grt_shape_unknown());
    grt_shape_ctx ctx;
    std::memset(&ctx, 0, sizeof ctx);
    ctx.node = &g_->nodes[node_];
    ctx.def = def_;
    ctx.n_inputs = static_cast<int32_t>(shapes_.size());
    ctx.input_shapes = shapes_.data();
    ctx.input_types = types_.data();
    ctx.input_values = values_.data();
    ctx.n_outputs = n_out;
    ctx.output_shapes = out_.data();
    if (!def_ || !def_->shape_fn) return grt_status_new(GRT_INTERNAL, "no shape fn for %s", op_);
    return def_->shape_fn(&ctx);
  }
  // Runs and returns output k as "[2,?]" ("error: ..." on failure).
  std::string Out(int32_t k = 0, int32_t n_out = 1) {
    grt_status* s = Run(n_out);
    if (s) {
      std::string m = std::string("error: ") + grt_status_message(s);
      grt_status_free(s);
      return m;
    }
    return grt_test::Str(out_[static_cast<size_t>(k)]);
  }
  const grt_shape& out(size_t k) const { return out_[k]; }

 private:
  Infer& Check(grt_status* s) {
    EXPECT_EQ(s, nullptr) << grt_status_message(s);
    grt_status_free(s);
    return *this;
  }
  const char* op_;
  grt_graph* g_ = nullptr;
  int32_t node_ = -1;
  const grt_op_def* def_ = nullptr;
  std::vector<grt_shape> shapes_;
  std::vector<grt_dtype> types_;
  std::vector<const grt_tensor*> values_;
  std::vector<grt_tensor*> owned_;
  std::vector<grt_shape> out_;
};

// Expects `s` to fail with `code` and a message containing `part`.
#define EXPECT_GRT_ERROR(expr, code_, part)                                         \
  do {                                                                              \
    ::grt_test::Status st_(expr);                                                   \
    EXPECT_EQ(st_.code(), code_) << st_.msg();                                      \
    EXPECT_NE(st_.msg().find(part), std::string::npos) << "message: " << st_.msg(); \
  } while (0)

}  // namespace grt_test

#endif  // GRT_TESTS_OPS_INFER_HELPER_H_
