/* Pass "arithmetic": nodes that return their input unchanged, and pairs
 * that undo each other (grappler's arithmetic optimizer, kept to rewrites
 * that are exact for every value):
 *
 *   x*1, 1*x, x/1                         -> x
 *   x+z, z+x with z = -0.0 (0 for ints)    -> x   (x + +0.0 is not x for x = -0.0)
 *   x-z with z = +0.0 (0 for ints)         -> x   (x - -0.0 is x + +0.0: not x)
 *   Cast to the same dtype                 -> x
 *   Transpose by the identity permutation  -> x
 *   Reshape/Squeeze/ExpandDims chains      -> the nearest value in the chain of
 *                                             the same static shape; else one
 *                                             Reshape of the chain's source
 *   Transpose(Transpose(x, p), q)          -> x when p[q[j]] == j, else one Transpose
 *   Neg(Neg(x))                            -> x
 *
 * The constant operand of x*1 and the like must broadcast to nothing: the
 * node's static shape and dtype equal x's. Every node involved is on one
 * device. A node nothing reads keeps its name (it is a graph output), and
 * one with control inputs is left (it orders something). A node bypassed
 * but still read elsewhere (the inner of a pair) is marked unsafe to feed:
 * the rewritten reader no longer reads it. */
#include <math.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "optimizer/passes.h"

enum { kMaxChain = 16 };

typedef struct value_ref {
  int32_t node, port;
} value_ref;

static bool shape_equal_known(const grt_shape* a, const grt_shape* b) {
  if (!a || !b || a->rank < 0 || a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] < 0 || a->dims[d] != b->dims[d]) return false;
  return true;
}

/* Input k of node i as a value a rule may use: from a live node of the
 * pass's start on i's device, else {-1}. */
static value_ref input_of(grt_opt_ctx* c, int32_t i, int32_t k) {
  value_ref v = {-1, 0};
  int32_t src = grt_opt_input_node(c, i, k, &v.port);
  if (src < 0 || src >= grt_opt_num_nodes(c) || grt_opt_is_dead(c, src) ||
      !grt_opt_same_device(c, src, i))
    return v;
  v.node = src;
  return v;
}

/* Whether node i's output equals value v in dtype and static shape. */
static bool same_as(grt_opt_ctx* c, int32_t i, value_ref v) {
  return v.node >= 0 && grt_opt_output_type(c, i, 0) == grt_opt_output_type(c, v.node, v.port) &&
         shape_equal_known(grt_opt_output_shape(c, i, 0), grt_opt_output_shape(c, v.node, v.port));
}

typedef enum { ONE, NEG_ZERO, POS_ZERO } const_kind;

/* Whether every element of the Const feeding value v is `want`. */
static bool const_all(grt_opt_ctx* c, value_ref v, const_kind want) {
  if (v.node < 0) return false;
  const grt_tensor* t = grt_opt_const_value(c, v.node);
  if (!t || grt_opt_node(c, v.node)->n_controls > 0) return false;
  grt_dtype dt = grt_tensor_dtype(t);
  bool is_float = grt_dtype_is_float(dt);
  if (!is_float && !grt_dtype_is_integer(dt)) return false;
  const void* data = grt_tensor_data(t);
  for (int64_t k = 0; k < grt_tensor_num_elements(t); k++) {
    double x =
        is_float ? grt_dtype_load_double(dt, data, k) : (double)grt_dtype_load_int(dt, data, k);
    bool ok =
        want == ONE ? x == 1.0 : x == 0.0 && (!is_float || !!signbit(x) == (want == NEG_ZERO));
    if (!ok) return false;
  }
  return true;
}

/* The Const int vector feeding value v (a permutation), or false. */
static bool const_ints(grt_opt_ctx* c, value_ref v, int64_t* out, int32_t* n) {
  if (v.node < 0) return false;
  const grt_tensor* t = grt_opt_const_value(c, v.node);
  if (!t || grt_tensor_rank(t) != 1 || !grt_dtype_is_integer(grt_tensor_dtype(t))) return false;
  if (grt_tensor_num_elements(t) > GRT_MAX_RANK) return false;
  *n = (int32_t)grt_tensor_num_elements(t);
  for (int32_t k = 0; k < *n; k++)
    out[k] = grt_dtype_load_int(grt_tensor_dtype(t), grt_tensor_data(t), k);
  return true;
}

/* Node i's readers read v instead; i goes. */
static grt_status* bypass(grt_opt_ctx* c, int32_t i, value_ref v) {
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, v.node, v.port, true, true));
  grt_opt_kill(c, i);
  return NULL;
}

/* A new node `op` standing for i, reading a then b, with i's attrs; it
 * takes i's readers and name. */
static grt_status* replace_by(grt_opt_ctx* c, int32_t i, const char* op, value_ref a, value_ref b) {
  int32_t k = -1;
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, i, "simplified", op, &k));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, k, a.node, a.port));
  GRT_RETURN_IF_ERROR(grt_opt_add_input(c, k, b.node, b.port));
  GRT_RETURN_IF_ERROR(grt_opt_copy_attrs(c, k, i, NULL));
  GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, 0, k, 0, true, true));
  grt_opt_kill(c, i);
  grt_opt_take_name(c, k, i);
  return NULL;
}

static bool op_is(grt_opt_ctx* c, int32_t i, const char* op) {
  return !strcmp(grt_opt_node(c, i)->op, op);
}

static bool reshape_like(grt_opt_ctx* c, int32_t i) {
  return op_is(c, i, "Reshape") || op_is(c, i, "Squeeze") || op_is(c, i, "ExpandDims");
}

