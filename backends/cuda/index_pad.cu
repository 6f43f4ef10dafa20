// Pad, PadV2 and MirrorPad on the GPU: each output element mapped back to
// its input element (or the constant), moved by element size so every
// dtype of the rows is covered. paddings is a host-memory input; PadV2's
// constant_values stays in device memory and the kernel reads it there.
// The int32 registrations of Pad and PadV2 keep every argument in host
// memory: the same mapping runs on the host for them. Checks and messages
// are the CPU kernel's. Checked on an H200 by the GPU suite.
#include <string.h>

#include "index_common.cuh"

namespace grt_cuda {
namespace {

using namespace index;

enum Mode { kConstant, kReflect, kSymmetric };

struct PadGeom {
  int32_t rank;
  int mode;
  int64_t before[GRT_MAX_RANK];
  int64_t in_dims[GRT_MAX_RANK];
  int64_t out_dims[GRT_MAX_RANK];
};

// The input offset of output element o, or -1 for the constant.
__host__ __device__ inline int64_t PadSource(const PadGeom& g, int64_t o) {
  int64_t coord[GRT_MAX_RANK];
  for (int32_t i = g.rank - 1; i >= 0; i--) {
    coord[i] = o % g.out_dims[i];
    o /= g.out_dims[i];
  }
  int64_t off = 0;
  for (int32_t i = 0; i < g.rank; i++) {
    int64_t c = coord[i] - g.before[i], d = g.in_dims[i];
    if (c < 0 || c >= d) {
      if (g.mode == kConstant) return -1;
      int64_t shift = g.mode == kReflect ? 0 : 1;
      c = c < 0 ? -c - shift : 2 * d - 2 + shift - c;
    }
    off = off * d + c;
  }
  return off;
}

// fill: the constant's one element in device memory, or NULL for zero.
__global__ void PadKernel(int64_t n, PadGeom g, const void* x, const void* fill, void* y,
                          int size) {
  for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < n;
       o += (int64_t)gridDim.x * blockDim.x) {
    int64_t src = PadSource(g, o);
    if (src >= 0)
      CopyElem(y, o, x, src, size);
    else if (fill)
      CopyElem(y, o, fill, 0, size);
    else {
      unsigned long long zero = 0;
      CopyElem(y, o, &zero, 0, size);
    }
  }
}

grt_status* Pad(grt_kernel_ctx* ctx, const char* name) {
  bool v2 = strcmp(name, "PadV2") == 0, mirror = strcmp(name, "MirrorPad") == 0;
  const grt_tensor *x = ctx->inputs[0], *p = ctx->inputs[1];
  PadGeom g = {};
  g.mode = kConstant;
  grt_status* st;
  if (mirror) {
    const char* m = NULL;
    if ((st = grt_kernel_attr_string(ctx, "mode", &m))) return st;
    if (strcmp(m, "REFLECT") == 0)
      g.mode = kReflect;
    else if (strcmp(m, "SYMMETRIC") == 0)
      g.mode = kSymmetric;
    else
      return grt_status_new(GRT_INVALID_ARGUMENT, "mode must be REFLECT or SYMMETRIC, got '%s'", m);
  }
  int32_t r = grt_tensor_rank(x);
  if (grt_tensor_rank(p) != 2 || grt_tensor_dim(p, 0) != r || grt_tensor_dim(p, 1) != 2)
    return grt_status_new(GRT_INVALID_ARGUMENT,
                          "paddings must be a matrix [%d, 2] for an input of rank %d", (int)r,
                          (int)r);
  if (!IsIndexType(grt_tensor_dtype(p))) return NoKernel(name, grt_tensor_dtype(p));
  const grt_tensor* cv = v2 ? ctx->inputs[2] : NULL;
  if (cv && grt_tensor_num_elements(cv) != 1)
    return grt_status_new(GRT_INVALID_ARGUMENT, "constant_values must be a scalar");
  grt_shape shape = ShapeOf(x);
  g.rank = r;
  for (int32_t i = 0; i < r; i++) {
    int64_t b = HostInt(p, 2 * i), e = HostInt(p, 2 * i + 1), d = shape.dims[i];
    if (b < 0 || e < 0)
      return grt_status_new(GRT_INVALID_ARGUMENT, "Paddings must be non-negative: %lld %lld",
                            (long long)b, (long long)e);
    int64_t most = g.mode == kReflect ? d - 1 : d;
    if (g.mode != kConstant && (b > most || e > most))
      return grt_status_new(
          GRT_INVALID_ARGUMENT,
          "paddings must be no greater than the dimension size%s: %lld, %lld greater than %lld",
          g.mode == kReflect ? " minus 1" : "", (long long)b, (long long)e, (long long)most);
    g.before[i] = b;
    g.in_dims[i] = d;
    shape.dims[i] = d + b + e;
    g.out_dims[i] = shape.dims[i];
  }
  grt_dtype dt = grt_tensor_dtype(x);
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &shape, &y))) return st;
  int64_t n = NumElements(shape);
  if (n == 0) return NULL;
  int size = (int)grt_dtype_size(dt);
  if (OutputOnHost(ctx, 0)) {  // int32: every argument in host memory
    const char* src = (const char*)grt_tensor_data(x);
    char* dst = (char*)grt_tensor_data(y);
    static const char kZero[8] = {0};
    const char* fill = cv ? (const char*)grt_tensor_data(cv) : kZero;
    for (int64_t o = 0; o < n; o++) {
      int64_t off = PadSource(g, o);
      memcpy(dst + (size_t)o * size, off >= 0 ? src + (size_t)off * size : fill, (size_t)size);
    }
    return NULL;
  }
  PadKernel<<<Blocks(n), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      n, g, grt_tensor_data(x), cv ? grt_tensor_data(cv) : NULL, grt_tensor_data(y), size);
  return Launched(name);
}

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_pad(grt_kernel_ctx* c) { return grt_cuda::Pad(c, "Pad"); }
extern "C" grt_status* grt_cuda_pad_v2(grt_kernel_ctx* c) { return grt_cuda::Pad(c, "PadV2"); }
extern "C" grt_status* grt_cuda_mirror_pad(grt_kernel_ctx* c) {
  return grt_cuda::Pad(c, "MirrorPad");
}
