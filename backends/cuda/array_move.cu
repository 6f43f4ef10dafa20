// Array ops on the GPU that move elements without arithmetic: Transpose,
// Tile, Slice, Pack, Unpack, ConcatV2, Split, Fill, OnesLike, Squeeze.
// Each is one or more "boxes": an affine map from the output's index space
// to the input's (strides per dimension, an optional modulo for Tile),
// copied by one kernel per element size (1, 2, 4 or 8 bytes), so every
// dtype is covered. The int32 registrations keep every argument in host
// memory (support_gpu.c): the same box runs on the host there.
//
// tests/gpu/gpu_suite.cc compares each with the CPU (an H200 so far: tests/gpu/runs).
#include <string.h>

#include "box_copy.cuh"

namespace grt_cuda {
namespace {

const char* At(const grt_tensor* t, int64_t elements) {
  return (const char*)grt_tensor_data(t) + (size_t)elements * grt_dtype_size(grt_tensor_dtype(t));
}
char* AtMut(grt_tensor* t, int64_t elements) {
  return (char*)grt_tensor_data(t) + (size_t)elements * grt_dtype_size(grt_tensor_dtype(t));
}

// The host-memory vector input k (perm, multiples, begin, size, dims).
grt_status* ReadVector(const grt_kernel_ctx* ctx, int k, const char* what, int64_t* out,
                       int32_t* n) {
  const grt_tensor* t = ctx->inputs[k];
  if (!IsIndexType(grt_tensor_dtype(t)) || grt_tensor_rank(t) > 1)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s must be an int32/int64 vector", what);
  int64_t len = grt_tensor_num_elements(t);
  if (len > GRT_MAX_RANK)
    return grt_status_new(GRT_INVALID_ARGUMENT, "%s has %lld elements, at most %d are supported",
                          what, (long long)len, GRT_MAX_RANK);
  for (int64_t i = 0; i < len; i++) out[i] = HostInt(t, i);
  *n = (int32_t)len;
  return NULL;
}

// ---- Transpose ------------------------------------------------------------------

grt_status* TransposeCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  int64_t perm[GRT_MAX_RANK];
  int32_t n;
  grt_status* st = ReadVector(ctx, 1, "perm", perm, &n);
  if (st) return st;
  grt_shape in = ShapeOf(x);
  if (n != in.rank)
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "transpose expects a vector of size %d. But input(1) is a vector of size %d", (int)in.rank,
        (int)n);
  bool seen[GRT_MAX_RANK] = {false};
  for (int32_t i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
      return grt_status_new(GRT_INVALID_ARGUMENT, "perm is not a permutation of [0 .. %d)", (int)n);
    seen[perm[i]] = true;
  }
  grt_shape out = {n, {0}};
  for (int32_t i = 0; i < n; i++) out.dims[i] = in.dims[perm[i]];
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(x), &out, &y))) return st;
  Box b = Dense(out.rank, out.dims);
  Box src = Dense(in.rank, in.dims);
  for (int32_t i = 0; i < n; i++) b.src_strides[i] = src.src_strides[perm[i]];
  return CopyBox(ctx, OutputOnHost(ctx, 0), grt_dtype_size(grt_tensor_dtype(x)), b,
                 NumElements(out), grt_tensor_data(x), grt_tensor_data(y), "Transpose");
}

// ---- Tile --------------------------------------------------------------------------

grt_status* TileCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  int64_t m[GRT_MAX_RANK];
  int32_t n;
  grt_status* st = ReadVector(ctx, 1, "multiples", m, &n);
  if (st) return st;
  grt_shape in = ShapeOf(x);
  if (n != in.rank)
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "Expected multiples argument to be a vector of length %d but got length %d", (int)in.rank,
        (int)n);
  grt_shape out = {n, {0}};
  for (int32_t i = 0; i < n; i++) {
    if (m[i] < 0)
      return grt_status_new(GRT_INVALID_ARGUMENT, "Expected multiples[%d] >= 0, but got %lld",
                            (int)i, (long long)m[i]);
    out.dims[i] = in.dims[i] * m[i];
  }
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(x), &out, &y))) return st;
  Box b = Dense(out.rank, out.dims);
  Box src = Dense(in.rank, in.dims);
  for (int32_t i = 0; i < n; i++) {
    b.src_strides[i] = src.src_strides[i];
    b.src_mod[i] = in.dims[i];
  }
  return CopyBox(ctx, OutputOnHost(ctx, 0), grt_dtype_size(grt_tensor_dtype(x)), b,
                 NumElements(out), grt_tensor_data(x), grt_tensor_data(y), "Tile");
}

