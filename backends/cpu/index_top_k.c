/* TopKV2: the k largest entries of each row (the last axis), largest
 * first, equal values in index order (as TensorFlow's; `sorted` = false
 * may return them in any order, and grt sorts them anyway). NaN counts as
 * larger than every number. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/index_kernels.h"

typedef struct {
  double v;
  int64_t i;
} entry;

static int by_value_then_index(const void* pa, const void* pb) {
  const entry *a = pa, *b = pb;
  bool an = isnan(a->v), bn = isnan(b->v);
  if (an != bn) return an ? -1 : 1;
  if (!an && a->v != b->v) return a->v > b->v ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
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
  entry* e = grt_malloc((size_t)n * sizeof *e);
  if (!e) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for %" PRId64 " entries", n);
  const void* src = grt_tensor_data(x);
  bool integer = grt_dtype_is_integer(x->dtype);
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t j = 0; j < n; j++) {
      /* integers above 2^53 lose order in a double: compare those exactly */
      e[j].v = grt_dtype_load_double(x->dtype, src, r * n + j);
      e[j].i = j;
    }
    if (integer && x->dtype == GRT_INT64) {
      /* insertion by exact int64 value (stable) */
      for (int64_t a = 1; a < n; a++) {
        entry cur = e[a];
        int64_t cv = grt_dtype_load_int(x->dtype, src, r * n + cur.i);
        int64_t b = a - 1;
        while (b >= 0 && grt_dtype_load_int(x->dtype, src, r * n + e[b].i) < cv)
          e[b + 1] = e[b], b--;
        e[b + 1] = cur;
      }
    } else {
      qsort(e, (size_t)n, sizeof *e, by_value_then_index);
    }
    for (int64_t j = 0; j < k; j++) {
      int64_t from = r * n + e[j].i, to = r * k + j;
      if (integer)
        grt_dtype_store_int(x->dtype, grt_tensor_data(vals), to,
                            grt_dtype_load_int(x->dtype, src, from));
      else
        grt_dtype_store_double(x->dtype, grt_tensor_data(vals), to, e[j].v);
      grt_dtype_store_int(itype, grt_tensor_data(inds), to, e[j].i);
    }
  }
  grt_free(e);
  return NULL;
}
