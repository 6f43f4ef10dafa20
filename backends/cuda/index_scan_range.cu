// Cumsum and Range on the GPU. Cumsum: one thread per line along the axis,
// summing in order in int64 (integers, wrapping as stored) or float64, as
// the CPU kernel does, with its exclusive and reverse attrs; the axis is a
// host-memory input. Range: the size and checks on the host from the
// host-memory scalars, the CPU kernel's arithmetic (start + i * delta in
// int64 or float64); int32 Range keeps its output in host memory and is
// filled there. Checked on an H200 by the GPU suite.
#include <math.h>

#include "index_common.cuh"

namespace grt_cuda {
namespace {

using namespace index;

__global__ void CumsumKernel(int64_t lines, int64_t n, int64_t inner, bool exclusive, bool reverse,
                             grt_dtype dt, const void* x, void* y) {
  bool fl = IsFloat(dt);
  for (int64_t l = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; l < lines;
       l += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = l / inner, in = l % inner;
    unsigned long long si = 0;
    double sf = 0;
    for (int64_t s = 0; s < n; s++) {
      int64_t at = (o * n + (reverse ? n - 1 - s : s)) * inner + in;
      if (exclusive) {
        if (fl)
          StoreF(dt, y, at, sf);
        else
          StoreI(dt, y, at, (long long)si);
      }
      if (fl)
        sf += LoadF(dt, x, at);
      else
        si += (unsigned long long)LoadI(dt, x, at);
      if (!exclusive) {
        if (fl)
          StoreF(dt, y, at, sf);
        else
          StoreI(dt, y, at, (long long)si);
      }
    }
  }
}

grt_status* Cumsum(grt_kernel_ctx* ctx) {
  const grt_tensor *x = ctx->inputs[0], *ax = ctx->inputs[1];
  if (grt_tensor_rank(ax) != 0)
    return grt_status_new(GRT_INVALID_ARGUMENT, "axis must be a scalar");
  bool exclusive = false, reverse = false;
  grt_status* st;
  if ((st = grt_kernel_attr_bool(ctx, "exclusive", &exclusive))) return st;
  if ((st = grt_kernel_attr_bool(ctx, "reverse", &reverse))) return st;
  grt_dtype dt = grt_tensor_dtype(x);
  if (dt == GRT_BOOL || dt > GRT_BOOL) return NoKernel("Cumsum", dt);
  grt_shape xs = ShapeOf(x);
  int32_t r = xs.rank;
  int64_t axis = HostInt(ax, 0);
  if (axis < -r || axis >= r)
    return grt_status_new(GRT_INVALID_ARGUMENT, "axis must be in the range [%d, %d), got %lld", -r,
                          r, (long long)axis);
  if (axis < 0) axis += r;
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &xs, &y))) return st;
  int64_t n = xs.dims[axis], inner = Product(xs, (int32_t)axis + 1, r);
  int64_t lines = Product(xs, 0, (int32_t)axis) * inner;
  if (lines == 0 || n == 0) return NULL;
  CumsumKernel<<<Blocks(lines), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      lines, n, inner, exclusive, reverse, dt, grt_tensor_data(x), grt_tensor_data(y));
  return Launched("Cumsum");
}

__global__ void RangeKernel(int64_t n, grt_dtype dt, long long start_i, long long delta_i,
                            double start_f, double delta_f, void* y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    if (IsFloat(dt))
      StoreF(dt, y, i, start_f + (double)i * delta_f);
    else
      StoreI(dt, y, i, start_i + i * delta_i);
  }
}

double HostDouble(const grt_tensor* t) {
  switch (grt_tensor_dtype(t)) {
    case GRT_FLOAT32:
      return *(const float*)grt_tensor_data(t);
    case GRT_FLOAT64:
      return *(const double*)grt_tensor_data(t);
    default:
      return (double)HostInt(t, 0);
  }
}

grt_status* Range(grt_kernel_ctx* ctx) {
  const char* names[3] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; i++) {
    const grt_tensor* t = ctx->inputs[i];
    if (grt_tensor_rank(t) != 0 && !(grt_tensor_rank(t) == 1 && grt_tensor_dim(t, 0) == 1))
      return grt_status_new(GRT_INVALID_ARGUMENT, "%s must be a scalar, not rank %d", names[i],
                            (int)grt_tensor_rank(t));
  }
  grt_dtype dt = grt_tensor_dtype(ctx->inputs[0]);
  if (dt != GRT_FLOAT32 && dt != GRT_FLOAT64 && !IsIndexType(dt)) return NoKernel("Range", dt);
  bool integer = IsIndexType(dt);
  double start_f = HostDouble(ctx->inputs[0]), limit_f = HostDouble(ctx->inputs[1]),
         delta_f = HostDouble(ctx->inputs[2]);
  if (delta_f == 0) return grt_status_new(GRT_INVALID_ARGUMENT, "Requires delta != 0: 0");
  if (delta_f > 0 && start_f > limit_f)
    return grt_status_new(GRT_INVALID_ARGUMENT, "Requires start <= limit when delta > 0: %g/%g",
                          start_f, limit_f);
  if (delta_f < 0 && start_f < limit_f)
    return grt_status_new(GRT_INVALID_ARGUMENT, "Requires start >= limit when delta < 0: %g/%g",
                          start_f, limit_f);
  long long start_i = 0, delta_i = 0;
  int64_t n;
  if (integer) {
    start_i = HostInt(ctx->inputs[0], 0);
    long long limit_i = HostInt(ctx->inputs[1], 0);
    delta_i = HostInt(ctx->inputs[2], 0);
    unsigned long long span = limit_i >= start_i
                                  ? (unsigned long long)limit_i - (unsigned long long)start_i
                                  : (unsigned long long)start_i - (unsigned long long)limit_i;
    unsigned long long step =
        delta_i > 0 ? (unsigned long long)delta_i : 0ull - (unsigned long long)delta_i;
    n = (int64_t)((span + step - 1) / step);
  } else {
    double count = ceil(fabs((limit_f - start_f) / delta_f));
    if (!(count < 9.0e18)) return grt_status_new(GRT_INVALID_ARGUMENT, "Requires a finite size");
    n = (int64_t)count;
  }
  grt_shape shape = {1, {n}};
  grt_tensor* y;
  grt_status* st = grt_kernel_alloc_output(ctx, 0, dt, &shape, &y);
  if (st || n == 0) return st;
  if (OutputOnHost(ctx, 0)) {  // int32: every argument in host memory
    int32_t* p = (int32_t*)grt_tensor_data(y);
    for (int64_t i = 0; i < n; i++) p[i] = (int32_t)(start_i + i * delta_i);
    return NULL;
  }
  RangeKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      n, dt, start_i, delta_i, start_f, delta_f, grt_tensor_data(y));
  return Launched("Range");
}

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_cumsum(grt_kernel_ctx* c) { return grt_cuda::Cumsum(c); }
extern "C" grt_status* grt_cuda_range(grt_kernel_ctx* c) { return grt_cuda::Range(c); }
