// GatherV2 (with batch_dims) and GatherNd on the GPU: slices of params
// picked by indices in device memory, moved by element size so every dtype
// of the rows is covered. The geometry (checks, messages, output shape) is
// computed here from the tensors as the CPU kernel's shape helper does
// (that helper is not public API). Indices are checked on the device before
// anything is copied; one out of range fails the op with the CPU kernel's
// INVALID_ARGUMENT (index_common.cuh). Checked on an H200 by the GPU suite.
#include "index_common.cuh"

namespace grt_cuda {
namespace {

using namespace index;

// Marks position j when indices[j] is outside [0, n).
__global__ void CheckRangeKernel(int64_t total, grt_dtype it, const void* ind, int64_t n,
                                 unsigned long long* fault) {
  for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < total;
       j += (int64_t)gridDim.x * blockDim.x) {
    long long v = LoadI(it, ind, j);
    if (v < 0 || v >= n) Fault(fault, j);
  }
}

// out[b][o][j][:] = params[b][o][indices[b][j]][:]
__global__ void GatherV2Kernel(int64_t total, int64_t outer, int64_t m, int64_t inner, int64_t n,
                               grt_dtype it, const void* ind, const void* params, void* out,
                               int size) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t in = i % inner, rest = i / inner;
    int64_t j = rest % m, bo = rest / m;  // bo = b * outer + o
    int64_t b = bo / outer;
    long long v = LoadI(it, ind, b * m + j);
    CopyElem(out, i, params, (bo * n + v) * inner + in, size);
  }
}

grt_status* GatherV2(grt_kernel_ctx* ctx) {
  const grt_tensor *p = ctx->inputs[0], *ind = ctx->inputs[1], *ax = ctx->inputs[2];
  int64_t batch_dims = 0;
  grt_status* st = grt_kernel_attr_int(ctx, "batch_dims", &batch_dims);
  if (st) return st;
  if (grt_tensor_rank(ax) != 0 || grt_tensor_num_elements(ax) != 1)
    return grt_status_new(GRT_INVALID_ARGUMENT, "axis must be a scalar");
  if (!IsIndexType(grt_tensor_dtype(ind))) return NoKernel("GatherV2", grt_tensor_dtype(ind));
  int64_t axis = HostInt(ax, 0);
  grt_shape ps = ShapeOf(p), is = ShapeOf(ind);
  int32_t r = ps.rank;
  // The geometry: the shape function's and the CPU's (grt_op_gather_geometry).
  grt_gather_geometry g;
  if ((st = grt_op_gather_geometry(&ps, &is, axis, batch_dims, &g))) return st;
  batch_dims = g.batch_dims;
  axis = g.axis;
  const grt_shape& os = g.out;

  int64_t batches = Product(ps, 0, (int32_t)batch_dims),
          outer = Product(ps, (int32_t)batch_dims, (int32_t)axis);
  int64_t inner = Product(ps, (int32_t)axis + 1, r), n = ps.dims[axis];
  int64_t total = grt_tensor_num_elements(ind), m = batches ? total / batches : 0;
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  if (total > 0) {
    grt_tensor* word;
    if ((st = NewFault(ctx, &word))) return st;
    CheckRangeKernel<<<Blocks(total), kThreads, 0, s>>>(total, grt_tensor_dtype(ind),
                                                        grt_tensor_data(ind), n,
                                                        (unsigned long long*)grt_tensor_data(word));
    int64_t bad;
    if ((st = ReadFault(ctx, word, &bad))) return st;
    if (bad >= 0)
      return grt_status_new(GRT_INVALID_ARGUMENT, "indices[%lld] = %lld is not in [0, %lld)",
                            (long long)bad, DeviceIndex(ctx, ind, bad), (long long)n);
  }
  grt_tensor* out;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(p), &os, &out))) return st;
  int64_t count = NumElements(os);
  if (count == 0) return NULL;
  GatherV2Kernel<<<Blocks(count), kThreads, 0, s>>>(
      count, outer, m, inner, n, grt_tensor_dtype(ind), grt_tensor_data(ind), grt_tensor_data(p),
      grt_tensor_data(out), (int)grt_dtype_size(grt_tensor_dtype(p)));
  return Launched("GatherV2");
}

// out[c][e] = params[indices[c] as an offset in slices][e]
__global__ void GatherNdKernel(int64_t total, int64_t k, int64_t slice, Dims stride, grt_dtype it,
                               const void* ind, const void* params, void* out, int size) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t c = i / slice, e = i % slice, off = 0;
    for (int64_t j = 0; j < k; j++) off += LoadI(it, ind, c * k + j) * stride.d[j];
    CopyElem(out, i, params, off * slice + e, size);
  }
}

grt_status* GatherNd(grt_kernel_ctx* ctx) {
  const grt_tensor *p = ctx->inputs[0], *ind = ctx->inputs[1];
  if (!IsIndexType(grt_tensor_dtype(ind))) return NoKernel("GatherNd", grt_tensor_dtype(ind));
  grt_shape ps = ShapeOf(p), is = ShapeOf(ind);
  if (is.rank < 1) return grt_status_new(GRT_INVALID_ARGUMENT, "indices must be at least a vector");
  int64_t k = is.dims[is.rank - 1];
  if (k > ps.rank)
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "index innermost dimension length must be <= params rank; saw: %lld vs. %d", (long long)k,
        (int)ps.rank);
  grt_shape os;
  os.rank = 0;
  if (is.rank - 1 + ps.rank - k > GRT_MAX_RANK)
    return grt_status_new(GRT_INVALID_ARGUMENT, "result rank too large");
  for (int32_t i = 0; i < is.rank - 1; i++) os.dims[os.rank++] = is.dims[i];
  for (int32_t i = (int32_t)k; i < ps.rank; i++) os.dims[os.rank++] = ps.dims[i];
  int64_t count = Product(is, 0, is.rank - 1), slice = Product(ps, (int32_t)k, ps.rank);
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  Dims stride;
  int64_t bad;
  grt_status* st = CheckRows(ctx, ind, k, count, ps, &stride, &bad);
  if (st) return st;
  if (bad >= 0)
    return grt_status_new(
        GRT_INVALID_ARGUMENT,
        "indices[%lld][%lld] = %lld does not index into param dimension %lld of size %lld",
        (long long)(bad / k), (long long)(bad % k), DeviceIndex(ctx, ind, bad),
        (long long)(bad % k), (long long)ps.dims[bad % k]);
  grt_tensor* out;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(p), &os, &out))) return st;
  int64_t total = count * slice;
  if (total == 0) return NULL;
  GatherNdKernel<<<Blocks(total), kThreads, 0, s>>>(
      total, k, slice, stride, grt_tensor_dtype(ind), grt_tensor_data(ind), grt_tensor_data(p),
      grt_tensor_data(out), (int)grt_dtype_size(grt_tensor_dtype(p)));
  return Launched("GatherNd");
}

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_gather_v2(grt_kernel_ctx* ctx) { return grt_cuda::GatherV2(ctx); }
extern "C" grt_status* grt_cuda_gather_nd(grt_kernel_ctx* ctx) { return grt_cuda::GatherNd(ctx); }
