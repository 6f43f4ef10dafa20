/* grt — the backend interface: what a device backend implements and what
 * it may call. The CPU backend is built into the library; others (CUDA, a
 * test backend) are plugins: shared libraries named libgrt_backend_*.so,
 * found beside libgrt.so or on GRT_PLUGIN_PATH, each exporting
 *
 *   const grt_backend* grt_backend_entry(uint32_t host_api_version);
 *
 * The host refuses a plugin whose api_version differs from its own
 * GRT_BACKEND_API_VERSION (with a one-line reason in grt_backends_report).
 *
 * The split follows ggml's reg -> device -> stream and IREE's driver
 * factories: a backend probes how many devices the machine has and makes
 * them; a device owns its memory kinds (allocators) and its streams; a
 * stream runs work in order; events order work across streams. Kernels are
 * looked up by op and launched on a device's compute stream. */
#ifndef GRT_BACKEND_H_
#define GRT_BACKEND_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct below changes layout or meaning (3: grt_backend
 * gained all_reduce; 4: grt_device_ops gained the capture hooks; 5: session
 * options a backend declares itself (grt_backend.options) replace the GPU
 * fields of grt_device_config). */
#define GRT_BACKEND_API_VERSION 5u

typedef struct grt_backend grt_backend;
typedef struct grt_device grt_device;
typedef struct grt_stream grt_stream;
typedef struct grt_event grt_event;
typedef struct grt_op_kernel grt_op_kernel;
typedef struct grt_kernel_ctx grt_kernel_ctx;
typedef struct grt_captured grt_captured;

/* ---- memory --------------------------------------------------------------
 * An allocator is a vtable plus its own state (embed this struct first).
 * alloc returns NULL when memory runs out; free(NULL) is a no-op. */
typedef struct grt_allocator grt_allocator;
struct grt_allocator {
  const char* name;
  void* (*alloc)(grt_allocator* self, size_t size, size_t alignment);
  void (*free)(grt_allocator* self, void* ptr);
};

/* Optional, for an allocator about to return NULL: leaves `why` for the
 * calling thread, a status whose message says why (the allocator's state:
 * bytes in use, largest free chunk, limit); grt appends that message to its
 * "NAME allocator: out of memory allocating N bytes" with the node. Takes
 * ownership of `why`. An allocator that never calls it keeps working as
 * before (added without an API version change: a new export, no layout). */
GRT_API void grt_allocator_fail_reason(grt_status* why);

/* Every device has both kinds; on a host device they may be one allocator.
 * HOST is memory the host reads and writes directly (pinned staging memory
 * on a GPU; TensorFlow's HostMemory arguments live there). A DEVICE kind
 * that is a different allocator from the HOST kind is memory the host may
 * not address: grt keeps tensor headers off it and never reads it. */
typedef enum grt_memory_kind {
  GRT_MEMORY_DEVICE = 0,
  GRT_MEMORY_HOST = 1,
} grt_memory_kind;
#define GRT_NUM_MEMORY_KINDS 2

/* ---- streams and events -------------------------------------------------- */

typedef enum grt_stream_kind {
  GRT_STREAM_COMPUTE = 0,
  GRT_STREAM_HOST_TO_DEVICE = 1,
  GRT_STREAM_DEVICE_TO_HOST = 2,
  GRT_STREAM_DEVICE_TO_DEVICE = 3,
} grt_stream_kind;
#define GRT_NUM_STREAM_KINDS 4

typedef struct grt_stream_ops {
  /* Queues a copy of n bytes; the stream's kind says which memory each side
   * is in. src must stay valid until the copy completes (an event recorded
   * after it). */
  grt_status* (*memcpy)(grt_stream* s, void* dst, const void* src, size_t n);
  /* `e` completes when the work queued on `s` so far completes. */
  grt_status* (*record)(grt_stream* s, grt_event* e);
  /* Work queued on `s` after this call waits for `e`. */
  grt_status* (*wait)(grt_stream* s, grt_event* e);
  /* Blocks the calling thread until the work queued on `s` completes. */
  grt_status* (*sync)(grt_stream* s);
} grt_stream_ops;

