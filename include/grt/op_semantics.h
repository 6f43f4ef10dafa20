/* grt — op semantics every backend needs, exported once (included by
 * grt/backend.h). The arithmetic and the checks that decide an op's result
 * shape from its attrs and input shapes are grt's ops layer's, the ones
 * its shape functions and the CPU kernels use; a plugin's kernels call them
 * here instead of keeping copies, so every backend accepts and refuses the
 * same inputs with the same messages. Errors describe the fault without
 * the node name, as kernel errors do (the executor puts it in front).
 *
 * Added as new exports, without a GRT_BACKEND_API_VERSION change. */
#ifndef GRT_OP_SEMANTICS_H_
#define GRT_OP_SEMANTICS_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/backend.h"
#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sliding windows: convolutions and pooling -------------------------- */

typedef enum grt_padding { GRT_PADDING_VALID, GRT_PADDING_SAME, GRT_PADDING_EXPLICIT } grt_padding;

/* What to read: convolutions have dilations, pooling has ksize; some ops
 * accept EXPLICIT padding, others SAME and VALID only. */
enum {
  GRT_WINDOW_DILATIONS = 1u << 0,
  GRT_WINDOW_KSIZE = 1u << 1,
  GRT_WINDOW_EXPLICIT = 1u << 2,
};

/* Spatial values are {height, width}; pads {top, bottom, left, right}. */
typedef struct grt_window {
  bool nchw;
  int64_t ksize[2]; /* 0 unless GRT_WINDOW_KSIZE */
  int64_t strides[2];
  int64_t dilations[2]; /* 1 unless GRT_WINDOW_DILATIONS */
  grt_padding padding;
  int64_t pads[4]; /* EXPLICIT only */
} grt_window;

/* The window attrs of the kernel's node (data_format, strides, dilations,
 * ksize, padding, explicit_paddings; `what` says which apply, and
 * GRT_WINDOW_EXPLICIT is added for an op that has explicit_paddings),
 * checked as the op's shape function checks them: "attr 'strides' must
 * have 4 entries, got 3", "attr 'padding' must be SAME or VALID, got
 * 'EXPLICIT'", ... */
GRT_API GRT_MUST_USE grt_status* grt_op_window(const grt_kernel_ctx* ctx, uint32_t what,
                                               grt_window* out);

/* TensorFlow's output-size and padding arithmetic (GetWindowedOutputSize)
 * for spatial dimension `dim` (0: height, 1: width): input size `in` (-1:
 * unknown), window size k. *out is the output size (-1 when `in` is
 * unknown), *before and *after the padding. Fails (INVALID_ARGUMENT) when
 * the output size would be negative. */
GRT_API GRT_MUST_USE grt_status* grt_window_dim(const grt_window* w, int32_t dim, int64_t in,
                                                int64_t k, int64_t* out, int64_t* before,
                                                int64_t* after);

/* A 2-D convolution's depths: input and filter 4-D ("input must be
 * 4-dimensional: [2,3]"), the filter [h, w, in, out]; a depthwise one needs
 * the input's depth in the filter ("input and filter must have the same
 * depth: 3 vs 2") and gives depth * out channels, a grouped one an input
 * depth divisible by the filter's ("input depth must be evenly divisible by
 * filter depth: 6 vs 4 (input [1,5,5,6], filter [3,3,4,2])") and output
 * channels divisible by the groups. *groups and *out_depth are set. */
GRT_API GRT_MUST_USE grt_status* grt_op_conv_depths(const grt_shape* in, const grt_shape* filter,
                                                    bool nchw, bool depthwise, int64_t* groups,
                                                    int64_t* out_depth);

/* ---- broadcasting -------------------------------------------------------- */

/* NumPy broadcasting of two fully known shapes: *out is the result, or
 * INVALID_ARGUMENT "Incompatible shapes: [2,3] vs. [4]". */
GRT_API GRT_MUST_USE grt_status* grt_op_broadcast_shape(const grt_shape* a, const grt_shape* b,
                                                        grt_shape* out);

/* BroadcastGradientArgs on shapes given as values (s0[0..n0), s1[0..n1),
 * each at most GRT_BCAST_ARGS_MAX_DIMS): the axes of the broadcast result
 * along which each input was repeated, ascending, into r0 and r1 (room for
 * max(n0, n1) each) with their counts. TensorFlow's BCast: equal shapes
 * reduce over nothing; an axis where both are 1 is reduced for both.
 * INVALID_ARGUMENT "Incompatible shapes: [2,3] vs. [4]" otherwise. */
