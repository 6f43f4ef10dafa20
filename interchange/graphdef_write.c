/* grt graph -> TensorFlow GraphDef. The message is built in an arena over
 * the graph's own memory (tensor bytes are pointed at, not copied) and packed
 * straight into the file. */
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/interchange.h"
#include "interchange/tf_types.h"
#include "ops/graph.h"

/* The GraphDef version grt's graphs correspond to: TensorFlow 1.x op
 * semantics (TensorFlow 1.15 writes producer 134). */
enum { kProducer = 134 };

#define NEW(arena, T) ((T*)grt_arena_calloc((arena), 1, sizeof(T)))
#define NEW_N(arena, T, n) ((T*)grt_arena_calloc((arena), (n) ? (n) : 1, sizeof(T)))
#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory writing a GraphDef")

static Tensorflow__TensorShapeProto* shape_proto(grt_arena* a, const grt_shape* s) {
  Tensorflow__TensorShapeProto* p = NEW(a, Tensorflow__TensorShapeProto);
  if (!p) return NULL;
  tensorflow__tensor_shape_proto__init(p);
  if (s->rank < 0) {
    p->unknown_rank = 1;
    return p;
  }
  p->n_dim = (size_t)s->rank;
  p->dim = NEW_N(a, Tensorflow__TensorShapeProto__Dim*, p->n_dim);
  if (!p->dim) return NULL;
  for (int32_t i = 0; i < s->rank; i++) {
    Tensorflow__TensorShapeProto__Dim* d = NEW(a, Tensorflow__TensorShapeProto__Dim);
    if (!d) return NULL;
    tensorflow__tensor_shape_proto__dim__init(d);
    d->size = s->dims[i];
    p->dim[i] = d;
  }
  return p;
}

static Tensorflow__TensorProto* tensor_proto(grt_arena* a, const grt_tensor* t) {
  Tensorflow__TensorProto* p = NEW(a, Tensorflow__TensorProto);
  if (!p) return NULL;
  tensorflow__tensor_proto__init(p);
  p->dtype = grt_tf_dtype_of(t->dtype);
  p->tensor_shape = shape_proto(a, &t->shape);
  if (!p->tensor_shape) return NULL;
  p->tensor_content.len = grt_tensor_byte_size(t);
  p->tensor_content.data = grt_tensor_data(t); /* borrowed: only packed */
  return p;
}

/* One scalar of a list into `l`'s field for its type, at j. */
static bool put_list_item(grt_arena* a, Tensorflow__AttrValue__ListValue* l, grt_attr_type base,
                          size_t j, const grt_attr_value* v) {
  switch (base) {
    case GRT_ATTR_INT:
      l->i[j] = v->u.i;
      return true;
    case GRT_ATTR_FLOAT:
      l->f[j] = v->u.f;
      return true;
    case GRT_ATTR_BOOL:
      l->b[j] = v->u.b;
      return true;
    case GRT_ATTR_STRING:
      l->s[j].data = (uint8_t*)(v->u.s ? v->u.s : "");
      l->s[j].len = strlen((const char*)l->s[j].data);
      return true;
    case GRT_ATTR_TYPE:
      l->type[j] = grt_tf_dtype_of(v->u.t);
      return true;
    case GRT_ATTR_SHAPE:
      return (l->shape[j] = shape_proto(a, &v->u.shape)) != NULL;
    case GRT_ATTR_TENSOR:
      return (l->tensor[j] = tensor_proto(a, v->u.tensor)) != NULL;
    default:
      return false;
  }
}

