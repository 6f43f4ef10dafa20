/* The values of small integer tensors, element by element (symbolic.h):
 * the shape arithmetic ONNX exports write around every Reshape. Each rule
 * is exact for every size its symbols may take (zero included); where it
 * cannot say, the element stays unknown. A rule that meets a value it
 * does not expect (an index out of range, a division by zero) leaves the
 * output unknown: the kernel will report it at run time, as without the
 * optimizer. */
#include <stdint.h>
#include <string.h>

#include "base/checked.h"
#include "base/dtype.h"
#include "optimizer/symbolic.h"

/* ---- one element ------------------------------------------------------ */

static sym scaled(int64_t c, int32_t s) {
  return c == 0 ? sym_const(0) : (sym){SYM_SCALED, s, c, 0};
}

sym sym_add(sym a, sym b) {
  int64_t r;
  if (a.kind == SYM_CONST && b.kind == SYM_CONST)
    return grt_checked_add_i64(a.c, b.c, &r) ? sym_const(r) : sym_unknown();
  if (a.kind == SYM_SCALED && b.kind == SYM_CONST && b.c == 0) return a;
  if (b.kind == SYM_SCALED && a.kind == SYM_CONST && a.c == 0) return b;
  if (a.kind == SYM_SCALED && b.kind == SYM_SCALED && a.s == b.s)
    return grt_checked_add_i64(a.c, b.c, &r) ? scaled(r, a.s) : sym_unknown();
  return sym_unknown();
}

static sym neg(sym a) {
  if ((a.kind == SYM_CONST || a.kind == SYM_SCALED) && a.c != INT64_MIN)
    a.c = -a.c;
  else
    a = sym_unknown();
  return a;
}

static sym sub(sym a, sym b) { return sym_add(a, neg(b)); }

sym sym_mul(sym a, sym b) {
  int64_t r;
  /* 0 times any integer is 0, whatever it is. */
  if ((a.kind == SYM_CONST && a.c == 0) || (b.kind == SYM_CONST && b.c == 0)) return sym_const(0);
  if (a.kind == SYM_CONST && b.kind == SYM_CONST)
    return grt_checked_mul_i64(a.c, b.c, &r) ? sym_const(r) : sym_unknown();
  if (a.kind == SYM_CONST) {
    sym t = a;
    a = b;
    b = t;
  }
  if (a.kind == SYM_SCALED && b.kind == SYM_CONST)
    return grt_checked_mul_i64(a.c, b.c, &r) ? scaled(r, a.s) : sym_unknown();
  return sym_unknown();
}

/* Integer division rounding toward zero (`floor` false) or down. c*S / k
 * is (c/k)*S for every S when k divides c; else unknown. */
static sym divide(sym a, sym b, bool floor) {
  if (b.kind != SYM_CONST || b.c == 0 || (b.c == -1 && a.c == INT64_MIN)) return sym_unknown();
  if (a.kind == SYM_CONST) {
    int64_t q = a.c / b.c;
    if (floor && (a.c % b.c != 0) && ((a.c < 0) != (b.c < 0))) q--;
    return sym_const(q);
  }
  if (a.kind == SYM_SCALED && a.c % b.c == 0) return scaled(a.c / b.c, a.s);
  return sym_unknown();
}

static sym equal(sym a, sym b) {
  if (a.kind == SYM_CONST && b.kind == SYM_CONST) return sym_const(a.c == b.c);
  if (a.kind == SYM_CONST) {
    sym t = a;
    a = b;
    b = t;
  }
  if (a.kind == SYM_SCALED && b.kind == SYM_CONST) {
    /* c*S == k holds for S = k/c only; at k == 0 that is S == 0. */
    if (b.c == 0) return (sym){SYM_IS_ZERO, a.s, 0, 0};
    if (a.c == -1) return b.c > 0 ? sym_const(0) : sym_unknown(); /* -S == k: S = -k */
    if (b.c % a.c != 0 || b.c / a.c < 0) return sym_const(0);
    return sym_unknown();
  }
  if (a.kind == SYM_SCALED && b.kind == SYM_SCALED && a.s == b.s)
    return a.c == b.c ? sym_const(1) : (sym){SYM_IS_ZERO, a.s, 0, 0};
  return sym_unknown();
}

