/* grt — sessions: place a graph on devices and run it.
 *
 * A session places its graph once (the plan is fixed for its life), keeps
 * variables on their devices across runs, and runs any mix of feeds, fetches
 * and targets, pruned to what they need; the pruned and partitioned form is
 * cached per (feeds, fetches, targets). Runs from several threads at once are
 * safe. */
#ifndef GRT_SESSION_H_
#define GRT_SESSION_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "grt/graph.h"
#include "grt/placer.h"
#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options (docs/session-options.md; unknown keys are errors) -------
 * One table in the library holds them (grt_session_options_describe lists
 * it); a test checks this list and the docs against it.
 *   allow_soft_placement   bool ("true"/"false"/"1"/"0"), default false
 *   log_device_placement   bool, default false: the placement log to the log sink
 *   inter_op_threads       >= 0 (0: one per core), default 0
 *   intra_op_threads       >= 0 (0: one per core), default 0
 *   concurrent_kernels     bool, default false: expensive nodes of one device run one
 *                          after another on the thread that readied them
 *   ps.devices             comma-separated device specs for the variable setter
 *   ps.strategy            greedy | round_robin
 *   memory_limit           bytes per device, K/M/G suffixes ("512M"); 0 (default): none.
 *                          An allocation past it fails its node with RESOURCE_EXHAUSTED
 *                          naming the bytes asked, the limit and what is in use; the
 *                          session stays usable.
 *   verify_constants       bool, default false: check a .grt file's constants against
 *                          their CRC-32C when the session is made
 *   rewrite                bool, default true: run the graph optimizer (constant
 *                          folding, simplification, layout, fusion) and pack constant
 *                          weights; false runs the graph exactly as written
 *   optimizer_off          comma-separated optimizer pass names (or "all") to switch
 *                          off, default "" (grt_graph_optimize's report lists the passes)
 *   fold_max_bytes         bytes, K/M/G suffixes, default 16M: constant folding leaves
 *                          larger values unfolded
 *   dims                   "NAME=SIZE,..." (default ""): symbolic dimensions (an ONNX
 *                          model's dim_param, kept in its Placeholders' dim_names)
 *                          bound to sizes; the session's graph declares them, so
 *                          shapes they decide are known and their computations fold,
 *                          and feeds of other sizes are refused
 *   graph_capture          bool, default false: a callable whose whole step runs on one
 *                          device that can capture (a GPU: CUDA Graphs) records its
 *                          step's launches on its second call and replays them from
 *                          then on (grt_callable_capture_report).
 *   cluster                "JOB:N,..." (default ""): this process is one task of a
 *                          cluster of processes started by mpirun, tasks given to
 *                          ranks in this order ("ps:1,worker:2": rank 0 is
 *                          /job:ps/task:0); the placer plans over every task's
 *                          devices and each rank runs its own task's part, values
 *                          crossing tasks sent over MPI (the plugin
 *                          libgrt_transport_mpi.so; docs/distributed.md).
 *   cluster_peer_timeout_ms milliseconds 0 to 3600000, default 8000: a cluster run
 *                          waiting on a task that has been silent, or in no run,
 *                          this long fails naming it; 0: wait for ever.
 * Keys "type.KEY" belong to the backend of device type TYPE, which declares
 * and checks them (grt_backend.options in grt/backend.h); built in:
 *   cpu.devices            logical CPU devices, 1 to 4096, default 1
 *   gpu.allow_growth       bool, default false
 *   gpu.memory_fraction    0 < f <= 1, default 1
 *   gpu.virtual_devices    MiB per logical GPU on each physical one: "1024,1024"
 * A plugin's keys are known once it is loaded ("test.copy_delay_us"). */
typedef struct grt_session_options grt_session_options;

GRT_API GRT_MUST_USE grt_status* grt_session_options_new(grt_session_options** out);
GRT_API void grt_session_options_free(grt_session_options* o); /* NULL is a no-op */
/* Sets one option; fails naming the key (unknown key, or a bad value). */
GRT_API GRT_MUST_USE grt_status* grt_session_options_set(grt_session_options* o, const char* key,
                                                         const char* value);
/* Every key the library takes now, one line each, "KEY\tVALUE TYPE\tDEFAULT\t
 * WHAT IT DOES\n": the session's table, then each device type's declared
 * options (CPU's and GPU's, then those of loaded plugins). Writes at most
 * `size` bytes (NUL-terminated) and returns the length the whole text needs. */
GRT_API size_t grt_session_options_describe(char* buf, size_t size);
/* The device set a session made with `o` (NULL: defaults) sees on this
 * machine: cpu.devices logical CPUs and every device the loaded backends
 * report, as their types' options shape them (gpu.virtual_devices makes
 * each card several GPUs), each described by its backend. What
 * `grt devices --option KEY=VALUE` prints. Caller frees *out. */
GRT_API GRT_MUST_USE grt_status* grt_session_options_device_set(const grt_session_options* o,
                                                                grt_device_set** out);

/* ---- sessions ---------------------------------------------------------- */

typedef struct grt_session grt_session;

/* Validates and places `g` on this machine's devices and makes the per-node
 * kernel state (variables start uninitialised). The session borrows `g`,
 * which must outlive it unchanged. `opts` may be NULL. Caller owns *out. */
GRT_API GRT_MUST_USE grt_status* grt_session_new(grt_graph* g, const grt_session_options* opts,
                                                 grt_session** out);
GRT_API void grt_session_free(grt_session* s); /* NULL is a no-op */

/* The plan of the session's graph as the user gave it (owned by the
 * session): the placement log's. When the optimizer changed the graph,
 * the optimized graph runs, its nodes pinned where this plan put the
 * nodes they stand for. */
GRT_API const grt_plan* grt_session_plan(const grt_session* s);

/* With the session option `cluster`: this process's MPI rank (its task is
 * the rank-th of the spec's tasks); -1 for a session of one process. A
 * fetch of a node another task runs comes back on rank 0 only (NULL on the
 * others); a fetch of this task's node comes back here too. */
GRT_API int32_t grt_session_cluster_rank(const grt_session* s);

/* ---- the graph optimizer ----------------------------------------------- */
/* With the session option rewrite (default true) a session runs its graph
 * through the optimizer's passes once it is placed: constant folding,
 * simplification, layout, fusion (the session options optimizer_off and
 * fold_max_bytes switch passes off and cap folding). A run is served by the
 * optimized graph when every node it names is there by that name (a node
 * that keeps its name computes the same value) and may be fed; any other
 * run uses the graph as written, so results never depend on the optimizer.
 *
 * The session's report: what each pass did, before/after node counts and
 * times, one line per pass; like snprintf, returns the length it needed. */
GRT_API size_t grt_session_optimizer_report(const grt_session* s, char* buf, size_t size);

/* The same passes over `g` for the host CPU, ahead of time (grt convert
 * --optimize): *out gets a new graph (it shares g's constant data: free it
 * before g); *report (NULL: not wanted) the report as text, to free(). */
GRT_API GRT_MUST_USE grt_status* grt_graph_optimize(grt_graph* g, const grt_session_options* opts,
                                                    grt_graph** out, char** report);

/* A tensor to feed in place of output "node" (port 0) or "node:k". */
typedef struct grt_feed {
  const char* name;
  grt_tensor* value; /* borrowed for the call */
} grt_feed;

/* Records what a run did, for grt_trace_write_json. */
typedef struct grt_trace grt_trace;
GRT_API GRT_MUST_USE grt_status* grt_trace_new(grt_trace** out);
GRT_API void grt_trace_free(grt_trace* t);
/* Chrome trace-event JSON (loads in Perfetto and chrome://tracing): a
 * process per device, a track per stream and worker, a slice per kernel and
 * per Send/Recv. */
GRT_API GRT_MUST_USE grt_status* grt_trace_write_json(const grt_trace* t, FILE* f);
GRT_API int64_t grt_trace_num_events(const grt_trace* t);

/* Runs the graph: computes `fetches` ("node" or "node:k") and runs `targets`
 * (node names, for their effects), with `feeds` standing in for the tensors
 * they name. out_values[i] receives fetch i (a reference the caller frees,
 * before or after the session is freed);
 * on failure nothing is returned and the session stays usable. `trace` may
 * be NULL. */
GRT_API GRT_MUST_USE grt_status* grt_session_run(grt_session* s, const grt_feed* feeds,
                                                 int32_t n_feeds, const char* const* fetches,
                                                 int32_t n_fetches, const char* const* targets,
                                                 int32_t n_targets, grt_tensor** out_values,
                                                 grt_trace* trace);

/* ---- per-run options, deadlines and cancellation -------------------------
 * TensorFlow's RunOptions.timeout_in_ms and Session::Close's cancellation.
 * A run stops at the next kernel boundary, or inside a kernel that loops at
 * its next shard boundary or check (grt_kernel_cancelled; the CPU's own
 * loops check about every millisecond), and fails with DEADLINE_EXCEEDED
 * (its deadline passed) or CANCELLED (grt_session_cancel) naming the node it
 * stopped at. A run that is past its deadline, or was cancelled, when its
 * last kernel ends fails the same way, even if that kernel (one library
 * call) could not be stopped: a run never reports success late. Everything
 * the run allocated is freed and the session stays usable: the next run
 * works. */
typedef struct grt_run_options grt_run_options;

GRT_API GRT_MUST_USE grt_status* grt_run_options_new(grt_run_options** out);
GRT_API void grt_run_options_free(grt_run_options* o); /* NULL is a no-op */
/* The run fails with DEADLINE_EXCEEDED once it has taken `timeout_ms`
 * milliseconds; 0 (the default): no deadline. Negative is an error. */
GRT_API GRT_MUST_USE grt_status* grt_run_options_set_timeout_ms(grt_run_options* o,
                                                                int64_t timeout_ms);

/* grt_session_run with options (`opts` may be NULL: grt_session_run). */
GRT_API GRT_MUST_USE grt_status* grt_session_run_with_options(
    grt_session* s, const grt_run_options* opts, const grt_feed* feeds, int32_t n_feeds,
    const char* const* fetches, int32_t n_fetches, const char* const* targets, int32_t n_targets,
    grt_tensor** out_values, grt_trace* trace);

/* Cancels every run of `s` in flight when it is called (from any thread);
 * runs started afterwards are not affected. Returns at once: each cancelled
 * run returns CANCELLED from its own call when it has stopped. */
GRT_API void grt_session_cancel(grt_session* s);

/* ---- callables: one run signature prepared once -------------------------
 * TensorFlow's Session::MakeCallable. A host that runs the same feeds,
 * fetches and targets many times prepares them once: names are resolved,
 * the graph is pruned and partitioned, and each call then runs with no name
 * lookups, string keys or cache search. */

/* grt_output (a tensor by node index and port) is declared in grt/graph.h. */

/* Resolves "node" or "node:k"; fails naming it when the graph has no such
 * node or output. */
GRT_API GRT_MUST_USE grt_status* grt_graph_output(const grt_graph* g, const char* name,
                                                  grt_output* out);

typedef struct grt_callable grt_callable;

/* Prepares a run of `s`: fed tensors, fetched tensors and target nodes (by
 * index). The callable borrows the session, which must outlive it. Caller
 * owns *out. */
GRT_API GRT_MUST_USE grt_status* grt_session_make_callable(
    grt_session* s, const grt_output* feeds, int32_t n_feeds, const grt_output* fetches,
    int32_t n_fetches, const int32_t* targets, int32_t n_targets, grt_callable** out);
/* The same by names, as grt_session_run takes them. */
GRT_API GRT_MUST_USE grt_status* grt_session_make_callable_by_name(
    grt_session* s, const char* const* feeds, int32_t n_feeds, const char* const* fetches,
    int32_t n_fetches, const char* const* targets, int32_t n_targets, grt_callable** out);
GRT_API void grt_callable_free(grt_callable* c); /* NULL is a no-op */

/* Runs it: feeds[i] stands for feed i (borrowed for the call; dtype and
 * shape checked), out_values[i] receives fetch i (a reference the caller
 * frees). Safe from several threads at once. `trace` may be NULL. */
GRT_API GRT_MUST_USE grt_status* grt_callable_run(grt_callable* c, grt_tensor* const* feeds,
                                                  grt_tensor** out_values, grt_trace* trace);
/* The same with per-run options (`opts` may be NULL); grt_session_cancel on
 * the callable's session cancels it too. */
GRT_API GRT_MUST_USE grt_status* grt_callable_run_with_options(grt_callable* c,
                                                               const grt_run_options* opts,
                                                               grt_tensor* const* feeds,
                                                               grt_tensor** out_values,
                                                               grt_trace* trace);

/* Captured steps (session option graph_capture). A callable whose kernels
 * all run on one device able to record its streams (the CUDA backend's
 * GPUs), with feeds and fetches crossing only to and from host memory,
 * runs its first call as usual (it warms caches: cuDNN algorithms, cuBLAS
 * workspaces, allocator regions), records its second, and from then on
 * replays the recording: one launch for the whole step. Feeds are copied
 * into buffers the recording reads and fetches out of buffers it writes,
 * so results are the same as without capture. A call with feed shapes
 * other than the recording's, or after a variable the step uses was given
 * a new tensor (Assign of another shape, a checkpoint restore), records
 * again. Calls of one captured callable run one at a time; calls of a
 * callable that cannot be captured run as usual. Writes one line, snprintf's
 * way (returns the length the whole line needs): "off (session option
 * graph_capture)", "not yet recorded", "captured on DEVICE: N kernels;
 * R recordings, P replays", or "not captured: WHY" naming the node and
 * what prevents it. */
GRT_API size_t grt_callable_capture_report(const grt_callable* c, char* buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GRT_SESSION_H_ */
