/* The in-memory graph: building and querying (grt/graph.h, ops/graph.h). */
#include "ops/graph.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/op_def.h"

#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building the graph")

grt_status* grt_graph_new(grt_graph** out) {
  *out = NULL;
  grt_graph* g = grt_calloc(1, sizeof *g);
  if (!g) return OOM();
  g->arena = grt_arena_new();
  if (!g->arena) {
    grt_free(g);
    return OOM();
  }
  grt_strmap_init(&g->by_name);
  *out = g;
  return NULL;
}

void grt_graph_free(grt_graph* g) {
  if (!g) return;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    grt_node* n = &g->nodes[i];
    for (int32_t a = 0; a < n->n_attrs; a++) grt_attr_value_release(&n->attrs[a].value);
  }
  grt_free(g->nodes);
  grt_strmap_clear(&g->by_name);
  grt_arena_free(g->arena);
  if (g->backing_release) g->backing_release(g->backing);
  grt_free(g);
}

bool grt_node_name_valid(const char* name) {
  if (!name || !*name) return false;
  for (const char* p = name; *p; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '/' || c == '-';
    if (!ok) return false;
  }
  return true;
}

grt_status* grt_graph_reserve(grt_graph* g, int32_t n) {
  if (n < 0) return GRT_ERROR(INVALID_ARGUMENT, "negative node count %d", (int)n);
  if (n > g->cap_nodes) {
    grt_node* nodes = grt_realloc(g->nodes, (size_t)n * sizeof *nodes);
    if (!nodes) return OOM();
    g->nodes = nodes;
    g->cap_nodes = n;
  }
  if (!grt_strmap_reserve(&g->by_name, (size_t)n)) return OOM();
  return NULL;
}

grt_status* grt_graph_add_node_borrowed(grt_graph* g, const char* name, const char* op,
                                        int32_t* out_index) {
  if (!grt_node_name_valid(name))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "node name '%s' is invalid: names are non-empty and use only "
                     "[A-Za-z0-9_./-]",
                     name ? name : "(null)");
  if (!op || !*op) return GRT_ERROR(INVALID_ARGUMENT, "node '%s': missing op", name);
  if (g->n_nodes == INT32_MAX) return GRT_ERROR(OUT_OF_RANGE, "too many nodes");
  if (g->n_nodes == g->cap_nodes) {
    int64_t cap = g->cap_nodes ? (int64_t)g->cap_nodes * 2 : 16;
    if (cap > INT32_MAX) cap = INT32_MAX;
    GRT_RETURN_IF_ERROR(grt_graph_reserve(g, (int32_t)cap));
  }
  int32_t existing;
  int r = grt_strmap_put(&g->by_name, name, g->n_nodes, &existing);
  if (r < 0) return OOM();
  if (r == 0)
    return GRT_ERROR(ALREADY_EXISTS, "duplicate node name '%s' (nodes %d and %d)", name,
                     (int)existing, (int)g->n_nodes);
  grt_node* n = &g->nodes[g->n_nodes];
  memset(n, 0, sizeof *n);
  n->name = name;
  n->op = op;
  n->device = "";
  if (out_index) *out_index = g->n_nodes;
  g->n_nodes++;
  g->validated = false;
  return NULL;
}

grt_status* grt_graph_add_node(grt_graph* g, const char* name, const char* op, int32_t* out_index) {
  if (!grt_node_name_valid(name))
    return grt_graph_add_node_borrowed(g, name, op, out_index); /* for its message */
  char* n = grt_arena_strdup(g->arena, name);
  char* o = grt_arena_strdup(g->arena, op ? op : "");
  if (!n || !o) return OOM();
  return grt_graph_add_node_borrowed(g, n, o, out_index);
}

static grt_status* node_at(grt_graph* g, int32_t i, grt_node** out) {
  if (!g || i < 0 || i >= g->n_nodes)
    return GRT_ERROR(OUT_OF_RANGE, "node index %d out of range (graph has %d nodes)", (int)i,
                     g ? (int)g->n_nodes : 0);
  *out = &g->nodes[i];
  g->validated = false;
  return NULL;
}

