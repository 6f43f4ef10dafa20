/* grt's own direct convolution for few input channels (conv_stem.c): the
 * first convolution of a CNN on its NCHW image, read as it is, written in
 * the NHWC the next layer wants, with the bias, a residual and the
 * activation applied before the output is written. _FusedConv2D with
 * input_data_format "NCHW" and data_format "NHWC" (ops/defs_fused.c, made
 * by the optimizer's "stem" pass) runs here; nothing else does. DNNL.md,
 * "The stem", has what it measured. */
#ifndef GRT_BACKENDS_CPU_CONV_STEM_H_
#define GRT_BACKENDS_CPU_CONV_STEM_H_

#include <stdbool.h>
#include <stdint.h>

#include "backends/cpu/conv.h"
#include "backends/cpu/conv_depthwise.h"
#include "base/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most input channels the kernel takes: each output vector sums
 * kh x kw x ic broadcast inputs, and past a few channels oneDNN's
 * brgconv, whose reductions run over channel vectors, is the better
 * kernel. The optimizer's "stem" pass has the same bound. */
#define GRT_CPU_STEM_MAX_IC 4

/* Whether the kernel runs g: groups 1, 1 <= ic <= GRT_CPU_STEM_MAX_IC,
 * dilation 1, no zero-sized dimension. g describes the convolution in
 * NHWC (as grt_cpu_conv_make reads it with data_format NHWC). */
bool grt_cpu_stem_takes(const grt_cpu_conv* g);

/* out (NHWC [n, oh, ow, oc]) = the convolution of `in` (NCHW [n, ic, ih,
 * iw]) by `filter` (HWIO [kh, kw, ic, oc]) followed by `e` (any
 * grt_dw_act but GRT_DW_ACT_OTHER), its output rows in
 * one block per thread of the team oneDNN's convolution would have
 * (grt_cpu_conv_team_work, grt_dnnl_team_in), the caller included.
 * Cannot fail: it allocates nothing. */
void grt_cpu_stem_run(grt_threadpool* pool, const grt_cpu_conv* g, const float* in,
                      const float* filter, const grt_cpu_dw_epilogue* e, float* out);

/* The pointwise kernel: the same tiles for an NHWC 1x1 convolution of few
 * input channels (stride 1, no padding, one group), each output a sum of
 * K broadcast inputs times K filter vectors, the activation applied to
 * each finished output row while it is in cache. An expansion layer of a
 * MobileNet or EfficientNet (16 -> 96 channels at 112x112) writes a large
 * output for little arithmetic, so oneDNN's brgconv and a second pass of
 * SiLU rows cost about twice what one pass does. DNNL.md, "Pointwise". */
#define GRT_CPU_POINTWISE_MAX_IC 32
/* ... or any depth where the whole product is this small (a
 * squeeze-excitation block's 1x1 convolutions on one pixel per batch
 * element): oneDNN's call costs more than the arithmetic. */
#define GRT_CPU_POINTWISE_MAX_MACS (1 << 19)

/* Whether the pointwise kernel runs g: NHWC, groups 1, a 1x1 window,
 * stride 1, no padding, 1 <= ic <= GRT_CPU_POINTWISE_MAX_IC or at most
 * GRT_CPU_POINTWISE_MAX_MACS multiply-adds. */
bool grt_cpu_pointwise_takes(const grt_cpu_conv* g);

/* With _InputScale the filter is scaled per batch element, and oneDNN
 * reorders that copy on every call, where the pointwise kernel reads it as
 * it is: there it also takes these depths (EfficientNet's projections to
 * 24 or 40 channels at 56x56 and 28x28, which it runs as fast as oneDNN's
 * 1x1 convolution unscaled). DNNL.md, "Pointwise". */
#define GRT_CPU_POINTWISE_SCALED_MAX_IC 240
#define GRT_CPU_POINTWISE_SCALED_MAX_OC 48

/* grt_cpu_pointwise_takes, or the same geometry of at most
 * GRT_CPU_POINTWISE_SCALED_MAX_IC input and _OC output channels: whether
 * the kernel runs g with an input scale. */
bool grt_cpu_pointwise_takes_scaled(const grt_cpu_conv* g);

/* out (NHWC [n, h, w, oc]) = in (NHWC [n, h, w, ic]) times filter ([ic,
 * oc]) followed by e, rows split as grt_cpu_stem_run's. Cannot fail. */
void grt_cpu_pointwise_run(grt_threadpool* pool, const grt_cpu_conv* g, const float* in,
                           const float* filter, const grt_cpu_dw_epilogue* e, float* out);

/* One output row of g (g->ow pixels) from `in` (those pixels' g->ic
 * channels, in place) into `out`, on the calling thread: for a caller that
 * places the rows itself (conv_expand_dw.c). g is any 1x1 geometry (the
 * depth bound is not checked). Cannot fail. */
void grt_cpu_pointwise_row(const grt_cpu_conv* g, const float* in, const float* filter,
                           const grt_cpu_dw_epilogue* e, float* out);

/* Test hooks, process-wide. The vector width (floats) the kernel uses: 16
 * (AVX-512), 8 (AVX2), 4 (the baseline) or 0 for the widest the CPU runs;
 * -1 (and no change) for a width the CPU cannot run. */
int grt_cpu_stem_force_width(int width);
/* Calls of grt_cpu_stem_run so far. */
int64_t grt_cpu_stem_count(void);
/* Calls of grt_cpu_pointwise_run so far (grt_cpu_stem_force_width applies
 * to it too). */
int64_t grt_cpu_pointwise_count(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_CONV_STEM_H_ */
