/* The GEMM engines behind MatMul and BatchMatMulV2 (see matmul_gemm.h).
 *
 * float32/float64 call OpenBLAS directly on the tensors' memory: nothing
 * is copied or converted. OpenBLAS runs single-threaded with its work
 * buffers checked for room first (blas_buffers.h); a large GEMM is split
 * into row blocks over the intra-op pool. Under the benchmark's DNNL_ONLY
 * (matmul_dnnl.h) float32 runs on oneDNN's dnnl_sgemm instead, in the same
 * blocks. Integer types use a row loop whose arithmetic is done in
 * unsigned types, so overflow wraps (as TensorFlow's Eigen kernels do in
 * practice) without undefined behaviour in C. */
#include "backends/cpu/matmul_gemm.h"

#include <dnnl.h>
#include <limits.h>
#include <omp.h>
#include <stdatomic.h>
#include <string.h>

#include "base/cancel.h"
#include "base/dtype.h"
#include "base/status.h"
#include "backends/cpu/blas_buffers.h"
#include "backends/cpu/dnnl_util.h"
#include "backends/cpu/matmul_dnnl.h"
#include "backends/cpu/openblas.h"

/* OpenBLAS runs GEMMs up to this many multiply-adds on one thread; below it
 * independent batch entries are worth spreading over the intra-op pool. */
#define kSmallGemm (64 * 64 * 64)

typedef grt_status* (*gemm_one_fn)(const grt_gemm_plan* p, const void* a, const void* b, void* c,
                                   grt_threadpool* pool);

/* Rows [i0, i1) of C from the matching rows of op(A): each BLAS call is
 * single-threaded (OpenBLAS: blas_buffers.h), so a large GEMM is split
 * into row blocks over grt's intra-op pool, one call per block. Blocks are
 * also kept to about kBlockMacs multiply-adds each (about 10 ms here), and a
 * cancelled or timed-out run stops between them: one OpenBLAS call cannot
 * be interrupted, so a big GEMM made of one call would hold a stopped run
 * for its whole length. */
enum { kBlockMacs = 1 << 28, kMinBlockRows = 256 };

typedef struct {
  const grt_gemm_plan* p;
  const void* a;
  const void* b;
  void* c;
  int64_t rows; /* per block */
  bool is_double;
  bool dnnl;                /* float32 on dnnl_sgemm, not OpenBLAS */
  _Atomic(grt_status*) err; /* the first block's failure */
} blas_job;

static void keep_first(_Atomic(grt_status*)* slot, grt_status* s) {
  grt_status* none = NULL;
  if (s && !atomic_compare_exchange_strong(slot, &none, s)) grt_status_free(s);
}

/* oneDNN's sgemm on one thread (the block is the unit of parallelism).
 * The benchmark's only: its first call kills the process when it cannot
 * allocate its kernels (DNNL.md), so the table never picks it. */
static grt_status* dnnl_block(const blas_job* j, int64_t i0, int64_t i1) {
  const grt_gemm_plan* p = j->p;
  const float* a = (const float*)j->a + (p->ta ? i0 : i0 * p->k);
  if (omp_get_max_threads() != 1) omp_set_num_threads(1);
  return grt_dnnl_check(dnnl_sgemm(p->ta ? 'T' : 'N', p->tb ? 'T' : 'N', i1 - i0, p->n, p->k, 1.0f,
                                   a, p->ta ? p->m : p->k, j->b, p->tb ? p->k : p->n, 0.0f,
                                   (float*)j->c + i0 * p->n, p->n),
                        "oneDNN sgemm");
}