static sym not_equal(sym a, sym b) {
  sym e = equal(a, b);
  return e.kind == SYM_CONST ? sym_const(!e.c) : sym_unknown();
}

/* a < b where that holds for every size: constants, or c*S (S >= 0) of
 * known sign against a constant on the other side of 0. */
static sym less(sym a, sym b) {
  if (a.kind == SYM_CONST && b.kind == SYM_CONST) return sym_const(a.c < b.c);
  if (a.kind == SYM_SCALED && b.kind == SYM_CONST) {
    if (a.c > 0 && b.c <= 0) return sym_const(0); /* a >= 0 */
    if (a.c < 0 && b.c > 0) return sym_const(1);  /* a <= 0 */
  }
  if (a.kind == SYM_CONST && b.kind == SYM_SCALED) {
    if (b.c > 0 && a.c < 0) return sym_const(1);
    if (b.c < 0 && a.c >= 0) return sym_const(0);
  }
  return sym_unknown();
}

static sym negate(sym a) { return a.kind == SYM_CONST ? sym_const(!a.c) : sym_unknown(); }
static sym greater(sym a, sym b) { return less(b, a); }
static sym less_equal(sym a, sym b) { return negate(less(b, a)); }
static sym greater_equal(sym a, sym b) { return negate(less(a, b)); }

/* x where S_s is 0. */
static sym at_zero(sym x, int32_t s) {
  if (x.kind == SYM_SCALED_UNLESS_ZERO && x.s == s) return sym_const(x.z);
  return x.kind == SYM_SCALED && x.s == s ? sym_const(0) : x;
}

static sym select(sym cond, sym t, sym e) {
  if (cond.kind == SYM_CONST) return cond.c ? t : e;
  /* cond is S == 0: where it holds, t and e agree (both at S = 0), so the
   * result is e on every run. ONNX Reshape's "0 copies the input's dim"
   * is this: Select(shape == 0, input dims, shape). */
  if (cond.kind == SYM_IS_ZERO && (t.kind == SYM_CONST || t.kind == SYM_SCALED) &&
      sym_equal(at_zero(t, cond.s), at_zero(e, cond.s)))
    return e;
  /* Else e unless S == 0, where t's constant. */
  sym t0 = at_zero(t, cond.s);
  if (cond.kind == SYM_IS_ZERO && e.kind == SYM_SCALED && e.s == cond.s && t0.kind == SYM_CONST &&
      t0.c != 0)
    return (sym){SYM_SCALED_UNLESS_ZERO, e.s, e.c, t0.c};
  return sym_unknown();
}

/* ---- helpers over outputs --------------------------------------------- */

static bool all_const(const sym_out* o) {
  if (!o || o->n_values < 0) return false;
  for (int32_t k = 0; k < o->n_values; k++)
    if (o->values[k].kind != SYM_CONST) return false;
  return true;
}

bool sym_values_known(const sym_out* o) { return all_const(o); }

/* Input k's single known constant (a scalar or one-element vector). */
static bool scalar_input(const sym_graph* g, int32_t i, int32_t k, int64_t* out) {
  const sym_out* o = sym_input(g, i, k);
  if (!all_const(o) || o->n_values != 1) return false;
  *out = o->values[0].c;
  return true;
}

static const sym_out* values_of(const sym_graph* g, int32_t i, int32_t k) {
  const sym_out* o = sym_input(g, i, k);
  return o && o->n_values >= 0 ? o : NULL;
}

static int64_t attr_int(const grt_node* n, const char* name, int64_t dflt) {
  const grt_attr_value* v = grt_node_find_attr(n, name);
  return v && v->type == GRT_ATTR_INT ? v->u.i : dflt;
}

/* ---- rules: each fills o->values[0 .. o->n_values) ------------------- */

typedef void (*value_rule)(sym_graph* g, int32_t i, sym_out* o);

