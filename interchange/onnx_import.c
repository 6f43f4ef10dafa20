/* Helpers the ONNX op converters build grt nodes with. */
#include "interchange/onnx_import.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/graph.h"
#include "ops/op_def.h"

#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory importing an ONNX model")

grt_status* onnx_define(onnx_import* ctx, const char* name, const onnx_value* v) {
  if (ctx->n_values == ctx->cap_values) {
    int32_t cap = ctx->cap_values ? ctx->cap_values * 2 : 64;
    onnx_value* grown = grt_realloc(ctx->values, (size_t)cap * sizeof *grown);
    if (grown) ctx->values = grown;
    grt_shape* shapes = grown ? grt_realloc(ctx->shapes, (size_t)cap * sizeof *shapes) : NULL;
    if (!shapes) return OOM();
    ctx->shapes = shapes;
    ctx->cap_values = cap;
  }
  char* key = grt_arena_strdup(ctx->g->arena, name);
  char* ref = grt_arena_strdup(ctx->g->arena, v->ref);
  if (!key || !ref) return OOM();
  int32_t existing;
  int r = grt_strmap_put(&ctx->by_name, key, ctx->n_values, &existing);
  if (r < 0) return OOM();
  if (r == 0) return GRT_ERROR(INVALID_ARGUMENT, "value '%s' is defined twice", name);
  ctx->values[ctx->n_values] = *v;
  ctx->values[ctx->n_values].ref = ref;
  /* Until onnx_shapes_settle: what the constant or the rank says. */
  grt_shape* s = &ctx->shapes[ctx->n_values];
  *s = grt_shape_unknown();
  if (v->constant) {
    *s = v->constant->shape;
  } else if (v->rank >= 0 && v->rank <= GRT_MAX_RANK) {
    s->rank = v->rank;
    for (int32_t d = 0; d < v->rank; d++) s->dims[d] = -1;
  }
  ctx->n_values++;
  return NULL;
}

bool onnx_has_output(const onnx_import* ctx, int k) {
  return k < (int)ctx->node->n_output && ctx->node->output[k] && ctx->node->output[k][0];
}

bool onnx_has_input(const onnx_import* ctx, int k) {
  return k < (int)ctx->node->n_input && ctx->node->input[k] && ctx->node->input[k][0];
}

grt_status* onnx_bind(onnx_import* ctx, int k, const char* ref, grt_dtype dtype, int32_t rank) {
  if (!onnx_has_output(ctx, k)) return NULL;
  onnx_value v = {ref, dtype, rank, NULL};
  return onnx_define(ctx, ctx->node->output[k], &v);
}

grt_status* onnx_input(onnx_import* ctx, int k, const onnx_value** out) {
  if (!onnx_has_input(ctx, k)) return GRT_ERROR(INVALID_ARGUMENT, "input %d is missing", k);
  int32_t i = grt_strmap_get(&ctx->by_name, ctx->node->input[k]);
  if (i < 0)
    return GRT_ERROR(INVALID_ARGUMENT, "input %d names '%s', which nothing before it defines", k,
                     ctx->node->input[k]);
  *out = &ctx->values[i];
  return NULL;
}

typedef Onnx__AttributeProto__AttributeType attr_type;
#define KIND(t) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##t

/* The kind of value `a` holds, from the fields set: ONNX sets exactly one
 * (*n_set counts them); UNDEFINED when none is (an empty list). */
