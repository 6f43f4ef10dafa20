/* grt — graphs: load, save, build, query and validate.
 *
 * A graph is a list of nodes in the order they were added (the order every
 * tool keeps). Nodes are addressed by index (0..n-1) or by name. Strings
 * returned by query functions are owned by the graph and live until it is
 * freed or the node is changed. */
#ifndef GRT_GRAPH_H_
#define GRT_GRAPH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_graph grt_graph;

/* A tensor of the graph by position: output `port` of node `node` (its
 * index in the graph), TensorFlow's TF_Output. */
typedef struct grt_output {
  int32_t node;
  int32_t port;
} grt_output;

/* Attr value types. The numeric values are stored in .grt files. */
typedef enum grt_attr_type {
  GRT_ATTR_NONE = 0,
  GRT_ATTR_INT = 1,
  GRT_ATTR_FLOAT = 2,
  GRT_ATTR_BOOL = 3,
  GRT_ATTR_STRING = 4,
  GRT_ATTR_TYPE = 5,
  GRT_ATTR_SHAPE = 6,
  GRT_ATTR_TENSOR = 7,
  GRT_ATTR_LIST = 0x10, /* or'ed with one of the above: a list of it */
  GRT_ATTR_LIST_INT = GRT_ATTR_LIST | GRT_ATTR_INT,
  GRT_ATTR_LIST_FLOAT = GRT_ATTR_LIST | GRT_ATTR_FLOAT,
  GRT_ATTR_LIST_BOOL = GRT_ATTR_LIST | GRT_ATTR_BOOL,
  GRT_ATTR_LIST_STRING = GRT_ATTR_LIST | GRT_ATTR_STRING,
  GRT_ATTR_LIST_TYPE = GRT_ATTR_LIST | GRT_ATTR_TYPE,
  GRT_ATTR_LIST_SHAPE = GRT_ATTR_LIST | GRT_ATTR_SHAPE,
  GRT_ATTR_LIST_TENSOR = GRT_ATTR_LIST | GRT_ATTR_TENSOR,
} grt_attr_type;

/* ---- lifetime ---------------------------------------------------------- */

/* An empty graph. Caller owns it; free with grt_graph_free. */
GRT_API GRT_MUST_USE grt_status* grt_graph_new(grt_graph** out);
GRT_API void grt_graph_free(grt_graph* g); /* NULL is a no-op */

/* Loads a graph: ".grt" files are memory-mapped (constants used in place,
 * the mapping lives until the graph and every tensor taken from it are
 * freed); ".json" files are parsed; ".pb" is read as a TensorFlow GraphDef
 * and ".onnx" as an ONNX model (docs/cli.md, grt convert). Any other
 * extension is sniffed by content. The graph is validated. Caller owns
 * *out. */
GRT_API GRT_MUST_USE grt_status* grt_graph_load(const char* path, grt_graph** out);

/* grt_graph_load_flags: read a .grt file into memory instead of mapping it.
 * A mapped file must not be truncated or rewritten in place while a graph
 * or tensor from it lives (the process would get SIGBUS on the next touch
 * of a changed page: docs/mapped-files.md); a file read into memory costs
 * its size in RAM and a read at load, and is safe from such changes. */
#define GRT_LOAD_NO_MMAP 1u

/* grt_graph_load with `flags` (GRT_LOAD_*; 0 is grt_graph_load). */
GRT_API GRT_MUST_USE grt_status* grt_graph_load_flags(const char* path, unsigned flags,
                                                      grt_graph** out);

/* How the graph holds its constants: "mapped" (a .grt file used in place),
 * "in memory" (a .grt file read with GRT_LOAD_NO_MMAP), or "parsed" (JSON,
 * or built through the API). A static string. */
GRT_API const char* grt_graph_storage(const grt_graph* g);

/* Checks every constant of a graph loaded from a .grt file against the
 * CRC-32C its writer stored (format 1.1 on; grt convert and grt_graph_save
 * write them). Reads every constant once; loading alone never does. The
 * first mismatch is DATA_LOSS naming the node and the attr. *out_checked
 * (if not NULL): constants checked, 0 for a graph from JSON or built in
 * memory, or a .grt file written before checksums existed. */
GRT_API GRT_MUST_USE grt_status* grt_graph_verify_constants(const grt_graph* g,
                                                            int64_t* out_checked);

/* Parses the JSON text form from memory and validates it. */
GRT_API GRT_MUST_USE grt_status* grt_graph_from_json(const char* text, size_t len, grt_graph** out);

