/* The recurrent cells' element-wise arithmetic (nn_rnn.h), after the
 * driver's products: ONNX's equations for RNN, GRU and LSTM on one batch
 * row at a time, in place in the row's h R^T (so rows need no scratch of
 * their own and run in parallel), and ONNX's activation functions over
 * arrays (tanh, sigmoid and exp vectorisable: cpu_util.h). */
#include <math.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/nn_rnn.h"

GRT_CPU_VECTORIZE

typedef void (*act_fn)(float* x, int64_t n, float alpha, float beta);

static void relu(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
static void tanh_(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = grt_cpu_tanhf(x[i]);
}
static void sigmoid(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = 1.0f / (1.0f + grt_cpu_expf(-x[i]));
}
static void affine(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = alpha * x[i] + beta;
}
static void leaky_relu(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = x[i] >= 0.0f ? x[i] : alpha * x[i];
}
static void thresholded_relu(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = x[i] > alpha ? x[i] : 0.0f;
}
static void scaled_tanh(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = alpha * grt_cpu_tanhf(beta * x[i]);
}
static void hard_sigmoid(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = fmaxf(0.0f, fminf(1.0f, alpha * x[i] + beta));
}
static void elu(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = x[i] >= 0.0f ? x[i] : alpha * expm1f(x[i]);
}
static void softsign(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = x[i] / (1.0f + fabsf(x[i]));
}
/* log(1 + e^x), as x itself once e^x would overflow the sum's precision. */
static void softplus(float* x, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) x[i] = x[i] > 30.0f ? x[i] : log1pf(expf(x[i]));
}

static const act_fn kActs[GRT_RNN_N_ACTS] = {
    [GRT_RNN_RELU] = relu,
    [GRT_RNN_TANH] = tanh_,
    [GRT_RNN_SIGMOID] = sigmoid,
    [GRT_RNN_AFFINE] = affine,
    [GRT_RNN_LEAKY_RELU] = leaky_relu,
    [GRT_RNN_THRESHOLDED_RELU] = thresholded_relu,
    [GRT_RNN_SCALED_TANH] = scaled_tanh,
    [GRT_RNN_HARD_SIGMOID] = hard_sigmoid,
    [GRT_RNN_ELU] = elu,
    [GRT_RNN_SOFTSIGN] = softsign,
    [GRT_RNN_SOFTPLUS] = softplus,
};

void grt_rnn_activate(const grt_rnn_act* f, float* x, int64_t n) {
  kActs[f->fn](x, n, f->alpha, f->beta);
}

/* pre[j] += x[j] + bias[j], then clamped to [-clip, clip] when clip > 0. */
static void add_clip(float* pre, const float* x, const float* bias, int64_t n, float clip) {
  for (int64_t j = 0; j < n; j++) pre[j] += x[j] + bias[j];
  if (clip > 0.0f)
    for (int64_t j = 0; j < n; j++) pre[j] = fminf(clip, fmaxf(-clip, pre[j]));
}

static void clip_only(float* x, int64_t n, float clip) {
  if (clip > 0.0f)
    for (int64_t j = 0; j < n; j++) x[j] = fminf(clip, fmaxf(-clip, x[j]));
}

/* Ht = f(x Wi^T + H Ri^T + Wbi + Rbi) */
static void rnn_row(const grt_rnn_step* s, int64_t b) {
  int64_t H = s->H;
  float* pre = s->hr + b * s->hr_stride;
  add_clip(pre, s->xw[b], s->bias, H, s->a->clip);
  grt_rnn_activate(&s->acts[0], pre, H);
  float* h = s->h + b * H;
  for (int64_t j = 0; j < H; j++) h[j] = pre[j];
}

/* Gates i o f c; peepholes add P (.) C (the old C for i and f, the new one
 * for o); input_forget couples f = 1 - i. */
