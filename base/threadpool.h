/* A fixed pool of worker threads: inter-op scheduling (grt_threadpool_schedule)
 * and intra-op data parallelism (grt_parallel_for). */
#ifndef GRT_BASE_THREADPOOL_H_
#define GRT_BASE_THREADPOOL_H_

#include <stdint.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_threadpool grt_threadpool;

/* `threads` workers (0 or less: one per online CPU). Caller owns the pool. */
GRT_MUST_USE grt_status* grt_threadpool_new(int threads, const char* name, grt_threadpool** out);
/* Finishes queued work, joins the workers. NULL is a no-op. */
void grt_threadpool_free(grt_threadpool* p);

int grt_threadpool_size(const grt_threadpool* p);

/* Runs fn(arg) on a worker. Returns false when out of memory (nothing ran). */
int grt_threadpool_schedule(grt_threadpool* p, void (*fn)(void* arg), void* arg);

/* Calls fn(ctx, begin, end) over [0, n) split into shards, on the pool's
 * workers and the calling thread, returning when all are done. Work below a
 * few tens of microseconds (n * cost_per_unit, in rough nanoseconds) runs
 * inline in one shard. A NULL pool runs everything inline. */
void grt_parallel_for(grt_threadpool* p, int64_t n, int64_t cost_per_unit,
                      void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx);

#ifdef __cplusplus
}
#endif

#endif  /* GRT_BASE_THREADPOOL_H_ */