struct grt_stream {
  const grt_stream_ops* ops;
  grt_device* device;
  grt_stream_kind kind;
  /* Work is complete when the call queuing it returns (host streams): the
   * executor then needs no events for it. */
  bool synchronous;
};

typedef struct grt_event_ops {
  /* Blocks the calling thread until the event completes. */
  grt_status* (*sync)(grt_event* e);
  void (*free)(grt_event* e);
} grt_event_ops;

struct grt_event {
  const grt_event_ops* ops;
  grt_device* device;
};

/* ---- devices ------------------------------------------------------------- */

typedef struct grt_device_ops {
  void (*free)(grt_device* d);
  /* A new event of this device (caller frees with grt_event_free). */
  grt_status* (*event_new)(grt_device* d, grt_event** out);
  /* Runs kernel k for ctx on stream s: queues its work there and returns;
   * outputs exist (allocated, shaped) on return, their contents once the
   * stream reaches them. NULL: the device calls k->compute(ctx) itself. */
  grt_status* (*launch)(grt_device* d, grt_stream* s, const grt_op_kernel* k, grt_kernel_ctx* ctx);
  /* Bytes in use and the peak so far, in one memory kind (may be NULL). */
  void (*memory_stats)(grt_device* d, grt_memory_kind kind, size_t* in_use, size_t* peak);

  /* Optional (all five or none): capture of a repeated step, as CUDA Graphs
   * record a stream (grt_callable_run with the session option
   * graph_capture; runtime/EXECUTION.md "Captured steps").
   *
   * capturable: whether kernel k's launches may be recorded and replayed
   * later: its work is only queued on the compute stream (no stream or
   * event sync, no host read of device memory) and depends on nothing the
   * host computes per call (a random op's counter). false sets *why to a
   * short reason ("synchronises its stream to check indices").
   * capture_begin: from now on work queued on the compute stream, and on
   * the device's other streams once they wait for an event recorded on it,
   * is recorded instead of run. Nothing may sync a stream or an event of
   * the device until capture_end. The session queues nothing else on the
   * device meanwhile.
   * capture_end: stops recording (every other stream's recorded work has
   * been joined to the compute stream by an event it waits for) and makes
   * *out, ready to replay; on failure (or when a capture failed midway)
   * returns the error and leaves *out NULL. Always ends the capture.
   * replay: queues the recorded work on the compute stream once. Its
   * memory is the memory the captured kernels were given: the caller keeps
   * it allocated and unchanged in place for as long as *out lives.
   * captured_free: frees what capture_end made (NULL is a no-op). */
  bool (*capturable)(grt_device* d, const grt_op_kernel* k, const char** why);
  grt_status* (*capture_begin)(grt_device* d);
  grt_status* (*capture_end)(grt_device* d, grt_captured** out);
  grt_status* (*replay)(grt_device* d, grt_captured* g);
  void (*captured_free)(grt_device* d, grt_captured* g);
} grt_device_ops;

struct grt_device {
  const grt_device_ops* ops;
  const grt_backend* backend;
  const char* name; /* canonical "/job:localhost/replica:0/task:0/device:TYPE:ID" */
  int32_t id;       /* the ID in TYPE:ID */
  int32_t index;    /* in the session's device set (set by the session) */
  /* Its memory is ordinary host memory and its streams are synchronous, so
   * a tensor can pass to another such device without a copy. */
  bool host_addressable;
  grt_allocator* memory[GRT_NUM_MEMORY_KINDS];
  grt_stream* streams[GRT_NUM_STREAM_KINDS];
};

/* ---- options ------------------------------------------------------------
 * A backend's own session options: the key KEY a backend of device type TYPE
 * declares is set as the session option "type.KEY" (the type in lower case:
 * "gpu.allow_growth"), as ggml's and IREE's drivers take string parameters.
 * The session checks each value with the declaration's `check` when it is
 * set, keeps it, and hands the values to the backend as strings in
 * declaration order (grt_device_config.options), so a backend grows options
 * without a change to the session or to this interface. */
