/* _FusedExpandDepthwise on the CPU (conv_expand_dw.c): an inverted
 * residual block's 1x1 expansion and depthwise convolution in one pass,
 * the expanded tensor never written whole, and optionally the block's 1x1
 * projection (+ residual) too; or, without an expansion (num_expand 0),
 * a depthwise convolution and its projection. The op is grt's own, made by the
 * optimizer's expand_depthwise and depthwise_project passes
 * (optimizer/pass_expand_depthwise.c, pass_depthwise_project.c;
 * ops/defs_fused.c has its inputs and attrs). DNNL.md, "Expansion and
 * depthwise together", has what it measured. */
#ifndef GRT_BACKENDS_CPU_CONV_EXPAND_DW_H_
#define GRT_BACKENDS_CPU_CONV_EXPAND_DW_H_

#include <stdint.h>

#include "kernels/op_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

GRT_MUST_USE grt_status* grt_cpu_fused_expand_depthwise(grt_kernel_ctx* ctx);

/* Test hook: how many times the kernel ran (process-wide). */
int64_t grt_cpu_expand_dw_count(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_CONV_EXPAND_DW_H_ */
