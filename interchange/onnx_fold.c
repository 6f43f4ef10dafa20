/* Folding shape arithmetic at import. Exported models compute shapes at run
 * time (Shape -> Gather -> Unsqueeze -> Concat -> Reshape); once the
 * input's shape is inferred those are constants, and a Reshape, Expand or
 * Resize whose shape input is a constant is converted as one (and is
 * cheaper to run). A node is folded when it is one of the few ops below and
 * its inputs are known now: Shape and Size of a fully known shape, the rest
 * of small (<= kMaxFold elements) int32/int64 constants. The node becomes a
 * Const of its name; anything else is converted as usual. */
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

enum { kMaxFold = 64 };

/* A small integer vector being folded: its shape and values. */
typedef struct folded {
  grt_dtype dtype;
  grt_shape shape;
  int64_t v[kMaxFold];
} folded;

/* Input k as a small integer constant; false when it is not one. */
static bool const_input(onnx_import* ctx, int k, folded* out) {
  const onnx_value* v;
  if (!onnx_has_input(ctx, k)) return false;
  grt_status* s = onnx_input(ctx, k, &v);
  if (s) {
    grt_status_free(s);
    return false;
  }
  const grt_tensor* t = v->constant;
  if (!t || (t->dtype != GRT_INT64 && t->dtype != GRT_INT32)) return false;
  int64_t n = grt_tensor_num_elements(t);
  if (n < 0 || n > kMaxFold) return false;
  out->dtype = t->dtype;
  out->shape = t->shape;
  for (int64_t i = 0; i < n; i++) out->v[i] = grt_dtype_load_int(t->dtype, grt_tensor_data(t), i);
  return true;
}

static int64_t count(const folded* f) { return grt_shape_num_elements(&f->shape); }

static bool make_vector(folded* f, grt_dtype t, int64_t n) {
  if (n < 0 || n > kMaxFold) return false;
  f->dtype = t;
  f->shape.rank = 1;
  f->shape.dims[0] = n;
  return true;
}

/* An int attr of the node (dflt when absent); false when malformed. */
static bool attr_int(onnx_import* ctx, const char* name, int64_t dflt, int64_t* out) {
  grt_status* s = onnx_attr_int(ctx, name, dflt, out);
  if (s) grt_status_free(s);
  return !s;
}

static bool fold_shape(onnx_import* ctx, folded* out) {
  const onnx_value* x;
  grt_status* s = onnx_input(ctx, 0, &x);
  if (s) grt_status_free(s);
  const grt_shape* sh = s ? NULL : onnx_shape(ctx, x);
  if (!sh || !grt_shape_fully_known(sh)) return false;
  int64_t start, end;
  if (!attr_int(ctx, "start", 0, &start) || !attr_int(ctx, "end", sh->rank, &end)) return false;
  if (start < 0) start += sh->rank;
  if (end < 0) end += sh->rank;
  start = start < 0 ? 0 : start > sh->rank ? sh->rank : start;
  end = end < start ? start : end > sh->rank ? sh->rank : end;
  if (!make_vector(out, GRT_INT64, end - start)) return false;
  for (int64_t i = start; i < end; i++) out->v[i - start] = sh->dims[i];
  return true;
}

static bool fold_size(onnx_import* ctx, folded* out) {
  const onnx_value* x;
  grt_status* s = onnx_input(ctx, 0, &x);
  if (s) grt_status_free(s);
  const grt_shape* sh = s ? NULL : onnx_shape(ctx, x);
  if (!sh || !grt_shape_fully_known(sh)) return false;
  out->dtype = GRT_INT64;
  out->shape = grt_shape_scalar();
  out->v[0] = grt_shape_num_elements(sh);
  return out->v[0] >= 0;
}

/* Gather along axis 0 of a 1-D constant (the dims of a shape). */
static bool fold_gather(onnx_import* ctx, folded* out) {
  folded data, idx;
  int64_t axis;
  if (!const_input(ctx, 0, &data) || !const_input(ctx, 1, &idx) || data.shape.rank != 1 ||
      !attr_int(ctx, "axis", 0, &axis) || (axis != 0 && axis != -1))
    return false;
  int64_t n = data.shape.dims[0];
  *out = idx;
  out->dtype = data.dtype;
  for (int64_t i = 0; i < count(&idx); i++) {
    int64_t k = idx.v[i] < 0 ? idx.v[i] + n : idx.v[i];
    if (k < 0 || k >= n) return false; /* left for the converter to report */
    out->v[i] = data.v[k];
  }
  return true;
}

