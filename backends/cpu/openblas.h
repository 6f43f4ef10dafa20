/* OpenBLAS, opened the first time a GEMM needs it, with a table of the calls
 * the CPU backend makes into it.
 *
 * Linked, libopenblas ran its constructor in every process that loaded
 * libgrt: ~2.4 ms of a 4 ms library load (it reads the CPU, sizes its
 * buffers and starts its thread pool; the pool's idle workers then spin on
 * sched_yield for a while), in `grt devices` and in sessions that run no
 * MatMul alike. Most graphs never reach OpenBLAS (oneDNN takes the
 * mid-sized products: LIBRARIES.md), so the backend opens it through the
 * same loader as the CUDA plugin's cuBLAS (base/lazy_lib.h) on the
 * first grt_blas_buffers_enter (blas_buffers.h), which every OpenBLAS call
 * passes. It is opened by soname, so a host that links OpenBLAS itself
 * shares the one copy (and its buffer pool) with grt. A failure (no
 * OpenBLAS, or no room to map it under a memory cap) fails that kernel with
 * FAILED_PRECONDITION naming the library and dlerror's words; it is kept,
 * and every later GEMM fails the same way. OpenBLAS reads
 * OPENBLAS_NUM_THREADS and OPENBLAS_CORETYPE as it loads, so setting them
 * before the first GEMM is enough now (tools/blas_threads.h). */
#ifndef GRT_BACKENDS_CPU_OPENBLAS_H_
#define GRT_BACKENDS_CPU_OPENBLAS_H_

#include <cblas.h>

#include "base/lazy_lib.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* OpenBLAS's work-buffer pool, exported by libopenblas (not in cblas.h):
 * blas_buffers.c sizes it before calls. */
void* blas_memory_alloc(int procpos);
void blas_memory_free(void* buffer);

/* The calls grt makes, each listed once: X(field, symbol). */
#define GRT_OPENBLAS_CALLS(X)                  \
  X(set_num_threads, openblas_set_num_threads) \
  X(sgemm, cblas_sgemm)                        \
  X(dgemm, cblas_dgemm)                        \
  X(sgemv, cblas_sgemv)                        \
  X(memory_alloc, blas_memory_alloc)           \
  X(memory_free, blas_memory_free)

/* The calls, filled by grt_openblas_open. */
typedef struct {
  GRT_OPENBLAS_CALLS(GRT_LAZY_FIELD)
} grt_openblas_calls;

/* Valid once grt_openblas_open has returned NULL (on any thread). */
extern grt_openblas_calls grt_openblas;

/* Opens OpenBLAS once; later calls return at once (the first failure
 * again, if it failed). `needed_for` names the work in the message. */
GRT_MUST_USE grt_status* grt_openblas_open(const char* needed_for);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_OPENBLAS_H_ */