#define GRT_BCAST_ARGS_MAX_DIMS 64
GRT_API GRT_MUST_USE grt_status* grt_op_broadcast_gradient_args(const int64_t* s0, int32_t n0,
                                                                const int64_t* s1, int32_t n1,
                                                                int64_t* r0, int32_t* n_r0,
                                                                int64_t* r1, int32_t* n_r1);

/* ---- reshapes and indexing ----------------------------------------------- */

/* Reshape's requested sizes requested[0..n) for an input shaped `in`: at
 * most one -1, replaced by the size that keeps the element count (zero
 * sizes left out of both products), into *out. INVALID_ARGUMENT in the
 * kernel's words: "Only one input size may be -1, not both 0 and 2", "Size
 * 1 must be non-negative, not -3", "Input to reshape is a tensor with 6
 * values, but the requested shape has 4"; n above GRT_MAX_RANK too. */
GRT_API GRT_MUST_USE grt_status* grt_op_reshape_resolve(const grt_shape* in,
                                                        const int64_t* requested, int32_t n,
                                                        grt_shape* out);

/* Squeeze: `in` (known rank) without the listed axes, each in [-rank, rank)
 * and of size 1 ("Can not squeeze dim[1], expected a dimension of 1, got
 * 3"), or, with no axes listed, without every size-1 dimension. In a shape
 * function an unknown size (-1) is taken to be 1 where listed and makes
 * the rank unknown where not. */
GRT_API GRT_MUST_USE grt_status* grt_op_squeeze_shape(const grt_shape* in, const int64_t* axes,
                                                      int32_t n_axes, grt_shape* out);

/* ExpandDims: `in` (known rank) with a dimension of 1 inserted at `dim`, in
 * [-rank-1, rank] ("Tried to expand dim index 4 for tensor with 2
 * dimensions."). */
GRT_API GRT_MUST_USE grt_status* grt_op_expand_dims_shape(const grt_shape* in, int64_t dim,
                                                          grt_shape* out);

/* GatherV2's geometry: axis and batch_dims checked against the params and
 * indices shapes (TensorFlow's messages: "Expected axis in the range [-2,
 * 2), but got 3", "batch_dims (1) must be less than or equal to axis (0)",
 * ...), normalised, and the output shape params[:axis] +
 * indices[batch_dims:] + params[axis+1:]. */
typedef struct grt_gather_geometry {
  int32_t axis, batch_dims;
  grt_shape out;
} grt_gather_geometry;
GRT_API GRT_MUST_USE grt_status* grt_op_gather_geometry(const grt_shape* params,
                                                        const grt_shape* indices, int64_t axis,
                                                        int64_t batch_dims,
                                                        grt_gather_geometry* out);

/* ---- checks of particular ops ---------------------------------------------- */

/* ReverseSequence: seq_dim and batch_dim distinct and within the input's
 * rank ("seq_dim == batch_dim == 1", "seq_dim must be < input rank ( 3 vs.
 * 2)"), seq_lengths a vector as long as the batch axis ("seq_lengths must
 * be a vector of length 4"). */
GRT_API GRT_MUST_USE grt_status* grt_op_reverse_sequence_check(const grt_shape* in, int64_t seq_dim,
                                                               int64_t batch_dim,
                                                               const grt_shape* seq_lengths);
/* Entry b of seq_lengths, `len`: NULL when it is in [0, in.dims[seq_dim]],
 * else "seq_lens(1) > input.dims(1) or negative: 7". */
GRT_API GRT_MUST_USE grt_status* grt_op_reverse_sequence_length(const grt_shape* in,
                                                                int64_t seq_dim, int64_t b,
                                                                int64_t len);

/* MatrixDeterminant: [..., M, M] -> [...] ("Input must have rank >= 2, got
 * 1", "Input matrices must be square, got 2 != 3"). */
GRT_API GRT_MUST_USE grt_status* grt_op_determinant_shape(const grt_shape* in, grt_shape* out);

/* ---- kernels computed from shapes alone ---------------------------------- *
 * Shape, Size and Rank as every backend computes them, on the host: only
 * input 0's shape is read (its data may be in device memory) and output 0
 * is allocated with grt_kernel_alloc_output (HostMemory in every backend's
 * rows). BroadcastGradientArgs likewise, with every argument in host
 * memory. A backend's kernel table names them directly. */
GRT_API GRT_MUST_USE grt_status* grt_op_shape_compute(grt_kernel_ctx* ctx);
GRT_API GRT_MUST_USE grt_status* grt_op_size_compute(grt_kernel_ctx* ctx);
GRT_API GRT_MUST_USE grt_status* grt_op_rank_compute(grt_kernel_ctx* ctx);
GRT_API GRT_MUST_USE grt_status* grt_op_broadcast_gradient_args_compute(grt_kernel_ctx* ctx);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OP_SEMANTICS_H_ */
