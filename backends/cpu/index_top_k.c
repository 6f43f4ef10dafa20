/* TopKV2: the k largest entries of each row (the last axis), largest
 * first, equal values in index order (as TensorFlow's; `sorted` = false
 * may return them in any order, and grt sorts them anyway). NaN counts as
 * larger than every number; integers compare exactly (int64 beyond 2^53
 * too).
 *
 * Each row goes through a heap of its k best entries so far, worst at the
 * root: O(n log k) for any input (an insertion sort here was quadratic on
 * int64 rows), and a loop that checks the run's cancellation every
 * millisecond or so of work (work_meter.h), which one qsort of a
 * 40-million-element row could not. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/index_kernels.h"
#include "backends/cpu/work_meter.h"

typedef struct {
  double v;   /* floating types */
  int64_t iv; /* integer types, exact */
  int64_t i;  /* the column */
} entry;

/* Whether a ranks before b: larger first (NaN largest), then lower index. */
static bool before(const entry* a, const entry* b, bool integer) {
  if (integer) {
    if (a->iv != b->iv) return a->iv > b->iv;
  } else {
    bool an = isnan(a->v), bn = isnan(b->v);
    if (an != bn) return an;
    if (!an && a->v != b->v) return a->v > b->v;
  }
  return a->i < b->i;
}

/* The heap keeps its worst entry at h[0]: every parent ranks after its
 * children. */
static void sift_down(entry* h, int64_t size, int64_t at, bool integer) {
  entry cur = h[at];
  for (;;) {
    int64_t c = 2 * at + 1;
    if (c >= size) break;
    if (c + 1 < size && before(&h[c], &h[c + 1], integer)) c++; /* the worse child */
    if (!before(&cur, &h[c], integer)) break;
    h[at] = h[c];
    at = c;
  }
  h[at] = cur;
}

static void sift_up(entry* h, int64_t at, bool integer) {
  entry cur = h[at];
  while (at > 0) {
    int64_t parent = (at - 1) / 2;
    if (!before(&h[parent], &cur, integer)) break;
    h[at] = h[parent];
    at = parent;
  }
  h[at] = cur;
}

static entry load(grt_dtype t, const void* src, int64_t at, int64_t col, bool integer) {
  entry e = {0, 0, col};
  if (integer)
    e.iv = grt_dtype_load_int(t, src, at);
  else
    e.v = grt_dtype_load_double(t, src, at);
  return e;
}

/* The k best of row r into h[0..k), best first. False once the run stopped. */
static bool select_row(const grt_tensor* x, int64_t r, int64_t n, int64_t k, bool integer, entry* h,
                       grt_work_meter* meter) {
  const void* src = grt_tensor_data(x);
  /* log2(k) + 1: the most one sift can cost, in comparisons */
  int64_t depth = 1;
  for (int64_t s = k; s > 1; s >>= 1) depth++;
  for (int64_t j = 0; j < k; j++) {
    if (grt_work_meter_stop(meter, depth)) return false;
    h[j] = load(x->dtype, src, r * n + j, j, integer);
    sift_up(h, j, integer);
  }
  for (int64_t j = k; j < n; j++) {
    if (grt_work_meter_stop(meter, 1)) return false;
    entry e = load(x->dtype, src, r * n + j, j, integer);
    if (!before(&e, &h[0], integer)) continue;
    h[0] = e;
    if (grt_work_meter_stop(meter, depth)) return false;
    sift_down(h, k, 0, integer);
  }
  /* Heapsort's second half: the worst goes last, so h ends best first. */
  for (int64_t size = k; size > 1; size--) {
    if (grt_work_meter_stop(meter, depth)) return false;
    entry worst = h[0];
    h[0] = h[size - 1];
    h[size - 1] = worst;
    sift_down(h, size - 1, 0, integer);
  }
  return true;
}

grt_status* grt_index_top_k(grt_kernel_ctx* ctx) {
  for (int32_t i = 0; i < 2; i++)
    if (i >= ctx->n_inputs || !ctx->inputs[i]) return GRT_ERROR(INTERNAL, "input %d is missing", i);
  const grt_tensor *x = ctx->inputs[0], *kt = ctx->inputs[1];
  if (kt->shape.rank != 0) return GRT_ERROR(INVALID_ARGUMENT, "k must be 0-D");
  int64_t k = grt_dtype_load_int(kt->dtype, grt_tensor_data(kt), 0);
  if (k < 0) return GRT_ERROR(INVALID_ARGUMENT, "Need k >= 0, got %" PRId64, k);
  if (x->shape.rank < 1) return GRT_ERROR(INVALID_ARGUMENT, "input must be >= 1-D");
  int64_t n = x->shape.dims[x->shape.rank - 1];
  if (n < k)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "input must have at least k columns. Had %" PRId64 ", needed %" PRId64, n, k);
  const grt_attr_value* it = grt_kernel_attr(ctx, "index_type");
  grt_dtype itype = it ? it->u.t : GRT_INT32;
  grt_shape shape = x->shape;
  shape.dims[shape.rank - 1] = k;
  grt_tensor *vals, *inds;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &shape, &vals));
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 1, itype, &shape, &inds));
  int64_t rows = n ? grt_tensor_num_elements(x) / n : 0;
  if (k == 0 || rows == 0) return NULL;
  entry* h = grt_malloc((size_t)k * sizeof *h);
  if (!h) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for %" PRId64 " entries", k);
  bool integer = grt_dtype_is_integer(x->dtype);
  grt_work_meter meter = grt_work_meter_start();
  for (int64_t r = 0; r < rows; r++) {
    if (!select_row(x, r, n, k, integer, h, &meter)) {
      grt_free(h);
      return grt_work_meter_status(&meter);
    }
    for (int64_t j = 0; j < k; j++) {
      int64_t to = r * k + j;
      if (integer)
        grt_dtype_store_int(x->dtype, grt_tensor_data(vals), to, h[j].iv);
      else
        grt_dtype_store_double(x->dtype, grt_tensor_data(vals), to, h[j].v);
      grt_dtype_store_int(itype, grt_tensor_data(inds), to, h[j].i);
    }
  }
  grt_free(h);
  return NULL;
}
