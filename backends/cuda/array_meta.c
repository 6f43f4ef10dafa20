/* Ops on the GPU whose results are computed from shapes alone, on the host:
 * Shape, Size and Rank (their output is HostMemory; the input's elements,
 * in device memory, are never read) and BroadcastGradientArgs (every
 * argument in host memory). grt computes them for every backend
 * (grt/op_semantics.h), so results and messages are the CPU's. */
#include "cuda_internal.h"

static const grt_op_kernel kKernels[] = {
    {"Shape", grt_op_shape_compute, NULL, NULL, GRT_KERNEL_CHEAP},
    {"Size", grt_op_size_compute, NULL, NULL, GRT_KERNEL_CHEAP},
    {"Rank", grt_op_rank_compute, NULL, NULL, GRT_KERNEL_CHEAP},
    {"BroadcastGradientArgs", grt_op_broadcast_gradient_args_compute, NULL, NULL, GRT_KERNEL_CHEAP},
};

const grt_op_kernel* grt_cuda_array_meta_kernels(int* n) {
  *n = (int)(sizeof kKernels / sizeof kKernels[0]);
  return kKernels;
}
