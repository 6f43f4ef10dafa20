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

/* A 3-D window (Conv3D, MaxPool3D, AvgPool3D): data_format NDHWC or NCDHW,
 * list attrs of 5 entries in that order, padding SAME or VALID only (as
 * TensorFlow's 3-D ops). Spatial values are {depth, height, width}. Kept
 * apart from the public grt_window, whose layout plugins compile against. */
typedef struct grt_window3d {
  bool ncdhw;
  int64_t ksize[3]; /* 0 unless GRT_WINDOW_KSIZE */
  int64_t strides[3];
  int64_t dilations[3]; /* 1 unless GRT_WINDOW_DILATIONS */
  grt_padding padding;
} grt_window3d;

/* Reads a 3-D op's window attrs (`what`: GRT_WINDOW_DILATIONS and/or
 * GRT_WINDOW_KSIZE), with the messages grt_window_read gives. */
GRT_MUST_USE grt_status* grt_window3d_read(const grt_node* node, const grt_op_def* def,
                                           uint32_t what, grt_window3d* out);

/* grt_window_dim for spatial dimension `dim` (0..2) of a 3-D window. */
GRT_MUST_USE grt_status* grt_window3d_dim(const grt_window3d* w, int32_t dim, int64_t in, int64_t k,
                                          int64_t* out, int64_t* before, int64_t* after);

/* Index of D (then H, W) and of C in a 5-D tensor of the window's format. */
static inline int32_t grt_window3d_d(const grt_window3d* w) { return w->ncdhw ? 2 : 1; }
static inline int32_t grt_window3d_c(const grt_window3d* w) { return w->ncdhw ? 1 : 4; }

/* FusedBatchNorm's data_format: NHWC and NCHW for 4-D tensors, NDHWC and
 * NCDHW for 5-D ones. *out_rank and *out_channel give the tensor's rank
 * and channel dimension; anything else is INVALID_ARGUMENT. */
GRT_MUST_USE grt_status* grt_batch_norm_format(const char* data_format, int32_t* out_rank,
                                               int32_t* out_channel);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_CONV_WINDOW_H_ */