static void one_block(const blas_job* j, int64_t i0, int64_t i1) {
  const grt_gemm_plan* p = j->p;
  CBLAS_TRANSPOSE ta = p->ta ? CblasTrans : CblasNoTrans, tb = p->tb ? CblasTrans : CblasNoTrans;
  blasint lda = (blasint)(p->ta ? p->m : p->k), ldb = (blasint)(p->tb ? p->k : p->n);
  if (j->is_double) {
    const double* a = (const double*)j->a + (p->ta ? i0 : i0 * p->k);
    grt_openblas.dgemm(CblasRowMajor, ta, tb, (blasint)(i1 - i0), (blasint)p->n, (blasint)p->k, 1.0,
                       a, lda, j->b, ldb, 0.0, (double*)j->c + i0 * p->n, (blasint)p->n);
  } else if (i1 - i0 == 1 && p->k > 0 && p->n > 0) {
    /* One row (batch-1 inference): OpenBLAS's GEMM would pack all of B
     * first; its GEMV reads B once, in place. c = op(B)^T a. (With k = 0
     * GEMV returns without writing c; GEMM zeroes it.) */
    const float* a = (const float*)j->a + (p->ta ? i0 : i0 * p->k);
    grt_openblas.sgemv(CblasRowMajor, p->tb ? CblasNoTrans : CblasTrans,
                       (blasint)(p->tb ? p->n : p->k), (blasint)(p->tb ? p->k : p->n), 1.0f, j->b,
                       ldb, a, (blasint)(p->ta ? p->m : 1), 0.0f, (float*)j->c + i0 * p->n, 1);
  } else {
    const float* a = (const float*)j->a + (p->ta ? i0 : i0 * p->k);
    grt_openblas.sgemm(CblasRowMajor, ta, tb, (blasint)(i1 - i0), (blasint)p->n, (blasint)p->k,
                       1.0f, a, lda, j->b, ldb, 0.0f, (float*)j->c + i0 * p->n, (blasint)p->n);
  }
}

/* dnnl_sgemm's blocks: no OpenBLAS buffer to make room for. */
static void dnnl_blocks(blas_job* j, int64_t first, int64_t last) {
  const grt_cancel_token* cancel = grt_cancel_current();
  for (int64_t blk = first; blk < last; blk++) {
    if (blk > first && grt_cancel_check(cancel) != GRT_OK) break;
    int64_t i0 = blk * j->rows, i1 = i0 + j->rows < j->p->m ? i0 + j->rows : j->p->m;
    grt_status* s = dnnl_block(j, i0, i1);
    if (s) {
      keep_first(&j->err, s);
      return;
    }
  }
}

static void gemm_blocks(void* arg, int64_t first, int64_t last) {
  blas_job* j = arg;
  if (j->dnnl) {
    dnnl_blocks(j, first, last);
    return;
  }
  grt_status* s = grt_blas_buffers_enter();
  if (s) {
    keep_first(&j->err, s);
    return;
  }
  /* The token grt_parallel_for (or the executor, inline) made current. */
  const grt_cancel_token* cancel = grt_cancel_current();
  for (int64_t blk = first; blk < last; blk++) {
    if (blk > first && grt_cancel_check(cancel) != GRT_OK) break;
    int64_t i0 = blk * j->rows, i1 = i0 + j->rows < j->p->m ? i0 + j->rows : j->p->m;
    one_block(j, i0, i1);
  }
  grt_blas_buffers_leave();
}

/* At least one block per thread of the pool and the caller, of whole
 * 16-row panels, none over about kBlockMacs unless that is under
 * kMinBlockRows rows (OpenBLAS packs B again for every call: a 2048^3 GEMM
 * single-threaded took 1.8% longer as 256-row calls than as one, 4.1% as
 * 128-row calls, best of 6 on a loaded 2-vCPU EPYC); one block (no split)
 * below kSmallGemm. */
