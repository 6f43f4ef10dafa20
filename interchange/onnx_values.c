/* Values of the small integer tensors a lowering computes from shapes.
 * Lowerings build shapes at run time (Flatten: Reshape(x, Concat(Prod(
 * Slice(Shape(x), 0, axis)), -1))), so grt's shape functions, which take
 * constants only from Const nodes, would leave their outputs unknown. Once
 * a node's inputs are known the importer works the value out here, and
 * grt_graph_infer_node hands it to the consumers' shape functions
 * (onnx_shape.c's value_of). Only values of at most kMaxValue elements of
 * integer or bool type, of the ops below; the graph is not changed (the
 * optimizer folds). Each op's output shape is what grt's shape function
 * inferred: these rules compute elements only. */
#include <string.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"
#include "ops/op_def.h"

enum { kMaxValue = 64 };

/* A node's input or output as the rules see it: shape and elements. */
typedef struct ints {
  grt_shape shape;
  int64_t n;
  int64_t v[kMaxValue];
} ints;

static bool small_int_type(grt_dtype t) {
  return t == GRT_INT32 || t == GRT_INT64 || t == GRT_BOOL;
}

/* The known value of output `port` of node `src`, or NULL. */
const grt_tensor* onnx_known_value(const onnx_import* ctx, int32_t src, int32_t port) {
  const grt_node* n = &ctx->g->nodes[src];
  if (strcmp(n->op, "Const") == 0) {
    const grt_attr_value* v = grt_node_find_attr(n, "value");
    return v && v->type == GRT_ATTR_TENSOR ? v->u.tensor : NULL;
  }
  return port == 0 && src < ctx->n_node_values ? ctx->node_values[src] : NULL;
}

static bool input_value(const onnx_import* ctx, const grt_node* n, int32_t k, ints* out) {
  if (k >= n->n_inputs) return false;
  const grt_tensor* t = onnx_known_value(ctx, n->inputs[k].src, n->inputs[k].port);
  if (!t || !small_int_type(t->dtype)) return false;
  out->n = grt_tensor_num_elements(t);
  if (out->n < 0 || out->n > kMaxValue) return false;
  out->shape = t->shape;
  for (int64_t i = 0; i < out->n; i++)
    out->v[i] = grt_dtype_load_int(t->dtype, grt_tensor_data(t), i);
  return true;
}

static const grt_shape* input_shape(const onnx_import* ctx, const grt_node* n, int32_t k) {
  const grt_node* src = &ctx->g->nodes[n->inputs[k].src];
  return &src->sig.output_shapes[n->inputs[k].port];
}

/* Each rule fills out->v[0..count) for the node's (known) output count. */
typedef bool (*value_rule)(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out);

static bool rule_shape(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  const grt_shape* s = input_shape(ctx, n, 0);
  if (!grt_shape_fully_known(s) || count != s->rank) return false;
  for (int32_t i = 0; i < s->rank; i++) out->v[i] = s->dims[i];
  return true;
}

static bool rule_size(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  const grt_shape* s = input_shape(ctx, n, 0);
  if (count != 1 || !grt_shape_fully_known(s)) return false;
  out->v[0] = strcmp(n->op, "Rank") == 0 ? s->rank : grt_shape_num_elements(s);
  return out->v[0] >= 0;
}

static bool rule_zeros(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  (void)ctx;
  (void)n;
  memset(out->v, 0, (size_t)count * sizeof *out->v);
  return true;
}

/* Identity, Cast, ExpandDims, Squeeze, Reshape: the elements unchanged. */
static bool rule_same(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  ints a;
  if (!input_value(ctx, n, 0, &a) || a.n != count) return false;
  memcpy(out->v, a.v, (size_t)count * sizeof *a.v);
  if (n->sig.output_types[0] == GRT_BOOL)
    for (int64_t i = 0; i < count; i++) out->v[i] = out->v[i] != 0;
  return true;
}

/* ConcatV2 and Pack of vectors/scalars along axis 0. */
static bool rule_concat(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  bool concat = strcmp(n->op, "ConcatV2") == 0;
  int32_t parts = concat ? n->n_inputs - 1 : n->n_inputs;
  if (concat) {
    ints axis;
    if (!input_value(ctx, n, parts, &axis) || axis.n != 1 || axis.v[0] != 0) return false;
  } else {
    const grt_attr_value* axis = grt_node_attr(n, "axis");
    if (axis && axis->type == GRT_ATTR_INT && axis->u.i != 0) return false;
  }
  int64_t at = 0;
  for (int32_t k = 0; k < parts; k++) {
    ints a;
    if (!input_value(ctx, n, k, &a) || a.shape.rank > 1 || at + a.n > count) return false;
    memcpy(out->v + at, a.v, (size_t)a.n * sizeof *a.v);
    at += a.n;
  }
  return at == count;
}

