/* _RNN, _GRU and _LSTM (ops/defs_rnn.c): the whole recurrence in one
 * kernel, so the graph holds one node however long the sequence.
 *
 * Per direction: the input's contribution to every step, x W^T, is one
 * GEMM over all seq * batch rows (most of the work for short hidden sizes:
 * a large, well-shaped product); then each step is one GEMM of the batch's
 * states by R^T ([batch, H] x [H, G*H]; OpenBLAS's GEMV at batch 1) and the
 * cell's element-wise arithmetic (nn_rnn_cell.c), its rows spread over the
 * intra-op pool when the batch is large. GRU without linear_before_reset
 * needs r before the h gate's product, so its step is two GEMMs. Products
 * go through the MatMul kernels' engine (matmul_gemm.h). The run stops
 * between steps once cancelled or out of time. float32. */
#include <string.h>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_util.h"
#include "backends/cpu/matmul_gemm.h"
#include "backends/cpu/nn.h"
#include "backends/cpu/nn_rnn.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/graph.h"

/* Steps between cancellation checks. */
#define kCancelEvery 16

typedef struct {
  const grt_rnn_attrs* a;
  int64_t S, B, I, H, D;
  const float *x, *w, *r, *b, *p, *h0, *c0;
  const int32_t* lens;
  float *y, *yh, *yc;
} rnn_io;

/* C[m, n] = A[m, k] B[n, k]^T. */
static grt_status* gemm_bt(int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                           float* c, grt_threadpool* pool) {
  if (m == 0 || n == 0) return NULL;
  grt_gemm_plan p = {.m = m, .n = n, .k = k, .tb = true, .batch = 1};
  return grt_gemm_run(&p, GRT_FLOAT32, a, b, c, pool);
}

/* Optional input k: its data, or NULL when it has no elements. */
static const void* optional(const grt_kernel_ctx* ctx, int32_t k) {
  const grt_tensor* t = ctx->n_inputs > k ? ctx->inputs[k] : NULL;
  return t && grt_tensor_num_elements(t) > 0 ? grt_tensor_data(t) : NULL;
}

typedef struct {
  const grt_rnn_step* s;
  int phase;
} rows_job;

static void cell_range(void* arg, int64_t b0, int64_t b1) {
  const rows_job* j = arg;
  grt_rnn_cell_rows(j->s, j->phase, b0, b1);
}

static void cells(const grt_rnn_step* s, int phase, int64_t batch, grt_threadpool* pool) {
  rows_job j = {s, phase};
  grt_parallel_for(pool, batch, s->a->gates * s->H * 8, cell_range, &j);
}

/* Scratch, in floats, for one direction at a time. */
typedef struct {
  float *xw, *h, *c, *hr, *rh, *hh, *bias;
  const float** xrow;
  bool* active;
} scratch;

/* One direction: states from initial_h/c (or zero), steps forward or
 * backward, y's slots of this direction and the final states written. */
