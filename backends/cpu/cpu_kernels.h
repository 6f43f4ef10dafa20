/* The CPU backend's kernels, by op name.
 *
 * Each family file (elementwise.c, reduce.c, nn.c, array.c, matmul.c,
 * random.c, state.c, training.c) defines one table
 *   const grt_op_kernel grt_cpu_kernels_<family>[];
 *   const int32_t grt_cpu_kernels_<family>_count;
 * and cpu_kernels.c gathers them. The set must equal the CPU rows of the
 * support data (support_cpu.c); a test checks that. */
#ifndef GRT_BACKENDS_CPU_CPU_KERNELS_H_
#define GRT_BACKENDS_CPU_CPU_KERNELS_H_

#include <stdbool.h>
#include <stdint.h>

#include "kernels/op_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the table on first use; false when that ran out of memory (the
 * next call tries again). The calls below are empty until it succeeds. */
bool grt_cpu_kernels_ready(void);

/* The kernel for `op`, or NULL. Thread-safe. */
const grt_op_kernel* grt_cpu_kernel_lookup(const char* op);

int32_t grt_cpu_kernel_count(void);
const grt_op_kernel* grt_cpu_kernel_at(int32_t i);

#define GRT_CPU_KERNEL_FAMILY(family)                    \
  extern const grt_op_kernel grt_cpu_kernels_##family[]; \
  extern const int32_t grt_cpu_kernels_##family##_count

GRT_CPU_KERNEL_FAMILY(elementwise);
GRT_CPU_KERNEL_FAMILY(reduce);
GRT_CPU_KERNEL_FAMILY(nn);
GRT_CPU_KERNEL_FAMILY(array);
GRT_CPU_KERNEL_FAMILY(matmul);
GRT_CPU_KERNEL_FAMILY(random);
GRT_CPU_KERNEL_FAMILY(state);
GRT_CPU_KERNEL_FAMILY(training);
GRT_CPU_KERNEL_FAMILY(conv);
GRT_CPU_KERNEL_FAMILY(unary_math);
GRT_CPU_KERNEL_FAMILY(mod_shift);
GRT_CPU_KERNEL_FAMILY(array_more);
GRT_CPU_KERNEL_FAMILY(index);
GRT_CPU_KERNEL_FAMILY(collective);

#define GRT_CPU_KERNEL_TABLE(family, ...)                         \
  const grt_op_kernel grt_cpu_kernels_##family[] = {__VA_ARGS__}; \
  const int32_t grt_cpu_kernels_##family##_count =                \
      (int32_t)(sizeof(grt_cpu_kernels_##family) / sizeof(grt_op_kernel))

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_CPU_KERNELS_H_ */
