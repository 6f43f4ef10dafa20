/* Internal to the reduction CPU kernels (reduce*.c) and their users
 * (BiasAddGrad): reducing a tensor over a set of axes, and the kernels the
 * reduce family table lists. */
#ifndef GRT_BACKENDS_CPU_REDUCE_H_
#define GRT_BACKENDS_CPU_REDUCE_H_

#include <stdbool.h>

#include "kernels/op_kernel.h"

typedef enum grt_cpu_reducer {
  GRT_CPU_REDUCE_SUM,
  GRT_CPU_REDUCE_PROD,
  GRT_CPU_REDUCE_MAX, /* floats: NaN wins (TensorFlow's PropagateNaN) */
  GRT_CPU_REDUCE_MIN,
  GRT_CPU_REDUCE_MEAN, /* the sum divided by the count; integers truncate */
} grt_cpu_reducer;

/* Reduces `in` over the axes i with reduced[i] into `out`, which holds
 * the kept dimensions in order (any shape with that many elements) and has
 * in's dtype. Integer sums and products wrap; float16/bfloat16 accumulate
 * in float32. An empty reduction gives the identity (0, 1, -inf / lowest,
 * +inf / highest; Mean of nothing is NaN, or 0 for integers). Fails with
 * UNIMPLEMENTED for dtypes without a kernel (bool). */
GRT_MUST_USE grt_status* grt_cpu_reduce(grt_kernel_ctx* ctx, grt_cpu_reducer r,
                                        const grt_tensor* in, const bool* reduced, grt_tensor* out);

/* Kernels. */
GRT_MUST_USE grt_status* grt_cpu_sum(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_mean(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_prod(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_max(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_min(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_arg_max(grt_kernel_ctx* ctx);

#endif /* GRT_BACKENDS_CPU_REDUCE_H_ */
