/* Symbolic dims (symbolic.h): each output comes with grt's static shape,
 * a fresh symbol for each unknown dim, and the rules below say which of
 * those are the same size as an input's dim (a Transpose's, a MatMul's
 * rows, a Reshape's target entry). An op without a rule keeps its fresh
 * symbols: sound, only less specific. A known static dim always wins; a
 * rule that makes it another constant fails, naming the node. */
#include <stdint.h>
#include <string.h>

#include "base/status.h"
#include "optimizer/symbolic.h"

static int64_t attr_int(const grt_node* n, const char* name, int64_t dflt) {
  const grt_attr_value* v = grt_node_find_attr(n, name);
  return v && v->type == GRT_ATTR_INT ? v->u.i : dflt;
}

static bool attr_bool(const grt_node* n, const char* name) {
  const grt_attr_value* v = grt_node_find_attr(n, name);
  return v && v->type == GRT_ATTR_BOOL && v->u.b;
}

/* Input k's values when all are constants. */
static bool const_values(const sym_graph* g, int32_t i, int32_t k, int64_t* out, int32_t* n) {
  const sym_out* o = sym_input(g, i, k);
  if (!sym_values_known(o)) return false;
  *n = o->n_values;
  for (int32_t j = 0; j < o->n_values; j++) out[j] = o->values[j].c;
  return true;
}

/* Dim d of o becomes v where the static shape leaves it unknown. */
static grt_status* narrow(sym_graph* g, int32_t i, sym_out* o, int32_t d, sym v) {
  if (v.kind != SYM_CONST && v.kind != SYM_SCALED) return NULL;
  if (o->dims[d].kind != SYM_CONST) {
    o->dims[d] = v;
    return NULL;
  }
  if (v.kind == SYM_CONST && v.c != o->dims[d].c)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "node '%s' (%s): dimension %d of its output is %lld by its inputs' shapes but "
                     "%lld by its inferred shape",
                     grt_opt_node(g->c, i)->name, grt_opt_node(g->c, i)->op, (int)d, (long long)v.c,
                     (long long)o->dims[d].c);
  return NULL;
}

/* ---- rules ------------------------------------------------------------ */

typedef grt_status* (*dims_rule)(sym_graph* g, int32_t i, sym_out* o);

static grt_status* same_dims(sym_graph* g, int32_t i, sym_out* o, int32_t k) {
  const sym_out* x = sym_input(g, i, k);
  if (!x || x->rank != o->rank) return NULL;
  for (int32_t d = 0; d < o->rank; d++) GRT_RETURN_IF_ERROR(narrow(g, i, o, d, x->dims[d]));
  return NULL;
}

static grt_status* unary(sym_graph* g, int32_t i, sym_out* o) { return same_dims(g, i, o, 0); }
static grt_status* like_second(sym_graph* g, int32_t i, sym_out* o) {
  return same_dims(g, i, o, 1);
}

/* NumPy broadcasting: a 1 yields to the other side; equal dims stay. */
static sym broadcast_dim(sym a, sym b) {
  if (a.kind == SYM_CONST && a.c == 1) return b;
  if (b.kind == SYM_CONST && b.c == 1) return a;
  if (sym_equal(a, b)) return a;
  return sym_unknown();
}

static grt_status* broadcast(sym_graph* g, int32_t i, sym_out* o) {
  const grt_node* n = grt_opt_node(g->c, i);
  for (int32_t d = 0; d < o->rank; d++) {
    sym r = sym_const(1);
    for (int32_t k = 0; k < n->n_inputs; k++) {
      const sym_out* x = sym_input(g, i, k);
      if (!x || x->rank < 0) return NULL;
      int32_t at = d - (o->rank - x->rank);
      if (at >= 0) r = broadcast_dim(r, x->dims[at]);
    }
    GRT_RETURN_IF_ERROR(narrow(g, i, o, d, r));
  }
  return NULL;
}

