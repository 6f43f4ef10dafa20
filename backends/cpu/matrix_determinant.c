/* MatrixDeterminant of each [M, M] matrix in a [..., M, M] batch: LU
 * factorisation with partial pivoting, computed in double whatever the
 * dtype (float16/bfloat16/float32 are widened and the result rounded
 * once). An empty matrix has determinant 1; a singular one 0. The
 * factorisation is cubic in M, so it checks the run's cancellation between
 * elimination steps (work_meter.h). */
#include <math.h>
#include <stdlib.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "grt/op_semantics.h"
#include "backends/cpu/array_more.h"
#include "backends/cpu/work_meter.h"

/* det of the m x m matrix in a (row-major), destroyed; false once the
 * run stopped. */
static bool lu_det(double* a, int64_t m, grt_work_meter* meter, double* out) {
  double det = 1;
  *out = 0;
  for (int64_t k = 0; k < m; k++) {
    if (grt_work_meter_stop(meter, (m - k) * (m - k) + 1)) return false;
    int64_t p = k;
    for (int64_t r = k + 1; r < m; r++)
      if (fabs(a[r * m + k]) > fabs(a[p * m + k])) p = r;
    if (a[p * m + k] == 0) return true;
    if (p != k) {
      for (int64_t c = 0; c < m; c++) {
        double t = a[k * m + c];
        a[k * m + c] = a[p * m + c];
        a[p * m + c] = t;
      }
      det = -det;
    }
    double pivot = a[k * m + k];
    det *= pivot;
    for (int64_t r = k + 1; r < m; r++) {
      double f = a[r * m + k] / pivot;
      for (int64_t c = k + 1; c < m; c++) a[r * m + c] -= f * a[k * m + c];
    }
  }
  *out = det;
  return true;
}

grt_status* grt_cpu_matrix_determinant(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  grt_shape shape;
  GRT_RETURN_IF_ERROR(grt_op_determinant_shape(&x->shape, &shape));
  int32_t rank = x->shape.rank;
  int64_t m = x->shape.dims[rank - 1];
  int64_t batch = grt_shape_num_elements(&shape);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &shape, &out));
  double* work = grt_malloc((size_t)(m * m > 0 ? m * m : 1) * sizeof *work);
  if (!work)
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a %lld x %lld matrix", (long long)m,
                     (long long)m);
  const void* in = grt_tensor_data(x);
  void* o = grt_tensor_data(out);
  grt_work_meter meter = grt_work_meter_start();
  bool stopped = false;
  for (int64_t b = 0; b < batch; b++) {
    if ((stopped = grt_work_meter_stop(&meter, m * m))) break;
    for (int64_t i = 0; i < m * m; i++)
      work[i] = grt_dtype_load_double(x->dtype, in, b * m * m + i);
    double det;
    if ((stopped = !lu_det(work, m, &meter, &det))) break;
    grt_dtype_store_double(x->dtype, o, b, det);
  }
  grt_free(work);
  return stopped ? grt_work_meter_status(&meter) : NULL;
}
