/* _ScaledDotProductAttention (ops/defs_fused_seq.c): for each batch matrix,
 * softmax(scale * q k^T [+ mask]) v, without the [Sq, Sk] attention matrix
 * ever leaving the cache. The work is split into units of one batch index
 * and a tile of TQ query rows; a unit computes its TQ x Sk block of logits
 * (q-tile times K^T), scales it and adds the mask row by row, takes the
 * softmax of each row (its maximum subtracted first, so large logits do not
 * overflow; the division by the sum is left to the output row) and
 * multiplies the block by v. The units run in parallel on the intra-op
 * pool, each range with its own scratch: the block, and K^T laid out for
 * the product (copied once per batch index a range meets, at most a 1/TQ
 * share of a unit's work).
 *
 * The two products are one small register-blocked GEMM (small_gemm_W, in
 * GCC's generic vectors of the unit's target width) over row-major
 * operands: C = A B with B's rows contiguous, which is how K^T [D, Sk] and
 * v [Sk, Dv] are laid out. float32.
 *
 * The operands' rows need not be adjacent: each has a row stride, and the
 * output its own batch strides, so _PackedQKVAttention reads q, k and v
 * where the packed in-projection leaves them ([S, B, 3 * H * D]: a head's
 * rows 3 * B * H * D floats apart) and writes each head's rows into
 * [S, B, H * D], with no copy on either side. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_util.h"
#include "backends/cpu/nn.h"
#include "backends/cpu/vec_types.h"
#include "base/cancel.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

GRT_CPU_VECTORIZE

/* The products want fused multiply-adds: ISO C mode (-std=c11) turns
 * contraction off, and GRT_CPU_CLONES' "avx512f" and "avx2" targets do not
 * enable FMA. So a unit is compiled three times, for the x86-64-v4 and -v3
 * levels (both with FMA) and the baseline, and the kernel picks one per
 * call (unit_fn). The register block differs too: 4 rows x 32 columns (8
 * accumulators) where AVX-512 has 32 vector registers, 4 x 16 elsewhere
 * (8 ymm with AVX2: the wide block would spill). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC optimize("fp-contract=fast")
#define ATTN_X86 1
#endif

/* Query rows per unit: the block (TQ x Sk floats) stays in L2 for the
 * sequence lengths of the models (Sk of a few hundred to a few thousand). */
#define TQ 48
#define MR 4 /* rows of C per register block */
#define LANES 16
/* K^T's and the block's rows are padded to whole vectors of the widest. */
#define PAD 16

/* small_gemm_W: C[m x n] = A[m x kk] B[kk x n], rows lda / ldb / ldc
 * floats apart, in blocks of MR rows x 2 vectors (8 accumulators), then one
 * vector, then scalars. Always inlined, so it is compiled for the target
 * of the unit that calls it. */
