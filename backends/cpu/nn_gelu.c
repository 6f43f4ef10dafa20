/* _Gelu (ops/defs_fused_seq.c): x * Phi(x). Exact: 0.5 x (1 + erf(x / sqrt 2)),
 * where 1 + erf(z) = erfc(-z) is evaluated as plain arithmetic so the loop
 * vectorises (libm's erff is a call per element, most of the op's time):
 * erfc(|z|) = t exp(-z^2 + P(t)), t = 1 / (1 + |z|/2), P the Chebyshev fit
 * of Numerical Recipes' erfcc (fractional error below 1.2e-7), and for
 * z >= 0, 1 + erf(z) = 2 - erfc(z). Only 1 + erf is needed, so the
 * cancellation of 1 - erfc near 0 never shows: the result is within a few
 * float32 ulps of x Phi(x). Approximate (tanh form, as
 * TensorFlow's gelu(approximate=True) and torch's approximate='tanh'):
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), tanh the vectorisable
 * one Tanh uses. One pass over memory instead of the five of the
 * decomposed form (Div, Erf, Add, Mul, Mul). */
#include <math.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/nn.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

GRT_CPU_CLONES void grt_cpu_gelu_f32(const float* x, float* y, int64_t n, bool approximate) {
  if (approximate) {
    const float k = 0.7978845608028654f; /* sqrt(2 / pi) */
    for (int64_t i = 0; i < n; i++) {
      const float v = x[i];
      y[i] = 0.5f * v * (1.0f + grt_cpu_tanhf(k * (v + 0.044715f * v * v * v)));
    }
  } else {
    for (int64_t i = 0; i < n; i++) {
      const float z = x[i] * (float)M_SQRT1_2, a = __builtin_fabsf(z);
      const float t = 1.0f / (1.0f + 0.5f * a);
      float p = 0.17087277f;
      p = p * t - 0.82215223f;
      p = p * t + 1.48851587f;
      p = p * t - 1.13520398f;
      p = p * t + 0.27886807f;
      p = p * t - 0.18628806f;
      p = p * t + 0.09678418f;
      p = p * t + 0.37409196f;
      p = p * t + 1.00002368f;
      p = p * t - 1.26551223f;
      const float erfc_a = t * grt_cpu_expf(-a * a + p);
      y[i] = 0.5f * x[i] * grt_cpu_select_f(z >= 0.0f, 2.0f - erfc_a, erfc_a);
    }
  }
}

typedef struct {
  const float* x;
  float* y;
  bool approximate;
} gelu_job;

static void gelu_range(void* arg, int64_t b, int64_t e) {
  const gelu_job* j = arg;
  grt_cpu_gelu_f32(j->x + b, j->y + b, e - b, j->approximate);
}

grt_status* grt_cpu_gelu(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  if (x->dtype != GRT_FLOAT32) return grt_cpu_no_kernel(ctx, x->dtype);
  const grt_attr_value* a = grt_kernel_attr(ctx, "approximate");
  bool approximate = a && a->type == GRT_ATTR_BOOL && a->u.b;
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &x->shape, &out));
  gelu_job j = {grt_tensor_data(x), grt_tensor_data(out), approximate};
  grt_parallel_for(ctx->intra_op, grt_tensor_num_elements(x), 20, gelu_range, &j);
  return NULL;
}
