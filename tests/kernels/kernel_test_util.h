// Helpers shared by the kernel test suites: element counts, error checks,
// and the dtypes the CPU support data promises for an op.
#ifndef GRT_TESTS_KERNELS_KERNEL_TEST_UTIL_H_
#define GRT_TESTS_KERNELS_KERNEL_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "grt/status.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def.h"
}

namespace grt_test {

inline int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

inline void CheckStatus(grt_status* s, grt_code code, const std::string& part) {
  ASSERT_NE(s, nullptr) << "expected an error containing '" << part << "'";
  EXPECT_EQ(grt_status_code(s), code) << grt_status_message(s);
  EXPECT_NE(std::string(grt_status_message(s)).find(part), std::string::npos)
      << grt_status_message(s);
  grt_status_free(s);
}

// The dtypes the CPU support data lists for type attr `attr` of `op`: the
// row's constraint, else every dtype the op's definition allows.
inline std::vector<grt_dtype> CpuDtypes(const char* op, const char* attr) {
  const grt_kernel_def* const* rows = nullptr;
  int32_t n = grt_kernel_find_op(op, &rows);
  uint32_t mask = 0;
  bool found = false;
  for (int32_t i = 0; i < n; i++) {
    const grt_kernel_def* k = rows[i];
    if (k->device != GRT_DEVICE_CPU) continue;
    found = true;
    bool constrained = false;
    for (int32_t c = 0; c < k->n_constraints; c++)
      if (std::string(k->constraints[c].attr) == attr) {
        mask |= k->constraints[c].allowed;
        constrained = true;
      }
    if (!constrained) {
      const grt_attr_def* ad = grt_op_find_attr(grt_op_lookup(op), attr);
      mask |= ad && ad->allowed_types ? ad->allowed_types : 0xffffffffu;
    }
  }
  EXPECT_TRUE(found) << op << " has no CPU support row";
  std::vector<grt_dtype> out;
  for (int t = 1; t < GRT_NUM_DTYPES; t++)
    if (mask & (1u << t)) out.push_back(static_cast<grt_dtype>(t));
  EXPECT_FALSE(out.empty()) << op << " " << attr;
  return out;
}

}  // namespace grt_test

#endif  // GRT_TESTS_KERNELS_KERNEL_TEST_UTIL_H_