// ---- Slice -------------------------------------------------------------------------

grt_status* SliceCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  int64_t begin[GRT_MAX_RANK], size[GRT_MAX_RANK];
  int32_t nb = 0, ns = 0;
  grt_status* st = ReadVector(ctx, 1, "begin", begin, &nb);
  if (!st) st = ReadVector(ctx, 2, "size", size, &ns);
  if (st) return st;
  grt_shape in = ShapeOf(x);
  if (nb != in.rank || ns != in.rank)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "Expected begin and size arguments to be 1-D tensors of size %d, but got "
                          "shapes [%d] and [%d] instead.",
                          (int)in.rank, (int)nb, (int)ns);
  grt_shape out = {in.rank, {0}};
  int64_t offset = 0;
  Box src = Dense(in.rank, in.dims);
  for (int32_t i = 0; i < in.rank; i++) {
    int64_t sz = size[i] == -1 ? in.dims[i] - begin[i] : size[i];
    if (begin[i] < 0 || begin[i] > in.dims[i])
      return grt_status_new(GRT_INVALID_ARGUMENT, "Expected begin[%d] in [0, %lld], but got %lld",
                            (int)i, (long long)in.dims[i], (long long)begin[i]);
    if (sz < 0 || begin[i] + sz > in.dims[i])
      return grt_status_new(GRT_INVALID_ARGUMENT, "Expected size[%d] in [0, %lld], but got %lld",
                            (int)i, (long long)(in.dims[i] - begin[i]), (long long)size[i]);
    out.dims[i] = sz;
    offset += begin[i] * src.src_strides[i];
  }
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(x), &out, &y))) return st;
  Box b = Dense(out.rank, out.dims);
  for (int32_t i = 0; i < in.rank; i++) b.src_strides[i] = src.src_strides[i];
  if (NumElements(out) == 0) return NULL;
  return CopyBox(ctx, OutputOnHost(ctx, 0), grt_dtype_size(grt_tensor_dtype(x)), b,
                 NumElements(out), At(x, offset), grt_tensor_data(y), "Slice");
}

// ---- joins and splits along an axis: [outer, axis, inner] views ---------------------

void OuterInner(const grt_shape& s, int32_t axis, int64_t* outer, int64_t* inner) {
  *outer = *inner = 1;
  for (int32_t i = 0; i < axis; i++) *outer *= s.dims[i];
  for (int32_t i = axis; i < s.rank; i++) *inner *= s.dims[i];
}

// Copies a [outer, len] block between tensors whose rows are src_row and
// dst_row elements long, at column offsets src_col and dst_col.
grt_status* CopyRows(grt_kernel_ctx* ctx, bool host, size_t esize, int64_t outer, int64_t len,
                     const char* src, int64_t src_row, int64_t src_col, char* dst, int64_t dst_row,
                     int64_t dst_col, const char* op) {
  if (outer == 0 || len == 0) return NULL;
  Box b = {};
  b.rank = 2;
  b.dims[0] = outer;
  b.dims[1] = len;
  b.src_strides[0] = src_row;
  b.src_strides[1] = 1;
  b.dst_strides[0] = dst_row;
  b.dst_strides[1] = 1;
  return CopyBox(ctx, host, esize, b, outer * len, src + (size_t)src_col * esize,
                 dst + (size_t)dst_col * esize, op);
}

