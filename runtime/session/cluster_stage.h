/* All-reduces across tasks whose members live in device memory (a GPU's):
 * the transport sums host memory, so the run's thread copies this task's
 * local sum down to host memory before the transport's all-reduce and the
 * cluster's sum up into every member's output after it. */
#ifndef GRT_RUNTIME_SESSION_CLUSTER_STAGE_H_
#define GRT_RUNTIME_SESSION_CLUSTER_STAGE_H_

#include "runtime/session/session_internal.h"

/* Whether group g's members are in memory the host cannot address. */
bool grt_cluster_stage_needed(const grt_session* s, const grt_executable* e, const exec_group* g);

/* A host tensor of 2 x src's elements, its first half a copy of `src` (on
 * member k's device): every member device's compute stream is synced first,
 * since the group's local reduction and src's producer queue there. The
 * second half is room for the cluster's sum. */
grt_status* grt_cluster_stage_down(grt_session* s, const grt_executable* e, const exec_group* g,
                                   int32_t k, const grt_tensor* src, grt_tensor** out_host);

/* Copies the second half of `host` into each member's output, through its
 * device's host-to-device stream, and waits for the copies. */
grt_status* grt_cluster_stage_up(grt_session* s, const grt_executable* e, const exec_group* g,
                                 const grt_tensor* host, grt_tensor* const* outputs);

#endif  // GRT_RUNTIME_SESSION_CLUSTER_STAGE_H_
