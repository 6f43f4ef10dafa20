/* Internal: what a pass sees and the edits it may make (edit.c). Included
 * only by optimizer/.
 *
 * A pass runs on a validated working graph (every node's signature, dtypes
 * and inferred shapes are filled in) and edits it through these calls
 * only. Nodes it adds are appended; nodes it kills stay in the array until
 * the pass returns, then the driver compacts the graph (dropping the dead,
 * applying renames) and validates it again before the next pass. So within
 * one pass, node indices are stable and the signatures are those of the
 * graph as it was when the pass began (new nodes have none).
 *
 * The rule every pass keeps (optimizer.h): a node that keeps an input
 * graph's name computes that node's value. A pass that replaces node X by
 * a new node N makes X's consumers read N (grt_opt_replace_uses), kills X
 * and, so that fetches of X still find it, gives N X's name
 * (grt_opt_take_name). */
#ifndef GRT_OPTIMIZER_PASS_H_
#define GRT_OPTIMIZER_PASS_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "grt/types.h"
#include "ops/graph.h"
#include "ops/op_def.h"
#include "optimizer/optimizer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One use of an output: data input `input` of node `node`, or a control
 * input (input == -1). */
typedef struct grt_opt_use {
  int32_t node;
  int32_t input;
} grt_opt_use;

typedef struct grt_opt_ctx grt_opt_ctx;

typedef grt_status* (*grt_opt_pass_fn)(grt_opt_ctx* c);

typedef struct grt_opt_pass {
  const char* name; /* the switch name: "constant_folding" */
  const char* doc;  /* one line for --help and docs */
  grt_opt_pass_fn run;
} grt_opt_pass;

/* ---- reading ---------------------------------------------------------- */

grt_graph* grt_opt_graph(grt_opt_ctx* c);
const grt_opt_env* grt_opt_env_of(const grt_opt_ctx* c);
int64_t grt_opt_fold_max_bytes(const grt_opt_ctx* c);
/* Nodes at the start of the pass (those a pass may look at). */
int32_t grt_opt_num_nodes(const grt_opt_ctx* c);
const grt_node* grt_opt_node(const grt_opt_ctx* c, int32_t i);
bool grt_opt_is_dead(const grt_opt_ctx* c, int32_t i);
/* The device type name the node runs on ("CPU", "GPU"). */
const char* grt_opt_device_type(const grt_opt_ctx* c, int32_t i);
/* Whether nodes a and b run on the same device (its name, as the node is
 * pinned, and its type): what a fusion of the two must not change. */
bool grt_opt_same_device(const grt_opt_ctx* c, int32_t a, int32_t b);

/* Uses of output `port` of node i (port -1: its control uses), from an
 * index built when the pass began (edits do not update it). */
int32_t grt_opt_uses(const grt_opt_ctx* c, int32_t i, int32_t port, const grt_opt_use** out);
/* Data uses of every output of node i together. */
int32_t grt_opt_num_data_uses(const grt_opt_ctx* c, int32_t i);

/* Whether the node must be left exactly as it is: stateful ops (variables,
 * random), ref-typed inputs or outputs, and nodes of unknown ops. */
bool grt_opt_is_fixed(const grt_opt_ctx* c, int32_t i);
/* The value of a Const node, else NULL. */
const grt_tensor* grt_opt_const_value(const grt_opt_ctx* c, int32_t i);
/* The node a data input comes from, and its port. */
int32_t grt_opt_input_node(const grt_opt_ctx* c, int32_t i, int32_t input, int32_t* out_port);
/* Output dtype and inferred shape (from the pass's start). */
grt_dtype grt_opt_output_type(const grt_opt_ctx* c, int32_t i, int32_t port);
const grt_shape* grt_opt_output_shape(const grt_opt_ctx* c, int32_t i, int32_t port);

/* A string or bool attr of node n as written in the graph, or `dflt` when
 * it is absent or of another type (the passes' data_format checks). */
const char* grt_opt_attr_string(const grt_node* n, const char* name, const char* dflt);
bool grt_opt_attr_bool(const grt_node* n, const char* name, bool dflt);
/* An int attr of n, or `dflt` when it is absent or of another type. */
int64_t grt_opt_attr_int(const grt_node* n, const char* name, int64_t dflt);
/* Whether list(int) attr `name` of n holds only ones (strides, dilations);
 * `dflt` when it is absent, false when it is of another type. */
