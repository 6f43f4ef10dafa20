/* Data-movement helpers shared by the array kernels (see array_kernels.h). */
#include <string.h>

#include "backends/cpu/array_kernels.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

grt_status* grt_array_input(const grt_kernel_ctx* ctx, int32_t i, const grt_tensor** out) {
  if (i >= ctx->n_inputs || !ctx->inputs[i])
    return GRT_ERROR(INTERNAL, "input %d was not provided", (int)i);
  *out = ctx->inputs[i];
  return NULL;
}

grt_status* grt_array_read_scalar(const grt_tensor* t, const char* what, int64_t* out) {
  if (!grt_dtype_is_integer(t->dtype))
    return GRT_ERROR(INVALID_ARGUMENT, "%s must be an integer tensor, got %s", what,
                     grt_dtype_name(t->dtype));
  if (grt_shape_num_elements(&t->shape) != 1) {
    char buf[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT, "'%s' must be a tensor with a single value, got shape %s",
                     what, grt_shape_str(&t->shape, buf, sizeof buf));
  }
  *out = grt_dtype_load_int(t->dtype, grt_tensor_data(t), 0);
  return NULL;
}

grt_status* grt_array_set_view(grt_kernel_ctx* ctx, int32_t k, const grt_tensor* in,
                               const grt_shape* shape, size_t byte_offset) {
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(
      grt_tensor_new_view(in->dtype, shape, in->buffer, in->offset + byte_offset, &t));
  grt_kernel_set_output(ctx, k, t);
  grt_tensor_free(t);
  return NULL;
}

void grt_array_strides(const grt_shape* s, int64_t* out) {
  int64_t st = 1;
  for (int32_t d = s->rank - 1; d >= 0; d--) {
    out[d] = st;
    st *= s->dims[d];
  }
}

bool grt_array_aligned(const grt_tensor* in, size_t byte_offset) {
  uintptr_t p = (uintptr_t)grt_tensor_data(in) + byte_offset;
  return p % GRT_TENSOR_ALIGNMENT == 0;
}

void grt_array_fill_elems(void* dst, int64_t n, const void* elem, size_t esize) {
  switch (esize) {
    case 1:
      memset(dst, *(const uint8_t*)elem, (size_t)n);
      return;
    case 2: {
      uint16_t v;
      memcpy(&v, elem, 2);
      for (int64_t i = 0; i < n; i++) ((uint16_t*)dst)[i] = v;
      return;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, elem, 4);
      for (int64_t i = 0; i < n; i++) ((uint32_t*)dst)[i] = v;
      return;
    }
    case 8: {
      uint64_t v;
      memcpy(&v, elem, 8);
      for (int64_t i = 0; i < n; i++) ((uint64_t*)dst)[i] = v;
      return;
    }
    default:
      for (int64_t i = 0; i < n; i++) memcpy((char*)dst + i * esize, elem, esize);
  }
}

/* ---- plain copies -------------------------------------------------------- */

typedef struct {
  char* dst;
  const char* src;
} copy_job;

enum { kCopyChunk = 1 << 16 };

static void copy_shard(void* arg, int64_t begin, int64_t end) {
  copy_job* j = arg;
  memcpy(j->dst + begin * kCopyChunk, j->src + begin * kCopyChunk,
         (size_t)(end - begin) * kCopyChunk);
}

void grt_array_copy(grt_threadpool* pool, void* dst, const void* src, size_t bytes) {
  size_t chunks = bytes / kCopyChunk;
  copy_job j = {dst, src};
  /* ~1 ns per 16 bytes */
  grt_parallel_for(pool, (int64_t)chunks, kCopyChunk / 16, copy_shard, &j);
  size_t done = chunks * kCopyChunk;
  if (bytes > done) memcpy((char*)dst + done, (const char*)src + done, bytes - done);
}

/* ---- strided gather ------------------------------------------------------ */

typedef struct {
  size_t esize;
  const char* src;
  int64_t base;
  int32_t rank; /* >= 1 after simplification */
  int64_t dims[GRT_MAX_RANK];
  int64_t strides[GRT_MAX_RANK];
  char* dst;
} gather_job;

