/* Pad, PadV2 and MirrorPad: paddings [rank, 2] of (before, after) counts.
 * Pad fills with zeros, PadV2 with constant_values; MirrorPad mirrors the
 * input at each edge, REFLECT without the edge element (counts at most
 * dim - 1), SYMMETRIC with it (at most dim). Each output element is mapped
 * back to its input coordinates, with a check of the run's cancellation
 * every millisecond or so (work_meter.h): small paddings of a small input
 * can ask for a huge output. */
#include <inttypes.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/index_kernels.h"
#include "backends/cpu/work_meter.h"

typedef enum { PAD_CONSTANT, PAD_REFLECT, PAD_SYMMETRIC } pad_mode;

grt_status* grt_index_pad(grt_kernel_ctx* ctx) {
  bool v2 = strcmp(ctx->node->op, "PadV2") == 0, mirror = strcmp(ctx->node->op, "MirrorPad") == 0;
  for (int32_t i = 0; i < (v2 ? 3 : 2); i++)
    if (i >= ctx->n_inputs || !ctx->inputs[i]) return GRT_ERROR(INTERNAL, "input %d is missing", i);
  const grt_tensor *x = ctx->inputs[0], *p = ctx->inputs[1];
  pad_mode mode = PAD_CONSTANT;
  if (mirror) {
    const char* m;
    GRT_RETURN_IF_ERROR(grt_kernel_attr_string(ctx, "mode", &m));
    if (strcmp(m, "REFLECT") == 0)
      mode = PAD_REFLECT;
    else if (strcmp(m, "SYMMETRIC") == 0)
      mode = PAD_SYMMETRIC;
    else
      return GRT_ERROR(INVALID_ARGUMENT, "mode must be REFLECT or SYMMETRIC, got '%s'", m);
  }
  int32_t r = x->shape.rank;
  if (p->shape.rank != 2 || p->shape.dims[0] != r || p->shape.dims[1] != 2)
    return GRT_ERROR(INVALID_ARGUMENT, "paddings must be a matrix [%d, 2] for an input of rank %d",
                     (int)r, (int)r);
  const grt_tensor* cv = v2 ? ctx->inputs[2] : NULL;
  if (cv && grt_tensor_num_elements(cv) != 1)
    return GRT_ERROR(INVALID_ARGUMENT, "constant_values must be a scalar");
  int64_t before[GRT_MAX_RANK], in_dims[GRT_MAX_RANK];
  grt_shape shape = x->shape;
  for (int32_t i = 0; i < r; i++) {
    int64_t b = grt_dtype_load_int(p->dtype, grt_tensor_data(p), 2 * i);
    int64_t e = grt_dtype_load_int(p->dtype, grt_tensor_data(p), 2 * i + 1);
    int64_t d = x->shape.dims[i];
    if (b < 0 || e < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "Paddings must be non-negative: %" PRId64 " %" PRId64, b,
                       e);
    int64_t most = mode == PAD_REFLECT ? d - 1 : d;
    if (mode != PAD_CONSTANT && (b > most || e > most))
      return GRT_ERROR(INVALID_ARGUMENT,
                       "paddings must be no greater than the dimension size%s: %" PRId64
                       ", %" PRId64 " greater than %" PRId64,
                       mode == PAD_REFLECT ? " minus 1" : "", b, e, most);
    before[i] = b;
    in_dims[i] = d;
    shape.dims[i] = d + b + e;
  }
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &shape, &out));
  size_t esize = grt_dtype_size(x->dtype);
  int64_t n = grt_tensor_num_elements(out);
  char zero[16] = {0};
  const char* fill = cv ? grt_tensor_data(cv) : zero;
  const char* src = grt_tensor_data(x);
  char* dst = grt_tensor_data(out);
  int64_t coord[GRT_MAX_RANK] = {0};
  grt_work_meter meter = grt_work_meter_start();
  for (int64_t o = 0; o < n; o++) {
    if (grt_work_meter_stop(&meter, 1 + r)) return grt_work_meter_status(&meter);
    /* input offset of this output element, or -1 for the constant */
    int64_t off = 0;
    for (int32_t i = 0; i < r && off >= 0; i++) {
      int64_t c = coord[i] - before[i], d = in_dims[i];
      if (c < 0 || c >= d) {
        if (mode == PAD_CONSTANT) {
          off = -1;
          break;
        }
        int64_t shift = mode == PAD_REFLECT ? 0 : 1;
        c = c < 0 ? -c - shift : 2 * d - 2 + shift - c;
      }
      off = off * d + c;
    }
    memcpy(dst + (size_t)o * esize, off >= 0 ? src + (size_t)off * esize : fill, esize);
    for (int32_t i = r - 1; i >= 0; i--) { /* next output coordinate */
      if (++coord[i] < shape.dims[i]) break;
      coord[i] = 0;
    }
  }
  return NULL;
}
