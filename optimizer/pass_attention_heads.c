/* Pass "attention_heads": the copies around a fused attention whose q, k
 * and v come out of one packed in-projection, as torch's MultiheadAttention
 * exports it (vision transformers, nn.TransformerEncoder):
 *
 *   P [S, B, 3E] -> StridedSlice [:, :, 0:E]   -> Reshape [S, B*H, D] -> Transpose [1, 0, 2] -> q
 *                -> StridedSlice [:, :, E:2E]  -> Reshape [S, B*H, D] -> Transpose [1, 2, 0] -> k
 *                -> StridedSlice [:, :, 2E:3E] -> Reshape [S, B*H, D] -> Transpose [1, 0, 2] -> v
 *   _ScaledDotProductAttention(q, k, v) [B*H, S, D] -> Transpose [1, 0, 2] -> y [S, B*H, D]
 *
 * becomes y = _PackedQKVAttention(P) (ops/defs_fused_seq.c), whose kernel
 * reads each head's rows where the product left them and writes them where
 * y's reader expects them: three slices and four transposes, each a copy of
 * an [S, B, E] tensor, go (vit_b_16: seven of its copies a layer). The new
 * node takes y's name.
 *
 * Matched only where the chain provably is that view, from the inferred
 * shapes and constant slice bounds (the shape arithmetic the exporters write
 * folds to these when the batch is known: session option `dims`): P is
 * [S, ?, 3E] with S and E known; each slice keeps dims 0 and 1 whole
 * (begin 0, end past the dim or masked, stride 1) and takes E columns at
 * offset 0, E or 2E of dim 2 (q, k, v), with no ellipsis, new or shrunk
 * axes; each reshape turns that [S, B, E] into [S, ?, D] (S and D known, E
 * a multiple of D: the middle dim is then B * E / D, heads after batch);
 * k's transpose is [1, 2, 0] when the attention takes K^T (adj_k false) or
 * [1, 0, 2] when it takes K (adj_k true). No mask. Every swallowed node is
 * read only by the next (grt_sm_inner) and on the attention's device; the
 * last transpose may have other readers (they read the new node).
 *
 * Runs after the last constant folding: the slices' bounds and the
 * reshapes' targets become Consts (and the Shape nodes reading the slices
 * go) only as the shapes of the layers before are known, which the first
 * folding does not reach. Each folding pass gets about one layer further
 * (the Reshape back to [S*B, E] of one layer's output decides the next
 * layer's shapes), so with the batch bound (`dims`) the transformer's first
 * layer matches and the later ones keep their copies; a folding repeated
 * until nothing changes would let every layer match. */
#include <stdbool.h>
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "optimizer/passes.h"
#include "optimizer/seq_match.h"

/* An end at least this large keeps a dim whole whatever its size: the
 * ONNX importer writes 2^62 for "to the end". */
#define END_OF_ANY_DIM ((int64_t)1 << 62)

typedef struct {
  int32_t members[11]; /* 3 x (slice, reshape, transpose), the attention, the last transpose */
  int32_t n;
  grt_sm_value packed;
  int64_t heads;
} heads_match;

/* Element i of the int32/int64 Const `v` of n elements, into *out. */
static bool const_ints(const grt_opt_ctx* c, grt_sm_value v, int64_t n, int64_t* out) {
  const grt_tensor* t = v.node >= 0 && v.port == 0 ? grt_opt_const_value(c, v.node) : NULL;
  if (!t || (t->dtype != GRT_INT32 && t->dtype != GRT_INT64) || t->shape.rank != 1 ||
      grt_tensor_num_elements(t) != n)
    return false;
  for (int64_t i = 0; i < n; i++)
    out[i] = t->dtype == GRT_INT32 ? ((const int32_t*)grt_tensor_data(t))[i]
                                   : ((const int64_t*)grt_tensor_data(t))[i];
  return true;
}

static int64_t attr_int(const grt_opt_ctx* c, int32_t i, const char* name) {
  const grt_attr_value* a = grt_node_attr(grt_opt_node(c, i), name);
  return a && a->type == GRT_ATTR_INT ? a->u.i : 0;
}

/* Whether Transpose node t has the constant perm p of rank 3. */
static bool perm_is(const grt_opt_ctx* c, int32_t t, const int64_t* p) {
  int64_t v[3];
  return grt_sm_is(c, t, "Transpose") && const_ints(c, grt_sm_input(c, t, 1), 3, v) &&
         v[0] == p[0] && v[1] == p[1] && v[2] == p[2];
}

/* Whether StridedSlice s of [S, B, cols] takes all of dims 0 and 1 and
 * columns [off, off + width) of dim 2, stride 1. */
static bool slice_takes(const grt_opt_ctx* c, int32_t s, const grt_shape* in, int64_t off,
                        int64_t width) {
  int64_t b[3], e[3], st[3];
  if (!grt_sm_is(c, s, "StridedSlice") || !const_ints(c, grt_sm_input(c, s, 1), 3, b) ||
      !const_ints(c, grt_sm_input(c, s, 2), 3, e) || !const_ints(c, grt_sm_input(c, s, 3), 3, st))
    return false;
  if (attr_int(c, s, "ellipsis_mask") || attr_int(c, s, "new_axis_mask") ||
      attr_int(c, s, "shrink_axis_mask"))
    return false;
  const int64_t bm = attr_int(c, s, "begin_mask"), em = attr_int(c, s, "end_mask");
  for (int32_t a = 0; a < 3; a++) {
    if (st[a] != 1) return false;
    const int64_t dim = in->dims[a];
    int64_t lo = bm >> a & 1 ? 0 : b[a], hi = em >> a & 1 ? END_OF_ANY_DIM : e[a];
    if (a < 2) {
      if (lo != 0 || (hi < END_OF_ANY_DIM && (dim < 0 || hi < dim))) return false;
      continue;
    }
    /* Dim 2's size is known: negative bounds count from its end, and both
     * clamp to [0, dim], as the kernel does. */
    if (lo < 0) lo += dim;
    if (hi < 0) hi += dim;
    lo = lo < 0 ? 0 : (lo > dim ? dim : lo);
    hi = hi < 0 ? 0 : (hi > dim ? dim : hi);
    if (lo != off || hi - lo != width) return false;
  }
  return true;
}

