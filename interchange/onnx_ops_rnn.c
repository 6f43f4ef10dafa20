/* ONNX RNN, GRU and LSTM (one direction, forward or reverse) unrolled over
 * the sequence: the sequence length is X's inferred dimension (onnx_shape;
 * an error when it is unknown before run time); batch and sizes stay
 * run-time values.
 * Each step is MatMul(x_t, W, transpose_b) + MatMul(h, R, transpose_b) +
 * (Wb + Rb), the gates split along axis 1 in ONNX's order (GRU z r h, LSTM
 * i o f c), with ONNX's default activations (sigmoid gates; tanh, or the
 * one `activations` names for RNN). Y stacks the steps' h in sequence
 * order, Y_h (and LSTM's Y_c) is the last step's. layout 1 (batch first)
 * is transposed in and out. Not supported (errors): bidirectional,
 * sequence_lens, clip, activation_alpha/beta, other activations. */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/status.h"
#include "base/tensor.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

typedef enum { CELL_RNN, CELL_GRU, CELL_LSTM } cell_kind;

static grt_status* op2(onnx_import* ctx, const char* op, grt_dtype t, const char* a, const char* b,
                       const char** out) {
  const char* in[2] = {a, b};
  return onnx_emit(ctx, op, "rnn", t, in, 2, NULL, out);
}

static grt_status* op1(onnx_import* ctx, const char* op, grt_dtype t, const char* a,
                       const char** out) {
  return onnx_emit(ctx, op, "rnn", t, &a, 1, NULL, out);
}

static grt_status* matmul_t(onnx_import* ctx, grt_dtype t, const char* a, const char* b,
                            const char** out) {
  int32_t idx;
  const char* in[2] = {a, b};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "MatMul", "rnn_mm", t, in, 2, &idx, out));
  return grt_graph_set_attr_bool(ctx->g, idx, "transpose_b", true);
}

static grt_status* squeeze0(onnx_import* ctx, grt_dtype t, const char* v, const char** out) {
  int32_t idx;
  int64_t axis = 0;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Squeeze", "rnn_squeeze", t, &v, 1, &idx, out));
  return grt_graph_set_attr_int_list(ctx->g, idx, "squeeze_dims", &axis, 1);
}

static grt_status* expand(onnx_import* ctx, const char* suffix, grt_dtype t, const char* v,
                          int64_t axis, const char** out) {
  const char* d;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, (double)axis, &d));
  const char* in[2] = {v, d};
  return onnx_emit(ctx, "ExpandDims", suffix, t, in, 2, NULL, out);
}

static grt_status* transpose(onnx_import* ctx, const char* suffix, grt_dtype t, const char* v,
                             const int64_t* perm, size_t n, const char** out) {
  const char* p;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, perm, n, &p));
  const char* in[2] = {v, p};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Transpose", suffix, t, in, 2, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Tperm", GRT_INT64);
}

/* Output k of a multi-output node. */
static grt_status* output_k(onnx_import* ctx, const char* node, int k, const char** out) {
  if (k == 0) {
    *out = node;
    return NULL;
  }
  size_t len = strlen(node) + 8;
  char* s = grt_arena_alloc(ctx->g->arena, len);
  if (!s) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  snprintf(s, len, "%s:%d", node, k);
  *out = s;
  return NULL;
}

/* v split into n equal parts along `axis`. */
static grt_status* split(onnx_import* ctx, grt_dtype t, const char* v, int axis, int n,
                         const char** parts) {
  const char *d, *node;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, axis, &d));
  const char* in[2] = {d, v};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Split", "rnn_split", t, in, 2, &idx, &node));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "num_split", n));
  for (int k = 0; k < n; k++) GRT_RETURN_IF_ERROR(output_k(ctx, node, k, &parts[k]));
  return NULL;
}

/* Dimension `at` of v's inferred shape (onnx_shape), -1 when unknown. */
static int64_t known_dim(onnx_import* ctx, const onnx_value* v, int at) {
  const grt_shape* s = onnx_shape(ctx, v);
  return s->rank > at ? s->dims[at] : -1;
}

static bool attr_is(const Onnx__AttributeProto* a, const char* s) {
  return a && a->has_s && a->s.len == strlen(s) && memcmp(a->s.data, s, a->s.len) == 0;
}