typedef struct grt_backend_option {
  const char* key;           /* without the type: "allow_growth" */
  const char* value_type;    /* what a value looks like, for the docs: "bool" */
  const char* default_value; /* the value the backend gets when none is set */
  const char* doc;           /* one line: what it does */
  /* Optional (NULL: any string): NULL when `value` is good, else an error
   * saying what is wrong with it ("'1.5' is not a fraction in (0, 1]"); grt
   * puts "option type.KEY: " in front. */
  grt_status* (*check)(const char* value);
} grt_backend_option;

typedef struct grt_backend_options {
  const grt_backend_option* options;
  int32_t n;
  /* Optional (NULL: `probed`): the devices of the type a session sees when
   * the probe found `probed` and the options have `values` (one per option,
   * in order): gpu.virtual_devices makes each card several GPUs. */
  int32_t (*devices)(int32_t probed, const char* const* values);
} grt_backend_options;

/* What the session tells a backend about the device it wants. */
typedef struct grt_device_config {
  int32_t id;
  const char* name; /* canonical; lives as long as the device */
  /* The values of the backend's options (grt_backend.options), one per
   * declared option in its order: what the session set, checked, else the
   * default. Valid during the call: a backend copies what it keeps. */
  const char* const* options;
  int32_t n_options;
  /* Session option memory_limit: the most bytes the device's allocators may
   * hand out at once (device and host memory together where they are one
   * allocator, as the CPU's; the CUDA backend bounds device memory); 0: no
   * limit. An allocation that would pass it returns NULL, which the
   * executor reports as RESOURCE_EXHAUSTED with the limit and what is in
   * use (device_ops.memory_stats). */
  int64_t memory_limit;
} grt_device_config;

/* ---- kernels ------------------------------------------------------------- */

typedef struct grt_node grt_node;                 /* a graph node (attrs via grt_kernel_attr_*) */
typedef struct grt_var grt_var;                   /* a variable's storage (Ref edges) */
typedef struct grt_threadpool grt_threadpool;     /* for grt_parallel_for */
typedef struct grt_cancel_token grt_cancel_token; /* a run's cancellation and deadline */

struct grt_kernel_ctx {
  const grt_node* node;
  int32_t n_inputs;
  grt_tensor* const* inputs; /* values; for Ref inputs the variable's tensor or NULL */
  grt_var* const*
      input_refs; /* the variable for each Ref input (or plain input read from one), else NULL */
  int32_t n_outputs;
  grt_tensor** outputs;          /* the kernel sets each (one reference, owned by the executor) */
  grt_var** output_refs;         /* the kernel sets these for Ref outputs */
  grt_allocator* allocator;      /* device memory, for outputs and scratch */
  grt_allocator* host_allocator; /* host memory, for HostMemory outputs */
  uint64_t host_outputs;         /* bit k: output k is a HostMemory output */
  grt_stream* stream;            /* the compute stream the kernel's work goes on */
  grt_threadpool* intra_op;      /* for grt_parallel_for; may be NULL */
  void* state;                   /* from create_state, per node, lives with the session */
  int64_t step;                  /* counts runs of the session, from 0 */
  /* The run's cancellation (grt_session_cancel) and deadline; test it with
   * grt_kernel_cancelled. NULL: the run cannot be cancelled. */
  const grt_cancel_token* cancel;
  /* Bit i: input i's value is read by this node alone and nothing else
   * holds it, so the kernel may write its output into that buffer
   * (TensorFlow's forward_input_or_allocate_output). Only a hint: the
   * kernel checks the tensor itself (grt_kernel_forward_or_alloc_output in
   * the core's kernels). 0 for kernels run outside a session's executor. */
  uint64_t forwardable;
};

