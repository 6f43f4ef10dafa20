/* Transpose: y.shape[i] = x.shape[perm[i]]. The permutation is simplified
 * first (size-1 dimensions dropped, input dimensions that stay neighbours
 * merged), so most real transposes become a batch of 2-D transposes, done
 * in cache-sized tiles; the rest is a strided gather. A permutation that
 * keeps every non-trivial dimension in place only reshapes, sharing x. */
#include <stdio.h>

#include "backends/cpu/array_kernels.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

/* kStrip columns make a unit of work with a row block: an NCHW image with
 * few channels going to NHWC ([3, 50176] per image: one row block) is then
 * cut into many units, not one per image. */
enum { kTile = 32, kStrip = 1024 };

/* A batch of R x C matrices transposed into C x R. */
typedef struct {
  const void* src;
  void* dst;
  int64_t rows, cols; /* R, C */
  int64_t row_blocks; /* ceil(R / kTile) */
  int64_t col_strips; /* ceil(C / kStrip) */
} t2d_job;

#define T2D(NAME, T)                                                         \
  static void NAME(void* arg, int64_t begin, int64_t end) {                  \
    const t2d_job* j = arg;                                                  \
    int64_t R = j->rows, C = j->cols, per_b = j->row_blocks * j->col_strips; \
    for (int64_t u = begin; u < end; u++) {                                  \
      int64_t b = u / per_b, rb = u % per_b / j->col_strips;                 \
      int64_t r0 = rb * kTile, r1 = r0 + kTile < R ? r0 + kTile : R;         \
      int64_t s0 = u % j->col_strips * kStrip;                               \
      int64_t s1 = s0 + kStrip < C ? s0 + kStrip : C;                        \
      const T* in = (const T*)j->src + b * R * C;                            \
      T* out = (T*)j->dst + b * R * C;                                       \
      for (int64_t c0 = s0; c0 < s1; c0 += kTile) {                          \
        int64_t c1 = c0 + kTile < s1 ? c0 + kTile : s1;                      \
        for (int64_t r = r0; r < r1; r++)                                    \
          for (int64_t c = c0; c < c1; c++) out[c * R + r] = in[r * C + c];  \
      }                                                                      \
    }                                                                        \
  }
T2D(t2d_1, uint8_t)
T2D(t2d_2, uint16_t)
T2D(t2d_4, uint32_t)
T2D(t2d_8, uint64_t)
#undef T2D

static void transpose_2d(grt_threadpool* pool, size_t esize, const void* src, void* dst,
                         int64_t batch, int64_t rows, int64_t cols) {
  void (*fn)(void*, int64_t, int64_t) = esize == 1   ? t2d_1
                                        : esize == 2 ? t2d_2
                                        : esize == 4 ? t2d_4
                                                     : t2d_8;
  t2d_job j = {src, dst, rows, cols, (rows + kTile - 1) / kTile, (cols + kStrip - 1) / kStrip};
  int64_t strip = cols < kStrip ? cols : kStrip;
  grt_parallel_for(pool, batch * j.row_blocks * j.col_strips, kTile * strip * 2 + 16, fn, &j);
}

/* The simplified problem: input dims in input order, and perm over them. */
typedef struct {
  int32_t rank;
  int64_t dims[GRT_MAX_RANK];
  int32_t perm[GRT_MAX_RANK];
} simple_perm;

static void simplify(const grt_shape* s, const int64_t* perm, simple_perm* out) {
  int32_t renum[GRT_MAX_RANK], p[GRT_MAX_RANK], n = 0, kept = 0;
  int64_t kdims[GRT_MAX_RANK];
  for (int32_t d = 0; d < s->rank; d++) {
    renum[d] = s->dims[d] == 1 ? -1 : kept;
    if (s->dims[d] != 1) kdims[kept++] = s->dims[d];
  }
  for (int32_t k = 0; k < s->rank; k++)
    if (renum[perm[k]] >= 0) p[n++] = renum[perm[k]];
  /* Runs of consecutive input dims in output order become one dim. */
  int32_t start[GRT_MAX_RANK], len[GRT_MAX_RANK], groups = 0;
  for (int32_t k = 0; k < n; k++) {
    if (k > 0 && p[k] == p[k - 1] + 1) {
      len[groups - 1]++;
      continue;
    }
    start[groups] = p[k];
    len[groups++] = 1;
  }
  /* A group's input position: how many groups start before it. */
  out->rank = groups;
  for (int32_t g = 0; g < groups; g++) {
    int32_t pos = 0;
    int64_t size = 1;
    for (int32_t h = 0; h < groups; h++) pos += start[h] < start[g];
    for (int32_t i = 0; i < len[g]; i++) size *= kdims[start[g] + i];
    out->perm[g] = pos;
    out->dims[pos] = size;
  }
}