grt_status* ConcatV2Compute(grt_kernel_ctx* ctx) {
  int n = ctx->n_inputs - 1;
  if (n < 1) return grt_status_new(GRT_INTERNAL, "ConcatV2 needs values and an axis");
  const grt_tensor* first = ctx->inputs[0];
  grt_shape s0 = ShapeOf(first);
  int64_t axis = HostInt(ctx->inputs[n], 0);
  if (grt_tensor_num_elements(ctx->inputs[n]) != 1)
    return grt_status_new(GRT_INVALID_ARGUMENT, "axis must be a scalar");
  if (axis < -s0.rank || axis >= s0.rank)
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld",
        -(int)s0.rank, (int)s0.rank, (long long)axis);
  if (axis < 0) axis += s0.rank;
  grt_shape out = s0;
  out.dims[axis] = 0;
  for (int k = 0; k < n; k++) {
    grt_shape sk = ShapeOf(ctx->inputs[k]);
    bool ok = sk.rank == s0.rank && grt_tensor_dtype(ctx->inputs[k]) == grt_tensor_dtype(first);
    for (int32_t d = 0; ok && d < s0.rank; d++) ok = d == axis || sk.dims[d] == s0.dims[d];
    if (!ok)
      return grt_status_new(
          GRT_INVALID_ARGUMENT,
          "ConcatOp : Dimensions of inputs should match: values[%d] differs from values[0]", k);
    out.dims[axis] += sk.dims[axis];
  }
  grt_tensor* y;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(first), &out, &y);
  if (st) return st;
  int64_t outer, row;
  OuterInner(out, (int32_t)axis, &outer, &row);
  size_t es = grt_dtype_size(grt_tensor_dtype(first));
  int64_t col = 0;
  for (int k = 0; k < n && !st; k++) {
    int64_t o, len;
    OuterInner(ShapeOf(ctx->inputs[k]), (int32_t)axis, &o, &len);
    st = CopyRows(ctx, OutputOnHost(ctx, 0), es, outer, len, At(ctx->inputs[k], 0), len, 0,
                  AtMut(y, 0), row, col, "ConcatV2");
    col += len;
  }
  return st;
}

grt_status* PackCompute(grt_kernel_ctx* ctx) {
  int n = ctx->n_inputs;
  if (n < 1) return grt_status_new(GRT_INTERNAL, "Pack needs at least one value");
  int64_t axis = 0;
  grt_status* st = grt_kernel_attr_int(ctx, "axis", &axis);
  if (st) return st;
  grt_shape s0 = ShapeOf(ctx->inputs[0]);
  int32_t rank = s0.rank + 1;
  if (axis < -rank || axis >= rank)
    return grt_status_new(GRT_INVALID_ARGUMENT, "axis = %lld not in [%d, %d)", (long long)axis,
                          -(int)rank, (int)rank);
  if (rank > GRT_MAX_RANK)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "the result would have rank %d, above the maximum %d", (int)rank,
                          GRT_MAX_RANK);
  if (axis < 0) axis += rank;
  for (int k = 1; k < n; k++)
    if (!SameShape(ctx->inputs[k], ctx->inputs[0]) ||
        grt_tensor_dtype(ctx->inputs[k]) != grt_tensor_dtype(ctx->inputs[0]))
      return grt_status_new(GRT_INVALID_ARGUMENT,
                            "Shapes of all inputs must match: values[%d] differs from values[0]",
                            k);
  grt_shape out = {rank, {0}};
  for (int32_t d = 0, i = 0; d < rank; d++) out.dims[d] = d == axis ? n : s0.dims[i++];
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(ctx->inputs[0]), &out, &y))) return st;
  int64_t outer, len;
  OuterInner(s0, (int32_t)axis, &outer, &len);
  size_t es = grt_dtype_size(grt_tensor_dtype(ctx->inputs[0]));
  for (int k = 0; k < n && !st; k++)
    st = CopyRows(ctx, OutputOnHost(ctx, 0), es, outer, len, At(ctx->inputs[k], 0), len, 0,
                  AtMut(y, 0), n * len, k * len, "Pack");
  return st;
}