static attr_type attr_holds(const Onnx__AttributeProto* a, int* n_set) {
  const struct {
    attr_type t;
    bool set;
  } k[] = {
      {KIND(FLOAT), a->has_f},
      {KIND(INT), a->has_i},
      {KIND(STRING), a->has_s},
      {KIND(TENSOR), a->t != NULL},
      {KIND(GRAPH), a->g != NULL},
      {KIND(SPARSE_TENSOR), a->sparse_tensor != NULL},
      {KIND(TYPE_PROTO), a->tp != NULL},
      {KIND(FLOATS), a->n_floats > 0},
      {KIND(INTS), a->n_ints > 0},
      {KIND(STRINGS), a->n_strings > 0},
      {KIND(TENSORS), a->n_tensors > 0},
      {KIND(GRAPHS), a->n_graphs > 0},
      {KIND(SPARSE_TENSORS), a->n_sparse_tensors > 0},
      {KIND(TYPE_PROTOS), a->n_type_protos > 0},
  };
  attr_type held = KIND(UNDEFINED);
  *n_set = 0;
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (k[i].set) {
      held = k[i].t;
      ++*n_set;
    }
  return held;
}

static const char* attr_type_name(attr_type t) {
  const ProtobufCEnumValue* v =
      protobuf_c_enum_descriptor_get_value(&onnx__attribute_proto__attribute_type__descriptor, t);
  return v ? v->name : "an unknown type";
}

static bool is_list(attr_type t) {
  return t == KIND(FLOATS) || t == KIND(INTS) || t == KIND(STRINGS) || t == KIND(TENSORS) ||
         t == KIND(GRAPHS) || t == KIND(SPARSE_TENSORS) || t == KIND(TYPE_PROTOS);
}

/* Whether `a` is of kind `want`: its declared type (when it has one) and
 * the value it holds agree with it; an empty list is any list kind. */
static bool attr_is(const Onnx__AttributeProto* a, attr_type want) {
  int n;
  attr_type held = attr_holds(a, &n);
  if (a->has_type && a->type != KIND(UNDEFINED) && a->type != want) return false;
  return held == want || (held == KIND(UNDEFINED) && is_list(want));
}

grt_status* onnx_check_attrs(const onnx_import* ctx) {
  const Onnx__NodeProto* n = ctx->node;
  grt_strmap seen;
  grt_strmap_init(&seen);
  grt_status* s = NULL;
  for (size_t i = 0; !s && i < n->n_attribute; i++) {
    const Onnx__AttributeProto* a = n->attribute[i];
    const char* name = a->name ? a->name : "";
    int n_set;
    attr_type held = attr_holds(a, &n_set);
    int32_t existing;
    int r = grt_strmap_put(&seen, name, (int32_t)i, &existing);
    if (r < 0)
      s = OOM();
    else if (r == 0)
      s = GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' is given twice", name);
    else if (n_set > 1)
      s = GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' holds %d kinds of value (ONNX allows one)",
                    name, n_set);
    else if (a->has_type && a->type != KIND(UNDEFINED) && held != KIND(UNDEFINED) &&
             held != a->type)
      s = GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' is declared %s but holds %s", name,
                    attr_type_name(a->type), attr_type_name(held));
    else if (a->has_type && a->type != KIND(UNDEFINED) && held == KIND(UNDEFINED) &&
             !is_list(a->type))
      s = GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' is declared %s but holds no value", name,
                    attr_type_name(a->type));
  }
  grt_strmap_clear(&seen);
  return s;
}

const Onnx__AttributeProto* onnx_attr(const onnx_import* ctx, const char* name) {
  for (size_t i = 0; i < ctx->node->n_attribute; i++) {
    const Onnx__AttributeProto* a = ctx->node->attribute[i];
    if (a->name && strcmp(a->name, name) == 0) return a;
  }
  return NULL;
}

grt_status* onnx_attr_int(const onnx_import* ctx, const char* name, int64_t dflt, int64_t* out) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, name);
  *out = dflt;
  if (!a) return NULL;
  if (!attr_is(a, KIND(INT)))
    return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' must be an int", name);
  *out = a->i;
  return NULL;
}

grt_status* onnx_attr_float(const onnx_import* ctx, const char* name, float dflt, float* out) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, name);
  *out = dflt;
  if (!a) return NULL;
  if (!attr_is(a, KIND(FLOAT)))
    return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' must be a float", name);
  *out = a->f;
  return NULL;
}

