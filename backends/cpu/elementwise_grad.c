/* Gradient helpers of element-wise activations: TanhGrad(y, dy),
 * SigmoidGrad(y, dy) and ReluGrad(gradients, features). No broadcasting:
 * the two inputs hold one element each per output element. */
#include "backends/cpu/elementwise.h"
#include "base/shape.h"
#include "base/status.h"

GRT_CPU_VECTORIZE

/* a = y (the forward output), b = dy, in TensorFlow's order of operations. */
GRT_CPU_BINARY_ROW(tanh_grad_f32, float, float, elem_t, b*(1.0f - a * a))
GRT_CPU_BINARY_ROW(tanh_grad_f64, double, double, elem_t, b*(1.0 - a * a))
GRT_CPU_BINARY_ROW(sigmoid_grad_f32, float, float, elem_t, b* a*(1.0f - a))
GRT_CPU_BINARY_ROW(sigmoid_grad_f64, double, double, elem_t, b* a*(1.0 - a))

/* a = gradients, b = features: the gradient passes where the feature was
 * positive. */
#define RELU_GRAD(sfx, T, W) GRT_CPU_BINARY_ROW(relu_grad_##sfx, T, W, elem_t, b > 0 ? a : 0)
GRT_CPU_FLOAT_TYPES(RELU_GRAD)
GRT_CPU_INT_TYPES(RELU_GRAD)

static const grt_cpu_binary_op kTanhGrad = {{GRT_CPU_ROWS_FLOAT(tanh_grad)}, false, 2};
static const grt_cpu_binary_op kSigmoidGrad = {{GRT_CPU_ROWS_FLOAT(sigmoid_grad)}, false, 2};
static const grt_cpu_binary_op kReluGrad = {
    {GRT_CPU_ROWS_FLOAT(relu_grad), GRT_CPU_ROWS_INT(relu_grad)}, false, 1};

grt_status* grt_cpu_tanh_grad(grt_kernel_ctx* ctx) {
  return grt_cpu_binary_same_size(ctx, &kTanhGrad);
}

grt_status* grt_cpu_sigmoid_grad(grt_kernel_ctx* ctx) {
  return grt_cpu_binary_same_size(ctx, &kSigmoidGrad);
}

grt_status* grt_cpu_relu_grad(grt_kernel_ctx* ctx) {
  const grt_shape* g = &ctx->inputs[0]->shape;
  const grt_shape* f = &ctx->inputs[1]->shape;
  if (!grt_shape_equal(g, f)) {
    char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT,
                     "g and a must be the same size: gradients %s vs. features %s",
                     grt_cpu_shape_str(g, a), grt_cpu_shape_str(f, b));
  }
  return grt_cpu_binary_same_size(ctx, &kReluGrad);
}
