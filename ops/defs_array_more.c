/* Array and linear-algebra ops added for ONNX import, with TensorFlow's
 * names, signatures and dtype sets (array_ops.cc, linalg_ops.cc; restricted
 * to grt's dtypes): ReverseSequence, Where (the coordinates of true or
 * non-zero elements) and MatrixDeterminant. Kernels:
 * backends/cpu/array_more*.c; gradients: ops/grad_array_more.c. */
#include "ops/defs.h"
#include "ops/grad.h"
#include "ops/shape_array_more.h"

static const grt_op_spec kRows[] = {
    {"ReverseSequence", "input: T, seq_lengths: Tlen", "output: T",
     "seq_dim: int; batch_dim: int = 0; T: type; Tlen: " GRT_TYPES_INDEX " = int64", 0,
     grt_infer_reverse_sequence},
    {"Where", "input: T", "index: int64",
     "T: {float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, bool} = bool", 0,
     grt_infer_where},
    {"MatrixDeterminant", "input: T", "output: T", "T: " GRT_TYPES_FLOAT, 0,
     grt_infer_matrix_determinant},
};

GRT_OP_TABLE_WITH_GRADS(grt_ops_array_more, "array_more", kRows, grt_grads_array_more);
