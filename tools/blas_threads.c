/* OpenBLAS single-threaded from the start, and the OpenMP team's wait
 * (blas_threads.h). */
#include "tools/blas_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

bool grt_machine_is_quiet(void) {
  FILE* f = fopen("/proc/loadavg", "r");
  double load = 0;
  bool read = f && fscanf(f, "%lf", &load) == 1;
  if (f) fclose(f);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return read && cpus > 0 && load <= 0.75 * (double)cpus;
}

bool grt_blas_threads_set(void) {
  bool changed = false;
  if (!getenv("OPENBLAS_NUM_THREADS")) changed |= setenv("OPENBLAS_NUM_THREADS", "1", 0) == 0;
  if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT")) {
    if (grt_machine_is_quiet())
      changed |= setenv("GOMP_SPINCOUNT", GRT_GOMP_SPINCOUNT, 0) == 0;
    else
      changed |= setenv("OMP_WAIT_POLICY", "passive", 0) == 0;
  }
  return changed;
}

void grt_blas_threads_reexec(char** argv) { execv("/proc/self/exe", argv); }
