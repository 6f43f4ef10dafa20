/* What the CPU backend runs: TensorFlow's DEVICE_CPU registrations for
 * grt's ops. A row without constraints covers every dtype the op itself
 * allows; constraints appear where TensorFlow's CPU kernels cover fewer.
 * Host memory is not listed: on the CPU everything is in host memory. */
#include "kernels/kernel_table.h"
#include "ops/dtype_sets.h"

#define ANY(op) \
  { op, "CPU", "", "", 0 }
#define ONLY(op, constraints) \
  { op, "CPU", constraints, "", 0 }

static const grt_kernel_spec kRows[] = {
    /* array_ops */
    ANY("Placeholder"),
    ANY("Const"),
    ANY("Identity"),
    ANY("StopGradient"),
    ANY("NoOp"),
    ANY("ZerosLike"),
    ANY("OnesLike"),
    ANY("Reshape"),
    ANY("Squeeze"),
    ANY("ExpandDims"),
    ANY("Pack"),
    ANY("Unpack"),
    ANY("ConcatV2"),
    ANY("Split"),
    ANY("Slice"),
    ANY("StridedSlice"),
    ANY("Tile"),
    ANY("Transpose"),
    ANY("Fill"),
    ANY("Shape"),
    ANY("Size"),
    ANY("Rank"),
    ANY("OneHot"),
    ANY("BroadcastGradientArgs"),
    /* math_ops: element-wise */
    ANY("Add"),
    ANY("AddV2"),
    ANY("Sub"),
    ANY("Mul"),
    ONLY("RealDiv", "T: " GRT_TYPES_FLOAT), /* integer division is Div/FloorDiv in TensorFlow */
    ANY("Maximum"),
    ANY("Minimum"),
    ONLY("Pow", "T: " GRT_TYPES_FLOAT_INDEX),
    ANY("SquaredDifference"),
    ANY("Neg"),
    ANY("Abs"),
    ANY("Square"),
    ANY("Sqrt"),
    ANY("Rsqrt"),
    ANY("Exp"),
    ANY("Log"),
    ANY("Tanh"),
    ANY("Sigmoid"),
    ANY("TanhGrad"),
    ANY("SigmoidGrad"),
    ANY("Less"),
    ANY("Greater"),
    ANY("GreaterEqual"),
    ANY("Equal"),
    ANY("LogicalNot"),
    ANY("Select"),
    ANY("Cast"),
    ANY("AddN"),
    /* math_ops: products and reductions (no int8/uint8 GEMM in TensorFlow) */
    ONLY("MatMul", "T: " GRT_TYPES_NUMBER_NO_INT8),
    ONLY("BatchMatMulV2", "T: " GRT_TYPES_NUMBER_NO_INT8),
    ANY("Sum"),
    ANY("Mean"),
    ANY("Prod"),
    ANY("Max"),
    ANY("Min"),
    ANY("ArgMax"),
    /* nn_ops */
    ANY("Relu"),
    ANY("ReluGrad"),
    ANY("BiasAdd"),
    ANY("BiasAddGrad"),
    ANY("Softmax"),
    ANY("SparseSoftmaxCrossEntropyWithLogits"),
    ANY("SoftmaxCrossEntropyWithLogits"),
    /* nn_ops: convolution, pooling, normalisation (oneDNN, float32 only:
     * TensorFlow's CPU kernels also take half types and float64) */
    ONLY("Conv2D", "T: {float32}"),
    ONLY("Conv2DBackpropInput", "T: {float32}"),
    ONLY("Conv2DBackpropFilter", "T: {float32}"),
    ONLY("DepthwiseConv2dNative", "T: {float32}"),
    ONLY("MaxPool", "T: {float32}"),
    ONLY("AvgPool", "T: {float32}"),
    ONLY("MaxPoolGrad", "T: {float32}"),
    ONLY("AvgPoolGrad", "T: {float32}"),
    ONLY("LRN", "T: {float32}"),
    ONLY("LRNGrad", "T: {float32}"),
    ONLY("FusedBatchNormV3", "T: {float32}; U: {float32}"),
    ONLY("FusedBatchNormGradV3", "T: {float32}; U: {float32}"),
    /* state_ops */
    ANY("VariableV2"),
    ANY("Variable"),
    ANY("Assign"),
    ANY("AssignAdd"),
    ANY("AssignSub"),
    /* random_ops */
    ANY("RandomUniform"),
    ANY("RandomStandardNormal"),
    ANY("TruncatedNormal"),
    /* training_ops: TensorFlow registers the optimizers for float types only */
    ONLY("ApplyGradientDescent", "T: " GRT_TYPES_FLOAT),
    ONLY("ApplyMomentum", "T: " GRT_TYPES_FLOAT),
    ONLY("ApplyAdam", "T: " GRT_TYPES_FLOAT),
    /* math_ops, bitwise_ops: ops added for ONNX import (TensorFlow's CPU
     * registrations: Round and Sign without int8/int16, TruncateMod
     * int32/int64/float32/float64) */
    ANY("Sin"),
    ANY("Cos"),
    ANY("Tan"),
    ANY("Asin"),
    ANY("Acos"),
    ANY("Atan"),
    ANY("Sinh"),
    ANY("Cosh"),
    ANY("Asinh"),
    ANY("Acosh"),
    ANY("Atanh"),
    ANY("Floor"),
    ANY("Ceil"),
    ANY("Erf"),
    ANY("IsNan"),
    ANY("IsInf"),
    ONLY("Round", "T: {float16, bfloat16, float32, float64, int32, int64}"),
    ONLY("Sign", "T: {float16, bfloat16, float32, float64, int32, int64}"),
    ANY("FloorMod"),
    ONLY("TruncateMod", "T: {int32, int64, float32, float64}"),
    ANY("LeftShift"),
    ANY("RightShift"),
    ANY("ReverseSequence"),
    ANY("Where"),
    ONLY("MatrixDeterminant", "T: {float32, float64}"),
    /* indexing ops (ops/defs_index.c) */
    ANY("Range"),
    ANY("GatherV2"),
    ANY("GatherNd"),
    ANY("TensorScatterUpdate"),
    ANY("TensorScatterAdd"),
    ANY("TensorScatterMax"),
    ANY("TensorScatterMin"),
    ANY("Cumsum"),
    ANY("TopKV2"),
    ANY("Einsum"),
    ANY("Pad"),
    ANY("PadV2"),
    ANY("MirrorPad"),
    /* collective ops (ops/defs_collective.c) */
    ANY("NcclAllReduce"),
    /* remapper fusions (grt's session makes them) */
    ONLY("_FusedMatMul", "T: {float32}"),
    ONLY("_FusedConv2D", "T: {float32}"),
    ONLY("_FusedDepthwiseConv2dNative", "T: {float32}"),
};

GRT_KERNEL_TABLE(grt_kernels_cpu, "CPU", kRows);