static void shape_of(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = sym_input(g, i, 0);
  if (!x || x->rank != o->n_values) return;
  for (int32_t d = 0; d < x->rank; d++) o->values[d] = x->dims[d];
}

static void size_of(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = sym_input(g, i, 0);
  if (!x || x->rank < 0 || o->n_values != 1) return;
  sym p = sym_const(1);
  for (int32_t d = 0; d < x->rank; d++) p = sym_mul(p, x->dims[d]);
  o->values[0] = p;
}

static void rank_of(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = sym_input(g, i, 0);
  if (x && x->rank >= 0 && o->n_values == 1) o->values[0] = sym_const(x->rank);
}

/* Same elements, another shape: Reshape, ExpandDims, Squeeze, Identity,
 * Cast from an integer or bool. */
static void same_values(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = values_of(g, i, 0);
  if (!x || x->n_values != o->n_values) return;
  if (!strcmp(grt_opt_node(g->c, i)->op, "Cast")) {
    grt_dtype from = grt_opt_output_type(g->c, grt_opt_input_node(g->c, i, 0, NULL), 0);
    if (!grt_dtype_is_integer(from) && from != GRT_BOOL) return;
    if (grt_opt_output_type(g->c, i, 0) == GRT_BOOL && from != GRT_BOOL) return; /* 5 -> true */
  }
  memcpy(o->values, x->values, (size_t)o->n_values * sizeof *o->values);
}

static void gather(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* p = values_of(g, i, 0);
  const sym_out* idx = values_of(g, i, 1);
  int64_t axis = 0;
  if (!p || p->rank != 1 || !all_const(idx) || idx->n_values != o->n_values) return;
  if (grt_opt_node(g->c, i)->n_inputs > 2 &&
      (!scalar_input(g, i, 2, &axis) || (axis != 0 && axis != -1)))
    return;
  for (int32_t k = 0; k < o->n_values; k++) {
    int64_t j = idx->values[k].c;
    if (j < 0) j += p->n_values; /* ONNX Gather's negative index, as grt imports it */
    if (j < 0 || j >= p->n_values) return;
    o->values[k] = p->values[j];
  }
}

static void concat(sym_graph* g, int32_t i, sym_out* o) {
  const grt_node* n = grt_opt_node(g->c, i);
  bool pack = !strcmp(n->op, "Pack");
  int32_t parts = pack ? n->n_inputs : n->n_inputs - 1, at = 0;
  for (int32_t k = 0; k < parts; k++) {
    const sym_out* x = values_of(g, i, k);
    if (!x || x->rank > 1 || at + x->n_values > o->n_values) return;
    memcpy(o->values + at, x->values, (size_t)x->n_values * sizeof *o->values);
    at += x->n_values;
  }
  if (at != o->n_values) {
    for (int32_t k = 0; k < o->n_values; k++) o->values[k] = sym_unknown();
  }
}

static void slice(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = values_of(g, i, 0);
  int64_t b, size;
  if (!x || x->rank != 1 || !scalar_input(g, i, 1, &b) || !scalar_input(g, i, 2, &size)) return;
  if (size == -1) size = x->n_values - b;
  if (b < 0 || size != o->n_values || b + size > x->n_values) return;
  memcpy(o->values, x->values + b, (size_t)size * sizeof *o->values);
}

static void strided_slice(sym_graph* g, int32_t i, sym_out* o) {
  const grt_node* n = grt_opt_node(g->c, i);
  const sym_out* x = values_of(g, i, 0);
  int64_t b, e, s;
  if (!x || x->rank != 1 || !scalar_input(g, i, 1, &b) || !scalar_input(g, i, 2, &e) ||
      !scalar_input(g, i, 3, &s) || s <= 0)
    return;
  if (attr_int(n, "ellipsis_mask", 0) || attr_int(n, "new_axis_mask", 0)) return;
  int64_t len = x->n_values;
  bool shrink = attr_int(n, "shrink_axis_mask", 0) & 1;
  if (b < 0) b += len;
  if (shrink) {
    if (b < 0 || b >= len || o->n_values != 1) return;
    o->values[0] = x->values[b];
    return;
  }
  if (attr_int(n, "begin_mask", 0) & 1) b = 0;
  if (attr_int(n, "end_mask", 0) & 1) e = len;
  if (e < 0) e += len;
  b = b < 0 ? 0 : b > len ? len : b;
  e = e < 0 ? 0 : e > len ? len : e;
  int32_t m = 0;
  for (int64_t k = b; k < e; k += s) {
    if (m >= o->n_values) return;
    o->values[m++] = x->values[k];
  }
  if (m != o->n_values) o->values[0] = sym_unknown();
}

