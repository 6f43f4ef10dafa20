/* Shape inference on import. Every grt node a converter adds is inferred
 * at once by grt's own shape functions (grt_graph_infer_node: the rules
 * validation runs, not a second set per ONNX op), so each ONNX value knows
 * its shape as soon as its node is converted, and converters that need a
 * rank or a size (ceil_mode, an LSTM's sequence length, Transpose without
 * perm) ask onnx_shape. The model's own declarations (value_info, graph
 * outputs) are merged in; one that contradicts the inferred shape fails
 * here, naming the node, the value and both shapes, rather than at run time
 * with a kernel's message. ONNX's symbolic dimensions (dim_param "N") stay
 * unknown (-1) but are bound to the first size inferred for them, and every
 * later value declared with the same name must agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"
#include "ops/op_def.h"

#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory inferring an ONNX model's shapes")

const grt_shape* onnx_shape(const onnx_import* ctx, const onnx_value* v) {
  static const grt_shape kUnknown = {.rank = -1};
  /* Values are the importer's own (onnx_input); a copy made elsewhere has
   * no inferred shape. */
  if (v < ctx->values || v >= ctx->values + ctx->n_values) return &kUnknown;
  return &ctx->shapes[v - ctx->values];
}

grt_status* onnx_static_dims(const onnx_import* ctx, const onnx_value* v, int32_t rank,
                             const char* what, int64_t* dims) {
  const grt_shape* s = onnx_shape(ctx, v);
  char buf[128];
  if (s->rank != rank || !grt_shape_fully_known(s))
    return GRT_ERROR(UNIMPLEMENTED, "%s needs the input's shape, which is %s before run time", what,
                     grt_shape_str(s, buf, sizeof buf));
  memcpy(dims, s->dims, (size_t)rank * sizeof *dims);
  return NULL;
}

/* The grt output a ref names ("node" or "node:k"); false when unknown. */
static bool ref_output(const onnx_import* ctx, const char* ref, int32_t* node, int32_t* port) {
  const char* colon = strrchr(ref, ':');
  size_t len = colon ? (size_t)(colon - ref) : strlen(ref);
  *node = grt_strmap_getn(&ctx->g->by_name, ref, len);
  *port = colon ? (int32_t)strtol(colon + 1, NULL, 10) : 0;
  if (*node < 0 || *node >= ctx->n_inferred) return false;
  const grt_node* n = &ctx->g->nodes[*node];
  return n->def && *port >= 0 && *port < n->sig.n_outputs;
}

grt_status* onnx_shapes_begin(onnx_import* ctx, const Onnx__GraphProto* gp) {
  size_t n = gp->n_value_info + gp->n_output;
  ctx->declared_info = grt_malloc((n + 1) * sizeof *ctx->declared_info);
  if (!ctx->declared_info) return OOM();
  for (size_t i = 0; i < n; i++) {
    const Onnx__ValueInfoProto* vi =
        i < gp->n_value_info ? gp->value_info[i] : gp->output[i - gp->n_value_info];
    if (!vi->name || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !vi->type->tensor_type || !vi->type->tensor_type->shape)
      continue;
    int32_t existing;
    int r = grt_strmap_put(&ctx->declared, vi->name, ctx->n_declared, &existing);
    if (r < 0) return OOM();
    if (r > 0) ctx->declared_info[ctx->n_declared++] = vi;
  }
  return NULL;
}

void onnx_shapes_end(onnx_import* ctx) {
  onnx_values_free(ctx);
  grt_strmap_clear(&ctx->declared);
  grt_strmap_clear(&ctx->params);
  grt_free(ctx->declared_info);
  grt_free(ctx->param_dims);
}

/* The size bound to symbolic dimension `name`, creating it unbound. */
static grt_status* param_slot(onnx_import* ctx, const char* name, int64_t** out) {
  int32_t i = grt_strmap_get(&ctx->params, name);
  if (i < 0) {
    if (ctx->n_params == ctx->cap_params) {
      int32_t cap = ctx->cap_params ? ctx->cap_params * 2 : 16;
      int64_t* grown = grt_realloc(ctx->param_dims, (size_t)cap * sizeof *grown);
      if (!grown) return OOM();
      ctx->param_dims = grown;
      ctx->cap_params = cap;
    }
    char* key = grt_arena_strdup(ctx->g->arena, name);
    int32_t existing;
    if (!key || grt_strmap_put(&ctx->params, key, ctx->n_params, &existing) < 0) return OOM();
    i = ctx->n_params++;
    ctx->param_dims[i] = -1;
  }
  *out = &ctx->param_dims[i];
  return NULL;
}

/* A declared ONNX shape as a grt_shape; a symbolic dim is -1, and
 * params[i] names it (NULL otherwise). */
static grt_status* read_declared(onnx_import* ctx, const Onnx__TensorShapeProto* shape,
                                 const char* what, grt_shape* out, const char** params) {
  if (shape->n_dim > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "%s: declared rank %zu exceeds the maximum of %d", what,
                     shape->n_dim, GRT_MAX_RANK);
  out->rank = (int32_t)shape->n_dim;
  for (int32_t i = 0; i < out->rank; i++) {
    const Onnx__TensorShapeProto__Dimension* d = shape->dim[i];
    out->dims[i] = -1;
    params[i] = NULL;
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0)
      out->dims[i] = d->dim_value;
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
        d->dim_param[0]) {
      params[i] = d->dim_param;
    }
  }
  return NULL;
}