#define SMALL_GEMM(W, VT)                                                                          \
  __attribute__((always_inline)) static inline void small_gemm_##W(                                \
      int64_t m, int64_t n, int64_t kk, const float* a, int64_t lda, const float* b, int64_t ldb,  \
      float* c, int64_t ldc) {                                                                     \
    int64_t i = 0;                                                                                 \
    for (; i + MR <= m; i += MR) {                                                                 \
      const float *a0 = a + i * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;               \
      int64_t j = 0;                                                                               \
      for (; j + 2 * W <= n; j += 2 * W) {                                                         \
        VT c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0}, c31 = {0}; \
        for (int64_t p = 0; p < kk; p++) {                                                         \
          const VT b0 = *(const VT*)(b + p * ldb + j), b1 = *(const VT*)(b + p * ldb + j + W);     \
          c00 += a0[p] * b0;                                                                       \
          c01 += a0[p] * b1;                                                                       \
          c10 += a1[p] * b0;                                                                       \
          c11 += a1[p] * b1;                                                                       \
          c20 += a2[p] * b0;                                                                       \
          c21 += a2[p] * b1;                                                                       \
          c30 += a3[p] * b0;                                                                       \
          c31 += a3[p] * b1;                                                                       \
        }                                                                                          \
        float* cr = c + i * ldc + j;                                                               \
        *(VT*)cr = c00;                                                                            \
        *(VT*)(cr + W) = c01;                                                                      \
        *(VT*)(cr + ldc) = c10;                                                                    \
        *(VT*)(cr + ldc + W) = c11;                                                                \
        *(VT*)(cr + 2 * ldc) = c20;                                                                \
        *(VT*)(cr + 2 * ldc + W) = c21;                                                            \
        *(VT*)(cr + 3 * ldc) = c30;                                                                \
        *(VT*)(cr + 3 * ldc + W) = c31;                                                            \
      }                                                                                            \
      for (; j + W <= n; j += W) {                                                                 \
        VT c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};                                                 \
        for (int64_t p = 0; p < kk; p++) {                                                         \
          const VT bv = *(const VT*)(b + p * ldb + j);                                             \
          c0 += a0[p] * bv;                                                                        \
          c1 += a1[p] * bv;                                                                        \
          c2 += a2[p] * bv;                                                                        \
          c3 += a3[p] * bv;                                                                        \
        }                                                                                          \
        float* cr = c + i * ldc + j;                                                               \
        *(VT*)cr = c0;                                                                             \
        *(VT*)(cr + ldc) = c1;                                                                     \
        *(VT*)(cr + 2 * ldc) = c2;                                                                 \
        *(VT*)(cr + 3 * ldc) = c3;                                                                 \
      }                                                                                            \
      for (int64_t r = 0; r < MR && j < n; r++) {                                                  \
        const float* ar = a + (i + r) * lda;                                                       \
        float* cr = c + (i + r) * ldc;                                                             \
        for (int64_t jj = j; jj < n; jj++) cr[jj] = 0;                                             \
        for (int64_t p = 0; p < kk; p++)                                                           \
          for (int64_t jj = j; jj < n; jj++) cr[jj] += ar[p] * b[p * ldb + jj];                    \
      }                                                                                            \
    }                                                                                              \
    /* The last m % MR rows, one at a time. */                                                     \
    for (; i < m; i++) {                                                                           \
      const float* ai = a + i * lda;                                                               \
      float* cr = c + i * ldc;                                                                     \
      int64_t j = 0;                                                                               \
      for (; j + W <= n; j += W) {                                                                 \
        VT c0 = {0};                                                                               \
        for (int64_t p = 0; p < kk; p++) c0 += ai[p] * *(const VT*)(b + p * ldb + j);              \
        *(VT*)(cr + j) = c0;                                                                       \
      }                                                                                            \
      for (int64_t jj = j; jj < n; jj++) cr[jj] = 0;                                               \
      for (int64_t p = 0; p < kk; p++)                                                             \
        for (int64_t jj = j; jj < n; jj++) cr[jj] += ai[p] * b[p * ldb + jj];                      \
    }                                                                                              \
  }
SMALL_GEMM(16, vf16)
SMALL_GEMM(8, vf8)
SMALL_GEMM(4, vf4)

/* Row s of n logits: s = s * scale + mask (mask stride ms: 0 broadcast,
 * 1 contiguous, or NULL), then e^(s - max); returns the sum. The max and
 * the sum in LANES independent accumulators, so the loops vectorise. */
__attribute__((always_inline)) static inline float softmax_row(float* s, int64_t n, float scale,
                                                               const float* mask, int64_t ms) {
  if (mask && ms == 1) {
    for (int64_t j = 0; j < n; j++) s[j] = s[j] * scale + mask[j];
  } else if (mask) {
    for (int64_t j = 0; j < n; j++) s[j] = s[j] * scale + mask[j * ms];
  } else {
    for (int64_t j = 0; j < n; j++) s[j] *= scale;
  }
  float lane[LANES];
  for (int k = 0; k < LANES; k++) lane[k] = s[0];
  int64_t j = 0;
  for (; j + LANES <= n; j += LANES)
    for (int k = 0; k < LANES; k++) lane[k] = s[j + k] > lane[k] ? s[j + k] : lane[k];
  float m = s[0];
  for (int k = 0; k < LANES; k++) m = lane[k] > m ? lane[k] : m;
  for (; j < n; j++) m = s[j] > m ? s[j] : m;
  for (j = 0; j < n; j++) s[j] = grt_cpu_expf(s[j] - m);
  for (int k = 0; k < LANES; k++) lane[k] = 0;
  for (j = 0; j + LANES <= n; j += LANES)
    for (int k = 0; k < LANES; k++) lane[k] += s[j + k];
  float sum = 0;
  for (int k = 0; k < LANES; k++) sum += lane[k];
  for (; j < n; j++) sum += s[j];
  return sum;
}