bool grt_opt_attr_all_ones(const grt_node* n, const char* name, bool dflt);
/* Whether a 1x1 convolution n pads nothing: padding VALID, SAME (a 1x1
 * window pads nothing) or EXPLICIT zeros. */
bool grt_opt_no_padding(const grt_node* n);
/* `name` when it is an activation that grt's CPU row kernels (pointwise,
 * depthwise: backends/cpu/conv_depthwise.h) apply, in _FusedConv2D's
 * fused_ops spelling (Relu, Relu6, LeakyRelu, Sigmoid, Tanh, _HardSwish,
 * _Swish), else NULL. */
const char* grt_opt_row_act(const char* name);

/* Whether device type `type` has a kernel for `op` whose type attr `T`
 * (NULL: no constraint checked) admits `dtype`. */
bool grt_opt_has_kernel(const char* type, const char* op, const char* type_attr, grt_dtype dtype);

/* ---- editing ---------------------------------------------------------- */

/* Adds a node standing for (part of) node `like`: it runs on like's device.
 * Its name is `like`'s name + "/" + suffix, made unique with a counter.
 * Inputs and attrs are set with the grt_graph_* calls on grt_opt_graph(c)
 * (attrs of `like` copied with grt_opt_copy_attrs). */
GRT_MUST_USE grt_status* grt_opt_add_node(grt_opt_ctx* c, int32_t like, const char* suffix,
                                          const char* op, int32_t* out);
/* A Const holding `value` (a reference is taken), standing for `like`. */
GRT_MUST_USE grt_status* grt_opt_add_const(grt_opt_ctx* c, int32_t like, const char* suffix,
                                           grt_tensor* value, int32_t* out);
/* Appends input "src:port" (port -1: "^src") to node `node`. */
GRT_MUST_USE grt_status* grt_opt_add_input(grt_opt_ctx* c, int32_t node, int32_t src, int32_t port);
/* Appends every control input of node `from` to node `to`. */
GRT_MUST_USE grt_status* grt_opt_copy_controls(grt_opt_ctx* c, int32_t to, int32_t from);
/* Copies every attr of node `from` onto node `to` (except those named in
 * the NULL-terminated `skip`, which may be NULL). */
GRT_MUST_USE grt_status* grt_opt_copy_attrs(grt_opt_ctx* c, int32_t to, int32_t from,
                                            const char* const* skip);

/* Makes every data use of (from, from_port) read (to, to_port) instead,
 * and, when from_port is 0 and `with_controls`, every control use of
 * `from` wait for `to`. `derived` says that from's value was computed from
 * to's (an Identity, x*1): then feeding `to` still means what it meant;
 * otherwise `to` is marked unsafe to feed (optimizer.h). */
GRT_MUST_USE grt_status* grt_opt_replace_uses(grt_opt_ctx* c, int32_t from, int32_t from_port,
                                              int32_t to, int32_t to_port, bool with_controls,
                                              bool derived);
/* Drops node i when the pass ends. Any remaining use of it by a live node
 * is an internal error at compaction. */
void grt_opt_kill(grt_opt_ctx* c, int32_t i);
/* Marks node i unsafe to feed (optimizer.h): a pass computed other values
 * from it ahead of time (constant folding), so feeding it would no longer
 * change them. */
void grt_opt_mark_feed_unsafe(grt_opt_ctx* c, int32_t i);
/* Node `node` takes `from`'s name when the pass ends (`from` must be
 * killed). */
void grt_opt_take_name(grt_opt_ctx* c, int32_t node, int32_t from);
/* After each pass the driver also drops every node that nothing live uses
 * any more, if the optimizer added it or it had uses in the graph the
 * pass began with (a sink of the input graph, such as the model's output,
 * stays), and never a stateful one. */

/* Counts one rewrite for the report; `detail` (printf) replaces the line
 * the report shows for this pass (the last call wins). */
void grt_opt_count(grt_opt_ctx* c, int32_t n);
void grt_opt_detail(grt_opt_ctx* c, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPTIMIZER_PASS_H_ */
