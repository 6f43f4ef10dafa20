/* Sessions inside: the cached executable form of one (feeds, fetches,
 * targets) and the per-run state the executor works on. See
 * runtime/EXECUTION.md for the shape of it. */
#ifndef GRT_RUNTIME_SESSION_SESSION_INTERNAL_H_
#define GRT_RUNTIME_SESSION_SESSION_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "grt/placer.h"
#include "optimizer/optimizer.h"
#include "grt/session.h"
#include "ops/graph.h"
#include "runtime/cluster/cluster.h"
#include "runtime/device/device.h"
#include "kernels/op_kernel.h"
#include "runtime/session/rewrite_remap.h"
#include "runtime/session/session_options.h"
#include "base/threadpool.h"

typedef struct grt_executable grt_executable;

struct grt_session {
  /* The graph that runs: the user's, or the optimizer's result (then the
   * user's graph and plan are kept in user_graph/user_plan, `opt` owns the
   * optimized graph, and runs it cannot serve go to `fallback`). */
  grt_graph* graph;
  grt_session_options opts; /* a copy; strings owned */
  grt_device_set* devices;
  grt_plan* plan;
  grt_device** device; /* one per device in the set that this machine has */
  int32_t n_devices;
  const grt_op_kernel** kernels; /* per graph node, on its assigned device */
  void** states;                 /* per graph node: kernel state or NULL */
  bool* borrowed_state;          /* per graph node: the state is the parent's (a fallback) */
  grt_remap* remap;              /* the graph rewrite's replacements (rewrite_remap.h) */
  grt_graph* user_graph;         /* set when the optimized graph runs */
  grt_graph* bound;              /* owned: the user's graph with `dims` bound (dims.c), or NULL */
  grt_plan* user_plan;           /* the user's graph's plan (the placement log shows it) */
  grt_opt_result opt;            /* the optimizer's graph, feed flags and report */
  /* The user's graph as a session of its own, made on the first run the
   * optimized graph cannot serve (optimize.c). It borrows the devices,
   * thread pools, plan and variable states of its parent. */
  grt_session* fallback;
  grt_session* parent;
  grt_threadpool* inter_op;
  grt_threadpool* intra_op;
  int64_t steps;        /* atomic: runs started */
  int64_t cancel_epoch; /* atomic: bumped by grt_session_cancel (base/cancel.h) */
  pthread_mutex_t cache_mu;
  grt_executable* cache; /* linked list, newest first */
  /* With graph_capture: a recording (capture.c) holds it exclusively, so
   * no other run queues work on the recorded device's streams meanwhile;
   * runs and replays hold it shared. Unused without the option. */
  pthread_rwlock_t capture_lock;
  /* With the cluster option: the process's cluster (runtime/cluster), whose
   * devices s->devices are; each rank runs its own task's nodes. */
  grt_cluster* cluster;
  pthread_mutex_t cluster_mu; /* one run at a time: every rank's steps in one order */
};

/* True when the node is placed on another task of the session's cluster. */
bool grt_session_node_is_remote(const grt_session* s, int32_t node);

/* Session creation steps shared with optimize.c (session.c). */
GRT_MUST_USE grt_status* grt_session_place_graph(grt_session* s, grt_graph* g, grt_plan** out);
/* Kernels and states for every node; a fallback borrows its stateful
 * nodes' states (variables, random generators) from `parent` by name. */
GRT_MUST_USE grt_status* grt_session_make_kernels(grt_session* s, const grt_session* parent);
/* Runs the optimizer over the placed graph (optimize.c); on change, the
 * session runs the optimized graph from then on. */
GRT_MUST_USE grt_status* grt_session_optimize(grt_session* s);
/* The session a run goes to: s, or its fallback when the optimized graph
 * does not have every name the run uses (or one fed may not be fed). */
GRT_MUST_USE grt_status* grt_session_route(grt_session* s, const grt_feed* feeds, int32_t n_feeds,
                                           const char* const* fetches, int32_t n_fetches,
                                           const char* const* targets, int32_t n_targets,
                                           grt_session** out);

enum exec_kind { EXEC_KERNEL = 0, EXEC_SEND = 1, EXEC_RECV = 2 };

/* grt_executable.slot_uses' mark of a slot held to the run's end. */
enum { kSlotPinned = -1 };

/* One thing the executor runs: a graph node's kernel, or one side of a
 * cross-device copy. */