grt_status* UnpackCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  int64_t axis = 0, num = 0;
  grt_status* st = grt_kernel_attr_int(ctx, "axis", &axis);
  if (!st) st = grt_kernel_attr_int(ctx, "num", &num);
  if (st) return st;
  grt_shape in = ShapeOf(x);
  if (axis < -in.rank || axis >= in.rank)
    return grt_status_new(GRT_INVALID_ARGUMENT, "axis = %lld not in [%d, %d)", (long long)axis,
                          -(int)in.rank, (int)in.rank);
  if (axis < 0) axis += in.rank;
  if (in.dims[axis] != num || num != ctx->n_outputs)
    return grt_status_new(GRT_INVALID_ARGUMENT, "Input shape axis %lld must equal %lld, got %lld",
                          (long long)axis, (long long)num, (long long)in.dims[axis]);
  grt_shape out = {in.rank - 1, {0}};
  for (int32_t d = 0, i = 0; d < in.rank; d++)
    if (d != axis) out.dims[i++] = in.dims[d];
  int64_t outer, len;
  OuterInner(out, (int32_t)axis, &outer, &len);
  size_t es = grt_dtype_size(grt_tensor_dtype(x));
  for (int k = 0; k < num && !st; k++) {
    grt_tensor* y;
    st = grt_kernel_alloc_output(ctx, k, grt_tensor_dtype(x), &out, &y);
    if (!st)
      st = CopyRows(ctx, OutputOnHost(ctx, k), es, outer, len, At(x, 0), num * len, k * len,
                    AtMut(y, 0), len, 0, "Unpack");
  }
  return st;
}

grt_status* SplitCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* dim_t = ctx->inputs[0];
  const grt_tensor* x = ctx->inputs[1];
  int64_t num = 0;
  grt_status* st = grt_kernel_attr_int(ctx, "num_split", &num);
  if (st) return st;
  if (num < 1 || num != ctx->n_outputs)
    return grt_status_new(GRT_INVALID_ARGUMENT, "num_split must be >= 1, got %lld", (long long)num);
  if (grt_tensor_num_elements(dim_t) != 1)
    return grt_status_new(GRT_INVALID_ARGUMENT, "split_dim must be a scalar");
  grt_shape in = ShapeOf(x);
  int64_t axis = HostInt(dim_t, 0);
  if (axis < -in.rank || axis >= in.rank)
    return grt_status_new(GRT_INVALID_ARGUMENT, "axis = %lld not in [%d, %d)", (long long)axis,
                          -(int)in.rank, (int)in.rank);
  if (axis < 0) axis += in.rank;
  if (in.dims[axis] % num)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "Number of ways to split should evenly divide the split dimension, but "
                          "got split_dim %lld (size = %lld) and num_split %lld",
                          (long long)axis, (long long)in.dims[axis], (long long)num);
  grt_shape out = in;
  out.dims[axis] = in.dims[axis] / num;
  int64_t outer, len, row;
  OuterInner(out, (int32_t)axis, &outer, &len);
  OuterInner(in, (int32_t)axis, &outer, &row);
  size_t es = grt_dtype_size(grt_tensor_dtype(x));
  for (int k = 0; k < num && !st; k++) {
    grt_tensor* y;
    st = grt_kernel_alloc_output(ctx, k, grt_tensor_dtype(x), &out, &y);
    if (!st)
      st = CopyRows(ctx, OutputOnHost(ctx, k), es, outer, len, At(x, 0), row, k * len, AtMut(y, 0),
                    len, 0, "Split");
  }
  return st;
}

// ---- Fill, OnesLike, Squeeze -----------------------------------------------------------

grt_status* FillCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* value = ctx->inputs[1];
  if (grt_tensor_rank(value) != 0)
    return grt_status_new(GRT_INVALID_ARGUMENT, "value must represent a scalar");
  int64_t dims[GRT_MAX_RANK];
  int32_t n;
  grt_status* st = ReadVector(ctx, 0, "dims", dims, &n);
  if (st) return st;
  grt_shape out = {n, {0}};
  for (int32_t i = 0; i < n; i++) {
    if (dims[i] < 0)
      return grt_status_new(GRT_INVALID_ARGUMENT, "dims[%d] is negative: %lld", (int)i,
                            (long long)dims[i]);
    out.dims[i] = dims[i];
  }
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(value), &out, &y))) return st;
  int64_t total = NumElements(out);
  Box b = Dense(1, &total);
  b.src_strides[0] = 0;
  return CopyBox(ctx, OutputOnHost(ctx, 0), grt_dtype_size(grt_tensor_dtype(value)), b, total,
                 grt_tensor_data(value), grt_tensor_data(y), "Fill");
}