static grt_status* direction(grt_kernel_ctx* ctx, const rnn_io* io, const scratch* m, int32_t d,
                             bool backwards) {
  const grt_rnn_attrs* a = io->a;
  int64_t S = io->S, B = io->B, I = io->I, H = io->H, D = io->D, GH = a->gates * H;
  bool bm = a->batch_major, lstm = a->cell == GRT_CELL_LSTM;
  bool two_phase = a->cell == GRT_CELL_GRU && !a->linear_before_reset;
  const float *w = io->w + d * GH * I, *r = io->r + d * GH * H;
  GRT_RETURN_IF_ERROR(gemm_bt(S * B, GH, I, io->x, w, m->xw, ctx->intra_op));
  /* Wb + Rb, except the h gate's Rb under linear_before_reset (inside r's product). */
  const float *wb = io->b ? io->b + d * 2 * GH : NULL, *rb = wb ? wb + GH : NULL;
  for (int64_t j = 0; j < GH; j++) {
    bool keep_rb = a->cell == GRT_CELL_GRU && a->linear_before_reset && j >= 2 * H;
    m->bias[j] = wb ? wb[j] + (keep_rb ? 0.0f : rb[j]) : 0.0f;
  }
  for (int64_t b = 0; b < B; b++) {
    int64_t at = (bm ? b * D + d : d * B + b) * H;
    float *h = m->h + b * H, *c = m->c + b * H;
    if (io->h0)
      memcpy(h, io->h0 + at, (size_t)H * sizeof *h);
    else
      memset(h, 0, (size_t)H * sizeof *h);
    if (lstm && io->c0)
      memcpy(c, io->c0 + at, (size_t)H * sizeof *c);
    else if (lstm)
      memset(c, 0, (size_t)H * sizeof *c);
  }
  grt_rnn_step s = {
      .a = a,
      .H = H,
      .acts = &a->acts[d * a->n_acts],
      .bias = m->bias,
      .rb_h = a->cell == GRT_CELL_GRU && a->linear_before_reset && rb ? rb + 2 * H : NULL,
      .peep = io->p ? io->p + d * 3 * H : NULL,
      .xw = m->xrow,
      .active = m->active,
      .h = m->h,
      .c = m->c,
      .hr = m->hr,
      .hr_stride = two_phase ? 2 * H : GH,
      .rh = m->rh,
      .hh = m->hh,
  };
  for (int64_t k = 0; k < S; k++) {
    if (k % kCancelEvery == 0 && grt_kernel_cancelled(ctx)) return NULL;
    int64_t t = backwards ? S - 1 - k : k;
    bool any = false;
    for (int64_t b = 0; b < B; b++) {
      m->active[b] = !io->lens || t < io->lens[b];
      any |= m->active[b];
      m->xrow[b] = m->xw + (bm ? b * S + t : t * B + b) * GH;
    }
    if (any) {
      GRT_RETURN_IF_ERROR(gemm_bt(B, s.hr_stride, H, m->h, r, m->hr, ctx->intra_op));
      cells(&s, 0, B, ctx->intra_op);
      if (two_phase) {
        GRT_RETURN_IF_ERROR(gemm_bt(B, H, H, m->rh, r + 2 * H * H, m->hh, ctx->intra_op));
        cells(&s, 1, B, ctx->intra_op);
      }
    }
    for (int64_t b = 0; b < B; b++) {
      float* y = io->y + (bm ? (b * S + t) * D + d : (t * D + d) * B + b) * H;
      if (m->active[b])
        memcpy(y, m->h + b * H, (size_t)H * sizeof *y);
      else
        memset(y, 0, (size_t)H * sizeof *y);
    }
  }
  for (int64_t b = 0; b < B; b++) {
    int64_t at = (bm ? b * D + d : d * B + b) * H;
    memcpy(io->yh + at, m->h + b * H, (size_t)H * sizeof(float));
    if (lstm) memcpy(io->yc + at, m->c + b * H, (size_t)H * sizeof(float));
  }
  return NULL;
}

/* Scratch, in floats: the row pointers and flags first (the buffer is
 * aligned for pointers; 2 floats hold one), then x W^T for all steps, the
 * states, h R^T, GRU's r * h and its product, and the bias. Fails on
 * overflow. */
static grt_status* scratch_size(const rnn_io* io, int64_t* head, int64_t* out) {
  int64_t B = io->B, GH = io->a->gates * io->H, rows, xw, per_row, tail;
  *head = 2 * B + (B + 3) / 4;
  if (__builtin_mul_overflow(io->S, B, &rows) || __builtin_mul_overflow(rows, GH, &xw) ||
      __builtin_mul_overflow(B, 4 * io->H + GH, &per_row) ||
      __builtin_add_overflow(xw, per_row + GH, &tail) || __builtin_add_overflow(tail, *head, out) ||
      *out > ((int64_t)1 << 40))
    return GRT_ERROR(RESOURCE_EXHAUSTED,
                     "the recurrence's scratch (sequence %lld x batch %lld x %lld gate values) "
                     "is too large",
                     (long long)io->S, (long long)B, (long long)GH);
  return NULL;
}

static grt_status* check_lens(const rnn_io* io) {
  if (!io->lens) return NULL;
  for (int64_t b = 0; b < io->B; b++)
    if (io->lens[b] < 0 || io->lens[b] > io->S)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "sequence_lens[%lld] is %d; X's sequence length is %lld (each length "
                       "must be in [0, %lld])",
                       (long long)b, (int)io->lens[b], (long long)io->S, (long long)io->S);
  return NULL;
}

