/* _ScaledDotProductAttention (ops/defs_fused_seq.c): for each batch matrix,
 * softmax(scale * q k^T [+ mask]) v, without the [Sq, Sk] attention matrix
 * ever leaving the cache. The work is split into units of one batch index
 * and a tile of TQ query rows; a unit computes its TQ x Sk block of logits
 * (q-tile times K^T), scales it and adds the mask row by row, takes the
 * softmax of each row (its maximum subtracted first, so large logits do not
 * overflow; the division by the sum is left to the output row) and
 * multiplies the block by v. The units run in parallel on the intra-op
 * pool, each range with its own scratch (the block, and K^T when k comes
 * untransposed: copied once per unit, a 1/TQ share of the unit's work).
 *
 * The two products are one small register-blocked GEMM (4 rows x 16
 * columns of accumulators, GCC's generic vectors, so each target_clones
 * copy gets its own width: one zmm per row with AVX-512, two ymm with AVX2)
 * over row-major operands: C = A B with B's rows contiguous, which is how
 * K^T [D, Sk] and v [Sk, Dv] are laid out. float32. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/nn.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* Query rows per unit: the block (TQ x Sk floats) stays in L2 for the
 * sequence lengths of the models (Sk of a few hundred to a few thousand). */
#define TQ 32
#define MR 4  /* rows of C per register block */
#define NR 16 /* columns of C per register block: one vector */

typedef float vf __attribute__((vector_size(NR * sizeof(float)), aligned(4)));

/* C[m x n] = A[m x kk] B[kk x n], rows lda / ldb / ldc floats apart.
 * Always inlined, so it is compiled for each clone's target. */
__attribute__((always_inline)) static inline void small_gemm(int64_t m, int64_t n, int64_t kk,
                                                             const float* a, int64_t lda,
                                                             const float* b, int64_t ldb, float* c,
                                                             int64_t ldc) {
  int64_t i = 0;
  for (; i + MR <= m; i += MR) {
    const float *a0 = a + i * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    int64_t j = 0;
    for (; j + NR <= n; j += NR) {
      vf c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};
      for (int64_t p = 0; p < kk; p++) {
        const vf bv = *(const vf*)(b + p * ldb + j);
        c0 += a0[p] * bv;
        c1 += a1[p] * bv;
        c2 += a2[p] * bv;
        c3 += a3[p] * bv;
      }
      float* cr = c + i * ldc + j;
      *(vf*)(cr) = c0;
      *(vf*)(cr + ldc) = c1;
      *(vf*)(cr + 2 * ldc) = c2;
      *(vf*)(cr + 3 * ldc) = c3;
    }
    for (int64_t r = 0; r < MR && j < n; r++) {
      float* cr = c + (i + r) * ldc;
      for (int64_t jj = j; jj < n; jj++) cr[jj] = 0;
      for (int64_t p = 0; p < kk; p++)
        for (int64_t jj = j; jj < n; jj++) cr[jj] += a[(i + r) * lda + p] * b[p * ldb + jj];
    }
  }
  for (; i < m; i++) {
    float* cr = c + i * ldc;
    for (int64_t jj = 0; jj < n; jj++) cr[jj] = 0;
    for (int64_t p = 0; p < kk; p++) {
      const float av = a[i * lda + p];
      for (int64_t jj = 0; jj < n; jj++) cr[jj] += av * b[p * ldb + jj];
    }
  }
}

/* Row s of n logits: s = s * scale + mask (mask stride ms: 0 broadcast,
 * 1 contiguous, or NULL), then e^(s - max); returns the sum. */
__attribute__((always_inline)) static inline float softmax_row(float* s, int64_t n, float scale,
                                                               const float* mask, int64_t ms) {
  if (mask && ms == 1) {
    for (int64_t j = 0; j < n; j++) s[j] = s[j] * scale + mask[j];
  } else if (mask) {
    for (int64_t j = 0; j < n; j++) s[j] = s[j] * scale + mask[j * ms];
  } else {
    for (int64_t j = 0; j < n; j++) s[j] *= scale;
  }
  float m = s[0];
  for (int64_t j = 1; j < n; j++) m = s[j] > m ? s[j] : m;
  float sum = 0;
  for (int64_t j = 0; j < n; j++) {
    s[j] = grt_cpu_expf(s[j] - m);
    sum += s[j];
  }
  return sum;
}

/* Where each operand's matrix for one output batch index starts: strides
 * in elements per batch dim of the output, 0 where the operand broadcasts. */
enum { Q, K, V, M, N_OPERANDS };

