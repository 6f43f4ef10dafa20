/* Internal to the recurrent CPU kernels (nn_rnn*.c): one run of _RNN,
 * _GRU or _LSTM as the driver (nn_rnn.c) hands it to the cell arithmetic
 * (nn_rnn_cell.c). */
#ifndef GRT_BACKENDS_CPU_NN_RNN_H_
#define GRT_BACKENDS_CPU_NN_RNN_H_

#include <stdbool.h>
#include <stdint.h>

#include "ops/rnn.h"

/* Everything a step of one direction reads and writes. Row b of h, c, hr,
 * rh and hh is batch entry b's; rows are H floats (hr: hr_stride). */
typedef struct grt_rnn_step {
  const grt_rnn_attrs* a;
  int64_t H;
  const grt_rnn_act* acts; /* this direction's n_acts functions */
  const float* bias;       /* [G*H]: Wb + Rb (GRU with linear_before_reset: Wb for h) */
  const float* rb_h;       /* GRU with linear_before_reset: Rb of h, else NULL */
  const float* peep;       /* LSTM's [3H] (i o f), or NULL */
  const float* const* xw;  /* per row: x_t W^T, G*H floats */
  const bool* active;      /* per row: t is within the row's sequence */
  float* h;
  float* c;  /* LSTM */
  float* hr; /* h R^T: G*H floats a row (GRU without linear_before_reset: z, r) */
  int64_t hr_stride;
  float* rh;       /* GRU without linear_before_reset: r * h, the input of the h gate's product */
  const float* hh; /* and that product, (r * h) Rh^T */
} grt_rnn_step;

/* Rows [b0, b1) of one step: the new h (and c) where active; inactive rows
 * keep their state. GRU without linear_before_reset takes two phases, with
 * the product hh between them (phase 0: z and r, and rh; phase 1: the
 * rest); every other cell is one phase (0). */
void grt_rnn_cell_rows(const grt_rnn_step* s, int phase, int64_t b0, int64_t b1);

/* x[0..n) = f(x) for one activation. */
void grt_rnn_activate(const grt_rnn_act* f, float* x, int64_t n);

#endif /* GRT_BACKENDS_CPU_NN_RNN_H_ */
