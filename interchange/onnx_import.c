/* Helpers the ONNX op converters build grt nodes with. */
#include "interchange/onnx_import.h"

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
  if (!a->has_i) return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' must be an int", name);
  *out = a->i;
  return NULL;
}

grt_status* onnx_attr_float(const onnx_import* ctx, const char* name, float dflt, float* out) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, name);
  *out = dflt;
  if (!a) return NULL;
  if (!a->has_f) return GRT_ERROR(INVALID_ARGUMENT, "attribute '%s' must be a float", name);
  *out = a->f;
  return NULL;
}

grt_status* onnx_attr_ints(const onnx_import* ctx, const char* name, const int64_t** out,
                           size_t* n) {
  const Onnx__AttributeProto* a = onnx_attr(ctx, name);
  *out = NULL;
  *n = 0;
  if (!a) return NULL;
  *out = a->ints;
  *n = a->n_ints;
  return NULL;
}

grt_status* onnx_emit(onnx_import* ctx, const char* op, const char* suffix, grt_dtype t,
                      const char* const* inputs, int n_inputs, int32_t* out_index,
                      const char** out_name) {
  char buf[64];
  const char* name = ctx->base;
  char* owned = NULL;
  if (suffix) {
    snprintf(buf, sizeof buf, "%d", ctx->n_helpers++);
    size_t len = strlen(ctx->base) + strlen(suffix) + strlen(buf) + 3;
    owned = grt_arena_alloc(ctx->g->arena, len);
    if (!owned) return OOM();
    snprintf(owned, len, "%s/%s_%s", ctx->base, suffix, buf);
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

grt_status* onnx_const_scalar(onnx_import* ctx, grt_dtype t, double v, const char** out_name) {
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
