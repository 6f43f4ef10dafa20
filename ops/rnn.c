/* The recurrent ops' attrs and shape checks (ops/rnn.h). */
#include "ops/rnn.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "base/shape.h"
#include "base/status.h"
#include "ops/attr.h"
#include "ops/graph.h"
#include "ops/op_def.h"

const grt_rnn_act_info kGrtRnnActs[GRT_RNN_N_ACTS] = {
    [GRT_RNN_RELU] = {"Relu", false, false, 0.0f, 0.0f},
    [GRT_RNN_TANH] = {"Tanh", false, false, 0.0f, 0.0f},
    [GRT_RNN_SIGMOID] = {"Sigmoid", false, false, 0.0f, 0.0f},
    [GRT_RNN_AFFINE] = {"Affine", true, true, 1.0f, 0.0f},
    [GRT_RNN_LEAKY_RELU] = {"LeakyRelu", true, false, 0.01f, 0.0f},
    [GRT_RNN_THRESHOLDED_RELU] = {"ThresholdedRelu", true, false, 1.0f, 0.0f},
    [GRT_RNN_SCALED_TANH] = {"ScaledTanh", true, true, 1.0f, 1.0f},
    [GRT_RNN_HARD_SIGMOID] = {"HardSigmoid", true, true, 0.2f, 0.5f},
    [GRT_RNN_ELU] = {"Elu", true, false, 1.0f, 0.0f},
    [GRT_RNN_SOFTSIGN] = {"Softsign", false, false, 0.0f, 0.0f},
    [GRT_RNN_SOFTPLUS] = {"Softplus", false, false, 0.0f, 0.0f},
};

int32_t grt_rnn_act_find(const char* s, size_t len) {
  for (int32_t i = 0; i < GRT_RNN_N_ACTS; i++)
    if (strlen(kGrtRnnActs[i].name) == len && strncasecmp(kGrtRnnActs[i].name, s, len) == 0)
      return i;
  return -1;
}

/* Per cell: op, gates, functions per direction, and ONNX's defaults. */
typedef struct {
  const char* op;
  grt_rnn_cell cell;
  int32_t gates, n_acts;
  grt_rnn_act_fn defaults[3];
} cell_row;

static const cell_row kCells[] = {
    {"_RNN", GRT_CELL_RNN, 1, 1, {GRT_RNN_TANH}},
    {"_GRU", GRT_CELL_GRU, 3, 2, {GRT_RNN_SIGMOID, GRT_RNN_TANH}},
    {"_LSTM", GRT_CELL_LSTM, 4, 3, {GRT_RNN_SIGMOID, GRT_RNN_TANH, GRT_RNN_TANH}},
};

static const grt_attr_value* list_attr(const grt_node* node, const grt_op_def* def,
                                       const char* name, grt_attr_type type, grt_status** err) {
  const grt_attr_value* v = grt_attr_lookup(node, def, name);
  *err = NULL;
  if (!v) return NULL;
  const grt_attr_value* got;
  *err = grt_attr_get(v, name, type, &got);
  return *err ? NULL : got;
}

static grt_status* read_acts(const grt_node* node, const grt_op_def* def, const cell_row* row,
                             grt_rnn_attrs* a) {
  grt_status* s;
  const grt_attr_value* names = list_attr(node, def, "activations", GRT_ATTR_LIST_STRING, &s);
  GRT_RETURN_IF_ERROR(s);
  const grt_attr_value* alphas = list_attr(node, def, "activation_alpha", GRT_ATTR_LIST_FLOAT, &s);
  GRT_RETURN_IF_ERROR(s);
  const grt_attr_value* betas = list_attr(node, def, "activation_beta", GRT_ATTR_LIST_FLOAT, &s);
  GRT_RETURN_IF_ERROR(s);
  int32_t n = names ? names->u.list.n : 0, total = a->n_acts * a->directions;
  if (n != 0 && n != total && n != a->n_acts)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "attr 'activations' lists %d functions; %s takes %d per direction (%d in "
                     "all)",
                     (int)n, row->op, (int)a->n_acts, (int)total);
  int32_t na = alphas ? alphas->u.list.n : 0, nb = betas ? betas->u.list.n : 0, ia = 0, ib = 0;
  for (int32_t k = 0; k < total; k++) {
    grt_rnn_act* act = &a->acts[k];
    if (n == 0) {
      act->fn = row->defaults[k % a->n_acts];
    } else {
      const char* name = names->u.list.v.s[n == total ? k : k % a->n_acts];
      int32_t f = grt_rnn_act_find(name, strlen(name));
      if (f < 0)
        return GRT_ERROR(INVALID_ARGUMENT,
                         "attr 'activations': unknown function '%s' (Relu, Tanh, Sigmoid, Affine, "
                         "LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, "
                         "Softplus)",
                         name);
      act->fn = (grt_rnn_act_fn)f;
    }
    const grt_rnn_act_info* info = &kGrtRnnActs[act->fn];
    act->alpha = info->alpha;
    act->beta = info->beta;
    if (info->takes_alpha && ia < na) act->alpha = alphas->u.list.v.f[ia++];
    if (info->takes_beta && ib < nb) act->beta = betas->u.list.v.f[ib++];
  }
  if (ia < na || ib < nb)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "attrs 'activation_alpha' and 'activation_beta' list %d and %d values; the "
                     "functions take %d and %d",
                     (int)na, (int)nb, (int)ia, (int)ib);
  return NULL;
}

