/* TensorFlow GraphDef -> grt graph. Each NodeDef maps one to one onto a grt
 * node (grt's ops carry TensorFlow's names, inputs and attrs); attr values
 * are read by the type the op declares, `_class: ["loc:@x"]` becomes
 * colocation, and TensorFlow's other internal `_` attrs (`_output_shapes`,
 * ...) are dropped, as TensorFlow's own importer does for ops that do not
 * declare them. */
#include <string.h>

#include "base/arena.h"
#include "base/status.h"
#include "interchange/interchange.h"
#include "interchange/protobuf_alloc.h"
#include "interchange/protobuf_depth.h"
#include "interchange/tf_types.h"
#include "ops/graph.h"
#include "ops/op_def.h"

/* TensorFlow's colocation attr and the prefix of each of its entries. */
#define CLASS_ATTR "_class"
#define LOC_PREFIX "loc:@"

typedef Tensorflow__AttrValue AttrValue;
typedef Tensorflow__AttrValue__ListValue ListValue;

static const char* kind_name(Tensorflow__AttrValue__ValueCase c) {
  switch (c) {
    case TENSORFLOW__ATTR_VALUE__VALUE_S:
      return "string";
    case TENSORFLOW__ATTR_VALUE__VALUE_I:
      return "int";
    case TENSORFLOW__ATTR_VALUE__VALUE_F:
      return "float";
    case TENSORFLOW__ATTR_VALUE__VALUE_B:
      return "bool";
    case TENSORFLOW__ATTR_VALUE__VALUE_TYPE:
      return "type";
    case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE:
      return "shape";
    case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR:
      return "tensor";
    case TENSORFLOW__ATTR_VALUE__VALUE_LIST:
      return "list";
    case TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER:
      return "placeholder";
    default:
      return "no value";
  }
}

/* Bytes as a NUL-terminated string in the arena; embedded NULs refused. */
static grt_status* arena_string(grt_arena* arena, const ProtobufCBinaryData* b, const char** out) {
  if (b->len && memchr(b->data, 0, b->len))
    return GRT_ERROR(INVALID_ARGUMENT, "string holds a NUL byte");
  *out = grt_arena_strndup(arena, b->len ? (const char*)b->data : "", b->len);
  return *out ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory copying a string");
}

/* One scalar of `base` type: from the AttrValue's own field (list_j < 0) or
 * from element list_j of its list. */
static grt_status* read_scalar(const AttrValue* a, int64_t j, grt_attr_type base, grt_arena* arena,
                               grt_attr_value* v) {
  const ListValue* l = j >= 0 ? a->list : NULL;
  v->type = base;
  switch (base) {
    case GRT_ATTR_INT:
      v->u.i = l ? l->i[j] : a->i;
      return NULL;
    case GRT_ATTR_FLOAT:
      v->u.f = l ? l->f[j] : a->f;
      return NULL;
    case GRT_ATTR_BOOL:
      v->u.b = (l ? l->b[j] : a->b) != 0;
      return NULL;
    case GRT_ATTR_STRING:
      return arena_string(arena, l ? &l->s[j] : &a->s, &v->u.s);
    case GRT_ATTR_TYPE:
      return grt_tf_dtype_read(l ? (int)l->type[j] : (int)a->type, &v->u.t, NULL);
    case GRT_ATTR_SHAPE:
      return grt_tf_shape_read(l ? l->shape[j] : a->shape, true, &v->u.shape);
    case GRT_ATTR_TENSOR:
      if (!(l ? l->tensor[j] : a->tensor)) return GRT_ERROR(INVALID_ARGUMENT, "empty tensor");
      return grt_tf_tensor_read(l ? l->tensor[j] : a->tensor, &v->u.tensor);
    default:
      return GRT_ERROR(INTERNAL, "attr type %d has no GraphDef form", (int)base);
  }
}

/* The number of elements `l` holds in the field for `base`, and whether any
 * other field holds some (a list of another kind). */
