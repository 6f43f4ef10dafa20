/* The ONNX importer's working state and the helpers its op converters
 * (onnx_ops_*.c) build grt nodes with. */
#ifndef GRT_INTERCHANGE_ONNX_IMPORT_H_
#define GRT_INTERCHANGE_ONNX_IMPORT_H_

#include <stdbool.h>

#include "base/strmap.h"
#include "grt/graph.h"
#include "onnx.pb-c.h"

/* An ONNX value as grt sees it: the output that carries it ("node" or
 * "node:k", in the graph's arena), its dtype, its rank where the importer
 * knows it (-1 otherwise) and, for initializers, Constant outputs and
 * folded shape arithmetic, the value (owned by the graph). Its inferred
 * shape is onnx_shape's (once its node is converted, rank is that shape's
 * rank). */
typedef struct onnx_value {
  const char* ref;
  grt_dtype dtype;
  int32_t rank;
  const grt_tensor* constant;
} onnx_value;

typedef struct onnx_import {
  grt_graph* g;
  int64_t opset;
  grt_strmap by_name; /* ONNX value name -> index in values */
  onnx_value* values;
  grt_shape* shapes; /* values[i]'s inferred shape (onnx_shape.c) */
  int32_t n_values, cap_values;
  /* The node being converted, and the grt name its nodes are called by. */
  const Onnx__NodeProto* node;
  const char* base;
  int32_t n_helpers;
  /* Shape inference (onnx_shape.c): grt nodes before n_inferred have their
   * output shapes. */
  int32_t n_inferred;
  /* Small integer values worked out for grt nodes' output 0 (onnx_values.c;
   * NULL where unknown), owned. */
  grt_tensor** node_values;
  int32_t n_node_values;
  /* The model's own value_info and graph outputs, by name, and ONNX's
   * symbolic dimensions (dim_param) with the size each is bound to (-1
   * while unknown). */
  grt_strmap declared;
  const Onnx__ValueInfoProto** declared_info;
  int32_t n_declared;
  grt_strmap params;
  int64_t* param_dims;
  int32_t n_params, cap_params;
  /* A taken grt name (in the graph's arena) -> the next suffix fresh_name
   * tries for it, so n names that read alike cost n lookups, not n^2. */
  grt_strmap next_suffix;
  /* Every ONNX value name that is a valid grt name, before any node is
   * added (keys borrowed from the model): such a value's grt name is its
   * own, so no sanitized name or importer helper may take one, whatever
   * the order (onnx_name_taken). */
  grt_strmap reserved;
  /* An ONNX name that is not a valid grt name -> index in renamed_to of the
   * grt name it was given (keys borrowed from the model). */
  grt_strmap renamed;
  const char** renamed_to;
  int32_t n_renamed, cap_renamed;
} onnx_import;

/* A converter for one ONNX op: reads ctx->node, adds grt nodes, binds the
 * node's outputs (onnx_bind). Errors need not name the node (the caller
 * does). */
typedef grt_status* (*onnx_convert_fn)(onnx_import* ctx, const char* tf_op);

typedef struct onnx_op_row {
  const char* onnx_op;
  onnx_convert_fn convert;
  const char* tf_op; /* handed to convert: the TensorFlow op it maps onto, if one */
  /* The attributes the converter understands, comma-separated; any other
   * is an error (older opsets' forms are rewritten first: onnx_legacy.c). */
  const char* attrs;
} onnx_op_row;

/* The op tables (onnx_ops_*.c). */
extern const onnx_op_row grt_onnx_ops_elementwise[];
extern const onnx_op_row grt_onnx_ops_array[];
extern const onnx_op_row grt_onnx_ops_reduce[];
extern const onnx_op_row grt_onnx_ops_nn[];
extern const onnx_op_row grt_onnx_ops_loss[];
extern const onnx_op_row grt_onnx_ops_math[];
extern const onnx_op_row grt_onnx_ops_quant[];
extern const onnx_op_row grt_onnx_ops_array_more[];
extern const onnx_op_row grt_onnx_ops_generate[];
extern const onnx_op_row grt_onnx_ops_conv[];
extern const onnx_op_row grt_onnx_ops_index[];
extern const onnx_op_row grt_onnx_ops_resize[];
extern const onnx_op_row grt_onnx_ops_grid_sample[];
extern const onnx_op_row grt_onnx_ops_rnn[];

/* ---- values ---- */

/* Binds ONNX value `name` to `v` (ref copied into the arena). */
GRT_MUST_USE grt_status* onnx_define(onnx_import* ctx, const char* name, const onnx_value* v);
/* Binds the current node's output k (absent or "" outputs are skipped). */
GRT_MUST_USE grt_status* onnx_bind(onnx_import* ctx, int k, const char* ref, grt_dtype dtype,
                                   int32_t rank);
