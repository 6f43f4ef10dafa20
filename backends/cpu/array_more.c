/* The kernel table of the ops added for ONNX import in
 * ops/defs_array_more.c (kernels in array_reverse_sequence.c,
 * array_where.c, matrix_determinant.c). */
#include "backends/cpu/array_more.h"
#include "backends/cpu/cpu_kernels.h"

#define K(op, fn) \
  { op, fn, NULL, NULL, 0 }
GRT_CPU_KERNEL_TABLE(array_more, K("ReverseSequence", grt_cpu_reverse_sequence),
                     K("Where", grt_cpu_where), K("MatrixDeterminant", grt_cpu_matrix_determinant));
