/* Internal: symbolic shapes and small integer values (symbolic_dims.c,
 * symbolic_values.c, walked over a graph by symbolic_graph.c), read by the
 * pass "symbolic_shapes".
 *
 * A graph exported with a dynamic batch knows every dimension but the
 * batch, so grt's static shapes say -1 there, and every shape computed at
 * run time (Shape -> Gather -> Concat -> Reshape) stays unknown to
 * constant folding. Here an unknown dimension is a symbol instead: each
 * output's unknown dims get fresh symbols, and the rules below carry them
 * through the ops that move them (Transpose, MatMul, Reshape, element-wise
 * ops...), so that the batch of a Placeholder is the same symbol S in every
 * tensor it flows into. Small int32/int64 tensors (shape vectors) carry
 * values the same way: each element a constant, c*S, or unknown. A value
 * whose elements are all constants is known before run time, whatever the
 * batch.
 *
 * Symbols are sizes: integers >= 0, zero included (an empty batch), so a
 * rule never assumes S > 0. */
#ifndef GRT_OPTIMIZER_SYMBOLIC_H_
#define GRT_OPTIMIZER_SYMBOLIC_H_

#include <stdbool.h>
#include <stdint.h>

#include "optimizer/pass.h"

enum {
  SYM_MAX_VALUES = 32, /* elements of a value vector tracked */
};

typedef enum {
  SYM_UNKNOWN = 0,
  SYM_CONST,   /* the integer c */
  SYM_SCALED,  /* c * S_s, c != 0 */
  SYM_IS_ZERO, /* a bool: S_s == 0 */
  /* c * S_s where S_s > 0, z (!= 0) where S_s == 0: ONNX Reshape's "0
   * copies the input's dim" picks another dim at an empty batch,
   * Select(c*S == 0, dims, c*S). Rules that move elements (Concat,
   * Gather, ExpandDims) carry it; only a Reshape's target reads it
   * (sym_reshape_entry), arithmetic makes it unknown. */
  SYM_SCALED_UNLESS_ZERO,
} sym_kind;

typedef struct sym {
  sym_kind kind;
  int32_t s;
  int64_t c;
  int64_t z; /* SYM_SCALED_UNLESS_ZERO's value at S_s == 0 */
} sym;

/* What is known of one output: its dims (rank -1: unknown) and, for a small
 * integer or bool tensor of known element count, its elements. */
typedef struct sym_out {
  int32_t rank;
  sym dims[GRT_MAX_RANK];
  int32_t n_values; /* -1: no value tracked */
  sym values[SYM_MAX_VALUES];
} sym_out;

typedef struct sym_graph {
  grt_opt_ctx* c;
  int32_t n;
  int32_t* slot; /* per node: its first output in out[] */
  sym_out* out;
  int32_t n_symbols;
} sym_graph;

static inline sym sym_const(int64_t v) { return (sym){SYM_CONST, -1, v, 0}; }
static inline sym sym_unknown(void) { return (sym){SYM_UNKNOWN, -1, 0, 0}; }
static inline bool sym_equal(sym a, sym b) {
  return a.kind == b.kind &&
         (a.kind == SYM_UNKNOWN ? false : a.c == b.c && a.s == b.s && a.z == b.z);
}

/* a + b and a * b, unknown where not of the forms above. */
sym sym_add(sym a, sym b);
sym sym_mul(sym a, sym b);

/* Analyses the graph at the pass's start: every output's dims and values.
 * Fails (naming the node) where a rule finds shapes that cannot hold
 * together on any run. */
GRT_MUST_USE grt_status* sym_graph_build(grt_opt_ctx* c, sym_graph* g);
void sym_graph_free(sym_graph* g);
const sym_out* sym_graph_out(const sym_graph* g, int32_t node, int32_t port);

/* The dims of output `port` of node i from its inputs' (symbolic_dims.c);
 * `o` comes filled with the static shape (fresh symbols for its unknowns)
 * and a rule narrows it. */
GRT_MUST_USE grt_status* sym_infer_dims(sym_graph* g, int32_t i, int32_t port, sym_out* o);
/* The values of output `port` of node i from its inputs'
 * (symbolic_values.c); o->n_values is the element count the static shape
 * gives, and a rule fills o->values. */
void sym_infer_values(sym_graph* g, int32_t i, int32_t port, sym_out* o);

/* Entry d of Reshape(x, t)'s target as every run that succeeds has it
 * (a SYM_SCALED_UNLESS_ZERO entry made SYM_SCALED where that holds). */
sym sym_reshape_entry(const sym_out* x, const sym_out* t, int32_t d);

/* The input k of node i as an analysed output (NULL when absent). */
const sym_out* sym_input(const sym_graph* g, int32_t i, int32_t k);
/* Whether every value of o is a constant. */
bool sym_values_known(const sym_out* o);

#endif /* GRT_OPTIMIZER_SYMBOLIC_H_ */