/* Writes the graph; the format is chosen by extension (".grt", ".json" or
 * ".pb", a TensorFlow GraphDef).
 * The file is written to a temporary name and renamed into place, so a
 * failure never leaves a partial output. Validates first. */
GRT_API GRT_MUST_USE grt_status* grt_graph_save(grt_graph* g, const char* path);

/* The JSON text form in a new malloc'd string (caller frees with free()). */
GRT_API GRT_MUST_USE grt_status* grt_graph_to_json(grt_graph* g, char** out_text, size_t* out_len);

/* ---- building ---------------------------------------------------------- */

/* Adds a node. Fails on a malformed or duplicate name. *out_index (may be
 * NULL) receives the new node's index. */
GRT_API GRT_MUST_USE grt_status* grt_graph_add_node(grt_graph* g, const char* name, const char* op,
                                                    int32_t* out_index);
/* Requested device ("" or NULL: unconstrained). Kept exactly as written. */
GRT_API GRT_MUST_USE grt_status* grt_graph_set_device(grt_graph* g, int32_t node,
                                                      const char* device);
/* "src", "src:k" for a data input, "^src" for a control input. Data inputs
 * must all come before control inputs are added, as in the text form. */
GRT_API GRT_MUST_USE grt_status* grt_graph_add_input(grt_graph* g, int32_t node, const char* input);
GRT_API GRT_MUST_USE grt_status* grt_graph_add_colocation(grt_graph* g, int32_t node,
                                                          const char* other);

GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_int(grt_graph* g, int32_t node,
                                                        const char* name, int64_t v);
GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_float(grt_graph* g, int32_t node,
                                                          const char* name, float v);
GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_bool(grt_graph* g, int32_t node,
                                                         const char* name, bool v);
GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_string(grt_graph* g, int32_t node,
                                                           const char* name, const char* v);
GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_type(grt_graph* g, int32_t node,
                                                         const char* name, grt_dtype v);
/* rank -1: unknown rank; a dim -1: unknown dimension. */
GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_shape(grt_graph* g, int32_t node,
                                                          const char* name, int32_t rank,
                                                          const int64_t* dims);
/* Takes a new reference to `t`; the caller keeps its own. */
GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_tensor(grt_graph* g, int32_t node,
                                                           const char* name, grt_tensor* t);
GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_int_list(grt_graph* g, int32_t node,
                                                             const char* name, const int64_t* v,
                                                             int32_t n);
GRT_API GRT_MUST_USE grt_status* grt_graph_set_attr_type_list(grt_graph* g, int32_t node,
                                                              const char* name, const grt_dtype* v,
                                                              int32_t n);

/* Checks the whole graph against the op registry: unique names, known ops,
 * inputs that exist with ports in range, no cycles, attrs of the declared
 * types and dtype constraints, tensor values that fit their shapes, device
 * specs that parse, and shapes that agree. The first fault is returned,
 * naming the node. */
GRT_API GRT_MUST_USE grt_status* grt_graph_validate(grt_graph* g);

/* ---- gradients (TensorFlow's TF_AddGradientsWithPrefix) ------------------
 * Adds to `g` the nodes computing the partial derivatives of
 * sum(ys[i] * dys[i]) with respect to each xs[j], by TensorFlow's gradient
 * functions (docs/gradients.md lists them), and returns them in dx[j].
 * `dys` may be NULL (every dy is ones shaped like its y); ys and dys must be
 * float tensors. Where a tensor feeds several consumers its gradients are
 * summed with AddN. No gradient flows through StopGradient, into integer or
 * bool tensors, or through ops TensorFlow marks not differentiable; an x
 * that no gradient reaches gets dx[j] = {-1, -1} (TensorFlow's None). An op
 * on the way that has no gradient function is an error naming it. New nodes
 * are named "<prefix>/<node>_grad/<Op>" (prefix NULL or "": "gradients",
 * made unique). With colocate_gradients_with_ops each gradient node joins
 * its forward node's colocation group. The graph is validated before and
 * after; on failure it is left exactly as it was. */
GRT_API GRT_MUST_USE grt_status* grt_graph_add_gradients(
    grt_graph* g, const char* prefix, const grt_output* ys, int32_t n_ys, const grt_output* xs,
    int32_t n_xs, const grt_output* dys, bool colocate_gradients_with_ops, grt_output* dx);

/* ---- queries ----------------------------------------------------------- */