typedef struct {
  const float* x[N_OPERANDS]; /* x[M] NULL without a mask */
  float* out;
  int32_t brank;
  int64_t bdims[GRT_MAX_RANK];
  int64_t bstride[N_OPERANDS][GRT_MAX_RANK];
  int64_t mq, mk; /* the mask's strides over query rows and keys */
  int64_t sq, sk, d, dv;
  bool adj_k;
  float scale;
  int64_t tiles; /* query tiles per batch index */
  atomic_bool oom;
} attn_job;

GRT_CPU_CLONES static void attention_unit(const attn_job* j, int64_t unit, float* block,
                                          float* kt) {
  int64_t b = unit / j->tiles, i0 = (unit % j->tiles) * TQ;
  int64_t rows = j->sq - i0 < TQ ? j->sq - i0 : TQ;
  int64_t off[N_OPERANDS] = {0};
  for (int32_t a = j->brank - 1; a >= 0; a--) {
    int64_t idx = b % j->bdims[a];
    b /= j->bdims[a];
    for (int o = 0; o < N_OPERANDS; o++) off[o] += idx * j->bstride[o][a];
  }
  const int64_t sk = j->sk, d = j->d, dv = j->dv;
  const float* q = j->x[Q] + off[Q] + i0 * d;
  const float* k = j->x[K] + off[K];
  const float* v = j->x[V] + off[V];
  if (j->adj_k) { /* k is [Sk, D]: K^T copied out, so B's rows are contiguous */
    for (int64_t r = 0; r < sk; r++)
      for (int64_t c = 0; c < d; c++) kt[c * sk + r] = k[r * d + c];
    k = kt;
  }
  small_gemm(rows, sk, d, q, d, k, sk, block, sk);
  float inv[TQ];
  for (int64_t r = 0; r < rows; r++) {
    const float* m = j->x[M] ? j->x[M] + off[M] + (i0 + r) * j->mq : NULL;
    inv[r] = 1.0f / softmax_row(block + r * sk, sk, j->scale, m, j->mk);
  }
  float* out = j->out + (unit / j->tiles) * j->sq * dv + i0 * dv;
  small_gemm(rows, dv, sk, block, sk, v, dv, out, dv);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < dv; c++) out[r * dv + c] *= inv[r];
}

static void attention_range(void* arg, int64_t u0, int64_t u1) {
  attn_job* j = arg;
  float* block = malloc(sizeof(float) * (size_t)(TQ * j->sk + (j->adj_k ? j->sk * j->d : 0)));
  if (!block) {
    atomic_store(&j->oom, true);
    return;
  }
  for (int64_t u = u0; u < u1; u++) attention_unit(j, u, block, block + TQ * j->sk);
  free(block);
}

/* Strides of operand `t`'s batch dims aligned to the output's last `brank`
 * batch dims; fails unless each dim is the output's or 1. */
static grt_status* batch_strides(const grt_tensor* t, const char* what, int32_t inner,
                                 const attn_job* j, int64_t* stride) {
  const grt_shape* s = &t->shape;
  int32_t trank = s->rank - inner;
  int64_t st = 1;
  for (int32_t i = s->rank - 1; i >= trank; i--) st *= s->dims[i];
  for (int32_t a = j->brank - 1, ti = trank - 1; a >= 0; a--, ti--) {
    int64_t dim = ti >= 0 ? s->dims[ti] : 1;
    if (dim != 1 && dim != j->bdims[a]) {
      char buf[GRT_SHAPE_STR_MAX];
      return GRT_ERROR(INVALID_ARGUMENT, "%s %s does not broadcast to the batch dims", what,
                       grt_cpu_shape_str(s, buf));
    }
    stride[a] = dim == 1 ? 0 : st;
    st *= dim;
  }
  return NULL;
}