typedef struct exec_node {
  int32_t node;   /* graph node (EXEC_KERNEL), or the copy's source node */
  int32_t device; /* device index */
  uint8_t kind;
  bool run_inline; /* cheap enough to run on the thread that readied it */
  /* KERNEL: some input is taken by reference. Without one the executor
   * never reads the node's signature, whose per-node arrays were the most
   * frequent cache miss of a long chain of small nodes. */
  bool ref_inputs;
  int32_t n_inputs, in_start;   /* slot index per data input: exe->in_slots[in_start + i] */
  int32_t n_outputs, out_start; /* its outputs are slots out_start .. +n_outputs */
  int32_t succ_start, succ_end; /* exe->succ[]: nodes whose pending count it decrements */
  int32_t pending;              /* initial pending count */
  int32_t peer;                 /* SEND: its RECV; RECV: its SEND */
  bool src_host, dst_host;      /* SEND: which side's tensor is in host memory (plan flags) */
  uint64_t host_outputs;        /* KERNEL: bit k, output k is a HostMemory output */
  /* KERNEL: a Const whose value (the graph's tensor) is in its slot from the
   * start of every run: it runs nothing, and consumers on its device do not
   * wait for it. */
  grt_tensor* preset;
  /* KERNEL: the rewrite's node standing in for this one (and the nodes it
   * swallowed), or NULL: its op, attrs, kernel, state and inputs are used. */
  const grt_rewritten* rw;
  /* KERNEL: 1 + its NcclAllReduce group in exe->groups (gang scheduled:
   * collective_groups.c), 0 for none. */
  int32_t collective;
  /* SEND or RECV between tasks of a cluster: the peer's rank and the
   * crossing's index (its tag, with the step); remote_peer -1 otherwise. A
   * remote SEND has no local peer; a remote RECV waits for its message,
   * which the run's own thread polls (executor.c). */
  int32_t remote_peer, crossing, remote_port;
} exec_node;

/* The NcclAllReduce nodes of one executable sharing a shared_name: they run
 * together, as one backend all_reduce call, once all are ready. */
typedef struct exec_group {
  const char* shared_name; /* the graph's attr string */
  grt_reduction reduction;
  const grt_backend* backend;
  int32_t start, n; /* exe->group_members[start .. start+n): exec nodes in device order */
  int32_t cluster;  /* 1 + its entry in exe->cluster_groups when it spans tasks, else 0 */
} exec_group;

/* An NcclAllReduce group whose members are on several tasks of a cluster
 * (collective_groups.c): this task's members are reduced locally, then
 * summed with the other tasks' through the transport's all-reduce, which
 * every rank starts in this list's order (by shared_name), members or not.
 * A task with no member adds zeros. */
typedef struct exec_cluster_group {
  const char* shared_name;
  grt_dtype dtype;
  int64_t count; /* elements: the members' static shape */
  int32_t group; /* this task's exec group, -1 when it holds no member */
} exec_cluster_group;

struct grt_executable {
  grt_executable* next;
  char* key;
  int32_t n_nodes;
  exec_node* nodes;
  int32_t* in_slots;
  int32_t* succ;
  int32_t n_slots;
  /* Initial consumer count per slot (fetches included), or kSlotPinned:
   * a fed or preset value, held until the run ends and never counted. */
  int32_t* slot_uses;
  int32_t* pending; /* initial pending count per node (nodes[i].pending), copied per run */
  /* Some Send copies between devices the host cannot both address: the
   * run keeps each copy's source and events beside its slots (executor.c);
   * a run between logical CPUs has no room for them to clear. */
  bool copies;
  int32_t n_feeds;
  int32_t* feed_slots; /* slot of feed i (in the caller's order) */
  int32_t n_fetches;
  int32_t* fetch_slots;
  int32_t n_initial;
  int32_t* initial; /* nodes ready at the start */
  int32_t n_presets;
  int32_t* presets; /* KERNEL nodes with a preset value */
  int32_t n_async;
  int32_t* async_devices; /* devices with asynchronous streams the run uses: synced at its end */
  int32_t n_groups;
  exec_group* groups; /* collective groups (collective_groups.c) */
  int32_t* group_members;
  int32_t n_cluster_groups;
  exec_cluster_group* cluster_groups; /* groups across tasks, in the order every rank runs them */
  int32_t n_remote_recvs;
  int32_t* remote_recvs; /* remote RECV exec nodes, in crossing order */
};

/* A run's feeds, fetches and targets resolved to graph nodes. */
typedef struct grt_run_signature {
  int32_t n_feeds, n_fetches, n_targets;
  grt_output* feeds;
  grt_output* fetches;
  int32_t* targets;
} grt_run_signature;

/* Resolves names ("node", "node:k"; targets by node name); errors name the
 * one at fault. Clear with grt_run_signature_clear. */
