/* The sliding-window attrs of convolutions and pooling (data_format,
 * strides, dilations, ksize, padding, explicit_paddings), read and checked
 * once for shape functions and kernels alike, and TensorFlow's output-size
 * and padding arithmetic (GetWindowedOutputSizeVerbose). */
#ifndef GRT_OPS_CONV_WINDOW_H_
#define GRT_OPS_CONV_WINDOW_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/op_semantics.h"
#include "grt/status.h"
#include "ops/graph.h"
#include "ops/op_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* grt_padding, grt_window, the GRT_WINDOW_* flags and grt_window_dim are
 * public (grt/op_semantics.h), so plugins share this arithmetic. */

/* Reads node's attrs (def gives the defaults). Errors say which attr is
 * wrong and why, in TensorFlow's words where it has them; the caller puts
 * the node in front. */
GRT_MUST_USE grt_status* grt_window_read(const grt_node* node, const grt_op_def* def, uint32_t what,
                                         grt_window* out);

/* Index of H, W and C in a 4-D tensor of the window's format. */
static inline int32_t grt_window_h(const grt_window* w) { return w->nchw ? 2 : 1; }
static inline int32_t grt_window_c(const grt_window* w) { return w->nchw ? 1 : 3; }

/* FusedBatchNorm's data_format: NHWC and NCHW for 4-D tensors, NDHWC and
 * NCDHW for 5-D ones. *out_rank and *out_channel give the tensor's rank
 * and channel dimension; anything else is INVALID_ARGUMENT. */
GRT_MUST_USE grt_status* grt_batch_norm_format(const char* data_format, int32_t* out_rank,
                                               int32_t* out_channel);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_CONV_WINDOW_H_ */
