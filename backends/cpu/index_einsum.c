/* Einsum: a sum of products over labelled axes ("ij,jk->ik"), the output
 * labels given after "->". A label repeated within one input takes its
 * diagonal; labels absent from the output are summed; "..." stands for
 * the same leading (broadcast, NumPy-style) axes in every operand. The
 * kernel walks every combination of label values once (output labels
 * outermost), multiplying the inputs' elements and summing in float64
 * (int64 for integer types): plain and exact rather than fast. The
 * equation is parsed by grt_einsum_parse (also used by the shape
 * function). The walk checks the run's cancellation every millisecond or
 * so of it (work_meter.h): its length is the product of every label's
 * size, which a small model can make hours long. */
#include <inttypes.h>
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "backends/cpu/index_kernels.h"
#include "backends/cpu/work_meter.h"
#include "ops/einsum_parse.h"

grt_status* grt_index_einsum(grt_kernel_ctx* ctx) {
  const char* eq;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_string(ctx, "equation", &eq));
  int32_t n = ctx->n_inputs;
  if (n < 1 || n > GRT_EINSUM_MAX_INPUTS)
    return GRT_ERROR(INVALID_ARGUMENT, "Einsum takes 1 to %d inputs", GRT_EINSUM_MAX_INPUTS);
  grt_shape shapes[GRT_EINSUM_MAX_INPUTS];
  for (int32_t k = 0; k < n; k++) {
    if (!ctx->inputs[k]) return GRT_ERROR(INTERNAL, "input %d is missing", k);
    shapes[k] = ctx->inputs[k]->shape;
  }
  grt_einsum plan;
  GRT_RETURN_IF_ERROR(grt_einsum_parse(eq, n, shapes, &plan));
  grt_shape out_shape = {0};
  out_shape.rank = plan.n_out;
  for (int32_t i = 0; i < plan.n_out; i++) out_shape.dims[i] = plan.size[plan.out[i]];
  grt_dtype t = ctx->inputs[0]->dtype;
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, t, &out_shape, &out));
  /* element strides of each input per label (repeated labels add up: the
   * diagonal; a broadcast axis of size 1 has stride 0) */
  int64_t stride[GRT_EINSUM_MAX_INPUTS][GRT_EINSUM_LABELS];
  memset(stride, 0, sizeof stride);
  for (int32_t k = 0; k < n; k++) {
    int64_t s = 1;
    for (int32_t d = shapes[k].rank - 1; d >= 0; d--) {
      if (shapes[k].dims[d] != 1 || plan.size[plan.sub[k][d]] == 1) stride[k][plan.sub[k][d]] += s;
      s *= shapes[k].dims[d];
    }
  }
  /* the walk: output labels, then the summed ones */
  int32_t order[GRT_EINSUM_LABELS], n_order = 0;
  for (int32_t i = 0; i < plan.n_out; i++) order[n_order++] = plan.out[i];
  for (int32_t l = 0; l < GRT_EINSUM_LABELS; l++)
    if (plan.used[l] && !plan.in_out[l]) order[n_order++] = l;
  int64_t inner = 1;
  for (int32_t i = plan.n_out; i < n_order; i++) inner *= plan.size[order[i]];
  int64_t total = grt_tensor_num_elements(out);
  bool integer = grt_dtype_is_integer(t) || t == GRT_BOOL;
  int64_t value[GRT_EINSUM_LABELS] = {0};
  void* dst = grt_tensor_data(out);
  grt_work_meter meter = grt_work_meter_start();
  for (int64_t o = 0; o < total; o++) {
    if (grt_work_meter_stop(&meter, 1)) return grt_work_meter_status(&meter);
    double acc = 0;
    int64_t acci = 0;
    for (int64_t s = 0; s < inner; s++) {
      /* per product: one output element may sum over the whole input */
      if (grt_work_meter_stop(&meter, n * n_order)) return grt_work_meter_status(&meter);
      double prod = 1;
      int64_t prodi = 1;
      for (int32_t k = 0; k < n; k++) {
        int64_t off = 0;
        for (int32_t i = 0; i < n_order; i++) off += value[order[i]] * stride[k][order[i]];
        if (integer)
          prodi = (int64_t)((uint64_t)prodi *
                            (uint64_t)grt_dtype_load_int(t, grt_tensor_data(ctx->inputs[k]), off));
        else
          prod *= grt_dtype_load_double(t, grt_tensor_data(ctx->inputs[k]), off);
      }
      acc += prod;
      acci = (int64_t)((uint64_t)acci + (uint64_t)prodi);
      for (int32_t i = n_order - 1; i >= plan.n_out; i--) { /* next summed combination */
        if (++value[order[i]] < plan.size[order[i]]) break;
        value[order[i]] = 0;
      }
    }
    if (integer)
      grt_dtype_store_int(t, dst, o, acci);
    else
      grt_dtype_store_double(t, dst, o, acc);
    for (int32_t i = plan.n_out - 1; i >= 0; i--) { /* next output element */
      if (++value[order[i]] < plan.size[order[i]]) break;
      value[order[i]] = 0;
    }
  }
  return NULL;
}
