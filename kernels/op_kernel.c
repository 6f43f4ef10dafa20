#include "kernels/op_kernel.h"

#include "base/cancel.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

grt_status* grt_kernel_alloc_output(grt_kernel_ctx* ctx, int32_t k, grt_dtype dtype,
                                    const grt_shape* shape, grt_tensor** out) {
  if (k < 0 || k >= ctx->n_outputs)
    return GRT_ERROR(INTERNAL, "kernel asked for output %d of %d", (int)k, (int)ctx->n_outputs);
  bool host = k < 64 && (ctx->host_outputs >> k) & 1;
  grt_allocator* a = host ? ctx->host_allocator : ctx->allocator;
  grt_tensor* t;
  /* Device memory apart from host memory is memory the host cannot address
   * (backend.h): the tensor's headers stay off it. */
  bool addressable = host || ctx->allocator == ctx->host_allocator;
  GRT_RETURN_IF_ERROR(addressable ? grt_tensor_new_packed(a, dtype, shape, &t)
                                  : grt_tensor_new_device(a, dtype, shape, &t));
  grt_tensor_free(ctx->outputs[k]);
  ctx->outputs[k] = t;
  if (out) *out = t;
  return NULL;
}

grt_status* grt_kernel_forward_or_alloc_output(grt_kernel_ctx* ctx, int32_t i, int32_t k,
                                               grt_dtype dtype, const grt_shape* shape,
                                               grt_tensor** out) {
  grt_tensor* in = i >= 0 && i < ctx->n_inputs && i < 64 ? ctx->inputs[i] : NULL;
  /* The executor's word that no other node reads the value, then the
   * tensor's own: one reference (the executor's slot), its buffer not
   * shared with another tensor (a view), the output's dtype and shape, and
   * one memory for host and device (the CPU's), so the input's buffer is
   * the memory either kind of output would come from. A feed, a Const's
   * value, a variable's or a fetched value always has another holder. */
  if (in && (ctx->forwardable >> i) & 1 && k >= 0 && k < ctx->n_outputs &&
      ctx->allocator == ctx->host_allocator && in->dtype == dtype &&
      (shape == &in->shape || grt_shape_equal(&in->shape, shape)) &&
      __atomic_load_n(&in->refs, __ATOMIC_ACQUIRE) == 1 && in->buffer &&
      __atomic_load_n(&in->buffer->refs, __ATOMIC_ACQUIRE) == 1) {
    /* The slot's reference is the only one and this thread runs its last
     * reader, so nothing can change the count meanwhile: a plain store
     * takes the output's reference (an atomic add per forwarded node was a
     * visible part of a chain of small nodes; the executor gives the
     * slot's back the same way, executor.c). */
    __atomic_store_n(&in->refs, 2, __ATOMIC_RELAXED);
    if (ctx->outputs[k]) grt_tensor_free(ctx->outputs[k]);
    ctx->outputs[k] = in;
    if (out) *out = in;
    return NULL;
  }
  return grt_kernel_alloc_output(ctx, k, dtype, shape, out);
}

void grt_kernel_set_output(grt_kernel_ctx* ctx, int32_t k, grt_tensor* t) {
  if (k < 0 || k >= ctx->n_outputs) return;
  grt_tensor_ref(t);
  grt_tensor_free(ctx->outputs[k]);
  ctx->outputs[k] = t;
}

grt_status* grt_kernel_alloc_temp(grt_kernel_ctx* ctx, grt_dtype dtype, const grt_shape* shape,
                                  grt_tensor** out) {
  if (ctx->allocator != ctx->host_allocator)
    return grt_tensor_new_device(ctx->allocator, dtype, shape, out);
  return grt_tensor_new_packed(ctx->allocator, dtype, shape, out);
}

const grt_attr_value* grt_kernel_attr(const grt_kernel_ctx* ctx, const char* name) {
  return grt_node_attr(ctx->node, name);
}

/* Typed reads go through ops' one accessor family (ops/attr.h). */
grt_status* grt_kernel_attr_int(const grt_kernel_ctx* ctx, const char* name, int64_t* out) {
  return grt_attr_get_int(grt_node_attr(ctx->node, name), name, out);
}
grt_status* grt_kernel_attr_float(const grt_kernel_ctx* ctx, const char* name, float* out) {
  return grt_attr_get_float(grt_node_attr(ctx->node, name), name, out);
}
grt_status* grt_kernel_attr_bool(const grt_kernel_ctx* ctx, const char* name, bool* out) {
  return grt_attr_get_bool(grt_node_attr(ctx->node, name), name, out);
}
grt_status* grt_kernel_attr_type(const grt_kernel_ctx* ctx, const char* name, grt_dtype* out) {
  return grt_attr_get_type(grt_node_attr(ctx->node, name), name, out);
}
grt_status* grt_kernel_attr_tensor(const grt_kernel_ctx* ctx, const char* name,
                                   const grt_tensor** out) {
  const grt_attr_value* v = grt_node_attr(ctx->node, name);
  if (!v || v->type != GRT_ATTR_TENSOR || !v->u.tensor)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' is not a tensor", name);
  *out = v->u.tensor;
  return NULL;
}

grt_status* grt_kernel_attr_int_list(const grt_kernel_ctx* ctx, const char* name,
                                     const int64_t** out, int32_t* n) {
  return grt_attr_get_int_list(grt_node_attr(ctx->node, name), name, out, n);
}

grt_status* grt_kernel_attr_string_list(const grt_kernel_ctx* ctx, const char* name,
                                        const char* const** out, int32_t* n) {
  const grt_attr_value* v = grt_node_attr(ctx->node, name);
  if (!v || v->type != GRT_ATTR_LIST_STRING)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' must be a list of strings", name);
  *out = (const char* const*)v->u.list.v.s;
  *n = v->u.list.n;
  return NULL;
}

grt_status* grt_kernel_attr_string(const grt_kernel_ctx* ctx, const char* name, const char** out) {
  return grt_attr_get_string(grt_node_attr(ctx->node, name), name, out);
}

grt_status* grt_kernel_read_int_vector(const grt_tensor* t, const char* what, int64_t* out,
                                       int32_t max, int32_t* out_n) {
  if (!grt_dtype_is_integer(t->dtype))
    return GRT_ERROR(INVALID_ARGUMENT, "%s must be an integer tensor, got %s", what,
                     grt_dtype_name(t->dtype));
  if (t->shape.rank > 1) {
    char buf[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT, "%s must be a vector, got shape %s", what,
                     grt_shape_str(&t->shape, buf, sizeof buf));
  }
  int64_t n = grt_shape_num_elements(&t->shape);
  if (n > max)
    return GRT_ERROR(INVALID_ARGUMENT, "%s has %lld elements, at most %d are supported", what,
                     (long long)n, (int)max);
  const void* d = grt_tensor_data(t);
  for (int64_t i = 0; i < n; i++) out[i] = grt_dtype_load_int(t->dtype, d, i);
  *out_n = (int32_t)n;
  return NULL;
}

bool grt_kernel_cancelled(const grt_kernel_ctx* ctx) {
  return ctx && grt_cancel_check(ctx->cancel) != GRT_OK;
}
