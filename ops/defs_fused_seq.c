/* The sequence models' fused ops, made by the graph optimizer's passes
 * (optimizer/pass_layer_norm.c, pass_gelu.c) from the node chains that
 * converters emit for them; grt-internal names (a leading underscore, as
 * TensorFlow's _FusedMatMul), so a loaded graph may hold them too.
 *
 *   _LayerNorm(x, gamma, beta): over the dims from begin_norm_axis on,
 *     y = (x - mean) * rsqrt(mean((x - mean)^2) + epsilon) * gamma + beta,
 *     the variance the biased one (ONNX LayerNormalization, torch). gamma
 *     and beta are vectors of the normalized dims' element count.
 *   _Gelu(features): x * Phi(x), Phi the normal CDF (approximate: the tanh
 *     form 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))).
 *
 * float32 only: the CPU kernels are the only ones (no GPU rows). */
#include "base/shape.h"
#include "base/status.h"
#include "ops/defs.h"
#include "ops/shape_fns.h"

/* y has x's shape; gamma and beta are vectors whose length is the element
 * count of x's dims from begin_norm_axis on (checked where both are known). */
static grt_status* infer_layer_norm(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3, 1));
  const grt_shape* x = &c->input_shapes[0];
  int64_t axis;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "begin_norm_axis", &axis));
  int64_t n = -1;
  if (x->rank >= 0) {
    int32_t a;
    if (!grt_infer_axis(axis, x->rank, &a))
      return GRT_ERROR(INVALID_ARGUMENT, "begin_norm_axis %lld out of range for rank %d",
                       (long long)axis, (int)x->rank);
    n = 1;
    for (int32_t d = a; d < x->rank && n >= 0; d++) n = x->dims[d] < 0 ? -1 : n * x->dims[d];
  }
  for (int32_t i = 1; i < 3; i++) {
    GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 1));
    const grt_shape* v = &c->input_shapes[i];
    if (n >= 0 && v->rank == 1 && v->dims[0] >= 0 && v->dims[0] != n)
      return GRT_ERROR(INVALID_ARGUMENT, "input %s has %lld elements; the normalized dims %lld",
                       c->def->inputs[i].name, (long long)v->dims[0], (long long)n);
  }
  c->output_shapes[0] = *x;
  return NULL;
}

static const grt_op_spec kRows[] = {
    {"_LayerNorm", "x: T, gamma: T, beta: T", "y: T",
     "T: {float32}; epsilon: float = 0.00001; begin_norm_axis: int = -1", 0, infer_layer_norm},
    {"_Gelu", "features: T", "activations: T", "T: {float32}; approximate: bool = false", 0,
     grt_infer_unchanged},
};

GRT_OP_TABLE(grt_ops_fused_seq, "fused_seq", kRows);
