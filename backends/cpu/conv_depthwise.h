/* grt's own depthwise convolution (conv_depthwise.c): NHWC, float32,
 * channel multiplier 1, any kernel size, stride, dilation and padding,
 * with the bias, a residual and an activation applied before the output is
 * written. DepthwiseConv2dNative (conv.c) and _FusedDepthwiseConv2dNative
 * (conv_fused.c) run it where grt_cpu_dw_takes says so and oneDNN
 * otherwise; DNNL.md has what it measured. */
#ifndef GRT_BACKENDS_CPU_CONV_DEPTHWISE_H_
#define GRT_BACKENDS_CPU_CONV_DEPTHWISE_H_

#include <stdbool.h>
#include <stdint.h>

#include "backends/cpu/conv.h"
#include "base/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The activations the kernel applies itself (the fused ops' names in
 * conv_fused.c's table); DW_ACT_ELU and DW_ACT_OTHER it leaves to oneDNN
 * (grt's stem kernel, conv_stem.h, applies every one but OTHER). */
typedef enum grt_dw_act {
  GRT_DW_ACT_NONE = 0,
  GRT_DW_ACT_RELU,      /* x > 0 ? x : alpha x (alpha 0: Relu; LeakyRelu's) */
  GRT_DW_ACT_RELU6,     /* min(max(x, 0), 6) */
  GRT_DW_ACT_SIGMOID,   /* 1 / (1 + e^-x) */
  GRT_DW_ACT_TANH,      /* tanh x */
  GRT_DW_ACT_HARDSWISH, /* x min(max(x + 3, 0), 6) / 6 */
  GRT_DW_ACT_SWISH,     /* x / (1 + e^-x), SiLU */
  GRT_DW_ACT_ELU,       /* x > 0 ? x : e^x - 1 (the stem kernel's; not this one's) */
  GRT_DW_ACT_OTHER,
} grt_dw_act;

/* What follows the sums: out = act(sum + bias[c] (+ out, the residual
 * already copied there)). */
typedef struct grt_cpu_dw_epilogue {
  const float* bias; /* [C] or NULL */
  bool residual;
  grt_dw_act act;
  float alpha;
} grt_cpu_dw_epilogue;

/* Whether this kernel runs g with activation `act`: by default never (DNNL.md,
 * "grt's depthwise convolution", says why), or as grt_cpu_dw_set_kernel
 * or, before any call of it, the environment variable GRT_CPU_DEPTHWISE
 * ("own" or "onednn", read once) chose. */
bool grt_cpu_dw_takes(const grt_cpu_conv* g, grt_dw_act act);

/* out = the depthwise convolution of `in` (NHWC) by `filter` ([kh, kw, C,
 * 1]) followed by `e`, its output rows in one block per thread of a team
 * of at most grt_threadpool_size(pool) threads, the caller included (NULL:
 * inline), one thread per 2^17 of its multiply-adds as oneDNN's team for
 * it (grt_cpu_conv_team_work, grt_dnnl_team). g has no zero-sized dimension. Cannot fail: it
 * allocates nothing. */
void grt_cpu_dw_run(grt_threadpool* pool, const grt_cpu_conv* g, const float* in,
                    const float* filter, const grt_cpu_dw_epilogue* e, float* out);

/* The activation `name` names in _FusedConv2D's fused_ops (Relu, Relu6,
 * Elu, LeakyRelu, Sigmoid, Tanh, _HardSwish, _Swish) as grt's kernels
 * apply it: *act, and *alpha (0 for Relu), or *alpha_from_attr for
 * LeakyRelu, whose alpha is the node's attr; false for any other name.
 * Defined beside that table (conv_fused.c). */
bool grt_cpu_fused_act(const char* name, grt_dw_act* act, float* alpha, bool* alpha_from_attr);

/* Output row r of g (batch element r / oh, row r % oh) into out_row (its
 * ow x C floats, wherever the caller wants them: the NHWC output's row r,
 * or a row of its own that a projection reads), on the calling thread,
 * reading input row iy of that batch element at rows + (iy - first) * iw
 * * C for the rows its window reaches, wherever the caller keeps them
 * (conv_expand_dw.c's ring of expanded rows). Cannot fail. */
void grt_cpu_dw_row(const grt_cpu_conv* g, int64_t r, const float* rows, int64_t first,
                    const float* filter, const grt_cpu_dw_epilogue* e, float* out_row);

/* Test and benchmark hooks, process-wide. Which kernel runs the
 * depthwise convolutions it can: RULE (the default: grt_cpu_dw_takes'
 * rule), OWN (this one wherever it can) or DNNL (oneDNN always). */
typedef enum grt_dw_kernel {
  GRT_DW_KERNEL_RULE = 0,
  GRT_DW_KERNEL_OWN,
  GRT_DW_KERNEL_DNNL
} grt_dw_kernel;
void grt_cpu_dw_set_kernel(grt_dw_kernel k);

/* The vector width (floats) the kernel uses: 16 (AVX-512), 8 (AVX2), 4
 * (the baseline) or 0 for the widest the CPU runs. Returns -1 (and changes
 * nothing) for a width the CPU cannot run. */
int grt_cpu_dw_force_width(int width);

/* Calls of grt_cpu_dw_run so far. */
int64_t grt_cpu_dw_count(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_CONV_DEPTHWISE_H_ */