grt_status* grt_cpu_attention(grt_kernel_ctx* ctx) {
  const grt_tensor *q = ctx->inputs[0], *k = ctx->inputs[1], *v = ctx->inputs[2];
  const grt_tensor* mask = ctx->n_inputs > 3 ? ctx->inputs[3] : NULL;
  for (int32_t i = 0; i < ctx->n_inputs; i++)
    if (ctx->inputs[i]->dtype != GRT_FLOAT32) return grt_cpu_no_kernel(ctx, ctx->inputs[i]->dtype);
  const grt_attr_value* adj = grt_kernel_attr(ctx, "adj_k");
  const bool adj_k = !adj || adj->type != GRT_ATTR_BOOL || adj->u.b; /* the op's default: true */
  float scale;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "scale", &scale));
  const grt_shape *qs = &q->shape, *ks = &k->shape, *vs = &v->shape;
  if (qs->rank < 2 || ks->rank < 2 || vs->rank < 2) {
    char bq[GRT_SHAPE_STR_MAX], bk[GRT_SHAPE_STR_MAX], bv[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT, "q %s, k %s and v %s must have rank >= 2",
                     grt_cpu_shape_str(qs, bq), grt_cpu_shape_str(ks, bk),
                     grt_cpu_shape_str(vs, bv));
  }
  attn_job j = {.x = {grt_tensor_data(q), grt_tensor_data(k), grt_tensor_data(v), NULL},
                .adj_k = adj_k,
                .scale = scale};
  j.sq = qs->dims[qs->rank - 2];
  j.d = qs->dims[qs->rank - 1];
  j.sk = ks->dims[ks->rank - (adj_k ? 2 : 1)];
  j.dv = vs->dims[vs->rank - 1];
  if (ks->dims[ks->rank - (adj_k ? 1 : 2)] != j.d || vs->dims[vs->rank - 2] != j.sk) {
    char bq[GRT_SHAPE_STR_MAX], bk[GRT_SHAPE_STR_MAX], bv[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT,
                     "q %s, k %s (adj_k=%s) and v %s: the depths of q and k or the key counts of "
                     "k and v differ",
                     grt_cpu_shape_str(qs, bq), grt_cpu_shape_str(ks, bk), adj_k ? "true" : "false",
                     grt_cpu_shape_str(vs, bv));
  }
  /* The output's batch dims: q's, k's and v's broadcast. */
  j.brank = qs->rank - 2;
  if (ks->rank - 2 > j.brank) j.brank = ks->rank - 2;
  if (vs->rank - 2 > j.brank) j.brank = vs->rank - 2;
  const grt_shape* ops[3] = {qs, ks, vs};
  for (int32_t a = 0; a < j.brank; a++) {
    j.bdims[a] = 1;
    for (int o = 0; o < 3; o++) {
      int32_t ti = a - (j.brank - (ops[o]->rank - 2));
      if (ti >= 0 && ops[o]->dims[ti] != 1) j.bdims[a] = ops[o]->dims[ti];
    }
  }
  static const char* const kNames[3] = {"q", "k", "v"};
  for (int o = 0; o < 3; o++)
    GRT_RETURN_IF_ERROR(batch_strides(ctx->inputs[o], kNames[o], 2, &j, j.bstride[o]));
  if (mask) {
    /* The mask broadcasts to [batch..., Sq, Sk]. */
    const grt_shape* ms = &mask->shape;
    int64_t mdim_q = ms->rank >= 2 ? ms->dims[ms->rank - 2] : 1;
    int64_t mdim_k = ms->rank >= 1 ? ms->dims[ms->rank - 1] : 1;
    if (ms->rank > j.brank + 2 || (mdim_q != 1 && mdim_q != j.sq) ||
        (mdim_k != 1 && mdim_k != j.sk)) {
      char buf[GRT_SHAPE_STR_MAX];
      return GRT_ERROR(INVALID_ARGUMENT,
                       "mask %s does not broadcast to the logits [..., %lld, %lld]",
                       grt_cpu_shape_str(ms, buf), (long long)j.sq, (long long)j.sk);
    }
    j.mk = mdim_k == 1 ? 0 : 1;
    j.mq = mdim_q == 1 ? 0 : mdim_k;
    int32_t inner = ms->rank < 2 ? ms->rank : 2;
    GRT_RETURN_IF_ERROR(batch_strides(mask, "mask", inner, &j, j.bstride[M]));
    j.x[M] = grt_tensor_data(mask);
  }
  grt_shape os = {.rank = j.brank + 2};
  int64_t batch = 1;
  for (int32_t a = 0; a < j.brank; a++) {
    os.dims[a] = j.bdims[a];
    batch *= j.bdims[a];
  }
  os.dims[j.brank] = j.sq;
  os.dims[j.brank + 1] = j.dv;
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &os, &out));
  if (batch == 0 || j.sq == 0 || j.dv == 0) return NULL;
  if (j.sk == 0) { /* no keys: an empty product, zeros, as the decomposed graph gives */
    memset(grt_tensor_data(out), 0, sizeof(float) * (size_t)grt_tensor_num_elements(out));
    return NULL;
  }
  j.out = grt_tensor_data(out);
  j.tiles = (j.sq + TQ - 1) / TQ;
  atomic_init(&j.oom, false);
  grt_parallel_for(ctx->intra_op, batch * j.tiles, TQ * j.sk * (j.d + j.dv + 8), attention_range,
                   &j);
  if (atomic_load(&j.oom))
    return GRT_ERROR(RESOURCE_EXHAUSTED, "no memory for the attention's %lld x %lld scratch",
                     (long long)TQ, (long long)j.sk);
  return NULL;
}
