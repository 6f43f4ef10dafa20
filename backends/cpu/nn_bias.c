/* BiasAdd and BiasAddGrad: a 1-D bias along the channel dimension, which is
 * the last one for data_format NHWC and dimension 1 for NCHW. BiasAdd is
 * Add broadcasting the bias as [C] (NHWC) or [C, 1, ..., 1] (NCHW);
 * BiasAddGrad sums every other dimension. */
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/elementwise.h"
#include "backends/cpu/nn.h"
#include "backends/cpu/reduce.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/data_format.h"

/* The channel dimension of a value of rank >= 2. */
static grt_status* channel_dim(const grt_kernel_ctx* ctx, const grt_tensor* value, int32_t* out) {
  char buf[GRT_SHAPE_STR_MAX];
  if (value->shape.rank < 2)
    return GRT_ERROR(INVALID_ARGUMENT, "Input tensor must be at least 2D: %s",
                     grt_cpu_shape_str(&value->shape, buf));
  const char* fmt;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_string(ctx, "data_format", &fmt));
  return grt_data_format_channel(fmt, value->shape.rank, out);
}

grt_status* grt_cpu_bias_add(grt_kernel_ctx* ctx) {
  const grt_tensor* value = ctx->inputs[0];
  const grt_tensor* bias = ctx->inputs[1];
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  int32_t ch = 0;
  GRT_RETURN_IF_ERROR(channel_dim(ctx, value, &ch));
  if (bias->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "Biases must be 1D: %s", grt_cpu_shape_str(&bias->shape, a));
  if (bias->shape.dims[0] != value->shape.dims[ch])
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Must provide as many biases as the last dimension of the input tensor: "
                     "%s vs. %s",
                     grt_cpu_shape_str(&bias->shape, a), grt_cpu_shape_str(&value->shape, b));
  if (bias->dtype != value->dtype)
    return GRT_ERROR(INVALID_ARGUMENT, "value is %s but bias is %s", grt_dtype_name(value->dtype),
                     grt_dtype_name(bias->dtype));
  if (!grt_dtype_valid(value->dtype) || !grt_cpu_op_add.rows[value->dtype])
    return grt_cpu_no_kernel(ctx, value->dtype);
  /* The bias as a broadcastable operand: [C] then one 1 per dimension
   * after the channel. */
  grt_shape bs = {0};
  bs.dims[bs.rank++] = bias->shape.dims[0];
  for (int32_t i = ch + 1; i < value->shape.rank; i++) bs.dims[bs.rank++] = 1;
  grt_cpu_bcast plan;
  GRT_RETURN_IF_ERROR(grt_cpu_bcast_make(&value->shape, &bs, &plan));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, value->dtype, &value->shape, &out));
  return grt_cpu_binary_apply(ctx, &grt_cpu_op_add, &plan, value, bias, out);
}

grt_status* grt_cpu_bias_add_grad(grt_kernel_ctx* ctx) {
  const grt_tensor* grad = ctx->inputs[0];
  int32_t ch = 0;
  GRT_RETURN_IF_ERROR(channel_dim(ctx, grad, &ch));
  bool reduced[GRT_MAX_RANK];
  for (int32_t i = 0; i < grad->shape.rank; i++) reduced[i] = i != ch;
  grt_shape os = {1, {grad->shape.dims[ch]}};
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, grad->dtype, &os, &out));
  return grt_cpu_reduce(ctx, GRT_CPU_REDUCE_SUM, grad, reduced, out);
}