static bool alloc_list(grt_arena* a, Tensorflow__AttrValue__ListValue* l, grt_attr_type base,
                       size_t n) {
  switch (base) {
    case GRT_ATTR_INT:
      l->n_i = n;
      return (l->i = NEW_N(a, int64_t, n)) != NULL;
    case GRT_ATTR_FLOAT:
      l->n_f = n;
      return (l->f = NEW_N(a, float, n)) != NULL;
    case GRT_ATTR_BOOL:
      l->n_b = n;
      return (l->b = NEW_N(a, protobuf_c_boolean, n)) != NULL;
    case GRT_ATTR_STRING:
      l->n_s = n;
      return (l->s = NEW_N(a, ProtobufCBinaryData, n)) != NULL;
    case GRT_ATTR_TYPE:
      l->n_type = n;
      return (l->type = NEW_N(a, Tensorflow__DataType, n)) != NULL;
    case GRT_ATTR_SHAPE:
      l->n_shape = n;
      return (l->shape = NEW_N(a, Tensorflow__TensorShapeProto*, n)) != NULL;
    case GRT_ATTR_TENSOR:
      l->n_tensor = n;
      return (l->tensor = NEW_N(a, Tensorflow__TensorProto*, n)) != NULL;
    default:
      return false;
  }
}

static Tensorflow__AttrValue* attr_proto(grt_arena* a, const grt_attr_value* v) {
  Tensorflow__AttrValue* p = NEW(a, Tensorflow__AttrValue);
  if (!p) return NULL;
  tensorflow__attr_value__init(p);
  switch (v->type) {
    case GRT_ATTR_INT:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
      p->i = v->u.i;
      return p;
    case GRT_ATTR_FLOAT:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
      p->f = v->u.f;
      return p;
    case GRT_ATTR_BOOL:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
      p->b = v->u.b;
      return p;
    case GRT_ATTR_STRING:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
      p->s.data = (uint8_t*)(v->u.s ? v->u.s : "");
      p->s.len = strlen((const char*)p->s.data);
      return p;
    case GRT_ATTR_TYPE:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
      p->type = grt_tf_dtype_of(v->u.t);
      return p;
    case GRT_ATTR_SHAPE:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
      return (p->shape = shape_proto(a, &v->u.shape)) ? p : NULL;
    case GRT_ATTR_TENSOR:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
      return (p->tensor = tensor_proto(a, v->u.tensor)) ? p : NULL;
    default:
      break;
  }
  /* A list. */
  grt_attr_type base = (grt_attr_type)(v->type & ~GRT_ATTR_LIST);
  p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  p->list = NEW(a, Tensorflow__AttrValue__ListValue);
  if (!p->list) return NULL;
  tensorflow__attr_value__list_value__init(p->list);
  size_t n = (size_t)v->u.list.n;
  if (!alloc_list(a, p->list, base, n)) return NULL;
  for (size_t j = 0; j < n; j++) {
    grt_attr_value item;
    grt_attr_list_get(v, (int32_t)j, &item);
    if (!put_list_item(a, p->list, base, j, &item)) return NULL;
  }
  return p;
}

static int by_key(const void* x, const void* y) {
  const Tensorflow__NodeDef__AttrEntry* const* a = x;
  const Tensorflow__NodeDef__AttrEntry* const* b = y;
  return strcmp((*a)->key, (*b)->key);
}

/* "src", "src:k" or "^src" as TensorFlow writes inputs. */
static char* input_spec(grt_arena* a, const grt_input* in) {
  size_t n = strlen(in->node) + 16;
  char* s = grt_arena_alloc(a, n);
  if (!s) return NULL;
  if (in->port < 0)
    snprintf(s, n, "^%s", in->node);
  else if (in->port == 0)
    snprintf(s, n, "%s", in->node);
  else
    snprintf(s, n, "%s:%d", in->node, (int)in->port);
  return s;
}

