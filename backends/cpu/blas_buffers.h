/* Room for OpenBLAS's work buffers, checked before OpenBLAS is called.
 *
 * OpenBLAS (0.3.21, as Debian ships it) gives every concurrent GEMM call a
 * work buffer from a pool it fills on demand with malloc, about 128 MiB of
 * address space each, and when that malloc fails it retries forever: under
 * a memory cap (ulimit -v, a cgroup) a MatMul would spin at 100% CPU
 * instead of failing. grt cannot hand OpenBLAS its own memory, so it bounds
 * it instead: OpenBLAS runs single-threaded (grt's intra-op pool splits a
 * large GEMM into row blocks), so at most one buffer per concurrent caller
 * exists; and a call that would be one more than the pool has buffers
 * waits until no call is inside OpenBLAS, takes every buffer the pool has
 * (none allocates), allocates and frees as much as a new buffer on its own
 * thread, and has OpenBLAS allocate the next one at once. If the trial
 * allocation fails the kernel fails with RESOURCE_EXHAUSTED instead of
 * entering OpenBLAS. Growth is exclusive; calls that find a buffer run
 * concurrently. From the trial to OpenBLAS's own allocation the address
 * space is held still (address_space.h): no other grt thread maps a
 * block, starts a thread or reserves an arena meanwhile. What remains is
 * what that gate cannot stop (threads grt does not own), within the trial's
 * 65 MiB of slack. */
#ifndef GRT_BACKENDS_CPU_BLAS_BUFFERS_H_
#define GRT_BACKENDS_CPU_BLAS_BUFFERS_H_

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Before one OpenBLAS call on this thread: makes sure a work buffer is
 * free in OpenBLAS's pool for it, or says that there is no room for one.
 * On success pair with grt_blas_buffers_leave() after the call. */
GRT_MUST_USE grt_status* grt_blas_buffers_enter(void);
void grt_blas_buffers_leave(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_BLAS_BUFFERS_H_ */