// One, as the bits of an element of dt (0 for none).
uint64_t OneBits(grt_dtype dt) {
  switch (dt) {
    case GRT_FLOAT16:
      return 0x3C00u;
    case GRT_BFLOAT16:
      return 0x3F80u;
    case GRT_FLOAT32:
      return 0x3F800000u;
    case GRT_FLOAT64:
      return 0x3FF0000000000000ull;
    case GRT_INT8:
    case GRT_INT16:
    case GRT_INT32:
    case GRT_INT64:
    case GRT_UINT8:
    case GRT_BOOL:
      return 1;
    default:
      return 0;
  }
}

template <typename U>
__global__ void SetKernel(int64_t n, U bits, U* out) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    out[i] = bits;
}

grt_status* OnesLikeCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype dt = grt_tensor_dtype(x);
  uint64_t one = OneBits(dt);
  if (!one) return NoKernel("OnesLike", dt);
  grt_shape s = ShapeOf(x);
  grt_tensor* y;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, dt, &s, &y);
  int64_t n = NumElements(s);
  if (st || n == 0) return st;
  size_t es = grt_dtype_size(dt);
  if (OutputOnHost(ctx, 0)) {
    for (int64_t i = 0; i < n; i++)
      memcpy((char*)grt_tensor_data(y) + i * es, &one, es);  // little-endian
    return NULL;
  }
  cudaStream_t str = grt_cuda_stream(ctx->stream);
  void* d = grt_tensor_data(y);
  switch (es) {
    case 1:
      SetKernel<uint8_t><<<Blocks(n), kThreads, 0, str>>>(n, (uint8_t)one, (uint8_t*)d);
      break;
    case 2:
      SetKernel<uint16_t><<<Blocks(n), kThreads, 0, str>>>(n, (uint16_t)one, (uint16_t*)d);
      break;
    case 4:
      SetKernel<uint32_t><<<Blocks(n), kThreads, 0, str>>>(n, (uint32_t)one, (uint32_t*)d);
      break;
    default:
      SetKernel<unsigned long long>
          <<<Blocks(n), kThreads, 0, str>>>(n, (unsigned long long)one, (unsigned long long*)d);
  }
  return Launched("OnesLike");
}

grt_status* SqueezeCompute(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const int64_t* axes;
  int32_t n_axes;
  grt_status* st = grt_kernel_attr_int_list(ctx, "squeeze_dims", &axes, &n_axes);
  if (st) return st;
  grt_shape in = ShapeOf(x), out;
  if ((st = grt_op_squeeze_shape(&in, axes, n_axes, &out))) return st;  // the CPU's checks
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(x), &out, &y))) return st;
  size_t bytes = grt_tensor_byte_size(x);
  if (!bytes) return NULL;
  if (OutputOnHost(ctx, 0)) {
    memcpy(grt_tensor_data(y), grt_tensor_data(x), bytes);
    return NULL;
  }
  return grt_cuda_error(cudaMemcpyAsync(grt_tensor_data(y), grt_tensor_data(x), bytes,
                                        cudaMemcpyDeviceToDevice, grt_cuda_stream(ctx->stream)),
                        "cudaMemcpyAsync");
}

const grt_op_kernel kKernels[] = {
    {"Transpose", TransposeCompute, NULL, NULL, 0}, {"Tile", TileCompute, NULL, NULL, 0},
    {"Slice", SliceCompute, NULL, NULL, 0},         {"ConcatV2", ConcatV2Compute, NULL, NULL, 0},
    {"Pack", PackCompute, NULL, NULL, 0},           {"Unpack", UnpackCompute, NULL, NULL, 0},
    {"Split", SplitCompute, NULL, NULL, 0},         {"Fill", FillCompute, NULL, NULL, 0},
    {"OnesLike", OnesLikeCompute, NULL, NULL, 0},   {"Squeeze", SqueezeCompute, NULL, NULL, 0},
};

}  // namespace
}  // namespace grt_cuda

extern "C" const grt_op_kernel* grt_cuda_array_move_kernels(int* n) {
  *n = (int)(sizeof grt_cuda::kKernels / sizeof grt_cuda::kKernels[0]);
  return grt_cuda::kKernels;
}
