/* OpenBLAS reads OPENBLAS_NUM_THREADS once, as it loads, and starts its
 * thread pool then, before main() and before any library constructor of
 * grt's could intervene. Its workers each allocate a work buffer as they
 * start, retrying forever if that fails, and its exit handler joins them:
 * under a memory cap of ~180 MB even `grt devices` printed its output and
 * never exited. grt runs OpenBLAS single-threaded anyway (grt splits GEMMs
 * over its own pool: backends/cpu/blas_buffers.h), so the command starts
 * itself again with OPENBLAS_NUM_THREADS=1 (execve ends every thread of the
 * first image, stuck or not). The same restart chooses how an idle thread
 * of the OpenMP team (oneDNN's, and grt's loops': backends/cpu/cpu_team.c)
 * waits, which libgomp also reads only as it loads:
 *  - on a quiet machine (1-minute load average at most 3/4 of the online
 *    CPUs), GOMP_SPINCOUNT=10000: spin about 0.3 ms on the 2-vCPU host,
 *    then sleep. Sleeping at once made every parallel region pay a wake-up
 *    of tens of microseconds (efficientnet_b0 batch 1: 0.89 of the time
 *    with the spin; docs/threading.md); libgomp's own default spins about
 *    6 ms, holding a core long after a run;
 *  - on a loaded one, OMP_WAIT_POLICY=passive: there a spinning thread
 *    takes the core the thread with the work, or another tenant, needs,
 *    and medians went up to ten times worse.
 * A value the user set for either variable is kept. Host programs own their
 * environment and set them themselves (docs/threading.md, docs/memory.md). */
#ifndef GRT_TOOLS_BLAS_THREADS_H_
#define GRT_TOOLS_BLAS_THREADS_H_

#include <stdbool.h>

/* libgomp's spin before an idle team thread sleeps, in its loop's turns. */
#define GRT_GOMP_SPINCOUNT "10000"

/* Whether the 1-minute load average is at most 3/4 of the online CPUs
 * (false when it cannot be read). */
bool grt_machine_is_quiet(void);

/* Sets OPENBLAS_NUM_THREADS=1, and GOMP_SPINCOUNT (quiet) or
 * OMP_WAIT_POLICY=passive (loaded) where neither of those is set;
 * true when it set either (the caller
 * then re-executes with grt_blas_threads_reexec before doing anything). */
bool grt_blas_threads_set(void);

/* Runs this program again with the same arguments; returns only if that
 * fails (then carrying on with OpenBLAS's threads as they are). */
void grt_blas_threads_reexec(char** argv);

#endif /* GRT_TOOLS_BLAS_THREADS_H_ */
