/* Array ops: sources, identity, reshaping, joining, slicing, metadata.
 * Names, input order, attrs and defaults follow TensorFlow's array_ops.cc
 * (dtype sets restricted to grt's dtypes). */
#include "ops/defs.h"
#include "ops/grad.h"
#include "ops/shape_fns.h"

static const grt_op_spec kRows[] = {
    {"Placeholder", "", "output: dtype",
     "dtype: type; shape: shape = unknown; dim_names: list(string) = []; onnx_name: string = ''", 0,
     grt_infer_placeholder},
    {"Const", "", "output: dtype", "value: tensor; dtype: type", 0, grt_infer_const},
    {"Identity", "input: T", "output: T", "T: type", 0, grt_infer_unchanged},
    {"StopGradient", "input: T", "output: T", "T: type", 0, grt_infer_unchanged},
    {"NoOp", "", "", "", 0, NULL},
    {"ZerosLike", "x: T", "y: T", "T: type", 0, grt_infer_unchanged},
    {"OnesLike", "x: T", "y: T", "T: type", 0, grt_infer_unchanged},
    {"Reshape", "tensor: T, shape: Tshape", "output: T",
     "T: type; Tshape: " GRT_TYPES_INDEX " = int32", 0, grt_infer_reshape},
    {"Squeeze", "input: T", "output: T", "T: type; squeeze_dims: list(int) >= 0 = []", 0,
     grt_infer_squeeze},
    {"ExpandDims", "input: T, dim: Tdim", "output: T", "T: type; Tdim: " GRT_TYPES_INDEX " = int32",
     0, grt_infer_expand_dims},
    {"Pack", "values: N * T", "output: T", "N: int >= 1; T: type; axis: int = 0", 0,
     grt_infer_pack},
    {"Unpack", "value: T", "output: num * T", "num: int >= 0; T: type; axis: int = 0", 0,
     grt_infer_unpack},
    {"ConcatV2", "values: N * T, axis: Tidx", "output: T",
     "N: int >= 2; T: type; Tidx: " GRT_TYPES_INDEX " = int32", 0, grt_infer_concat_v2},
    {"Split", "split_dim: int32, value: T", "output: num_split * T", "num_split: int >= 1; T: type",
     0, grt_infer_split},
    {"Slice", "input: T, begin: Index, size: Index", "output: T",
     "T: type; Index: " GRT_TYPES_INDEX, 0, grt_infer_slice},
    {"StridedSlice", "input: T, begin: Index, end: Index, strides: Index", "output: T",
     "T: type; Index: " GRT_TYPES_INDEX_INT16 "; begin_mask: int = 0; end_mask: int = 0; "
     "ellipsis_mask: int = 0; new_axis_mask: int = 0; shrink_axis_mask: int = 0",
     0, grt_infer_strided_slice},
    {"Tile", "input: T, multiples: Tmultiples", "output: T",
     "T: type; Tmultiples: " GRT_TYPES_INDEX " = int32", 0, grt_infer_tile},
    {"Transpose", "x: T, perm: Tperm", "y: T", "T: type; Tperm: " GRT_TYPES_INDEX " = int32", 0,
     grt_infer_transpose},
    {"Fill", "dims: index_type, value: T", "output: T",
     "T: type; index_type: " GRT_TYPES_INDEX " = int32", 0, grt_infer_fill},
    {"Shape", "input: T", "output: out_type", "T: type; out_type: " GRT_TYPES_INDEX " = int32",
     GRT_OP_METADATA, grt_infer_shape_op},
    {"Size", "input: T", "output: out_type", "T: type; out_type: " GRT_TYPES_INDEX " = int32",
     GRT_OP_METADATA, grt_infer_size_op},
    {"Rank", "input: T", "output: int32", "T: type", GRT_OP_METADATA, grt_infer_rank_op},
    {"OneHot", "indices: TI, depth: int32, on_value: T, off_value: T", "output: T",
     "axis: int = -1; T: type; TI: {int8, int32, int64, uint8} = int64", 0, grt_infer_one_hot},
    {"BroadcastGradientArgs", "s0: T, s1: T", "r0: T, r1: T", "T: " GRT_TYPES_INDEX " = int32", 0,
     grt_infer_broadcast_gradient_args},
};

GRT_OP_TABLE_WITH_GRADS(grt_ops_array, "array", kRows, grt_grads_array);
