#include "tests/training/grad_check.h"

#include <cmath>
#include <cstring>
#include <random>

extern "C" {
#include "base/dtype.h"
}

namespace grt_test {

grt_tensor* Tensor(grt_dtype dt, const std::vector<int64_t>& dims,
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

double Elem(const grt_tensor* t, int64_t i) {
  return grt_dtype_load_double(grt_tensor_dtype(t), grt_tensor_data(t), i);
}

std::vector<Value> RunGraph(grt_graph* g, const std::vector<std::string>& feed_names,
                            const std::vector<grt_tensor*>& feeds,
                            const std::vector<std::string>& fetches,
                            const std::vector<std::string>& targets) {
  std::vector<Value> values(fetches.size());
  std::vector<grt_tensor*> out(fetches.size(), nullptr);
  grt_session* s = nullptr;
  grt_status* st = grt_session_new(g, nullptr, &s);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  if (!s) return values;
  std::vector<grt_feed> f;
  for (size_t i = 0; i < feeds.size(); i++) f.push_back({feed_names[i].c_str(), feeds[i]});
  std::vector<const char*> names, tnames;
  for (const std::string& n : fetches) names.push_back(n.c_str());
  for (const std::string& n : targets) tnames.push_back(n.c_str());
  st = grt_session_run(s, f.data(), static_cast<int32_t>(f.size()), names.data(),
                       static_cast<int32_t>(names.size()), tnames.data(),
                       static_cast<int32_t>(tnames.size()), out.data(), nullptr);
  EXPECT_EQ(st, nullptr) << grt_status_message(st);
  grt_status_free(st);
  for (size_t i = 0; i < out.size(); i++) {
    if (!out[i]) continue;
    for (int32_t d = 0; d < grt_tensor_rank(out[i]); d++)
      values[i].dims.push_back(grt_tensor_dim(out[i], d));
    for (int64_t k = 0; k < grt_tensor_num_elements(out[i]); k++)
      values[i].v.push_back(Elem(out[i], k));
    grt_tensor_free(out[i]);
  }
  grt_session_free(s);
  return values;
}

static void Ok(grt_status* s) {
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
}

GradCheck::GradCheck(const char* op, grt_dtype dt) : op_(op), dt_(dt) {
  Ok(grt_graph_new(&g_));
  Ok(grt_graph_add_node(g_, "op", op, &node_));
}

GradCheck::~GradCheck() {
  for (grt_tensor* t : x_values_) grt_tensor_free(t);
  grt_graph_free(g_);
}

GradCheck& GradCheck::Type(const char* name, grt_dtype t) {
  Ok(grt_graph_set_attr_type(g_, node_, name, t));
  return *this;
}
GradCheck& GradCheck::Int(const char* name, int64_t v) {
  Ok(grt_graph_set_attr_int(g_, node_, name, v));
  return *this;
}
GradCheck& GradCheck::Bool(const char* name, bool v) {
  Ok(grt_graph_set_attr_bool(g_, node_, name, v));
  return *this;
}
GradCheck& GradCheck::Float(const char* name, float v) {
  Ok(grt_graph_set_attr_float(g_, node_, name, v));
  return *this;
}
GradCheck& GradCheck::String(const char* name, const char* v) {
  Ok(grt_graph_set_attr_string(g_, node_, name, v));
  return *this;
}
GradCheck& GradCheck::Ints(const char* name, const std::vector<int64_t>& v) {
  Ok(grt_graph_set_attr_int_list(g_, node_, name, v.data(), static_cast<int32_t>(v.size())));
  return *this;
}

GradCheck& GradCheck::X(const std::vector<int64_t>& dims, std::vector<double> values, double lo,
                        double hi) {
  std::string name = "in" + std::to_string(inputs_.size());
  int32_t p;
  Ok(grt_graph_add_node(g_, name.c_str(), "Placeholder", &p));
  Ok(grt_graph_set_attr_type(g_, p, "dtype", dt_));
  Ok(grt_graph_add_input(g_, node_, name.c_str()));
  if (values.empty()) {
    std::mt19937 rng(static_cast<unsigned>(17 + 31 * inputs_.size()));
    std::uniform_real_distribution<double> u(lo, hi);
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    for (int64_t i = 0; i < n; i++) values.push_back(u(rng));
  }
  x_inputs_.push_back(static_cast<int>(inputs_.size()));
  inputs_.push_back(name);
  x_values_.push_back(Tensor(dt_, dims, values));
  return *this;
}

GradCheck& GradCheck::C(grt_tensor* t) {
  std::string name = "in" + std::to_string(inputs_.size());
  int32_t c;
  Ok(grt_graph_add_node(g_, name.c_str(), "Const", &c));
  Ok(grt_graph_set_attr_type(g_, c, "dtype", grt_tensor_dtype(t)));
  Ok(grt_graph_set_attr_tensor(g_, c, "value", t));
  grt_tensor_free(t);
  Ok(grt_graph_add_input(g_, node_, name.c_str()));
  inputs_.push_back(name);
  return *this;
}

void GradCheck::Check(double tol, double h) {
  if (h == 0) h = dt_ == GRT_FLOAT64 ? 1e-6 : 1e-2;
  SCOPED_TRACE(op_);
  std::vector<std::string> feed_names;
  for (int i : x_inputs_) feed_names.push_back(inputs_[i]);
  const std::string y = "op:" + std::to_string(output_);
  // y's value fixes dy's shape
  std::vector<Value> y0 = RunGraph(g_, feed_names, x_values_, {y});
  std::vector<int64_t> ydims = y0[0].dims;
  int64_t ny = static_cast<int64_t>(y0[0].v.size());
  std::vector<double> dyv;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (int64_t i = 0; i < ny; i++) dyv.push_back(u(rng));
  int32_t dy_node;
  ASSERT_OK(grt_graph_add_node(g_, "dy", "Const", &dy_node));
  ASSERT_OK(grt_graph_set_attr_type(g_, dy_node, "dtype", dt_));
  grt_tensor* dyt = Tensor(dt_, ydims, dyv);
  for (int64_t i = 0; i < ny; i++) dyv[i] = Elem(dyt, i);  // as rounded to dt
  ASSERT_OK(grt_graph_set_attr_tensor(g_, dy_node, "value", dyt));
  grt_tensor_free(dyt);
  ASSERT_OK(grt_graph_validate(g_));

  grt_output ys = {node_, output_}, dys = {dy_node, 0};
  std::vector<grt_output> xs, dx(x_inputs_.size());
  for (int i : x_inputs_) xs.push_back({grt_graph_find_node(g_, inputs_[i].c_str()), 0});
  ASSERT_OK(grt_graph_add_gradients(g_, nullptr, &ys, 1, xs.data(), static_cast<int32_t>(xs.size()),
                                    &dys, false, dx.data()));
  std::vector<std::string> dx_names;
  for (const grt_output& o : dx) {
    ASSERT_GE(o.node, 0) << "no gradient reached an input";
    dx_names.push_back(std::string(grt_graph_node_name(g_, o.node)) + ":" + std::to_string(o.port));
  }
  std::vector<Value> analytic = RunGraph(g_, feed_names, x_values_, dx_names);

  // one session for all the perturbed runs
  grt_session* s = nullptr;
  ASSERT_OK(grt_session_new(g_, nullptr, &s));
  auto objective = [&]() {
    std::vector<grt_feed> f;
    for (size_t i = 0; i < x_values_.size(); i++)
      f.push_back({feed_names[i].c_str(), x_values_[i]});
    const char* fetch = y.c_str();
    grt_tensor* out = nullptr;
    grt_status* st = grt_session_run(s, f.data(), static_cast<int32_t>(f.size()), &fetch, 1,
                                     nullptr, 0, &out, nullptr);
    EXPECT_EQ(st, nullptr) << grt_status_message(st);
    grt_status_free(st);
    double sum = 0;
    for (int64_t i = 0; out && i < grt_tensor_num_elements(out); i++) sum += Elem(out, i) * dyv[i];
    grt_tensor_free(out);
    return sum;
  };
  for (size_t j = 0; j < x_values_.size(); j++) {
    grt_tensor* xt = x_values_[j];
    void* data = grt_tensor_data(xt);
    int64_t n = grt_tensor_num_elements(xt);
    ASSERT_EQ(static_cast<int64_t>(analytic[j].v.size()), n) << "input " << j;
    for (int64_t i = 0; i < n; i++) {
      double keep = Elem(xt, i);
      grt_dtype_store_double(dt_, data, i, keep + h);
      double up_x = Elem(xt, i), up = objective();
      grt_dtype_store_double(dt_, data, i, keep - h);
      double down_x = Elem(xt, i), down = objective();
      grt_dtype_store_double(dt_, data, i, keep);
      double numeric = (up - down) / (up_x - down_x);  // the step as rounded to dt
      EXPECT_NEAR(analytic[j].v[i], numeric, tol * std::max(1.0, std::fabs(numeric)))
          << "input " << j << " element " << i;
    }
  }
  grt_session_free(s);
}

}  // namespace grt_test