static bool fold_concat(onnx_import* ctx, folded* out) {
  int64_t axis;
  if (!attr_int(ctx, "axis", 0, &axis) || (axis != 0 && axis != -1)) return false;
  int64_t n = 0;
  for (int k = 0; k < (int)ctx->node->n_input; k++) {
    folded part;
    if (!const_input(ctx, k, &part) || part.shape.rank != 1 || n + count(&part) > kMaxFold)
      return false;
    if (k > 0 && part.dtype != out->dtype) return false;
    out->dtype = part.dtype;
    memcpy(out->v + n, part.v, (size_t)count(&part) * sizeof *part.v);
    n += count(&part);
  }
  return ctx->node->n_input > 0 && make_vector(out, out->dtype, n);
}

/* Unsqueeze and Squeeze keep the values; only the shape changes. */
static bool axes_of(onnx_import* ctx, folded* axes) {
  const int64_t* a;
  size_t n;
  grt_status* s = onnx_attr_ints(ctx, "axes", &a, &n);
  if (s) {
    grt_status_free(s);
    return false;
  }
  if (a) {
    if (n > kMaxFold) return false;
    memcpy(axes->v, a, n * sizeof *a);
    return make_vector(axes, GRT_INT64, (int64_t)n);
  }
  if (onnx_has_input(ctx, 1)) return const_input(ctx, 1, axes);
  return make_vector(axes, GRT_INT64, 0);
}

static bool fold_unsqueeze(onnx_import* ctx, folded* out) {
  folded axes;
  if (!const_input(ctx, 0, out) || !axes_of(ctx, &axes)) return false;
  int32_t rank = out->shape.rank + (int32_t)count(&axes);
  if (rank > GRT_MAX_RANK || count(&axes) == 0) return false;
  bool inserted[GRT_MAX_RANK] = {false};
  for (int64_t i = 0; i < count(&axes); i++) {
    int64_t a = axes.v[i] < 0 ? axes.v[i] + rank : axes.v[i];
    if (a < 0 || a >= rank || inserted[a]) return false;
    inserted[a] = true;
  }
  grt_shape s = {.rank = rank};
  for (int32_t d = 0, from = 0; d < rank; d++)
    s.dims[d] = inserted[d] ? 1 : out->shape.dims[from++];
  out->shape = s;
  return true;
}

static bool fold_squeeze(onnx_import* ctx, folded* out) {
  folded axes;
  if (!const_input(ctx, 0, out) || !axes_of(ctx, &axes)) return false;
  bool drop[GRT_MAX_RANK] = {false};
  int32_t rank = out->shape.rank;
  for (int64_t i = 0; i < count(&axes); i++) {
    int64_t a = axes.v[i] < 0 ? axes.v[i] + rank : axes.v[i];
    if (a < 0 || a >= rank || out->shape.dims[a] != 1) return false;
    drop[a] = true;
  }
  grt_shape s = {0};
  for (int32_t d = 0; d < rank; d++)
    if (!(count(&axes) ? drop[d] : out->shape.dims[d] == 1)) s.dims[s.rank++] = out->shape.dims[d];
  out->shape = s;
  return true;
}

static bool fold_cast(onnx_import* ctx, folded* out) {
  int64_t to;
  if (!const_input(ctx, 0, out) || !attr_int(ctx, "to", 0, &to)) return false;
  /* ONNX's TensorProto.DataType: 6 int32, 7 int64. */
  if (to != 6 && to != 7) return false;
  out->dtype = to == 6 ? GRT_INT32 : GRT_INT64;
  for (int64_t i = 0; i < count(out); i++)
    if (to == 6 && (out->v[i] > INT32_MAX || out->v[i] < INT32_MIN)) return false;
  return true;
}

static bool fold_identity(onnx_import* ctx, folded* out) { return const_input(ctx, 0, out); }

/* Element-wise integer arithmetic where one side is a single value or both
 * have the same shape (what shape computations do). Div only of sizes
 * (x >= 0, y > 0), where ONNX's truncation is a floor. */