static Tensorflow__NodeDef* node_proto(grt_arena* a, const grt_node* n) {
  Tensorflow__NodeDef* p = NEW(a, Tensorflow__NodeDef);
  if (!p) return NULL;
  tensorflow__node_def__init(p);
  p->name = (char*)n->name;
  p->op = (char*)n->op;
  p->device = (char*)(n->device ? n->device : "");
  p->n_input = (size_t)(n->n_inputs + n->n_controls);
  p->input = NEW_N(a, char*, p->n_input);
  if (!p->input) return NULL;
  for (int32_t i = 0; i < n->n_inputs + n->n_controls; i++) {
    const grt_input* in = i < n->n_inputs ? &n->inputs[i] : &n->controls[i - n->n_inputs];
    if (!(p->input[i] = input_spec(a, in))) return NULL;
  }
  /* A Placeholder's dim_names (an ONNX model's symbolic dimensions) and
   * onnx_name (the model's name for a renamed input) are grt's own attrs,
   * which TensorFlow's Placeholder does not have: left out. */
  int32_t* kept = NEW_N(a, int32_t, (size_t)n->n_attrs + 1);
  int32_t n_kept = 0;
  if (!kept) return NULL;
  for (int32_t i = 0; i < n->n_attrs; i++)
    if (strcmp(n->op, "Placeholder") != 0 ||
        (strcmp(n->attrs[i].name, "dim_names") != 0 && strcmp(n->attrs[i].name, "onnx_name") != 0))
      kept[n_kept++] = i;
  p->n_attr = (size_t)n_kept + (n->n_colocate > 0);
  p->attr = NEW_N(a, Tensorflow__NodeDef__AttrEntry*, p->n_attr);
  if (!p->attr) return NULL;
  for (size_t i = 0; i < p->n_attr; i++) {
    Tensorflow__NodeDef__AttrEntry* e = NEW(a, Tensorflow__NodeDef__AttrEntry);
    if (!e) return NULL;
    tensorflow__node_def__attr_entry__init(e);
    if (i < (size_t)n_kept) {
      e->key = (char*)n->attrs[kept[i]].name;
      e->value = attr_proto(a, &n->attrs[kept[i]].value);
    } else { /* colocation as TensorFlow's _class: ["loc:@node", ...] */
      e->key = "_class";
      grt_attr_value locs = {.type = GRT_ATTR_LIST_STRING, .u.list.n = n->n_colocate};
      locs.u.list.v.s = NEW_N(a, const char*, (size_t)n->n_colocate);
      if (!locs.u.list.v.s) return NULL;
      for (int32_t j = 0; j < n->n_colocate; j++) {
        size_t len = strlen(n->colocate_with[j]) + 6;
        char* s = grt_arena_alloc(a, len);
        if (!s) return NULL;
        snprintf(s, len, "loc:@%s", n->colocate_with[j]);
        locs.u.list.v.s[j] = s;
      }
      e->value = attr_proto(a, &locs);
    }
    if (!e->value) return NULL;
    p->attr[i] = e;
  }
  qsort(p->attr, p->n_attr, sizeof p->attr[0], by_key);
  return p;
}

/* protobuf-c's output sink, appending to a FILE. */
typedef struct {
  ProtobufCBuffer base;
  FILE* f;
  bool failed;
} file_buffer;

static void file_append(ProtobufCBuffer* b, size_t len, const uint8_t* data) {
  file_buffer* fb = (file_buffer*)b;
  if (!fb->failed && len && fwrite(data, 1, len, fb->f) != len) fb->failed = true;
}

grt_status* grt_graphdef_write(grt_graph* g, FILE* f) {
  if (!g->validated) GRT_RETURN_IF_ERROR(grt_graph_validate(g));
  grt_arena* a = grt_arena_new();
  if (!a) return OOM();
  Tensorflow__GraphDef gd;
  tensorflow__graph_def__init(&gd);
  Tensorflow__VersionDef versions;
  tensorflow__version_def__init(&versions);
  versions.producer = kProducer;
  gd.versions = &versions;
  gd.n_node = (size_t)g->n_nodes;
  gd.node = NEW_N(a, Tensorflow__NodeDef*, gd.n_node);
  grt_status* s = gd.node ? NULL : OOM();
  for (int32_t i = 0; !s && i < g->n_nodes; i++)
    if (!(gd.node[i] = node_proto(a, &g->nodes[i]))) s = OOM();
  if (!s) {
    file_buffer fb = {{file_append}, f, false};
    protobuf_c_message_pack_to_buffer(&gd.base, &fb.base);
    if (fb.failed) s = GRT_ERROR(INTERNAL, "writing the GraphDef failed");
  }
  grt_arena_free(a);
  return s;
}
