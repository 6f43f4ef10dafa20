// TopKV2 on the GPU: the k largest entries of each row (the last axis),
// largest first, equal values in index order, NaN above every number, as
// the CPU kernel (which sorts even when `sorted` is false; so does this).
// One thread per row inserts each entry into the sorted top k it keeps in
// the outputs: O(n * k) per row, simple and exact (int64 compared as
// integers), slow for large k. k is a host-memory input. Checked on an H200
// by the GPU suite.
#include "index_common.cuh"

namespace grt_cuda {
namespace {

using namespace index;

// Whether row element a ranks strictly above row element b.
__device__ inline bool Above(grt_dtype dt, const void* x, int64_t a, int64_t b) {
  if (!IsFloat(dt)) return LoadI(dt, x, a) > LoadI(dt, x, b);
  double va = LoadF(dt, x, a), vb = LoadF(dt, x, b);
  bool na = va != va, nb = vb != vb;
  if (na || nb) return na && !nb;
  return va > vb;
}

__global__ void TopKKernel(int64_t rows, int64_t n, int64_t k, grt_dtype dt, const void* x,
                           grt_dtype it, void* idx, void* vals, int size) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows;
       r += (int64_t)gridDim.x * blockDim.x) {
    const int64_t base = r * n, out = r * k;
    int64_t kept = 0;
    for (int64_t j = 0; j < n; j++) {
      if (kept == k && !Above(dt, x, base + j, base + LoadI(it, idx, out + k - 1))) continue;
      int64_t p = kept < k ? kept++ : k - 1;
      while (p > 0 && Above(dt, x, base + j, base + LoadI(it, idx, out + p - 1))) {
        StoreI(it, idx, out + p, LoadI(it, idx, out + p - 1));
        p--;
      }
      StoreI(it, idx, out + p, j);
    }
    for (int64_t j = 0; j < k; j++)
      CopyElem(vals, out + j, x, base + LoadI(it, idx, out + j), size);
  }
}

grt_status* TopK(grt_kernel_ctx* ctx) {
  const grt_tensor *x = ctx->inputs[0], *kt = ctx->inputs[1];
  if (grt_tensor_rank(kt) != 0) return grt_status_new(GRT_INVALID_ARGUMENT, "k must be 0-D");
  int64_t k = HostInt(kt, 0);
  if (k < 0) return grt_status_new(GRT_INVALID_ARGUMENT, "Need k >= 0, got %lld", (long long)k);
  grt_shape xs = ShapeOf(x);
  if (xs.rank < 1) return grt_status_new(GRT_INVALID_ARGUMENT, "input must be >= 1-D");
  int64_t n = xs.dims[xs.rank - 1];
  if (n < k)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "input must have at least k columns. Had %lld, needed %lld", (long long)n,
                          (long long)k);
  grt_dtype dt = grt_tensor_dtype(x), it = GRT_INT32;
  if (dt == GRT_BOOL || dt > GRT_BOOL) return NoKernel("TopKV2", dt);
  grt_status* st = grt_kernel_attr_type(ctx, "index_type", &it);
  if (st) {  // an optional attr: int32 without it, as on the CPU
    grt_status_free(st);
    it = GRT_INT32;
  }
  if (!IsIndexType(it)) return NoKernel("TopKV2", it);
  grt_shape ys = xs;
  ys.dims[ys.rank - 1] = k;
  grt_tensor *vals, *idx;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &ys, &vals))) return st;
  if ((st = grt_kernel_alloc_output(ctx, 1, it, &ys, &idx))) return st;
  int64_t rows = n ? NumElements(xs) / n : 0;
  if (k == 0 || rows == 0) return NULL;
  TopKKernel<<<Blocks(rows), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      rows, n, k, dt, grt_tensor_data(x), it, grt_tensor_data(idx), grt_tensor_data(vals),
      (int)grt_dtype_size(dt));
  return Launched("TopKV2");
}

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_top_k(grt_kernel_ctx* c) { return grt_cuda::TopK(c); }