static grt_status* run(grt_kernel_ctx* ctx, const rnn_io* io) {
  int64_t head = 0, n = 0;
  GRT_RETURN_IF_ERROR(scratch_size(io, &head, &n));
  int64_t dims[1] = {n};
  grt_shape shape = grt_shape_make(1, dims);
  grt_tensor* tmp;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_temp(ctx, GRT_FLOAT32, &shape, &tmp));
  int64_t H = io->H, B = io->B, GH = io->a->gates * H;
  float* f = grt_tensor_data(tmp);
  scratch m;
  m.xrow = (const float**)(void*)f;
  m.active = (bool*)(m.xrow + B);
  m.xw = f + head;
  m.h = m.xw + io->S * B * GH;
  m.c = m.h + B * H;
  m.rh = m.c + B * H;
  m.hh = m.rh + B * H;
  m.hr = m.hh + B * H;
  m.bias = m.hr + B * GH;
  grt_status* s = NULL;
  for (int32_t d = 0; d < io->D && !s; d++) s = direction(ctx, io, &m, d, io->a->reverse || d == 1);
  grt_tensor_free(tmp);
  return s;
}

static grt_status* recurrent(grt_kernel_ctx* ctx) {
  grt_rnn_attrs a;
  GRT_RETURN_IF_ERROR(grt_rnn_attrs_read(ctx->node, ctx->node->def, &a));
  int32_t n_in = a.cell == GRT_CELL_LSTM ? 8 : 6;
  if (ctx->n_inputs != n_in)
    return GRT_ERROR(INTERNAL, "%d inputs; the op takes %d", (int)ctx->n_inputs, (int)n_in);
  grt_shape shapes[8];
  for (int32_t i = 0; i < n_in; i++) {
    if (i != GRT_RNN_SEQUENCE_LENS && ctx->inputs[i]->dtype != GRT_FLOAT32)
      return grt_cpu_no_kernel(ctx, ctx->inputs[i]->dtype);
    shapes[i] = ctx->inputs[i]->shape;
  }
  grt_rnn_dims dims;
  GRT_RETURN_IF_ERROR(grt_rnn_check_inputs(&a, shapes, n_in, &dims));
  rnn_io io = {
      .a = &a,
      .S = dims.seq,
      .B = dims.batch,
      .I = dims.input,
      .H = a.hidden,
      .D = a.directions,
      .x = grt_tensor_data(ctx->inputs[GRT_RNN_X]),
      .w = grt_tensor_data(ctx->inputs[GRT_RNN_W]),
      .r = grt_tensor_data(ctx->inputs[GRT_RNN_R]),
      .b = optional(ctx, GRT_RNN_B),
      .lens = optional(ctx, GRT_RNN_SEQUENCE_LENS),
      .h0 = optional(ctx, GRT_RNN_INITIAL_H),
      .c0 = a.cell == GRT_CELL_LSTM ? optional(ctx, GRT_RNN_INITIAL_C) : NULL,
      .p = a.cell == GRT_CELL_LSTM ? optional(ctx, GRT_RNN_P) : NULL,
  };
  GRT_RETURN_IF_ERROR(check_lens(&io));
  grt_shape ys, states;
  grt_rnn_output_shapes(&a, &dims, &ys, &states);
  grt_tensor *y, *yh, *yc = NULL;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &ys, &y));
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 1, GRT_FLOAT32, &states, &yh));
  if (a.cell == GRT_CELL_LSTM)
    GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 2, GRT_FLOAT32, &states, &yc));
  io.y = grt_tensor_data(y);
  io.yh = grt_tensor_data(yh);
  io.yc = yc ? grt_tensor_data(yc) : NULL;
  return run(ctx, &io);
}

grt_status* grt_cpu_rnn(grt_kernel_ctx* ctx) { return recurrent(ctx); }
grt_status* grt_cpu_gru(grt_kernel_ctx* ctx) { return recurrent(ctx); }
grt_status* grt_cpu_lstm(grt_kernel_ctx* ctx) { return recurrent(ctx); }
