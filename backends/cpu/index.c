/* The indexing family's kernel table (ops/defs_index.c): Range, the
 * gathers, TensorScatter*, Cumsum, TopKV2, Einsum and the pads. */
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/index_kernels.h"

/* clang-format off */
#define K(op, fn) {op, fn, NULL, NULL, 0}

GRT_CPU_KERNEL_TABLE(index,
                     K("Range", grt_index_range),
                     K("GatherV2", grt_index_gather_v2),
                     K("GatherNd", grt_index_gather_nd),
                     K("TensorScatterUpdate", grt_index_tensor_scatter),
                     K("TensorScatterAdd", grt_index_tensor_scatter),
                     K("TensorScatterMax", grt_index_tensor_scatter),
                     K("TensorScatterMin", grt_index_tensor_scatter),
                     K("Cumsum", grt_index_cumsum),
                     K("TopKV2", grt_index_top_k),
                     K("Einsum", grt_index_einsum),
                     K("Pad", grt_index_pad),
                     K("PadV2", grt_index_pad),
                     K("MirrorPad", grt_index_pad));
/* clang-format on */
