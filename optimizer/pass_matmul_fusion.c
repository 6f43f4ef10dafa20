/* Pass "matmul_fusion": a linear layer as converters write it becomes the
 * chain the session's remapper fuses into one _FusedMatMul on packed
 * weights (runtime/session/REWRITE.md): MatMul, BiasAdd, then Relu, Relu6
 * or Elu.
 *
 *   - BatchMatMulV2 (or BatchMatMul) of an activation [..., T, D] by a 2-D
 *     Const weight (torch's nn.Linear on a sequence, through ONNX MatMul):
 *     one GEMM of [prod(...)*T, D] x [D, N] between two Reshapes (views),
 *     instead of a batched product that multiplies each leading index
 *     apart and never packs the weight;
 *   - its one reader, an Add/AddV2 of a Const holding N values aligned
 *     with the last dim (the layer's bias; ONNX Gemm's C), becomes BiasAdd;
 *     a plain MatMul's too;
 *   - that one's one reader, Relu, Relu6, Elu or _Gelu, moves before the
 *     Reshape back, so the remapper sees the whole chain.
 *
 * The last node of the matched chain is replaced by the node standing for
 * it (the Reshape back, the BiasAdd or the activation), which takes its
 * name. Output shapes with more than one unknown leading dim, and devices
 * without float32 MatMul/BiasAdd kernels, are left as written. */
#include <string.h>

#include "base/status.h"
#include "base/tensor.h"
#include "optimizer/passes.h"
#include "optimizer/seq_match.h"

static const char* const kAdd[] = {"Add", "AddV2", "BiasAdd", NULL};
static const char* const kBatch[] = {"BatchMatMulV2", "BatchMatMul", NULL};
/* _Gelu too (a transformer's feed-forward layer): the session's rewrite
 * fuses it into the product on the CPU, and elsewhere it runs as written,
 * on either side of a Reshape alike. */
static const char* const kAct[] = {"Relu", "Relu6", "Elu", "_Gelu", NULL};

typedef struct {
  int32_t mm;   /* the product */
  bool batched; /* BatchMatMul*: reshape around it */
  bool transpose_b;
  int32_t add;     /* the bias node, or -1 */
  int32_t bias;    /* its Const, or -1 */
  int32_t act;     /* the activation, or -1 */
  int32_t end;     /* the last of mm, add, act */
  int64_t d, nout; /* a's last dim, the output's */
  int64_t out_dims[GRT_MAX_RANK];
  int32_t out_rank;
} mm_match;

static bool attr_bool(const grt_node* n, const char* name) {
  const grt_attr_value* v = grt_node_find_attr(n, name);
  return v && v->type == GRT_ATTR_BOOL && v->u.b;
}

/* A float32 Const of nout values whose dims are 1 but the last. */
static bool bias_const(const grt_opt_ctx* c, grt_sm_value v, int64_t nout) {
  const grt_tensor* t = v.port == 0 ? grt_opt_const_value(c, v.node) : NULL;
  if (!t || t->dtype != GRT_FLOAT32 || t->shape.rank < 1 || grt_tensor_num_elements(t) != nout)
    return false;
  return t->shape.dims[t->shape.rank - 1] == nout;
}

/* The product's input 0, which may be a node this pass added: the
 * Reshape back of the layer before, as a feed-forward block's second
 * product reads (grt_sm_input hides those). */
static grt_sm_value activation(const grt_opt_ctx* c, int32_t mm) {
  grt_sm_value v;
  v.node = grt_opt_input_node(c, mm, 0, &v.port);
  return v;
}