grt_status* grt_graph_set_device(grt_graph* g, int32_t node, const char* device) {
  grt_node* n = NULL;
  GRT_RETURN_IF_ERROR(node_at(g, node, &n));
  const char* d = grt_arena_strdup(g->arena, device ? device : "");
  if (!d) return OOM();
  n->device = d;
  return NULL;
}

/* Appends to an arena array, doubling into a new block when full (the old
 * block is left in the arena: bounded 2x waste, no per-element malloc). */
static bool grow(grt_arena* a, void** items, int32_t n, int32_t* cap, size_t elem) {
  if (n < *cap) return true;
  int32_t ncap = *cap ? *cap * 2 : 2;
  void* p = grt_arena_calloc(a, (size_t)ncap, elem);
  if (!p) return false;
  if (n) memcpy(p, *items, (size_t)n * elem);
  *items = p;
  *cap = ncap;
  return true;
}

bool grt_parse_input_spec(const char* spec, const char** out_node, size_t* out_len,
                          int32_t* out_port, bool* out_control) {
  if (!spec) return false;
  bool control = spec[0] == '^';
  const char* name = control ? spec + 1 : spec;
  const char* colon = strrchr(name, ':');
  size_t len = colon ? (size_t)(colon - name) : strlen(name);
  int32_t port = control ? -1 : 0;
  if (colon) {
    if (control || !colon[1]) return false;
    int64_t v = 0;
    for (const char* p = colon + 1; *p; p++) {
      if (*p < '0' || *p > '9') return false;
      v = v * 10 + (*p - '0');
      if (v > INT32_MAX) return false;
    }
    port = (int32_t)v;
  }
  if (len == 0) return false;
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '/' || c == '-';
    if (!ok) return false;
  }
  *out_node = name;
  *out_len = len;
  *out_port = port;
  *out_control = control;
  return true;
}

grt_status* grt_graph_add_input(grt_graph* g, int32_t node, const char* input) {
  grt_node* n = NULL;
  GRT_RETURN_IF_ERROR(node_at(g, node, &n));
  const char* src;
  size_t len;
  int32_t port;
  bool control;
  if (!grt_parse_input_spec(input, &src, &len, &port, &control))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "node '%s': malformed input '%s' (expected \"node\", \"node:k\" or \"^node\")",
                     n->name, input ? input : "(null)");
  if (!control && n->n_controls > 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "node '%s': data input '%s' comes after a control input; data inputs "
                     "must come first",
                     n->name, input);
  const char* name = grt_arena_strndup(g->arena, src, len);
  if (!name) return OOM();
  grt_input in = {name, port, -1};
  if (control) {
    if (!grow(g->arena, (void**)&n->controls, n->n_controls, &n->cap_controls, sizeof in))
      return OOM();
    n->controls[n->n_controls++] = in;
  } else {
    if (!grow(g->arena, (void**)&n->inputs, n->n_inputs, &n->cap_inputs, sizeof in)) return OOM();
    n->inputs[n->n_inputs++] = in;
  }
  return NULL;
}

grt_status* grt_graph_add_colocation(grt_graph* g, int32_t node, const char* other) {
  grt_node* n = NULL;
  GRT_RETURN_IF_ERROR(node_at(g, node, &n));
  if (!grt_node_name_valid(other))
    return GRT_ERROR(INVALID_ARGUMENT, "node '%s': colocate_with names an invalid node name '%s'",
                     n->name, other ? other : "(null)");
  const char* name = grt_arena_strdup(g->arena, other);
  if (!name) return OOM();
  if (!grow(g->arena, (void**)&n->colocate_with, n->n_colocate, &n->cap_colocate,
            sizeof(const char*)))
    return OOM();
  n->colocate_with[n->n_colocate++] = name;
  return NULL;
}