static grt_status* transpose(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = sym_input(g, i, 0);
  int64_t perm[SYM_MAX_VALUES];
  int32_t np = 0;
  if (!x || x->rank != o->rank || !const_values(g, i, 1, perm, &np) || np != o->rank) return NULL;
  for (int32_t d = 0; d < o->rank; d++) {
    int64_t p = perm[d] < 0 ? perm[d] + o->rank : perm[d];
    if (p < 0 || p >= o->rank) return NULL;
    GRT_RETURN_IF_ERROR(narrow(g, i, o, d, x->dims[p]));
  }
  return NULL;
}

static grt_status* matmul(sym_graph* g, int32_t i, sym_out* o) {
  const grt_node* n = grt_opt_node(g->c, i);
  const sym_out* a = sym_input(g, i, 0);
  const sym_out* b = sym_input(g, i, 1);
  bool batch = strcmp(n->op, "MatMul") != 0 && strcmp(n->op, "_FusedMatMul") != 0;
  bool ta = attr_bool(n, batch ? "adj_x" : "transpose_a");
  bool tb = attr_bool(n, batch ? "adj_y" : "transpose_b");
  if (!a || !b || a->rank < 2 || b->rank < 2 || o->rank < 2) return NULL;
  if (!batch && (a->rank != 2 || b->rank != 2)) return NULL;
  GRT_RETURN_IF_ERROR(narrow(g, i, o, o->rank - 2, a->dims[a->rank - (ta ? 1 : 2)]));
  GRT_RETURN_IF_ERROR(narrow(g, i, o, o->rank - 1, b->dims[b->rank - (tb ? 2 : 1)]));
  for (int32_t d = 0; d < o->rank - 2; d++) {
    int32_t da = d - (o->rank - a->rank), db = d - (o->rank - b->rank);
    sym x = da >= 0 ? a->dims[da] : sym_const(1);
    sym y = db >= 0 ? b->dims[db] : sym_const(1);
    GRT_RETURN_IF_ERROR(narrow(g, i, o, d, broadcast_dim(x, y)));
  }
  return NULL;
}

sym sym_reshape_entry(const sym_out* x, const sym_out* t, int32_t d) {
  sym v = t->values[d];
  if (v.kind != SYM_SCALED_UNLESS_ZERO) return v;
  /* c*S but z at S == 0. With x's element count C*S (0 at S == 0) and
   * every other entry a constant > 0, the run at S == 0 fails (z > 0: a
   * product > 0 for 0 elements; z < -1: not a size) or solves z == -1 to
   * 0 == c*0: every run that succeeds has c*S there. */
  if (!x || x->rank < 0) return sym_unknown();
  sym all = sym_const(1);
  for (int32_t k = 0; k < x->rank; k++) all = sym_mul(all, x->dims[k]);
  if (all.kind != SYM_SCALED || all.s != v.s) return sym_unknown();
  for (int32_t k = 0; k < t->n_values; k++)
    if (k != d && (t->values[k].kind != SYM_CONST || t->values[k].c <= 0)) return sym_unknown();
  return (sym){SYM_SCALED, v.s, v.c, 0};
}

