/* grt_format_parse_json: the JSON text form (docs/json-format.md) into a
 * graph. jansson does the parsing; this file checks the structure and
 * builds nodes, reading each attr by the type its op declares.
 *
 * Strictness is the point: an unknown key, a misspelt attr or a value of
 * the wrong kind is an error naming the node, never silently ignored, since
 * a typo in a hand-written graph would otherwise change what runs. */
#include <inttypes.h>
#include <string.h>

#include "graph_format/formats.h"
#include "graph_format/json_alloc.h"
#include "graph_format/json_value.h"
#include "ops/graph.h"
#include "ops/op_def.h"
#include "base/status.h"

/* The text form version this reader understands. */
enum { kVersion = 1 };

static const char* const kTopKeys[] = {"format", "version", "nodes"};
static const char* const kNodeKeys[] = {"name", "op", "inputs", "device", "colocate_with", "attrs"};

static bool key_known(const char* key, const char* const* keys, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(key, keys[i]) == 0) return true;
  return false;
}

static grt_status* check_header(const json_t* root, const json_t** out_nodes) {
  if (!json_is_object(root))
    return GRT_ERROR(INVALID_ARGUMENT, "a grt graph is a JSON object, got %s", grt_json_kind(root));
  const json_t* format = json_object_get(root, "format");
  if (!json_is_string(format) || strcmp(json_string_value(format), "grt.graph") != 0)
    return GRT_ERROR(
        INVALID_ARGUMENT, "not a grt graph: \"format\" must be \"grt.graph\", got %s%s%s%s",
        format ? grt_json_kind(format) : "nothing", json_is_string(format) ? " '" : "",
        json_is_string(format) ? json_string_value(format) : "", json_is_string(format) ? "'" : "");
  const json_t* version = json_object_get(root, "version");
  if (!json_is_integer(version))
    return GRT_ERROR(INVALID_ARGUMENT, "\"version\" must be a positive integer, got %s",
                     version ? grt_json_kind(version) : "nothing");
  if (json_integer_value(version) < 1)
    return GRT_ERROR(INVALID_ARGUMENT, "\"version\" must be a positive integer, got %" PRId64,
                     (int64_t)json_integer_value(version));
  if (json_integer_value(version) > kVersion)
    return GRT_ERROR(UNIMPLEMENTED,
                     "graph text form version %" PRId64
                     " is newer than this grt reads (%d); "
                     "upgrade grt",
                     (int64_t)json_integer_value(version), kVersion);
  /* Only after the version: a newer version may add keys. */
  const char* key;
  json_t* v;
  json_object_foreach((json_t*)root, key, v) {
    if (!key_known(key, kTopKeys, sizeof kTopKeys / sizeof kTopKeys[0]))
      return GRT_ERROR(INVALID_ARGUMENT,
                       "unknown top-level key '%s' (expected format, version, nodes)", key);
  }
  const json_t* nodes = json_object_get(root, "nodes");
  if (!json_is_array(nodes))
    return GRT_ERROR(INVALID_ARGUMENT, "\"nodes\" must be a list of nodes, got %s",
                     nodes ? grt_json_kind(nodes) : "nothing");
  if (json_array_size(nodes) > INT32_MAX)
    return GRT_ERROR(INVALID_ARGUMENT, "%zu nodes are more than a graph holds",
                     json_array_size(nodes));
  *out_nodes = nodes;
  return NULL;
}

/* Where a node is, for messages: "node 'w' (VariableV2)". */
typedef struct where {
  const char* name;
  const char* op;
} where;

#define NODE_ERROR(w, code, fmt, ...)                                                              \
  GRT_ERROR(code, "node '%s'%s%s%s: " fmt, (w)->name, (w)->op ? " (" : "", (w)->op ? (w)->op : "", \
            (w)->op ? ")" : "", __VA_ARGS__)

