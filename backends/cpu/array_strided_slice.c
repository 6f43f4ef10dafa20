/* StridedSlice, in TensorFlow's steps: the sparse spec (one entry per
 * begin/end/strides element, with ellipsis and new-axis entries) becomes a
 * dense spec with one entry per input dimension; each dense dimension's
 * begin/end is made canonical (negative indices counted from the end,
 * masked ends at the bounds, clamped) and its size worked out. The result is
 * a strided gather over the "processing shape", reshaped to the final shape
 * (new axes added, shrunk axes dropped). An identity slice, or whole rows of
 * dimension 0 starting aligned, shares the input instead. */
#include "backends/cpu/array_kernels.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

enum { kMaxSparse = 32 }; /* the masks are 32-bit */
enum { kNewAxis = -1, kShrinkAxis = -2 };

typedef struct {
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
} masks;

typedef struct {
  int64_t begin[GRT_MAX_RANK], end[GRT_MAX_RANK], stride[GRT_MAX_RANK];
  bool begin_masked[GRT_MAX_RANK], end_masked[GRT_MAX_RANK], shrink[GRT_MAX_RANK];
  /* For each final dimension: a dense index, kNewAxis or kShrinkAxis. */
  int32_t gather[kMaxSparse + GRT_MAX_RANK];
  int32_t n_gather;
} dense_spec;

static bool bit(int64_t m, int32_t i) { return (m >> i) & 1; }

static grt_status* read_masks(grt_kernel_ctx* ctx, masks* m) {
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "begin_mask", &m->begin_mask));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "end_mask", &m->end_mask));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "ellipsis_mask", &m->ellipsis_mask));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "new_axis_mask", &m->new_axis_mask));
  return grt_kernel_attr_int(ctx, "shrink_axis_mask", &m->shrink_mask);
}