/* Where each operand's matrix for one output batch index starts: strides
 * in elements per batch dim of the output, 0 where the operand broadcasts. */
enum { Q, K, V, M, N_OPERANDS };

typedef struct attn_job {
  const float* x[N_OPERANDS]; /* x[M] NULL without a mask */
  float* out;
  int32_t brank;
  int64_t bdims[GRT_MAX_RANK];
  int64_t bstride[N_OPERANDS][GRT_MAX_RANK];
  int64_t ostride[GRT_MAX_RANK]; /* the output's, per batch dim */
  int64_t ld[N_OPERANDS - 1];    /* row strides of q, k (as laid out: adj_k or not), v */
  int64_t ldo;                   /* the output's row stride */
  bool copy_v;                   /* v's rows not adjacent: the product reads a copy */
  int64_t mq, mk;                /* the mask's strides over query rows and keys */
  int64_t sq, sk, d, dv;
  bool adj_k;
  float scale;
  int64_t tiles; /* query tiles per batch index */
  void (*unit)(const struct attn_job* j, int64_t unit, float* block, float* kt, int64_t* kt_batch);
  atomic_bool oom;
} attn_job;

/* small_gemm_W for a width known once inlined. */
#define GEMM(width, ...)                     \
  (width == 16  ? small_gemm_16(__VA_ARGS__) \
   : width == 8 ? small_gemm_8(__VA_ARGS__)  \
                : small_gemm_4(__VA_ARGS__))

/* The row stride of K^T and of the block: Sk rounded up to whole vectors,
 * the extra columns of K^T zero, so the first product has no column tail
 * (the extra logits are never read). */
static int64_t padded(int64_t sk) { return (sk + PAD - 1) / PAD * PAD; }

/* One unit, its products in vectors of `width` floats. kt holds K^T of the
 * k matrix at element offset kt_batch[0] (-1: none yet): the units of one
 * range mostly follow each other through one batch index's query tiles.
 * Where v's rows are strided (j->copy_v: _PackedQKVAttention's, 3 * B * E
 * floats apart), the second product reads a contiguous copy of v's matrix
 * instead, made after K^T (at offset kt_batch[1]) once per batch index:
 * read in place, its rows fall into a few of L1's 64 sets of 64 bytes
 * (E = 512: 6 KiB apart, two groups of sets; at B = 8, 48 KiB apart, one).
 * q's tile (4 rows at a time, read once per block) and the output's rows
 * are used in place: copying them too cost more than it saved
 * (bench/models/PROFILE.md). */