GRT_API int32_t grt_graph_num_nodes(const grt_graph* g);
/* Index of the node called `name`, or -1. */
GRT_API int32_t grt_graph_find_node(const grt_graph* g, const char* name);
GRT_API const char* grt_graph_node_name(const grt_graph* g, int32_t node);
GRT_API const char* grt_graph_node_op(const grt_graph* g, int32_t node);
/* The requested device as written ("" when unconstrained). */
GRT_API const char* grt_graph_node_device(const grt_graph* g, int32_t node);
GRT_API int32_t grt_graph_node_num_inputs(const grt_graph* g, int32_t node);
/* Data input i as the source node's name and output port. */
GRT_API const char* grt_graph_node_input(const grt_graph* g, int32_t node, int32_t i,
                                         int32_t* out_port);
GRT_API int32_t grt_graph_node_num_control_inputs(const grt_graph* g, int32_t node);
GRT_API const char* grt_graph_node_control_input(const grt_graph* g, int32_t node, int32_t i);
GRT_API int32_t grt_graph_node_num_colocations(const grt_graph* g, int32_t node);
GRT_API const char* grt_graph_node_colocation(const grt_graph* g, int32_t node, int32_t i);
/* Attr type as set on the node (GRT_ATTR_NONE when not set). */
GRT_API grt_attr_type grt_graph_node_attr_type(const grt_graph* g, int32_t node, const char* name);
/* Attr getters fall back to the op's declared default; NOT_FOUND otherwise. */
GRT_API GRT_MUST_USE grt_status* grt_graph_node_attr_int(const grt_graph* g, int32_t node,
                                                         const char* name, int64_t* out);
GRT_API GRT_MUST_USE grt_status* grt_graph_node_attr_float(const grt_graph* g, int32_t node,
                                                           const char* name, float* out);
GRT_API GRT_MUST_USE grt_status* grt_graph_node_attr_bool(const grt_graph* g, int32_t node,
                                                          const char* name, bool* out);
GRT_API GRT_MUST_USE grt_status* grt_graph_node_attr_string(const grt_graph* g, int32_t node,
                                                            const char* name, const char** out);
GRT_API GRT_MUST_USE grt_status* grt_graph_node_attr_type_value(const grt_graph* g, int32_t node,
                                                                const char* name, grt_dtype* out);
/* A borrowed tensor owned by the graph (grt_tensor_ref it to keep it). */
GRT_API GRT_MUST_USE grt_status* grt_graph_node_attr_tensor(const grt_graph* g, int32_t node,
                                                            const char* name,
                                                            const grt_tensor** out);
/* After a successful validate: the number of outputs and output k's dtype
 * and inferred shape (rank -1 where unknown). */
GRT_API int32_t grt_graph_node_num_outputs(const grt_graph* g, int32_t node);
GRT_API grt_dtype grt_graph_node_output_type(const grt_graph* g, int32_t node, int32_t k);
GRT_API GRT_MUST_USE grt_status* grt_graph_node_output_shape(const grt_graph* g, int32_t node,
                                                             int32_t k, int32_t* out_rank,
                                                             int64_t* out_dims);
/* Total bytes of constant tensor data held by the graph's attrs. */
GRT_API size_t grt_graph_constant_bytes(const grt_graph* g);

/* ---- the graph's signature ----------------------------------------------
 * What a caller feeds, fetches and runs, as `grt inspect` shows it first:
 *   GRT_ROLE_FEED: a Placeholder;
 *   GRT_ROLE_OUTPUT: a node no node uses (as data or as a control input)
 *     whose outputs are the fetchable results (a loss, a prediction); a
 *     backward pass's nodes ("gradients/...", as grt_graph_add_gradients
 *     names them) are not counted as users and are never outputs;
 *   GRT_ROLE_TARGET: a node no node uses that has no outputs or updates a
 *     variable (Assign, AssignAdd, AssignSub, Apply*): the init and train
 *     targets;
 *   GRT_ROLE_NONE: every other node. */
typedef enum grt_node_role {
  GRT_ROLE_NONE = 0,
  GRT_ROLE_FEED = 1,
  GRT_ROLE_OUTPUT = 2,
  GRT_ROLE_TARGET = 3,
} grt_node_role;

/* Fills roles[0 .. grt_graph_num_nodes(g)) with each node's role (for a
 * validated graph: one pass over the nodes and their inputs).
 * RESOURCE_EXHAUSTED when memory runs out (roles then untouched). */
GRT_API GRT_MUST_USE grt_status* grt_graph_node_roles(const grt_graph* g, grt_node_role* roles);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_H_ */
