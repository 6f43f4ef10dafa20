/* Select (TensorFlow's v1 SelectOp): picks from `t` where the condition is
 * true and from `e` elsewhere. The condition is a scalar (the whole output
 * is t or e, shared without copying), a vector over the first dimension
 * (whole rows are picked), or has t's shape (element by element). Elements
 * are moved as bytes, so every dtype is covered. */
#include <string.h>

#include "backends/cpu/elementwise.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* A mask rather than ?: so both loads are unconditional and the loop
 * vectorises. */
#define SELECT_LOOP(U)                            \
  do {                                            \
    const U* restrict tv = (const U*)j->t;        \
    const U* restrict ev = (const U*)j->e;        \
    U* restrict ov = (U*)j->out;                  \
    for (int64_t i = b; i < end; i++) {           \
      const U m = (U)((U)0 - (U)(c[i] != 0));     \
      ov[i] = (U)((tv[i] & m) | (ev[i] & (U)~m)); \
    }                                             \
  } while (0)

typedef struct {
  const uint8_t* cond;
  const void* t;
  const void* e;
  void* out;
  size_t size; /* element bytes, or row bytes for the row form */
} select_job;

static void select_elements(void* arg, int64_t b, int64_t end) {
  const select_job* j = arg;
  const uint8_t* restrict c = j->cond;
  switch (j->size) {
    case 1:
      SELECT_LOOP(uint8_t);
      break;
    case 2:
      SELECT_LOOP(uint16_t);
      break;
    case 4:
      SELECT_LOOP(uint32_t);
      break;
    default:
      SELECT_LOOP(uint64_t);
      break;
  }
}

static void select_rows(void* arg, int64_t b, int64_t end) {
  const select_job* j = arg;
  for (int64_t i = b; i < end; i++) {
    const char* src = j->cond[i] ? j->t : j->e;
    memcpy((char*)j->out + (size_t)i * j->size, src + (size_t)i * j->size, j->size);
  }
}

grt_status* grt_cpu_select(grt_kernel_ctx* ctx) {
  const grt_tensor* cond = ctx->inputs[0];
  grt_tensor* t = ctx->inputs[1];
  grt_tensor* e = ctx->inputs[2];
  char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
  if (cond->dtype != GRT_BOOL)
    return GRT_ERROR(INVALID_ARGUMENT, "'condition' must be bool, got %s",
                     grt_dtype_name(cond->dtype));
  if (t->dtype != e->dtype)
    return GRT_ERROR(INVALID_ARGUMENT, "'then' is %s but 'else' is %s", grt_dtype_name(t->dtype),
                     grt_dtype_name(e->dtype));
  if (!grt_shape_equal(&t->shape, &e->shape))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "'then' and 'else' must have the same size.  but received: %s vs. %s",
                     grt_cpu_shape_str(&t->shape, a), grt_cpu_shape_str(&e->shape, b));
  const uint8_t* c = grt_tensor_data(cond);
  if (cond->shape.rank == 0) {
    grt_kernel_set_output(ctx, 0, c[0] ? t : e);
    return NULL;
  }
  size_t es = grt_dtype_size(t->dtype);
  int64_t n = grt_tensor_num_elements(t);
  grt_tensor* out;
  if (cond->shape.rank == 1 && t->shape.rank != 1) {
    if (t->shape.rank == 0)
      return GRT_ERROR(INVALID_ARGUMENT, "'then' must be at least a vector, but saw shape: %s",
                       grt_cpu_shape_str(&t->shape, a));
    int64_t rows = t->shape.dims[0];
    if (rows != cond->shape.dims[0])
      return GRT_ERROR(INVALID_ARGUMENT,
                       "Number of batches of 'then' must match size of 'cond', but saw: %lld vs. "
                       "%lld",
                       (long long)rows, (long long)cond->shape.dims[0]);
    GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t->dtype, &t->shape, &out));
    if (rows == 0) return NULL;
    select_job j = {c, grt_tensor_data(t), grt_tensor_data(e), grt_tensor_data(out),
                    es * (size_t)(n / rows)};
    grt_parallel_for(ctx->intra_op, rows, (int64_t)(j.size / 8) + 1, select_rows, &j);
    return NULL;
  }
  if (!grt_shape_equal(&cond->shape, &t->shape))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "'cond' and 'then' must have the same size.  but received: %s vs. %s",
                     grt_cpu_shape_str(&cond->shape, a), grt_cpu_shape_str(&t->shape, b));
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t->dtype, &t->shape, &out));
  select_job j = {c, grt_tensor_data(t), grt_tensor_data(e), grt_tensor_data(out), es};
  grt_parallel_for(ctx->intra_op, n, 1, select_elements, &j);
  return NULL;
}
