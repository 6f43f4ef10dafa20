/* CPU kernels of the ops in ops/defs_array_more.c (the table is
 * array_more.c). */
#ifndef GRT_BACKENDS_CPU_ARRAY_MORE_H_
#define GRT_BACKENDS_CPU_ARRAY_MORE_H_

#include "kernels/op_kernel.h"

GRT_MUST_USE grt_status* grt_cpu_reverse_sequence(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_where(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_matrix_determinant(grt_kernel_ctx* ctx);

#endif /* GRT_BACKENDS_CPU_ARRAY_MORE_H_ */