grt_status* grt_graph_set_attr_value(grt_graph* g, int32_t node, const char* name,
                                     const grt_attr_value* v) {
  grt_node* n = NULL;
  grt_status* s = node_at(g, node, &n);
  if (!s && (!name || !*name))
    s = GRT_ERROR(INVALID_ARGUMENT, "node '%s': empty attr name", n->name);
  if (!s && !grt_attr_type_valid(v->type))
    s = GRT_ERROR(INVALID_ARGUMENT, "node '%s': attr '%s' has an invalid type %d", n->name, name,
                  (int)v->type);
  if (s) {
    grt_attr_value copy = *v; /* the graph was handed these references */
    grt_attr_value_release(&copy);
    return s;
  }
  for (int32_t i = 0; i < n->n_attrs; i++) {
    if (strcmp(n->attrs[i].name, name) == 0) {
      grt_attr_value_release(&n->attrs[i].value);
      n->attrs[i].value = *v;
      return NULL;
    }
  }
  const char* key = grt_arena_strdup(g->arena, name);
  if (!key || !grow(g->arena, (void**)&n->attrs, n->n_attrs, &n->cap_attrs, sizeof(grt_attr))) {
    grt_attr_value copy = *v;
    grt_attr_value_release(&copy);
    return OOM();
  }
  n->attrs[n->n_attrs].name = key;
  n->attrs[n->n_attrs].value = *v;
  n->n_attrs++;
  return NULL;
}

grt_status* grt_graph_set_attr_int(grt_graph* g, int32_t node, const char* name, int64_t v) {
  grt_attr_value a = {.type = GRT_ATTR_INT, .u.i = v};
  return grt_graph_set_attr_value(g, node, name, &a);
}

grt_status* grt_graph_set_attr_float(grt_graph* g, int32_t node, const char* name, float v) {
  grt_attr_value a = {.type = GRT_ATTR_FLOAT, .u.f = v};
  return grt_graph_set_attr_value(g, node, name, &a);
}

grt_status* grt_graph_set_attr_bool(grt_graph* g, int32_t node, const char* name, bool v) {
  grt_attr_value a = {.type = GRT_ATTR_BOOL, .u.b = v};
  return grt_graph_set_attr_value(g, node, name, &a);
}

grt_status* grt_graph_set_attr_string(grt_graph* g, int32_t node, const char* name, const char* v) {
  if (!g) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph");
  grt_attr_value a = {.type = GRT_ATTR_STRING, .u.s = grt_arena_strdup(g->arena, v ? v : "")};
  if (!a.u.s) return OOM();
  return grt_graph_set_attr_value(g, node, name, &a);
}

grt_status* grt_graph_set_attr_type(grt_graph* g, int32_t node, const char* name, grt_dtype v) {
  grt_attr_value a = {.type = GRT_ATTR_TYPE, .u.t = v};
  return grt_graph_set_attr_value(g, node, name, &a);
}

grt_status* grt_graph_set_attr_shape(grt_graph* g, int32_t node, const char* name, int32_t rank,
                                     const int64_t* dims) {
  if (rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s': rank %d exceeds the maximum of %d", name,
                     (int)rank, GRT_MAX_RANK);
  grt_attr_value a = {.type = GRT_ATTR_SHAPE};
  a.u.shape = rank < 0 ? grt_shape_unknown() : grt_shape_make(rank, dims);
  for (int32_t i = 0; i < rank; i++)
    if (dims[i] < -1)
      return GRT_ERROR(INVALID_ARGUMENT, "attr '%s': dimension %d is %lld (use -1 for unknown)",
                       name, (int)i, (long long)dims[i]);
  return grt_graph_set_attr_value(g, node, name, &a);
}

grt_status* grt_graph_set_attr_tensor(grt_graph* g, int32_t node, const char* name, grt_tensor* t) {
  if (!t) return GRT_ERROR(INVALID_ARGUMENT, "attr '%s': NULL tensor", name ? name : "");
  grt_attr_value a = {.type = GRT_ATTR_TENSOR, .u.tensor = grt_tensor_ref(t)};
  return grt_graph_set_attr_value(g, node, name, &a);
}

static grt_status* set_list(grt_graph* g, int32_t node, const char* name, grt_attr_type type,
                            const void* v, int32_t n, size_t elem) {
  if (!g) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph");
  if (n < 0) return GRT_ERROR(INVALID_ARGUMENT, "attr '%s': negative list length", name);
  grt_attr_value a = {.type = type};
  a.u.list.n = n;
  void* copy = grt_arena_calloc(g->arena, (size_t)n, elem);
  if (!copy) return OOM();
  if (n) memcpy(copy, v, (size_t)n * elem);
  a.u.list.v.i = copy;
  return grt_graph_set_attr_value(g, node, name, &a);
}