__attribute__((always_inline)) static inline void attention_unit(const attn_job* j, int64_t unit,
                                                                 float* block, float* kt,
                                                                 int64_t* kt_batch, int width) {
  const int64_t bi = unit / j->tiles, i0 = (unit % j->tiles) * TQ;
  const int64_t rows = j->sq - i0 < TQ ? j->sq - i0 : TQ;
  int64_t off[N_OPERANDS] = {0}, ooff = 0;
  int64_t b = bi;
  for (int32_t a = j->brank - 1; a >= 0; a--) {
    int64_t idx = b % j->bdims[a];
    b /= j->bdims[a];
    for (int o = 0; o < N_OPERANDS; o++) off[o] += idx * j->bstride[o][a];
    ooff += idx * j->ostride[a];
  }
  const int64_t sk = j->sk, skp = padded(sk), d = j->d, dv = j->dv;
  const int64_t ldq = j->ld[Q], ldk = j->ld[K], ldo = j->ldo;
  int64_t ldv = j->ld[V];
  const float* q = j->x[Q] + off[Q] + i0 * ldq;
  const float* k = j->x[K] + off[K];
  const float* v = j->x[V] + off[V];
  float* out = j->out + ooff + i0 * ldo;
  float* vc = kt + d * skp;
  if (j->copy_v) {
    if (kt_batch[1] != off[V]) {
      for (int64_t r = 0; r < sk; r++) memcpy(vc + r * dv, v + r * ldv, sizeof(float) * (size_t)dv);
      kt_batch[1] = off[V];
    }
    v = vc;
    ldv = dv;
  }
  if (kt_batch[0] != off[K]) {
    /* K^T [D, skp]: k transposed when it is [Sk, D], copied when [D, Sk]. */
    if (j->adj_k) {
      /* In blocks of PAD keys: each of K^T's rows gets a whole cache line
       * at a time, read from PAD rows of k that stay in L1. */
      for (int64_t r0 = 0; r0 < sk; r0 += PAD) {
        const int64_t nr = sk - r0 < PAD ? sk - r0 : PAD;
        for (int64_t c = 0; c < d; c++)
          for (int64_t r = 0; r < nr; r++) kt[c * skp + r0 + r] = k[(r0 + r) * ldk + c];
      }
    } else {
      for (int64_t c = 0; c < d; c++) memcpy(kt + c * skp, k + c * ldk, sizeof(float) * (size_t)sk);
    }
    for (int64_t c = 0; c < d; c++)
      for (int64_t r = sk; r < skp; r++) kt[c * skp + r] = 0;
    kt_batch[0] = off[K];
  }
  GEMM(width, rows, skp, d, q, ldq, kt, skp, block, skp);
  float inv[TQ];
  for (int64_t r = 0; r < rows; r++) {
    const float* m = j->x[M] ? j->x[M] + off[M] + (i0 + r) * j->mq : NULL;
    inv[r] = 1.0f / softmax_row(block + r * skp, sk, j->scale, m, j->mk);
  }
  GEMM(width, rows, dv, sk, block, skp, v, ldv, out, ldo);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < dv; c++) out[r * ldo + c] *= inv[r];
}

typedef void (*unit_fn)(const attn_job* j, int64_t unit, float* block, float* kt,
                        int64_t* kt_batch);

#ifdef ATTN_X86
__attribute__((target("arch=x86-64-v4"))) static void unit_v4(const attn_job* j, int64_t unit,
                                                              float* block, float* kt,
                                                              int64_t* kt_batch) {
  attention_unit(j, unit, block, kt, kt_batch, 16);
}
__attribute__((target("arch=x86-64-v3"))) static void unit_v3(const attn_job* j, int64_t unit,
                                                              float* block, float* kt,
                                                              int64_t* kt_batch) {
  attention_unit(j, unit, block, kt, kt_batch, 8);
}
#endif
static void unit_base(const attn_job* j, int64_t unit, float* block, float* kt, int64_t* kt_batch) {
  attention_unit(j, unit, block, kt, kt_batch, 4);
}

static int g_force_width; /* atomic; 0: the widest the CPU runs */

int grt_cpu_attention_force_width(int width) {
  if (!grt_cpu_vector_width_runs(width)) return -1;
  __atomic_store_n(&g_force_width, width, __ATOMIC_RELAXED);
  return 0;
}

static unit_fn pick_unit(void) {
#ifdef ATTN_X86
  int w = grt_cpu_vector_width(__atomic_load_n(&g_force_width, __ATOMIC_RELAXED));
  if (w == 16) return unit_v4;
  if (w == 8) return unit_v3;
#endif
  return unit_base;
}

