/* Running element-wise ops described as row tables (elementwise.h): dtype
 * checks, output allocation, the same-shape and scalar fast paths, general
 * broadcasting, and float16/bfloat16 through float32. */
#include <string.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/elementwise.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

static grt_status* check_pair(const grt_kernel_ctx* ctx, const grt_cpu_binary_op* op,
                              grt_cpu_binary_row* out_row) {
  grt_dtype t = ctx->inputs[0]->dtype;
  if (ctx->inputs[1]->dtype != t)
    return GRT_ERROR(INVALID_ARGUMENT, "inputs have different dtypes: %s vs. %s", grt_dtype_name(t),
                     grt_dtype_name(ctx->inputs[1]->dtype));
  *out_row = grt_dtype_valid(t) ? op->rows[t] : NULL;
  if (!*out_row) return grt_cpu_no_kernel(ctx, t);
  return NULL;
}

/* The output of shape os: over the operand of that shape that nothing else
 * reads (element j of the result needs only that operand's element j, so
 * the rows read it before they overwrite it), else new memory. */
static grt_status* binary_output(grt_kernel_ctx* ctx, grt_dtype zt, const grt_shape* os,
                                 grt_tensor** out) {
  for (int32_t i = 0; i < 2; i++)
    if ((ctx->forwardable >> i) & 1 &&
        (os == &ctx->inputs[i]->shape || grt_shape_equal(&ctx->inputs[i]->shape, os)))
      return grt_kernel_forward_or_alloc_output(ctx, i, 0, zt, os, out);
  return grt_kernel_alloc_output(ctx, 0, zt, os, out);
}

grt_status* grt_cpu_binary_apply(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op,
                                 const grt_cpu_bcast* plan, const grt_tensor* x,
                                 const grt_tensor* y, grt_tensor* out) {
  grt_dtype t = x->dtype;
  grt_cpu_binary_row row = op->rows[t];
  size_t zs = grt_dtype_size(out->dtype);
  if (!grt_cpu_is_half(t)) {
    grt_cpu_bcast_run(plan, row, grt_tensor_data(x), grt_tensor_data(y), grt_dtype_size(t),
                      grt_tensor_data(out), zs, op->cost_ns, ctx->intra_op);
    return NULL;
  }
  /* Widen both operands, compute in float32, narrow the result. */
  grt_tensor *wx = NULL, *wy = NULL, *wz = NULL;
  grt_status* s = grt_cpu_widen_tensor(ctx, x, &wx);
  if (!s) s = grt_cpu_widen_tensor(ctx, y, &wy);
  if (!s && !op->bool_out) s = grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &out->shape, &wz);
  if (!s) {
    void* z = wz ? grt_tensor_data(wz) : grt_tensor_data(out);
    grt_cpu_bcast_run(plan, row, grt_tensor_data(wx), grt_tensor_data(wy), sizeof(float), z,
                      wz ? sizeof(float) : zs, op->cost_ns, ctx->intra_op);
    if (wz) grt_cpu_narrow(t, grt_tensor_data(wz), grt_tensor_data(out), plan->n);
  }
  grt_tensor_free(wx);
  grt_tensor_free(wy);
  grt_tensor_free(wz);
  return s;
}

