/* ONNX ModelProto -> grt graph: graph inputs become Placeholders,
 * initializers Consts, each node the grt ops its converter (onnx_ops_*.c)
 * builds, and every graph output a node of its own name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/arena.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/interchange.h"
#include "interchange/onnx_import.h"
#include "interchange/onnx_legacy.h"
#include "interchange/protobuf_depth.h"
#include "interchange/onnx_tensor.h"
#include "interchange/protobuf_alloc.h"
#include "ops/graph.h"

/* The ai.onnx opsets grt imports: 1 to 17. The converters read each op's
 * form as of opset 7 (10 for Slice and TopK) and later; nodes of older
 * forms are rewritten into those first (onnx_legacy.c). A model of another
 * opset is refused at once, with one line giving the range. */
enum { kMinOpset = 1, kMaxOpset = 17 };

static const onnx_op_row* const kTables[] = {
    grt_onnx_ops_elementwise, grt_onnx_ops_array, grt_onnx_ops_reduce, grt_onnx_ops_nn,
    grt_onnx_ops_loss,        grt_onnx_ops_math,  grt_onnx_ops_quant,  grt_onnx_ops_array_more,
    grt_onnx_ops_generate,    grt_onnx_ops_conv,  grt_onnx_ops_index,  grt_onnx_ops_resize,
    grt_onnx_ops_grid_sample, grt_onnx_ops_rnn};

static const onnx_op_row* find_op(const char* op) {
  for (size_t t = 0; t < sizeof kTables / sizeof kTables[0]; t++)
    for (const onnx_op_row* r = kTables[t]; r->onnx_op; r++)
      if (strcmp(r->onnx_op, op) == 0) return r;
  return NULL;
}

void grt_onnx_node_name(const char* onnx_name, char* buf, size_t size) {
  if (!size) return;
  size_t n = 0;
  for (const char* p = onnx_name ? onnx_name : ""; *p && n + 1 < size; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '/' || c == '-';
    buf[n++] = ok ? c : '_';
  }
  if (n == 0 && size > 1) buf[n++] = '_';
  buf[n] = '\0';
}

/* The grt name of the ONNX value `onnx_name`, in the arena: the name
 * itself when it is a valid grt name, so users feed and fetch by the name
 * the model gives (a second value of that name breaks ONNX's one
 * definition per name: an error). Only an invalid name is changed: its
 * other characters become '_', and when that is taken (by a node, or by
 * one of the model's valid names, whatever their order) the first free
 * `_K` from where the last search for it stopped, so n names that read
 * alike cost n lookups. The mapping is kept for graph outputs
 * (renamed_name) and shown by grt inspect (a Placeholder's onnx_name). */