/* Reshape: the target's entries, a -1 solved from the element count. */
static grt_status* reshape(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = sym_input(g, i, 0);
  const sym_out* t = sym_input(g, i, 1);
  if (!t || t->n_values != o->rank) return NULL;
  int32_t minus = -1;
  sym rest = sym_const(1);
  for (int32_t d = 0; d < o->rank; d++) {
    sym v = sym_reshape_entry(x, t, d);
    if (v.kind == SYM_CONST && v.c == -1) {
      minus = d;
      continue;
    }
    if (v.kind == SYM_CONST && v.c < 0) return NULL;
    GRT_RETURN_IF_ERROR(narrow(g, i, o, d, v));
    rest = v.kind == SYM_CONST && v.c == 0 ? sym_unknown() : sym_mul(rest, v);
  }
  if (minus < 0 || !x || x->rank < 0) return NULL;
  sym all = sym_const(1);
  for (int32_t d = 0; d < x->rank; d++) all = sym_mul(all, x->dims[d]);
  /* all = rest * m: m = all / rest where that is exact for every size. */
  sym m = sym_unknown();
  if (rest.kind == SYM_CONST && rest.c > 0 && all.kind == SYM_CONST && all.c % rest.c == 0)
    m = sym_const(all.c / rest.c);
  else if (rest.kind == SYM_CONST && rest.c > 0 && all.kind == SYM_SCALED && all.c % rest.c == 0)
    m = (sym){SYM_SCALED, all.s, all.c / rest.c, 0};
  return narrow(g, i, o, minus, m);
}

static grt_status* expand_dims(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = sym_input(g, i, 0);
  int64_t ax[SYM_MAX_VALUES];
  int32_t na = 0;
  if (!x || x->rank + 1 != o->rank || !const_values(g, i, 1, ax, &na) || na != 1) return NULL;
  int64_t a = ax[0] < 0 ? ax[0] + o->rank : ax[0];
  if (a < 0 || a >= o->rank) return NULL;
  for (int32_t d = 0, s = 0; d < o->rank; d++)
    if (d != a) GRT_RETURN_IF_ERROR(narrow(g, i, o, d, x->dims[s++]));
  return NULL;
}

static grt_status* squeeze(sym_graph* g, int32_t i, sym_out* o) {
  const grt_node* n = grt_opt_node(g->c, i);
  const sym_out* x = sym_input(g, i, 0);
  const grt_attr_value* v = grt_node_find_attr(n, "squeeze_dims");
  if (!x || x->rank < 0 || !v || v->type != GRT_ATTR_LIST_INT || v->u.list.n == 0) return NULL;
  bool gone[GRT_MAX_RANK] = {false};
  for (int32_t k = 0; k < v->u.list.n; k++) {
    int64_t a = v->u.list.v.i[k] < 0 ? v->u.list.v.i[k] + x->rank : v->u.list.v.i[k];
    if (a < 0 || a >= x->rank) return NULL;
    gone[a] = true;
  }
  for (int32_t d = 0, at = 0; d < x->rank; d++) {
    if (gone[d]) continue;
    if (at >= o->rank) return NULL;
    GRT_RETURN_IF_ERROR(narrow(g, i, o, at++, x->dims[d]));
  }
  return NULL;
}

static grt_status* concat(sym_graph* g, int32_t i, sym_out* o) {
  const grt_node* n = grt_opt_node(g->c, i);
  int64_t ax[SYM_MAX_VALUES];
  int32_t na = 0;
  if (!const_values(g, i, n->n_inputs - 1, ax, &na) || na != 1 || o->rank < 1) return NULL;
  int64_t a = ax[0] < 0 ? ax[0] + o->rank : ax[0];
  if (a < 0 || a >= o->rank) return NULL;
  sym along = sym_const(0);
  for (int32_t k = 0; k < n->n_inputs - 1; k++) {
    const sym_out* x = sym_input(g, i, k);
    if (!x || x->rank != o->rank) return NULL;
    along = sym_add(along, x->dims[a]);
  }
  GRT_RETURN_IF_ERROR(narrow(g, i, o, (int32_t)a, along));
  const sym_out* x = sym_input(g, i, 0);
  for (int32_t d = 0; d < o->rank; d++)
    if (d != a) GRT_RETURN_IF_ERROR(narrow(g, i, o, d, x->dims[d]));
  return NULL;
}

/* Elements a Slice keeps of a dim of `len` (size -1: to the end);
 * -1 where the kernel would fail. */
static int64_t slice_len(int64_t len, int64_t b, int64_t size) {
  if (size == -1) size = len - b;
  return b < 0 || size < 0 || b + size > len ? -1 : size;
}

