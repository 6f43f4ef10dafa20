/* GatherV2 and GatherNd: slices of params picked by
 * indices, copied bytewise. Indices out of range are errors, as in
 * TensorFlow's CPU kernels (negative ones too). The copies check the
 * run's cancellation as they go (work_meter.h): a few indices can ask for
 * gigabytes. */
#include <inttypes.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/index_kernels.h"
#include "backends/cpu/work_meter.h"
#include "grt/op_semantics.h"

static grt_status* input(const grt_kernel_ctx* ctx, int32_t i, const grt_tensor** out) {
  if (i >= ctx->n_inputs || !ctx->inputs[i]) return GRT_ERROR(INTERNAL, "input %d is missing", i);
  *out = ctx->inputs[i];
  return NULL;
}

/* out[b][o][j][:] = params[b][o][indices[b][j]][:] where b runs over the
 * batch_dims leading axes both share, o over params' axes up to axis, j
 * over the rest of indices and the last [:] over params' axes after axis.
 * batch_dims 0 is one batch. */
grt_status* grt_index_gather_v2(grt_kernel_ctx* ctx) {
  const grt_tensor *p = NULL, *ind = NULL, *ax = NULL;
  GRT_RETURN_IF_ERROR(input(ctx, 0, &p));
  GRT_RETURN_IF_ERROR(input(ctx, 1, &ind));
  GRT_RETURN_IF_ERROR(input(ctx, 2, &ax));
  int64_t batch_dims;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "batch_dims", &batch_dims));
  if (ax->shape.rank != 0 || grt_tensor_num_elements(ax) != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "axis must be a scalar");
  int64_t axis = grt_dtype_load_int(ax->dtype, grt_tensor_data(ax), 0);
  grt_gather_geometry g;
  GRT_RETURN_IF_ERROR(grt_op_gather_geometry(&p->shape, &ind->shape, axis, batch_dims, &g));
  int64_t batches = 1, outer = 1, inner = 1, n = p->shape.dims[g.axis];
  for (int32_t i = 0; i < g.batch_dims; i++) batches *= p->shape.dims[i];
  for (int32_t i = g.batch_dims; i < g.axis; i++) outer *= p->shape.dims[i];
  for (int32_t i = g.axis + 1; i < p->shape.rank; i++) inner *= p->shape.dims[i];
  int64_t total = grt_tensor_num_elements(ind);
  int64_t m = batches ? total / batches : 0; /* indices per batch */
  const void* iv = grt_tensor_data(ind);
  for (int64_t j = 0; j < total; j++) {
    int64_t v = grt_dtype_load_int(ind->dtype, iv, j);
    if (v < 0 || v >= n)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "indices[%" PRId64 "] = %" PRId64 " is not in [0, %" PRId64 ")", j, v, n);
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, p->dtype, &g.out, &out));
  size_t row = (size_t)inner * grt_dtype_size(p->dtype);
  if (!row) return NULL;
  const char* src = grt_tensor_data(p);
  char* dst = grt_tensor_data(out);
  grt_work_meter meter = grt_work_meter_start();
  for (int64_t b = 0; b < batches; b++)
    for (int64_t o = 0; o < outer; o++)
      for (int64_t j = 0; j < m; j++) {
        /* bytes count as units: a memcpy moves several per ns */
        if (grt_work_meter_stop(&meter, 1 + (int64_t)row / 8)) return grt_work_meter_status(&meter);
        int64_t v = grt_dtype_load_int(ind->dtype, iv, b * m + j);
        memcpy(dst + (size_t)((b * outer + o) * m + j) * row,
               src + (size_t)((b * outer + o) * n + v) * row, row);
      }
  return NULL;
}

grt_status* grt_index_gather_nd(grt_kernel_ctx* ctx) {
  const grt_tensor *p = NULL, *ind = NULL;
  GRT_RETURN_IF_ERROR(input(ctx, 0, &p));
  GRT_RETURN_IF_ERROR(input(ctx, 1, &ind));
  if (ind->shape.rank < 1) return GRT_ERROR(INVALID_ARGUMENT, "indices must be at least a vector");
  int32_t ir = ind->shape.rank;
  int64_t k = ind->shape.dims[ir - 1];
  if (k > p->shape.rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "index innermost dimension length must be <= params rank; saw: %" PRId64
                     " vs. %d",
                     k, (int)p->shape.rank);
  grt_shape shape = {0};
  int64_t count = 1, slice = 1;
  for (int32_t i = 0; i < ir - 1; i++)
    count *= ind->shape.dims[i], shape.dims[shape.rank++] = ind->shape.dims[i];
  for (int32_t i = (int32_t)k; i < p->shape.rank; i++)
    slice *= p->shape.dims[i], shape.dims[shape.rank++] = p->shape.dims[i];
  if (shape.rank > GRT_MAX_RANK) return GRT_ERROR(INVALID_ARGUMENT, "result rank too large");
  /* strides of the first k axes, in slices */
  int64_t stride[GRT_MAX_RANK];
  int64_t acc = 1;
  for (int32_t i = (int32_t)k - 1; i >= 0; i--) stride[i] = acc, acc *= p->shape.dims[i];
  const void* iv = grt_tensor_data(ind);
  for (int64_t c = 0; c < count; c++)
    for (int64_t j = 0; j < k; j++) {
      int64_t v = grt_dtype_load_int(ind->dtype, iv, c * k + j);
      if (v < 0 || v >= p->shape.dims[j])
        return GRT_ERROR(INVALID_ARGUMENT,
                         "indices[%" PRId64 "][%" PRId64 "] = %" PRId64
                         " does not index into param dimension %" PRId64 " of size %" PRId64,
                         c, j, v, j, p->shape.dims[j]);
    }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, p->dtype, &shape, &out));
  size_t row = (size_t)slice * grt_dtype_size(p->dtype);
  const char* src = grt_tensor_data(p);
  char* dst = grt_tensor_data(out);
  grt_work_meter meter = grt_work_meter_start();
  for (int64_t c = 0; c < count; c++) {
    if (grt_work_meter_stop(&meter, 1 + (int64_t)row / 8)) return grt_work_meter_status(&meter);
    int64_t off = 0;
    for (int64_t j = 0; j < k; j++)
      off += grt_dtype_load_int(ind->dtype, iv, c * k + j) * stride[j];
    if (row) memcpy(dst + (size_t)c * row, src + (size_t)off * row, row);
  }
  return NULL;
}