static grt_status* fresh_name(onnx_import* ctx, const char* onnx_name, const char** out) {
  grt_graph* g = ctx->g;
  *out = NULL;
  if (grt_node_name_valid(onnx_name)) {
    if (grt_graph_find_node(g, onnx_name) >= 0)
      return GRT_ERROR(INVALID_ARGUMENT, "value '%s' is defined twice", onnx_name);
    *out = grt_arena_strdup(g->arena, onnx_name);
    return *out ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  int32_t known = grt_strmap_get(&ctx->renamed, onnx_name);
  if (known >= 0) return GRT_ERROR(INVALID_ARGUMENT, "value '%s' is defined twice", onnx_name);
  size_t len = strlen(onnx_name) + 1, size = len + 16;
  char* buf = grt_arena_alloc(g->arena, size);
  if (!buf) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  grt_onnx_node_name(onnx_name, buf, size);
  len = strlen(buf);
  if (onnx_name_taken(ctx, buf)) {
    int32_t k = grt_strmap_get(&ctx->next_suffix, buf);
    /* The map keeps its keys: a base seen for the first time stays in the
     * arena as its key; a known one is looked up by the copy. */
    const char* key = k < 0 ? grt_arena_strdup(g->arena, buf) : NULL;
    char* base = grt_arena_strdup(g->arena, buf);
    if ((k < 0 && !key) || !base) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    for (k = k < 1 ? 1 : k; k < INT32_MAX; k++) {
      snprintf(buf + len, 16, "_%d", (int)k);
      if (!onnx_name_taken(ctx, buf)) break;
    }
    if (k == INT32_MAX || !grt_strmap_set(&ctx->next_suffix, key ? key : base, k + 1))
      return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  if (ctx->n_renamed == ctx->cap_renamed) {
    int32_t cap = ctx->cap_renamed ? ctx->cap_renamed * 2 : 16;
    const char** grown = grt_realloc(ctx->renamed_to, (size_t)cap * sizeof *grown);
    if (!grown) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    ctx->renamed_to = grown;
    ctx->cap_renamed = cap;
  }
  if (!grt_strmap_set(&ctx->renamed, onnx_name, ctx->n_renamed))
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  ctx->renamed_to[ctx->n_renamed++] = buf;
  *out = buf;
  return NULL;
}

/* Keeps every valid value name of the graph for its own value (see
 * onnx_import.reserved). */
static grt_status* reserve(onnx_import* ctx, const char* name) {
  if (!name || !grt_node_name_valid(name)) return NULL;
  int32_t existing;
  return grt_strmap_put(&ctx->reserved, name, 0, &existing) < 0
             ? GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory")
             : NULL;
}

static grt_status* reserve_names(onnx_import* ctx, const Onnx__GraphProto* gp) {
  for (size_t i = 0; i < gp->n_initializer; i++)
    GRT_RETURN_IF_ERROR(reserve(ctx, gp->initializer[i]->name));
  for (size_t i = 0; i < gp->n_input; i++) GRT_RETURN_IF_ERROR(reserve(ctx, gp->input[i]->name));
  for (size_t i = 0; i < gp->n_node; i++)
    for (size_t k = 0; k < gp->node[i]->n_output; k++)
      GRT_RETURN_IF_ERROR(reserve(ctx, gp->node[i]->output[k]));
  for (size_t i = 0; i < gp->n_output; i++) GRT_RETURN_IF_ERROR(reserve(ctx, gp->output[i]->name));
  return NULL;
}

static grt_status* add_initializer(onnx_import* ctx, Onnx__TensorProto* p) {
  if (!p->name || !*p->name) return GRT_ERROR(INVALID_ARGUMENT, "an initializer has no name");
  grt_tensor* t;
  grt_status* s = grt_onnx_tensor_take(p, &t);
  if (s) return grt_status_prefix(s, "initializer '%s'", p->name);
  const char* name = NULL;
  s = fresh_name(ctx, p->name, &ctx->base);
  if (!s) s = onnx_const(ctx, NULL, t, &name);
  if (!s) {
    onnx_value v = {name, t->dtype, t->shape.rank, NULL};
    /* The graph's reference keeps the tensor alive; point at that one. */
    v.constant =
        grt_node_find_attr(&ctx->g->nodes[grt_graph_find_node(ctx->g, name)], "value")->u.tensor;
    s = onnx_define(ctx, p->name, &v);
  }
  if (!s) s = onnx_shapes_infer(ctx);
  grt_tensor_free(t);
  return s ? grt_status_prefix(s, "initializer '%s'", p->name) : NULL;
}

/* The input's symbolic dimensions (dim_param "N") by name on its
 * Placeholder, "" for the others: what the session option dims binds. Set
 * only when the input names one. */
static grt_status* set_dim_names(grt_graph* g, int32_t node, const Onnx__TensorShapeProto* shape) {
  bool any = false;
  for (size_t i = 0; i < shape->n_dim; i++)
    any |= shape->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
           shape->dim[i]->dim_param && shape->dim[i]->dim_param[0];
  if (!any) return NULL;
  const char** names = grt_arena_alloc(g->arena, shape->n_dim * sizeof *names);
  if (!names) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (size_t i = 0; i < shape->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension* d = shape->dim[i];
    bool named =
        d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param;
    names[i] = grt_arena_strdup(g->arena, named ? d->dim_param : "");
    if (!names[i]) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  grt_attr_value v = {.type = GRT_ATTR_LIST_STRING};
  v.u.list.n = (int32_t)shape->n_dim;
  v.u.list.v.s = names;
  return grt_graph_set_attr_value(g, node, "dim_names", &v);
}

static grt_status* add_input(onnx_import* ctx, const Onnx__ValueInfoProto* vi) {
  const char* name = vi->name ? vi->name : "";
  int32_t known = grt_strmap_get(&ctx->by_name, name);
  /* An initializer of the input's name is its default; another input of
   * that name breaks ONNX's one definition per name. */
  if (known >= 0 && ctx->values[known].constant) return NULL;
  if (known >= 0) return GRT_ERROR(INVALID_ARGUMENT, "graph input '%s' is declared twice", name);
  const Onnx__TypeProto* tp = vi->type;
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
    return GRT_ERROR(UNIMPLEMENTED,
                     "graph input '%s': only tensor inputs are supported "
                     "(not sequences, maps or optionals)",
                     name);
  grt_dtype dtype;
  grt_status* s = grt_onnx_dtype_read(tp->tensor_type->elem_type, &dtype);
  if (s) return grt_status_prefix(s, "graph input '%s'", name);
  int32_t rank = -1;
  int64_t dims[GRT_MAX_RANK];
  const Onnx__TensorShapeProto* shape = tp->tensor_type->shape;
  if (shape) {
    if (shape->n_dim > GRT_MAX_RANK)
      return GRT_ERROR(INVALID_ARGUMENT, "graph input '%s': rank %zu exceeds the maximum of %d",
                       name, shape->n_dim, GRT_MAX_RANK);
    rank = (int32_t)shape->n_dim;
    for (int32_t i = 0; i < rank; i++) {
      const Onnx__TensorShapeProto__Dimension* d = shape->dim[i];
      dims[i] =
          d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0
              ? d->dim_value
              : -1;
    }
  }
  s = fresh_name(ctx, name, &ctx->base);
  if (s) return grt_status_prefix(s, "graph input '%s'", name);
  int32_t idx;
  const char* node;
  s = onnx_emit(ctx, "Placeholder", NULL, GRT_DTYPE_INVALID, NULL, 0, &idx, &node);
  /* A feed renamed from the model's name says which it was (grt inspect). */
  if (!s && strcmp(node, name) != 0) s = grt_graph_set_attr_string(ctx->g, idx, "onnx_name", name);
  if (!s) s = grt_graph_set_attr_type(ctx->g, idx, "dtype", dtype);
  if (!s) s = grt_graph_set_attr_shape(ctx->g, idx, "shape", rank, dims);
  if (!s && shape) s = set_dim_names(ctx->g, idx, shape);
  if (!s) {
    onnx_value v = {node, dtype, rank, NULL};
    s = onnx_define(ctx, name, &v);
  }
  if (!s) s = onnx_shapes_infer(ctx);
  if (!s) s = onnx_shapes_declare_input(ctx, &ctx->values[ctx->n_values - 1], shape);
  return s ? grt_status_prefix(s, "graph input '%s'", name) : NULL;
}

/* Whether `name` is one of the comma-separated `list`. */
static bool attr_listed(const char* list, const char* name) {
  size_t n = strlen(name);
  for (const char* p = list; n && p && *p;) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return true;
    p = end ? end + 1 : NULL;
  }
  return false;
}

static grt_status* add_node(onnx_import* ctx, const Onnx__NodeProto* n) {
  const char* op = n->op_type ? n->op_type : "";
  const char* first = NULL;
  for (size_t k = 0; k < n->n_output && !first; k++)
    if (n->output[k] && n->output[k][0]) first = n->output[k];
  const char* label = n->name && *n->name ? n->name : first ? first : "";
  grt_status* s = NULL;
  const onnx_op_row* row = NULL;
  if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx") != 0)
    s = GRT_ERROR(UNIMPLEMENTED, "operator domain '%s' is not supported", n->domain);
  else if (!first)
    s = GRT_ERROR(INVALID_ARGUMENT, "the node has no outputs");
  else if (!(row = find_op(op)))
    s = GRT_ERROR(UNIMPLEMENTED, "op %s is not supported by grt's ONNX importer", op);
  /* An older form of the op is rewritten into the one its converter reads,
   * converted as of that form's opset (onnx_legacy.c). */
  int64_t model_opset = ctx->opset;
  onnx_legacy_node up;
  int32_t first_value = ctx->n_values;
  if (!s) {
    ctx->node = n;
    ctx->n_helpers = 0;
    first_value = ctx->n_values;
    s = fresh_name(ctx, first, &ctx->base);
    if (!s) s = grt_onnx_legacy_upgrade(ctx, &up);
  }
  if (!s) s = onnx_check_attrs(ctx);
  for (size_t i = 0; !s && i < ctx->node->n_attribute; i++) {
    const char* a = ctx->node->attribute[i]->name ? ctx->node->attribute[i]->name : "";
    if (!attr_listed(row->attrs, a))
      s = GRT_ERROR(UNIMPLEMENTED, "attribute '%s' is not supported", a);
  }
  if (!s) {
    bool folded = false;
    s = onnx_fold(ctx, &folded);
    if (!s && !folded) s = row->convert(ctx, row->tf_op);
    if (!s) s = onnx_shapes_settle(ctx, first_value);
  }
  ctx->opset = model_opset;
  return s ? grt_status_prefix(s, "node '%s' (%s)", label, op) : NULL;
}

/* A graph output keeps its ONNX name: an Identity of that name when the
 * value's producer is called something else. */
static grt_status* add_output(onnx_import* ctx, const Onnx__ValueInfoProto* vi) {
  const char* name = vi->name ? vi->name : "";
  int32_t i = grt_strmap_get(&ctx->by_name, name);
  if (i < 0) return GRT_ERROR(INVALID_ARGUMENT, "graph output '%s' is not computed", name);
  /* Its grt name: its own, or the one an invalid name was given (a new
   * one when its value was named after another). */
  const char* want = name;
  if (!grt_node_name_valid(name)) {
    int32_t r = grt_strmap_get(&ctx->renamed, name);
    if (r >= 0)
      want = ctx->renamed_to[r];
    else
      GRT_RETURN_IF_ERROR(fresh_name(ctx, name, &want));
  }
  const onnx_value* v = &ctx->values[i];
  if (strcmp(v->ref, want) == 0) return NULL;
  if (grt_graph_find_node(ctx->g, want) >= 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "graph output '%s': its name '%s' is taken by another node, and its value is "
                     "'%s'",
                     name, want, v->ref);
  ctx->base = grt_arena_strdup(ctx->g->arena, want);
  if (!ctx->base) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  const char* ref = v->ref;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, v->dtype, &ref, 1, NULL, NULL));
  return onnx_shapes_infer(ctx);
}