/* Kernel flags. */
enum {
  GRT_KERNEL_CHEAP = 1u << 0, /* constant-time work: run inline, never on another thread */
};

struct grt_op_kernel {
  const char* op;
  grt_status* (*compute)(grt_kernel_ctx* ctx);
  /* Optional: per-node state made once when the session is built
   * (a variable's grt_var, a random generator's counter). */
  grt_status* (*create_state)(const grt_node* node, void** out_state);
  void (*free_state)(void* state);
  uint32_t flags;
};

/* One kernel support row, as the placer reads it: the op, the device type,
 * dtype constraints ("T: {float32, float64}"; "" for none), the arguments
 * kept in host memory ("shape, output"; "" for none) and TensorFlow's
 * kernel priority (0 normally). */
typedef struct grt_kernel_spec {
  const char* op;
  const char* device;
  const char* constraints;
  const char* host_memory;
  int32_t priority;
} grt_kernel_spec;

/* What a kernel may call (exported by libgrt), besides grt_status_new
 * (grt/status.h) for its errors. Errors describe the fault without the node
 * name: the executor puts "node 'x' (Op): " in front. */
GRT_API GRT_MUST_USE grt_status* grt_kernel_alloc_output(grt_kernel_ctx* ctx, int32_t k,
                                                         grt_dtype dtype, const grt_shape* shape,
                                                         grt_tensor** out);
GRT_API void grt_kernel_set_output(grt_kernel_ctx* ctx, int32_t k, grt_tensor* t);
GRT_API GRT_MUST_USE grt_status* grt_kernel_attr_type(const grt_kernel_ctx* ctx, const char* name,
                                                      grt_dtype* out);
/* True once the kernel's run was cancelled or passed its deadline: a kernel
 * that loops for long tests it between pieces of work (cheap: an atomic load,
 * and a clock read only when the run has a deadline) and returns early; the
 * executor then fails the node with CANCELLED or DEADLINE_EXCEEDED and drops
 * its outputs. grt_parallel_for stops handing out shards by itself. */
GRT_API bool grt_kernel_cancelled(const grt_kernel_ctx* ctx);
GRT_API GRT_MUST_USE grt_status* grt_kernel_attr_bool(const grt_kernel_ctx* ctx, const char* name,
                                                      bool* out);
GRT_API GRT_MUST_USE grt_status* grt_kernel_attr_int(const grt_kernel_ctx* ctx, const char* name,
                                                     int64_t* out);
GRT_API GRT_MUST_USE grt_status* grt_kernel_attr_float(const grt_kernel_ctx* ctx, const char* name,
                                                       float* out);
GRT_API GRT_MUST_USE grt_status* grt_kernel_attr_string(const grt_kernel_ctx* ctx, const char* name,
                                                        const char** out);
/* A tensor attr (Const's value): host memory owned by the graph, valid as
 * long as the session; the caller takes no reference. */
GRT_API GRT_MUST_USE grt_status* grt_kernel_attr_tensor(const grt_kernel_ctx* ctx, const char* name,
                                                        const grt_tensor** out);

/* A list(int) attr (Squeeze's squeeze_dims, a pool's ksize): *out points
 * at the graph's n values, valid as long as the session (n may be 0). */
GRT_API GRT_MUST_USE grt_status* grt_kernel_attr_int_list(const grt_kernel_ctx* ctx,
                                                          const char* name, const int64_t** out,
                                                          int32_t* n);
/* A list(string) attr (the fused ops' fused_ops): *out points at the
 * graph's n strings, valid as long as the session (n may be 0). Added
 * without an API version change: a new export, no layout. */
GRT_API GRT_MUST_USE grt_status* grt_kernel_attr_string_list(const grt_kernel_ctx* ctx,
                                                             const char* name,
                                                             const char* const** out, int32_t* n);
/* A scratch tensor from ctx->allocator (device memory), uninitialised; the
 * caller owns it (grt_tensor_free). Its header is host memory. */