/* Slice(x, begin, size) of a vector. */
static bool rule_slice(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  ints x, begin;
  if (!input_value(ctx, n, 0, &x) || x.shape.rank != 1 || !input_value(ctx, n, 1, &begin) ||
      begin.n != 1 || begin.v[0] < 0 || begin.v[0] + count > x.n)
    return false;
  memcpy(out->v, x.v + begin.v[0], (size_t)count * sizeof *x.v);
  return true;
}

/* GatherV2 of a vector along axis 0. */
static bool rule_gather(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  ints p, idx, axis;
  if (!input_value(ctx, n, 0, &p) || p.shape.rank != 1 || !input_value(ctx, n, 1, &idx) ||
      idx.n != count || !input_value(ctx, n, 2, &axis) || axis.n != 1 || axis.v[0] != 0)
    return false;
  for (int64_t i = 0; i < count; i++) {
    if (idx.v[i] < 0 || idx.v[i] >= p.n) return false;
    out->v[i] = p.v[idx.v[i]];
  }
  return true;
}

/* Prod and Sum of a vector over axis 0 (to a scalar or, kept, [1]). */
static bool rule_reduce(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  ints x, axes;
  if (count != 1 || !input_value(ctx, n, 0, &x) || x.shape.rank != 1 ||
      !input_value(ctx, n, 1, &axes) || axes.n != 1 || (axes.v[0] != 0 && axes.v[0] != -1))
    return false;
  bool prod = strcmp(n->op, "Prod") == 0;
  int64_t r = prod ? 1 : 0;
  for (int64_t i = 0; i < x.n; i++) {
    if (x.v[i] < 0 || x.v[i] > (INT64_C(1) << 31)) return false;
    r = prod ? r * x.v[i] : r + x.v[i];
    if (r > (INT64_C(1) << 40)) return false;
  }
  out->v[0] = r;
  return true;
}

/* Integer binary ops, by grt name; false when the result is not defined
 * (a zero divisor). Operands are within +-2^40, so nothing overflows. */
static bool add(int64_t x, int64_t y, int64_t* r) { return *r = x + y, true; }
static bool sub(int64_t x, int64_t y, int64_t* r) { return *r = x - y, true; }
static bool mul(int64_t x, int64_t y, int64_t* r) { return *r = x * y, true; }
static bool max2(int64_t x, int64_t y, int64_t* r) { return *r = x > y ? x : y, true; }
static bool min2(int64_t x, int64_t y, int64_t* r) { return *r = x < y ? x : y, true; }
static bool eq(int64_t x, int64_t y, int64_t* r) { return *r = x == y, true; }
static bool ne(int64_t x, int64_t y, int64_t* r) { return *r = x != y, true; }
static bool lt(int64_t x, int64_t y, int64_t* r) { return *r = x < y, true; }
static bool le(int64_t x, int64_t y, int64_t* r) { return *r = x <= y, true; }
static bool gt(int64_t x, int64_t y, int64_t* r) { return *r = x > y, true; }
static bool ge(int64_t x, int64_t y, int64_t* r) { return *r = x >= y, true; }
static bool floor_div(int64_t x, int64_t y, int64_t* r) {
  if (y == 0) return false;
  *r = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
  return true;
}
static bool floor_mod(int64_t x, int64_t y, int64_t* r) {
  int64_t q;
  if (!floor_div(x, y, &q)) return false;
  *r = x - y * q;
  return true;
}

typedef struct binary_row {
  const char* op;
  bool (*fn)(int64_t x, int64_t y, int64_t* r);
} binary_row;

static const binary_row kBinary[] = {
    {"AddV2", add},
    {"Add", add},
    {"Sub", sub},
    {"Mul", mul},
    {"Maximum", max2},
    {"Minimum", min2},
    {"Equal", eq},
    {"NotEqual", ne},
    {"Less", lt},
    {"LessEqual", le},
    {"Greater", gt},
    {"GreaterEqual", ge},
    {"FloorDiv", floor_div},
    {"FloorMod", floor_mod},
};

bool onnx_int_binary(const char* op, int64_t x, int64_t y, int64_t* r) {
  const int64_t kBig = INT64_C(1) << 40;
  if (x < -kBig || x > kBig || y < -kBig || y > kBig) return false;
  for (size_t i = 0; i < sizeof kBinary / sizeof kBinary[0]; i++)
    if (strcmp(kBinary[i].op, op) == 0) return kBinary[i].fn(x, y, r);
  return false;
}