/* x*1, x/1, x+(-0), x-(+0) and the mirrored forms: the value kept, or {-1}. */
static value_ref neutral_operand(grt_opt_ctx* c, int32_t i) {
  value_ref none = {-1, 0};
  const grt_node* n = grt_opt_node(c, i);
  if (n->n_inputs != 2) return none;
  value_ref a = input_of(c, i, 0), b = input_of(c, i, 1);
  bool mul = op_is(c, i, "Mul"), add = op_is(c, i, "Add") || op_is(c, i, "AddV2");
  bool div = op_is(c, i, "RealDiv") || op_is(c, i, "Div");
  /* The shape test first: it is cheap, the constant's scan is not. */
  if (mul || add) {
    const_kind k = mul ? ONE : NEG_ZERO;
    if (same_as(c, i, a) && const_all(c, b, k)) return a;
    if (same_as(c, i, b) && const_all(c, a, k)) return b;
  } else if (div && same_as(c, i, a) && const_all(c, b, ONE)) {
    return a;
  } else if (op_is(c, i, "Sub") && same_as(c, i, a) && const_all(c, b, POS_ZERO)) {
    return a;
  }
  return none;
}

static grt_status* simplify(grt_opt_ctx* c, int32_t i, int32_t* done) {
  value_ref x = neutral_operand(c, i);
  if (x.node >= 0) {
    (*done)++;
    return bypass(c, i, x);
  }
  value_ref in = input_of(c, i, 0);
  if (in.node < 0) return NULL;
  if (op_is(c, i, "Cast") && same_as(c, i, in)) {
    (*done)++;
    return bypass(c, i, in);
  }
  if (op_is(c, i, "Neg") && op_is(c, in.node, "Neg") && grt_opt_node(c, in.node)->n_controls == 0) {
    value_ref inner = input_of(c, in.node, 0);
    if (inner.node < 0 || !same_as(c, i, inner)) return NULL;
    grt_opt_mark_feed_unsafe(c, in.node);
    (*done)++;
    return bypass(c, i, inner);
  }
  if (op_is(c, i, "Transpose")) {
    int64_t p[GRT_MAX_RANK], q[GRT_MAX_RANK];
    int32_t np = 0, nq = 0;
    if (!const_ints(c, input_of(c, i, 1), q, &nq)) return NULL;
    bool ident = true;
    for (int32_t j = 0; j < nq; j++) ident &= q[j] == j;
    if (ident && same_as(c, i, in)) {
      (*done)++;
      return bypass(c, i, in);
    }
    if (!op_is(c, in.node, "Transpose") || grt_opt_node(c, in.node)->n_controls > 0) return NULL;
    value_ref x2 = input_of(c, in.node, 0);
    value_ref pv = input_of(c, in.node, 1);
    if (x2.node < 0 || !const_ints(c, pv, p, &np) || np != nq) return NULL;
    int64_t r[GRT_MAX_RANK];
    ident = true;
    for (int32_t j = 0; j < nq; j++) {
      if (q[j] < 0 || q[j] >= np) return NULL;
      r[j] = p[q[j]];
      ident &= r[j] == j;
    }
    grt_opt_mark_feed_unsafe(c, in.node);
    (*done)++;
    if (ident && same_as(c, i, x2)) return bypass(c, i, x2);
    const grt_tensor* qt = grt_opt_const_value(c, input_of(c, i, 1).node);
    grt_tensor* rt = NULL;
    int64_t len = nq;
    GRT_RETURN_IF_ERROR(grt_tensor_new(grt_tensor_dtype(qt), 1, &len, &rt));
    for (int32_t j = 0; j < nq; j++)
      grt_dtype_store_int(grt_tensor_dtype(rt), grt_tensor_data(rt), j, r[j]);
    int32_t k = -1;
    grt_status* st = grt_opt_add_const(c, i, "perm", rt, &k);
    grt_tensor_free(rt);
    if (st) return st;
    return replace_by(c, i, "Transpose", x2, (value_ref){k, 0});
  }
  if (reshape_like(c, i)) {
    /* Up the chain of reshape-likes: the nearest value of i's shape. */
    value_ref chain[kMaxChain + 1];
    int32_t m = 0;
    chain[m++] = in;
    while (m <= kMaxChain && reshape_like(c, chain[m - 1].node) &&
           grt_opt_node(c, chain[m - 1].node)->n_controls == 0) {
      value_ref up = input_of(c, chain[m - 1].node, 0);
      if (up.node < 0) break;
      chain[m++] = up;
    }
    for (int32_t j = 0; j < m; j++) {
      if (!same_as(c, i, chain[j])) continue;
      for (int32_t t = 0; t < j; t++) grt_opt_mark_feed_unsafe(c, chain[t].node);
      (*done)++;
      return bypass(c, i, chain[j]);
    }
    /* Reshape(reshape-like(...(x))) -> Reshape(x): one copy, not several. */
    if (m < 2 || !op_is(c, i, "Reshape")) return NULL;
    value_ref shape = input_of(c, i, 1);
    if (shape.node < 0) return NULL;
    for (int32_t t = 0; t < m - 1; t++) grt_opt_mark_feed_unsafe(c, chain[t].node);
    (*done)++;
    return replace_by(c, i, "Reshape", chain[m - 1], shape);
  }
  return NULL;
}

grt_status* grt_opt_pass_arithmetic(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c);
  int32_t done = 0;
  for (int32_t i = 0; i < n; i++) {
    const grt_node* nd = grt_opt_node(c, i);
    if (grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) || nd->n_controls > 0) continue;
    if (nd->sig.n_outputs != 1 || grt_opt_num_data_uses(c, i) == 0) continue;
    GRT_RETURN_IF_ERROR(simplify(c, i, &done));
  }
  grt_opt_count(c, done);
  return NULL;
}