/* The current node's input k; an error when it is absent or unknown. */
GRT_MUST_USE grt_status* onnx_input(onnx_import* ctx, int k, const onnx_value** out);
/* Whether the current node has a non-empty input k. */
bool onnx_has_input(const onnx_import* ctx, int k);
/* Whether output k is asked for (present and non-empty). */
bool onnx_has_output(const onnx_import* ctx, int k);

/* ---- shapes (onnx_shape.c) ---- */

/* The inferred shape of v: rank -1 when unknown, -1 for unknown dims. */
const grt_shape* onnx_shape(const onnx_import* ctx, const onnx_value* v);
/* Dims of v when its shape is fully known, rank `rank`; else an error
 * saying `what` needs them ("ceil_mode needs the input's shape"). */
GRT_MUST_USE grt_status* onnx_static_dims(const onnx_import* ctx, const onnx_value* v, int32_t rank,
                                          const char* what, int64_t* dims);
/* Reads the model's value_info and output declarations (before nodes). */
GRT_MUST_USE grt_status* onnx_shapes_begin(onnx_import* ctx, const Onnx__GraphProto* gp);
/* Infers the grt nodes added since the last call (each Const and
 * Placeholder, every node a converter built). */
GRT_MUST_USE grt_status* onnx_shapes_infer(onnx_import* ctx);
/* After a node's converter: each of its outputs takes its grt output's
 * inferred shape, merged with the rank the converter bound and the model's
 * declaration; a conflict is an error naming the value and both shapes. */
GRT_MUST_USE grt_status* onnx_shapes_settle(onnx_import* ctx, int32_t first_value);
/* Sets a graph input's declared shape (symbolic dims recorded). */
GRT_MUST_USE grt_status* onnx_shapes_declare_input(onnx_import* ctx, onnx_value* v,
                                                   const Onnx__TensorShapeProto* shape);
/* Replaces the current node by Consts when every output is computable now
 * (Shape of a known shape; Gather, Concat, Unsqueeze, ... of such small
 * integer constants): *done true then (onnx_fold.c). */
GRT_MUST_USE grt_status* onnx_fold(onnx_import* ctx, bool* done);
/* The value of grt node src's output `port` when known before run time: a
 * Const's, or one onnx_value_node worked out; NULL otherwise. */
const grt_tensor* onnx_known_value(const onnx_import* ctx, int32_t src, int32_t port);
/* Works out grt node `index`'s output value from its inputs' known values
 * and shapes, where it is a small integer tensor of a few ops (Shape,
 * Slice, Prod, ConcatV2, arithmetic, ...; onnx_values.c). */
GRT_MUST_USE grt_status* onnx_value_node(onnx_import* ctx, int32_t index);
void onnx_values_free(onnx_import* ctx);
/* x `op` y for grt's integer binary ops (AddV2, Sub, Mul, FloorDiv,
 * Maximum, Equal, ...) on operands within +-2^40; false when undefined or
 * not one of them. */
bool onnx_int_binary(const char* op, int64_t x, int64_t y, int64_t* r);
/* Frees what the shape state holds. */
void onnx_shapes_end(onnx_import* ctx);

/* Whether grt name `name` is taken: by a node of the graph, or kept for
 * one of the model's own value names (ctx->reserved). */
bool onnx_name_taken(const onnx_import* ctx, const char* name);

/* ---- attributes of the current node ---- */

/* The current node's attributes as ONNX requires them: each name once,
 * each holding one kind of value, the kind its type declares. The getters
 * below also refuse an attribute of another kind than they read. */
GRT_MUST_USE grt_status* onnx_check_attrs(const onnx_import* ctx);
const Onnx__AttributeProto* onnx_attr(const onnx_import* ctx, const char* name);
GRT_MUST_USE grt_status* onnx_attr_int(const onnx_import* ctx, const char* name, int64_t dflt,
                                       int64_t* out);
GRT_MUST_USE grt_status* onnx_attr_float(const onnx_import* ctx, const char* name, float dflt,
                                         float* out);
/* A list of ints (*out NULL, *n 0 when absent). */
GRT_MUST_USE grt_status* onnx_attr_ints(const onnx_import* ctx, const char* name,
                                        const int64_t** out, size_t* n);

/* ---- building ---- */

/* Adds node `op` named ctx->base (suffix NULL) or "base/suffix", with the
 * given data inputs, and "T" set to t where the op declares it. *out_name
 * (may be NULL) receives its name. */
GRT_MUST_USE grt_status* onnx_emit(onnx_import* ctx, const char* op, const char* suffix,
                                   grt_dtype t, const char* const* inputs, int n_inputs,
                                   int32_t* out_index, const char** out_name);