grt_status* onnx_attr_ints(const onnx_import* ctx, const char* name, const int64_t** out,
                           size_t* n) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, name);
  *out = NULL;
  *n = 0;
  if (!a) return NULL;
  if (!attr_is(a, KIND(INTS)))
    return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' must be a list of ints", name);
  *out = a->ints;
  *n = a->n_ints;
  return NULL;
}

bool onnx_name_taken(const onnx_import* ctx, const char* name) {
  return grt_graph_find_node(ctx->g, name) >= 0 || grt_strmap_get(&ctx->reserved, name) >= 0;
}

grt_status* onnx_emit(onnx_import* ctx, const char* op, const char* suffix, grt_dtype t,
                      const char* const* inputs, int n_inputs, int32_t* out_index,
                      const char** out_name) {
  const char* name = ctx->base;
  if (suffix) {
    /* A helper's name "base/suffix_K" skips every K whose name the graph
     * or the model has: a model may name its own values like a helper
     * ("y/const_0"), and its names are the ones users feed and fetch. */
    size_t len = strlen(ctx->base) + strlen(suffix) + 16;
    char* owned = grt_arena_alloc(ctx->g->arena, len);
    if (!owned) return OOM();
    do {
      snprintf(owned, len, "%s/%s_%d", ctx->base, suffix, (int)ctx->n_helpers++);
    } while (onnx_name_taken(ctx, owned) && ctx->n_helpers < INT32_MAX);
    name = owned;
  }
  int32_t idx;
  GRT_RETURN_IF_ERROR(grt_graph_add_node(ctx->g, name, op, &idx));
  const grt_op_def* def = grt_op_lookup(op);
  if (def && grt_op_find_attr(def, "T") && t != GRT_DTYPE_INVALID)
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "T", t));
  for (int i = 0; i < n_inputs; i++)
    GRT_RETURN_IF_ERROR(grt_graph_add_input(ctx->g, idx, inputs[i]));
  if (out_index) *out_index = idx;
  if (out_name) *out_name = ctx->g->nodes[idx].name;
  return NULL;
}

grt_status* onnx_const(onnx_import* ctx, const char* suffix, grt_tensor* t, const char** out_name) {
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Const", suffix, GRT_DTYPE_INVALID, NULL, 0, &idx, out_name));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "dtype", t->dtype));
  return grt_graph_set_attr_tensor(ctx->g, idx, "value", t);
}

/* The integer range of each dtype narrower than ONNX's int64. */
static const struct {
  grt_dtype t;
  int64_t lo, hi;
} kNarrow[] = {
    {GRT_INT8, INT8_MIN, INT8_MAX},
    {GRT_INT16, INT16_MIN, INT16_MAX},
    {GRT_INT32, INT32_MIN, INT32_MAX},
    {GRT_UINT8, 0, UINT8_MAX},
};

grt_status* onnx_check_fits(grt_dtype t, int64_t v, const char* what) {
  for (size_t i = 0; i < sizeof kNarrow / sizeof kNarrow[0]; i++)
    if (kNarrow[i].t == t && (v < kNarrow[i].lo || v > kNarrow[i].hi))
      return GRT_ERROR(INVALID_ARGUMENT, "%s %lld is outside %s's range [%lld, %lld]",
                       what ? what : "value", (long long)v, grt_dtype_name(t),
                       (long long)kNarrow[i].lo, (long long)kNarrow[i].hi);
  return NULL;
}