grt_status* grt_rnn_attrs_read(const grt_node* node, const grt_op_def* def, grt_rnn_attrs* a) {
  memset(a, 0, sizeof *a);
  const cell_row* row = NULL;
  for (size_t i = 0; i < sizeof kCells / sizeof kCells[0]; i++)
    if (strcmp(node->op, kCells[i].op) == 0) row = &kCells[i];
  if (!row) return GRT_ERROR(INTERNAL, "op '%s' is not a recurrent op", node->op);
  a->cell = row->cell;
  a->gates = row->gates;
  a->n_acts = row->n_acts;
  const char* dir;
  GRT_RETURN_IF_ERROR(
      grt_attr_get_string(grt_attr_lookup(node, def, "direction"), "direction", &dir));
  if (strcmp(dir, "bidirectional") == 0) {
    a->directions = 2;
  } else if (strcmp(dir, "forward") == 0 || strcmp(dir, "reverse") == 0) {
    a->directions = 1;
    a->reverse = dir[0] == 'r';
  } else {
    return GRT_ERROR(INVALID_ARGUMENT,
                     "attr 'direction' is '%s' (forward, reverse or bidirectional)", dir);
  }
  GRT_RETURN_IF_ERROR(
      grt_attr_get_int(grt_attr_lookup(node, def, "hidden_size"), "hidden_size", &a->hidden));
  if (a->hidden < 1 || a->hidden > ((int64_t)1 << 24))
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'hidden_size' is %lld (1 to 2^24)",
                     (long long)a->hidden);
  int64_t layout;
  GRT_RETURN_IF_ERROR(grt_attr_get_int(grt_attr_lookup(node, def, "layout"), "layout", &layout));
  if (layout != 0 && layout != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'layout' is %lld (0 or 1)", (long long)layout);
  a->batch_major = layout == 1;
  GRT_RETURN_IF_ERROR(grt_attr_get_float(grt_attr_lookup(node, def, "clip"), "clip", &a->clip));
  if (!(a->clip >= 0.0f) || isinf(a->clip))
    return GRT_ERROR(INVALID_ARGUMENT, "attr 'clip' is %g (a positive threshold, or 0 for none)",
                     (double)a->clip);
  if (a->cell == GRT_CELL_GRU)
    GRT_RETURN_IF_ERROR(grt_attr_get_bool(grt_attr_lookup(node, def, "linear_before_reset"),
                                          "linear_before_reset", &a->linear_before_reset));
  if (a->cell == GRT_CELL_LSTM)
    GRT_RETURN_IF_ERROR(grt_attr_get_bool(grt_attr_lookup(node, def, "input_forget"),
                                          "input_forget", &a->input_forget));
  return read_acts(node, def, row, a);
}

bool grt_rnn_input_present(const grt_shape* s) {
  if (s->rank < 0) return true;
  for (int32_t i = 0; i < s->rank; i++)
    if (s->dims[i] == 0) return false;
  return true;
}

static const char* const kInputNames[] = {"X",         "W",         "R", "B", "sequence_lens",
                                          "initial_h", "initial_c", "P"};

/* Dim `at` of input `i` against `want` (-1: not known yet; set when it
 * is, with `what` saying where it came from). */
static grt_status* agree(const grt_shape* s, int32_t i, int32_t at, int64_t* want,
                         const char* what) {
  int64_t d = s->dims[at];
  if (d < 0) return NULL;
  if (*want < 0) {
    *want = d;
    return NULL;
  }
  if (d != *want)
    return GRT_ERROR(INVALID_ARGUMENT, "input %s has %lld in dimension %d; %s is %lld",
                     kInputNames[i], (long long)d, (int)at, what, (long long)*want);
  return NULL;
}

