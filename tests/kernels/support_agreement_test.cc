// The CPU backend implements exactly what the CPU support data declares (the
// placer plans with the data; the executor runs with the kernels), and every
// registered op has a CPU kernel.
#include <gtest/gtest.h>

#include <set>
#include <string>

extern "C" {
#include "backends/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def.h"
}

TEST(SupportAgreement, CpuKernelsMatchCpuSupportRows) {
  ASSERT_EQ(grt_kernel_registry_status(), nullptr);
  std::set<std::string> declared, implemented;
  for (int32_t i = 0; i < grt_kernel_count(); i++) {
    const grt_kernel_def* k = grt_kernel_at(i);
    if (k->device == GRT_DEVICE_CPU) declared.insert(k->op);
  }
  for (int32_t i = 0; i < grt_cpu_kernel_count(); i++) {
    const grt_op_kernel* k = grt_cpu_kernel_at(i);
    EXPECT_TRUE(implemented.insert(k->op).second) << "two CPU kernels for " << k->op;
    EXPECT_NE(k->compute, nullptr) << k->op;
    EXPECT_EQ(k->create_state == nullptr, k->free_state == nullptr) << k->op;
  }
  for (const auto& op : declared)
    EXPECT_TRUE(implemented.count(op)) << "declared, no kernel: " << op;
  for (const auto& op : implemented)
    EXPECT_TRUE(declared.count(op)) << "kernel, not declared: " << op;
}

TEST(SupportAgreement, EveryRegisteredOpRunsOnCpu) {
  for (int32_t i = 0; i < grt_op_count(); i++) {
    const char* op = grt_op_at(i)->name;
    EXPECT_NE(grt_cpu_kernel_lookup(op), nullptr) << "no CPU kernel for " << op;
  }
}
