/* TensorScatterUpdate / Add / Max / Min: a copy of tensor with the slices
 * that indices [..., k] address replaced by (or combined with) updates
 * [..., tensor.shape[k:]], applied in index order (so with duplicate
 * indices the last update wins, and Add adds them all). Indices out of
 * range are errors, as in TensorFlow's CPU kernels. Add, Max and Min
 * compute in int64 for integer types and in float64 otherwise. The updates
 * check the run's cancellation as they go (work_meter.h). */
#include <inttypes.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/index_kernels.h"
#include "backends/cpu/work_meter.h"

typedef enum { SCATTER_UPDATE, SCATTER_ADD, SCATTER_MAX, SCATTER_MIN } scatter_mode;

static const struct {
  const char* op;
  scatter_mode mode;
} kModes[] = {
    {"TensorScatterUpdate", SCATTER_UPDATE},
    {"TensorScatterAdd", SCATTER_ADD},
    {"TensorScatterMax", SCATTER_MAX},
    {"TensorScatterMin", SCATTER_MIN},
};

static void combine(scatter_mode mode, grt_dtype t, void* dst, int64_t i, const void* src,
                    int64_t j) {
  if (grt_dtype_is_integer(t)) {
    int64_t a = grt_dtype_load_int(t, dst, i), b = grt_dtype_load_int(t, src, j);
    int64_t r = mode == SCATTER_ADD   ? (int64_t)((uint64_t)a + (uint64_t)b)
                : mode == SCATTER_MAX ? (a > b ? a : b)
                                      : (a < b ? a : b);
    grt_dtype_store_int(t, dst, i, r);
  } else {
    double a = grt_dtype_load_double(t, dst, i), b = grt_dtype_load_double(t, src, j);
    double r = mode == SCATTER_ADD   ? a + b
               : mode == SCATTER_MAX ? (a > b ? a : b)
                                     : (a < b ? a : b);
    grt_dtype_store_double(t, dst, i, r);
  }
}

grt_status* grt_index_tensor_scatter(grt_kernel_ctx* ctx) {
  scatter_mode mode = SCATTER_UPDATE;
  bool found = false;
  for (size_t i = 0; i < sizeof kModes / sizeof kModes[0]; i++)
    if (strcmp(ctx->node->op, kModes[i].op) == 0) mode = kModes[i].mode, found = true;
  if (!found) return GRT_ERROR(INTERNAL, "not a TensorScatter op: %s", ctx->node->op);
  for (int32_t i = 0; i < 3; i++)
    if (i >= ctx->n_inputs || !ctx->inputs[i]) return GRT_ERROR(INTERNAL, "input %d is missing", i);
  const grt_tensor *t = ctx->inputs[0], *ind = ctx->inputs[1], *up = ctx->inputs[2];
  if (ind->shape.rank < 1) return GRT_ERROR(INVALID_ARGUMENT, "indices must be at least a vector");
  int32_t ir = ind->shape.rank;
  int64_t k = ind->shape.dims[ir - 1];
  if (k > t->shape.rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "indices.shape[-1] = %" PRId64 " exceeds the tensor's rank %d", k,
                     (int)t->shape.rank);
  /* updates must be indices[:-1] + tensor[k:] */
  int32_t want = ir - 1 + t->shape.rank - (int32_t)k;
  bool ok = up->shape.rank == want;
  int64_t count = 1, slice = 1;
  for (int32_t i = 0; ok && i < ir - 1; i++) {
    ok = up->shape.dims[i] == ind->shape.dims[i];
    count *= ind->shape.dims[i];
  }
  for (int32_t i = (int32_t)k; ok && i < t->shape.rank; i++) {
    ok = up->shape.dims[ir - 1 + i - k] == t->shape.dims[i];
    slice *= t->shape.dims[i];
  }
  if (!ok)
    return GRT_ERROR(
        INVALID_ARGUMENT,
        "updates must have shape indices.shape[:-1] + tensor.shape[indices.shape[-1]:]");
  int64_t stride[GRT_MAX_RANK], acc = 1;
  for (int32_t i = (int32_t)k - 1; i >= 0; i--) stride[i] = acc, acc *= t->shape.dims[i];
  const void* iv = grt_tensor_data(ind);
  for (int64_t c = 0; c < count; c++)
    for (int64_t j = 0; j < k; j++) {
      int64_t v = grt_dtype_load_int(ind->dtype, iv, c * k + j);
      if (v < 0 || v >= t->shape.dims[j])
        return GRT_ERROR(INVALID_ARGUMENT,
                         "indices[%" PRId64 "] = [%" PRId64
                         "] does not index into dimension %" PRId64 " of size %" PRId64,
                         c, v, j, t->shape.dims[j]);
    }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t->dtype, &t->shape, &out));
  size_t esize = grt_dtype_size(t->dtype);
  size_t bytes = (size_t)grt_tensor_num_elements(t) * esize;
  if (bytes) memcpy(grt_tensor_data(out), grt_tensor_data(t), bytes);
  char* dst = grt_tensor_data(out);
  const char* src = grt_tensor_data(up);
  grt_work_meter meter = grt_work_meter_start();
  for (int64_t c = 0; c < count; c++) {
    if (grt_work_meter_stop(&meter, 1 + (mode == SCATTER_UPDATE ? slice / 8 : slice)))
      return grt_work_meter_status(&meter);
    int64_t off = 0;
    for (int64_t j = 0; j < k; j++)
      off += grt_dtype_load_int(ind->dtype, iv, c * k + j) * stride[j];
    if (mode == SCATTER_UPDATE) {
      if (slice)
        memcpy(dst + (size_t)(off * slice) * esize, src + (size_t)(c * slice) * esize,
               (size_t)slice * esize);
      continue;
    }
    for (int64_t e = 0; e < slice; e++)
      combine(mode, t->dtype, dst, off * slice + e, src, c * slice + e);
  }
  return NULL;
}