static grt_status* blas_split(const grt_gemm_plan* p, const void* a, const void* b, void* c,
                              grt_threadpool* pool, bool is_double) {
  /* As many blocks as the team that runs them (grt_parallel_for runs its
   * shards on the caller's OpenMP team, sized as a oneDNN call's is): the
   * pool's size and the caller made three blocks for a team of two. */
  int threads = grt_dnnl_team_in(pool, (double)p->m * (double)p->n * (double)p->k);
  bool small = p->m * p->n * p->k <= kSmallGemm || p->m < 32;
  if (small) threads = 1;
  int64_t rows = (p->m + threads - 1) / threads;
  int64_t row_macs = p->n * p->k > 0 ? p->n * p->k : 1;
  int64_t cap = kBlockMacs / row_macs;
  if (cap < kMinBlockRows) cap = kMinBlockRows;
  if (!small && rows > cap) rows = cap;
  rows = (rows + 15) / 16 * 16;
  bool dnnl = !is_double && grt_matmul_pick_sgemm(p->m, p->k, p->n);
  blas_job j = {p, a, b, c, rows, is_double, dnnl, NULL};
  int64_t n_blocks = (p->m + rows - 1) / rows;
  if (n_blocks <= 1)
    gemm_blocks(&j, 0, 1);
  else
    grt_parallel_for_coarse(pool, n_blocks, rows * row_macs, gemm_blocks, &j);
  return atomic_load(&j.err);
}

static grt_status* sgemm_one(const grt_gemm_plan* p, const void* a, const void* b, void* c,
                             grt_threadpool* pool) {
  return blas_split(p, a, b, c, pool, false);
}

static grt_status* dgemm_one(const grt_gemm_plan* p, const void* a, const void* b, void* c,
                             grt_threadpool* pool) {
  return blas_split(p, a, b, c, pool, true);
}

typedef struct {
  const grt_gemm_plan* p;
  const void* a;
  const void* b;
  void* c;
} int_job;

/* Rows [i0, i1) of C, accumulated in place in i-k-j order (B's rows are
 * read contiguously unless tb). U is an unsigned type at least as wide as
 * int, so the products cannot overflow a signed int after promotion. */
