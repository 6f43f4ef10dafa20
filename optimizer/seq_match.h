/* Internal: the small pattern tests the fusions share: the sequence
 * models' (pass_layer_norm.c, pass_gelu.c, pass_matmul_fusion.c) and the
 * inverted residual block's (pass_expand_depthwise.c,
 * pass_depthwise_project.c), and the one edit the block passes share.
 * They read the graph as it was when the pass began (pass.h). */
#ifndef GRT_OPTIMIZER_SEQ_MATCH_H_
#define GRT_OPTIMIZER_SEQ_MATCH_H_

#include <stdbool.h>
#include <stdint.h>

#include "optimizer/pass.h"

/* Where a value comes from: output `port` of node `node`. */
typedef struct {
  int32_t node;
  int32_t port;
} grt_sm_value;

/* Input k of node i, or {-1, -1}. */
grt_sm_value grt_sm_input(const grt_opt_ctx* c, int32_t i, int32_t k);
bool grt_sm_same(grt_sm_value a, grt_sm_value b);
/* Whether node i runs op `op` (one of the NULL-terminated `ops` for _any). */
bool grt_sm_is(const grt_opt_ctx* c, int32_t i, const char* op);
bool grt_sm_is_any(const grt_opt_ctx* c, int32_t i, const char* const* ops);
/* A node a fusion may swallow: live, not fixed, float32 output 0 its only
 * output, read by exactly one data input and no control edge, waiting on
 * none, on `like`'s device. */
bool grt_sm_inner(const grt_opt_ctx* c, int32_t i, int32_t like);
/* The one data use of node i (grt_sm_inner holds), as a node index. */
int32_t grt_sm_only_use(const grt_opt_ctx* c, int32_t i);
/* A float32 Const of one element: its value in *out. */
bool grt_sm_const_scalar(const grt_opt_ctx* c, int32_t i, float* out);
/* Whether the binary node i reads `x` on one side and a float32 Const
 * scalar within `tol` (relative) of `want` on the other. */
bool grt_sm_binary_const(const grt_opt_ctx* c, int32_t i, grt_sm_value x, float want, float tol);
/* For binary node i reading `x` on one side: the other side, else {-1, -1}. */
grt_sm_value grt_sm_other(const grt_opt_ctx* c, int32_t i, grt_sm_value x);

/* A fused convolution's epilogue that grt's row kernels apply: fused_ops
 * [BiasAdd (, Add) (, an activation grt_opt_row_act names)], its args (the
 * bias, and the residual with Add) the inputs after the filter. *residual:
 * whether Add is there; *act: the activation, "" for none. False for
 * anything else. */
bool grt_sm_bias_epilogue(const grt_node* n, bool* residual, const char** act);
/* The activation after BiasAdd in n's fused_ops ("" for none), or NULL
 * for any other epilogue than [BiasAdd (, activation)]. */
const char* grt_sm_bias_act(const grt_node* n);
/* Whether node i is a depthwise convolution the block passes fuse: a live,
 * not fixed _FusedDepthwiseConv2dNative, float32, NHWC, fused_ops
 * [BiasAdd (, activation)], num_means 0 or 1, its filter's shape known
 * and a multiplier of 1. */
bool grt_sm_depthwise(const grt_opt_ctx* c, int32_t i);
/* The one edit both block passes make of such a depthwise convolution d:
 * its attrs onto the _FusedExpandDepthwise `to` (window attrs, T,
 * num_means, leakyrelu_alpha), its fused_ops' activation as `act`. */
GRT_MUST_USE grt_status* grt_sm_take_depthwise_attrs(grt_opt_ctx* c, int32_t to, int32_t d);
/* The filter's shape [1, 1, K >= 1, C] when node i is a _FusedConv2D that
 * grt's pointwise row kernel could run: live, not fixed, float32, NHWC
 * with no input_data_format, strides of 1 and no padding; else NULL. */
const grt_shape* grt_sm_pointwise_conv(const grt_opt_ctx* c, int32_t i);

#endif /* GRT_OPTIMIZER_SEQ_MATCH_H_ */