/* Element-wise binary ops; a side of one element broadcasts. */
static bool rule_binary(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  ints a, b;
  if (!input_value(ctx, n, 0, &a) || !input_value(ctx, n, 1, &b)) return false;
  if ((a.n != count && a.n != 1) || (b.n != count && b.n != 1)) return false;
  for (int64_t i = 0; i < count; i++)
    if (!onnx_int_binary(n->op, a.v[a.n == 1 ? 0 : i], b.v[b.n == 1 ? 0 : i], &out->v[i]))
      return false;
  return true;
}

/* Select(cond, a, b): cond of one element or of the output's count. */
static bool rule_select(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  ints c, a, b;
  if (!input_value(ctx, n, 0, &c) || !input_value(ctx, n, 1, &a) || !input_value(ctx, n, 2, &b) ||
      a.n != count || b.n != count || (c.n != count && c.n != 1))
    return false;
  for (int64_t i = 0; i < count; i++) out->v[i] = c.v[c.n == 1 ? 0 : i] ? a.v[i] : b.v[i];
  return true;
}

/* Fill(dims, value). */
static bool rule_fill(const onnx_import* ctx, const grt_node* n, int64_t count, ints* out) {
  ints v;
  if (!input_value(ctx, n, 1, &v) || v.n != 1) return false;
  for (int64_t i = 0; i < count; i++) out->v[i] = v.v[0];
  return true;
}

typedef struct value_row {
  const char* op;
  value_rule rule;
} value_row;

static const value_row kRules[] = {
    {"Shape", rule_shape},      {"Size", rule_size},       {"Rank", rule_size},
    {"ZerosLike", rule_zeros},  {"Identity", rule_same},   {"Cast", rule_same},
    {"ExpandDims", rule_same},  {"Squeeze", rule_same},    {"Reshape", rule_same},
    {"ConcatV2", rule_concat},  {"Pack", rule_concat},     {"Slice", rule_slice},
    {"GatherV2", rule_gather},  {"Prod", rule_reduce},     {"Sum", rule_reduce},
    {"AddV2", rule_binary},     {"Add", rule_binary},      {"Sub", rule_binary},
    {"Mul", rule_binary},       {"Maximum", rule_binary},  {"Minimum", rule_binary},
    {"Equal", rule_binary},     {"NotEqual", rule_binary}, {"Less", rule_binary},
    {"LessEqual", rule_binary}, {"Greater", rule_binary},  {"GreaterEqual", rule_binary},
    {"FloorDiv", rule_binary},  {"FloorMod", rule_binary}, {"Select", rule_select},
    {"SelectV2", rule_select},  {"Fill", rule_fill},
};

grt_status* onnx_value_node(onnx_import* ctx, int32_t index) {
  const grt_node* n = &ctx->g->nodes[index];
  if (n->sig.n_outputs < 1 || !small_int_type(n->sig.output_types[0])) return NULL;
  const grt_shape* s = &n->sig.output_shapes[0];
  int64_t count = grt_shape_num_elements(s);
  if (!grt_shape_fully_known(s) || count < 0 || count > kMaxValue) return NULL;
  const value_row* row = NULL;
  for (size_t i = 0; i < sizeof kRules / sizeof kRules[0] && !row; i++)
    if (strcmp(kRules[i].op, n->op) == 0) row = &kRules[i];
  ints out;
  if (!row || !row->rule(ctx, n, count, &out)) return NULL;
  if (index >= ctx->n_node_values) {
    int32_t cap = ctx->n_node_values ? ctx->n_node_values : 256;
    while (cap <= index) cap *= 2;
    grt_tensor** grown = grt_realloc(ctx->node_values, (size_t)cap * sizeof *grown);
    if (!grown) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory inferring shapes");
    memset(grown + ctx->n_node_values, 0, (size_t)(cap - ctx->n_node_values) * sizeof *grown);
    ctx->node_values = grown;
    ctx->n_node_values = cap;
  }
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_tensor_new(n->sig.output_types[0], s->rank, s->dims, &t));
  for (int64_t i = 0; i < count; i++)
    grt_dtype_store_int(t->dtype, grt_tensor_data(t), i, out.v[i]);
  grt_tensor_free(ctx->node_values[index]);
  ctx->node_values[index] = t;
  return NULL;
}

void onnx_values_free(onnx_import* ctx) {
  for (int32_t i = 0; i < ctx->n_node_values; i++) grt_tensor_free(ctx->node_values[i]);
  grt_free(ctx->node_values);
}