grt_status* grt_rnn_check_inputs(const grt_rnn_attrs* a, const grt_shape* in, int32_t n,
                                 grt_rnn_dims* out) {
  int32_t want_n = a->cell == GRT_CELL_LSTM ? 8 : 6;
  if (n != want_n) return GRT_ERROR(INTERNAL, "%d inputs; the op takes %d", (int)n, (int)want_n);
  static const int32_t kRank[] = {3, 3, 3, 2, 1, 3, 3, 2};
  for (int32_t i = 0; i < n; i++) {
    bool optional = i >= GRT_RNN_B;
    if (in[i].rank >= 0 && in[i].rank != kRank[i] && !(optional && !grt_rnn_input_present(&in[i])))
      return GRT_ERROR(INVALID_ARGUMENT, "input %s has rank %d; want %d", kInputNames[i],
                       (int)in[i].rank, (int)kRank[i]);
  }
  int64_t seq = -1, batch = -1, input = -1, dirs = a->directions, h = a->hidden;
  int64_t gh = a->gates * h, bias = 2 * gh, peep = 3 * h;
  bool bm = a->batch_major;
  const grt_shape* x = &in[GRT_RNN_X];
  if (x->rank == 3) {
    seq = x->dims[bm ? 1 : 0];
    batch = x->dims[bm ? 0 : 1];
    input = x->dims[2];
  }
  for (int32_t i = GRT_RNN_W; i <= GRT_RNN_R; i++) {
    const grt_shape* s = &in[i];
    if (s->rank != 3) continue;
    int64_t rows = gh;
    GRT_RETURN_IF_ERROR(agree(s, i, 0, &dirs, "the number of directions"));
    GRT_RETURN_IF_ERROR(
        agree(s, i, 1, &rows, a->gates == 1 ? "hidden_size" : "gates x hidden_size"));
    if (i == GRT_RNN_W)
      GRT_RETURN_IF_ERROR(agree(s, i, 2, &input, "X's input size"));
    else
      GRT_RETURN_IF_ERROR(agree(s, i, 2, &h, "hidden_size"));
  }
  const grt_shape* b = &in[GRT_RNN_B];
  if (b->rank == 2 && grt_rnn_input_present(b)) {
    GRT_RETURN_IF_ERROR(agree(b, GRT_RNN_B, 0, &dirs, "the number of directions"));
    GRT_RETURN_IF_ERROR(agree(b, GRT_RNN_B, 1, &bias, "2 x gates x hidden_size"));
  }
  const grt_shape* lens = &in[GRT_RNN_SEQUENCE_LENS];
  if (lens->rank == 1 && grt_rnn_input_present(lens))
    GRT_RETURN_IF_ERROR(agree(lens, GRT_RNN_SEQUENCE_LENS, 0, &batch, "the batch size"));
  for (int32_t i = GRT_RNN_INITIAL_H; i < n && i <= GRT_RNN_INITIAL_C; i++) {
    const grt_shape* s = &in[i];
    if (s->rank != 3 || !grt_rnn_input_present(s)) continue;
    GRT_RETURN_IF_ERROR(agree(s, i, bm ? 1 : 0, &dirs, "the number of directions"));
    GRT_RETURN_IF_ERROR(agree(s, i, bm ? 0 : 1, &batch, "the batch size"));
    GRT_RETURN_IF_ERROR(agree(s, i, 2, &h, "hidden_size"));
  }
  if (n > GRT_RNN_P) {
    const grt_shape* p = &in[GRT_RNN_P];
    if (p->rank == 2 && grt_rnn_input_present(p)) {
      GRT_RETURN_IF_ERROR(agree(p, GRT_RNN_P, 0, &dirs, "the number of directions"));
      GRT_RETURN_IF_ERROR(agree(p, GRT_RNN_P, 1, &peep, "3 x hidden_size"));
    }
  }
  out->seq = seq;
  out->batch = batch;
  out->input = input;
  return NULL;
}

void grt_rnn_output_shapes(const grt_rnn_attrs* a, const grt_rnn_dims* d, grt_shape* y,
                           grt_shape* state) {
  int64_t dirs = a->directions, h = a->hidden;
  y->rank = 4;
  state->rank = 3;
  if (a->batch_major) {
    int64_t yd[4] = {d->batch, d->seq, dirs, h}, sd[3] = {d->batch, dirs, h};
    memcpy(y->dims, yd, sizeof yd);
    memcpy(state->dims, sd, sizeof sd);
  } else {
    int64_t yd[4] = {d->seq, dirs, d->batch, h}, sd[3] = {dirs, d->batch, h};
    memcpy(y->dims, yd, sizeof yd);
    memcpy(state->dims, sd, sizeof sd);
  }
}
