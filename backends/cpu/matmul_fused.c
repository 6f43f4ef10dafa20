/* _FusedMatMul: TensorFlow's remapper node for MatMul + BiasAdd (+ an
 * activation), inputs (a, b, bias), attrs transpose_a, transpose_b, T,
 * num_args (1: the bias), fused_ops ("BiasAdd" then optionally "Relu",
 * "Relu6", "Elu", or TensorFlow's "GeluExact" / "GeluApproximate") and
 * epsilon (unused here: it belongs to the batch-norm
 * fusions). grt's session makes these nodes itself
 * (runtime/session/rewrite_remap.c); a graph may also hold them.
 *
 * Where matmul_select.c picks oneDNN, the whole node is one primitive with
 * a bias and an eltwise post-op; elsewhere OpenBLAS multiplies and one pass
 * over the output adds the bias and applies the activation. */
#include <math.h>
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/matmul_dnnl.h"
#include "backends/cpu/matmul_gemm.h"
#include "backends/cpu/matmul_gemv.h"
#include "backends/cpu/nn.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/graph.h"

typedef struct {
  const char* name;
  grt_mm_activation act;
} act_name;

static const act_name kActivations[] = {
    {"Relu", GRT_MM_RELU},
    {"Relu6", GRT_MM_RELU6},
    {"Elu", GRT_MM_ELU},
    /* TensorFlow's names for its remapper's MatMul + BiasAdd + Gelu: a
     * transformer's feed-forward layer (grt's _Gelu, fused by the session's
     * rewrite: runtime/session/rewrite_remap.c). */
    {"GeluExact", GRT_MM_GELU_EXACT},
    {"GeluApproximate", GRT_MM_GELU_APPROX},
};

/* fused_ops as an activation: ["BiasAdd"] or ["BiasAdd", ACT]. */
grt_status* grt_cpu_fused_ops(const grt_kernel_ctx* ctx, grt_mm_activation* out) {
  const grt_attr_value* v = grt_kernel_attr(ctx, "fused_ops");
  if (!v || v->type != GRT_ATTR_LIST_STRING)
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'fused_ops' must be a list of strings");
  int32_t n = v->u.list.n;
  const char* const* ops = v->u.list.v.s;
  if (n < 1 || n > 2 || strcmp(ops[0], "BiasAdd") != 0)
    return GRT_ERROR(
        UNIMPLEMENTED,
        "fused_ops must be [BiasAdd] or [BiasAdd, Relu|Relu6|Elu|GeluExact|GeluApproximate], "
        "got %d ops starting with '%s'",
        (int)n, n > 0 ? ops[0] : "");
  *out = GRT_MM_NONE;
  if (n == 1) return NULL;
  for (size_t i = 0; i < sizeof kActivations / sizeof kActivations[0]; i++)
    if (strcmp(ops[1], kActivations[i].name) == 0) {
      *out = kActivations[i].act;
      return NULL;
    }
  return GRT_ERROR(UNIMPLEMENTED,
                   "fused activation '%s' (Relu, Relu6, Elu, GeluExact or GeluApproximate)",
                   ops[1]);
}

float grt_mm_activate(grt_mm_activation act, float x) {
  switch (act) {
    case GRT_MM_RELU:
      return x > 0.0f ? x : 0.0f;
    case GRT_MM_RELU6:
      return x > 0.0f ? (x < 6.0f ? x : 6.0f) : 0.0f;
    case GRT_MM_ELU:
      return x > 0.0f ? x : expm1f(x);
    default:
      return x;
  }
}

void grt_mm_activate_row(grt_mm_activation act, const float* bias, float* row, int64_t n) {
  if (act == GRT_MM_GELU_EXACT || act == GRT_MM_GELU_APPROX) {
    /* _Gelu's own vectorised loop over the biased row, still in cache. */
    for (int64_t j = 0; j < n; j++) row[j] += bias[j];
    grt_cpu_gelu_f32(row, row, n, act == GRT_MM_GELU_APPROX);
    return;
  }
  for (int64_t j = 0; j < n; j++) row[j] = grt_mm_activate(act, row[j] + bias[j]);
}

