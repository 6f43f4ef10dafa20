/* Pass "attention": scaled dot-product attention as exporters spell it out,
 *   MatMul(Q, K^T) -> scale -> [Add mask] -> Softmax -> MatMul(., V)
 * becomes one _ScaledDotProductAttention, whose CPU kernel keeps each
 * block of the [Sq, Sk] attention matrix in cache instead of writing the
 * logits, the scaled logits and the probabilities out and reading them back
 * (ops/defs_fused_seq.c). The node standing for the last MatMul takes its
 * name.
 *
 * Matched from the Softmax (over the last dim, as TensorFlow's always is).
 * The products are BatchMatMul/BatchMatMulV2 without adj_x or MatMul
 * without transpose_a; the second takes V as written (adj_y false). K^T is
 * the first product's second operand as written (adj_k false: the
 * exporters' Transpose of the heads' reshape to [..., D, Sk]), or K itself
 * where the product transposes it (adj_y / transpose_b) or where that
 * operand is a Transpose swapping the last two dims (adj_k true). The
 * scale is any of: a Mul or RealDiv of Q (torch's MultiheadAttention
 * divides Q by sqrt(D) before the product), of K^T, or of the product, by a
 * float32 scalar Const; several multiply. The mask is an Add of the scaled
 * product and a float32 tensor no larger than the logits (each dim 1 or the
 * logits' known dim), so the sum has the product's shape.
 *
 * Every node of the chain but the last is read only by the next one (a
 * fetched or shared intermediate leaves the chain as written), all on one
 * device with a float32 _ScaledDotProductAttention kernel. */
#include <stdbool.h>
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "optimizer/passes.h"
#include "optimizer/seq_match.h"

static const char* const kAdd[] = {"Add", "AddV2", NULL};
static const char* const kBatchMatMul[] = {"BatchMatMul", "BatchMatMulV2", NULL};

typedef struct {
  grt_sm_value q, k, v, mask; /* mask.node -1: none */
  bool adj_k;
  float scale;
  int32_t members[10];
  int32_t n;
  int32_t end;
} attn_match;

static bool attr_bool(const grt_opt_ctx* c, int32_t i, const char* name) {
  const grt_attr_value* a = grt_node_attr(grt_opt_node(c, i), name);
  return a && a->type == GRT_ATTR_BOOL && a->u.b;
}

/* A product node: its transpose attrs (false when absent). */
static bool is_product(const grt_opt_ctx* c, int32_t i, bool* ta, bool* tb) {
  if (grt_sm_is_any(c, i, kBatchMatMul)) {
    *ta = attr_bool(c, i, "adj_x");
    *tb = attr_bool(c, i, "adj_y");
    return true;
  }
  if (grt_sm_is(c, i, "MatMul")) {
    *ta = attr_bool(c, i, "transpose_a");
    *tb = attr_bool(c, i, "transpose_b");
    return true;
  }
  return false;
}

/* Whether k is a float32 Const of one element whose rank is no more than
 * `other`'s (so multiplying by it adds no dims): its value in *f. */
static bool scalar_factor(const grt_opt_ctx* c, grt_sm_value k, grt_sm_value other, float* f) {
  if (k.port != 0 || other.node < 0 || !grt_sm_const_scalar(c, k.node, f)) return false;
  const grt_shape* os = grt_opt_output_shape(c, other.node, other.port);
  return os && os->rank >= grt_opt_const_value(c, k.node)->shape.rank;
}

/* Value x, read by the chain: a Mul/RealDiv of y by a scalar Const, inner,
 * is swallowed (its factor into m->scale) and y returned; else x. */
static grt_sm_value strip_scale(const grt_opt_ctx* c, grt_sm_value x, int32_t like, attn_match* m) {
  float f;
  if (x.port != 0 || m->n >= 10 || !grt_sm_inner(c, x.node, like)) return x;
  if (grt_sm_is(c, x.node, "RealDiv")) {
    if (!scalar_factor(c, grt_sm_input(c, x.node, 1), grt_sm_input(c, x.node, 0), &f) || f == 0.0f)
      return x;
    m->scale /= f;
  } else if (grt_sm_is(c, x.node, "Mul")) {
    grt_sm_value a = grt_sm_input(c, x.node, 0), b = grt_sm_input(c, x.node, 1);
    if (scalar_factor(c, a, b, &f)) {
      a = b;
    } else if (!scalar_factor(c, b, a, &f)) {
      return x;
    }
    m->scale *= f;
    m->members[m->n++] = x.node;
    return a;
  } else {
    return x;
  }
  m->members[m->n++] = x.node;
  return grt_sm_input(c, x.node, 0);
}

/* Whether Transpose node t's constant perm swaps the last two dims and
 * keeps the others in place. */
static bool swaps_last_two(const grt_opt_ctx* c, int32_t t) {
  grt_sm_value p = grt_sm_input(c, t, 1);
  const grt_tensor* perm = p.node >= 0 ? grt_opt_const_value(c, p.node) : NULL;
  if (!perm || (perm->dtype != GRT_INT32 && perm->dtype != GRT_INT64)) return false;
  int64_t n = grt_tensor_num_elements(perm);
  if (n < 2) return false;
  for (int64_t i = 0; i < n; i++) {
    int64_t v = perm->dtype == GRT_INT32 ? ((const int32_t*)grt_tensor_data(perm))[i]
                                         : ((const int64_t*)grt_tensor_data(perm))[i];
    int64_t want = i < n - 2 ? i : (i == n - 2 ? n - 1 : n - 2);
    if (v != want) return false;
  }
  return true;
}

/* The mask may be added when it broadcasts to the logits without growing
 * them: rank no larger, each dim 1 or the logits' known dim. */
