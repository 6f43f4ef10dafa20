/* A cluster of processes running one graph (DESIGN.md): the spec, the
 * transport plugin, the start-up exchange of devices and placement, and the
 * wire protocol of tensors between tasks. One per process, as MPI is. */
#ifndef GRT_RUNTIME_CLUSTER_CLUSTER_H_
#define GRT_RUNTIME_CLUSTER_CLUSTER_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/placer.h"
#include "grt/status.h"
#include "grt/transport.h"
#include "ops/graph.h"
#include "runtime/device/device_set.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GRT_CLUSTER_MAX_JOBS = 8, GRT_CLUSTER_MAX_TASKS = 1024, GRT_CLUSTER_JOB_NAME_MAX = 32 };

/* "ps:1,worker:2": jobs in order, each with its task count. */
typedef struct grt_cluster_spec {
  int32_t n_jobs, n_tasks;
  char job[GRT_CLUSTER_MAX_JOBS][GRT_CLUSTER_JOB_NAME_MAX];
  int32_t tasks[GRT_CLUSTER_MAX_JOBS];
} grt_cluster_spec;

/* Parses `text`; errors quote it and name the part that is wrong. */
GRT_MUST_USE grt_status* grt_cluster_spec_parse(const char* text, grt_cluster_spec* out);
/* The job and task of `rank`: ranks go to the jobs' tasks in spec order. */
void grt_cluster_spec_task(const grt_cluster_spec* s, int32_t rank, const char** job,
                           int32_t* task);

/* The transport plugin libgrt_transport_NAME.so, opened once (beside the
 * library or on GRT_PLUGIN_PATH); the error says what is missing. */
GRT_MUST_USE grt_status* grt_transport_open(const char* name, const grt_transport** out);

typedef struct grt_cluster grt_cluster;

/* Joins the process's cluster (made on the first call; later calls must
 * give the same spec): initialises the transport, checks its size against
 * the spec, and exchanges every rank's device counts. *out_devices (the
 * caller's) is every task's devices, named /job:J/replica:0/task:T/...;
 * this rank's are present, the others' are not (not on this machine). */
GRT_MUST_USE grt_status* grt_cluster_join(const char* spec, const grt_device_set* local,
                                          grt_cluster** out, grt_device_set** out_devices);
int32_t grt_cluster_rank(const grt_cluster* c);
int32_t grt_cluster_size(const grt_cluster* c);
/* The rank that owns a device of the cluster's device set (by its name). */
int32_t grt_cluster_device_rank(const grt_cluster* c, const grt_device_set* ds, int32_t device);
/* "/job:worker/replica:0/task:1" for a rank. */
const char* grt_cluster_task_name(const grt_cluster* c, int32_t rank);

/* Exchanges a hash of the user's graph and its placement, and one of the
 * graph and plan that run (the optimizer's, or the same again), in one
 * all-gather; fails on every rank, with one line, when any rank's differs. */
GRT_MUST_USE grt_status* grt_cluster_check_plan(grt_cluster* c, const grt_graph* g,
                                                const grt_plan* plan, const grt_graph* run_graph,
                                                const grt_plan* run_plan);

/* The tag of crossing `index` at `step` (DESIGN.md); an error when the
 * transport's tags cannot hold it. */
GRT_MUST_USE grt_status* grt_cluster_tag(const grt_cluster* c, int32_t index, int64_t step,
                                         int64_t* out);

/* ---- checkpoints (checkpoint.c) ---------------------------------------- */
/* The rank that writes checkpoints: /job:chief/task:0, else
 * /job:worker/task:0, else rank 0. */
int32_t grt_cluster_chief(const grt_cluster* c);
/* The tag of the variables sent to the chief (one no step uses): each
 * rank sends its variables in graph order, and MPI keeps that order. */
int64_t grt_cluster_checkpoint_tag(const grt_cluster* c);

/* ---- all-reduces across tasks (allreduce.c) --------------------------- */
/* Starts the sum over every rank of `count` elements of `dtype` from `in`
 * into `out` (`in` may equal `out`). Every rank starts its all-reduces in
 * the same order. `group` names it in errors. */
GRT_MUST_USE grt_status* grt_cluster_all_reduce_start(grt_cluster* c, const char* group,
                                                      const void* in, void* out, int64_t count,
                                                      grt_dtype dtype, grt_transport_request** req);
/* *done once the sum is in `out`; the request is freed then. */
GRT_MUST_USE grt_status* grt_cluster_all_reduce_poll(grt_cluster* c, const char* group,
                                                     grt_transport_request* req, bool* done);
/* Forgets a started all-reduce: its buffers must stay valid for the
 * process's life, and this process's cluster can run no more collectives. */
void grt_cluster_all_reduce_abandon(grt_cluster* c, grt_transport_request* req);

/* ---- the wire: one tensor (or a control signal) per message ---------- */
typedef struct grt_wire_send grt_wire_send;
typedef struct grt_wire_recv grt_wire_recv;

/* Starts sending `t` (NULL: a control signal) to `peer`; holds a
 * reference to it until the send is done. */
GRT_MUST_USE grt_status* grt_wire_send_start(grt_cluster* c, int32_t peer, int64_t tag,
                                             grt_tensor* t, grt_wire_send** out);
/* *done once every byte has left; frees the send then. */
GRT_MUST_USE grt_status* grt_wire_send_poll(grt_cluster* c, grt_wire_send* s, bool* done);
/* The rank the send goes to. */
int32_t grt_wire_send_peer(const grt_wire_send* s);
/* Gives up on a send: the tensor stays referenced for the process's life,
 * as the transport may still read it. */
void grt_wire_send_abandon(grt_cluster* c, grt_wire_send* s);

GRT_MUST_USE grt_status* grt_wire_recv_start(grt_cluster* c, int32_t peer, int64_t tag,
                                             grt_wire_recv** out);
/* Progresses the receive; once done, *out is the tensor (host memory from
 * `a`; NULL for a control signal) and the receive is freed. */
GRT_MUST_USE grt_status* grt_wire_recv_poll(grt_cluster* c, grt_wire_recv* r, grt_allocator* a,
                                            bool* done, grt_tensor** out);
void grt_wire_recv_cancel(grt_cluster* c, grt_wire_recv* r);

#ifdef __cplusplus
}
#endif

#endif /* GRT_RUNTIME_CLUSTER_CLUSTER_H_ */
