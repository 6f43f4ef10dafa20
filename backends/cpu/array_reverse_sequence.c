/* ReverseSequence: along seq_dim, the first seq_lengths[b] elements of each
 * batch entry b (along batch_dim) are reversed; the rest are copied. The
 * checks and their messages are TensorFlow's, shared with plugins
 * (grt_op_reverse_sequence_check, ops/shape_array_more.c). */
#include <string.h>

#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "grt/op_semantics.h"
#include "backends/cpu/array_more.h"

grt_status* grt_cpu_reverse_sequence(grt_kernel_ctx* ctx) {
  const grt_tensor* x = ctx->inputs[0];
  const grt_tensor* lens = ctx->inputs[1];
  int64_t seq_dim, batch_dim;
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "seq_dim", &seq_dim));
  GRT_RETURN_IF_ERROR(grt_kernel_attr_int(ctx, "batch_dim", &batch_dim));
  int32_t rank = x->shape.rank;
  GRT_RETURN_IF_ERROR(grt_op_reverse_sequence_check(&x->shape, seq_dim, batch_dim, &lens->shape));
  int64_t batch = x->shape.dims[batch_dim], seq = x->shape.dims[seq_dim];
  const void* lv = grt_tensor_data(lens);
  for (int64_t b = 0; b < batch; b++)
    GRT_RETURN_IF_ERROR(grt_op_reverse_sequence_length(&x->shape, seq_dim, b,
                                                       grt_dtype_load_int(lens->dtype, lv, b)));
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, x->dtype, &x->shape, &out));
  int64_t stride[GRT_MAX_RANK];
  int64_t s = 1;
  for (int32_t d = rank; d-- > 0;) {
    stride[d] = s;
    s *= x->shape.dims[d];
  }
  size_t es = grt_dtype_size(x->dtype);
  const char* in = grt_tensor_data(x);
  char* o = grt_tensor_data(out);
  int64_t n = grt_tensor_num_elements(x);
  for (int64_t i = 0; i < n; i++) {
    int64_t at = (i / stride[seq_dim]) % seq;
    int64_t len = grt_dtype_load_int(lens->dtype, lv, (i / stride[batch_dim]) % batch);
    int64_t src = at < len ? i + (len - 1 - 2 * at) * stride[seq_dim] : i;
    memcpy(o + (size_t)i * es, in + (size_t)src * es, es);
  }
  return NULL;
}
