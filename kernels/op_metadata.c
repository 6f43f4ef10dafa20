/* Kernels that read only their input's shape: Shape, Size, Rank, computed
 * on the host for every backend (grt/op_semantics.h: the CPU's kernel
 * table and plugins name them). The result is int32 or int64 (out_type);
 * int32 results that do not fit fail as in TensorFlow rather than
 * wrapping. */
#include <stdint.h>

#include "grt/op_semantics.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "kernels/op_kernel.h"
#include "ops/graph.h"

static grt_status* input0(const grt_kernel_ctx* ctx, const grt_tensor** out) {
  if (ctx->n_inputs < 1 || !ctx->inputs[0]) return GRT_ERROR(INTERNAL, "input 0 was not provided");
  *out = ctx->inputs[0];
  return NULL;
}

static grt_status* out_type(grt_kernel_ctx* ctx, grt_dtype* out) {
  *out = ctx->node->sig.n_outputs > 0 ? ctx->node->sig.output_types[0] : GRT_DTYPE_INVALID;
  if (*out != GRT_INT32 && *out != GRT_INT64)
    return GRT_ERROR(INVALID_ARGUMENT, "out_type must be int32 or int64, got %s",
                     grt_dtype_name(*out));
  return NULL;
}

grt_status* grt_op_shape_compute(grt_kernel_ctx* ctx) {
  const grt_tensor* in = NULL;
  GRT_RETURN_IF_ERROR(input0(ctx, &in));
  grt_dtype t;
  GRT_RETURN_IF_ERROR(out_type(ctx, &t));
  int64_t rank = in->shape.rank;
  grt_shape s = grt_shape_make(1, &rank);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t, &s, &out));
  void* d = grt_tensor_data(out);
  for (int32_t i = 0; i < in->shape.rank; i++) {
    int64_t v = in->shape.dims[i];
    if (t == GRT_INT32 && v > INT32_MAX)
      return GRT_ERROR(INVALID_ARGUMENT, "Shape output type is 32-bit but dim %d is %lld", (int)i,
                       (long long)v);
    grt_dtype_store_int(t, d, i, v);
  }
  return NULL;
}

grt_status* grt_op_size_compute(grt_kernel_ctx* ctx) {
  const grt_tensor* in = NULL;
  GRT_RETURN_IF_ERROR(input0(ctx, &in));
  grt_dtype t;
  GRT_RETURN_IF_ERROR(out_type(ctx, &t));
  int64_t n = grt_shape_num_elements(&in->shape);
  if (t == GRT_INT32 && n > INT32_MAX)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Number of elements was larger than representable by 32-bit output type");
  grt_shape s = grt_shape_scalar();
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t, &s, &out));
  grt_dtype_store_int(t, grt_tensor_data(out), 0, n);
  return NULL;
}

grt_status* grt_op_rank_compute(grt_kernel_ctx* ctx) {
  const grt_tensor* in = NULL;
  GRT_RETURN_IF_ERROR(input0(ctx, &in));
  grt_shape s = grt_shape_scalar();
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_INT32, &s, &out));
  *(int32_t*)grt_tensor_data(out) = in->shape.rank;
  return NULL;
}