grt_status* grt_graph_set_attr_int_list(grt_graph* g, int32_t node, const char* name,
                                        const int64_t* v, int32_t n) {
  return set_list(g, node, name, GRT_ATTR_LIST_INT, v, n, sizeof *v);
}

grt_status* grt_graph_set_attr_type_list(grt_graph* g, int32_t node, const char* name,
                                         const grt_dtype* v, int32_t n) {
  return set_list(g, node, name, GRT_ATTR_LIST_TYPE, v, n, sizeof *v);
}

/* ---- queries ----------------------------------------------------------- */

const grt_attr_value* grt_node_find_attr(const grt_node* n, const char* name) {
  for (int32_t i = 0; i < n->n_attrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i].value;
  return NULL;
}

const grt_attr_value* grt_node_attr(const grt_node* n, const char* name) {
  const grt_attr_value* v = grt_node_find_attr(n, name);
  return v ? v : grt_attr_lookup(NULL, n->def ? n->def : grt_op_lookup(n->op), name);
}

static const grt_node* cnode(const grt_graph* g, int32_t i) {
  return (g && i >= 0 && i < g->n_nodes) ? &g->nodes[i] : NULL;
}

int32_t grt_graph_num_nodes(const grt_graph* g) { return g ? g->n_nodes : 0; }

int32_t grt_graph_find_node(const grt_graph* g, const char* name) {
  return (g && name) ? grt_strmap_get(&g->by_name, name) : -1;
}

const char* grt_graph_node_name(const grt_graph* g, int32_t i) {
  const grt_node* n = cnode(g, i);
  return n ? n->name : NULL;
}
const char* grt_graph_node_op(const grt_graph* g, int32_t i) {
  const grt_node* n = cnode(g, i);
  return n ? n->op : NULL;
}
const char* grt_graph_node_device(const grt_graph* g, int32_t i) {
  const grt_node* n = cnode(g, i);
  return n ? n->device : NULL;
}
int32_t grt_graph_node_num_inputs(const grt_graph* g, int32_t i) {
  const grt_node* n = cnode(g, i);
  return n ? n->n_inputs : 0;
}
const char* grt_graph_node_input(const grt_graph* g, int32_t i, int32_t k, int32_t* out_port) {
  const grt_node* n = cnode(g, i);
  if (!n || k < 0 || k >= n->n_inputs) return NULL;
  if (out_port) *out_port = n->inputs[k].port;
  return n->inputs[k].node;
}
int32_t grt_graph_node_num_control_inputs(const grt_graph* g, int32_t i) {
  const grt_node* n = cnode(g, i);
  return n ? n->n_controls : 0;
}
const char* grt_graph_node_control_input(const grt_graph* g, int32_t i, int32_t k) {
  const grt_node* n = cnode(g, i);
  return (n && k >= 0 && k < n->n_controls) ? n->controls[k].node : NULL;
}
int32_t grt_graph_node_num_colocations(const grt_graph* g, int32_t i) {
  const grt_node* n = cnode(g, i);
  return n ? n->n_colocate : 0;
}
const char* grt_graph_node_colocation(const grt_graph* g, int32_t i, int32_t k) {
  const grt_node* n = cnode(g, i);
  return (n && k >= 0 && k < n->n_colocate) ? n->colocate_with[k] : NULL;
}

grt_attr_type grt_graph_node_attr_type(const grt_graph* g, int32_t i, const char* name) {
  const grt_node* n = cnode(g, i);
  const grt_attr_value* v = n && name ? grt_node_find_attr(n, name) : NULL;
  return v ? v->type : GRT_ATTR_NONE;
}

/* The attr a public getter reads (the node's, else its op's default):
 * NOT_FOUND when there is none, as grt/graph.h promises. */
static grt_status* public_attr(const grt_graph* g, int32_t i, const char* name,
                               const grt_attr_value** out) {
  const grt_node* n = cnode(g, i);
  if (!n) return GRT_ERROR(OUT_OF_RANGE, "node index %d out of range", (int)i);
  *out = name ? grt_node_attr(n, name) : NULL;
  if (!*out)
    return GRT_ERROR(NOT_FOUND, "node '%s' (%s): no attr '%s'", n->name, n->op,
                     name ? name : "(null)");
  return NULL;
}

