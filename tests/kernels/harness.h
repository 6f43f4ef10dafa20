// Runs one CPU kernel on one node, for kernel tests.
//
//   OpRun r("MatMul");
//   r.Attr("transpose_b", true).Input(T<float>({2, 3}, {...})).Input(...);
//   ASSERT_OK(r.Run());
//   ExpectNear(r.Output(0), {2, 2}, {...});
//
// Inputs become Const nodes (so shape inference sees their values, as it
// would for constant axes), Ref inputs become VariableV2 nodes; the graph is
// validated like any other before the kernel runs, so a test also checks the
// op's signature and shape function agree with the kernel.
#ifndef GRT_TESTS_KERNELS_HARNESS_H_
#define GRT_TESTS_KERNELS_HARNESS_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "grt/grt.h"
#include "backends/cpu/cpu_kernels.h"
#include "ops/graph.h"
#include "base/dtype.h"
#include "kernels/op_kernel.h"
#include "base/status.h"
#include "base/tensor.h"
}

#define ASSERT_OK(expr)                               \
  do {                                                \
    grt_status* s_ = (expr);                          \
    ASSERT_EQ(s_, nullptr) << grt_status_message(s_); \
  } while (0)

namespace grt_test {

template <typename T>
grt_dtype DtypeOf();
template <>
inline grt_dtype DtypeOf<float>() {
  return GRT_FLOAT32;
}
template <>
inline grt_dtype DtypeOf<double>() {
  return GRT_FLOAT64;
}
template <>
inline grt_dtype DtypeOf<int32_t>() {
  return GRT_INT32;
}
template <>
inline grt_dtype DtypeOf<int64_t>() {
  return GRT_INT64;
}
template <>
inline grt_dtype DtypeOf<int8_t>() {
  return GRT_INT8;
}
template <>
inline grt_dtype DtypeOf<int16_t>() {
  return GRT_INT16;
}
template <>
inline grt_dtype DtypeOf<uint8_t>() {
  return GRT_UINT8;
}
template <>
inline grt_dtype DtypeOf<bool>() {
  return GRT_BOOL;
}

// A new tensor (caller owns it) of dtype `dt` and shape `dims`, filled from
// `values` converted to the dtype (one value fills the whole tensor).
grt_tensor* MakeTensor(grt_dtype dt, const std::vector<int64_t>& dims,
                       const std::vector<double>& values);

template <typename T>
grt_tensor* T_(const std::vector<int64_t>& dims, const std::vector<double>& values) {
  return MakeTensor(DtypeOf<T>(), dims, values);
}

// Element i as double.
double At(const grt_tensor* t, int64_t i);
std::vector<int64_t> Dims(const grt_tensor* t);

// Checks dtype-independent shape and values (|a-b| <= tol * max(1, |b|)).
void ExpectNear(const grt_tensor* t, const std::vector<int64_t>& dims,
                const std::vector<double>& values, double tol = 1e-6);

class OpRun {
 public:
  explicit OpRun(const char* op);
  ~OpRun();
  OpRun(const OpRun&) = delete;
  OpRun& operator=(const OpRun&) = delete;

  OpRun& AttrType(const char* name, grt_dtype t);
  OpRun& AttrInt(const char* name, int64_t v);
  OpRun& AttrFloat(const char* name, float v);
  OpRun& AttrBool(const char* name, bool v);
  OpRun& AttrString(const char* name, const char* v);
  OpRun& AttrInts(const char* name, const std::vector<int64_t>& v);
  OpRun& AttrShape(const char* name, const std::vector<int64_t>& dims);
  OpRun& AttrTensor(const char* name, grt_tensor* t);  // takes ownership
  // A constant input (takes ownership of t).
  OpRun& Input(grt_tensor* t);
  // A Ref input: a variable holding `value` (takes ownership; NULL leaves the
  // variable uninitialised) of the given dtype and shape.
  OpRun& RefInput(grt_dtype dt, const std::vector<int64_t>& dims, grt_tensor* value);

  // Validates the graph, makes the kernel's state, runs compute once.
  // Can be called again: the state (variables, random counters) persists and
  // `step` advances.
  grt_status* Run();

  grt_tensor* Output(int k) const { return outputs_.at(k); }
  grt_var* OutputRef(int k) const { return output_refs_.at(k); }
  grt_var* Var(int input) const { return vars_.at(input); }
  int NumOutputs() const { return static_cast<int>(outputs_.size()); }
  // The node, once Run() has added it (its op def is set even when
  // validation failed after the first pass); NULL before.
  const grt_node* Node() const { return node_ >= 0 ? &g_->nodes[node_] : nullptr; }

 private:
  grt_graph* g_ = nullptr;
  int32_t node_ = -1;
  std::string op_;
  std::vector<std::string> inputs_;
  std::vector<grt_var*> vars_;
  std::vector<grt_tensor*> values_;
  std::vector<grt_tensor*> outputs_;
  std::vector<grt_var*> output_refs_;
  const grt_op_kernel* kernel_ = nullptr;
  void* state_ = nullptr;
  bool built_ = false;
  int64_t step_ = 0;
};

}  // namespace grt_test

#endif  // GRT_TESTS_KERNELS_HARNESS_H_