/* Elements a StridedSlice keeps of a dim of `len` (Python's rules,
 * clamped as TensorFlow's kernel does). */
static int64_t strided_len(int64_t len, int64_t b, int64_t e, int64_t s, bool bmask, bool emask) {
  if (s == 0) return -1;
  if (s > 0) {
    b = bmask ? 0 : b < 0 ? b + len : b;
    e = emask ? len : e < 0 ? e + len : e;
    b = b < 0 ? 0 : b > len ? len : b;
    e = e < 0 ? 0 : e > len ? len : e;
    return e > b ? (e - b + s - 1) / s : 0;
  }
  b = bmask ? len - 1 : b < 0 ? b + len : b;
  e = emask ? -1 : e < 0 ? e + len : e;
  b = b < -1 ? -1 : b > len - 1 ? len - 1 : b;
  e = e < -1 ? -1 : e > len - 1 ? len - 1 : e;
  return b > e ? (b - e - s - 1) / -s : 0;
}

/* The dims a Slice or StridedSlice keeps whole pass through; those of a
 * known size are counted. */
static grt_status* slice(sym_graph* g, int32_t i, sym_out* o) {
  const grt_node* n = grt_opt_node(g->c, i);
  const sym_out* x = sym_input(g, i, 0);
  bool strided = !strcmp(n->op, "StridedSlice");
  int64_t b[SYM_MAX_VALUES], e[SYM_MAX_VALUES], s[SYM_MAX_VALUES];
  int32_t nb = 0, ne = 0, ns = 0;
  if (!x || x->rank < 0 || !const_values(g, i, 1, b, &nb) || nb > x->rank) return NULL;
  if (!const_values(g, i, 2, e, &ne) || ne != nb) return NULL;
  if (strided) {
    if (!const_values(g, i, 3, s, &ns) || ns != nb) return NULL;
    if (attr_int(n, "ellipsis_mask", 0) || attr_int(n, "new_axis_mask", 0) ||
        attr_int(n, "shrink_axis_mask", 0))
      return NULL;
  }
  /* Without masks that add or drop axes the rank is the input's, which
   * grt's static shape may not have known while begin and end were
   * computed at run time. */
  if (o->rank < 0) {
    o->rank = x->rank;
    for (int32_t d = 0; d < o->rank; d++) o->dims[d] = (sym){SYM_SCALED, g->n_symbols++, 1, 0};
  }
  if (o->rank != x->rank) return NULL;
  int64_t bm = attr_int(n, "begin_mask", 0), em = attr_int(n, "end_mask", 0);
  for (int32_t d = 0; d < x->rank; d++) {
    bool whole = d >= nb;
    if (!whole && strided)
      whole = s[d] == 1 && (b[d] == 0 || (bm >> d & 1)) && (e[d] >= INT32_MAX || (em >> d & 1));
    else if (!whole)
      whole = b[d] == 0 && e[d] == -1; /* Slice's size -1: to the end */
    if (whole) {
      GRT_RETURN_IF_ERROR(narrow(g, i, o, d, x->dims[d]));
    } else if (x->dims[d].kind == SYM_CONST) {
      int64_t len = x->dims[d].c;
      len = strided ? strided_len(len, b[d], e[d], s[d], bm >> d & 1, em >> d & 1)
                    : slice_len(len, b[d], e[d]);
      if (len >= 0) GRT_RETURN_IF_ERROR(narrow(g, i, o, d, sym_const(len)));
    }
  }
  return NULL;
}

/* Convolutions and pools: the batch (dim 0, NHWC or NCHW) passes. */
static grt_status* batch0(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = sym_input(g, i, 0);
  if (!x || x->rank != o->rank || o->rank < 1) return NULL;
  return narrow(g, i, o, 0, x->dims[0]);
}

