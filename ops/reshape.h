/* The shape arithmetic of Reshape, Squeeze and ExpandDims, shared by their
 * shape functions (ops/shape_reshape.c) and their kernels, so that what
 * validation predicts is what a kernel produces. */
#ifndef GRT_OPS_RESHAPE_H_
#define GRT_OPS_RESHAPE_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks Reshape's requested sizes dims[0..rank) and replaces their -1 by
 * the size that keeps the element count of an input shaped `in`, as
 * TensorFlow's kernel does: zero sizes are left out of both products, so
 * [0,3] -> [-1,0] gives [3,0]. While `in` is not fully known the -1 stays.
 * Errors (INVALID_ARGUMENT): "Only one input size may be -1, not both 0 and
 * 2", "Size 1 must be non-negative, not -3", a product above int64, and
 * sizes that cannot hold the input, worded as TensorFlow's shape inference
 * words it ("Cannot reshape a tensor with 6 elements to shape [4] (4
 * elements)") or, with `kernel_wording`, as its kernel does ("Input to
 * reshape is a tensor with 6 values, but the requested shape has 4"). */
GRT_MUST_USE grt_status* grt_reshape_resolve(const grt_shape* in, int32_t rank, int64_t* dims,
                                             bool kernel_wording);

/* Squeeze: `in` (known rank) without the listed axes, each in [-rank, rank)
 * and of size 1 (an unknown size is taken to be 1), or, with no axes
 * listed, without every size-1 dimension (an unknown size then makes the
 * result's rank unknown). */
GRT_MUST_USE grt_status* grt_squeeze_shape(const grt_shape* in, const int64_t* axes,
                                           int32_t n_axes, grt_shape* out);

/* ExpandDims: `in` (known rank) with a dimension of 1 inserted at `dim`, in
 * [-rank-1, rank]. */
GRT_MUST_USE grt_status* grt_expand_dims_shape(const grt_shape* in, int64_t dim, grt_shape* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_RESHAPE_H_ */