static void attention_range(void* arg, int64_t u0, int64_t u1) {
  attn_job* j = arg;
  const int64_t skp = padded(j->sk);
  const int64_t v_copy = j->copy_v ? j->sk * j->dv : 0;
  float* block = malloc(sizeof(float) * (size_t)(skp * (TQ + j->d) + v_copy));
  if (!block) {
    atomic_store(&j->oom, true);
    return;
  }
  int64_t kt_batch[2] = {-1, -1};
  /* A unit is TQ query rows against every key: the run's cancellation is
   * checked between units, not by cutting ranges (each range transposes
   * K again). */
  const grt_cancel_token* cancel = grt_cancel_current();
  for (int64_t u = u0; u < u1; u++) {
    if (u > u0 && grt_cancel_check(cancel) != GRT_OK) break;
    j->unit(j, u, block, block + TQ * skp, kt_batch);
  }
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

/* Runs job j (operands, strides and sizes set) into `out`. */
static grt_status* run_job(grt_kernel_ctx* ctx, attn_job* j, grt_tensor* out) {
  int64_t batch = 1;
  for (int32_t a = 0; a < j->brank; a++) batch *= j->bdims[a];
  if (batch == 0 || j->sq == 0 || j->dv == 0) return NULL;
  if (j->sk == 0) { /* no keys: an empty product, zeros, as the decomposed graph gives */
    memset(grt_tensor_data(out), 0, sizeof(float) * (size_t)grt_tensor_num_elements(out));
    return NULL;
  }
  j->out = grt_tensor_data(out);
  j->tiles = (j->sq + TQ - 1) / TQ;
  j->unit = pick_unit();
  atomic_init(&j->oom, false);
  grt_parallel_for_coarse(ctx->intra_op, batch * j->tiles, TQ * j->sk * (j->d + j->dv + 8),
                          attention_range, j);
  if (atomic_load(&j->oom))
    return GRT_ERROR(RESOURCE_EXHAUSTED, "no memory for the attention's %lld x %lld scratch",
                     (long long)(TQ + j->d), (long long)padded(j->sk));
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
  for (int32_t a = 0; a < j.brank; a++) os.dims[a] = j.bdims[a];
  os.dims[j.brank] = j.sq;
  os.dims[j.brank + 1] = j.dv;
  /* Rows as laid out: q [Sq, D], k [Sk, D] or [D, Sk], v [Sk, Dv]; the
   * output's batch matrices one after another. */
  j.ld[Q] = j.d;
  j.ld[K] = adj_k ? j.d : j.sk;
  j.ld[V] = j.dv;
  j.ldo = j.dv;
  for (int64_t a = j.brank - 1, st = j.sq * j.dv; a >= 0; a--) {
    j.ostride[a] = st;
    st *= j.bdims[a];
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &os, &out));
  return run_job(ctx, &j, out);
}

/* _PackedQKVAttention: qkv [S, B, 3 * H * D]; head (b, h) is batch matrix
 * (b, h) of q, k and v at column offsets 0, H * D and 2 * H * D of each
 * row, rows 3 * B * H * D floats apart, k as [Sk, D] (adj_k). The output
 * [S, B * H, D] puts head (b, h)'s row s at (s, b * H + h). */
grt_status* grt_cpu_packed_attention(grt_kernel_ctx* ctx) {
  const grt_tensor* qkv = ctx->inputs[0];
  if (qkv->dtype != GRT_FLOAT32) return grt_cpu_no_kernel(ctx, qkv->dtype);
  float scale;
  int64_t heads;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_float(ctx, "scale", &scale));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "num_heads", &heads));
  const grt_shape* xs = &qkv->shape;
  if (xs->rank != 3 || heads < 1 || xs->dims[2] % (3 * heads) != 0) {
    char buf[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT,
                     "qkv %s must be [S, B, 3 * num_heads * D] with num_heads %lld",
                     grt_cpu_shape_str(xs, buf), (long long)heads);
  }
  const int64_t s = xs->dims[0], b = xs->dims[1], cols = xs->dims[2], e = cols / 3;
  const float* x = grt_tensor_data(qkv);
  attn_job j = {.x = {x, x + e, x + 2 * e, NULL}, .adj_k = true, .scale = scale};
  j.sq = j.sk = s;
  j.d = j.dv = e / heads;
  j.brank = 2;
  j.bdims[0] = b;
  j.bdims[1] = heads;
  for (int o = Q; o <= V; o++) {
    j.bstride[o][0] = cols;
    j.bstride[o][1] = j.d;
    j.ld[o] = b * cols;
  }
  j.ostride[0] = e;
  j.ostride[1] = j.d;
  j.ldo = b * e;
  j.copy_v = true;
  grt_shape os = {.rank = 3, .dims = {s, b * heads, j.d}};
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, GRT_FLOAT32, &os, &out));
  return run_job(ctx, &j, out);
}
