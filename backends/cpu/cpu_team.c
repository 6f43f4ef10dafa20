/* grt_parallel_for's team in the CPU backend: the OpenMP team oneDNN's
 * primitives run on (base/threadpool.h, grt_threadpool_set_team_runner).
 *
 * Why: Debian's oneDNN runs every primitive on the calling thread's OpenMP
 * team, and grt's own loops (element-wise, reductions, its convolution
 * kernels, the activation rows after a convolution) ran on the session's
 * intra-op pool: two sets of threads taking turns on the same cores, each
 * put to sleep between its parallel regions and woken by the next. Waking
 * a sleeping thread costs tens of microseconds on a VM (a 14x14, 112 ->
 * 672 1x1 convolution ran in 234 us on two threads that slept between
 * calls, 107 us on two that spun, 233 us on one), more than a small
 * kernel's whole run. With one team, a thread that has just finished a
 * region can wait for the next one by spinning a while (libgomp's
 * GOMP_SPINCOUNT, which the grt command sets: docs/threading.md) without
 * taking a core from the other set. The team is sized as a oneDNN call's
 * is (grt_dnnl_team_enter): the pool's size divided by the parallel
 * executions in progress. A loop already inside a parallel region (a
 * kernel run on a team member) runs on its own thread, as OpenMP's nested
 * regions would. */
#include <omp.h>

#include "backends/cpu/dnnl_util.h"
#include "base/threadpool.h"

static void omp_team(void (*body)(void* arg), void* arg, int threads) {
  if (threads <= 1 || omp_in_parallel()) {
    body(arg);
    return;
  }
  int team = grt_dnnl_team_enter(threads);
  if (team <= 1) {
    body(arg);
  } else {
#pragma omp parallel num_threads(team)
    body(arg);
  }
  grt_dnnl_team_leave();
}

/* Built in: every pool's loops run on OpenMP once the backend is loaded. */
__attribute__((constructor)) static void install_team(void) {
  grt_threadpool_set_team_runner(omp_team);
}
