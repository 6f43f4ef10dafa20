/* OpenBLAS opened on first use (openblas.h). */
#include "backends/cpu/openblas.h"

#include <stddef.h>

grt_openblas_calls grt_openblas;

static const grt_lazy_symbol kSymbols[] = {
    GRT_LAZY_ROW(grt_openblas_calls, set_num_threads, openblas_set_num_threads) GRT_LAZY_ROW(
        grt_openblas_calls, sgemm, cblas_sgemm) GRT_LAZY_ROW(grt_openblas_calls, dgemm, cblas_dgemm)
        GRT_LAZY_ROW(grt_openblas_calls, sgemv, cblas_sgemv)
            GRT_LAZY_ROW(grt_openblas_calls, memory_alloc, blas_memory_alloc)
                GRT_LAZY_ROW(grt_openblas_calls, memory_free, blas_memory_free)};

/* Debian's soname (libopenblas.so.0, an alternative over the pthread,
 * OpenMP and serial builds); the unversioned name of a -dev install last. */
static const char* const kNames[] = {"libopenblas.so.0", "libopenblas.so", NULL};

static grt_lazy_lib g_lib = {
    .what = "OpenBLAS",
    .sonames = kNames,
    .symbols = kSymbols,
    .n_symbols = sizeof kSymbols / sizeof kSymbols[0],
    .table = &grt_openblas,
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

grt_status* grt_openblas_open(const char* needed_for) {
  return grt_lazy_lib_open(&g_lib, needed_for);
}
