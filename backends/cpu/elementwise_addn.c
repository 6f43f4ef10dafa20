/* AddN: the element-wise sum of N tensors of one shape, added left to
 * right as TensorFlow's does. Work is split by element ranges, each range
 * summing every input before moving on (the output stays in cache). */
#include <string.h>

#include "backends/cpu/elementwise.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* z[i] += x[i], wrapping for integers. */
typedef void (*accum_row)(int64_t n, const void* x, void* z);
#define ACCUM_ROW(sfx, T, W)                                       \
  static void accum_##sfx(int64_t n, const void* xv, void* zv) {   \
    const T* restrict x = xv;                                      \
    T* restrict z = zv;                                            \
    for (int64_t i = 0; i < n; i++) z[i] = (T)((W)z[i] + (W)x[i]); \
  }
GRT_CPU_FLOAT_TYPES(ACCUM_ROW)
GRT_CPU_INT_TYPES(ACCUM_ROW)

static const accum_row kAccum[GRT_NUM_DTYPES] = {
    [GRT_FLOAT32] = accum_f32, [GRT_FLOAT64] = accum_f64, [GRT_INT8] = accum_i8,
    [GRT_INT16] = accum_i16,   [GRT_INT32] = accum_i32,   [GRT_INT64] = accum_i64,
    [GRT_UINT8] = accum_u8,
};

typedef struct {
  grt_tensor* const* in;
  int32_t n_in;
  grt_dtype t;
  size_t size;
  void* out;
} addn_job;

#define HALF_CHUNK 512

static void addn_range(void* arg, int64_t b, int64_t e) {
  const addn_job* j = arg;
  if (grt_cpu_is_half(j->t)) {
    float acc[HALF_CHUNK], x[HALF_CHUNK];
    for (int64_t i = b; i < e; i += HALF_CHUNK) {
      int64_t m = e - i < HALF_CHUNK ? e - i : HALF_CHUNK;
      grt_cpu_widen(j->t, (const uint16_t*)grt_tensor_data(j->in[0]) + i, acc, m);
      for (int32_t k = 1; k < j->n_in; k++) {
        grt_cpu_widen(j->t, (const uint16_t*)grt_tensor_data(j->in[k]) + i, x, m);
        accum_f32(m, x, acc);
      }
      grt_cpu_narrow(j->t, acc, (uint16_t*)j->out + i, m);
    }
    return;
  }
  char* out = (char*)j->out + (size_t)b * j->size;
  size_t bytes = (size_t)(e - b) * j->size;
  memcpy(out, (const char*)grt_tensor_data(j->in[0]) + (size_t)b * j->size, bytes);
  for (int32_t k = 1; k < j->n_in; k++)
    kAccum[j->t](e - b, (const char*)grt_tensor_data(j->in[k]) + (size_t)b * j->size, out);
}

grt_status* grt_cpu_add_n(grt_kernel_ctx* ctx) {
  grt_tensor* first = ctx->inputs[0];
  grt_dtype t = first->dtype;
  if (!grt_dtype_valid(t) || (!kAccum[t] && !grt_cpu_is_half(t))) return grt_cpu_no_kernel(ctx, t);
  for (int32_t k = 1; k < ctx->n_inputs; k++) {
    const grt_tensor* in = ctx->inputs[k];
    if (in->dtype != t || !grt_shape_equal(&in->shape, &first->shape)) {
      char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
      return GRT_ERROR(INVALID_ARGUMENT,
                       "Inputs must have the same size and shape.  Input 0: %s %s != input "
                       "%d: %s %s",
                       grt_dtype_name(t), grt_cpu_shape_str(&first->shape, a), (int)k,
                       grt_dtype_name(in->dtype), grt_cpu_shape_str(&in->shape, b));
    }
  }
  if (ctx->n_inputs == 1) {
    grt_kernel_set_output(ctx, 0, first);
    return NULL;
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t, &first->shape, &out));
  addn_job j = {ctx->inputs, ctx->n_inputs, t, grt_dtype_size(t), grt_tensor_data(out)};
  grt_parallel_for(ctx->intra_op, grt_tensor_num_elements(first), ctx->n_inputs, addn_range, &j);
  return NULL;
}