GRT_MUST_USE grt_status* grt_run_signature_resolve(const grt_graph* g, const grt_feed* feeds,
                                                   int32_t nf, const char* const* fetches,
                                                   int32_t nx, const char* const* targets,
                                                   int32_t nt, grt_run_signature* out);
void grt_run_signature_clear(grt_run_signature* sig);

/* Prunes and partitions the graph for `sig` (not cached; caller frees). */
GRT_MUST_USE grt_status* grt_executable_build(grt_session* s, const grt_run_signature* sig,
                                              grt_executable** out);

/* Checks a fed value against the tensor it stands for (dtype, shape). */
GRT_MUST_USE grt_status* grt_session_check_feed(const grt_session* s, grt_output at,
                                                const char* name, const grt_tensor* value);

/* Builds (or finds in the cache) the executable for a run. */
GRT_MUST_USE grt_status* grt_session_executable(grt_session* s, const grt_feed* feeds,
                                                int32_t n_feeds, const char* const* fetches,
                                                int32_t n_fetches, const char* const* targets,
                                                int32_t n_targets, grt_executable** out);
void grt_executable_free(grt_executable* e);

/* Runs `e` once with the fed tensors (in e's feed order). On success
 * out_values[i] holds fetch i. */
struct grt_run_options {
  int64_t timeout_ms; /* 0: none */
};

/* `opts` may be NULL (no deadline). A run is cancelled by grt_session_cancel
 * or its deadline at the next node, or at a shard boundary inside a kernel;
 * it then fails with CANCELLED or DEADLINE_EXCEEDED naming the node. */
GRT_MUST_USE grt_status* grt_executor_run(grt_session* s, const grt_executable* e,
                                          const grt_run_options* opts, grt_tensor* const* feeds,
                                          grt_tensor** out_values, grt_trace* trace);

/* A recording run (capture.c): the executor gives the recorded device's
 * kernels and copies memory from `pool` (kept for the replays), never
 * syncs a stream or an event (a copy to the host is joined to the device's
 * compute stream instead), tells `saw_var` every variable a kernel reads
 * or takes by reference, and at the end hands back the fetched tensors
 * (written only when the recording is replayed) without syncing. */
typedef struct grt_capture_run {
  int32_t device;
  grt_allocator* pool[GRT_NUM_MEMORY_KINDS];
  void (*saw_var)(void* ctx, grt_var* v, const grt_tensor* value, bool by_ref);
  void* ctx;
} grt_capture_run;

/* grt_executor_run, recording when `cap` is not NULL. */
GRT_MUST_USE grt_status* grt_executor_run_ex(grt_session* s, const grt_executable* e,
                                             const grt_run_options* opts, grt_tensor* const* feeds,
                                             grt_tensor** out_values, grt_trace* trace,
                                             const grt_capture_run* cap);

/* Collective groups (collective_groups.c). Finds the executable's
 * NcclAllReduce nodes, groups them by shared_name and checks each group
 * (num_devices members, one per device, one reduction, dtype and shape, a
 * backend with all_reduce, no member depending on another); errors name the
 * group and its nodes. Sets e->groups and each member's `collective`. In a
 * cluster, `kept` (per graph node: nonzero when the run keeps it, on any
 * task) finds the groups that span tasks: e->cluster_groups. */
GRT_MUST_USE grt_status* grt_collective_groups_build(grt_session* s, grt_executable* e,
                                                     const uint8_t* kept);
/* A member's output on device d, shaped as `like`: device memory, the
 * tensor's header kept off it where the host cannot address it. */
GRT_MUST_USE grt_status* grt_collective_output_new(grt_device* d, const grt_tensor* like,
                                                   grt_tensor** out);
/* Runs group g over the members' inputs (in member order): allocates each
 * member's output on its device and calls the backend's all_reduce. On
 * error the outputs are freed and left NULL. Errors name the group. */
GRT_MUST_USE grt_status* grt_collective_group_run(grt_session* s, const grt_executable* e,
                                                  const exec_group* g, grt_tensor* const* inputs,
                                                  grt_tensor** outputs,
                                                  const grt_cancel_token* cancel);

/* Trace recording (trace.c). */
void grt_trace_begin_run(grt_trace* t, const grt_session* s);
void grt_trace_add(grt_trace* t, const char* name, const char* op, const char* cat, int32_t device,
                   int32_t thread, int64_t start_ns, int64_t dur_ns);
int64_t grt_trace_now_ns(void);

#endif /* GRT_RUNTIME_SESSION_SESSION_INTERNAL_H_ */
