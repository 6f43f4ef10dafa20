/* Cancellation and deadlines of a run: a token the executor makes per run
 * and every piece of work of the run can test cheaply (kernels through
 * grt_kernel_cancelled, grt_parallel_for between shards). */
#ifndef GRT_BASE_CANCEL_H_
#define GRT_BASE_CANCEL_H_

#include <stdint.h>

#include "grt/backend.h" /* the grt_cancel_token typedef */
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct grt_cancel_token {
  /* The session's cancel counter (atomic): grt_session_cancel bumps it, and
   * a run is cancelled once it differs from the value the run started with. */
  const int64_t* epoch;
  int64_t start_epoch;
  int64_t deadline_ns; /* grt_monotonic_ns() value; 0: no deadline */
  int stopped;         /* atomic: 0, or the code once a check saw the stop */
};

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t grt_monotonic_ns(void);

/* A token for a run starting now: cancelled when *epoch changes, out of
 * time `timeout_ms` from now (0 or less: never). */
void grt_cancel_token_init(grt_cancel_token* t, const int64_t* epoch, int64_t timeout_ms);

/* GRT_OK while the run may go on, else GRT_CANCELLED or
 * GRT_DEADLINE_EXCEEDED (and from then on always that). NULL: GRT_OK.
 * Inline for the common case (no deadline, not cancelled): the executor
 * checks before and after every node. */
grt_code grt_cancel_check_slow(const grt_cancel_token* t);
static inline grt_code grt_cancel_check(const grt_cancel_token* t) {
  if (!t) return GRT_OK;
  if (!t->deadline_ns && !__atomic_load_n(&t->stopped, __ATOMIC_ACQUIRE) &&
      (!t->epoch || __atomic_load_n(t->epoch, __ATOMIC_ACQUIRE) == t->start_epoch))
    return GRT_OK;
  return grt_cancel_check_slow(t);
}

/* The stop a check has already seen (GRT_CANCELLED or
 * GRT_DEADLINE_EXCEEDED), or GRT_OK: unlike grt_cancel_check it looks at
 * neither the clock nor the session. After a kernel, GRT_OK means no check
 * during it stopped any of its work, so its outputs are whole even if the
 * deadline has passed since. */
static inline grt_code grt_cancel_seen(const grt_cancel_token* t) {
  return t ? (grt_code)__atomic_load_n(&t->stopped, __ATOMIC_ACQUIRE) : GRT_OK;
}

/* The token of the work the calling thread is doing (thread-local), so
 * grt_parallel_for can stop between shards without kernels passing it on.
 * Returns the previous one, for restoring. */
const grt_cancel_token* grt_cancel_set_current(const grt_cancel_token* t);
const grt_cancel_token* grt_cancel_current(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_CANCEL_H_ */
