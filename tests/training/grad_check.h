// Checks symbolic gradients against central differences in float64.
//
// A GradCheck builds one op over float64 Placeholders (the inputs to
// differentiate) and Consts (axes, labels, conditions), picks an output y,
// and compares grt_graph_add_gradients' dx for dys = a fixed random tensor
// with the numeric derivative of sum(y * dy), each run through a session on
// the CPU.
#ifndef GRT_TESTS_TRAINING_GRAD_CHECK_H_
#define GRT_TESTS_TRAINING_GRAD_CHECK_H_

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "grt/grt.h"
}

namespace grt_test {

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

// A new tensor (caller owns it) of dtype dt; one value fills it.
grt_tensor* Tensor(grt_dtype dt, const std::vector<int64_t>& dims,
                   const std::vector<double>& values);
double Elem(const grt_tensor* t, int64_t i);

// A fetched tensor copied out as float64 (fetched tensors may not outlive
// their session).
struct Value {
  std::vector<int64_t> dims;
  std::vector<double> v;
};

// Runs `g` once in a new CPU session (`options`: key/value pairs): feeds
// by name, fetches by name. Fails the test on error.
std::vector<Value> RunGraph(grt_graph* g, const std::vector<std::string>& feed_names,
                            const std::vector<grt_tensor*>& feeds,
                            const std::vector<std::string>& fetches,
                            const std::vector<std::string>& targets = {});

class GradCheck {
 public:
  // dt: the dtype of the differentiated inputs (float64, or float32 for ops
  // whose CPU kernels have no float64 rows, with a larger step).
  explicit GradCheck(const char* op, grt_dtype dt = GRT_FLOAT64);
  ~GradCheck();
  GradCheck(const GradCheck&) = delete;
  GradCheck& operator=(const GradCheck&) = delete;

  // Attrs of the op.
  GradCheck& Type(const char* name, grt_dtype t);
  GradCheck& Int(const char* name, int64_t v);
  GradCheck& Bool(const char* name, bool v);
  GradCheck& Float(const char* name, float v);
  GradCheck& String(const char* name, const char* v);
  GradCheck& Ints(const char* name, const std::vector<int64_t>& v);
  // An input to differentiate: a Placeholder of dtype dt fed these values
  // (random in [lo, hi] when values is empty).
  GradCheck& X(const std::vector<int64_t>& dims, std::vector<double> values = {}, double lo = -1.0,
               double hi = 1.0);
  // A constant input (takes ownership of t).
  GradCheck& C(grt_tensor* t);
  // Which output is y (default 0).
  GradCheck& Output(int k) {
    output_ = k;
    return *this;
  }
  // Builds, differentiates and compares; tol is relative to max(1,
  // |numeric|); h is the central difference's step (0: 1e-6 for float64,
  // 1e-2 otherwise).
  void Check(double tol = 1e-6, double h = 0);

 private:
  grt_graph* g_ = nullptr;
  int32_t node_ = -1;
  std::string op_;
  grt_dtype dt_;
  int output_ = 0;
  std::vector<std::string> inputs_;    // input node names in order
  std::vector<int> x_inputs_;          // which of them are differentiated
  std::vector<grt_tensor*> x_values_;  // their values
};

}  // namespace grt_test

#endif  // GRT_TESTS_TRAINING_GRAD_CHECK_H_