/* OpenBLAS's product, then bias and activation in one pass. */
static grt_status* blas_path(grt_kernel_ctx* ctx, const grt_mm_call* c) {
  grt_gemm_plan p = {.m = c->m, .n = c->n, .k = c->k, .ta = c->ta, .tb = c->tb, .batch = 1};
  GRT_RETURN_IF_ERROR(grt_gemm_run(&p, GRT_FLOAT32, c->a, c->b, c->out, ctx->intra_op));
  for (int64_t i = 0; i < c->m; i++) grt_mm_activate_row(c->act, c->bias, c->out + i * c->n, c->n);
  return NULL;
}

grt_status* grt_cpu_fused_matmul(grt_kernel_ctx* ctx) {
  if (ctx->n_inputs != 3 || !ctx->inputs[0] || !ctx->inputs[1] || !ctx->inputs[2])
    return GRT_ERROR(INVALID_ARGUMENT,
                     "_FusedMatMul takes a, b and one bias (num_args 1), got %d inputs",
                     (int)ctx->n_inputs);
  const grt_tensor *a = ctx->inputs[0], *b = ctx->inputs[1], *bias = ctx->inputs[2];
  if (a->dtype != GRT_FLOAT32 || b->dtype != GRT_FLOAT32 || bias->dtype != GRT_FLOAT32)
    return GRT_ERROR(UNIMPLEMENTED, "_FusedMatMul on CPU is float32 only, got %s",
                     grt_dtype_name(a->dtype));
  grt_mm_call c = {0};
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "transpose_a", &c.ta));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_bool(ctx, "transpose_b", &c.tb));
  GRT_RETURN_IF_ERROR(grt_cpu_fused_ops(ctx, &c.act));
  char x[GRT_SHAPE_STR_MAX], y[GRT_SHAPE_STR_MAX];
  if (a->shape.rank != 2 || b->shape.rank != 2)
    return GRT_ERROR(INVALID_ARGUMENT, "In[0] and In[1] must be matrices: %s, %s",
                     grt_shape_str(&a->shape, x, sizeof x), grt_shape_str(&b->shape, y, sizeof y));
  c.m = a->shape.dims[c.ta ? 1 : 0];
  c.k = a->shape.dims[c.ta ? 0 : 1];
  c.n = b->shape.dims[c.tb ? 0 : 1];
  if (b->shape.dims[c.tb ? 1 : 0] != c.k)
    return GRT_ERROR(INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: %s, In[1]: %s",
                     grt_shape_str(&a->shape, x, sizeof x), grt_shape_str(&b->shape, y, sizeof y));
  if (bias->shape.rank != 1 || bias->shape.dims[0] != c.n)
    return GRT_ERROR(INVALID_ARGUMENT, "bias must be a vector of %lld elements, got %s",
                     (long long)c.n, grt_shape_str(&bias->shape, x, sizeof x));
  int64_t dims[2] = {c.m, c.n};
  grt_shape os = grt_shape_make(2, dims);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &os, &out));
  c.a = grt_tensor_data(a);
  c.b = grt_tensor_data(b);
  c.bias = grt_tensor_data(bias);
  c.out = grt_tensor_data(out);
  if (c.m == 0 || c.n == 0) return NULL;
  if (grt_matmul_pick_gemv(c.m, c.k, c.n)) return grt_mm_gemv_run(ctx, &c);
  bool dnnl = c.k > 0 && grt_matmul_pick_dnnl(c.m, c.k, c.n, c.ta);
  bool if_packed = c.k > 0 && !dnnl && grt_matmul_pick_dnnl_if_packed(c.m, c.k, c.n, c.ta);
  if (dnnl || if_packed) {
    grt_mm_weights(ctx, &c); /* packed and kept: a Const or an unchanging variable */
    if (dnnl || c.const_b) return grt_mm_dnnl_run(ctx, ctx->state, &c);
  }
  return blas_path(ctx, &c);
}
