/* Holding the process's address space still for a moment: a mechanism of
 * the CPU backend's, for OpenBLAS's work buffers (blas_buffers.h).
 *
 * OpenBLAS (0.3.21, as Debian ships it) takes a 128 MiB work buffer with
 * mmap, falling back to malloc, and retries forever when both fail: under an
 * address-space cap (ulimit -v) a GEMM would spin instead of failing.
 * blas_buffers.c therefore allocates and frees that much room first and has
 * OpenBLAS take its buffer right after. That only works if no other thread
 * takes the freed room in between: with the room gone, OpenBLAS spins while
 * the thread that took it waits for the GEMM (a parallel_for join, the run),
 * so the process hangs for good.
 *
 * The holder takes this gate exclusively for the whole check-and-handover.
 * Everything in grt that takes new address space in one piece is bracketed
 * by base/mem.h's space hooks, which this file installs when the library
 * loads: the brackets take the gate shared (so they never wait for each
 * other), and wait only while a holder has it. Bracketed are base/mem.c's
 * large blocks and mapped pages, a thread's first malloc-family call (glibc
 * reserves a 64 MiB arena for each new thread then, even for a free()), and
 * thread creation in base/threadpool.c (an 8 MiB stack). Small blocks from
 * a thread's existing arena are not: they fit in address space the arena
 * already reserved, and keeping them unlocked keeps grt_malloc's hot path
 * free of any shared lock.
 *
 * What the gate cannot stop: threads grt does not own (OpenMP teams of
 * oneDNN, a host's own threads) allocating with the C library directly, and
 * a small block that makes glibc map a new heap for an arena. blas_buffers.c
 * keeps slack in its room for those. */
#ifndef GRT_BACKENDS_CPU_ADDRESS_SPACE_H_
#define GRT_BACKENDS_CPU_ADDRESS_SPACE_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Waits for every bracketed operation in flight to end, then keeps new ones
 * waiting until grt_address_space_release. The holder's own bracketed
 * operations pass (its room, its status messages). Not recursive. */
void grt_address_space_hold(void);
void grt_address_space_release(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_ADDRESS_SPACE_H_ */
