/* Internal: the pass table (passes.c) and each pass's entry point (one
 * pass_*.c file per pass). */
#ifndef GRT_OPTIMIZER_PASSES_H_
#define GRT_OPTIMIZER_PASSES_H_

#include "optimizer/pass.h"

extern const grt_opt_pass grt_opt_passes[];

GRT_MUST_USE grt_status* grt_opt_pass_identity(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_constant_folding(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_arithmetic(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_cse(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_symbolic_shapes(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_noop(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_layer_norm(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_gelu(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_attention(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_attention_heads(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_matmul_fusion(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_layout(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_bn_fold(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_conv_fusion(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_stem(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_input_scale(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_channel_mean(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_expand_depthwise(grt_opt_ctx* c);
GRT_MUST_USE grt_status* grt_opt_pass_depthwise_project(grt_opt_ctx* c);

#endif /* GRT_OPTIMIZER_PASSES_H_ */