static bool match(const grt_opt_ctx* c, int32_t mm, mm_match* m) {
  memset(m, 0, sizeof *m);
  m->mm = mm;
  m->add = m->bias = m->act = -1;
  m->end = mm;
  const grt_node* n = grt_opt_node(c, mm);
  if (grt_opt_is_fixed(c, mm) || n->n_controls > 0 || grt_opt_output_type(c, mm, 0) != GRT_FLOAT32)
    return false;
  const char* type = grt_opt_device_type(c, mm);
  if (!grt_opt_has_kernel(type, "MatMul", "T", GRT_FLOAT32) ||
      !grt_opt_has_kernel(type, "BiasAdd", "T", GRT_FLOAT32))
    return false;
  grt_sm_value a = activation(c, mm), b = grt_sm_input(c, mm, 1);
  if (a.node < 0 || b.node < 0) return false;
  /* Shapes come from the product's own output and the weight, never from
   * `a`: a node this pass added has no shape until the pass returns. */
  const grt_shape* os = grt_opt_output_shape(c, mm, 0);
  if (!os || os->rank < 2) return false;
  m->batched = grt_sm_is_any(c, mm, kBatch);
  if (m->batched) {
    const grt_tensor* w = b.port == 0 ? grt_opt_const_value(c, b.node) : NULL;
    if (attr_bool(n, "adj_x") || !w || w->shape.rank != 2) return false;
    m->transpose_b = attr_bool(n, "adj_y");
    /* A 2-D weight keeps the activation's rank: [..., T, D] x [D, N]. */
    m->d = w->shape.dims[m->transpose_b ? 1 : 0];
    int32_t unknown = 0;
    for (int32_t k = 0; k < os->rank; k++) {
      m->out_dims[k] = os->dims[k];
      if (os->dims[k] < 0) unknown++;
    }
    if (unknown > 1 || os->dims[os->rank - 1] < 0) return false;
    m->out_rank = os->rank;
  } else if (os->rank != 2) {
    return false;
  }
  m->nout = os->dims[os->rank - 1];
  /* The bias: the product's one reader adds a Const vector to it. */
  grt_sm_value mv = {mm, 0};
  int32_t add = grt_sm_inner(c, mm, mm) ? grt_sm_only_use(c, mm) : -1;
  if (m->nout > 0 && grt_sm_is_any(c, add, kAdd) && !grt_opt_is_fixed(c, add) &&
      grt_opt_node(c, add)->n_controls == 0 && bias_const(c, grt_sm_other(c, add, mv), m->nout) &&
      (!grt_sm_is(c, add, "BiasAdd") || grt_sm_input(c, add, 0).node == mm) &&
      strcmp(grt_opt_node(c, add)->device, n->device) == 0) {
    const grt_shape* ads = grt_opt_output_shape(c, add, 0);
    if (ads && ads->rank == os->rank) {
      m->add = add;
      m->bias = grt_sm_other(c, add, mv).node;
      m->end = add;
    }
  }
  if (m->add >= 0) {
    int32_t act = grt_sm_inner(c, m->add, mm) ? grt_sm_only_use(c, m->add) : -1;
    if (grt_sm_is_any(c, act, kAct) && !grt_opt_is_fixed(c, act) &&
        grt_opt_node(c, act)->n_controls == 0 &&
        strcmp(grt_opt_node(c, act)->device, n->device) == 0) {
      m->act = act;
      m->end = act;
    }
  }
  /* Worth doing: a batched product to flatten, or an Add to make BiasAdd. */
  return m->batched || (m->add >= 0 && !grt_sm_is(c, m->add, "BiasAdd"));
}

static grt_status* ints_const(grt_opt_ctx* c, int32_t like, const char* suffix, const int64_t* v,
                              int64_t n, int32_t* out) {
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_INT64, 1, &n, &t));
  memcpy(grt_tensor_data(t), v, (size_t)n * sizeof *v);
  grt_status* s = grt_opt_add_const(c, like, suffix, t, out);
  grt_tensor_free(t);
  return s;
}

static grt_status* reshape(grt_opt_ctx* c, int32_t like, const char* suffix, grt_sm_value x,
                           const int64_t* dims, int32_t rank, int32_t* out) {
  int32_t shape;
  GRT_RETURN_IF_ERROR(ints_const(c, like, "shape", dims, rank, &shape));
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, like, suffix, "Reshape", out));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, *out, x.node, x.port));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, *out, shape, 0));
  grt_graph* g = grt_opt_graph(c);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, *out, "T", GRT_FLOAT32));
  return grt_graph_set_attr_type(g, *out, "Tshape", GRT_INT64);
}