#define INT_GEMM(NAME, T, U)                                                              \
  static void NAME##_rows(void* arg, int64_t i0, int64_t i1) {                            \
    const int_job* j = arg;                                                               \
    const grt_gemm_plan* p = j->p;                                                        \
    const T* a = j->a;                                                                    \
    const T* b = j->b;                                                                    \
    int64_t m = p->m, n = p->n, k = p->k;                                                 \
    for (int64_t i = i0; i < i1; i++) {                                                   \
      T* row = (T*)j->c + i * n;                                                          \
      for (int64_t x = 0; x < n; x++) row[x] = 0;                                         \
      for (int64_t q = 0; q < k; q++) {                                                   \
        U av = (U)a[p->ta ? q * m + i : i * k + q];                                       \
        if (p->tb) {                                                                      \
          for (int64_t x = 0; x < n; x++) row[x] = (T)((U)row[x] + av * (U)b[x * k + q]); \
        } else {                                                                          \
          const T* brow = b + q * n;                                                      \
          for (int64_t x = 0; x < n; x++) row[x] = (T)((U)row[x] + av * (U)brow[x]);      \
        }                                                                                 \
      }                                                                                   \
    }                                                                                     \
  }                                                                                       \
  static grt_status* NAME(const grt_gemm_plan* p, const void* a, const void* b, void* c,  \
                          grt_threadpool* pool) {                                         \
    int_job j = {p, a, b, c};                                                             \
    grt_parallel_for(pool, p->m, p->n * p->k + 1, NAME##_rows, &j);                       \
    return NULL;                                                                          \
  }

INT_GEMM(i16_gemm_one, int16_t, uint32_t)
INT_GEMM(i32_gemm_one, int32_t, uint32_t)
INT_GEMM(i64_gemm_one, int64_t, uint64_t)
#undef INT_GEMM

static const gemm_one_fn kEngines[GRT_NUM_DTYPES] = {
    [GRT_FLOAT32] = sgemm_one,  [GRT_FLOAT64] = dgemm_one,  [GRT_INT16] = i16_gemm_one,
    [GRT_INT32] = i32_gemm_one, [GRT_INT64] = i64_gemm_one,
};

/* A's batches laid out back to back in output order, so a B shared by all
 * batches lets the whole batch run as one tall GEMM. */
static bool x_is_dense(const grt_gemm_plan* p) {
  int64_t want = 1;
  for (int32_t d = p->brank - 1; d >= 0; d--) {
    if (p->bdims[d] > 1 && p->xstride[d] != want) return false;
    want *= p->bdims[d];
  }
  return true;
}

typedef struct {
  const grt_gemm_plan* p;
  gemm_one_fn fn;
  const char* a;
  const char* b;
  char* c;
  size_t esize;
  grt_threadpool* inner; /* pool for each GEMM's own rows (NULL inside a batch shard) */
  _Atomic(grt_status*) err;
} batch_job;

static void batch_shard(void* arg, int64_t begin, int64_t end) {
  batch_job* j = arg;
  const grt_gemm_plan* p = j->p;
  size_t a_mat = (size_t)(p->m * p->k) * j->esize, b_mat = (size_t)(p->k * p->n) * j->esize;
  size_t c_mat = (size_t)(p->m * p->n) * j->esize;
  /* Many small GEMMs each run inline without a check of their own. */
  const grt_cancel_token* cancel = grt_cancel_current();
  for (int64_t bi = begin; bi < end; bi++) {
    if (bi > begin && grt_cancel_check(cancel) != GRT_OK) return;
    int64_t rem = bi, xo = 0, yo = 0;
    for (int32_t d = p->brank - 1; d >= 0; d--) {
      int64_t i = rem % p->bdims[d];
      rem /= p->bdims[d];
      xo += i * p->xstride[d];
      yo += i * p->ystride[d];
    }
    grt_status* s = j->fn(p, j->a + (size_t)xo * a_mat, j->b + (size_t)yo * b_mat,
                          j->c + (size_t)bi * c_mat, j->inner);
    if (s) {
      keep_first(&j->err, s);
      return;
    }
  }
}

static grt_status* gemm_batches(const grt_gemm_plan* p, gemm_one_fn fn, const void* a,
                                const void* b, void* c, size_t esize, bool blas,
                                grt_threadpool* pool);

grt_status* grt_gemm_run(const grt_gemm_plan* p, grt_dtype dtype, const void* a, const void* b,
                         void* c, grt_threadpool* pool) {
  gemm_one_fn fn = grt_dtype_valid(dtype) ? kEngines[dtype] : NULL;
  if (!fn) return GRT_ERROR(UNIMPLEMENTED, "no CPU matrix multiply for %s", grt_dtype_name(dtype));
  size_t esize = grt_dtype_size(dtype);
  if (p->m == 0 || p->n == 0 || p->batch == 0) return NULL;
  if (p->k == 0) {
    memset(c, 0, (size_t)(p->batch * p->m * p->n) * esize);
    return NULL;
  }
  bool blas = dtype == GRT_FLOAT32 || dtype == GRT_FLOAT64;
  if (blas && (p->m > INT_MAX || p->n > INT_MAX || p->k > INT_MAX))
    return GRT_ERROR(UNIMPLEMENTED, "matrix dimensions %lld x %lld x %lld exceed BLAS's int range",
                     (long long)p->m, (long long)p->k, (long long)p->n);
  return gemm_batches(p, fn, a, b, c, esize, blas, pool);
}

static grt_status* gemm_batches(const grt_gemm_plan* p, gemm_one_fn fn, const void* a,
                                const void* b, void* c, size_t esize, bool blas,
                                grt_threadpool* pool) {
  bool y_shared = true;
  for (int32_t d = 0; d < p->brank; d++) y_shared &= p->ystride[d] == 0 || p->bdims[d] == 1;
  if (p->batch == 1 ||
      (y_shared && !p->ta && x_is_dense(p) && (!blas || p->m * p->batch <= INT_MAX))) {
    grt_gemm_plan tall = *p;
    tall.m = p->m * p->batch;
    tall.batch = 1;
    return fn(&tall, a, b, c, pool);
  }
  batch_job j = {p, fn, a, b, c, esize, pool, NULL};
  if (p->m * p->n * p->k <= kSmallGemm && pool) {
    j.inner = NULL;
    grt_parallel_for(pool, p->batch, p->m * p->n * p->k + 64, batch_shard, &j);
  } else {
    batch_shard(&j, 0, p->batch);
  }
  return atomic_load(&j.err);
}
