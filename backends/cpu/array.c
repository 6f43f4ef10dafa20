/* The array family's kernel table: sources, identity, reshaping, joining,
 * slicing and metadata (TensorFlow's array_ops). The computes live in
 * array_*.c. Ops that only make a view or read a shape are cheap enough to
 * run inline. */
#include "backends/cpu/array_kernels.h"
#include "backends/cpu/cpu_kernels.h"

/* clang-format off */
#define K(op, fn) {op, fn, NULL, NULL, 0}
#define CHEAP(op, fn) {op, fn, NULL, NULL, GRT_KERNEL_CHEAP}

GRT_CPU_KERNEL_TABLE(array,
                     CHEAP("Placeholder", grt_array_placeholder),
                     CHEAP("Const", grt_array_const),
                     CHEAP("Identity", grt_array_identity),
                     CHEAP("StopGradient", grt_array_identity),
                     CHEAP("NoOp", grt_array_noop),
                     K("ZerosLike", grt_array_zeros_like),
                     K("OnesLike", grt_array_ones_like),
                     CHEAP("Reshape", grt_array_reshape),
                     CHEAP("Squeeze", grt_array_squeeze),
                     CHEAP("ExpandDims", grt_array_expand_dims),
                     K("Pack", grt_array_pack),
                     K("Unpack", grt_array_unpack),
                     K("ConcatV2", grt_array_concat_v2),
                     K("Split", grt_array_split),
                     K("Slice", grt_array_slice),
                     K("StridedSlice", grt_array_strided_slice),
                     K("Tile", grt_array_tile),
                     K("Transpose", grt_array_transpose),
                     K("Fill", grt_array_fill),
                     CHEAP("Shape", grt_op_shape_compute),
                     CHEAP("Size", grt_op_size_compute),
                     CHEAP("Rank", grt_op_rank_compute),
                     K("OneHot", grt_array_one_hot),
                     CHEAP("BroadcastGradientArgs", grt_op_broadcast_gradient_args_compute));
/* clang-format on */