static void zeros_like(sym_graph* g, int32_t i, sym_out* o) {
  (void)g;
  (void)i;
  for (int32_t k = 0; k < o->n_values; k++) o->values[k] = sym_const(0);
}

static void ones_like(sym_graph* g, int32_t i, sym_out* o) {
  (void)g;
  (void)i;
  for (int32_t k = 0; k < o->n_values; k++) o->values[k] = sym_const(1);
}

/* Element k of output o, as NumPy broadcasting reads it from input x
 * (both of known shape: values are tracked only then). */
static bool elem(const sym_out* x, const sym_out* o, int32_t k, sym* out) {
  if (!x || x->n_values < 0 || x->rank > o->rank) return false;
  int64_t at = 0, stride = 1, rest = k;
  for (int32_t d = o->rank - 1; d >= 0; d--) {
    int64_t size = o->dims[d].c, idx = rest % size;
    rest /= size;
    int32_t xd = d - (o->rank - x->rank);
    if (xd < 0) continue;
    int64_t xsize = x->dims[xd].c;
    if (xsize != 1 && xsize != size) return false;
    at += (xsize == 1 ? 0 : idx) * stride;
    stride *= xsize;
  }
  if (at >= x->n_values) return false;
  *out = x->values[at];
  return true;
}

typedef sym (*binary_fn)(sym, sym);

static sym trunc_div(sym a, sym b) { return divide(a, b, false); }
static sym floor_div(sym a, sym b) { return divide(a, b, true); }

static const struct {
  const char* op;
  binary_fn fn;
} kBinary[] = {
    {"Add", sym_add},           {"AddV2", sym_add},        {"Sub", sub},
    {"Mul", sym_mul},           {"Equal", equal},          {"NotEqual", not_equal},
    {"TruncateDiv", trunc_div}, {"FloorDiv", floor_div},   {"Less", less},
    {"Greater", greater},       {"LessEqual", less_equal}, {"GreaterEqual", greater_equal},
};

static void binary(sym_graph* g, int32_t i, sym_out* o) {
  const char* op = grt_opt_node(g->c, i)->op;
  binary_fn fn = NULL;
  for (size_t r = 0; r < sizeof kBinary / sizeof kBinary[0] && !fn; r++)
    if (!strcmp(kBinary[r].op, op)) fn = kBinary[r].fn;
  /* Div on integers rounds toward zero in grt (TensorFlow's Div). */
  if (!fn) fn = trunc_div;
  const sym_out* a = values_of(g, i, 0);
  const sym_out* b = values_of(g, i, 1);
  sym x, y;
  for (int32_t k = 0; k < o->n_values; k++)
    if (elem(a, o, k, &x) && elem(b, o, k, &y)) o->values[k] = fn(x, y);
}

static void select_values(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* cond = values_of(g, i, 0);
  const sym_out* t = values_of(g, i, 1);
  const sym_out* e = values_of(g, i, 2);
  sym a, b, c;
  for (int32_t k = 0; k < o->n_values; k++)
    if (elem(cond, o, k, &c) && elem(t, o, k, &a) && elem(e, o, k, &b))
      o->values[k] = select(c, a, b);
}

