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
 *   _ScaledDotProductAttention(q, k, v, mask...): over the last two dims,
 *     softmax(scale * q k^T [+ mask]) v (optimizer/pass_attention.c): q is
 *     [..., Sq, D], k [..., Sk, D] (adj_k, as BatchMatMul's adj_y) or
 *     [..., D, Sk] (not adj_k: the K^T the exporters make with a Transpose
 *     of the heads' reshape), v [..., Sk, Dv]; the batch dims broadcast
 *     as BatchMatMul's do; num_mask 0 or 1 masks, added to the logits they
 *     broadcast to ([..., Sq, Sk]) before the softmax. Output [..., Sq, Dv].
 *   _PackedQKVAttention(qkv): the same attention over num_heads heads, read
 *     where a packed in-projection leaves them (optimizer/
 *     pass_attention_heads.c): qkv [S, B, 3 * H * D], the row of position
 *     s and batch b holding q of every head, then k, then v (head h's
 *     q at columns [h * D, (h + 1) * D)), as torch's MultiheadAttention
 *     computes them in one product. Head (b, h) attends over the S
 *     positions; the output [S, B * H, D] is (s, b * H + h, d), the bytes
 *     of [S, B, H * D], which the output projection reads.
 *
 * float32 only. _LayerNorm and _Gelu have CPU and GPU kernels
 * (backends/cuda/seq_fused.cu), so the optimizer makes them on either; the
 * attentions have CPU kernels only. */
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

/* Dim i from the end (1: last), -1 where unknown. */
static int64_t dim_from_end(const grt_shape* s, int32_t i) {
  return s->rank >= i ? s->dims[s->rank - i] : -1;
}

static grt_status* dims_agree(int64_t a, int64_t b, const char* what) {
  if (a >= 0 && b >= 0 && a != b)
    return GRT_ERROR(INVALID_ARGUMENT, "%s differ: %lld vs %lld", what, (long long)a, (long long)b);
  return NULL;
}

/* Output: the broadcast batch dims of q, k and v, then [Sq, Dv]; the depth
 * of q and k and the key count of k and v must agree where known. */
static grt_status* infer_attention(grt_shape_ctx* c) {
  int64_t n_mask;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "num_mask", &n_mask));
  if (n_mask > 1)
    return GRT_ERROR(INVALID_ARGUMENT, "num_mask is %lld; at most one mask is taken",
                     (long long)n_mask);
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 3 + (int32_t)n_mask, 1));
  bool adj_k;
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "adj_k", &adj_k));
  for (int32_t i = 0; i < 3; i++) GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, i, 2));
  const grt_shape *q = &c->input_shapes[0], *k = &c->input_shapes[1], *v = &c->input_shapes[2];
  GRT_RETURN_IF_ERROR(
      dims_agree(dim_from_end(q, 1), dim_from_end(k, adj_k ? 1 : 2), "depths of q and k"));
  GRT_RETURN_IF_ERROR(
      dims_agree(dim_from_end(k, adj_k ? 2 : 1), dim_from_end(v, 2), "key counts of k and v"));
  if (q->rank < 0 || k->rank < 0 || v->rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  grt_shape bq = *q, bk = *k, bv = *v, bqk, batch;
  bq.rank -= 2;
  bk.rank -= 2;
  bv.rank -= 2;
  grt_status* s = grt_infer_broadcast(&bq, &bk, true, &bqk);
  if (!s) s = grt_infer_broadcast(&bqk, &bv, true, &batch);
  if (s) return grt_status_prefix(s, "batch dimensions of q, k and v must broadcast");
  int64_t dims[GRT_MAX_RANK];
  for (int32_t i = 0; i < batch.rank; i++) dims[i] = batch.dims[i];
  dims[batch.rank] = dim_from_end(q, 2);
  dims[batch.rank + 1] = dim_from_end(v, 1);
  return grt_infer_make(batch.rank + 2, dims, &c->output_shapes[0]);
}

/* qkv [S, B, C]: C a multiple of 3 * num_heads where known; output
 * [S, B * H, C / (3 * H)]. */
static grt_status* infer_packed_attention(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  int64_t h;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "num_heads", &h));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 3));
  const grt_shape* x = &c->input_shapes[0];
  if (x->rank < 0) {
    int64_t dims[3] = {-1, -1, -1};
    return grt_infer_make(3, dims, &c->output_shapes[0]);
  }
  int64_t cols = x->dims[2];
  if (cols >= 0 && cols % (3 * h) != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "qkv's last dim %lld is not 3 * num_heads (%lld) * the heads' depth",
                     (long long)cols, (long long)h);
  int64_t dims[3] = {x->dims[0], x->dims[1] < 0 ? -1 : x->dims[1] * h,
                     cols < 0 ? -1 : cols / (3 * h)};
  return grt_infer_make(3, dims, &c->output_shapes[0]);
}

static const grt_op_spec kRows[] = {
    {"_LayerNorm", "x: T, gamma: T, beta: T", "y: T",
     "T: {float32}; epsilon: float = 0.00001; begin_norm_axis: int = -1", 0, infer_layer_norm},
    {"_Gelu", "features: T", "activations: T", "T: {float32}; approximate: bool = false", 0,
     grt_infer_unchanged},
    {"_ScaledDotProductAttention", "q: T, k: T, v: T, mask: num_mask * T", "output: T",
     "T: {float32}; scale: float = 1.0; adj_k: bool = true; num_mask: int >= 0 = 0", 0,
     infer_attention},
    {"_PackedQKVAttention", "qkv: T", "output: T",
     "T: {float32}; scale: float = 1.0; num_heads: int >= 1", 0, infer_packed_attention},
};

GRT_OP_TABLE(grt_ops_fused_seq, "fused_seq", kRows);
