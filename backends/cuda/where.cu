// Where (one input) on the GPU: the int64 coordinates [count, rank] of the
// true / non-zero elements in row-major order (-0.0 is zero, NaN is not),
// as the CPU kernel. The output's size depends on the data: one block
// counts per thread over contiguous chunks and scans the counts, the host
// reads the total back (a synchronous copy), allocates the output, and the
// same block writes each chunk's coordinates at its offset. One block
// keeps it simple and the order exact; it is not fast for huge inputs.
// Checked on an H200 by the GPU suite.
#include "index_common.cuh"

namespace grt_cuda {
namespace {

using namespace index;

constexpr int kWhereThreads = 1024;

__device__ inline bool NonZero(grt_dtype dt, const void* x, int64_t i) {
  return IsFloat(dt) ? LoadF(dt, x, i) != 0 : LoadI(dt, x, i) != 0;
}

// offsets[t]: the exclusive prefix of thread t's count; offsets[kWhereThreads]: the total.
__global__ void CountKernel(int64_t n, grt_dtype dt, const void* x, long long* offsets) {
  __shared__ long long counts[kWhereThreads];
  int t = threadIdx.x;
  int64_t chunk = (n + kWhereThreads - 1) / kWhereThreads;
  int64_t lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
  long long c = 0;
  for (int64_t i = lo; i < hi; i++) c += NonZero(dt, x, i);
  counts[t] = c;
  __syncthreads();
  if (t == 0) {
    long long run = 0;
    for (int k = 0; k < kWhereThreads; k++) {
      offsets[k] = run;
      run += counts[k];
    }
    offsets[kWhereThreads] = run;
  }
}

__global__ void WriteKernel(int64_t n, grt_dtype dt, const void* x, const long long* offsets,
                            int32_t rank, Dims dims, long long* out) {
  int t = threadIdx.x;
  int64_t chunk = (n + kWhereThreads - 1) / kWhereThreads;
  int64_t lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
  long long* o = out + offsets[t] * rank;
  for (int64_t i = lo; i < hi; i++) {
    if (!NonZero(dt, x, i)) continue;
    int64_t rest = i;
    for (int32_t d = rank - 1; d >= 0; d--) {
      o[d] = rest % dims.d[d];
      rest /= dims.d[d];
    }
    o += rank;
  }
}

grt_status* Where(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype dt = grt_tensor_dtype(x);
  if (dt < GRT_FLOAT16 || dt > GRT_BOOL) return NoKernel("Where", dt);
  grt_shape xs = ShapeOf(x);
  int64_t n = NumElements(xs);
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  grt_status* st;
  grt_tensor* offsets = NULL;
  long long total = 0;
  if (n > 0) {
    grt_shape os = {1, {kWhereThreads + 1}};
    if ((st = grt_kernel_alloc_temp(ctx, GRT_INT64, &os, &offsets))) return st;
    CountKernel<<<1, kWhereThreads, 0, s>>>(n, dt, grt_tensor_data(x),
                                            (long long*)grt_tensor_data(offsets));
    st = grt_cuda_launch_error("Where");
    if (!st)
      st = grt_cuda_error(
          cudaMemcpyAsync(&total, (long long*)grt_tensor_data(offsets) + kWhereThreads, 8,
                          cudaMemcpyDeviceToHost, s),
          "cudaMemcpyAsync");
    if (!st) st = grt_cuda_error(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    if (st) {
      grt_tensor_free(offsets);
      return st;
    }
  }
  grt_shape ys = {2, {total, xs.rank}};
  grt_tensor* y;
  st = grt_kernel_alloc_output(ctx, 0, GRT_INT64, &ys, &y);
  if (!st && total > 0 && xs.rank > 0) {
    Dims dims = {};
    for (int32_t d = 0; d < xs.rank; d++) dims.d[d] = xs.dims[d];
    WriteKernel<<<1, kWhereThreads, 0, s>>>(n, dt, grt_tensor_data(x),
                                            (const long long*)grt_tensor_data(offsets), xs.rank,
                                            dims, (long long*)grt_tensor_data(y));
    st = Launched("Where");
  }
  // The temporary is freed after the kernel that reads it is queued: the
  // device allocator hands memory out in stream order.
  grt_tensor_free(offsets);
  return st;
}

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_where(grt_kernel_ctx* c) { return grt_cuda::Where(c); }
