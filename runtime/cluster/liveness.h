/* Liveness between the tasks of a cluster (DESIGN.md, "Liveness"): every
 * process tells every other, five times a second and at once when its run
 * fails or it exits, whether it is in a run, between runs, failed or gone;
 * a rank waiting on a peer asks here whether to go on waiting. */
#ifndef GRT_RUNTIME_CLUSTER_LIVENESS_H_
#define GRT_RUNTIME_CLUSTER_LIVENESS_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "runtime/cluster/cluster.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How often a process tells the others it is there. */
enum { GRT_LIVENESS_BEAT_MS = 200 };

/* Starts the process's liveness thread (once, when it joins): its notes
 * travel on the transport's largest tag, which crossings never use. At
 * exit it tells every peer it is gone before MPI is finalized. */
GRT_MUST_USE grt_status* grt_cluster_liveness_start(grt_cluster* c);

/* This process starts a run, or ends one (`failed`: with an error). */
void grt_cluster_run_begin(grt_cluster* c);
void grt_cluster_run_end(grt_cluster* c, bool failed);

/* Milliseconds on the clock the checks use (monotonic). */
int64_t grt_cluster_now_ms(void);

/* Whether to go on waiting for `peer`, waited for since `since_ms`: NULL,
 * or UNAVAILABLE naming the peer's task when it is gone, failed its run,
 * has not been heard from for `timeout_ms`, or has been out of any run for
 * `timeout_ms` of the wait. timeout_ms 0 checks only what peers said
 * (gone, failed) and MPI errors. No MPI call: cheap to ask often. */
GRT_MUST_USE grt_status* grt_cluster_peer_check(grt_cluster* c, int32_t peer, int64_t since_ms,
                                                int64_t timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* GRT_RUNTIME_CLUSTER_LIVENESS_H_ */
