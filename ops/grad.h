/* Gradient functions: how each op's inputs get their gradients from its
 * outputs' gradients, as TensorFlow's math_grad.py, array_grad.py and
 * nn_grad.py define them.
 *
 * Each op family has a table (ops/grad_<family>.c) of {op, function} rows
 * that its op table (ops/defs_<family>.c) points to; the registry sets
 * grt_op_def.grad from it. A row with a NULL function marks the op not
 * differentiable (TensorFlow's NotDifferentiable: no gradient flows through
 * it, and that is not an error); an op with no row has no gradient defined,
 * an error when a gradient must pass through it.
 *
 * A gradient function adds nodes through a grt_grad_builder. Helpers take
 * and return grt_tref values and never fail loudly: the first failure is
 * kept in the builder (later helpers then do nothing and return NONE), and
 * the engine checks it once the function returns. So a gradient function
 * reads as the formula it implements. */
#ifndef GRT_OPS_GRAD_H_
#define GRT_OPS_GRAD_H_

#include <stdbool.h>
#include <stdint.h>

#include "ops/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tensor being built: output `port` of node `node`, of dtype `dtype`.
 * node < 0: none (TensorFlow's None). */
typedef struct grt_tref {
  int32_t node;
  int32_t port;
  grt_dtype dtype;
} grt_tref;

#define GRT_TREF_NONE ((grt_tref){-1, -1, GRT_DTYPE_INVALID})
static inline bool grt_tref_ok(grt_tref t) { return t.node >= 0; }

typedef struct grt_grad_builder {
  grt_graph* g;
  int32_t fwd;                 /* the forward node whose gradient is being built */
  const char* scope;           /* node names start with it: "gradients/<fwd>_grad" */
  const char* const* colocate; /* colocation group joined by new nodes ... */
  int32_t n_colocate;          /* ... (0: none) */
  const char* colocate_one;    /* storage when the group is one name (the node
                                  array moves as nodes are added) */
  const bool* has_dy;          /* per output: did a gradient reach it (else dy is zeros) */
  grt_status* status;          /* the first failure, or NULL */
} grt_grad_builder;

/* dy[k]: the gradient of output k (zeros where none reached a float
 * output; NONE for other outputs). dx[i] starts NONE; the function sets
 * those inputs that have a gradient. */
typedef void (*grt_grad_fn)(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx);

typedef struct grt_grad_entry {
  const char* op;
  grt_grad_fn fn; /* NULL: not differentiable */
} grt_grad_entry;

typedef struct grt_grad_table {
  const grt_grad_entry* rows;
  int32_t n;
} grt_grad_table;

#define GRT_GRAD_TABLE(var, rows) \
  const grt_grad_table var = {rows, (int32_t)(sizeof(rows) / sizeof((rows)[0]))}

extern const grt_grad_table grt_grads_array;
extern const grt_grad_table grt_grads_math;
extern const grt_grad_table grt_grads_math_more;
extern const grt_grad_table grt_grads_array_more;
extern const grt_grad_table grt_grads_nn;
extern const grt_grad_table grt_grads_state;
extern const grt_grad_table grt_grads_random;
extern const grt_grad_table grt_grads_conv;
extern const grt_grad_table grt_grads_index;
extern const grt_grad_table grt_grads_collective;

/* The row for `op` in `table`, or NULL. */
const grt_grad_entry* grt_grad_table_find(const grt_grad_table* table, const char* op);

/* ---- the builder ------------------------------------------------------- */

/* Records a failure (the first one wins); returns NONE for convenience. */
grt_tref grt_gb_fail(grt_grad_builder* b, grt_code code, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The forward node, its data input i and its output k. */
const grt_node* grt_gb_node(const grt_grad_builder* b);
grt_tref grt_gb_input(grt_grad_builder* b, int32_t i);
grt_tref grt_gb_output(grt_grad_builder* b, int32_t k);
/* The forward node's attrs (its value or the op's default). */
bool grt_gb_attr_bool(grt_grad_builder* b, const char* name);
int64_t grt_gb_attr_int(grt_grad_builder* b, const char* name);
const char* grt_gb_attr_string(grt_grad_builder* b, const char* name);
grt_dtype grt_gb_attr_type(grt_grad_builder* b, const char* name);
/* The value of forward input i when its producer is a Const, else NULL. */
const grt_tensor* grt_gb_const_input(grt_grad_builder* b, int32_t i);
/* The static rank of forward input i (-1 when unknown). */
int32_t grt_gb_input_rank(grt_grad_builder* b, int32_t i);
/* Its static dimension d (-1 when unknown). */
int64_t grt_gb_input_dim(grt_grad_builder* b, int32_t i, int32_t d);

/* A new node named "<scope>/<op>" (made unique), in the colocation group,
 * with `ins` as data inputs. Returns its index, or -1 after a failure. */
int32_t grt_gb_add(grt_grad_builder* b, const char* op, const grt_tref* ins, int32_t n_ins);
void grt_gb_set_type(grt_grad_builder* b, int32_t node, const char* attr, grt_dtype t);
void grt_gb_set_bool(grt_grad_builder* b, int32_t node, const char* attr, bool v);
void grt_gb_set_int(grt_grad_builder* b, int32_t node, const char* attr, int64_t v);
void grt_gb_set_string(grt_grad_builder* b, int32_t node, const char* attr, const char* v);
/* Copies the forward node's attrs named in the NULL-terminated list (its
 * values or the op's defaults) onto `node`. */
void grt_gb_copy_attrs(grt_grad_builder* b, int32_t node, const char* const* names);
/* Output `port` of `node` as a tref of dtype t (NONE when node < 0). */
grt_tref grt_gb_ref(int32_t node, int32_t port, grt_dtype t);

/* Ops with a type attr T = x.dtype and one output of that dtype. */
grt_tref grt_gb_unary(grt_grad_builder* b, const char* op, grt_tref x);
grt_tref grt_gb_binary(grt_grad_builder* b, const char* op, grt_tref x, grt_tref y);
#define grt_gb_add2(b, x, y) grt_gb_binary(b, "AddV2", x, y)
#define grt_gb_sub(b, x, y) grt_gb_binary(b, "Sub", x, y)
#define grt_gb_mul(b, x, y) grt_gb_binary(b, "Mul", x, y)
#define grt_gb_div(b, x, y) grt_gb_binary(b, "RealDiv", x, y)
#define grt_gb_neg(b, x) grt_gb_unary(b, "Neg", x)

/* A scalar constant of dtype t. */
grt_tref grt_gb_scalar(grt_grad_builder* b, grt_dtype t, double v);
/* An int32 constant: a vector of n values, or a scalar when n < 0 (v[0]). */
grt_tref grt_gb_ints(grt_grad_builder* b, const int64_t* v, int32_t n);
grt_tref grt_gb_int(grt_grad_builder* b, int64_t v);

grt_tref grt_gb_shape(grt_grad_builder* b, grt_tref x); /* int32 */
grt_tref grt_gb_size(grt_grad_builder* b, grt_tref x);  /* int32 */
grt_tref grt_gb_rank(grt_grad_builder* b, grt_tref x);  /* int32 */
grt_tref grt_gb_reshape(grt_grad_builder* b, grt_tref x, grt_tref shape);
grt_tref grt_gb_sum(grt_grad_builder* b, grt_tref x, grt_tref axes, bool keep_dims);
grt_tref grt_gb_cast(grt_grad_builder* b, grt_tref x, grt_dtype to);
grt_tref grt_gb_select(grt_grad_builder* b, grt_tref cond, grt_tref t, grt_tref e);
grt_tref grt_gb_compare(grt_grad_builder* b, const char* op, grt_tref x, grt_tref y); /* bool */
grt_tref grt_gb_matmul(grt_grad_builder* b, grt_tref x, grt_tref y, bool ta, bool tb);
grt_tref grt_gb_batch_matmul(grt_grad_builder* b, grt_tref x, grt_tref y, bool adj_x, bool adj_y);
/* Sum of all elements, a scalar. */
grt_tref grt_gb_sum_all(grt_grad_builder* b, grt_tref x);

/* Reduces gradient `g` of a broadcasting binary op's output to the shape of
 * operand `x`, where `other` is the other operand: TensorFlow's
 * BroadcastGradientArgs + Sum + Reshape (skipped when both static shapes
 * are fully known and equal). `first` says whether x is the op's input 0. */
grt_tref grt_gb_unbroadcast(grt_grad_builder* b, grt_tref g, grt_tref x, grt_tref other,
                            bool first);

/* For a reduction of `x` over `axes` (an index tensor, any rank): the shape
 * of x with the reduced dimensions set to 1 (TensorFlow's reduced_shape),
 * and in *tile the multiples that tile a tensor of that shape back to x's
 * shape. Both int32 vectors, computed at run time (ranks may be unknown). */
grt_tref grt_gb_reduced_shape(grt_grad_builder* b, grt_tref x, grt_tref axes, grt_tref* tile);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_GRAD_H_ */
