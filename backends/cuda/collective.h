/* The CUDA backend's all-reduce (grt_backend.all_reduce, nccl_all_reduce.c)
 * and its device step (collective.cu). The copy-based group ran on an H200 over logical GPUs of one
 * card (tests/gpu/runs); across physical cards it has not run yet. */
#ifndef GRT_BACKENDS_CUDA_COLLECTIVE_H_
#define GRT_BACKENDS_CUDA_COLLECTIVE_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "grt/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One NcclAllReduce group on GPUs: NCCL when every member has its own
 * physical GPU (and the plugin was built with NCCL), else copies to the
 * first member's GPU, a reduction there and copies back. */
grt_status* grt_cuda_all_reduce(const grt_all_reduce_args* a);

/* Opens NCCL, as the first all-reduce over NCCL does (NULL at once in a
 * plugin built without NCCL). */
GRT_MUST_USE grt_status* grt_cuda_nccl_open(const char* needed_for);

/* Queues acc[i] = acc[i] op x[i] for n elements of dtype t on stream s
 * (the calling thread's current device must be the stream's). */
grt_status* grt_cuda_accumulate(cudaStream_t s, grt_dtype t, grt_reduction op, void* acc,
                                const void* x, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_COLLECTIVE_H_ */