static grt_status* read_inputs(grt_graph* g, int32_t idx, const where* w, const json_t* inputs) {
  if (!json_is_array(inputs))
    return NODE_ERROR(w, INVALID_ARGUMENT, "\"inputs\" must be a list of strings, got %s",
                      grt_json_kind(inputs));
  const char* first_control = NULL;
  for (size_t i = 0; i < json_array_size(inputs); i++) {
    const json_t* in = json_array_get(inputs, i);
    if (!json_is_string(in))
      return NODE_ERROR(w, INVALID_ARGUMENT, "input %zu must be a string, got %s", i,
                        grt_json_kind(in));
    const char* spec = json_string_value(in);
    const char* src;
    size_t len;
    int32_t port;
    bool control;
    if (!grt_parse_input_spec(spec, &src, &len, &port, &control))
      return NODE_ERROR(w, INVALID_ARGUMENT,
                        "input %zu '%s' is not \"node\", \"node:k\" or \"^node\"", i, spec);
    if (control && !first_control) first_control = spec;
    if (!control && first_control)
      return NODE_ERROR(w, INVALID_ARGUMENT,
                        "data input '%s' comes after control input '%s'; list data inputs first",
                        spec, first_control);
    grt_status* s = grt_graph_add_input(g, idx, spec);
    if (s) return grt_status_prefix(s, "node '%s' (%s)", w->name, w->op);
  }
  return NULL;
}

static grt_status* read_colocation(grt_graph* g, int32_t idx, const where* w, const json_t* co) {
  if (!json_is_array(co))
    return NODE_ERROR(w, INVALID_ARGUMENT, "\"colocate_with\" must be a list of node names, got %s",
                      grt_json_kind(co));
  for (size_t i = 0; i < json_array_size(co); i++) {
    const json_t* other = json_array_get(co, i);
    if (!json_is_string(other))
      return NODE_ERROR(w, INVALID_ARGUMENT,
                        "\"colocate_with\" entry %zu must be a node name, got %s", i,
                        grt_json_kind(other));
    if (!grt_node_name_valid(json_string_value(other)))
      return NODE_ERROR(w, INVALID_ARGUMENT,
                        "\"colocate_with\" entry %zu '%s' is not a valid node name", i,
                        json_string_value(other));
    grt_status* s = grt_graph_add_colocation(g, idx, json_string_value(other));
    if (s) return grt_status_prefix(s, "node '%s' (%s)", w->name, w->op);
  }
  return NULL;
}

/* "T, transpose_a, transpose_b" for a message about an undeclared attr. */
static void declared_attrs(const grt_op_def* def, char* buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i < def->n_attrs && used < size; i++) {
    int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", def->attrs[i].name);
    if (n < 0) break;
    used += (size_t)n;
  }
}

static grt_status* read_attrs(grt_graph* g, int32_t idx, const where* w, const grt_op_def* def,
                              const json_t* attrs) {
  if (!json_is_object(attrs))
    return NODE_ERROR(w, INVALID_ARGUMENT, "\"attrs\" must be an object, got %s",
                      grt_json_kind(attrs));
  const char* key;
  json_t* jv;
  json_object_foreach((json_t*)attrs, key, jv) {
    const grt_attr_def* ad = grt_op_find_attr(def, key);
    if (!ad) {
      char names[512];
      declared_attrs(def, names, sizeof names);
      return NODE_ERROR(w, INVALID_ARGUMENT, "attr '%s' is not declared by %s (%s%s)", key, w->op,
                        def->n_attrs ? "it declares: " : "it declares no attrs", names);
    }
    grt_attr_value v;
    grt_status* s = grt_json_read_attr(jv, ad->type, g->arena, &v);
    if (s) return grt_status_prefix(s, "node '%s' (%s): attr '%s'", w->name, w->op, key);
    /* The graph takes the tensor references even when this fails. */
    s = grt_graph_set_attr_value(g, idx, ad->name, &v);
    if (s) return grt_status_prefix(s, "node '%s' (%s): attr '%s'", w->name, w->op, key);
  }
  return NULL;
}

