/* What the CUDA backend must run: TensorFlow's DEVICE_GPU registrations for
 * grt's ops, known here without a GPU so plans for GPU machines are right
 * on any machine. The backend implements exactly these rows.
 *
 * TensorFlow's recurring pattern: int32 tensors are not kept in GPU memory;
 * an op "on the GPU" with int32 data has a second registration whose
 * arguments all live in host memory (its kernel is the CPU one). A row
 * written with GRT_INT32_ON_HOST after its type attr's dtypes stands for
 * both (kernel_registry.h); the few int32 rows that keep some argument in
 * device memory (ZerosLike, OnesLike, Rank) are written out. Shape
 * arguments (reduction indices, dims, perm, begin/size) are host memory too.
 * Ops with no GPU registration at all here (Pow on int32, integer MatMul,
 * int32 variables, ...) land on the CPU. */
#include "kernels/kernel_table.h"
#include "ops/dtype_sets.h"

#define GPU(op, constraints, host) \
  { op, "GPU", constraints, host, 0 }
/* An element-wise op: device memory for `types`, host memory for int32. */
#define CWISE(op, types) GPU(op, "T: " types GRT_INT32_ON_HOST, "")
#define REDUCE(op, types) \
  GPU(op, "T: " types GRT_INT32_ON_HOST "; Tidx: " GRT_TYPES_INDEX, "reduction_indices")