/* Every ONNX integer (attributes and constants are int64) that grt keeps
 * in a narrower type goes through these, so none is silently wrapped (an
 * axis 2^32+1 read as 1): an error naming `what` (NULL: "value") and the
 * range when v does not fit t. onnx_const_ints and onnx_const_scalar check
 * each value they store with it. */
GRT_MUST_USE grt_status* onnx_check_fits(grt_dtype t, int64_t v, const char* what);
/* v as an int32, checked as above. */
GRT_MUST_USE grt_status* onnx_narrow_i32(int64_t v, const char* what, int32_t* out);

/* ONNX's rule for axes: each in [-rank, rank) (negative counted from the
 * end; rank -1: unknown, then within what any grt rank allows) and none
 * repeated; an error naming `what` ("axis", "axes") otherwise. With the
 * rank known, negative axes are made positive in place. n is small (the
 * callers allow at most GRT_MAX_RANK or a few more). */
GRT_MUST_USE grt_status* onnx_check_axes(const char* what, int64_t* axes, size_t n, int32_t rank);

/* A Const holding `t` (the graph takes a reference; the caller keeps its). */
GRT_MUST_USE grt_status* onnx_const(onnx_import* ctx, const char* suffix, grt_tensor* t,
                                    const char** out_name);
/* A scalar Const of dtype `t` holding v. */
GRT_MUST_USE grt_status* onnx_const_scalar(onnx_import* ctx, grt_dtype t, double v,
                                           const char** out_name);
/* A 1-D Const of `t` (int32 or int64) holding v[0..n). */
GRT_MUST_USE grt_status* onnx_const_ints(onnx_import* ctx, grt_dtype t, const int64_t* v, size_t n,
                                         const char** out_name);

/* Small builders the op converters share (onnx_emit_util.c); each names its
 * node ctx->base + "/" + suffix like onnx_emit. */
/* Binary `op` of a and b. */
GRT_MUST_USE grt_status* onnx_op2(onnx_import* ctx, const char* op, const char* suffix, grt_dtype t,
                                  const char* a, const char* b, const char** out);
/* Cast from `from` to `to`; v itself when they are the same. */
GRT_MUST_USE grt_status* onnx_cast(onnx_import* ctx, const char* suffix, const char* v,
                                   grt_dtype from, grt_dtype to, const char** out);
/* Shape of v (of dtype t) as an out_type vector, named "dims". */
GRT_MUST_USE grt_status* onnx_shape_of(onnx_import* ctx, const char* v, grt_dtype t,
                                       grt_dtype out_type, const char** out);
/* Reshape of v to the int64 vector `shape`. */
GRT_MUST_USE grt_status* onnx_reshape(onnx_import* ctx, const char* suffix, grt_dtype t,
                                      const char* v, const char* shape, const char** out);
/* The running (inclusive) sum of an int64 vector `flags` of n entries, as
 * int64: a float32 row times an upper-triangular matrix of ones (one MatMul,
 * exact for the small counts it is used for: axis bookkeeping). */
GRT_MUST_USE grt_status* onnx_running_count(onnx_import* ctx, const char* flags, int32_t n,
                                            const char** out);

/* The int64/int32 values of a constant input (an initializer or Constant
 * output): `what` names it in the error when the input is computed at run
 * time. Copies at most `max` values into out; *n is the element count. */
GRT_MUST_USE grt_status* onnx_const_input_ints(onnx_import* ctx, int k, const char* what,
                                               int64_t* out, size_t max, size_t* n);

/* Dropout with a training_mode input (onnx_ops_dropout.c). */
GRT_MUST_USE grt_status* grt_onnx_dropout_training(onnx_import* ctx);
/* axes (int64, possibly negative) as 0/1 rows of a [len(axes), rank]
 * matrix built at run time (onnx_ops_nn.c). */
GRT_MUST_USE grt_status* grt_onnx_axis_rows(onnx_import* ctx, const char* axes, int32_t rank,
                                            const char** out);
/* The length of a 1-D value known before run time, or -1 (onnx_ops_nn.c). */
int64_t grt_onnx_static_length(onnx_import* ctx, const onnx_value* v);
/* BatchNormalization with training_mode (onnx_batchnorm_train.c). */
GRT_MUST_USE grt_status* grt_onnx_batch_norm_training(onnx_import* ctx);
/* Squeeze with axes fed at run time (onnx_squeeze_fed.c). */
GRT_MUST_USE grt_status* grt_onnx_squeeze_fed(onnx_import* ctx, const onnx_value* x,
                                              const onnx_value* axes);

/* Unsqueeze with axes fed at run time (onnx_ops_nn.c). */
GRT_MUST_USE grt_status* grt_onnx_unsqueeze_fed(onnx_import* ctx, const onnx_value* x,
                                                const onnx_value* axes);

#endif /* GRT_INTERCHANGE_ONNX_IMPORT_H_ */