static size_t list_count(const ListValue* l, grt_attr_type base, bool* other) {
  size_t counts[] = {
      [GRT_ATTR_INT] = l->n_i,         [GRT_ATTR_FLOAT] = l->n_f,   [GRT_ATTR_BOOL] = l->n_b,
      [GRT_ATTR_STRING] = l->n_s,      [GRT_ATTR_TYPE] = l->n_type, [GRT_ATTR_SHAPE] = l->n_shape,
      [GRT_ATTR_TENSOR] = l->n_tensor,
  };
  size_t total = 0;
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) total += counts[k];
  *other = total != counts[base];
  return counts[base];
}

static const Tensorflow__AttrValue__ValueCase kCaseOf[] = {
    [GRT_ATTR_INT] = TENSORFLOW__ATTR_VALUE__VALUE_I,
    [GRT_ATTR_FLOAT] = TENSORFLOW__ATTR_VALUE__VALUE_F,
    [GRT_ATTR_BOOL] = TENSORFLOW__ATTR_VALUE__VALUE_B,
    [GRT_ATTR_STRING] = TENSORFLOW__ATTR_VALUE__VALUE_S,
    [GRT_ATTR_TYPE] = TENSORFLOW__ATTR_VALUE__VALUE_TYPE,
    [GRT_ATTR_SHAPE] = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE,
    [GRT_ATTR_TENSOR] = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR,
};

/* An AttrValue as the op declares the attr (`want`). */
static grt_status* read_attr(const AttrValue* a, grt_attr_type want, grt_arena* arena,
                             grt_attr_value* out) {
  memset(out, 0, sizeof *out);
  grt_attr_type base = (grt_attr_type)(want & ~GRT_ATTR_LIST);
  if (!(want & GRT_ATTR_LIST)) {
    if (a->value_case != kCaseOf[base])
      return GRT_ERROR(INVALID_ARGUMENT, "expected %s, got %s", grt_attr_type_name(want),
                       kind_name(a->value_case));
    grt_status* s = read_scalar(a, -1, base, arena, out);
    if (s) memset(out, 0, sizeof *out);
    return s;
  }
  /* TensorFlow writes an empty list as `list {}`; an unset value is one too. */
  if (a->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST &&
      a->value_case != TENSORFLOW__ATTR_VALUE__VALUE__NOT_SET)
    return GRT_ERROR(INVALID_ARGUMENT, "expected %s, got %s", grt_attr_type_name(want),
                     kind_name(a->value_case));
  bool other = false;
  size_t n = a->list ? list_count(a->list, base, &other) : 0;
  if (other)
    return GRT_ERROR(INVALID_ARGUMENT, "expected %s, got a list of another kind",
                     grt_attr_type_name(want));
  if (n > INT32_MAX) return GRT_ERROR(INVALID_ARGUMENT, "list of %zu values is too long", n);
  out->type = want;
  if (n == 0) return NULL;
  out->u.list.v.i = grt_arena_calloc(arena, n, grt_attr_elem_size(base));
  if (!out->u.list.v.i) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for %zu values", n);
  for (size_t j = 0; j < n; j++) {
    grt_attr_value one = {0};
    grt_status* s = read_scalar(a, (int64_t)j, base, arena, &one);
    if (s) {
      grt_attr_value_release(out);
      memset(out, 0, sizeof *out);
      return grt_status_prefix(s, "element %zu", j);
    }
    grt_attr_list_put(out, (int32_t)j, &one);
    out->u.list.n = (int32_t)j + 1;
  }
  return NULL;
}

/* `_class`: a list of "loc:@node" strings naming the nodes to share a
 * device with. */
