#include "tests/kernels/harness.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace grt_test {

grt_tensor* MakeTensor(grt_dtype dt, const std::vector<int64_t>& dims,
                       const std::vector<double>& values) {
  grt_tensor* t = nullptr;
  grt_status* s = grt_tensor_new(dt, static_cast<int32_t>(dims.size()), dims.data(), &t);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  if (!t) return nullptr;
  int64_t n = grt_tensor_num_elements(t);
  for (int64_t i = 0; i < n && !values.empty(); i++)
    grt_dtype_store_double(dt, grt_tensor_data(t), i,
                           values.size() == 1 ? values[0] : values.at(i));
  return t;
}

double At(const grt_tensor* t, int64_t i) {
  return grt_dtype_load_double(grt_tensor_dtype(t), grt_tensor_data(t), i);
}

std::vector<int64_t> Dims(const grt_tensor* t) {
  std::vector<int64_t> d;
  for (int32_t i = 0; i < grt_tensor_rank(t); i++) d.push_back(grt_tensor_dim(t, i));
  return d;
}

void ExpectNear(const grt_tensor* t, const std::vector<int64_t>& dims,
                const std::vector<double>& values, double tol) {
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(Dims(t), dims);
  int64_t n = grt_tensor_num_elements(t);
  ASSERT_EQ(static_cast<size_t>(n), values.size());
  for (int64_t i = 0; i < n; i++) {
    double a = At(t, i), b = values[i];
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a)) << "element " << i;
      continue;
    }
    if (std::isinf(b)) {
      EXPECT_EQ(a, b) << "element " << i;
      continue;
    }
    EXPECT_LE(std::fabs(a - b), tol * std::max(1.0, std::fabs(b)))
        << "element " << i << ": got " << a << ", expected " << b;
  }
}

OpRun::OpRun(const char* op) : op_(op) { grt_status_free(grt_graph_new(&g_)); }

OpRun::~OpRun() {
  if (kernel_ && kernel_->free_state && state_) kernel_->free_state(state_);
  for (grt_tensor* t : outputs_) grt_tensor_free(t);
  for (grt_tensor* t : values_) grt_tensor_free(t);
  for (grt_var* v : vars_) {
    if (!v) continue;
    grt_tensor_free(v->value);
    pthread_mutex_destroy(&v->mu);
    free(const_cast<char*>(v->name));
    delete v;
  }
  grt_graph_free(g_);
}

#define SET(call)                                     \
  do {                                                \
    grt_status* s_ = (call);                          \
    EXPECT_EQ(s_, nullptr) << grt_status_message(s_); \
    grt_status_free(s_);                              \
  } while (0)

static void EnsureNode(grt_graph* g, int32_t* node, const std::string& op) {
  if (*node >= 0) return;
  SET(grt_graph_add_node(g, "op", op.c_str(), node));
}

OpRun& OpRun::AttrType(const char* name, grt_dtype t) {
  EnsureNode(g_, &node_, op_);
  SET(grt_graph_set_attr_type(g_, node_, name, t));
  return *this;
}
OpRun& OpRun::AttrInt(const char* name, int64_t v) {
  EnsureNode(g_, &node_, op_);
  SET(grt_graph_set_attr_int(g_, node_, name, v));
  return *this;
}
OpRun& OpRun::AttrFloat(const char* name, float v) {
  EnsureNode(g_, &node_, op_);
  SET(grt_graph_set_attr_float(g_, node_, name, v));
  return *this;
}
OpRun& OpRun::AttrBool(const char* name, bool v) {
  EnsureNode(g_, &node_, op_);
  SET(grt_graph_set_attr_bool(g_, node_, name, v));
  return *this;
}
OpRun& OpRun::AttrString(const char* name, const char* v) {
  EnsureNode(g_, &node_, op_);
  SET(grt_graph_set_attr_string(g_, node_, name, v));
  return *this;
}
OpRun& OpRun::AttrInts(const char* name, const std::vector<int64_t>& v) {
  EnsureNode(g_, &node_, op_);
  SET(grt_graph_set_attr_int_list(g_, node_, name, v.data(), static_cast<int32_t>(v.size())));
  return *this;
}
OpRun& OpRun::AttrShape(const char* name, const std::vector<int64_t>& dims) {
  EnsureNode(g_, &node_, op_);
  SET(grt_graph_set_attr_shape(g_, node_, name, static_cast<int32_t>(dims.size()), dims.data()));
  return *this;
}
OpRun& OpRun::AttrTensor(const char* name, grt_tensor* t) {
  EnsureNode(g_, &node_, op_);
  SET(grt_graph_set_attr_tensor(g_, node_, name, t));
  grt_tensor_free(t);
  return *this;
}