static grt_status* read_opset(const Onnx__ModelProto* m, int64_t* out) {
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto* o = m->opset_import[i];
    if (o->domain && *o->domain && strcmp(o->domain, "ai.onnx") != 0) continue;
    if (o->version < kMinOpset || o->version > kMaxOpset)
      return GRT_ERROR(UNIMPLEMENTED,
                       "model opset %lld (ai.onnx) is %s grt imports (%d); supported: %d..%d",
                       (long long)o->version,
                       o->version > kMaxOpset ? "newer than the newest" : "older than the oldest",
                       o->version > kMaxOpset ? kMaxOpset : kMinOpset, kMinOpset, kMaxOpset);
    *out = o->version;
    return NULL;
  }
  return GRT_ERROR(INVALID_ARGUMENT, "the model imports no ONNX opset");
}

static grt_status* import_graph(onnx_import* ctx, const Onnx__GraphProto* gp) {
  GRT_RETURN_IF_ERROR(grt_graph_reserve(
      ctx->g, (int32_t)(gp->n_node + gp->n_initializer + gp->n_input + gp->n_output)));
  GRT_RETURN_IF_ERROR(reserve_names(ctx, gp));
  GRT_RETURN_IF_ERROR(onnx_shapes_begin(ctx, gp));
  for (size_t i = 0; i < gp->n_initializer; i++)
    GRT_RETURN_IF_ERROR(add_initializer(ctx, gp->initializer[i]));
  for (size_t i = 0; i < gp->n_input; i++) GRT_RETURN_IF_ERROR(add_input(ctx, gp->input[i]));
  for (size_t i = 0; i < gp->n_node; i++) GRT_RETURN_IF_ERROR(add_node(ctx, gp->node[i]));
  for (size_t i = 0; i < gp->n_output; i++) GRT_RETURN_IF_ERROR(add_output(ctx, gp->output[i]));
  return NULL;
}