GRT_API GRT_MUST_USE grt_status* grt_kernel_alloc_temp(grt_kernel_ctx* ctx, grt_dtype dtype,
                                                       const grt_shape* shape, grt_tensor** out);

/* Variables (TensorFlow's Ref(T) edges) for a plugin's VariableV2, Assign
 * and Apply* kernels. A variable op uses grt_var_state_new/free as its
 * kernel's create_state/free_state and hands ctx->state out as
 * output_refs[0]; ops with Ref inputs find the variable in input_refs[k].
 * The variable's tensor is memory of the device that owns the variable. */
GRT_API GRT_MUST_USE grt_status* grt_var_state_new(const grt_node* node, void** out_state);
GRT_API void grt_var_state_free(void* state);
/* The variable node's name, for messages ("Attempting to use uninitialized
 * value NAME"). */
GRT_API const char* grt_var_name(const grt_var* v);
/* The variable's mutex: an update with use_locking holds it (taking several
 * variables' in address order, so two ops never deadlock). */
GRT_API void grt_var_lock(grt_var* v);
GRT_API void grt_var_unlock(grt_var* v);
/* A new reference to the variable's current tensor (NULL before the first
 * assignment): the caller frees it. Takes the lock itself unless `locked`
 * says the caller holds it. Updating the tensor's elements in place is how
 * AssignAdd and Apply* work; a concurrent Assign swaps in a new tensor and
 * leaves the referenced one alive. */
GRT_API grt_tensor* grt_var_value(grt_var* v, bool locked);
/* Assign's swap: `fresh` (one reference, taken) becomes the variable's
 * tensor under its lock and the old one is released. With validate_shape,
 * a shape differing from the current tensor's (or, before the first
 * assignment, incompatible with the shape the graph declared for ctx's
 * Ref output 0) fails INVALID_ARGUMENT as TensorFlow does, freeing fresh. */
GRT_API GRT_MUST_USE grt_status* grt_var_assign(const grt_kernel_ctx* ctx, grt_var* v,
                                                grt_tensor* fresh, bool validate_shape);

/* ---- collectives --------------------------------------------------------- */

/* NcclAllReduce's reduction attr. */
typedef enum grt_reduction {
  GRT_REDUCE_SUM = 0,
  GRT_REDUCE_PROD = 1,
  GRT_REDUCE_MIN = 2,
  GRT_REDUCE_MAX = 3,
} grt_reduction;

/* One all-reduce over a group of NcclAllReduce nodes (one per device, all
 * of this backend's type), called once the inputs of every member are
 * ready: outputs[k] becomes the element-wise reduction of every input, the
 * same bits on every device. Members are in the order of the session's
 * device indices, and a backend reduces in that order. grt allocated each
 * output on its member's device (device memory, same dtype and shape as the
 * inputs, which all agree); each input was produced on its device's compute
 * stream, and each output's work goes on that stream too. */
typedef struct grt_all_reduce_args {
  const char* shared_name; /* the group, for messages */
  grt_reduction reduction;
  int32_t n;
  grt_device* const* devices;
  const grt_tensor* const* inputs;
  grt_tensor* const* outputs;
  grt_threadpool* intra_op;       /* for grt_parallel_for; may be NULL */
  const grt_cancel_token* cancel; /* the run's (grt_kernel_cancelled's token) */
} grt_all_reduce_args;

/* ---- backends ------------------------------------------------------------ */

