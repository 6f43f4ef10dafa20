// The GPU suite, derived from the GPU support rows (backends/cuda/
// support_gpu.c): every element-wise row (one or two inputs of type T and
// one output, shaped as the input or the inputs' broadcast; T the row's one
// constraint; every other attr with a default) runs against the CPU kernel
// for each dtype the row declares, on small positive values (safe
// exponents, shifts, divisors and logarithms) and with broadcasting. So an
// element-wise op added to backends/cuda, its row and its kernel, is
// covered here with no edit to the suite; ops of other shapes get cases in
// the other gpu_suite_*.cc files. When the suite
// ends it prints the GPU row ops no single-op case ran (graphs of several
// ops, as the training cases, are not counted).
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs it on the CPU alone.
#include "tests/gpu/gpu_suite_util.h"

extern "C" {
#include "base/dtype.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def.h"
#include "ops/shape_fns.h"
}

std::set<std::string>& GpuSuiteRanOps() {
  static std::set<std::string> ops;
  return ops;
}

namespace {

class GpuRows : public GpuSuite {};

// Element-wise: the shape function says so (the input's shape, or two
// inputs' broadcast).
bool IsElementwise(const grt_kernel_def* k) {
  const grt_op_def* def = grt_op_lookup(k->op);
  if (!def || def->n_inputs < 1 || def->n_inputs > 2 || def->n_outputs != 1) return false;
  if (def->shape_fn != (def->n_inputs == 1 ? grt_infer_unchanged : grt_infer_broadcast_binary))
    return false;
  if (k->n_constraints != 1 || strcmp(k->constraints[0].attr, "T") != 0) return false;
  for (int32_t a = 0; a < def->n_inputs; a++) {
    const grt_arg_def& in = def->inputs[a];
    if (!in.type_attr || strcmp(in.type_attr, "T") != 0 || in.number_attr || in.is_ref)
      return false;
  }
  for (int32_t a = 0; a < def->n_attrs; a++)
    if (strcmp(def->attrs[a].name, "T") != 0 && !def->attrs[a].has_default) return false;
  return true;
}

TEST_F(GpuRows, ElementwiseRowsAgainstTheCpu) {
  int checked = 0;
  for (int32_t i = 0; i < grt_kernel_count(); i++) {
    const grt_kernel_def* k = grt_kernel_at(i);
    if (k->device != GRT_DEVICE_GPU || !IsElementwise(k)) continue;
    int32_t n_in = grt_op_lookup(k->op)->n_inputs;
    for (int t = 1; t < GRT_NUM_DTYPES; t++) {
      grt_dtype dt = (grt_dtype)t;
      if (!(k->constraints[0].allowed & grt_dtype_bit(dt))) continue;
      if (n_in == 1) {
        CheckAgainstCpu({k->op, "", {{dt, {7, 9}, kSmall}}});
      } else {
        CheckAgainstCpu({k->op, "", {{dt, {7, 9}, kSmall}, {dt, {7, 9}, kSmall}}});
        CheckAgainstCpu({k->op, "", {{dt, {7, 9}, kSmall}, {dt, {9}, kSmall}}});
      }
      checked++;
    }
  }
  EXPECT_GT(checked, 50);  // the rows have dozens: a broken filter shows
}

// Printed once every case has run: which GPU row ops no case ran.
class Coverage : public ::testing::Environment {
 public:
  void TearDown() override {
    std::set<std::string> rows, missing;
    for (int32_t i = 0; i < grt_kernel_count(); i++)
      if (grt_kernel_at(i)->device == GRT_DEVICE_GPU) rows.insert(grt_kernel_at(i)->op);
    for (const std::string& op : rows)
      if (!GpuSuiteRanOps().count(op)) missing.insert(op);
    printf("GPU suite: single-op cases ran %zu of %zu GPU row ops; not:",
           rows.size() - missing.size(), rows.size());
    for (const std::string& op : missing) printf(" %s", op.c_str());
    printf("\n");
  }
};

const ::testing::Environment* const kCoverage = ::testing::AddGlobalTestEnvironment(new Coverage);

}  // namespace