static grt_status* rewrite(grt_opt_ctx* c, const mm_match* m) {
  grt_graph* g = grt_opt_graph(c);
  grt_sm_value a = activation(c, m->mm), b = grt_sm_input(c, m->mm, 1);
  grt_sm_value cur = a;
  if (m->batched) {
    const int64_t flat[2] = {-1, m->d};
    GRT_RETURN_IF_ERROR(reshape(c, m->mm, "flatten", a, flat, 2, &cur.node));
    cur.port = 0;
    int32_t mm;
    GRT_RETURN_IF_ERROR(grt_opt_add_node(c, m->mm, "matmul", "MatMul", &mm));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, mm, cur.node, 0));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, mm, b.node, b.port));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, mm, "T", GRT_FLOAT32));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(g, mm, "transpose_a", false));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_bool(g, mm, "transpose_b", m->transpose_b));
    cur.node = mm;
  } else {
    cur.node = m->mm; /* the MatMul stays */
    cur.port = 0;
  }
  if (m->add >= 0) {
    int32_t bias = m->bias;
    const grt_tensor* bt = grt_opt_const_value(c, bias);
    if (bt->shape.rank != 1) {
      grt_tensor* t;
      int64_t nout = m->nout;
      GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_FLOAT32, 1, &nout, &t));
      memcpy(grt_tensor_data(t), grt_tensor_data(bt), (size_t)nout * sizeof(float));
      grt_status* s = grt_opt_add_const(c, m->add, "bias", t, &bias);
      grt_tensor_free(t);
      GRT_RETURN_IF_ERROR(s);
    }
    int32_t ba;
    GRT_RETURN_IF_ERROR(grt_opt_add_node(c, m->add, "bias_add", "BiasAdd", &ba));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, ba, cur.node, cur.port));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, ba, bias, 0));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, ba, "T", GRT_FLOAT32));
    cur.node = ba;
    cur.port = 0;
  }
  if (m->act >= 0) {
    int32_t act;
    GRT_RETURN_IF_ERROR(
        grt_opt_add_node(c, m->act, "activation", grt_opt_node(c, m->act)->op, &act));
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, act, cur.node, cur.port));
    GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, act, m->act, NULL));
    cur.node = act;
  }
  if (m->batched) {
    int64_t dims[GRT_MAX_RANK];
    for (int32_t k = 0; k < m->out_rank; k++) dims[k] = m->out_dims[k] < 0 ? -1 : m->out_dims[k];
    GRT_RETURN_IF_ERROR(reshape(c, m->end, "unflatten", cur, dims, m->out_rank, &cur.node));
  }
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, m->end, 0, cur.node, 0, true, true));
  if (m->end != m->mm && m->batched) grt_opt_kill(c, m->mm);
  if (m->add >= 0 && m->add != m->end) grt_opt_kill(c, m->add);
  if (m->end != m->mm || m->batched) {
    grt_opt_kill(c, m->end);
    grt_opt_take_name(c, cur.node, m->end);
  }
  return NULL;
}

grt_status* grt_opt_pass_matmul_fusion(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c), flattened = 0, biased = 0;
  for (int32_t i = 0; i < n; i++) {
    mm_match m;
    if (!(grt_sm_is(c, i, "MatMul") || grt_sm_is_any(c, i, kBatch)) || !match(c, i, &m)) continue;
    GRT_RETURN_IF_ERROR(rewrite(c, &m));
    flattened += m.batched;
    biased += m.add >= 0;
  }
  grt_opt_count(c, flattened + biased);
  if (flattened + biased)
    grt_opt_detail(c, "%d batched products on 2-D weights as one GEMM, %d biases as BiasAdd",
                   (int)flattened, (int)biased);
  return NULL;
}