struct grt_backend {
  uint32_t api_version; /* GRT_BACKEND_API_VERSION the backend was built with */
  const char* type;     /* the device type it provides: "CPU", "GPU", "TEST" */
  /* For a type grt does not know yet: its placement priority (CPU 70,
   * GPU 210) and kernel support rows. Ignored for CPU and GPU, whose rows
   * are built in so plans for them work on any machine. */
  int32_t priority;
  const grt_kernel_spec* rows;
  int32_t n_rows;
  /* How many devices of the type this machine has; with 0, one line in
   * `why` saying why (no driver, no device, ...). */
  int32_t (*probe)(char* why, size_t why_size);
  grt_status* (*device_new)(const grt_device_config* cfg, grt_device** out);
  /* The kernel for `op`, or NULL. */
  const grt_op_kernel* (*kernel)(const char* op);
  /* Optional (NULL: the type runs no collective, and a group on it fails
   * when its run is built): the whole of one NcclAllReduce group. */
  grt_status* (*all_reduce)(const grt_all_reduce_args* a);
  /* Optional (NULL: none): the session options "type.KEY" the backend
   * takes. Ignored for CPU and GPU, whose options are built in as their
   * rows are, so gpu.* works on machines without the CUDA plugin. */
  const grt_backend_options* options;
};

/* The symbol a plugin exports, and its type. */
#define GRT_BACKEND_ENTRY_SYMBOL "grt_backend_entry"
typedef const grt_backend* (*grt_backend_entry_fn)(uint32_t host_api_version);

/* Optional, for the device mapping (`grt devices`, the placement log): a
 * plugin may also export
 *   size_t grt_backend_describe(const grt_device_config* cfg, char* buf, size_t size);
 * writing what device cfg->id is, as TensorFlow's mapping names a GPU
 * ("device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:1b:00.0,
 * compute capability: 9.0"), snprintf's way; 0 for nothing to say. */
#define GRT_BACKEND_DESCRIBE_SYMBOL "grt_backend_describe"
typedef size_t (*grt_backend_describe_fn)(const grt_device_config* cfg, char* buf, size_t size);

/* ---- the registry (for hosts) -------------------------------------------- */

/* Loads the backend plugin at `path` now (plugins beside libgrt.so and on
 * GRT_PLUGIN_PATH load on first use without this). Fails with a message
 * naming the file and the reason (not found, no entry point, ABI version,
 * a type that exists already). */
GRT_API GRT_MUST_USE grt_status* grt_backend_load(const char* path);

/* Registers a backend compiled into the host program. The backend struct
 * must live for the rest of the process. */
GRT_API GRT_MUST_USE grt_status* grt_backend_register(const grt_backend* b);

/* One line per backend and per refused plugin: "CPU: 1 device",
 * "GPU: 0 devices (no CUDA driver)", "plugin /x/libgrt_backend_y.so
 * refused: ABI version 7, expected 1". Writes at most `size` bytes
 * (NUL-terminated) and returns the length the whole text needs. */
GRT_API size_t grt_backends_report(char* buf, size_t size);

/* ---- stream and event calls ----------------------------------------------- */

GRT_MUST_USE static inline grt_status* grt_stream_memcpy(grt_stream* s, void* dst, const void* src,
                                                         size_t n) {
  return s->ops->memcpy(s, dst, src, n);
}
GRT_MUST_USE static inline grt_status* grt_stream_record_event(grt_stream* s, grt_event* e) {
  return s->ops->record(s, e);
}
GRT_MUST_USE static inline grt_status* grt_stream_wait_event(grt_stream* s, grt_event* e) {
  return s->ops->wait(s, e);
}
GRT_MUST_USE static inline grt_status* grt_stream_sync(grt_stream* s) { return s->ops->sync(s); }
GRT_MUST_USE static inline grt_status* grt_event_sync(grt_event* e) { return e->ops->sync(e); }
static inline void grt_event_free(grt_event* e) {
  if (e) e->ops->free(e);
}
GRT_MUST_USE static inline grt_status* grt_device_event_new(grt_device* d, grt_event** out) {
  return d->ops->event_new(d, out);
}
static inline grt_stream* grt_device_stream(grt_device* d, grt_stream_kind k) {
  return d->streams[k];
}
static inline void grt_device_free(grt_device* d) {
  if (d) d->ops->free(d);
}

#ifdef __cplusplus
}
#endif

/* Op semantics every backend needs: window and broadcast arithmetic,
 * reshape and gather geometry, shape-only kernels. */
#include "grt/op_semantics.h"

#endif /* GRT_BACKEND_H_ */