/* Sum or Prod over constant axes. */
static void reduce(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* x = values_of(g, i, 0);
  const sym_out* axes = values_of(g, i, 1);
  if (!x || x->rank < 0 || !all_const(axes)) return;
  bool gone[GRT_MAX_RANK] = {false};
  for (int32_t k = 0; k < axes->n_values; k++) {
    int64_t a = axes->values[k].c < 0 ? axes->values[k].c + x->rank : axes->values[k].c;
    if (a < 0 || a >= x->rank) return;
    gone[a] = true;
  }
  bool prod = !strcmp(grt_opt_node(g->c, i)->op, "Prod");
  sym acc[SYM_MAX_VALUES];
  for (int32_t k = 0; k < o->n_values; k++) acc[k] = sym_const(prod ? 1 : 0);
  /* Each input element goes to the output element of its kept indices. */
  for (int32_t k = 0; k < x->n_values; k++) {
    int64_t at = 0, stride = 1, rest = k;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
      int64_t idx = rest % x->dims[d].c;
      rest /= x->dims[d].c;
      if (gone[d]) continue;
      at += idx * stride;
      stride *= x->dims[d].c;
    }
    if (at >= o->n_values) return;
    acc[at] = prod ? sym_mul(acc[at], x->values[k]) : sym_add(acc[at], x->values[k]);
  }
  memcpy(o->values, acc, (size_t)o->n_values * sizeof *o->values);
}

static void range(sym_graph* g, int32_t i, sym_out* o) {
  int64_t start, limit, delta;
  if (!scalar_input(g, i, 0, &start) || !scalar_input(g, i, 1, &limit) ||
      !scalar_input(g, i, 2, &delta) || delta == 0)
    return;
  int32_t m = 0;
  for (int64_t v = start; delta > 0 ? v < limit : v > limit; v += delta) {
    if (m >= o->n_values) return;
    o->values[m++] = sym_const(v);
  }
  if (m != o->n_values) o->values[0] = sym_unknown();
}

static void fill(sym_graph* g, int32_t i, sym_out* o) {
  const sym_out* v = values_of(g, i, 1);
  if (!v || v->n_values != 1) return;
  for (int32_t k = 0; k < o->n_values; k++) o->values[k] = v->values[0];
}

static const struct {
  const char* op;
  value_rule fn;
} kRules[] = {
    {"Shape", shape_of},
    {"Size", size_of},
    {"Rank", rank_of},
    {"Reshape", same_values},
    {"ExpandDims", same_values},
    {"Squeeze", same_values},
    {"Identity", same_values},
    {"StopGradient", same_values},
    {"Cast", same_values},
    {"GatherV2", gather},
    {"Gather", gather},
    {"ConcatV2", concat},
    {"Pack", concat},
    {"Slice", slice},
    {"StridedSlice", strided_slice},
    {"ZerosLike", zeros_like},
    {"OnesLike", ones_like},
    {"Add", binary},
    {"AddV2", binary},
    {"Sub", binary},
    {"Mul", binary},
    {"Div", binary},
    {"TruncateDiv", binary},
    {"FloorDiv", binary},
    {"Equal", binary},
    {"NotEqual", binary},
    {"Less", binary},
    {"Greater", binary},
    {"LessEqual", binary},
    {"GreaterEqual", binary},
    {"Select", select_values},
    {"SelectV2", select_values},
    {"Sum", reduce},
    {"Prod", reduce},
    {"Range", range},
    {"Fill", fill},
};

void sym_infer_values(sym_graph* g, int32_t i, int32_t port, sym_out* o) {
  const char* op = grt_opt_node(g->c, i)->op;
  if (port != 0) return;
  for (size_t r = 0; r < sizeof kRules / sizeof kRules[0]; r++) {
    if (strcmp(kRules[r].op, op) != 0) continue;
    kRules[r].fn(g, i, o);
    break;
  }
  /* A constant that int32 cannot hold would have wrapped at run time. */
  if (grt_opt_output_type(g->c, i, port) != GRT_INT32) return;
  for (int32_t k = 0; k < o->n_values; k++)
    if (o->values[k].kind == SYM_CONST &&
        (o->values[k].c > INT32_MAX || o->values[k].c < INT32_MIN))
      o->values[k] = sym_unknown();
}