/* One row of the innermost dimension. */
static void gather_row(const gather_job* j, int64_t off, char* out) {
  int64_t n = j->dims[j->rank - 1], s = j->strides[j->rank - 1];
  if (s == 1) {
    memcpy(out, j->src + off * (int64_t)j->esize, (size_t)n * j->esize);
    return;
  }
#define GATHER(T)                                     \
  do {                                                \
    const T* in = (const T*)j->src + off;             \
    T* o = (T*)out;                                   \
    for (int64_t i = 0; i < n; i++) o[i] = in[i * s]; \
  } while (0)
  switch (j->esize) {
    case 1:
      GATHER(uint8_t);
      return;
    case 2:
      GATHER(uint16_t);
      return;
    case 4:
      GATHER(uint32_t);
      return;
    case 8:
      GATHER(uint64_t);
      return;
    default:
      for (int64_t i = 0; i < n; i++)
        memcpy(out + i * j->esize, j->src + (off + i * s) * (int64_t)j->esize, j->esize);
  }
#undef GATHER
}

static void gather_shard(void* arg, int64_t begin, int64_t end) {
  const gather_job* j = arg;
  int32_t outer = j->rank - 1;
  int64_t idx[GRT_MAX_RANK] = {0};
  /* Position the odometer on row `begin`. */
  int64_t r = begin, off = j->base;
  for (int32_t d = outer - 1; d >= 0; d--) {
    idx[d] = r % j->dims[d];
    r /= j->dims[d];
    off += idx[d] * j->strides[d];
  }
  size_t row_bytes = (size_t)j->dims[outer] * j->esize;
  for (int64_t row = begin; row < end; row++) {
    gather_row(j, off, j->dst + (size_t)row * row_bytes);
    for (int32_t d = outer - 1; d >= 0; d--) {
      off += j->strides[d];
      if (++idx[d] < j->dims[d]) break;
      off -= idx[d] * j->strides[d];
      idx[d] = 0;
    }
  }
}

void grt_array_gather(grt_threadpool* pool, size_t esize, const void* src, int64_t base,
                      int32_t rank, const int64_t* dims, const int64_t* strides, void* dst) {
  gather_job j = {.esize = esize, .src = src, .base = base, .dst = dst};
  /* Drop size-1 dimensions and merge neighbours that are contiguous with
   * each other, so the inner loop runs as long as possible. */
  int64_t total = 1;
  for (int32_t d = 0; d < rank; d++) {
    total *= dims[d];
    if (dims[d] == 1) continue;
    if (j.rank > 0 && j.strides[j.rank - 1] == strides[d] * dims[d]) {
      j.dims[j.rank - 1] *= dims[d];
      j.strides[j.rank - 1] = strides[d];
      continue;
    }
    j.dims[j.rank] = dims[d];
    j.strides[j.rank] = strides[d];
    j.rank++;
  }
  if (total == 0) return;
  if (j.rank == 0) {
    j.rank = 1;
    j.dims[0] = 1;
    j.strides[0] = 1;
  }
  int64_t rows = total / j.dims[j.rank - 1];
  grt_parallel_for(pool, rows, j.dims[j.rank - 1] + 8, gather_shard, &j);
}

/* ---- joining and cutting rows ------------------------------------------- */

typedef struct {
  int32_t n;
  char* const* pieces;
  const size_t* piece_bytes;
  size_t row_bytes;
  char* whole;
  bool join;
} rows_job;

static void rows_shard(void* arg, int64_t begin, int64_t end) {
  const rows_job* j = arg;
  for (int64_t o = begin; o < end; o++) {
    char* w = j->whole + (size_t)o * j->row_bytes;
    for (int32_t i = 0; i < j->n; i++) {
      size_t b = j->piece_bytes[i];
      char* p = j->pieces[i] + (size_t)o * b;
      if (j->join)
        memcpy(w, p, b);
      else
        memcpy(p, w, b);
      w += b;
    }
  }
}

void grt_array_join_rows(grt_threadpool* pool, int64_t outer, int32_t n, char* const* pieces,
                         const size_t* piece_bytes, char* whole, bool join) {
  size_t row = 0;
  for (int32_t i = 0; i < n; i++) row += piece_bytes[i];
  if (outer <= 0 || row == 0) return;
  rows_job j = {n, pieces, piece_bytes, row, whole, join};
  if (outer == 1) {
    /* One row: the pieces are big contiguous blocks, copy each in parallel. */
    char* w = whole;
    for (int32_t i = 0; i < n; i++) {
      if (join)
        grt_array_copy(pool, w, pieces[i], piece_bytes[i]);
      else
        grt_array_copy(pool, pieces[i], w, piece_bytes[i]);
      w += piece_bytes[i];
    }
    return;
  }
  grt_parallel_for(pool, outer, (int64_t)(row / 16) + 8 * n, rows_shard, &j);
}
