/* Internal to the convolution family's CPU kernels (conv*.c, pool.c,
 * conv3d.c, pool3d.c, lrn.c, batchnorm.c), which run on oneDNN (backends/cpu/DNNL.md). */
#ifndef GRT_BACKENDS_CPU_CONV_H_
#define GRT_BACKENDS_CPU_CONV_H_

#include <stdbool.h>
#include <stdint.h>

#include "backends/cpu/dnnl_util.h"
#include "base/threadpool.h"
#include "kernels/op_kernel.h"
#include "ops/conv_window.h"

/* A 2-D convolution's sizes, from the attrs and the input and filter
 * shapes. Filters are HWIO: [kh, kw, ic / groups, oc]; a depthwise filter
 * [kh, kw, ic, multiplier] is the grouped case with one input channel per
 * group (groups = ic, oc = ic * multiplier). */
typedef struct grt_cpu_conv {
  grt_window w;
  int64_t n, ih, iw, ic;
  int64_t oh, ow, oc;
  int64_t kh, kw, groups;
  int64_t pad_l[2], pad_r[2];
} grt_cpu_conv;

/* Checks the shapes against each other and the attrs (TensorFlow's
 * messages) and fills *out. `in` is the input (NHWC or NCHW), `filter` the
 * filter shape. */
GRT_MUST_USE grt_status* grt_cpu_conv_make(const grt_kernel_ctx* ctx, const grt_shape* in,
                                           const grt_shape* filter, bool depthwise,
                                           grt_cpu_conv* out);

/* The shape of the convolution's input, output and filter as grt lays
 * them out. */
void grt_cpu_conv_input_shape(const grt_cpu_conv* g, grt_shape* out);
void grt_cpu_conv_output_shape(const grt_cpu_conv* g, grt_shape* out);

/* oneDNN descriptors of the activations (src, dst) in grt's layout and of
 * the filter in grt's HWIO layout (grouped when groups > 1). */
GRT_MUST_USE grt_status* grt_cpu_conv_mds(const grt_cpu_conv* g, dnnl_memory_desc_t* src,
                                          dnnl_memory_desc_t* dst, dnnl_memory_desc_t* filter);

/* The key a conv plan is cached under. Returns its length. */
int32_t grt_cpu_conv_key(const grt_cpu_conv* g, int64_t* key);
/* Its multiply-adds. */
double grt_cpu_conv_macs(const grt_cpu_conv* g);
/* The work that sizes its oneDNN call's team (grt_dnnl_team, dnnl_util.h)
 * and grt's depthwise kernel's, in multiply-adds of a dense convolution:
 * a depthwise one's (one input channel per group) count 4 each, as it
 * does 4 times fewer of them in the same time (DNNL.md, "grt's depthwise
 * convolution"). */
double grt_cpu_conv_team_work(const grt_cpu_conv* g);

/* Whether a fused convolution of g runs as oneDNN's Winograd convolution
 * in its blocked layout (conv_winograd.c): NHWC, one group, 3x3, stride and
 * dilation 1, channels in whole blocks of 16; not when the environment
 * variable GRT_CPU_WINOGRAD is "0" (read once) or a test switched it off.
 * Where oneDNN has no Winograd kernel for the shape the direct one runs. */
bool grt_cpu_conv_winograd_takes(const grt_cpu_conv* g);
/* Tests: the rule (true) or never (false), over the environment. */
void grt_cpu_conv_winograd_set(bool on);
/* Counts the Winograd convolutions run, for tests. */
void grt_cpu_conv_winograd_ran(void);
int64_t grt_cpu_conv_winograd_count(void);

/* For grt's own convolution kernels (conv_depthwise.c, conv_stem.c): calls
 * rows(ctx, r, r + 1) for every output row r of g's n * oh, cut into one
 * contiguous block per thread of the team oneDNN's convolution of g would
 * have (grt_dnnl_team_in over its team work), so a layer's split does not
 * change with the kernel that runs it, and checks the run's cancellation
 * between rows (the executor drops the output of a cancelled run).
 * grt_parallel_for would run the caller beside every worker of the pool
 * (three threads on the two cores of intra_op_threads=2, one of them
 * waiting for a core while the others wait for its shard) and split work
 * that does not pay for waking them (DNNL.md). */
void grt_cpu_conv_rows_parallel(grt_threadpool* pool, const grt_cpu_conv* g,
                                void (*rows)(const void* ctx, int64_t r0, int64_t r1),
                                const void* ctx);

/* The float32-only check every kernel here makes on its data type. */
GRT_MUST_USE grt_status* grt_cpu_conv_need_f32(const grt_kernel_ctx* ctx, grt_dtype t);

/* Reads a 4-element int32/int64 sizes input (Conv2DBackpropInput's
 * input_sizes, Conv2DBackpropFilter's filter_sizes, AvgPoolGrad's
 * orig_input_shape) as a shape. */
GRT_MUST_USE grt_status* grt_cpu_sizes_input(const grt_tensor* t, const char* what, grt_shape* out);

/* The same for the 3-D ops' 5-element sizes inputs (conv3d.c). */
GRT_MUST_USE grt_status* grt_cpu_sizes5_input(const grt_tensor* t, const char* what,
                                              grt_shape* out);

/* Kernels. */
GRT_MUST_USE grt_status* grt_cpu_conv2d(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_depthwise_conv2d(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_conv2d_backprop_input(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_conv2d_backprop_filter(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_max_pool(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_avg_pool(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_max_pool_grad(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_avg_pool_grad(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_conv3d(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_conv3d_backprop_input(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_conv3d_backprop_filter(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_max_pool3d(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_avg_pool3d(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_max_pool3d_grad(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_avg_pool3d_grad(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_lrn(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_lrn_grad(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_fused_batch_norm(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_cpu_fused_batch_norm_grad(grt_kernel_ctx* ctx);

#endif /* GRT_BACKENDS_CPU_CONV_H_ */