grt_status* onnx_check_axes(const char* what, int64_t* axes, size_t n, int32_t rank) {
  for (size_t i = 0; i < n; i++) {
    if (rank >= 0 && (axes[i] < -(int64_t)rank || axes[i] >= rank))
      return GRT_ERROR(INVALID_ARGUMENT, "%s %lld is out of range for rank %d ([%d, %d])", what,
                       (long long)axes[i], (int)rank, -(int)rank, (int)rank - 1);
    if (rank < 0 && (axes[i] < -GRT_MAX_RANK || axes[i] >= GRT_MAX_RANK))
      return GRT_ERROR(INVALID_ARGUMENT,
                       "%s %lld is out of range for any rank grt has (at most %d)", what,
                       (long long)axes[i], GRT_MAX_RANK);
    if (rank >= 0 && axes[i] < 0) axes[i] += rank;
  }
  /* At most GRT_MAX_RANK axes reach here in practice; a pairwise look is
   * bounded by the caller's limit on n. */
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (axes[i] == axes[j])
        return GRT_ERROR(INVALID_ARGUMENT, "%s %lld is repeated", what, (long long)axes[i]);
  return NULL;
}

grt_status* onnx_narrow_i32(int64_t v, const char* what, int32_t* out) {
  GRT_RETURN_IF_ERROR(onnx_check_fits(GRT_INT32, v, what));
  *out = (int32_t)v;
  return NULL;
}

grt_status* onnx_const_scalar(onnx_import* ctx, grt_dtype t, double v, const char** out_name) {
  /* An integer constant must be one value of t: never wrapped or cut. */
  if (grt_dtype_is_integer(t)) {
    if (!(v >= -0x1p63 && v < 0x1p63) || v != (double)(int64_t)v)
      return GRT_ERROR(INVALID_ARGUMENT, "value %g is not an integer of %s", v, grt_dtype_name(t));
    GRT_RETURN_IF_ERROR(onnx_check_fits(t, (int64_t)v, NULL));
  }
  grt_tensor* tensor;
  GRT_RETURN_IF_ERROR(grt_tensor_new(t, 0, NULL, &tensor));
  if (t == GRT_BOOL)
    *(bool*)grt_tensor_data(tensor) = v != 0;
  else
    grt_dtype_store_double(t, grt_tensor_data(tensor), 0, v);
  grt_status* s = onnx_const(ctx, "const", tensor, out_name);
  grt_tensor_free(tensor);
  return s;
}

grt_status* onnx_const_ints(onnx_import* ctx, grt_dtype t, const int64_t* v, size_t n,
                            const char** out_name) {
  int64_t dims[1] = {(int64_t)n};
  for (size_t i = 0; i < n; i++) GRT_RETURN_IF_ERROR(onnx_check_fits(t, v[i], NULL));
  grt_tensor* tensor;
  GRT_RETURN_IF_ERROR(grt_tensor_new(t, 1, dims, &tensor));
  for (size_t i = 0; i < n; i++) grt_dtype_store_int(t, grt_tensor_data(tensor), (int64_t)i, v[i]);
  grt_status* s = onnx_const(ctx, "const", tensor, out_name);
  grt_tensor_free(tensor);
  return s;
}

grt_status* onnx_const_input_ints(onnx_import* ctx, int k, const char* what, int64_t* out,
                                  size_t max, size_t* n) {
  const onnx_value* v;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, k, &v));
  if (!v->constant)
    return GRT_ERROR(UNIMPLEMENTED,
                     "%s (input %d) must be an initializer or a Constant; grt cannot take it at "
                     "run time",
                     what, k);
  const grt_tensor* t = v->constant;
  if (t->dtype != GRT_INT64 && t->dtype != GRT_INT32)
    return GRT_ERROR(INVALID_ARGUMENT, "%s must be int64, got %s", what, grt_dtype_name(t->dtype));
  int64_t count = grt_tensor_num_elements(t);
  if ((size_t)count > max)
    return GRT_ERROR(INVALID_ARGUMENT, "%s has %lld values (at most %zu)", what, (long long)count,
                     max);
  for (int64_t i = 0; i < count; i++) out[i] = grt_dtype_load_int(t->dtype, grt_tensor_data(t), i);
  *n = (size_t)count;
  return NULL;
}