static bool fold_arith(onnx_import* ctx, folded* out) {
  static const char* const kGrt[][2] = {
      {"Add", "AddV2"}, {"Sub", "Sub"}, {"Mul", "Mul"}, {"Div", "FloorDiv"}};
  folded a, b;
  if (!const_input(ctx, 0, &a) || !const_input(ctx, 1, &b) || a.dtype != b.dtype) return false;
  const char* op = NULL;
  for (size_t i = 0; i < sizeof kGrt / sizeof kGrt[0]; i++)
    if (strcmp(kGrt[i][0], ctx->node->op_type) == 0) op = kGrt[i][1];
  bool same = grt_shape_equal(&a.shape, &b.shape);
  if (!op || (!same && count(&a) != 1 && count(&b) != 1)) return false;
  *out = count(&a) == 1 && !same ? b : a;
  if (count(&a) == 1 && count(&b) == 1)
    out->shape = a.shape.rank >= b.shape.rank ? a.shape : b.shape;
  bool div = strcmp(op, "FloorDiv") == 0;
  for (int64_t i = 0; i < count(out); i++) {
    int64_t x = a.v[count(&a) == 1 ? 0 : i], y = b.v[count(&b) == 1 ? 0 : i];
    if ((div && (x < 0 || y <= 0)) || !onnx_int_binary(op, x, y, &out->v[i])) return false;
  }
  return true;
}

/* Slice of a 1-D constant with constant starts/ends (axes 0, any step). */
static bool fold_slice(onnx_import* ctx, folded* out) {
  folded x, starts, ends, axes, steps;
  if (!const_input(ctx, 0, &x) || x.shape.rank != 1 || !const_input(ctx, 1, &starts) ||
      !const_input(ctx, 2, &ends) || count(&starts) != 1 || count(&ends) != 1)
    return false;
  if (onnx_has_input(ctx, 3) &&
      (!const_input(ctx, 3, &axes) || count(&axes) != 1 || (axes.v[0] != 0 && axes.v[0] != -1)))
    return false;
  int64_t step = 1;
  if (onnx_has_input(ctx, 4)) {
    if (!const_input(ctx, 4, &steps) || count(&steps) != 1 || steps.v[0] == 0) return false;
    step = steps.v[0];
  }
  int64_t n = x.shape.dims[0], b = starts.v[0], e = ends.v[0];
  if (b < 0) b += n;
  if (e < 0) e += n;
  /* ONNX clamps to [0, n] going forward and [-1, n-1] going back. */
  int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
  b = b < lo ? lo : b > hi ? hi : b;
  e = e < lo ? lo : e > hi ? hi : e;
  int64_t m = 0;
  for (int64_t i = b; step > 0 ? i < e : i > e; i += step) out->v[m++] = x.v[i];
  return make_vector(out, x.dtype, m);
}

typedef struct fold_row {
  const char* op;
  bool (*fold)(onnx_import* ctx, folded* out);
} fold_row;

static const fold_row kFolds[] = {
    {"Shape", fold_shape},   {"Size", fold_size},           {"Gather", fold_gather},
    {"Concat", fold_concat}, {"Unsqueeze", fold_unsqueeze}, {"Squeeze", fold_squeeze},
    {"Cast", fold_cast},     {"Identity", fold_identity},   {"Add", fold_arith},
    {"Sub", fold_arith},     {"Mul", fold_arith},           {"Div", fold_arith},
    {"Slice", fold_slice},
};

grt_status* onnx_fold(onnx_import* ctx, bool* done) {
  *done = false;
  const char* op = ctx->node->op_type ? ctx->node->op_type : "";
  const fold_row* row = NULL;
  for (size_t i = 0; i < sizeof kFolds / sizeof kFolds[0] && !row; i++)
    if (strcmp(kFolds[i].op, op) == 0) row = &kFolds[i];
  if (!row || ctx->node->n_output != 1 || !onnx_has_output(ctx, 0)) return NULL;
  /* Slice before opset 10 takes attrs; Unsqueeze/Squeeze are checked by
   * their converter for everything but the values. */
  if (strcmp(op, "Slice") == 0 && ctx->opset < 10) return NULL;
  folded f;
  memset(&f, 0, sizeof f);
  if (!row->fold(ctx, &f)) return NULL;
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_tensor_new(f.dtype, f.shape.rank, f.shape.dims, &t));
  grt_status* s = NULL;
  for (int64_t i = 0; i < count(&f) && !s; i++) {
    s = onnx_check_fits(f.dtype, f.v[i], NULL); /* never wrapped into a narrower type */
    grt_dtype_store_int(f.dtype, grt_tensor_data(t), i, f.v[i]);
  }
  if (s) {
    grt_tensor_free(t);
    return s;
  }
  const char* name;
  s = onnx_const(ctx, NULL, t, &name);
  grt_tensor_free(t);
  GRT_RETURN_IF_ERROR(s);
  const grt_node* n = &ctx->g->nodes[grt_graph_find_node(ctx->g, name)];
  onnx_value v = {name, f.dtype, f.shape.rank, grt_node_find_attr(n, "value")->u.tensor};
  GRT_RETURN_IF_ERROR(onnx_define(ctx, ctx->node->output[0], &v));
  *done = true;
  return NULL;
}
