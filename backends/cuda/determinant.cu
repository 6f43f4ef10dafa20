// MatrixDeterminant on the GPU: one thread per [M, M] matrix of the batch,
// LU with partial pivoting in float64 on a scratch copy, the CPU kernel's
// algorithm step for step (products and differences rounded separately,
// no fused multiply-add, so float64 results match it bit for bit). An
// empty matrix has determinant 1, a singular one 0. One thread per matrix
// suits many small matrices; a large single matrix runs on one thread.
// Checked on an H200 by the GPU suite.
#include <math.h>

#include "index_common.cuh"

namespace grt_cuda {
namespace {

using namespace index;

__global__ void DetKernel(int64_t batch, int64_t m, grt_dtype dt, const void* x, double* work,
                          void* y) {
  for (int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; b < batch;
       b += (int64_t)gridDim.x * blockDim.x) {
    double* a = work + b * m * m;
    for (int64_t i = 0; i < m * m; i++) a[i] = LoadF(dt, x, b * m * m + i);
    double det = 1;
    for (int64_t k = 0; k < m && det != 0; k++) {
      int64_t p = k;
      for (int64_t r = k + 1; r < m; r++)
        if (fabs(a[r * m + k]) > fabs(a[p * m + k])) p = r;
      if (a[p * m + k] == 0) {
        det = 0;
        break;
      }
      if (p != k) {
        for (int64_t c = 0; c < m; c++) {
          double t = a[k * m + c];
          a[k * m + c] = a[p * m + c];
          a[p * m + c] = t;
        }
        det = -det;
      }
      double pivot = a[k * m + k];
      det = __dmul_rn(det, pivot);
      for (int64_t r = k + 1; r < m; r++) {
        double f = __ddiv_rn(a[r * m + k], pivot);
        for (int64_t c = k + 1; c < m; c++)
          a[r * m + c] = __dsub_rn(a[r * m + c], __dmul_rn(f, a[k * m + c]));
      }
    }
    StoreF(dt, y, b, det);
  }
}

grt_status* Determinant(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  grt_dtype dt = grt_tensor_dtype(x);
  if (dt != GRT_FLOAT32 && dt != GRT_FLOAT64) return NoKernel("MatrixDeterminant", dt);
  grt_shape xs = ShapeOf(x), ys;
  grt_status* st = grt_op_determinant_shape(&xs, &ys);  // the CPU's checks
  if (st) return st;
  int64_t m = xs.dims[xs.rank - 1];
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, dt, &ys, &y))) return st;
  int64_t batch = NumElements(ys);
  if (batch == 0) return NULL;
  grt_shape ws = {1, {batch * m * m > 0 ? batch * m * m : 1}};
  grt_tensor* work;
  if ((st = grt_kernel_alloc_temp(ctx, GRT_FLOAT64, &ws, &work))) return st;
  DetKernel<<<Blocks(batch), kThreads, 0, grt_cuda_stream(ctx->stream)>>>(
      batch, m, dt, grt_tensor_data(x), (double*)grt_tensor_data(work), grt_tensor_data(y));
  st = Launched("MatrixDeterminant");
  grt_tensor_free(work);  // freed in stream order, as the other kernels' scratch
  return st;
}

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_matrix_determinant(grt_kernel_ctx* c) {
  return grt_cuda::Determinant(c);
}
