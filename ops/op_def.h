/* The op registry: what each op takes, gives and needs.
 *
 * Ops are declared as data (grt_op_spec rows in ops/defs_*.c) in a compact
 * signature syntax modelled on TensorFlow's REGISTER_OP, parsed once into
 * grt_op_def structures:
 *
 *   inputs / outputs: comma-separated "name: TYPE", where TYPE is
 *       a dtype name ("int32"), a type attr ("T"), "N * T" (a list of N
 *       tensors of type T; N is an int attr) or "Ref(T)" (a reference, as
 *       variables produce and Assign consumes).
 *   attrs: semicolon-separated "name: KIND [>= MIN] [= DEFAULT]", KIND one of
 *       int float bool string type shape tensor list(int) list(float)
 *       list(bool) list(string) list(type) list(shape) list(tensor), or a
 *       set of dtypes "{float32, float64}" meaning a type attr limited to it.
 *       Defaults: 3, -1.5, true, 'text', float32, [1, 2], unknown (shape of
 *       unknown rank), [] (empty list or scalar shape).
 */
#ifndef GRT_OPS_OP_DEF_H_
#define GRT_OPS_OP_DEF_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "ops/attr.h"
#include "ops/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_arg_def {
  const char* name;
  grt_dtype type;          /* a fixed dtype, or GRT_DTYPE_INVALID */
  const char* type_attr;   /* the type attr giving the dtype ("T"), or NULL */
  const char* number_attr; /* the int attr giving the list length ("N"), or NULL */
  bool is_ref;
} grt_arg_def;

typedef struct grt_attr_def {
  const char* name;
  grt_attr_type type;
  uint32_t allowed_types; /* type attrs: bitmask of grt_dtype_bit(); 0 = any */
  bool has_default;
  grt_attr_value default_value;
  bool has_minimum;
  int64_t minimum;
} grt_attr_def;

/* Op flags. */
enum {
  GRT_OP_STATEFUL = 1u << 0, /* not a pure function of its inputs (variables, random) */
  GRT_OP_VARIABLE = 1u << 1, /* owns persistent state: VariableV2 */
  GRT_OP_METADATA = 1u << 2, /* reads only its input's shape: Shape, Size, Rank */
};

/* Shape inference for one node. Input shapes have rank -1 where unknown;
 * input_values[i] is the input's value when it is a known constant, else
 * NULL. Outputs start as unknown; the function narrows them. A returned error
 * describes the fault without the node name (the caller adds it). */
typedef struct grt_shape_ctx {
  const grt_node* node;
  const struct grt_op_def* def;
  int32_t n_inputs;
  const grt_shape* input_shapes;
  const grt_dtype* input_types;
  const grt_tensor* const* input_values;
  int32_t n_outputs;
  grt_shape* output_shapes;
} grt_shape_ctx;

typedef grt_status* (*grt_shape_fn)(grt_shape_ctx* ctx);

typedef struct grt_op_def {
  const char* name;
  const grt_arg_def* inputs;
  int32_t n_inputs;
  const grt_arg_def* outputs;
  int32_t n_outputs;
  const grt_attr_def* attrs;
  int32_t n_attrs;
  uint32_t flags;
  grt_shape_fn shape_fn; /* NULL: outputs stay unknown */
  /* The gradient row (ops/grad.h): NULL when no gradient is defined; a row
   * with a NULL function when the op is not differentiable. */
  const struct grt_grad_entry* grad;
  /* Where it was declared, for references (grt/op_reference.h): the row as
   * written and its table's family ("math"). Set by the registry. */
  const struct grt_op_spec* spec;
  const char* family;
} grt_op_def;

/* One row of an op table, in the syntax above. */
typedef struct grt_op_spec {
  const char* name;
  const char* inputs;
  const char* outputs;
  const char* attrs;
  uint32_t flags;
  grt_shape_fn shape_fn;
} grt_op_spec;

/* The op called `name`, or NULL. Thread-safe; the registry is built on first
 * use and never changes afterwards. */
const grt_op_def* grt_op_lookup(const char* name);

/* NULL when every spec parsed; otherwise what failed (a bug in grt, caught by
 * the registry test). Owned by the registry. */
const grt_status* grt_op_registry_status(void);

/* Every registered op, in registration order. */
int32_t grt_op_count(void);
const grt_op_def* grt_op_at(int32_t i);

/* The attr declaration called `name`, or NULL. */
const grt_attr_def* grt_op_find_attr(const grt_op_def* def, const char* name);

/* Works out a node's input/output counts, dtypes and ref-ness from its op and
 * attrs into n->sig (arrays from the graph arena). Fails, naming the node and
 * attr, when an attr the signature needs is missing or of the wrong type. */
GRT_MUST_USE grt_status* grt_node_compute_signature(grt_graph* g, grt_node* n,
                                                    const grt_op_def* def);

/* A constant value for output `port` of node `node`, or NULL. */
typedef const grt_tensor* (*grt_value_fn)(void* user, int32_t node, int32_t port);

/* What grt_graph_validate does for every node, for node `index` alone:
 * resolves its inputs, fills in inferable attrs, checks attrs and input
 * types, computes its signature and runs its shape function into
 * n->sig.output_shapes. Its inputs must come from nodes before it that were
 * inferred already (a graph built in topological order: the ONNX importer
 * infers each node as it adds it). value_of, when not NULL, supplies
 * constant inputs beyond Const nodes' values. Errors name the node. */
GRT_MUST_USE grt_status* grt_graph_infer_node(grt_graph* g, int32_t index, grt_value_fn value_of,
                                              void* user);

/* Parses one spec into a def allocated from `arena` (exposed for tests). */
GRT_MUST_USE grt_status* grt_op_spec_parse(const grt_op_spec* spec, grt_arena* arena,
                                           grt_op_def* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_OP_DEF_H_ */
