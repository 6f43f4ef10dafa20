/* OpenBLAS opened on first use (openblas.h). */
#include "backends/cpu/openblas.h"

#include <stddef.h>

grt_openblas_calls grt_openblas;

#define OPENBLAS_ROW(field, symbol) GRT_LAZY_ROW(grt_openblas_calls, field, symbol)
static const grt_lazy_symbol kSymbols[] = {GRT_OPENBLAS_CALLS(OPENBLAS_ROW)};

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
