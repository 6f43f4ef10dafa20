/* A pool of worker threads, started on demand: inter-op scheduling
 * (grt_threadpool_schedule) and intra-op data parallelism
 * (grt_parallel_for). */
#ifndef GRT_BASE_THREADPOOL_H_
#define GRT_BASE_THREADPOOL_H_

#include <stdint.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_threadpool grt_threadpool;

/* Up to `threads` workers (0 or less: one per online CPU), started as work
 * first needs them: making a pool starts no thread. Idle workers block; they
 * never spin. Caller owns the pool. */
GRT_MUST_USE grt_status* grt_threadpool_new(int threads, const char* name, grt_threadpool** out);
/* Finishes queued work, joins the workers. NULL is a no-op. */
void grt_threadpool_free(grt_threadpool* p);

int grt_threadpool_size(const grt_threadpool* p);
/* How many workers have started so far (for tests and benchmarks). */
int grt_threadpool_started(grt_threadpool* p);

/* Runs fn(arg) on a worker, starting one if none is idle and the pool has
 * room. Returns false when out of memory or when the pool has no worker and
 * cannot start one (nothing ran: the caller runs it). */
int grt_threadpool_schedule(grt_threadpool* p, void (*fn)(void* arg), void* arg);

/* Calls fn(ctx, begin, end) over [0, n) split into shards, on the pool's
 * workers and the calling thread, returning when all are done. Work below a
 * few tens of microseconds (n * cost_per_unit, in rough nanoseconds) runs
 * inline in one shard. A NULL pool runs everything inline. When the calling
 * thread has a cancel token (grt_cancel_current: a kernel of a run), no
 * shard or inline piece is much over 8 ms by that cost, and those left
 * after the run stops are skipped: fn must not count on being called for
 * every range. */
void grt_parallel_for(grt_threadpool* p, int64_t n, int64_t cost_per_unit,
                      void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx);

/* grt_parallel_for for an fn that pays a setup per call (scratch, a
 * transposed operand) and checks the caller's cancellation itself between
 * its units (grt_cancel_check(grt_cancel_current())): its shards are as
 * grt_parallel_for's were before the 8 ms bound, a few per thread. */
void grt_parallel_for_coarse(grt_threadpool* p, int64_t n, int64_t cost_per_unit,
                             void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx);

/* A team: runs body(arg) on up to `threads` threads at once, the calling
 * thread among them, and returns when every one has returned. */
typedef void (*grt_team_runner)(void (*body)(void* arg), void* arg, int threads);

/* Installs the team that runs grt_parallel_for's shards in place of a
 * pool's own workers (NULL: the workers again); process-wide. The team is
 * then at most the pool's size, the caller counted in it; shards are
 * claimed as before, so a smaller team only takes longer. The CPU backend
 * installs its OpenMP team, so that grt's loops and oneDNN's primitives
 * run on the same threads (backends/cpu/cpu_team.c). */
void grt_threadpool_set_team_runner(grt_team_runner run);
/* The runner installed, NULL for none. */
grt_team_runner grt_threadpool_team_runner(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_THREADPOOL_H_ */