static bool mask_fits(const grt_opt_ctx* c, grt_sm_value mask, int32_t logits) {
  if (mask.node < 0 || grt_opt_output_type(c, mask.node, mask.port) != GRT_FLOAT32) return false;
  const grt_shape* ms = grt_opt_output_shape(c, mask.node, mask.port);
  const grt_shape* ls = grt_opt_output_shape(c, logits, 0);
  if (!ms || !ls || ms->rank < 0 || ls->rank < 0 || ms->rank > ls->rank) return false;
  for (int32_t i = 0; i < ms->rank; i++) {
    int64_t md = ms->dims[ms->rank - 1 - i], ld = ls->dims[ls->rank - 1 - i];
    if (md != 1 && (md < 0 || md != ld)) return false;
  }
  return true;
}

static bool match(const grt_opt_ctx* c, int32_t sm, attn_match* m) {
  memset(m, 0, sizeof *m);
  m->scale = 1.0f;
  m->mask.node = m->mask.port = -1;
  bool ta, tb;
  /* Softmax -> the second product, as its left operand. */
  int32_t p2 = grt_sm_only_use(c, sm);
  if (!grt_sm_inner(c, sm, sm) || !is_product(c, p2, &ta, &tb) || ta || tb) return false;
  grt_sm_value smv = {sm, 0};
  if (!grt_sm_same(grt_sm_input(c, p2, 0), smv)) return false;
  m->v = grt_sm_input(c, p2, 1);
  m->members[m->n++] = sm;
  /* Softmax's input: [Add mask] of the scaled product. */
  grt_sm_value x = grt_sm_input(c, sm, 0);
  if (x.port == 0 && grt_sm_is_any(c, x.node, kAdd) && grt_sm_inner(c, x.node, sm)) {
    int32_t add = x.node;
    for (int32_t side = 0; side < 2 && m->mask.node < 0; side++) {
      grt_sm_value a = grt_sm_input(c, add, side), b = grt_sm_input(c, add, 1 - side);
      attn_match probe = *m;
      grt_sm_value inner = strip_scale(c, a, sm, &probe);
      bool pa, pb;
      if (inner.port == 0 && is_product(c, inner.node, &pa, &pb) && !pa &&
          grt_sm_inner(c, inner.node, sm) && mask_fits(c, b, inner.node)) {
        m->mask = b;
        m->members[m->n++] = add;
        x = a;
      }
    }
  }
  x = strip_scale(c, x, sm, m);
  x = strip_scale(c, x, sm, m);
  int32_t p1 = x.node;
  if (x.port != 0 || !is_product(c, p1, &ta, &tb) || ta || !grt_sm_inner(c, p1, sm)) return false;
  m->members[m->n++] = p1;
  m->q = strip_scale(c, grt_sm_input(c, p1, 0), sm, m);
  grt_sm_value kt = strip_scale(c, grt_sm_input(c, p1, 1), sm, m);
  if (tb) {
    m->k = kt;
    m->adj_k = true;
  } else if (kt.port == 0 && grt_sm_is(c, kt.node, "Transpose") && grt_sm_inner(c, kt.node, sm) &&
             swaps_last_two(c, kt.node) && m->n < 10) {
    m->members[m->n++] = kt.node;
    m->k = grt_sm_input(c, kt.node, 0);
    m->adj_k = true;
  } else {
    m->k = kt;
    m->adj_k = false;
  }
  grt_sm_value in[3] = {m->q, m->k, m->v};
  for (int32_t i = 0; i < 3; i++)
    if (in[i].node < 0 || grt_opt_output_type(c, in[i].node, in[i].port) != GRT_FLOAT32)
      return false;
  m->end = p2;
  const grt_node* end = grt_opt_node(c, p2);
  return !grt_opt_is_fixed(c, p2) && end->n_controls == 0 && end->sig.n_outputs == 1 &&
         grt_opt_output_type(c, p2, 0) == GRT_FLOAT32 &&
         strcmp(end->device, grt_opt_node(c, sm)->device) == 0 &&
         grt_opt_has_kernel(grt_opt_device_type(c, sm), "_ScaledDotProductAttention", "T",
                            GRT_FLOAT32);
}

grt_status* grt_opt_pass_attention(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), fused = 0, masked = 0;
  for (int32_t i = 0; i < n; i++) {
    attn_match m;
    if (!grt_sm_is(c, i, "Softmax") || !match(c, i, &m)) continue;
    int32_t a;
    GRT_RETURN_IF_ERROR(grt_opt_add_node(c, m.end, "attention", "_ScaledDotProductAttention", &a));
    grt_graph* g = grt_opt_graph(c);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, a, m.q.node, m.q.port));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, a, m.k.node, m.k.port));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, a, m.v.node, m.v.port));
    if (m.mask.node >= 0) GRT_RETURN_IF_ERROR(grt_opt_add_input(c, a, m.mask.node, m.mask.port));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, a, "T", GRT_FLOAT32));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(g, a, "scale", m.scale));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(g, a, "adj_k", m.adj_k));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, a, "num_mask", m.mask.node >= 0 ? 1 : 0));
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, m.end, 0, a, 0, true, true));
    for (int32_t k = 0; k < m.n; k++) grt_opt_kill(c, m.members[k]);
    grt_opt_kill(c, m.end);
    grt_opt_take_name(c, a, m.end);
    fused++;
    masked += m.mask.node >= 0;
  }
  grt_opt_count(c, fused);
  if (fused)
    grt_opt_detail(c, "%d attention blocks (%d masked) into _ScaledDotProductAttention", (int)fused,
                   (int)masked);
  return NULL;
}