static const grt_kernel_spec kRows[] = {
    /* array_ops */
    GPU("Placeholder", "", ""),
    GPU("Const", "dtype: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, ""),
    GPU("Identity", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, ""),
    GPU("StopGradient", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, ""),
    GPU("NoOp", "", ""),
    GPU("ZerosLike", "T: " GRT_TYPES_FLOAT_INT64_BOOL, ""),
    GPU("ZerosLike", "T: " GRT_TYPES_INT32, "y"),
    GPU("OnesLike", "T: " GRT_TYPES_FLOAT_INT64_BOOL, ""),
    GPU("OnesLike", "T: " GRT_TYPES_INT32, "y"),
    GPU("Reshape", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST "; Tshape: " GRT_TYPES_INDEX,
        "shape"),
    GPU("Squeeze", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, ""),
    GPU("ExpandDims", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST "; Tdim: " GRT_TYPES_INDEX, "dim"),
    GPU("Pack", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, ""),
    GPU("Unpack", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, ""),
    GPU("ConcatV2", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST "; Tidx: " GRT_TYPES_INDEX, "axis"),
    GPU("Split", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, "split_dim"),
    GPU("Slice", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST "; Index: " GRT_TYPES_INDEX,
        "begin, size"),
    GPU("StridedSlice", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST "; Index: " GRT_TYPES_INDEX,
        "begin, end, strides"),
    GPU("Tile",
        "T: {float16, bfloat16, float32, float64, int16, int32, int64, bool}; "
        "Tmultiples: " GRT_TYPES_INDEX,
        "multiples"),
    GPU("Transpose", "Tperm: " GRT_TYPES_INDEX, "perm"), /* every dtype, int32 in device memory */
    GPU("Fill", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST "; index_type: " GRT_TYPES_INDEX,
        "dims"),
    GPU("Shape", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, "output"),
    GPU("Size", "T: " GRT_TYPES_NO_INT32 GRT_INT32_ON_HOST, "output"),
    GPU("Rank", "T: " GRT_TYPES_REAL_NO_INT32, "output"),
    GPU("Rank", "T: {int32, bool}", "input, output"),
    GPU("OneHot", "T: " GRT_TYPES_FLOAT_INDEX_BOOL "; TI: {int32, int64, uint8}", "depth"),
    GPU("BroadcastGradientArgs", "T: " GRT_TYPES_INDEX, "s0, s1, r0, r1"),
    /* math_ops: element-wise */
    CWISE("Add", GRT_TYPES_FLOAT_INT64),
    CWISE("AddV2", GRT_TYPES_FLOAT_INT64),
    CWISE("Sub", GRT_TYPES_FLOAT_INT64),
    CWISE("Mul", GRT_TYPES_FLOAT_INT64),
    GPU("RealDiv", "T: " GRT_TYPES_FLOAT, ""),
    CWISE("Maximum", GRT_TYPES_FLOAT_INT64),
    CWISE("Minimum", GRT_TYPES_FLOAT_INT64),
    GPU("Pow", "T: " GRT_TYPES_FLOAT_INT64, ""),
    CWISE("SquaredDifference", GRT_TYPES_FLOAT_INT64),
    CWISE("Neg", GRT_TYPES_FLOAT_INT64),
    CWISE("Abs", GRT_TYPES_FLOAT_INT64),
    CWISE("Square", GRT_TYPES_FLOAT_INT64),
    GPU("Sqrt", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Rsqrt", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Exp", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Log", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Tanh", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Sigmoid", "T: " GRT_TYPES_FLOAT, ""),
    GPU("TanhGrad", "T: " GRT_TYPES_FLOAT, ""),
    GPU("SigmoidGrad", "T: " GRT_TYPES_FLOAT, ""),
    CWISE("Less", GRT_TYPES_REAL_NO_INT32),
    CWISE("Greater", GRT_TYPES_REAL_NO_INT32),
    CWISE("GreaterEqual", GRT_TYPES_REAL_NO_INT32),
    CWISE("Equal", GRT_TYPES_NO_INT32),
    GPU("LogicalNot", "", ""),
    GPU("Select", "T: " GRT_TYPES_FLOAT_INDEX_BOOL, ""),
    GPU("Cast", "", ""), /* every pair of dtypes, in device memory */
    GPU("AddN", "T: " GRT_TYPES_FLOAT_INT64 GRT_INT32_ON_HOST, ""),
    /* math_ops: products and reductions (cuBLAS: floating point only) */
    GPU("MatMul", "T: " GRT_TYPES_FLOAT, ""),
    GPU("BatchMatMulV2", "T: " GRT_TYPES_FLOAT, ""),
    REDUCE("Sum", GRT_TYPES_FLOAT_INT64),
    GPU("Mean", "T: " GRT_TYPES_FLOAT "; Tidx: " GRT_TYPES_INDEX, "reduction_indices"),
    REDUCE("Prod", GRT_TYPES_FLOAT_INT64),
    REDUCE("Max", GRT_TYPES_FLOAT_INT64),
    REDUCE("Min", GRT_TYPES_FLOAT_INT64),
    GPU("ArgMax",
        "T: " GRT_TYPES_FLOAT "; Tidx: " GRT_TYPES_INDEX "; output_type: " GRT_TYPES_INDEX,
        "dimension"),
    /* nn_ops */
    GPU("Relu", "T: " GRT_TYPES_FLOAT, ""),
    GPU("ReluGrad", "T: " GRT_TYPES_FLOAT, ""),
    GPU("BiasAdd", "T: " GRT_TYPES_FLOAT, ""),
    GPU("BiasAddGrad", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Softmax", "T: " GRT_TYPES_FLOAT, ""),
    GPU("SparseSoftmaxCrossEntropyWithLogits", "T: " GRT_TYPES_FLOAT "; Tlabels: " GRT_TYPES_INDEX,
        ""),
    GPU("SoftmaxCrossEntropyWithLogits", "T: " GRT_TYPES_FLOAT, ""),
    /* nn_ops: convolution, pooling, normalisation (cuDNN); sizes inputs in
     * host memory */
    GPU("Conv2D", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Conv2DBackpropInput", "T: " GRT_TYPES_FLOAT, "input_sizes"),
    GPU("Conv2DBackpropFilter", "T: " GRT_TYPES_FLOAT, "filter_sizes"),
    GPU("DepthwiseConv2dNative", "T: " GRT_TYPES_FLOAT, ""),
    GPU("MaxPool", "T: " GRT_TYPES_FLOAT, ""),
    GPU("AvgPool", "T: " GRT_TYPES_FLOAT, ""),
    GPU("MaxPoolGrad", "T: " GRT_TYPES_FLOAT, ""),
    GPU("AvgPoolGrad", "T: " GRT_TYPES_FLOAT, "orig_input_shape"),
    GPU("LRN", "T: {float32}", ""),
    GPU("LRNGrad", "T: {float32}", ""),
    GPU("FusedBatchNormV3", "T: {float16, bfloat16, float32}; U: {float32}", ""),
    GPU("FusedBatchNormGradV3", "T: {float16, bfloat16, float32}; U: {float32}", ""),
    /* the remapper's fused ops (cuBLAS / cuDNN with epilogues) */
    GPU("_FusedMatMul", "T: {float32}", ""),
    GPU("_FusedConv2D", "T: {float32}", ""),
    /* The sequence models' fusions (seq_fused.cu). */
    GPU("_LayerNorm", "T: {float32}", ""),
    GPU("_Gelu", "T: {float32}", ""),
    /* indexing ops (ops/defs_index.c): int32 data and every shape-like
     * argument (start/limit/delta, axis, k, paddings) in host memory */
    GPU("Range", "Tidx: {float32, float64, int64}" GRT_INT32_ON_HOST, "start, limit, delta"),
    GPU("GatherV2", "Tparams: " GRT_TYPES_FLOAT_INT64_BOOL "; Tindices: " GRT_TYPES_INDEX, "axis"),
    GPU("GatherNd", "Tparams: " GRT_TYPES_FLOAT_INDEX "; Tindices: " GRT_TYPES_INDEX, ""),
    GPU("TensorScatterUpdate", "T: " GRT_TYPES_FLOAT_INDEX_BOOL "; Tindices: " GRT_TYPES_INDEX, ""),
    GPU("TensorScatterAdd", "T: " GRT_TYPES_FLOAT_INDEX "; Tindices: " GRT_TYPES_INDEX, ""),
    GPU("TensorScatterMax", "T: " GRT_TYPES_FLOAT_INDEX "; Tindices: " GRT_TYPES_INDEX, ""),
    GPU("TensorScatterMin", "T: " GRT_TYPES_FLOAT_INDEX "; Tindices: " GRT_TYPES_INDEX, ""),
    GPU("Cumsum", "T: " GRT_TYPES_FLOAT_INDEX "; Tidx: " GRT_TYPES_INDEX, "axis"),
    GPU("TopKV2", "T: " GRT_TYPES_FLOAT_INDEX, "k"),
    /* Einsum: no GPU row (the CUDA plugin has no kernel; it runs on the CPU) */
    GPU("Pad", "T: " GRT_TYPES_FLOAT_INT64_BOOL GRT_INT32_ON_HOST "; Tpaddings: " GRT_TYPES_INDEX,
        "paddings"),
    GPU("PadV2", "T: " GRT_TYPES_FLOAT_INT64_BOOL GRT_INT32_ON_HOST "; Tpaddings: " GRT_TYPES_INDEX,
        "paddings"),
    GPU("MirrorPad", "T: " GRT_TYPES_FLOAT "; Tpaddings: " GRT_TYPES_INDEX, "paddings"),
    /* state_ops: variables only for the dtypes Assign supports there */
    GPU("VariableV2", "dtype: " GRT_TYPES_FLOAT_INT64_BOOL, ""),
    GPU("Variable", "dtype: " GRT_TYPES_FLOAT_INT64_BOOL, ""),
    GPU("Assign", "T: " GRT_TYPES_FLOAT_INT64_BOOL, ""),
    GPU("AssignAdd", "T: " GRT_TYPES_FLOAT_INT64, ""),
    GPU("AssignSub", "T: " GRT_TYPES_FLOAT_INT64, ""),
    /* random_ops */
    GPU("RandomUniform", "dtype: " GRT_TYPES_FLOAT "; T: " GRT_TYPES_INDEX, "shape"),
    GPU("RandomStandardNormal", "dtype: " GRT_TYPES_FLOAT "; T: " GRT_TYPES_INDEX, "shape"),
    GPU("TruncatedNormal", "dtype: " GRT_TYPES_FLOAT "; T: " GRT_TYPES_INDEX, "shape"),
    /* math_ops, bitwise_ops: ops added for ONNX import */
    GPU("Sin", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Cos", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Tan", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Asin", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Acos", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Atan", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Sinh", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Cosh", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Asinh", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Acosh", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Atanh", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Floor", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Ceil", "T: " GRT_TYPES_FLOAT, ""),
    GPU("Round", "T: " GRT_TYPES_FLOAT, ""),
    CWISE("Sign", GRT_TYPES_FLOAT_INT64),
    GPU("Erf", "T: " GRT_TYPES_FLOAT, ""),
    GPU("IsNan", "T: " GRT_TYPES_FLOAT, ""),
    GPU("IsInf", "T: " GRT_TYPES_FLOAT, ""),
    GPU("FloorMod", "T: {float32, float64}" GRT_INT32_ON_HOST, ""),
    GPU("TruncateMod", "T: {int32}", "x, y, z"),
    GPU("LeftShift", "T: {int8, int16, int32, int64, uint8}", ""),
    GPU("RightShift", "T: {int8, int16, int32, int64, uint8}", ""),
    GPU("ReverseSequence", "T: {float16, float32, float64}; Tlen: " GRT_TYPES_INDEX, ""),
    GPU("Where", "T: " GRT_TYPES_NO_INT32, ""),
    GPU("MatrixDeterminant", "T: {float32, float64}", ""),
    /* nccl_ops */
    GPU("NcclAllReduce", "T: {float16, float32, float64, int32, int64}", ""),
    /* training_ops */
    GPU("ApplyGradientDescent", "T: " GRT_TYPES_FLOAT, ""),
    GPU("ApplyMomentum", "T: " GRT_TYPES_FLOAT, ""),
    GPU("ApplyAdam", "T: " GRT_TYPES_FLOAT, ""),
};

GRT_KERNEL_TABLE(grt_kernels_gpu, "GPU", kRows);
