/* Kernels computed from shapes alone, on the host, for every backend
 * (grt/op_semantics.h: the CPU's kernel table and plugins name them):
 * Shape, Size and Rank read only their input's shape; their result is
 * int32 or int64 (out_type), and int32 results that do not fit fail as in
 * TensorFlow rather than wrapping. BroadcastGradientArgs reads its two
 * shapes from host memory and takes the axes from
 * grt_op_broadcast_gradient_args (ops/bcast_args.c). */
#include <stdint.h>
#include <stdio.h>

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

/* ---- BroadcastGradientArgs --------------------------------------------- */

static grt_status* emit(grt_kernel_ctx* ctx, int32_t k, grt_dtype t, const int64_t* v, int32_t n) {
  int64_t len = n;
  grt_shape s = grt_shape_make(1, &len);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, k, t, &s, &out));
  for (int32_t i = 0; i < n; i++) grt_dtype_store_int(t, grt_tensor_data(out), i, v[i]);
  return NULL;
}

/* BroadcastGradientArgs: both shapes and both results in host memory. */
grt_status* grt_op_broadcast_gradient_args_compute(grt_kernel_ctx* ctx) {
  if (ctx->n_inputs < 2 || !ctx->inputs[0] || !ctx->inputs[1])
    return GRT_ERROR(INTERNAL, "inputs 0 and 1 were not provided");
  const grt_tensor *t0 = ctx->inputs[0], *t1 = ctx->inputs[1];
  char buf[GRT_SHAPE_STR_MAX];
  if (t0->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "In[0] must be a vector.%s",
                     grt_shape_str(&t0->shape, buf, sizeof buf));
  if (t1->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "In[1] must be a vector.%s",
                     grt_shape_str(&t1->shape, buf, sizeof buf));
  int64_t x[GRT_BCAST_ARGS_MAX_DIMS], y[GRT_BCAST_ARGS_MAX_DIMS];
  int32_t nx, ny;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t0, "s0", x, GRT_BCAST_ARGS_MAX_DIMS, &nx));
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(t1, "s1", y, GRT_BCAST_ARGS_MAX_DIMS, &ny));
  grt_dtype t = t0->dtype;
  int64_t r0[GRT_BCAST_ARGS_MAX_DIMS], r1[GRT_BCAST_ARGS_MAX_DIMS];
  int32_t n0, n1;
  GRT_RETURN_IF_ERROR(grt_op_broadcast_gradient_args(x, nx, y, ny, r0, &n0, r1, &n1));
  GRT_RETURN_IF_ERROR(emit(ctx, 0, t, r0, n0));
  return emit(ctx, 1, t, r1, n1);
}