OpRun& OpRun::Input(grt_tensor* t) {
  std::string name = "in" + std::to_string(inputs_.size());
  int32_t c;
  SET(grt_graph_add_node(g_, name.c_str(), "Const", &c));
  SET(grt_graph_set_attr_type(g_, c, "dtype", grt_tensor_dtype(t)));
  SET(grt_graph_set_attr_tensor(g_, c, "value", t));
  inputs_.push_back(name);
  values_.push_back(t);
  vars_.push_back(nullptr);
  return *this;
}

OpRun& OpRun::RefInput(grt_dtype dt, const std::vector<int64_t>& dims, grt_tensor* value) {
  std::string name = "var" + std::to_string(inputs_.size());
  int32_t v;
  SET(grt_graph_add_node(g_, name.c_str(), "VariableV2", &v));
  SET(grt_graph_set_attr_type(g_, v, "dtype", dt));
  SET(grt_graph_set_attr_shape(g_, v, "shape", static_cast<int32_t>(dims.size()), dims.data()));
  grt_var* var = new grt_var;
  pthread_mutex_init(&var->mu, nullptr);
  var->value = value;
  var->name = strdup(name.c_str());
  inputs_.push_back(name);
  values_.push_back(nullptr);
  vars_.push_back(var);
  return *this;
}

grt_status* OpRun::Run() {
  if (!built_) {
    EnsureNode(g_, &node_, op_);
    for (const std::string& in : inputs_) {
      grt_status* s = grt_graph_add_input(g_, node_, in.c_str());
      if (s) return s;
    }
    grt_status* s = grt_graph_validate(g_);
    if (s) return s;
    kernel_ = grt_cpu_kernel_lookup(op_.c_str());
    if (!kernel_) return grt_status_new(GRT_UNIMPLEMENTED, "no CPU kernel for %s", op_.c_str());
    const grt_node* n = &g_->nodes[node_];
    if (kernel_->create_state) {
      s = kernel_->create_state(n, &state_);
      if (s) return s;
    }
    outputs_.assign(n->sig.n_outputs, nullptr);
    output_refs_.assign(n->sig.n_outputs, nullptr);
    built_ = true;
  }
  const grt_node* n = &g_->nodes[node_];
  std::vector<grt_tensor*> in(values_.size());
  for (size_t i = 0; i < values_.size(); i++) in[i] = vars_[i] ? vars_[i]->value : values_[i];
  for (grt_tensor*& t : outputs_) {
    grt_tensor_free(t);
    t = nullptr;
  }
  grt_kernel_ctx ctx = {};
  ctx.node = n;
  ctx.n_inputs = static_cast<int32_t>(in.size());
  ctx.inputs = in.data();
  ctx.input_refs = vars_.data();
  ctx.n_outputs = static_cast<int32_t>(outputs_.size());
  ctx.outputs = outputs_.data();
  ctx.output_refs = output_refs_.data();
  ctx.allocator = grt_host_allocator();
  ctx.intra_op = nullptr;
  ctx.state = state_;
  ctx.step = step_++;
  return kernel_->compute(&ctx);
}

}  // namespace grt_test