static grt_status* recurrent(onnx_import* ctx, cell_kind kind) {
  const onnx_value *x, *w, *r;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &w));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &r));
  grt_dtype t = x->dtype;
  int64_t hidden, layout, lbr = 0;
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "hidden_size", -1, &hidden));
  GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "layout", 0, &layout));
  if (kind == CELL_GRU) GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "linear_before_reset", 0, &lbr));
  if (hidden < 1) return GRT_ERROR(INVALID_ARGUMENT, "hidden_size is required");
  const Onnx__AttributeProto* dir = onnx_attr(ctx, "direction");
  bool reverse = attr_is(dir, "reverse");
  if (dir && !reverse && !attr_is(dir, "forward"))
    return GRT_ERROR(UNIMPLEMENTED, "only forward and reverse directions are supported");
  if (onnx_attr(ctx, "clip") || onnx_attr(ctx, "activation_alpha") ||
      onnx_attr(ctx, "activation_beta"))
    return GRT_ERROR(UNIMPLEMENTED, "clip and activation_alpha/beta are not supported");
  const char* act = "Tanh";
  const Onnx__AttributeProto* acts = onnx_attr(ctx, "activations");
  if (acts) {
    static const char* const kGrt[3][2] = {
        {"Tanh", "Tanh"}, {"Sigmoid", "Sigmoid"}, {"Relu", "Relu"}};
    size_t want = kind == CELL_RNN ? 1 : kind == CELL_GRU ? 2 : 3;
    if (acts->n_strings != want)
      return GRT_ERROR(UNIMPLEMENTED, "activations must list %zu functions", want);
    for (size_t i = 0; i < want; i++) {
      bool ok = false;
      for (int k = 0; k < 3; k++)
        if (acts->strings[i].len == strlen(kGrt[k][0]) &&
            memcmp(acts->strings[i].data, kGrt[k][0], acts->strings[i].len) == 0) {
          ok = kind == CELL_RNN || (i == 0 ? k == 1 : k == 0); /* ONNX's defaults only */
          if (kind == CELL_RNN) act = kGrt[k][1];
        }
      if (!ok) return GRT_ERROR(UNIMPLEMENTED, "activation %zu is not supported", i);
    }
  }
  if (onnx_has_input(ctx, 4)) return GRT_ERROR(UNIMPLEMENTED, "sequence_lens is not supported");
  int64_t input_forget = 0;
  if (kind == CELL_LSTM) GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "input_forget", 0, &input_forget));
  if (input_forget) return GRT_ERROR(UNIMPLEMENTED, "input_forget is not supported");
  if (kind == CELL_LSTM && onnx_has_input(ctx, 7))
    return GRT_ERROR(UNIMPLEMENTED, "peepholes are not supported");
  if (x->rank != 3) return GRT_ERROR(UNIMPLEMENTED, "X must be 3-D of known rank");
  int64_t steps = known_dim(ctx, x, layout ? 1 : 0);
  if (steps < 0)
    return GRT_ERROR(UNIMPLEMENTED,
                     "the sequence length (X's dimension %d) is not known before run time: grt "
                     "unrolls the steps, so it must be static (a symbolic or computed length is "
                     "not supported)",
                     layout ? 1 : 0);
  if (steps < 1 || steps > 4096)
    return GRT_ERROR(UNIMPLEMENTED, "a sequence length of %lld is not supported (1 to 4096)",
                     (long long)steps);
  static const int64_t kSwap01[3] = {1, 0, 2};
  const char *xs = x->ref, *wm, *rm, *bias = NULL, *h, *c = NULL;
  if (layout) GRT_RETURN_IF_ERROR(transpose(ctx, "time_major", t, xs, kSwap01, 3, &xs));
  GRT_RETURN_IF_ERROR(squeeze0(ctx, t, w->ref, &wm));
  GRT_RETURN_IF_ERROR(squeeze0(ctx, t, r->ref, &rm));
  if (onnx_has_input(ctx, 3) && kind != CELL_GRU) { /* B [1, 2 g H] -> Wb + Rb [g H] */
    const onnx_value* b;
    const char *bv, *halves[2];
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 3, &b));
    GRT_RETURN_IF_ERROR(squeeze0(ctx, t, b->ref, &bv));
    GRT_RETURN_IF_ERROR(split(ctx, t, bv, 0, 2, halves));
    GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, halves[0], halves[1], &bias));
  }
  /* initial state, or zeros [batch, H] built from X's batch at run time */
  const char *xshape, *batch, *hvec, *zshape, *zero;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "rnn_dims", t, &xs, 1, &idx, &xshape));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "out_type", GRT_INT64));
  {
    int64_t at = 1, len = 1;
    const char *b0, *l1;
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &at, 1, &b0));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &len, 1, &l1));
    const char* sl[3] = {xshape, b0, l1};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "rnn_batch", GRT_INT64, sl, 3, &idx, &batch));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
    GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &hidden, 1, &hvec));
    const char* axis;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &axis));
    const char* cc[3] = {batch, hvec, axis};
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "ConcatV2", "rnn_state_shape", GRT_INT64, cc, 3, &idx, &zshape));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "N", 2));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 0, &zero));
  }
  for (int s = 0; s < (kind == CELL_LSTM ? 2 : 1); s++) {
    int at = s == 0 ? 5 : 6;
    const char* v;
    if (onnx_has_input(ctx, at)) {
      const onnx_value* init;
      GRT_RETURN_IF_ERROR(onnx_input(ctx, at, &init));
      GRT_RETURN_IF_ERROR(squeeze0(ctx, t, init->ref, &v));
    } else {
      const char* f[2] = {zshape, zero};
      GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Fill", "rnn_zeros", t, f, 2, &idx, &v));
      GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "index_type", GRT_INT64));
    }
    if (s == 0)
      h = v;
    else
      c = v;
  }
  /* GRU: the h gate's recurrent part is kept apart (reset applies to it) */
  const char *w_parts[4], *r_parts[4], *b_parts[4] = {NULL, NULL, NULL, NULL}, *rb_h = NULL;
  if (kind == CELL_GRU) {
    GRT_RETURN_IF_ERROR(split(ctx, t, wm, 0, 3, w_parts));
    GRT_RETURN_IF_ERROR(split(ctx, t, rm, 0, 3, r_parts));
    if (onnx_has_input(ctx, 3)) {
      const onnx_value* b;
      const char *bv, *wb[3], *rb[3], *halves[2];
      GRT_RETURN_IF_ERROR(onnx_input(ctx, 3, &b));
      GRT_RETURN_IF_ERROR(squeeze0(ctx, t, b->ref, &bv));
      GRT_RETURN_IF_ERROR(split(ctx, t, bv, 0, 2, halves));
      GRT_RETURN_IF_ERROR(split(ctx, t, halves[0], 0, 3, wb));
      GRT_RETURN_IF_ERROR(split(ctx, t, halves[1], 0, 3, rb));
      for (int g = 0; g < 2; g++)
        GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, wb[g], rb[g], &b_parts[g]));
      b_parts[2] = wb[2];
      rb_h = rb[2];
    }
  }
  const char** xt = grt_arena_alloc(ctx->g->arena, (size_t)steps * sizeof *xt);
  const char** ys = grt_arena_alloc(ctx->g->arena, (size_t)steps * sizeof *ys);
  if (!xt || !ys) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  if (steps == 1) {
    GRT_RETURN_IF_ERROR(squeeze0(ctx, t, xs, &xt[0]));
  } else {
    const char *d, *node;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &d));
    const char* in[2] = {d, xs};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Split", "rnn_steps", t, in, 2, &idx, &node));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, idx, "num_split", steps));
    for (int64_t k = 0; k < steps; k++) {
      const char* part;
      GRT_RETURN_IF_ERROR(output_k(ctx, node, (int)k, &part));
      GRT_RETURN_IF_ERROR(squeeze0(ctx, t, part, &xt[k]));
    }
  }
  for (int64_t k = 0; k < steps; k++) {
    int64_t at = reverse ? steps - 1 - k : k;
    const char* xk = xt[at];
    if (kind == CELL_GRU) {
      const char *z, *rr, *hh, *a, *b2, *one, *zc, *p, *q;
      const char* gate[2];
      for (int g = 0; g < 2; g++) { /* z, r */
        GRT_RETURN_IF_ERROR(matmul_t(ctx, t, xk, w_parts[g], &a));
        GRT_RETURN_IF_ERROR(matmul_t(ctx, t, h, r_parts[g], &b2));
        GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, a, b2, &a));
        if (b_parts[g]) GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, a, b_parts[g], &a));
        GRT_RETURN_IF_ERROR(op1(ctx, "Sigmoid", t, a, &gate[g]));
      }
      z = gate[0];
      rr = gate[1];
      GRT_RETURN_IF_ERROR(matmul_t(ctx, t, xk, w_parts[2], &a));
      if (b_parts[2]) GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, a, b_parts[2], &a));
      if (lbr) { /* r * (h R^T + Rb) */
        GRT_RETURN_IF_ERROR(matmul_t(ctx, t, h, r_parts[2], &b2));
        if (rb_h) GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, b2, rb_h, &b2));
        GRT_RETURN_IF_ERROR(op2(ctx, "Mul", t, rr, b2, &b2));
      } else { /* (r * h) R^T + Rb */
        GRT_RETURN_IF_ERROR(op2(ctx, "Mul", t, rr, h, &b2));
        GRT_RETURN_IF_ERROR(matmul_t(ctx, t, b2, r_parts[2], &b2));
        if (rb_h) GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, b2, rb_h, &b2));
      }
      GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, a, b2, &a));
      GRT_RETURN_IF_ERROR(op1(ctx, "Tanh", t, a, &hh));
      GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 1, &one));
      GRT_RETURN_IF_ERROR(op2(ctx, "Sub", t, one, z, &zc));
      GRT_RETURN_IF_ERROR(op2(ctx, "Mul", t, zc, hh, &p));
      GRT_RETURN_IF_ERROR(op2(ctx, "Mul", t, z, h, &q));
      GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, p, q, &h));
    } else {
      const char *a, *b2, *pre;
      GRT_RETURN_IF_ERROR(matmul_t(ctx, t, xk, wm, &a));
      GRT_RETURN_IF_ERROR(matmul_t(ctx, t, h, rm, &b2));
      GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, a, b2, &pre));
      if (bias) GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, pre, bias, &pre));
      if (kind == CELL_RNN) {
        GRT_RETURN_IF_ERROR(op1(ctx, act, t, pre, &h));
      } else { /* i o f c */
        const char *g4[4], *ig, *og, *fg, *cg, *p, *q, *tc;
        GRT_RETURN_IF_ERROR(split(ctx, t, pre, 1, 4, g4));
        GRT_RETURN_IF_ERROR(op1(ctx, "Sigmoid", t, g4[0], &ig));
        GRT_RETURN_IF_ERROR(op1(ctx, "Sigmoid", t, g4[1], &og));
        GRT_RETURN_IF_ERROR(op1(ctx, "Sigmoid", t, g4[2], &fg));
        GRT_RETURN_IF_ERROR(op1(ctx, "Tanh", t, g4[3], &cg));
        GRT_RETURN_IF_ERROR(op2(ctx, "Mul", t, fg, c, &p));
        GRT_RETURN_IF_ERROR(op2(ctx, "Mul", t, ig, cg, &q));
        GRT_RETURN_IF_ERROR(op2(ctx, "AddV2", t, p, q, &c));
        GRT_RETURN_IF_ERROR(op1(ctx, "Tanh", t, c, &tc));
        GRT_RETURN_IF_ERROR(op2(ctx, "Mul", t, og, tc, &h));
      }
    }
    ys[at] = h;
  }
  /* Y [S, 1, B, H] (layout 1: [B, S, 1, H]) */
  if (onnx_has_output(ctx, 0)) {
    const char* y;
    int32_t pi;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Pack", "rnn_y", t, ys, (int)steps, &pi, &y));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(ctx->g, pi, "N", steps));
    GRT_RETURN_IF_ERROR(expand(ctx, layout ? "rnn_y" : NULL, t, y, 1, &y));
    if (layout) {
      static const int64_t kBatchFirst[4] = {2, 0, 1, 3};
      GRT_RETURN_IF_ERROR(transpose(ctx, NULL, t, y, kBatchFirst, 4, &y));
    }
    GRT_RETURN_IF_ERROR(onnx_bind(ctx, 0, y, t, 4));
  }
  const char* finals[2] = {h, c};
  for (int s = 0; s < (kind == CELL_LSTM ? 2 : 1); s++) {
    const char* v;
    GRT_RETURN_IF_ERROR(expand(ctx, "rnn_last", t, finals[s], layout ? 1 : 0, &v));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", "rnn_state", t, &v, 1, NULL, &v));
    GRT_RETURN_IF_ERROR(onnx_bind(ctx, 1 + s, v, t, 3));
  }
  return NULL;
}

static grt_status* rnn(onnx_import* ctx, const char* tf) { return recurrent(ctx, CELL_RNN); }
static grt_status* gru(onnx_import* ctx, const char* tf) { return recurrent(ctx, CELL_GRU); }
static grt_status* lstm(onnx_import* ctx, const char* tf) { return recurrent(ctx, CELL_LSTM); }

#define RNN_ATTRS "activation_alpha,activation_beta,activations,clip,direction,hidden_size,layout"

const onnx_op_row grt_onnx_ops_rnn[] = {
    {"RNN", rnn, NULL, RNN_ATTRS},
    {"GRU", gru, NULL, RNN_ATTRS ",linear_before_reset"},
    {"LSTM", lstm, NULL, RNN_ATTRS ",input_forget"},
    {NULL, NULL, NULL, NULL},
};
