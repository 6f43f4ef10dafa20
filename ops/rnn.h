/* The recurrent ops' semantics (_RNN, _GRU, _LSTM: ops/defs_rnn.c), shared
 * by their shape function, the CPU kernel (backends/cpu/nn_rnn.c) and the
 * ONNX importer: the attrs read and checked in one place, the activation
 * functions ONNX names with their alpha/beta defaults, and the inputs'
 * shapes checked against each other. One reader, so a node the importer or
 * validation accepts is one the kernel runs, with the same messages. */
#ifndef GRT_OPS_RNN_H_
#define GRT_OPS_RNN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct grt_node;
struct grt_op_def;

/* ONNX's activation functions for recurrences, in kGrtRnnActs' order. */
typedef enum {
  GRT_RNN_RELU,
  GRT_RNN_TANH,
  GRT_RNN_SIGMOID,
  GRT_RNN_AFFINE,           /* alpha x + beta */
  GRT_RNN_LEAKY_RELU,       /* x < 0: alpha x */
  GRT_RNN_THRESHOLDED_RELU, /* x > alpha: x, else 0 */
  GRT_RNN_SCALED_TANH,      /* alpha tanh(beta x) */
  GRT_RNN_HARD_SIGMOID,     /* max(0, min(1, alpha x + beta)) */
  GRT_RNN_ELU,              /* x < 0: alpha (e^x - 1) */
  GRT_RNN_SOFTSIGN,         /* x / (1 + |x|) */
  GRT_RNN_SOFTPLUS,         /* log(1 + e^x) */
  GRT_RNN_N_ACTS
} grt_rnn_act_fn;

/* A function's name (ONNX's spelling; matched without regard to case, as
 * ONNX Runtime does), whether it takes an alpha and a beta, and their
 * defaults (those of the ONNX op of the same name). */
typedef struct grt_rnn_act_info {
  const char* name;
  bool takes_alpha, takes_beta;
  float alpha, beta;
} grt_rnn_act_info;

extern const grt_rnn_act_info kGrtRnnActs[GRT_RNN_N_ACTS];

/* The function named s[0..len), or -1. */
int32_t grt_rnn_act_find(const char* s, size_t len);

typedef struct grt_rnn_act {
  grt_rnn_act_fn fn;
  float alpha, beta;
} grt_rnn_act;

typedef enum { GRT_CELL_RNN, GRT_CELL_GRU, GRT_CELL_LSTM } grt_rnn_cell;

/* A node's attrs, read and checked. */
typedef struct grt_rnn_attrs {
  grt_rnn_cell cell;
  int32_t gates;      /* 1 (RNN), 3 (GRU: z r h), 4 (LSTM: i o f c) */
  int32_t directions; /* 1, or 2 for bidirectional */
  bool reverse;       /* "reverse": the one direction runs from the end */
  int64_t hidden;
  bool batch_major; /* layout 1 */
  float clip;       /* 0: none */
  bool linear_before_reset, input_forget;
  int32_t n_acts;      /* per direction: 1 (RNN), 2 (GRU), 3 (LSTM) */
  grt_rnn_act acts[6]; /* direction d's function k at d * n_acts + k */
} grt_rnn_attrs;

/* Reads node's attrs (its op: _RNN, _GRU or _LSTM; def gives defaults).
 * activations lists n_acts functions per direction, or n_acts for both
 * directions of a bidirectional node, or none (ONNX's defaults); the
 * alpha and beta lists are consumed in order by the functions that take
 * one, each missing value its function's default (as ONNX Runtime reads
 * them). Errors name the attr. */
GRT_MUST_USE grt_status* grt_rnn_attrs_read(const struct grt_node* node,
                                            const struct grt_op_def* def, grt_rnn_attrs* out);

/* The inputs, in the ops' order; optional ones are absent when they have
 * no elements (or, for shape inference, when unknown: pass rank -1). */
enum {
  GRT_RNN_X,
  GRT_RNN_W,
  GRT_RNN_R,
  GRT_RNN_B,
  GRT_RNN_SEQUENCE_LENS,
  GRT_RNN_INITIAL_H,
  GRT_RNN_INITIAL_C, /* LSTM only */
  GRT_RNN_P,         /* LSTM only */
};

/* Sizes, -1 where unknown. */
typedef struct grt_rnn_dims {
  int64_t seq, batch, input;
} grt_rnn_dims;

/* Checks n inputs' shapes against each other and the attrs (unknown ranks
 * and dims pass), and returns the sizes known. An optional input whose
 * shape is known to hold no elements is absent. Errors name the input and
 * both sizes. */
GRT_MUST_USE grt_status* grt_rnn_check_inputs(const grt_rnn_attrs* a, const grt_shape* in,
                                              int32_t n, grt_rnn_dims* out);

/* Whether optional input shape s is given (known to hold elements or of
 * unknown size). */
bool grt_rnn_input_present(const grt_shape* s);

/* The outputs' shapes (Y, Y_h, and Y_c for LSTM): Y [seq, D, batch, H]
 * ([batch, seq, D, H] batch-major), the states [D, batch, H] ([batch, D,
 * H]). */
void grt_rnn_output_shapes(const grt_rnn_attrs* a, const grt_rnn_dims* d, grt_shape* y,
                           grt_shape* state);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_RNN_H_ */
