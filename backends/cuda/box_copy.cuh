// Element moves as "boxes": an affine map from an output's index space to
// an input's (strides per dimension, which may be 0 or negative, and an
// optional modulo for Tile), copied by one kernel per element size (1, 2, 4
// or 8 bytes) on the compute stream, or by the same loop on the host for
// the rows whose arguments live in host memory. Shared by array_move.cu and
// strided_slice.cu. Checked on an H200 by the GPU suite.
#ifndef GRT_BACKENDS_CUDA_BOX_COPY_CUH_
#define GRT_BACKENDS_CUDA_BOX_COPY_CUH_

#include "kernel_util.cuh"

namespace grt_cuda {

struct Box {
  int32_t rank;
  int64_t dims[GRT_MAX_RANK];
  int64_t src_strides[GRT_MAX_RANK];  // elements; 0 repeats (broadcast)
  int64_t dst_strides[GRT_MAX_RANK];
  int64_t src_mod[GRT_MAX_RANK];  // >0: the source index is taken modulo this (Tile)
};

__host__ __device__ inline void BoxOffsets(const Box& b, int64_t i, int64_t* src, int64_t* dst) {
  int64_t s = 0, d = 0;
  for (int k = b.rank - 1; k >= 0; k--) {
    int64_t c = i % b.dims[k];
    i /= b.dims[k];
    s += (b.src_mod[k] > 0 ? c % b.src_mod[k] : c) * b.src_strides[k];
    d += c * b.dst_strides[k];
  }
  *src = s;
  *dst = d;
}

template <typename U>
__global__ void BoxKernel(Box b, int64_t n, const U* src, U* dst) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t s, d;
    BoxOffsets(b, i, &s, &d);
    dst[d] = src[s];
  }
}

template <typename U>
void BoxHost(const Box& b, int64_t n, const U* src, U* dst) {
  for (int64_t i = 0; i < n; i++) {
    int64_t s, d;
    BoxOffsets(b, i, &s, &d);
    dst[d] = src[s];
  }
}

// A box with every stride contiguous over `dims` on both sides.
inline Box Dense(int32_t rank, const int64_t* dims) {
  Box b = {};
  b.rank = rank;
  int64_t st = 1;
  for (int k = rank - 1; k >= 0; k--) {
    b.dims[k] = dims[k] > 0 ? dims[k] : 1;
    b.src_strides[k] = b.dst_strides[k] = st;
    st *= dims[k];
  }
  if (rank == 0) {
    b.rank = 1;
    b.dims[0] = 1;
    b.src_strides[0] = b.dst_strides[0] = 1;
  }
  return b;
}

// Copies n elements of `esize` bytes along box b from src to dst (element
// pointers, already offset), on the host or on the compute stream.
inline grt_status* CopyBox(grt_kernel_ctx* ctx, bool host, size_t esize, const Box& b, int64_t n,
                           const void* src, void* dst, const char* op) {
  if (n <= 0) return NULL;
  if (host) {
    switch (esize) {
      case 1:
        BoxHost(b, n, (const uint8_t*)src, (uint8_t*)dst);
        break;
      case 2:
        BoxHost(b, n, (const uint16_t*)src, (uint16_t*)dst);
        break;
      case 4:
        BoxHost(b, n, (const uint32_t*)src, (uint32_t*)dst);
        break;
      case 8:
        BoxHost(b, n, (const uint64_t*)src, (uint64_t*)dst);
        break;
      default:
        return grt_status_new(GRT_UNIMPLEMENTED, "%s: %zu-byte elements", op, esize);
    }
    return NULL;
  }
  cudaStream_t s = grt_cuda_stream(ctx->stream);
  switch (esize) {
    case 1:
      BoxKernel<uint8_t><<<Blocks(n), kThreads, 0, s>>>(b, n, (const uint8_t*)src, (uint8_t*)dst);
      break;
    case 2:
      BoxKernel<uint16_t>
          <<<Blocks(n), kThreads, 0, s>>>(b, n, (const uint16_t*)src, (uint16_t*)dst);
      break;
    case 4:
      BoxKernel<uint32_t>
          <<<Blocks(n), kThreads, 0, s>>>(b, n, (const uint32_t*)src, (uint32_t*)dst);
      break;
    case 8:
      BoxKernel<unsigned long long><<<Blocks(n), kThreads, 0, s>>>(
          b, n, (const unsigned long long*)src, (unsigned long long*)dst);
      break;
    default:
      return grt_status_new(GRT_UNIMPLEMENTED, "%s: %zu-byte elements", op, esize);
  }
  return Launched(op);
}

}  // namespace grt_cuda

#endif  // GRT_BACKENDS_CUDA_BOX_COPY_CUH_