/* Binds each symbolic dim of `params` to the size `s` gives it, failing
 * when the name is bound to another size already; where s does not know
 * the size, it takes the one bound. */
static grt_status* bind_params(onnx_import* ctx, const char* value, grt_shape* s,
                               const char* const* params) {
  for (int32_t i = 0; i < s->rank; i++) {
    if (!params[i]) continue;
    int64_t* bound = NULL;
    GRT_RETURN_IF_ERROR(param_slot(ctx, params[i], &bound));
    if (s->dims[i] < 0) {
      s->dims[i] = *bound;
      continue;
    }
    if (*bound >= 0 && *bound != s->dims[i])
      return GRT_ERROR(INVALID_ARGUMENT,
                       "value '%s': dimension %d is '%s', which is %lld elsewhere but %lld here",
                       value, (int)i, params[i], (long long)*bound, (long long)s->dims[i]);
    *bound = s->dims[i];
  }
  return NULL;
}

grt_status* onnx_shapes_declare_input(onnx_import* ctx, onnx_value* v,
                                      const Onnx__TensorShapeProto* shape) {
  grt_shape* s = &ctx->shapes[v - ctx->values];
  *s = grt_shape_unknown();
  if (!shape) return NULL;
  const char* params[GRT_MAX_RANK];
  return read_declared(ctx, shape, "graph input", s, params);
}

static const grt_tensor* value_of(void* user, int32_t node, int32_t port) {
  return onnx_known_value(user, node, port);
}

grt_status* onnx_shapes_infer(onnx_import* ctx) {
  for (; ctx->n_inferred < ctx->g->n_nodes; ctx->n_inferred++) {
    GRT_RETURN_IF_ERROR(grt_graph_infer_node(ctx->g, ctx->n_inferred, value_of, ctx));
    GRT_RETURN_IF_ERROR(onnx_value_node(ctx, ctx->n_inferred));
  }
  return NULL;
}

/* Merges the model's declaration of `name` into *s (the inferred shape). */
static grt_status* merge_declared(onnx_import* ctx, const char* name, grt_shape* s) {
  int32_t i = grt_strmap_get(&ctx->declared, name);
  if (i < 0) return NULL;
  const Onnx__TensorShapeProto* shape = ctx->declared_info[i]->type->tensor_type->shape;
  grt_shape declared;
  const char* params[GRT_MAX_RANK];
  GRT_RETURN_IF_ERROR(read_declared(ctx, shape, name, &declared, params));
  grt_shape merged;
  if (!grt_shape_merge(s, &declared, &merged)) {
    char a[128], b[128];
    return GRT_ERROR(INVALID_ARGUMENT,
                     "value '%s' is declared %s by the model but its shape is %s from the "
                     "node's inputs",
                     name, grt_shape_str(&declared, a, sizeof a), grt_shape_str(s, b, sizeof b));
  }
  GRT_RETURN_IF_ERROR(bind_params(ctx, name, &merged, params));
  *s = merged;
  return NULL;
}

grt_status* onnx_shapes_settle(onnx_import* ctx, int32_t first_value) {
  GRT_RETURN_IF_ERROR(onnx_shapes_infer(ctx));
  for (int32_t i = first_value; i < ctx->n_values; i++) {
    onnx_value* v = &ctx->values[i];
    const char* name = NULL;
    for (size_t k = 0; k < ctx->node->n_output && !name; k++)
      if (ctx->node->output[k] && grt_strmap_get(&ctx->by_name, ctx->node->output[k]) == i)
        name = ctx->node->output[k];
    if (!name) continue;
    int32_t node, port;
    grt_shape s = grt_shape_unknown();
    if (v->constant) s = v->constant->shape;
    bool inferred = ref_output(ctx, v->ref, &node, &port);
    if (inferred) {
      grt_shape merged;
      if (!grt_shape_merge(&s, &ctx->g->nodes[node].sig.output_shapes[port], &merged)) {
        char a[128], b[128];
        return GRT_ERROR(INTERNAL, "value '%s': its constant is %s but grt infers %s", name,
                         grt_shape_str(&s, a, sizeof a),
                         grt_shape_str(&ctx->g->nodes[node].sig.output_shapes[port], b, sizeof b));
      }
      s = merged;
    }
    if (s.rank < 0 && v->rank >= 0) {
      s.rank = v->rank;
      for (int32_t d = 0; d < s.rank; d++) s.dims[d] = -1;
    } else if (s.rank >= 0 && v->rank >= 0 && s.rank != v->rank) {
      return GRT_ERROR(INTERNAL, "value '%s': the converter bound rank %d but grt infers rank %d",
                       name, (int)v->rank, (int)s.rank);
    }
    GRT_RETURN_IF_ERROR(merge_declared(ctx, name, &s));
    ctx->shapes[i] = s;
    v->rank = s.rank;
    /* A small value worked out from shapes is a constant to converters. */
    if (inferred && !v->constant) v->constant = onnx_known_value(ctx, node, port);
    /* What the declaration adds is what grt's later inference starts from. */
    if (inferred) ctx->g->nodes[node].sig.output_shapes[port] = s;
  }
  return NULL;
}
