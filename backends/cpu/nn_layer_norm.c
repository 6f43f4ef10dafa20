/* _LayerNorm (ops/defs_fused_seq.c): each row of the dims from
 * begin_norm_axis on is normalized to
 *   (x - mean) * rsqrt(var + epsilon) * gamma + beta,
 * var = mean((x - mean)^2), the same two-step variance the decomposed graph
 * (and ONNX Runtime, TensorFlow's layer_norm) computes, rather than
 * E[x^2] - mean^2, which cancels badly when |mean| >> std. A row is read
 * three times while it is in cache: sum, squared deviations, output. float32;
 * the sums in LANES independent float accumulators so the loops vectorise
 * (each lane sums n / LANES values, a smaller error than one serial sum). */
#include <math.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/nn.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

#define LANES 16

static float lane_sum(const float* lane) {
  float s = 0;
  for (int k = 0; k < LANES; k++) s += lane[k];
  return s;
}

void grt_cpu_layer_norm_row(const float* x, float* y, int64_t n, const float* gamma,
                            const float* beta, float epsilon) {
  float lane[LANES] = {0};
  int64_t i = 0;
  for (; i + LANES <= n; i += LANES)
    for (int k = 0; k < LANES; k++) lane[k] += x[i + k];
  float sum = lane_sum(lane);
  for (; i < n; i++) sum += x[i];
  const float mean = sum / (float)n;
  for (int k = 0; k < LANES; k++) lane[k] = 0;
  for (i = 0; i + LANES <= n; i += LANES)
    for (int k = 0; k < LANES; k++) {
      const float d = x[i + k] - mean;
      lane[k] += d * d;
    }
  float sq = lane_sum(lane);
  for (; i < n; i++) sq += (x[i] - mean) * (x[i] - mean);
  const float inv = 1.0f / sqrtf(sq / (float)n + epsilon);
  for (int64_t j = 0; j < n; j++) y[j] = (x[j] - mean) * inv * gamma[j] + beta[j];
}

typedef struct {
  const float *x, *gamma, *beta;
  float* y;
  int64_t n;
  float epsilon;
} ln_job;

static void ln_rows(void* arg, int64_t r0, int64_t r1) {
  const ln_job* j = arg;
  for (int64_t r = r0; r < r1; r++)
    grt_cpu_layer_norm_row(j->x + r * j->n, j->y + r * j->n, j->n, j->gamma, j->beta, j->epsilon);
}

grt_status* grt_cpu_layer_norm(grt_kernel_ctx* ctx) {
  const grt_tensor *x = ctx->inputs[0], *gamma = ctx->inputs[1], *beta = ctx->inputs[2];
  if (x->dtype != GRT_FLOAT32) return grt_cpu_no_kernel(ctx, x->dtype);
  int64_t axis;
  float eps;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "begin_norm_axis", &axis));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "epsilon", &eps));
  const int32_t rank = x->shape.rank;
  if (axis < -(int64_t)rank || axis >= rank)
    return GRT_ERROR(INVALID_ARGUMENT, "begin_norm_axis %lld out of range for x of rank %d",
                     (long long)axis, (int)rank);
  if (axis < 0) axis += rank;
  int64_t n = 1;
  for (int32_t d = (int32_t)axis; d < rank; d++) n *= x->shape.dims[d];
  if (gamma->shape.rank != 1 || beta->shape.rank != 1 || gamma->shape.dims[0] != n ||
      beta->shape.dims[0] != n) {
    char bg[GRT_SHAPE_STR_MAX], bb[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(
        INVALID_ARGUMENT, "gamma %s and beta %s must be vectors of the %lld normalized elements",
        grt_cpu_shape_str(&gamma->shape, bg), grt_cpu_shape_str(&beta->shape, bb), (long long)n);
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &x->shape, &out));
  int64_t total = grt_tensor_num_elements(x);
  if (total == 0 || n == 0) return NULL;
  ln_job j = {grt_tensor_data(x),
              grt_tensor_data(gamma),
              grt_tensor_data(beta),
              grt_tensor_data(out),
              n,
              eps};
  grt_parallel_for(ctx->intra_op, total / n, n * 4, ln_rows, &j);
  return NULL;
}
