/* The table of the CUDA indexing kernels (index_kernels.h). */
#include "index_kernels.h"

#include "cuda_internal.h"

#define K(op, fn) \
  { op, fn, NULL, NULL, 0 }
static const grt_op_kernel kKernels[] = {
    K("Range", grt_cuda_range),
    K("GatherV2", grt_cuda_gather_v2),
    K("GatherNd", grt_cuda_gather_nd),
    K("TensorScatterUpdate", grt_cuda_tensor_scatter_update),
    K("TensorScatterAdd", grt_cuda_tensor_scatter_add),
    K("TensorScatterMax", grt_cuda_tensor_scatter_max),
    K("TensorScatterMin", grt_cuda_tensor_scatter_min),
    K("Cumsum", grt_cuda_cumsum),
    K("Pad", grt_cuda_pad),
    K("PadV2", grt_cuda_pad_v2),
    K("MirrorPad", grt_cuda_mirror_pad),
    K("Where", grt_cuda_where),
    K("ReverseSequence", grt_cuda_reverse_sequence),
    K("TopKV2", grt_cuda_top_k),
    K("MatrixDeterminant", grt_cuda_matrix_determinant),
};

const grt_op_kernel* grt_cuda_index_kernels(int* n) {
  *n = (int)(sizeof kKernels / sizeof kKernels[0]);
  return kKernels;
}