/* Input `which` (0 q, 1 k, 2 v) of attention node a: Transpose(perm) of
 * Reshape [S, ?, D] of StridedSlice of P [S, ?, 3E]. Sets m->packed on the
 * first call, *depth to D; later calls must agree. */
static bool head_chain(const grt_opt_ctx* c, int32_t a, int32_t which, const int64_t* perm,
                       heads_match* m, int64_t* depth) {
  grt_sm_value x = grt_sm_input(c, a, which);
  int32_t t = x.node;
  if (x.port != 0 || t < 0 || !grt_sm_inner(c, t, a) || !perm_is(c, t, perm)) return false;
  grt_sm_value rv = grt_sm_input(c, t, 0);
  int32_t r = rv.node;
  if (rv.port != 0 || r < 0 || !grt_sm_is(c, r, "Reshape") || !grt_sm_inner(c, r, a)) return false;
  grt_sm_value sv = grt_sm_input(c, r, 0);
  int32_t s = sv.node;
  if (sv.port != 0 || s < 0 || !grt_sm_inner(c, s, a)) return false;
  grt_sm_value p = grt_sm_input(c, s, 0);
  if (which == 0) {
    m->packed = p;
  } else if (!grt_sm_same(p, m->packed)) {
    return false;
  }
  const grt_shape* ps = p.node >= 0 ? grt_opt_output_shape(c, p.node, p.port) : NULL;
  if (!ps || ps->rank != 3 || ps->dims[0] < 0 || ps->dims[2] <= 0 || ps->dims[2] % 3 != 0 ||
      grt_opt_output_type(c, p.node, p.port) != GRT_FLOAT32)
    return false;
  const int64_t e = ps->dims[2] / 3;
  if (!slice_takes(c, s, ps, which * e, e)) return false;
  const grt_shape* rs = grt_opt_output_shape(c, r, 0);
  if (!rs || rs->rank != 3 || rs->dims[0] != ps->dims[0] || rs->dims[2] <= 0 ||
      e % rs->dims[2] != 0 || (which > 0 && rs->dims[2] != *depth))
    return false;
  *depth = rs->dims[2];
  m->members[m->n++] = s;
  m->members[m->n++] = r;
  m->members[m->n++] = t;
  return true;
}

static const int64_t kSwap01[3] = {1, 0, 2};
static const int64_t kKeysLast[3] = {1, 2, 0};

static bool match(const grt_opt_ctx* c, int32_t a, heads_match* m) {
  memset(m, 0, sizeof *m);
  const grt_node* an = grt_opt_node(c, a);
  if (an->n_inputs != 3 || attr_int(c, a, "num_mask") != 0 || !grt_sm_inner(c, a, a)) return false;
  const grt_attr_value* adj = grt_node_attr(an, "adj_k");
  const bool adj_k = !adj || adj->type != GRT_ATTR_BOOL || adj->u.b; /* the op's default: true */
  int64_t depth = 0;
  if (!head_chain(c, a, 0, kSwap01, m, &depth) ||
      !head_chain(c, a, 1, adj_k ? kSwap01 : kKeysLast, m, &depth) ||
      !head_chain(c, a, 2, kSwap01, m, &depth))
    return false;
  const grt_shape* ps = grt_opt_output_shape(c, m->packed.node, m->packed.port);
  m->heads = ps->dims[2] / 3 / depth;
  int32_t y = grt_sm_only_use(c, a);
  const grt_node* yn = grt_opt_node(c, y);
  if (!perm_is(c, y, kSwap01) || grt_opt_is_fixed(c, y) || yn->n_controls != 0 ||
      grt_opt_output_type(c, y, 0) != GRT_FLOAT32 || strcmp(yn->device, an->device) != 0)
    return false;
  m->members[m->n++] = a;
  m->members[m->n++] = y;
  return grt_opt_has_kernel(grt_opt_device_type(c, a), "_PackedQKVAttention", "T", GRT_FLOAT32);
}

grt_status* grt_opt_pass_attention_heads(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), fused = 0;
  for (int32_t i = 0; i < n; i++) {
    heads_match m;
    if (!grt_sm_is(c, i, "_ScaledDotProductAttention") || !match(c, i, &m)) continue;
    const int32_t y = m.members[m.n - 1];
    const grt_attr_value* scale = grt_node_attr(grt_opt_node(c, i), "scale");
    int32_t p;
    GRT_RETURN_IF_ERROR(grt_opt_add_node(c, y, "packed_attention", "_PackedQKVAttention", &p));
    grt_graph* g = grt_opt_graph(c);
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, p, m.packed.node, m.packed.port));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, p, "T", GRT_FLOAT32));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_float(
        g, p, "scale", scale && scale->type == GRT_ATTR_FLOAT ? scale->u.f : 1.0f));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(g, p, "num_heads", m.heads));
    GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, y, 0, p, 0, true, true));
    for (int32_t k = 0; k < m.n; k++) grt_opt_kill(c, m.members[k]);
    grt_opt_take_name(c, p, y);
    fused++;
  }
  grt_opt_count(c, fused);
  if (fused)
    grt_opt_detail(c, "%d attentions read q, k and v from their packed projection", (int)fused);
  return NULL;
}
