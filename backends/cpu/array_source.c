/* Sources and element-independent fills: Const, Placeholder, NoOp,
 * Identity (and StopGradient), ZerosLike, OnesLike, Fill. */
#include <string.h>

#include "backends/cpu/array_kernels.h"
#include "backends/cpu/cpu_util.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

/* The graph owns the value (possibly in a mapped file); the output shares it. */
grt_status* grt_array_const(grt_kernel_ctx* ctx) {
  const grt_attr_value* v;
  GRT_RETURN_IF_ERROR(grt_attr_get(grt_kernel_attr(ctx, "value"), "value", GRT_ATTR_TENSOR, &v));
  grt_kernel_set_output(ctx, 0, v->u.tensor);
  return NULL;
}

/* The executor feeds placeholders and never runs this when fed. */
grt_status* grt_array_placeholder(grt_kernel_ctx* ctx) {
  grt_dtype dt;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_type(ctx, "dtype", &dt));
  const grt_attr_value* sh = grt_kernel_attr(ctx, "shape");
  if (!sh || sh->type != GRT_ATTR_SHAPE || sh->u.shape.rank < 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "You must feed a value for placeholder tensor '%s' with dtype %s",
                     ctx->node->name, grt_dtype_name(dt));
  char buf[GRT_SHAPE_STR_MAX];
  return GRT_ERROR(INVALID_ARGUMENT,
                   "You must feed a value for placeholder tensor '%s' with dtype %s and shape %s",
                   ctx->node->name, grt_dtype_name(dt),
                   grt_shape_str(&sh->u.shape, buf, sizeof buf));
}

grt_status* grt_array_noop(grt_kernel_ctx* ctx) { return NULL; }

grt_status* grt_array_identity(grt_kernel_ctx* ctx) {
  const grt_tensor* in;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  grt_kernel_set_output(ctx, 0, (grt_tensor*)in);
  return NULL;
}

grt_status* grt_array_zeros_like(grt_kernel_ctx* ctx) {
  const grt_tensor* in;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &in->shape, &out));
  /* All-zero bytes are zero in every grt dtype. */
  memset(grt_tensor_data(out), 0, grt_tensor_byte_size(out));
  return NULL;
}

/* The bytes of the value 1 in dtype t (8 bytes of room). */
static void one_of(grt_dtype t, void* out) { grt_dtype_store_double(t, out, 0, 1.0); }

grt_status* grt_array_ones_like(grt_kernel_ctx* ctx) {
  const grt_tensor* in;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &in->shape, &out));
  uint64_t one = 0;
  one_of(in->dtype, &one);
  grt_array_fill_elems(grt_tensor_data(out), grt_tensor_num_elements(out), &one,
                       grt_dtype_size(in->dtype));
  return NULL;
}

grt_status* grt_array_fill(grt_kernel_ctx* ctx) {
  const grt_tensor *dims_t, *value;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &dims_t));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &value));
  char buf[GRT_SHAPE_STR_MAX];
  if (dims_t->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "dims must represent a vector, got shape %s",
                     grt_shape_str(&dims_t->shape, buf, sizeof buf));
  if (value->shape.rank != 0)
    return GRT_ERROR(INVALID_ARGUMENT, "value must represent a scalar, got shape %s",
                     grt_shape_str(&value->shape, buf, sizeof buf));
  grt_shape shape;
  GRT_RETURN_IF_ERROR(grt_cpu_read_dims(dims_t, "dims", &shape));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, value->dtype, &shape, &out));
  grt_array_fill_elems(grt_tensor_data(out), grt_tensor_num_elements(out), grt_tensor_data(value),
                       grt_dtype_size(value->dtype));
  return NULL;
}
