// ReverseSequence on the GPU: along seq_dim, the first seq_lengths[b]
// elements of each batch entry b (along batch_dim) reversed, the rest
// copied, moved by element size. seq_lengths lives in device memory: its
// range is checked there first and a bad length fails the op with the CPU
// kernel's INVALID_ARGUMENT (index_common.cuh). Checked on an H200 by the GPU suite.
#include "index_common.cuh"

namespace grt_cuda {
namespace {

using namespace index;

__global__ void CheckLensKernel(int64_t batch, int64_t seq, grt_dtype lt, const void* lens,
                                unsigned long long* fault) {
  for (int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; b < batch;
       b += (int64_t)gridDim.x * blockDim.x) {
    long long len = LoadI(lt, lens, b);
    if (len < 0 || len > seq) Fault(fault, b);
  }
}

__global__ void ReverseKernel(int64_t n, int64_t seq_stride, int64_t seq, int64_t batch_stride,
                              int64_t batch, grt_dtype lt, const void* lens, const void* x, void* y,
                              int size) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t at = (i / seq_stride) % seq;
    long long len = LoadI(lt, lens, (i / batch_stride) % batch);
    CopyElem(y, i, x, at < len ? i + (len - 1 - 2 * at) * seq_stride : i, size);
  }
}

grt_status* ReverseSequence(grt_kernel_ctx* ctx) {
  const grt_tensor *x = ctx->inputs[0], *lens = ctx->inputs[1];
  int64_t seq_dim = 0, batch_dim = 0;
  grt_status* st;
  if ((st = grt_kernel_attr_int(ctx, "seq_dim", &seq_dim))) return st;
  if ((st = grt_kernel_attr_int(ctx, "batch_dim", &batch_dim))) return st;
  if (!IsIndexType(grt_tensor_dtype(lens)))
    return NoKernel("ReverseSequence", grt_tensor_dtype(lens));
  grt_shape xs = ShapeOf(x), ls = ShapeOf(lens);
  int32_t rank = xs.rank;
  if ((st = grt_op_reverse_sequence_check(&xs, seq_dim, batch_dim, &ls)))
    return st;  // the CPU's checks
  int64_t batch = xs.dims[batch_dim], seq = xs.dims[seq_dim];
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  grt_dtype lt = grt_tensor_dtype(lens);
  if (batch > 0) {
    grt_tensor* word;
    if ((st = NewFault(ctx, &word))) return st;
    CheckLensKernel<<<Blocks(batch), kThreads, 0, s>>>(batch, seq, lt, grt_tensor_data(lens),
                                                       (unsigned long long*)grt_tensor_data(word));
    int64_t bad;
    if ((st = ReadFault(ctx, word, &bad))) return st;
    if (bad >= 0)
      return grt_op_reverse_sequence_length(&xs, seq_dim, bad, DeviceIndex(ctx, lens, bad));
  }
  grt_tensor* y;
  if ((st = grt_kernel_alloc_output(ctx, 0, grt_tensor_dtype(x), &xs, &y))) return st;
  int64_t n = NumElements(xs);
  if (n == 0) return NULL;
  ReverseKernel<<<Blocks(n), kThreads, 0, s>>>(
      n, Product(xs, (int32_t)seq_dim + 1, rank), seq, Product(xs, (int32_t)batch_dim + 1, rank),
      batch, lt, grt_tensor_data(lens), grt_tensor_data(x), grt_tensor_data(y),
      (int)grt_dtype_size(grt_tensor_dtype(x)));
  return Launched("ReverseSequence");
}

}  // namespace
}  // namespace grt_cuda

extern "C" grt_status* grt_cuda_reverse_sequence(grt_kernel_ctx* c) {
  return grt_cuda::ReverseSequence(c);
}
