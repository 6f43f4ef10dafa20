/* Indexing ops: sequences, gathers, scatters into a copy, running sums,
 * top-k and padding. Names, input order, attrs and defaults follow
 * TensorFlow's array_ops.cc, math_ops.cc and nn_ops.cc (dtype sets
 * restricted to grt's dtypes). */
#include "ops/defs.h"
#include "ops/grad.h"
#include "ops/shape_index.h"

#define SCATTER_SIG "tensor: T, indices: Tindices, updates: T"
#define SCATTER_INDICES "Tindices: " GRT_TYPES_INDEX_INT16
#define PADDINGS "Tpaddings: " GRT_TYPES_INDEX " = int32"

static const grt_op_spec kRows[] = {
    {"Range", "start: Tidx, limit: Tidx, delta: Tidx", "output: Tidx",
     "Tidx: {bfloat16, float16, float32, float64, int8, int16, int32, int64} = int32", 0,
     grt_infer_range},
    {"GatherV2", "params: Tparams, indices: Tindices, axis: Taxis", "output: Tparams",
     "batch_dims: int = 0; Tparams: type; Tindices: " GRT_TYPES_INDEX_INT16
     "; Taxis: " GRT_TYPES_INDEX,
     0, grt_infer_gather_v2},
    {"GatherNd", "params: Tparams, indices: Tindices", "output: Tparams",
     "Tparams: type; Tindices: " GRT_TYPES_INDEX_INT16, 0, grt_infer_gather_nd},
    {"TensorScatterUpdate", SCATTER_SIG, "output: T", "T: type; " SCATTER_INDICES, 0,
     grt_infer_tensor_scatter},
    {"TensorScatterAdd", SCATTER_SIG, "output: T", "T: " GRT_TYPES_NUMBER "; " SCATTER_INDICES, 0,
     grt_infer_tensor_scatter},
    {"TensorScatterMax", SCATTER_SIG, "output: T", "T: " GRT_TYPES_NUMBER "; " SCATTER_INDICES, 0,
     grt_infer_tensor_scatter},
    {"TensorScatterMin", SCATTER_SIG, "output: T", "T: " GRT_TYPES_NUMBER "; " SCATTER_INDICES, 0,
     grt_infer_tensor_scatter},
    {"Cumsum", "x: T, axis: Tidx", "out: T",
     "exclusive: bool = false; reverse: bool = false; T: " GRT_TYPES_NUMBER
     "; Tidx: " GRT_TYPES_INDEX " = int32",
     0, grt_infer_cumsum},
    {"TopKV2", "input: T, k: Tk", "values: T, indices: index_type",
     "sorted: bool = true; T: " GRT_TYPES_REAL "; Tk: " GRT_TYPES_INDEX_INT16
     " = int32; index_type: " GRT_TYPES_INDEX_INT16 " = int32",
     0, grt_infer_top_k},
    {"Einsum", "inputs: N * T", "output: T", "equation: string; N: int >= 1; T: " GRT_TYPES_NUMBER,
     0, grt_infer_einsum},
    {"Pad", "input: T, paddings: Tpaddings", "output: T", "T: type; " PADDINGS, 0, grt_infer_pad},
    {"PadV2", "input: T, paddings: Tpaddings, constant_values: T", "output: T",
     "T: type; " PADDINGS, 0, grt_infer_pad},
    {"MirrorPad", "input: T, paddings: Tpaddings", "output: T",
     "T: type; " PADDINGS "; mode: string", 0, grt_infer_pad},
};

GRT_OP_TABLE_WITH_GRADS(grt_ops_index, "index", kRows, grt_grads_index);
