/* Shape function of StridedSlice, following TensorFlow's two steps: the
 * sparse spec (one entry per begin/end/strides element, with ellipsis and
 * new-axis entries) is expanded to a dense spec with one entry per input
 * dimension, then each dense dimension's size is worked out. Dimensions
 * whose begin or end is not a known constant come out unknown. */
#include <stdint.h>

#include "ops/shape_fns.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

enum { kNewAxis = -1, kShrinkAxis = -2 };
enum { kMaxSparse = 32 }; /* TensorFlow's masks are 32-bit ints */

typedef struct masks {
  int64_t begin, end, ellipsis, new_axis, shrink;
} masks;

typedef struct dense_dim {
  int64_t begin, end, stride;
  bool begin_known, end_known, begin_masked, end_masked, shrink;
} dense_dim;

static bool bit(int64_t mask, int32_t i) { return (mask >> i) & 1; }

static grt_status* read_masks(const grt_shape_ctx* c, masks* m) {
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "begin_mask", &m->begin));
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "end_mask", &m->end));
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "ellipsis_mask", &m->ellipsis));
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "new_axis_mask", &m->new_axis));
  return grt_infer_attr_int(c, "shrink_axis_mask", &m->shrink);
}

/* Size of one dense dimension of extent `dim` (known). */
static grt_status* dense_size(const dense_dim* d, int64_t dim, int32_t i, int64_t* out) {
  if (d->shrink) {
    if (d->begin_known) {
      int64_t x = d->begin < 0 ? dim + d->begin : d->begin;
      if (x < 0 || x >= dim)
        return GRT_ERROR(INVALID_ARGUMENT, "slice index %lld of dimension %d out of bounds.",
                         (long long)d->begin, (int)i);
    }
    *out = 1;
    return NULL;
  }
  int64_t s = d->stride, interval;
  if (d->begin_masked && d->end_masked) {
    interval = s > 0 ? dim : -dim;
  } else if ((!d->begin_masked && !d->begin_known) || (!d->end_masked && !d->end_known)) {
    *out = -1;
    return NULL;
  } else {
    /* Valid index range for this direction; masked ends take its bounds,
     * others are made non-negative and clamped into it. */
    int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? dim : dim - 1;
    int64_t b, e;
    if (d->begin_masked)
      b = s > 0 ? lo : hi;
    else {
      b = d->begin < 0 ? dim + d->begin : d->begin;
      b = b < lo ? lo : b > hi ? hi : b;
    }
    if (d->end_masked)
      e = s > 0 ? hi : lo;
    else {
      e = d->end < 0 ? dim + d->end : d->end;
      e = e < lo ? lo : e > hi ? hi : e;
    }
    interval = e - b;
  }
  if (interval == 0 || ((interval < 0) != (s < 0)))
    *out = 0;
  else
    *out = interval / s + (interval % s != 0);
  return NULL;
}

grt_status* grt_infer_strided_slice(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 4, 1));
  for (int32_t i = 1; i <= 3; i++) GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, i, 1));
  masks m;
  GRT_RETURN_IF_ERROR(read_masks(c, &m));
  const grt_tensor *bt, *et, *st;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 1, &bt));
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 2, &et));
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 3, &st));
  const grt_shape* in = &c->input_shapes[0];
  if (!st || in->rank < 0) {
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  int64_t n = grt_infer_value_count(st);
  if ((bt && grt_infer_value_count(bt) != n) || (et && grt_infer_value_count(et) != n))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Expected begin, end, and strides to be 1D equal size tensors, but got %lld, "
                     "%lld and %lld values",
                     (long long)(bt ? grt_infer_value_count(bt) : -1),
                     (long long)(et ? grt_infer_value_count(et) : -1), (long long)n);
  if (n > kMaxSparse)
    return GRT_ERROR(INVALID_ARGUMENT, "%lld slice entries, above the supported %d", (long long)n,
                     kMaxSparse);

  int32_t ns = (int32_t)n, ellipsis_at = -1;
  for (int32_t i = 0; i < ns; i++) {
    if (!bit(m.ellipsis, i)) continue;
    if (ellipsis_at >= 0)
      return GRT_ERROR(INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
    ellipsis_at = i;
  }
  /* Without an ellipsis there is an implicit one at the end. */
  int32_t sparse = ns;
  if (ellipsis_at < 0) ellipsis_at = sparse++;

  int32_t rank = in->rank, full = 0, n_gather = 0;
  dense_dim dense[GRT_MAX_RANK] = {0};
  int32_t gather[kMaxSparse + GRT_MAX_RANK];
  for (int32_t i = 0; i < sparse; i++) {
    if (i == ellipsis_at) {
      int32_t new_after = 0;
      for (int32_t j = i + 1; j < ns; j++) new_after += bit(m.new_axis, j);
      int32_t next = rank - (sparse - i) + 1 + new_after;
      if (next > rank) next = rank;
      for (; full < next; full++) {
        dense[full] = (dense_dim){.stride = 1, .begin_masked = true, .end_masked = true};
        gather[n_gather++] = full;
      }
      continue;
    }
    if (bit(m.new_axis, i)) {
      gather[n_gather++] = kNewAxis;
      continue;
    }
    if (full >= rank)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "Index out of range using input dim %d; input has only %d dims", (int)full,
                       (int)rank);
    dense_dim* d = &dense[full];
    d->stride = grt_infer_value(st, i);
    if (d->stride == 0) return GRT_ERROR(INVALID_ARGUMENT, "strides[%d] must be non-zero", (int)i);
    d->begin_known = bt != NULL;
    d->end_known = et != NULL;
    d->begin = bt ? grt_infer_value(bt, i) : 0;
    d->end = et ? grt_infer_value(et, i) : 0;
    d->begin_masked = bit(m.begin, i);
    d->end_masked = bit(m.end, i);
    d->shrink = bit(m.shrink, i);
    if (d->shrink && d->stride < 0)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "only stride 1 allowed on non-range indexing (strides[%d])", (int)i);
    gather[n_gather++] = d->shrink ? kShrinkAxis : full;
    full++;
  }

  int64_t sizes[GRT_MAX_RANK];
  for (int32_t i = 0; i < full; i++) {
    if (in->dims[i] < 0)
      sizes[i] = -1;
    else
      GRT_RETURN_IF_ERROR(dense_size(&dense[i], in->dims[i], i, &sizes[i]));
  }
  /* Dense dims the spec did not reach (none when it is well formed) stay. */
  for (int32_t i = full; i < rank; i++) sizes[i] = in->dims[i];

  int64_t out[kMaxSparse + GRT_MAX_RANK];
  int32_t out_rank = 0;
  for (int32_t k = 0; k < n_gather; k++) {
    if (gather[k] == kShrinkAxis) continue;
    out[out_rank++] = gather[k] == kNewAxis ? 1 : sizes[gather[k]];
  }
  for (int32_t i = full; i < rank; i++) out[out_rank++] = sizes[i];
  return grt_infer_make(out_rank, out, &c->output_shapes[0]);
}
