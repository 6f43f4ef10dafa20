#include "tools/blas_core.h"

#include <stdlib.h>
#include <unistd.h>

void grt_select_blas_core(char** argv) {
  if (getenv("OPENBLAS_CORETYPE")) return;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vl"))
    return;
  if (setenv("OPENBLAS_CORETYPE", "SkylakeX", 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("OPENBLAS_CORETYPE"); /* the re-exec failed: carry on as we are */
}
