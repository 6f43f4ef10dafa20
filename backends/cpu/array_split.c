/* Cutting along an axis: Split and Unpack, the reverse of ConcatV2/Pack.
 * When the cut is along the first non-trivial dimension (one outer row) and
 * each piece starts aligned, the pieces are views of the input, as
 * TensorFlow's Split and Unpack return sub-slices instead of copies. */
#include <stdlib.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/array_kernels.h"

/* Produces `n` outputs of `piece` shape, output k holding elements
 * [k * len, (k+1) * len) of the axis, for `outer` rows of `inner`. */
static grt_status* cut(grt_kernel_ctx* ctx, const grt_tensor* in, int32_t n, const grt_shape* piece,
                       int64_t outer, int64_t len, int64_t inner) {
  size_t esize = grt_dtype_size(in->dtype);
  size_t piece_bytes = (size_t)(len * inner) * esize;
  if (outer == 1) {
    bool aligned = true;
    for (int32_t k = 0; k < n && aligned; k++)
      aligned = grt_array_aligned(in, (size_t)k * piece_bytes);
    if (aligned || n == 1) {
      for (int32_t k = 0; k < n; k++)
        GRT_RETURN_IF_ERROR(grt_array_set_view(ctx, k, in, piece, (size_t)k * piece_bytes));
      return NULL;
    }
  }
  char** pieces = grt_malloc(sizeof *pieces * (size_t)n);
  size_t* bytes = grt_malloc(sizeof *bytes * (size_t)n);
  grt_status* s = NULL;
  if (!pieces || !bytes)
    s = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory splitting %d ways", (int)n);
  for (int32_t k = 0; k < n && !s; k++) {
    grt_tensor* t;
    s = grt_kernel_alloc_output(ctx, k, in->dtype, piece, &t);
    if (s) break;
    pieces[k] = grt_tensor_data(t);
    bytes[k] = piece_bytes;
  }
  if (!s) grt_array_join_rows(ctx->intra_op, outer, n, pieces, bytes, grt_tensor_data(in), false);
  grt_free(pieces);
  grt_free(bytes);
  return s;
}

static void outer_inner(const grt_shape* s, int32_t axis, int64_t* outer, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int32_t d = 0; d < axis; d++) *outer *= s->dims[d];
  for (int32_t d = axis + 1; d < s->rank; d++) *inner *= s->dims[d];
}

grt_status* grt_array_split(grt_kernel_ctx* ctx) {
  const grt_tensor *dim_t, *in;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &dim_t));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &in));
  int64_t split_dim;
  GRT_RETURN_IF_ERROR(grt_array_read_scalar(dim_t, "split_dim", &split_dim));
  int32_t n = ctx->n_outputs, rank = in->shape.rank;
  int64_t a = split_dim < 0 ? split_dim + rank : split_dim;
  if (a < 0 || a >= rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "-input rank(-%d) <= split_dim < input rank (%d), but got %lld", (int)rank,
                     (int)rank, (long long)split_dim);
  if (n < 1) return GRT_ERROR(INVALID_ARGUMENT, "num_split must be >= 1, got %d", (int)n);
  int64_t d = in->shape.dims[a];
  if (d % n != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Number of ways to split should evenly divide the split dimension, but got "
                     "split_dim %lld (size = %lld) and num_split %d",
                     (long long)a, (long long)d, (int)n);
  grt_shape piece = in->shape;
  piece.dims[a] = d / n;
  int64_t outer, inner;
  outer_inner(&in->shape, (int32_t)a, &outer, &inner);
  return cut(ctx, in, n, &piece, outer, d / n, inner);
}

grt_status* grt_array_unpack(grt_kernel_ctx* ctx) {
  const grt_tensor* in;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  int64_t axis;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "axis", &axis));
  int32_t n = ctx->n_outputs, rank = in->shape.rank;
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return GRT_ERROR(INVALID_ARGUMENT, "axis = %lld not in [%d, %d)", (long long)axis, -(int)rank,
                     (int)rank);
  char buf[GRT_SHAPE_STR_MAX];
  if (in->shape.dims[a] != n)
    return GRT_ERROR(INVALID_ARGUMENT, "Input shape axis %lld must equal %d, got shape %s",
                     (long long)a, (int)n, grt_shape_str(&in->shape, buf, sizeof buf));
  if (n == 0) return NULL;
  grt_shape piece = {0};
  for (int32_t d = 0; d < rank; d++)
    if (d != a) piece.dims[piece.rank++] = in->shape.dims[d];
  int64_t outer, inner;
  outer_inner(&in->shape, (int32_t)a, &outer, &inner);
  return cut(ctx, in, n, &piece, outer, 1, inner);
}