grt_status* grt_cpu_binary_compute(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* y = ctx->inputs[1];
  grt_cpu_binary_row row;
  GRT_RETURN_IF_ERROR(check_pair(ctx, op, &row));
  grt_dtype t = x->dtype;
  grt_dtype zt = op->bool_out ? GRT_BOOL : t;
  grt_tensor* out;
  if (x->shape.rank == 0 && y->shape.rank == 0 && !grt_cpu_is_half(t)) {
    /* Two scalars: the executor's most frequent tiny case, kept short (and
     * written over an operand no later node reads, as larger ones are). */
    GRT_RETURN_IF_ERROR(binary_output(ctx, zt, &x->shape, &out));
    row(1, grt_cpu_data(x), 1, grt_cpu_data(y), 1, grt_cpu_data(out));
    return NULL;
  }
  if (!grt_cpu_is_half(t)) {
    /* Same shapes, or a one-element operand of no higher rank than the
     * other: one flat loop, no plan. */
    const grt_shape* os = NULL;
    int64_t sx = 1, sy = 1;
    if (grt_shape_equal(&x->shape, &y->shape)) {
      os = &x->shape;
    } else if (x->shape.rank <= y->shape.rank && grt_tensor_num_elements(x) == 1) {
      os = &y->shape;
      sx = 0;
    } else if (y->shape.rank <= x->shape.rank && grt_tensor_num_elements(y) == 1) {
      os = &x->shape;
      sy = 0;
    }
    if (os) {
      GRT_RETURN_IF_ERROR(binary_output(ctx, zt, os, &out));
      grt_cpu_binary_run_flat(row, grt_shape_num_elements(os), grt_tensor_data(x), sx,
                              grt_tensor_data(y), sy, grt_dtype_size(t), grt_tensor_data(out),
                              grt_dtype_size(zt), op->cost_ns, ctx->intra_op);
      return NULL;
    }
  }
  grt_cpu_bcast plan;
  GRT_RETURN_IF_ERROR(grt_cpu_bcast_make(&x->shape, &y->shape, &plan));
  GRT_RETURN_IF_ERROR(binary_output(ctx, zt, &plan.out, &out));
  return grt_cpu_binary_apply(ctx, op, &plan, x, y, out);
}

grt_status* grt_cpu_binary_same_size(grt_kernel_ctx* ctx, const grt_cpu_binary_op* op) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* y = ctx->inputs[1];
  grt_cpu_binary_row row;
  GRT_RETURN_IF_ERROR(check_pair(ctx, op, &row));
  int64_t n = grt_tensor_num_elements(x);
  if (grt_tensor_num_elements(y) != n)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "The two arguments to a cwise op must have same number of elements, got "
                     "%lld and %lld",
                     (long long)n, (long long)grt_tensor_num_elements(y));
  grt_tensor* out;
  /* Over an operand no later node reads where the executor allows it (a
   * training step's ReluGrad writes over the gradient it was given). */
  GRT_RETURN_IF_ERROR(binary_output(ctx, op->bool_out ? GRT_BOOL : x->dtype, &x->shape, &out));
  grt_cpu_bcast flat = {.out = x->shape, .n = n, .rank = 1, .dims = {n}, .sx = {1}, .sy = {1}};
  return grt_cpu_binary_apply(ctx, op, &flat, x, y, out);
}

/* ---- unary -------------------------------------------------------------- */

/* Half types go through float32 in stack-sized chunks, so no scratch
 * tensor is needed. */
#define HALF_CHUNK 512

typedef struct {
  grt_cpu_unary_row row;
  grt_dtype t;
  const uint16_t* x;
  uint16_t* y;
} half_job;

static void half_range(void* arg, int64_t b, int64_t e) {
  const half_job* j = arg;
  float in[HALF_CHUNK], out[HALF_CHUNK];
  for (int64_t i = b; i < e; i += HALF_CHUNK) {
    int64_t m = e - i < HALF_CHUNK ? e - i : HALF_CHUNK;
    grt_cpu_widen(j->t, j->x + i, in, m);
    j->row(m, in, out);
    grt_cpu_narrow(j->t, out, j->y + i, m);
  }
}

grt_status* grt_cpu_unary_compute(grt_kernel_ctx* ctx, const grt_cpu_unary_op* op) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype t = x->dtype;
  grt_cpu_unary_row row = grt_dtype_valid(t) ? op->rows[t] : NULL;
  if (!row) return grt_cpu_no_kernel(ctx, t);
  grt_tensor* out; /* over x when nothing else reads it: element j needs only x's element j */
  GRT_RETURN_IF_ERROR(grt_kernel_forward_or_alloc_output(ctx, 0, 0, t, &x->shape, &out));
  int64_t n = grt_tensor_num_elements(x);
  if (grt_cpu_is_half(t)) {
    half_job j = {row, t, grt_tensor_data(x), grt_tensor_data(out)};
    grt_parallel_for(ctx->intra_op, n, op->cost_ns + 4, half_range, &j);
    return NULL;
  }
  size_t es = grt_dtype_size(t);
  grt_cpu_unary_run(row, n, grt_tensor_data(x), es, grt_tensor_data(out), es, op->cost_ns,
                    ctx->intra_op);
  return NULL;
}