/* Shape: one entry per input dim (a rank the static shape may not have
 * known). */
static grt_status* shape_op(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = sym_input(g, i, 0);
  if (!x || x->rank < 0 || o->rank != 1) return NULL;
  return narrow(g, i, o, 0, sym_const(x->rank));
}

static grt_status* fill(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* t = sym_input(g, i, 0);
  if (!t || t->n_values != o->rank) return NULL;
  for (int32_t d = 0; d < o->rank; d++) GRT_RETURN_IF_ERROR(narrow(g, i, o, d, t->values[d]));
  return NULL;
}

static const struct {
  const char* op;
  dims_rule fn;
} kRules[] = {
    /* element-wise, one input */
    {"Identity", unary},
    {"StopGradient", unary},
    {"Relu", unary},
    {"Relu6", unary},
    {"Elu", unary},
    {"Selu", unary},
    {"LeakyRelu", unary},
    {"Sigmoid", unary},
    {"Tanh", unary},
    {"Exp", unary},
    {"Log", unary},
    {"Neg", unary},
    {"Abs", unary},
    {"Sqrt", unary},
    {"Rsqrt", unary},
    {"Square", unary},
    {"Reciprocal", unary},
    {"Erf", unary},
    {"Floor", unary},
    {"Ceil", unary},
    {"Round", unary},
    {"Sign", unary},
    {"Softplus", unary},
    {"Softmax", unary},
    {"LogSoftmax", unary},
    {"Cast", unary},
    {"ZerosLike", unary},
    {"OnesLike", unary},
    {"BiasAdd", unary},
    {"_Gelu", unary},
    {"_LayerNorm", unary},
    {"FusedBatchNorm", unary},
    {"FusedBatchNormV3", unary},
    /* element-wise, broadcast */
    {"Add", broadcast},
    {"AddV2", broadcast},
    {"Sub", broadcast},
    {"Mul", broadcast},
    {"Div", broadcast},
    {"RealDiv", broadcast},
    {"TruncateDiv", broadcast},
    {"FloorDiv", broadcast},
    {"FloorMod", broadcast},
    {"Pow", broadcast},
    {"Maximum", broadcast},
    {"Minimum", broadcast},
    {"SquaredDifference", broadcast},
    {"Equal", broadcast},
    {"NotEqual", broadcast},
    {"Less", broadcast},
    {"LessEqual", broadcast},
    {"Greater", broadcast},
    {"GreaterEqual", broadcast},
    {"LogicalAnd", broadcast},
    {"LogicalOr", broadcast},
    {"SelectV2", broadcast},
    {"Select", like_second},
    /* moving dims */
    {"Transpose", transpose},
    {"MatMul", matmul},
    {"_FusedMatMul", matmul},
    {"BatchMatMul", matmul},
    {"BatchMatMulV2", matmul},
    {"BatchMatMulV3", matmul},
    {"Reshape", reshape},
    {"ExpandDims", expand_dims},
    {"Squeeze", squeeze},
    {"ConcatV2", concat},
    {"Slice", slice},
    {"StridedSlice", slice},
    {"Fill", fill},
    {"Shape", shape_op},
    /* the batch through convolutions and pools */
    {"Conv2D", batch0},
    {"_FusedConv2D", batch0},
    {"DepthwiseConv2dNative", batch0},
    {"_FusedDepthwiseConv2dNative", batch0},
    {"_FusedExpandDepthwise", batch0},
    {"MaxPool", batch0},
    {"AvgPool", batch0},
};

grt_status* sym_infer_dims(sym_graph* g, int32_t i, int32_t port, sym_out* o) {
  const char* op = grt_opt_node(g->c, i)->op;
  if (port != 0) return NULL;
  for (size_t r = 0; r < sizeof kRules / sizeof kRules[0]; r++)
    if (!strcmp(kRules[r].op, op)) return kRules[r].fn(g, i, o);
  return NULL;
}