static grt_status* build_dense(const masks* m, int32_t ns, const int64_t* b, const int64_t* e,
                               const int64_t* st, int32_t rank, dense_spec* d) {
  if (m->ellipsis_mask & (m->ellipsis_mask - 1))
    return GRT_ERROR(INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
  /* New axes after the ellipsis do not consume input dimensions. */
  int32_t new_after = 0;
  bool seen = false;
  for (int32_t i = 0; i < ns; i++) {
    if (seen && bit(m->new_axis_mask, i)) new_after++;
    if (bit(m->ellipsis_mask, i)) seen = true;
  }
  int64_t ellipsis = m->ellipsis_mask;
  int32_t sparse = ns;
  if (!seen) ellipsis |= (int64_t)1 << sparse++; /* an implicit one at the end */
  int32_t full = 0;
  d->n_gather = 0;
  for (int32_t i = 0; i < sparse; i++) {
    if (bit(ellipsis, i)) {
      int32_t next = rank - (sparse - i) + 1 + new_after;
      if (next > rank) next = rank;
      for (; full < next; full++) {
        d->begin[full] = d->end[full] = 0;
        d->stride[full] = 1;
        d->begin_masked[full] = d->end_masked[full] = true;
        d->shrink[full] = false;
        d->gather[d->n_gather++] = full;
      }
    } else if (bit(m->new_axis_mask, i)) {
      d->gather[d->n_gather++] = kNewAxis;
    } else {
      if (full == rank)
        return GRT_ERROR(INVALID_ARGUMENT,
                         "Index out of range using input dim %d; input has only %d dims", (int)full,
                         (int)rank);
      d->begin[full] = b[i];
      d->end[full] = e[i];
      d->stride[full] = st[i];
      d->begin_masked[full] = bit(m->begin_mask, i);
      d->end_masked[full] = bit(m->end_mask, i);
      d->shrink[full] = bit(m->shrink_mask, i);
      d->gather[d->n_gather++] = d->shrink[full] ? kShrinkAxis : full;
      full++;
    }
  }
  /* A well-formed spec reaches every dimension; any left take everything. */
  for (; full < rank; full++) {
    d->begin[full] = d->end[full] = 0;
    d->stride[full] = 1;
    d->begin_masked[full] = d->end_masked[full] = true;
    d->shrink[full] = false;
    d->gather[d->n_gather++] = full;
  }
  return NULL;
}

/* An index made canonical for dimension size `dim`: c = 0 for begin, 1 for end. */
static int64_t canonical(int64_t x, int c, bool masked, int64_t stride, int64_t dim) {
  int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
  if (masked) return (stride > 0) == (c == 0) ? lo : hi;
  int64_t f = x < 0 ? dim + x : x;
  return f < lo ? lo : f > hi ? hi : f;
}

grt_status* grt_array_strided_slice(grt_kernel_ctx* ctx) {
  const grt_tensor *in, *bt, *et, *stt;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &bt));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 2, &et));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 3, &stt));
  char s1[GRT_SHAPE_STR_MAX], s2[GRT_SHAPE_STR_MAX], s3[GRT_SHAPE_STR_MAX];
  if (bt->shape.rank != 1 || et->shape.rank != 1 || stt->shape.rank != 1 ||
      bt->shape.dims[0] != et->shape.dims[0] || bt->shape.dims[0] != stt->shape.dims[0])
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Expected begin, end, and strides to be 1D equal size tensors, but got "
                     "shapes %s, %s, and %s instead.",
                     grt_shape_str(&bt->shape, s1, sizeof s1),
                     grt_shape_str(&et->shape, s2, sizeof s2),
                     grt_shape_str(&stt->shape, s3, sizeof s3));
  int64_t b[kMaxSparse], e[kMaxSparse], st[kMaxSparse];
  int32_t ns;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(bt, "begin", b, kMaxSparse, &ns));
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(et, "end", e, kMaxSparse, &ns));
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(stt, "strides", st, kMaxSparse, &ns));
  masks m;
  GRT_RETURN_IF_ERROR(read_masks(ctx, &m));
  int32_t rank = in->shape.rank;
  dense_spec d;
  d.n_gather = 0;
  GRT_RETURN_IF_ERROR(build_dense(&m, ns, b, e, st, rank, &d));

  int64_t proc[GRT_MAX_RANK];
  bool identity = true, dim0_only = true;
  for (int32_t i = 0; i < rank; i++) {
    int64_t dim = in->shape.dims[i], s = d.stride[i];
    if (s == 0) return GRT_ERROR(INVALID_ARGUMENT, "strides[%d] must be non-zero", (int)i);
    if (d.shrink[i] && s <= 0)
      return GRT_ERROR(INVALID_ARGUMENT, "only stride 1 allowed on non-range indexing.");
    if (d.shrink[i]) {
      /* foo[-1] arrives as begin -1, end 0: rebuild end as begin + 1. */
      int64_t x = d.begin[i] < 0 ? dim + d.begin[i] : d.begin[i];
      if (x < 0 || x >= dim)
        return GRT_ERROR(INVALID_ARGUMENT, "slice index %lld of dimension %d out of bounds.",
                         (long long)d.begin[i], (int)i);
      d.begin[i] = x;
      d.end[i] = x + 1;
    } else {
      d.begin[i] = canonical(d.begin[i], 0, d.begin_masked[i], s, dim);
      d.end[i] = canonical(d.end[i], 1, d.end_masked[i], s, dim);
    }
    bool whole = s == 1 && d.begin[i] == 0 && d.end[i] == dim;
    identity &= whole;
    dim0_only &= (i == 0 && s == 1) || whole;
    int64_t interval = d.end[i] - d.begin[i];
    if (interval == 0 || ((interval < 0) != (s < 0)))
      proc[i] = 0;
    else
      proc[i] = interval / s + (interval % s != 0);
  }

  grt_shape out_shape = {0};
  for (int32_t k = 0; k < d.n_gather; k++) {
    if (d.gather[k] == kShrinkAxis) continue;
    if (out_shape.rank == GRT_MAX_RANK)
      return GRT_ERROR(INVALID_ARGUMENT, "the result would have rank above the maximum %d",
                       GRT_MAX_RANK);
    out_shape.dims[out_shape.rank++] = d.gather[k] == kNewAxis ? 1 : proc[d.gather[k]];
  }
  if (identity) return grt_array_set_view(ctx, 0, in, &out_shape, 0);

  int64_t in_strides[GRT_MAX_RANK], strides[GRT_MAX_RANK], base = 0;
  grt_array_strides(&in->shape, in_strides);
  for (int32_t i = 0; i < rank; i++) {
    base += d.begin[i] * in_strides[i];
    strides[i] = in_strides[i] * d.stride[i];
  }
  size_t esize = grt_dtype_size(in->dtype);
  if (dim0_only && grt_shape_num_elements(&out_shape) > 0 &&
      grt_array_aligned(in, (size_t)base * esize))
    return grt_array_set_view(ctx, 0, in, &out_shape, (size_t)base * esize);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &out_shape, &out));
  grt_array_gather(ctx->intra_op, esize, grt_tensor_data(in), base, rank, proc, strides,
                   grt_tensor_data(out));
  return NULL;
}
