/* The recurrent ops: ONNX's RNN, GRU and LSTM as single nodes, so a
 * recurrence runs as one kernel's loop over the sequence and the graph's
 * size does not depend on its length (which comes from X at run time).
 * grt-internal names (a leading underscore); the ONNX importer makes them
 * (interchange/onnx_ops_rnn.c), and a loaded graph may hold them.
 *
 * Inputs, attrs and outputs are ONNX's (opset 14), with ONNX's meaning:
 *   x [seq, batch, input] (layout 1: [batch, seq, input]);
 *   w [D, G*H, input], r [D, G*H, H], gates stacked in ONNX's order (GRU
 *     z r h; LSTM i o f c), D 2 for bidirectional (forward first);
 *   b [D, 2*G*H] (Wb then Rb), sequence_lens [batch] (int32, each in
 *     [0, seq]), initial_h (and LSTM's initial_c) [D, batch, H] (layout 1:
 *     [batch, D, H]), LSTM's p [D, 3H] (peepholes i o f).
 *   An optional input with no elements is absent: no bias, every sequence
 *   whole, zero initial states, no peepholes (ONNX's empty input name).
 *   Outputs y [seq, D, batch, H] (layout 1: [batch, seq, D, H]), zero
 *   past each sequence's length; y_h (and LSTM's y_c) the last state of
 *   each sequence, [D, batch, H] (layout 1: [batch, D, H]).
 *   activations: ONNX's function names (f; GRU f g; LSTM f g h) per
 *   direction, or one set for both; activation_alpha/beta consumed in
 *   order by the functions that take them (ops/rnn.h). clip: the gates'
 *   pre-activations clamped to [-clip, clip] (0: none). GRU's
 *   linear_before_reset and LSTM's input_forget (f = 1 - i) as in ONNX.
 *
 * float32 only, CPU only (backends/cpu/nn_rnn.c); no gradients (inference
 * ops: training an imported recurrence is not supported). */
#include "base/status.h"
#include "ops/defs.h"
#include "ops/rnn.h"
#include "ops/shape_fns.h"

static grt_status* infer_rnn(grt_shape_ctx* c) {
  grt_rnn_attrs a;
  GRT_RETURN_IF_ERROR(grt_rnn_attrs_read(c->node, c->def, &a));
  int32_t n_out = a.cell == GRT_CELL_LSTM ? 3 : 2;
  GRT_RETURN_IF_ERROR(grt_infer_need(c, a.cell == GRT_CELL_LSTM ? 8 : 6, n_out));
  grt_rnn_dims d;
  GRT_RETURN_IF_ERROR(grt_rnn_check_inputs(&a, c->input_shapes, c->n_inputs, &d));
  grt_shape y, state;
  grt_rnn_output_shapes(&a, &d, &y, &state);
  c->output_shapes[0] = y;
  for (int32_t k = 1; k < n_out; k++) c->output_shapes[k] = state;
  return NULL;
}

#define RNN_ATTRS                                                                         \
  "T: {float32}; hidden_size: int >= 1; direction: string = 'forward'; layout: int = 0; " \
  "activations: list(string) = []; activation_alpha: list(float) = []; "                  \
  "activation_beta: list(float) = []; clip: float = 0.0"
#define RNN_INPUTS "x: T, w: T, r: T, b: T, sequence_lens: int32, initial_h: T"

static const grt_op_spec kRows[] = {
    {"_RNN", RNN_INPUTS, "y: T, y_h: T", RNN_ATTRS, 0, infer_rnn},
    {"_GRU", RNN_INPUTS, "y: T, y_h: T", RNN_ATTRS "; linear_before_reset: bool = false", 0,
     infer_rnn},
    {"_LSTM", RNN_INPUTS ", initial_c: T, p: T", "y: T, y_h: T, y_c: T",
     RNN_ATTRS "; input_forget: bool = false", 0, infer_rnn},
};

GRT_OP_TABLE(grt_ops_rnn, "rnn", kRows);