/* Each value the graph defines, with its inferred shape, to visit. */
static void visit_one(const onnx_import* ctx, const char* name, grt_onnx_shape_visit visit,
                      void* user) {
  int32_t v = name && *name ? grt_strmap_get(&ctx->by_name, name) : -1;
  if (v >= 0) visit(user, name, &ctx->shapes[v]);
}

static void visit_shapes(const onnx_import* ctx, const Onnx__GraphProto* gp,
                         grt_onnx_shape_visit visit, void* user) {
  for (size_t i = 0; i < gp->n_initializer; i++)
    visit_one(ctx, gp->initializer[i]->name, visit, user);
  for (size_t i = 0; i < gp->n_input; i++) visit_one(ctx, gp->input[i]->name, visit, user);
  for (size_t i = 0; i < gp->n_node; i++)
    for (size_t k = 0; k < gp->node[i]->n_output; k++)
      visit_one(ctx, gp->node[i]->output[k], visit, user);
}

grt_status* grt_onnx_parse(const void* data, size_t len, grt_graph** out) {
  return grt_onnx_parse_shapes(data, len, NULL, NULL, out);
}

grt_status* grt_onnx_parse_shapes(const void* data, size_t len, grt_onnx_shape_visit visit,
                                  void* user, grt_graph** out) {
  *out = NULL;
  GRT_RETURN_IF_ERROR(
      grt_protobuf_check_depth(&onnx__model_proto__descriptor, data, len, "ONNX model"));
  Onnx__ModelProto* m =
      onnx__model_proto__unpack(grt_protobuf_allocator(), len, (const uint8_t*)data);
  if (!m)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "not an ONNX model (protobuf parse failed, or out of memory)");
  onnx_import ctx = {0};
  grt_strmap_init(&ctx.by_name);
  grt_strmap_init(&ctx.declared);
  grt_strmap_init(&ctx.params);
  grt_strmap_init(&ctx.next_suffix);
  grt_strmap_init(&ctx.reserved);
  grt_strmap_init(&ctx.renamed);
  grt_status* s = NULL;
  if (!m->graph) s = GRT_ERROR(INVALID_ARGUMENT, "the model has no graph");
  if (!s) s = read_opset(m, &ctx.opset);
  if (!s && (m->graph->n_node + m->graph->n_initializer + m->graph->n_input + m->graph->n_output >
             (size_t)INT32_MAX / 4))
    s = GRT_ERROR(INVALID_ARGUMENT, "the model is larger than a graph holds");
  if (!s) s = grt_graph_new(&ctx.g);
  if (!s) s = import_graph(&ctx, m->graph);
  if (!s && visit) visit_shapes(&ctx, m->graph, visit, user);
  grt_strmap_clear(&ctx.by_name);
  grt_strmap_clear(&ctx.next_suffix);
  grt_strmap_clear(&ctx.reserved);
  grt_strmap_clear(&ctx.renamed);
  grt_free(ctx.renamed_to);
  onnx_shapes_end(&ctx);
  grt_free(ctx.values);
  grt_free(ctx.shapes);
  onnx__model_proto__free_unpacked(m, grt_protobuf_allocator());
  if (s) {
    grt_graph_free(ctx.g);
    return s;
  }
  *out = ctx.g;
  return NULL;
}