static grt_status* read_node(grt_graph* g, size_t i, const json_t* jn) {
  if (!json_is_object(jn))
    return GRT_ERROR(INVALID_ARGUMENT, "nodes[%zu]: expected a node object, got %s", i,
                     grt_json_kind(jn));
  const json_t* jname = json_object_get(jn, "name");
  if (!jname) return GRT_ERROR(INVALID_ARGUMENT, "nodes[%zu]: missing \"name\"", i);
  if (!json_is_string(jname))
    return GRT_ERROR(INVALID_ARGUMENT, "nodes[%zu]: \"name\" must be a string, got %s", i,
                     grt_json_kind(jname));
  where w = {json_string_value(jname), NULL};
  if (!grt_node_name_valid(w.name))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "nodes[%zu]: invalid node name '%s' (use letters, digits and _ . / -)", i,
                     w.name);
  int32_t other = grt_graph_find_node(g, w.name);
  if (other >= 0)
    return GRT_ERROR(INVALID_ARGUMENT, "nodes[%zu]: duplicate node name '%s' (also nodes[%d])", i,
                     w.name, (int)other);
  const json_t* jop = json_object_get(jn, "op");
  if (!jop) return NODE_ERROR(&w, INVALID_ARGUMENT, "missing \"%s\"", "op");
  if (!json_is_string(jop))
    return NODE_ERROR(&w, INVALID_ARGUMENT, "\"op\" must be a string, got %s", grt_json_kind(jop));
  const grt_op_def* def = grt_op_lookup(json_string_value(jop));
  if (!def) {
    /* A registry that ran out of memory while building finds nothing: say
     * so, or look again if it has been built since. */
    if (grt_status_code(grt_op_registry_status()) == GRT_RESOURCE_EXHAUSTED)
      return NODE_ERROR(&w, RESOURCE_EXHAUSTED, "out of memory building the op registry for '%s'",
                        json_string_value(jop));
    def = grt_op_lookup(json_string_value(jop));
  }
  if (!def)
    return NODE_ERROR(&w, NOT_FOUND, "unknown op '%s' (not registered)", json_string_value(jop));
  w.op = def->name;
  const char* key;
  json_t* v;
  json_object_foreach((json_t*)jn, key, v) {
    if (!key_known(key, kNodeKeys, sizeof kNodeKeys / sizeof kNodeKeys[0]))
      return NODE_ERROR(
          &w, INVALID_ARGUMENT,
          "unknown key '%s' (expected name, op, inputs, device, colocate_with, attrs)", key);
  }
  int32_t idx;
  GRT_RETURN_IF_ERROR(grt_graph_add_node(g, w.name, def->name, &idx));
  const json_t* j;
  if ((j = json_object_get(jn, "inputs"))) GRT_RETURN_IF_ERROR(read_inputs(g, idx, &w, j));
  if ((j = json_object_get(jn, "device"))) {
    if (!json_is_string(j))
      return NODE_ERROR(&w, INVALID_ARGUMENT, "\"device\" must be a string, got %s",
                        grt_json_kind(j));
    /* Kept exactly as written; the placer parses it. */
    if (json_string_length(j) > 0)
      GRT_RETURN_IF_ERROR(grt_graph_set_device(g, idx, json_string_value(j)));
  }
  if ((j = json_object_get(jn, "colocate_with")))
    GRT_RETURN_IF_ERROR(read_colocation(g, idx, &w, j));
  if ((j = json_object_get(jn, "attrs"))) GRT_RETURN_IF_ERROR(read_attrs(g, idx, &w, def, j));
  return NULL;
}

grt_status* grt_format_parse_json(const char* text, size_t len, grt_graph** out) {
  *out = NULL;
  json_t* root;
  GRT_RETURN_IF_ERROR(grt_json_parse_text(text, len, JSON_REJECT_DUPLICATES, &root));
  const json_t* nodes = NULL;
  grt_graph* g = NULL;
  grt_status* s = check_header(root, &nodes);
  if (!s) s = grt_graph_new(&g);
  if (!s) s = grt_graph_reserve(g, (int32_t)json_array_size(nodes));
  for (size_t i = 0; !s && i < json_array_size(nodes); i++)
    s = read_node(g, i, json_array_get(nodes, i));
  json_decref(root);
  if (s) {
    grt_graph_free(g);
    return s;
  }
  *out = g;
  return NULL;
}
