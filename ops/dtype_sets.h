/* Dtype sets, written as the brace lists that op specs ("T: " GRT_TYPES_FLOAT
 * in ops/defs_*.c) and kernel support rows (kernels/support_*.c) read: one
 * vocabulary for what an op allows and what a device type's kernels cover.
 *
 * Named after TensorFlow's sets (numbertype, TF_CALL_GPU_NUMBER_TYPES, ...)
 * restricted to the dtypes grt has, members in grt_dtype order. A set that
 * only one row uses is written out in that row, in the same order. */
#ifndef GRT_OPS_DTYPE_SETS_H_
#define GRT_OPS_DTYPE_SETS_H_

/* floatingpointtype; TF_CALL_GPU_NUMBER_TYPES (half, bfloat16, float, double) */
#define GRT_TYPES_FLOAT "{float16, bfloat16, float32, float64}"
/* numbertype; TF_CALL_NUMBER_TYPES */
#define GRT_TYPES_NUMBER "{float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8}"
/* realnumbertype; TF_CALL_REAL_NUMBER_TYPES: for grt, which has no complex
 * or quantized types, the same as numbertype */
#define GRT_TYPES_REAL GRT_TYPES_NUMBER
/* the signed numbers (Neg, Abs, Pow) */
#define GRT_TYPES_SIGNED "{float16, bfloat16, float32, float64, int8, int16, int32, int64}"
/* the numbers without the 8-bit integers (TensorFlow has no int8 GEMM) */
#define GRT_TYPES_NUMBER_NO_INT8 "{float16, bfloat16, float32, float64, int16, int32, int64}"
/* index types: shapes, axes, permutations, sizes */
#define GRT_TYPES_INDEX "{int32, int64}"
/* the index types and int16 (StridedSlice's Index, ArgMax's Tidx and output_type) */
#define GRT_TYPES_INDEX_INT16 "{int16, int32, int64}"
#define GRT_TYPES_INT32 "{int32}"
#define GRT_TYPES_FLOAT_INT64 "{float16, bfloat16, float32, float64, int64}"
#define GRT_TYPES_FLOAT_INDEX "{float16, bfloat16, float32, float64, int32, int64}"
#define GRT_TYPES_FLOAT_INT64_BOOL "{float16, bfloat16, float32, float64, int64, bool}"
#define GRT_TYPES_FLOAT_INDEX_BOOL "{float16, bfloat16, float32, float64, int32, int64, bool}"
/* every dtype but int32, and the real numbers but int32: on GPUs TensorFlow
 * keeps int32 tensors in host memory, with a separate registration
 * (b/25387198) */
#define GRT_TYPES_NO_INT32 "{float16, bfloat16, float32, float64, int8, int16, int64, uint8, bool}"
#define GRT_TYPES_REAL_NO_INT32 "{float16, bfloat16, float32, float64, int8, int16, int64, uint8}"

#endif /* GRT_OPS_DTYPE_SETS_H_ */