static grt_status* read_colocation(grt_graph* g, int32_t idx, const AttrValue* a) {
  if (a->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || !a->list)
    return GRT_ERROR(INVALID_ARGUMENT, "expected a list of \"" LOC_PREFIX "node\" strings, got %s",
                     kind_name(a->value_case));
  const ListValue* l = a->list;
  for (size_t j = 0; j < l->n_s; j++) {
    const char* s;
    GRT_RETURN_IF_ERROR(arena_string(g->arena, &l->s[j], &s));
    if (strncmp(s, LOC_PREFIX, strlen(LOC_PREFIX)) != 0)
      return GRT_ERROR(INVALID_ARGUMENT, "'%s' is not \"" LOC_PREFIX "node\"", s);
    GRT_RETURN_IF_ERROR(grt_graph_add_colocation(g, idx, s + strlen(LOC_PREFIX)));
  }
  return NULL;
}

static grt_status* read_node(grt_graph* g, const Tensorflow__NodeDef* nd, size_t i) {
  const char* name = nd->name ? nd->name : "";
  const char* op = nd->op ? nd->op : "";
  if (!*name) return GRT_ERROR(INVALID_ARGUMENT, "node[%zu] has no name", i);
  const grt_op_def* def = grt_op_lookup(op);
  if (!def) return GRT_ERROR(UNIMPLEMENTED, "node '%s': op '%s' is not supported by grt", name, op);
  int32_t idx;
  grt_status* s = grt_graph_add_node(g, name, def->name, &idx);
  if (s) return grt_status_prefix(s, "node[%zu]", i);
  if (nd->device && *nd->device) s = grt_graph_set_device(g, idx, nd->device);
  for (size_t k = 0; !s && k < nd->n_input; k++) s = grt_graph_add_input(g, idx, nd->input[k]);
  for (size_t k = 0; !s && k < nd->n_attr; k++) {
    const Tensorflow__NodeDef__AttrEntry* e = nd->attr[k];
    const char* key = e->key ? e->key : "";
    if (!e->value) {
      s = GRT_ERROR(INVALID_ARGUMENT, "attr '%s' has no value", key);
    } else if (strcmp(key, CLASS_ATTR) == 0) {
      s = read_colocation(g, idx, e->value);
      if (s) s = grt_status_prefix(s, "attr '%s'", key);
    } else if (key[0] == '_') {
      continue;
    } else {
      const grt_attr_def* ad = grt_op_find_attr(def, key);
      if (!ad) {
        s = GRT_ERROR(INVALID_ARGUMENT, "unknown attr '%s'", key);
        break;
      }
      grt_attr_value v;
      s = read_attr(e->value, ad->type, g->arena, &v);
      if (!s) s = grt_graph_set_attr_value(g, idx, ad->name, &v);
      if (s) s = grt_status_prefix(s, "attr '%s'", key);
    }
  }
  return s ? grt_status_prefix(s, "node '%s' (%s)", name, op) : NULL;
}

grt_status* grt_graphdef_parse(const void* data, size_t len, grt_graph** out) {
  *out = NULL;
  GRT_RETURN_IF_ERROR(
      grt_protobuf_check_depth(&tensorflow__graph_def__descriptor, data, len, "GraphDef"));
  Tensorflow__GraphDef* gd =
      tensorflow__graph_def__unpack(grt_protobuf_allocator(), len, (const uint8_t*)data);
  if (!gd)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "not a TensorFlow GraphDef (protobuf parse failed, or out of memory)");
  if (gd->n_node > INT32_MAX) {
    tensorflow__graph_def__free_unpacked(gd, grt_protobuf_allocator());
    return GRT_ERROR(INVALID_ARGUMENT, "%zu nodes are more than a graph holds", gd->n_node);
  }
  grt_graph* g = NULL;
  grt_status* s = grt_graph_new(&g);
  if (!s) s = grt_graph_reserve(g, (int32_t)gd->n_node);
  for (size_t i = 0; !s && i < gd->n_node; i++) s = read_node(g, gd->node[i], i);
  tensorflow__graph_def__free_unpacked(gd, grt_protobuf_allocator());
  if (s) {
    grt_graph_free(g);
    return s;
  }
  *out = g;
  return NULL;
}
