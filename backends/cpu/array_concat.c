/* Joining along an axis: ConcatV2 and Pack. Both come down to `outer` rows
 * (the dimensions before the axis) in which each input contributes one
 * contiguous run of bytes. */
#include <stdlib.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/array_kernels.h"

enum { kMaxStackPieces = 64 };

/* Runs the join for inputs 0..n-1, each contributing `axis_len[i] * inner`
 * elements per row, into `out`. */
static grt_status* join(grt_kernel_ctx* ctx, int32_t n, int64_t outer, int64_t inner,
                        const int64_t* axis_len, grt_tensor* out) {
  char* stack_pieces[kMaxStackPieces];
  size_t stack_bytes[kMaxStackPieces];
  char** pieces = stack_pieces;
  size_t* bytes = stack_bytes;
  if (n > kMaxStackPieces) {
    pieces = grt_malloc(sizeof *pieces * (size_t)n);
    bytes = grt_malloc(sizeof *bytes * (size_t)n);
    if (!pieces || !bytes) {
      grt_free(pieces);
      grt_free(bytes);
      return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory joining %d inputs", (int)n);
    }
  }
  size_t esize = grt_dtype_size(out->dtype);
  for (int32_t i = 0; i < n; i++) {
    pieces[i] = grt_tensor_data(ctx->inputs[i]);
    bytes[i] = (size_t)(axis_len[i] * inner) * esize;
  }
  grt_array_join_rows(ctx->intra_op, outer, n, pieces, bytes, grt_tensor_data(out), true);
  if (pieces != stack_pieces) {
    grt_free(pieces);
    grt_free(bytes);
  }
  return NULL;
}

static grt_status* check_inputs(const grt_kernel_ctx* ctx, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    const grt_tensor* t;
    GRT_RETURN_IF_ERROR(grt_array_input(ctx, i, &t));
    if (t->dtype != ctx->inputs[0]->dtype)
      return GRT_ERROR(INVALID_ARGUMENT, "values[%d] is %s, values[0] is %s", (int)i,
                       grt_dtype_name(t->dtype), grt_dtype_name(ctx->inputs[0]->dtype));
  }
  return NULL;
}

grt_status* grt_array_concat_v2(grt_kernel_ctx* ctx) {
  int32_t n = ctx->n_inputs - 1;
  if (n < 1) return GRT_ERROR(INTERNAL, "ConcatV2 needs values and an axis");
  GRT_RETURN_IF_ERROR(check_inputs(ctx, n));
  const grt_tensor* axis_t;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, n, &axis_t));
  char sa[GRT_SHAPE_STR_MAX], sb[GRT_SHAPE_STR_MAX];
  if (axis_t->shape.rank != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Concat dim tensor should be a scalar integer, but got shape %s",
                     grt_shape_str(&axis_t->shape, sa, sizeof sa));
  int64_t axis;
  GRT_RETURN_IF_ERROR(grt_array_read_scalar(axis_t, "axis", &axis));
  const grt_shape* s0 = &ctx->inputs[0]->shape;
  int32_t rank = s0->rank;
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return GRT_ERROR(
        INVALID_ARGUMENT,
        "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld",
        -(int)rank, (int)rank, (long long)axis);
  int64_t lens_stack[kMaxStackPieces];
  int64_t* lens = n > kMaxStackPieces ? grt_malloc(sizeof *lens * (size_t)n) : lens_stack;
  if (!lens) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory joining %d inputs", (int)n);
  grt_shape out_shape = *s0;
  out_shape.dims[a] = 0;
  grt_status* s = NULL;
  for (int32_t i = 0; i < n && !s; i++) {
    const grt_shape* si = &ctx->inputs[i]->shape;
    if (si->rank != rank) {
      s = GRT_ERROR(INVALID_ARGUMENT,
                    "ConcatOp : Ranks of all input tensors should match: shape[0] = %s vs. "
                    "shape[%d] = %s",
                    grt_shape_str(s0, sa, sizeof sa), (int)i, grt_shape_str(si, sb, sizeof sb));
      break;
    }
    for (int32_t d = 0; d < rank; d++) {
      if (d != a && si->dims[d] != s0->dims[d]) {
        s = GRT_ERROR(INVALID_ARGUMENT,
                      "ConcatOp : Dimension %d in both shapes must be equal: shape[0] = %s vs. "
                      "shape[%d] = %s",
                      (int)d, grt_shape_str(s0, sa, sizeof sa), (int)i,
                      grt_shape_str(si, sb, sizeof sb));
        break;
      }
    }
    lens[i] = si->dims[a];
    out_shape.dims[a] += si->dims[a];
  }
  grt_tensor* out = NULL;
  if (!s) s = grt_kernel_alloc_output(ctx, 0, ctx->inputs[0]->dtype, &out_shape, &out);
  if (!s) {
    int64_t outer = 1, inner = 1;
    for (int32_t d = 0; d < a; d++) outer *= s0->dims[d];
    for (int32_t d = (int32_t)a + 1; d < rank; d++) inner *= s0->dims[d];
    s = join(ctx, n, outer, inner, lens, out);
  }
  if (lens != lens_stack) grt_free(lens);
  return s;
}

grt_status* grt_array_pack(grt_kernel_ctx* ctx) {
  int32_t n = ctx->n_inputs;
  if (n < 1) return GRT_ERROR(INTERNAL, "Pack needs at least one value");
  GRT_RETURN_IF_ERROR(check_inputs(ctx, n));
  int64_t axis;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "axis", &axis));
  const grt_shape* s0 = &ctx->inputs[0]->shape;
  int32_t rank = s0->rank + 1;
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return GRT_ERROR(INVALID_ARGUMENT, "axis = %lld not in [%d, %d)", (long long)axis, -(int)rank,
                     (int)rank);
  if (rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "the result would have rank %d, above the maximum %d",
                     (int)rank, GRT_MAX_RANK);
  char sa[GRT_SHAPE_STR_MAX], sb[GRT_SHAPE_STR_MAX];
  for (int32_t i = 1; i < n; i++)
    if (!grt_shape_equal(&ctx->inputs[i]->shape, s0))
      return GRT_ERROR(
          INVALID_ARGUMENT,
          "Shapes of all inputs must match: values[0].shape = %s != values[%d].shape = %s",
          grt_shape_str(s0, sa, sizeof sa), (int)i,
          grt_shape_str(&ctx->inputs[i]->shape, sb, sizeof sb));
  grt_shape out_shape = {0};
  out_shape.rank = rank;
  for (int32_t d = 0, k = 0; d < rank; d++) out_shape.dims[d] = d == a ? n : s0->dims[k++];
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, ctx->inputs[0]->dtype, &out_shape, &out));
  int64_t outer = 1, inner = 1;
  for (int32_t d = 0; d < a; d++) outer *= s0->dims[d];
  for (int32_t d = (int32_t)a; d < s0->rank; d++) inner *= s0->dims[d];
  int64_t ones_stack[kMaxStackPieces];
  int64_t* ones = n > kMaxStackPieces ? grt_malloc(sizeof *ones * (size_t)n) : ones_stack;
  if (!ones) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory joining %d inputs", (int)n);
  for (int32_t i = 0; i < n; i++) ones[i] = 1;
  grt_status* s = join(ctx, n, outer, inner, ones, out);
  if (ones != ones_stack) grt_free(ones);
  return s;
}