/* A typed read's error (a mismatched type) with the node in front. */
static grt_status* named(const grt_graph* g, int32_t i, grt_status* s) {
  return s ? grt_status_prefix(s, "node '%s' (%s)", g->nodes[i].name, g->nodes[i].op) : NULL;
}

grt_status* grt_graph_node_attr_int(const grt_graph* g, int32_t i, const char* name, int64_t* out) {
  const grt_attr_value* v;
  GRT_RETURN_IF_ERROR(public_attr(g, i, name, &v));
  return named(g, i, grt_attr_get_int(v, name, out));
}
grt_status* grt_graph_node_attr_float(const grt_graph* g, int32_t i, const char* name, float* out) {
  const grt_attr_value* v;
  GRT_RETURN_IF_ERROR(public_attr(g, i, name, &v));
  return named(g, i, grt_attr_get_float(v, name, out));
}
grt_status* grt_graph_node_attr_bool(const grt_graph* g, int32_t i, const char* name, bool* out) {
  const grt_attr_value* v;
  GRT_RETURN_IF_ERROR(public_attr(g, i, name, &v));
  return named(g, i, grt_attr_get_bool(v, name, out));
}
grt_status* grt_graph_node_attr_string(const grt_graph* g, int32_t i, const char* name,
                                       const char** out) {
  const grt_attr_value* v;
  GRT_RETURN_IF_ERROR(public_attr(g, i, name, &v));
  return named(g, i, grt_attr_get_string(v, name, out));
}
grt_status* grt_graph_node_attr_type_value(const grt_graph* g, int32_t i, const char* name,
                                           grt_dtype* out) {
  const grt_attr_value* v;
  GRT_RETURN_IF_ERROR(public_attr(g, i, name, &v));
  return named(g, i, grt_attr_get_type(v, name, out));
}
grt_status* grt_graph_node_attr_tensor(const grt_graph* g, int32_t i, const char* name,
                                       const grt_tensor** out) {
  const grt_attr_value* v;
  GRT_RETURN_IF_ERROR(public_attr(g, i, name, &v));
  return named(g, i, grt_attr_get_tensor(v, name, out));
}

int32_t grt_graph_node_num_outputs(const grt_graph* g, int32_t i) {
  const grt_node* n = cnode(g, i);
  return (n && g->validated) ? n->sig.n_outputs : 0;
}

grt_dtype grt_graph_node_output_type(const grt_graph* g, int32_t i, int32_t k) {
  const grt_node* n = cnode(g, i);
  if (!n || !g->validated || k < 0 || k >= n->sig.n_outputs) return GRT_DTYPE_INVALID;
  return n->sig.output_types[k];
}

grt_status* grt_graph_node_output_shape(const grt_graph* g, int32_t i, int32_t k, int32_t* out_rank,
                                        int64_t* out_dims) {
  const grt_node* n = cnode(g, i);
  if (!n) return GRT_ERROR(OUT_OF_RANGE, "node index %d out of range", (int)i);
  if (!g->validated)
    return GRT_ERROR(FAILED_PRECONDITION, "graph is not validated: call grt_graph_validate");
  if (k < 0 || k >= n->sig.n_outputs)
    return GRT_ERROR(OUT_OF_RANGE, "node '%s' has no output %d", n->name, (int)k);
  const grt_shape* s = &n->sig.output_shapes[k];
  *out_rank = s->rank;
  for (int32_t d = 0; d < s->rank; d++) out_dims[d] = s->dims[d];
  return NULL;
}

size_t grt_graph_constant_bytes(const grt_graph* g) {
  size_t total = 0;
  for (int32_t i = 0; g && i < g->n_nodes; i++) {
    const grt_node* n = &g->nodes[i];
    for (int32_t a = 0; a < n->n_attrs; a++) {
      const grt_attr_value* v = &n->attrs[a].value;
      if (v->type == GRT_ATTR_TENSOR) total += grt_tensor_byte_size(v->u.tensor);
      if (v->type == GRT_ATTR_LIST_TENSOR)
        for (int32_t k = 0; k < v->u.list.n; k++)
          total += grt_tensor_byte_size(v->u.list.v.tensor[k]);
    }
  }
  return total;
}
