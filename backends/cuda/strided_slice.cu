// StridedSlice on the GPU, in TensorFlow's steps as the CPU kernel takes
// them: the sparse spec (one entry per begin/end/strides element, with
// ellipsis and new-axis entries) becomes a dense spec with one entry per
// input dimension; each dimension's begin/end is made canonical (negative
// indices from the end, masked ends at the bounds, clamped) and its size
// worked out; the result is one box (box_copy.cuh) over that processing
// shape with the input's strides times the slice's (negative strides walk
// backwards), written contiguously in the final shape (new axes added,
// shrunk axes dropped). begin/end/strides are host memory.
//
// tests/gpu/gpu_suite_ops.cc compares it with the CPU (an H200 so far: tests/gpu/runs).
#include "box_copy.cuh"

namespace grt_cuda {
namespace {

enum { kMaxSparse = 32 };  // the masks are 32-bit
enum { kNewAxis = -1, kShrinkAxis = -2 };

struct Masks {
  int64_t begin, end, ellipsis, new_axis, shrink;
};

struct DenseSpec {
  int64_t begin[GRT_MAX_RANK], end[GRT_MAX_RANK], stride[GRT_MAX_RANK];
  bool begin_masked[GRT_MAX_RANK], end_masked[GRT_MAX_RANK], shrink[GRT_MAX_RANK];
  int32_t gather[kMaxSparse +
                 GRT_MAX_RANK];  // per final dimension: a dense index, kNewAxis or kShrinkAxis
  int32_t n_gather;
};

bool Bit(int64_t m, int32_t i) { return (m >> i) & 1; }

void TakeAll(DenseSpec* d, int32_t full) {
  d->begin[full] = d->end[full] = 0;
  d->stride[full] = 1;
  d->begin_masked[full] = d->end_masked[full] = true;
  d->shrink[full] = false;
  d->gather[d->n_gather++] = full;
}

grt_status* BuildDense(const Masks& m, int32_t ns, const int64_t* b, const int64_t* e,
                       const int64_t* st, int32_t rank, DenseSpec* d) {
  if (m.ellipsis & (m.ellipsis - 1))
    return grt_status_new(GRT_INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
  // New axes after the ellipsis do not consume input dimensions.
  int32_t new_after = 0;
  bool seen = false;
  for (int32_t i = 0; i < ns; i++) {
    if (seen && Bit(m.new_axis, i)) new_after++;
    if (Bit(m.ellipsis, i)) seen = true;
  }
  int64_t ellipsis = m.ellipsis;
  int32_t sparse = ns;
  if (!seen) ellipsis |= (int64_t)1 << sparse++;  // an implicit one at the end
  int32_t full = 0;
  d->n_gather = 0;
  for (int32_t i = 0; i < sparse; i++) {
    if (Bit(ellipsis, i)) {
      int32_t next = rank - (sparse - i) + 1 + new_after;
      if (next > rank) next = rank;
      for (; full < next; full++) TakeAll(d, full);
    } else if (Bit(m.new_axis, i)) {
      d->gather[d->n_gather++] = kNewAxis;
    } else {
      if (full == rank)
        return grt_status_new(GRT_INVALID_ARGUMENT,
                              "Index out of range using input dim %d; input has only %d dims",
                              (int)full, (int)rank);
      d->begin[full] = b[i];
      d->end[full] = e[i];
      d->stride[full] = st[i];
      d->begin_masked[full] = Bit(m.begin, i);
      d->end_masked[full] = Bit(m.end, i);
      d->shrink[full] = Bit(m.shrink, i);
      d->gather[d->n_gather++] = d->shrink[full] ? kShrinkAxis : full;
      full++;
    }
  }
  for (; full < rank; full++) TakeAll(d, full);  // any left take everything
  return NULL;
}

// An index made canonical for a dimension of size dim: c = 0 for begin, 1 for end.
int64_t Canonical(int64_t x, int c, bool masked, int64_t stride, int64_t dim) {
  int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
  if (masked) return (stride > 0) == (c == 0) ? lo : hi;
  int64_t f = x < 0 ? dim + x : x;
  return f < lo ? lo : f > hi ? hi : f;
}

grt_status* ReadSpec(const grt_tensor* t, const char* what, int64_t* out, int32_t* n) {
  if (!IsIndexType(grt_tensor_dtype(t)) || grt_tensor_rank(t) != 1)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s must be an int32/int64 vector", what);
  int64_t len = grt_tensor_dim(t, 0);
  if (len > kMaxSparse)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s has %lld elements, at most %d are supported",
                          what, (long long)len, kMaxSparse);
  for (int64_t i = 0; i < len; i++) out[i] = HostInt(t, i);
  *n = (int32_t)len;
  return NULL;
}

grt_status* StridedSliceCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  int64_t b[kMaxSparse], e[kMaxSparse], st[kMaxSparse];
  int32_t nb = 0, ne = 0, ns = 0;
  grt_status* s = ReadSpec(ctx->inputs[1], "begin", b, &nb);
  if (!s) s = ReadSpec(ctx->inputs[2], "end", e, &ne);
  if (!s) s = ReadSpec(ctx->inputs[3], "strides", st, &ns);
  if (s) return s;
  if (nb != ne || nb != ns)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "Expected begin, end, and strides to be 1D equal size tensors, but got "
                          "sizes %d, %d, and %d instead.",
                          (int)nb, (int)ne, (int)ns);
  Masks m;
  if ((s = grt_kernel_attr_int(ctx, "begin_mask", &m.begin)) ||
      (s = grt_kernel_attr_int(ctx, "end_mask", &m.end)) ||
      (s = grt_kernel_attr_int(ctx, "ellipsis_mask", &m.ellipsis)) ||
      (s = grt_kernel_attr_int(ctx, "new_axis_mask", &m.new_axis)) ||
      (s = grt_kernel_attr_int(ctx, "shrink_axis_mask", &m.shrink)))
    return s;
  grt_shape in = ShapeOf(x);
  DenseSpec d;
  if ((s = BuildDense(m, ns, b, e, st, in.rank, &d))) return s;

