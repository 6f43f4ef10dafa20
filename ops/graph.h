/* The in-memory graph (the library's layout behind grt/graph.h).
 *
 * Strings and per-node arrays live in the graph's arena, or in the mapped
 * .grt file the graph was loaded from; nothing inside a node is freed on its
 * own. The node array itself grows with realloc, so code holds node indices,
 * not grt_node pointers, across additions. */
#ifndef GRT_OPS_GRAPH_H_
#define GRT_OPS_GRAPH_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/graph.h"
#include "ops/attr.h"
#include "base/arena.h"
#include "base/strmap.h"

#ifdef __cplusplus
extern "C" {
#endif

struct grt_op_def;

/* A data or control input: the source node by name and, once resolved by
 * validation, by index. port is -1 for a control input. */
typedef struct grt_input {
  const char* node;
  int32_t port;
  int32_t src;
} grt_input;

/* What validation works out for a node from its op and attrs. */
typedef struct grt_node_sig {
  int32_t n_inputs;
  int32_t n_outputs;
  grt_dtype* input_types;
  bool* input_is_ref;
  grt_dtype* output_types;
  bool* output_is_ref;
  grt_shape* output_shapes;
} grt_node_sig;

typedef struct grt_node {
  const char* name;
  const char* op;
  const char* device; /* "" when unconstrained */
  grt_input* inputs;
  int32_t n_inputs, cap_inputs;
  grt_input* controls;
  int32_t n_controls, cap_controls;
  const char** colocate_with;
  int32_t n_colocate, cap_colocate;
  grt_attr* attrs;
  int32_t n_attrs, cap_attrs;
  /* Filled by grt_graph_validate; NULL/zero before. */
  const struct grt_op_def* def;
  grt_node_sig sig;
} grt_node;

struct grt_graph {
  grt_arena* arena;
  grt_node* nodes;
  int32_t n_nodes, cap_nodes;
  grt_strmap by_name;
  /* What keeps borrowed strings and tensor data alive (a mapped file), and
   * how to let go of it. NULL when everything is in the arena. */
  void* backing;
  void (*backing_release)(void* backing);
  const char* storage; /* grt_graph_storage's answer when backing is set */
  /* Cleared by every mutation; set by a successful validate. */
  bool validated;
};

/* True for names made of [A-Za-z0-9_./-], non-empty. */
bool grt_node_name_valid(const char* name);

/* Adds a node whose strings are already owned by the graph (arena or mapped
 * file), skipping the copy. Loaders use this; checks name and uniqueness. */
GRT_MUST_USE grt_status* grt_graph_add_node_borrowed(grt_graph* g, const char* name, const char* op,
                                                     int32_t* out_index);

/* Reserves room for n nodes (loaders know the count up front). */
GRT_MUST_USE grt_status* grt_graph_reserve(grt_graph* g, int32_t n);

/* A point to roll a graph back to: a transformation that adds nodes takes
 * one first (it allocates what the rollback needs, so it may fail), then
 * either releases it or rolls back, which removes every node added since
 * (nothing before them may refer to them) and cannot fail. */
typedef struct grt_graph_mark {
  int32_t n_nodes;
  grt_strmap names;
} grt_graph_mark;
GRT_MUST_USE grt_status* grt_graph_mark_take(grt_graph* g, grt_graph_mark* m);
void grt_graph_mark_release(grt_graph_mark* m);
void grt_graph_mark_rollback(grt_graph* g, grt_graph_mark* m);

/* Removes the nodes from index n on, as a rollback does, but allocating
 * then: false, with the graph unchanged, when memory runs out (a mark,
 * taken before the additions, cannot fail). */
bool grt_graph_truncate(grt_graph* g, int32_t n);

/* Sets (or replaces) an attr with a value whose memory the graph already owns
 * (arena-allocated lists and strings; tensors with a reference handed over). */
GRT_MUST_USE grt_status* grt_graph_set_attr_value(grt_graph* g, int32_t node, const char* name,
                                                  const grt_attr_value* v);

/* The attr named `name` set on the node, or NULL. */
const grt_attr_value* grt_node_find_attr(const grt_node* n, const char* name);

/* The attr set on the node, else the op's default (needs n->def or a lookup),
 * else NULL. */
const grt_attr_value* grt_node_attr(const grt_node* n, const char* name);

/* Parses "src", "src:k" or "^src" into its parts (src is not copied: *out_len
 * is its length). Returns false when malformed. */
bool grt_parse_input_spec(const char* spec, const char** out_node, size_t* out_len,
                          int32_t* out_port, bool* out_control);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_GRAPH_H_ */