static grt_status* read_perm(const grt_tensor* in, const grt_tensor* perm_t, int64_t* perm) {
  char buf[GRT_SHAPE_STR_MAX];
  int32_t rank = in->shape.rank;
  if (perm_t->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "perm must be rank 1, got shape %s",
                     grt_shape_str(&perm_t->shape, buf, sizeof buf));
  if (perm_t->shape.dims[0] != rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "transpose expects a vector of size %d. But input(1) is a vector of size %lld",
                     (int)rank, (long long)perm_t->shape.dims[0]);
  int32_t n;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(perm_t, "perm", perm, GRT_MAX_RANK, &n));
  bool seen[GRT_MAX_RANK] = {false};
  for (int32_t i = 0; i < rank; i++) {
    if (perm[i] < 0 || perm[i] >= rank)
      return GRT_ERROR(INVALID_ARGUMENT, "%lld is out of range [0 .. %d)", (long long)perm[i],
                       (int)rank);
    seen[perm[i]] = true;
  }
  for (int32_t i = 0; i < rank; i++)
    if (!seen[i]) {
      char list[GRT_MAX_RANK * 21 + 2];
      size_t at = 0;
      for (int32_t k = 0; k < rank; k++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%lld", k ? "," : "",
                               (long long)perm[k]);
      return GRT_ERROR(INVALID_ARGUMENT, "%d is missing from {%s}.", (int)i, list);
    }
  return NULL;
}

grt_status* grt_array_transpose(grt_kernel_ctx* ctx) {
  const grt_tensor *in, *perm_t;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &perm_t));
  int64_t perm[GRT_MAX_RANK];
  GRT_RETURN_IF_ERROR(read_perm(in, perm_t, perm));
  int32_t rank = in->shape.rank;
  grt_shape out_shape = {0};
  out_shape.rank = rank;
  for (int32_t i = 0; i < rank; i++) out_shape.dims[i] = in->shape.dims[perm[i]];

  simple_perm sp;
  simplify(&in->shape, perm, &sp);
  if (sp.rank <= 1) return grt_array_set_view(ctx, 0, in, &out_shape, 0);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &out_shape, &out));
  if (grt_shape_num_elements(&out_shape) == 0) return NULL;
  size_t esize = grt_dtype_size(in->dtype);
  const void* src = grt_tensor_data(in);
  void* dst = grt_tensor_data(out);
  if (sp.rank == 2) {
    transpose_2d(ctx->intra_op, esize, src, dst, 1, sp.dims[0], sp.dims[1]);
    return NULL;
  }
  if (sp.rank == 3 && sp.perm[0] == 0 && sp.perm[1] == 2 && sp.perm[2] == 1) {
    transpose_2d(ctx->intra_op, esize, src, dst, sp.dims[0], sp.dims[1], sp.dims[2]);
    return NULL;
  }
  grt_shape ss = grt_shape_make(sp.rank, sp.dims);
  int64_t in_strides[GRT_MAX_RANK], dims[GRT_MAX_RANK], strides[GRT_MAX_RANK];
  grt_array_strides(&ss, in_strides);
  for (int32_t i = 0; i < sp.rank; i++) {
    dims[i] = sp.dims[sp.perm[i]];
    strides[i] = in_strides[sp.perm[i]];
  }
  grt_array_gather(ctx->intra_op, esize, src, 0, sp.rank, dims, strides, dst);
  return NULL;
}
