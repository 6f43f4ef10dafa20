/* OpenBLAS reads OPENBLAS_NUM_THREADS once, as it loads, and starts its
 * thread pool then, before main() and before any library constructor of
 * grt's could intervene. Its workers each allocate a work buffer as they
 * start, retrying forever if that fails, and its exit handler joins them:
 * under a memory cap of ~180 MB even `grt devices` printed its output and
 * never exited. grt runs OpenBLAS single-threaded anyway (grt splits GEMMs
 * over its own pool: backends/cpu/blas_buffers.h), so the command starts
 * itself again with OPENBLAS_NUM_THREADS=1 (execve ends every thread of the
 * first image, stuck or not). The same restart sets OMP_WAIT_POLICY=passive
 * for oneDNN's OpenMP teams, which libgomp also reads only as it loads:
 * idle team threads that spin hold a CPU the thread with the work needs,
 * and with two steps in flight on a loaded 2-core machine that made steps
 * 1.4-10x slower (backends/cpu/DNNL.md). A value the user set is kept. Host
 * programs own their environment and set them themselves (docs/memory.md). */
#ifndef GRT_TOOLS_BLAS_THREADS_H_
#define GRT_TOOLS_BLAS_THREADS_H_

#include <stdbool.h>

/* Sets OPENBLAS_NUM_THREADS=1 and OMP_WAIT_POLICY=passive where unset;
 * true when it set either (the caller
 * then re-executes with grt_blas_threads_reexec before doing anything). */
bool grt_blas_threads_set(void);

/* Runs this program again with the same arguments; returns only if that
 * fails (then carrying on with OpenBLAS's threads as they are). */
void grt_blas_threads_reexec(char** argv);

#endif /* GRT_TOOLS_BLAS_THREADS_H_ */