static void lstm_row(const grt_rnn_step* s, int64_t b) {
  int64_t H = s->H;
  float clip = s->a->clip;
  float *pre = s->hr + b * s->hr_stride, *h = s->h + b * H, *c = s->c + b * H;
  float *i = pre, *o = pre + H, *f = pre + 2 * H, *g = pre + 3 * H;
  const float* x = s->xw[b];
  for (int64_t j = 0; j < 4 * H; j++) pre[j] += x[j] + s->bias[j];
  if (s->peep)
    for (int64_t j = 0; j < H; j++) {
      i[j] += s->peep[j] * c[j];
      f[j] += s->peep[2 * H + j] * c[j];
    }
  clip_only(i, H, clip);
  clip_only(f, H, clip);
  clip_only(g, H, clip);
  grt_rnn_activate(&s->acts[0], i, H);
  if (s->a->input_forget)
    for (int64_t j = 0; j < H; j++) f[j] = 1.0f - i[j];
  else
    grt_rnn_activate(&s->acts[0], f, H);
  grt_rnn_activate(&s->acts[1], g, H);
  for (int64_t j = 0; j < H; j++) c[j] = f[j] * c[j] + i[j] * g[j];
  if (s->peep)
    for (int64_t j = 0; j < H; j++) o[j] += s->peep[H + j] * c[j];
  clip_only(o, H, clip);
  grt_rnn_activate(&s->acts[0], o, H);
  for (int64_t j = 0; j < H; j++) g[j] = c[j]; /* g is spent: h(C) goes there */
  grt_rnn_activate(&s->acts[2], g, H);
  for (int64_t j = 0; j < H; j++) h[j] = o[j] * g[j];
}

/* z and r from their pre-activations in the row's first 2H. */
static void gru_gates(const grt_rnn_step* s, float* pre, const float* x) {
  add_clip(pre, x, s->bias, 2 * s->H, s->a->clip);
  grt_rnn_activate(&s->acts[0], pre, 2 * s->H);
}

/* Ht = (1 - z) (.) g(hpre) + z (.) H, hpre in place. */
static void gru_update(const grt_rnn_step* s, const float* z, float* hpre, float* h) {
  clip_only(hpre, s->H, s->a->clip);
  grt_rnn_activate(&s->acts[1], hpre, s->H);
  for (int64_t j = 0; j < s->H; j++) h[j] = (1.0f - z[j]) * hpre[j] + z[j] * h[j];
}

/* linear_before_reset: hpre = x Wh^T + Wbh + r (.) (H Rh^T + Rbh). */
static void gru_lbr_row(const grt_rnn_step* s, int64_t b) {
  int64_t H = s->H;
  float *pre = s->hr + b * s->hr_stride, *hp = pre + 2 * H;
  const float* x = s->xw[b];
  gru_gates(s, pre, x);
  const float* r = pre + H;
  for (int64_t j = 0; j < H; j++)
    hp[j] = x[2 * H + j] + s->bias[2 * H + j] + r[j] * (hp[j] + (s->rb_h ? s->rb_h[j] : 0.0f));
  gru_update(s, pre, hp, s->h + b * H);
}

/* Otherwise: phase 0 makes z, r and rh = r (.) H; phase 1, after the
 * driver's hh = rh Rh^T, hpre = x Wh^T + hh + Wbh + Rbh (in rh's row). */
static void gru_row(const grt_rnn_step* s, int phase, int64_t b) {
  int64_t H = s->H;
  float *pre = s->hr + b * s->hr_stride, *h = s->h + b * H, *rh = s->rh + b * H;
  const float* x = s->xw[b];
  if (phase == 0) {
    gru_gates(s, pre, x);
    for (int64_t j = 0; j < H; j++) rh[j] = pre[H + j] * h[j];
    return;
  }
  const float* hh = s->hh + b * H;
  for (int64_t j = 0; j < H; j++) rh[j] = x[2 * H + j] + s->bias[2 * H + j] + hh[j];
  gru_update(s, pre, rh, h);
}

void grt_rnn_cell_rows(const grt_rnn_step* s, int phase, int64_t b0, int64_t b1) {
  for (int64_t b = b0; b < b1; b++) {
    if (!s->active[b]) continue;
    switch (s->a->cell) {
      case GRT_CELL_RNN:
        rnn_row(s, b);
        break;
      case GRT_CELL_LSTM:
        lstm_row(s, b);
        break;
      case GRT_CELL_GRU:
        if (s->a->linear_before_reset)
          gru_lbr_row(s, b);
        else
          gru_row(s, phase, b);
        break;
    }
  }
}
