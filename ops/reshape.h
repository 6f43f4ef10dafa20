/* The shape arithmetic of Reshape, Squeeze and ExpandDims, shared by their
 * shape functions (ops/shape_reshape.c) and their kernels, so that what
 * validation predicts is what a kernel produces. */
#ifndef GRT_OPS_RESHAPE_H_
#define GRT_OPS_RESHAPE_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/op_semantics.h"
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

/* Squeeze's and ExpandDims' shapes: grt_op_squeeze_shape and
 * grt_op_expand_dims_shape (grt/op_semantics.h), shared with plugins. */

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_RESHAPE_H_ */