  int64_t proc[GRT_MAX_RANK];
  for (int32_t i = 0; i < in.rank; i++) {
    int64_t dim = in.dims[i], k = d.stride[i];
    if (k == 0) return grt_status_new(GRT_INVALID_ARGUMENT, "strides[%d] must be non-zero", (int)i);
    if (d.shrink[i] && k <= 0)
      return grt_status_new(GRT_INVALID_ARGUMENT, "only stride 1 allowed on non-range indexing.");
    if (d.shrink[i]) {
      // foo[-1] arrives as begin -1, end 0: rebuild end as begin + 1.
      int64_t v = d.begin[i] < 0 ? dim + d.begin[i] : d.begin[i];
      if (v < 0 || v >= dim)
        return grt_status_new(GRT_INVALID_ARGUMENT,
                              "slice index %lld of dimension %d out of bounds.",
                              (long long)d.begin[i], (int)i);
      d.begin[i] = v;
      d.end[i] = v + 1;
    } else {
      d.begin[i] = Canonical(d.begin[i], 0, d.begin_masked[i], k, dim);
      d.end[i] = Canonical(d.end[i], 1, d.end_masked[i], k, dim);
    }
    int64_t interval = d.end[i] - d.begin[i];
    proc[i] = interval == 0 || ((interval < 0) != (k < 0)) ? 0 : interval / k + (interval % k != 0);
  }
  grt_shape out = {0, {0}};
  for (int32_t k = 0; k < d.n_gather; k++) {
    if (d.gather[k] == kShrinkAxis) continue;
    if (out.rank == GRT_MAX_RANK)
      return grt_status_new(GRT_INVALID_ARGUMENT, "the result would have rank above the maximum %d",
                            GRT_MAX_RANK);
    out.dims[out.rank++] = d.gather[k] == kNewAxis ? 1 : proc[d.gather[k]];
  }
  grt_tensor* y;
  if ((s = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(x), &out, &y))) return s;
  int64_t n = NumElements(out);
  if (n == 0) return NULL;
  Box box = Dense(in.rank, proc);
  Box src = Dense(in.rank, in.dims);
  int64_t base = 0;
  for (int32_t i = 0; i < in.rank; i++) {
    base += d.begin[i] * src.src_strides[i];
    box.src_strides[i] = src.src_strides[i] * d.stride[i];
  }
  size_t es = grt_dtype_size(grt_tensor_dtype(x));
  return CopyBox(ctx, OutputOnHost(ctx, 0), es, box, n,
                 (const char*)grt_tensor_data(x) + (size_t)base * es, grt_tensor_data(y),
                 "StridedSlice");
}

const grt_op_kernel kKernels[] = {
    {"StridedSlice", StridedSliceCompute, NULL, NULL, 0},
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_strided_slice_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
