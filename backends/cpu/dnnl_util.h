/* What the CPU kernels that run on oneDNN share: the one CPU engine, a
 * stream per calling thread, oneDNN statuses as grt statuses, memory
 * descriptors for grt tensors, per-call memory from the device allocator,
 * and a small per-node cache of primitives keyed by shape.
 *
 * Why a cache per node: a node's shapes rarely change between runs, so a
 * few entries suffice and a repeated run skips descriptor and primitive
 * creation (tens of microseconds) entirely. Entries are never evicted while
 * the node lives, so a plan handed out stays valid for the call using it
 * with no reference counting; when the cache is full the kernel builds an
 * uncached plan for that call and frees it afterwards. */
#ifndef GRT_BACKENDS_CPU_DNNL_UTIL_H_
#define GRT_BACKENDS_CPU_DNNL_UTIL_H_

#include <dnnl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"
#include "backends/cpu/dnnl_pack.h"
#include "kernels/op_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The process's CPU engine, made on first use; NULL if oneDNN refused
 * (grt_dnnl_stream then fails). */
dnnl_engine_t grt_dnnl_engine(void);

/* The calling thread's stream of the engine, made on first use and
 * destroyed when the thread exits: oneDNN streams are not to be shared by
 * threads executing at once. */
GRT_MUST_USE grt_status* grt_dnnl_stream(dnnl_stream_t* out);

/* NULL for dnnl_success; otherwise the status for `what` failing, e.g.
 * "oneDNN convolution forward: unimplemented". Out of memory is
 * RESOURCE_EXHAUSTED, unsupported shapes or attributes UNIMPLEMENTED, bad
 * arguments INVALID_ARGUMENT, anything else INTERNAL. Kernel errors name
 * no node: the executor puts "node 'x' (Op): " in front. */
GRT_MUST_USE grt_status* grt_dnnl_check(dnnl_status_t st, const char* what);

/* An f32 descriptor of `rank` dims with the dims in row-major order (tag
 * a, ab, abc, abcd). */
GRT_MUST_USE grt_status* grt_dnnl_md_plain(int32_t rank, const int64_t* dims,
                                           dnnl_memory_desc_t* out);

/* A 4-D f32 activation described to oneDNN in its logical order {n, c, h,
 * w} whatever grt's layout (nchw false: NHWC in memory). */
GRT_MUST_USE grt_status* grt_dnnl_md_activation(bool nchw, int64_t n, int64_t c, int64_t h,
                                                int64_t w, dnnl_memory_desc_t* out);

/* ---- one primitive call ------------------------------------------------ */

#define GRT_DNNL_CALL_BLOCKS 8
#define GRT_DNNL_CALL_ARGS 12
#define GRT_DNNL_CALL_MEMS 24

/* Arguments and temporary memory for the primitives of one kernel call.
 * Temporary blocks come from the kernel's device allocator, so oneDNN's
 * scratchpads and reordered copies count against the device like any
 * other tensor. */
typedef struct grt_dnnl_call {
  grt_allocator* allocator;
  int threads; /* the intra-op budget: the session's intra-op pool size, 1 without one */
  int32_t n_blocks;
  void* blocks[GRT_DNNL_CALL_BLOCKS];
  int32_t n_mems;
  dnnl_memory_t mems[GRT_DNNL_CALL_MEMS];
  int n_args;
  dnnl_exec_arg_t args[GRT_DNNL_CALL_ARGS];
} grt_dnnl_call;

/* A call whose temporaries come from ctx's allocator and whose OpenMP
 * threads come out of ctx's intra-op budget (see grt_dnnl_call_run). */
void grt_dnnl_call_init(grt_dnnl_call* c, grt_kernel_ctx* ctx);

/* `bytes` (64-byte aligned) that live until grt_dnnl_call_end; *out is NULL
 * for 0 bytes. */
GRT_MUST_USE grt_status* grt_dnnl_call_temp(grt_dnnl_call* c, size_t bytes, void** out);

/* Adds argument `arg` (DNNL_ARG_SRC, ...) over `data` (not owned) with
 * descriptor `md` to the next execution. */
GRT_MUST_USE grt_status* grt_dnnl_call_arg(grt_dnnl_call* c, int arg, const dnnl_memory_desc_t* md,
                                           void* data);

/* Executes `prim` with the arguments added since the last execution (and a
 * scratchpad of `scratch` bytes when non-zero) on the calling thread's
 * stream, waits for it, and clears the arguments.
 *
 * Threads: oneDNN runs its parallel loops on an OpenMP team of the calling
 * thread, and every executor thread would get a team as large as the
 * machine. So the call sizes the calling thread's team to the intra-op
 * budget divided by the oneDNN calls running at that moment (at least 1):
 * two steps in flight share the cores instead of doubling the threads. */
GRT_MUST_USE grt_status* grt_dnnl_call_run(grt_dnnl_call* c, dnnl_primitive_t prim, size_t scratch,
                                           const char* what);

/* A share of `budget` threads for one parallel execution (a oneDNN call or
 * a loop on the OpenMP team, cpu_team.c): the budget divided by the
 * executions in progress, this one counted, at least 1. Every enter is
 * followed by one grt_dnnl_team_leave when the execution is done. */
int grt_dnnl_team_enter(int budget);
void grt_dnnl_team_leave(void);

/* Small work runs on a team of one. A call that readies a sleeping team
 * member pays its wake-up (a futex wake and the scheduler's latency: about
 * 8 us on the 2-vCPU host, docs/threading.md), which exceeds what a second
 * thread saves on a product of a few hundred thousand multiply-adds (the
 * MLP's 1 x 784 x 256 at batch 1 ran in 28-31 us with a team of two and
 * 16-17 us alone). So a kernel that knows its multiply-adds sizes the
 * call's team (grt_dnnl_call.threads) to grt_dnnl_team's: one thread per
 * GRT_DNNL_MACS_PER_THREAD of them, at least one, at most the intra-op
 * budget.
 *
 * oneDNN fixes a primitive's thread count when the primitive is created
 * (the calling thread's OpenMP maximum then), so the kernel keys its plan
 * by the team and calls grt_dnnl_plan_threads(team) before building one. */
#define GRT_DNNL_MACS_PER_THREAD (1 << 19)
int grt_dnnl_team(const grt_kernel_ctx* ctx, double macs);
/* The same for a kernel that splits its own work over `pool` (NULL: one
 * thread), so that its team is the one oneDNN's call would have. */
int grt_dnnl_team_in(const grt_threadpool* pool, double macs);
/* Sets the calling thread's OpenMP maximum to `team` for a primitive made
 * next. */
void grt_dnnl_plan_threads(int team);

/* Copies `src` (descriptor src_md) into `dst` (dst_md), converting the
 * layout, as part of the call. */
GRT_MUST_USE grt_status* grt_dnnl_call_reorder(grt_dnnl_call* c, const dnnl_memory_desc_t* src_md,
                                               void* src, const dnnl_memory_desc_t* dst_md,
                                               void* dst);

/* Releases the call's memory objects and temporaries. */
void grt_dnnl_call_end(grt_dnnl_call* c);

/* ---- the per-node plan cache ------------------------------------------- */

/* What a kernel builds for one shape: up to three primitives (say a forward
 * pass that a backward one needs, and the backward), each primitive's
 * scratchpad size, and descriptors it needs at run time. */
#define GRT_DNNL_PRIMS 3
#define GRT_DNNL_MDS 8
typedef struct grt_dnnl_plan {
  dnnl_primitive_t prim[GRT_DNNL_PRIMS];
  size_t scratch[GRT_DNNL_PRIMS];
  dnnl_memory_desc_t md[GRT_DNNL_MDS];
} grt_dnnl_plan;

/* A new empty plan, or NULL when out of memory. */
grt_dnnl_plan* grt_dnnl_plan_new(void);
void grt_dnnl_plan_free(grt_dnnl_plan* p);

/* Makes p->prim[i] from operation descriptor `desc`, with a user scratchpad
 * whose size goes to p->scratch[i]; `hint` is the forward primitive
 * descriptor a backward one needs, or NULL. When out_pd is not NULL it
 * receives the primitive descriptor (the caller destroys it). */
GRT_MUST_USE grt_status* grt_dnnl_plan_make(grt_dnnl_plan* p, int32_t i, const void* desc,
                                            const_dnnl_primitive_desc_t hint, const char* what,
                                            dnnl_primitive_desc_t* out_pd);

/* The same, skipping implementations whose name starts with `avoid` (a
 * oneDNN bug's workaround). */
GRT_MUST_USE grt_status* grt_dnnl_plan_make_avoiding(grt_dnnl_plan* p, int32_t i, const void* desc,
                                                     const_dnnl_primitive_desc_t hint,
                                                     const char* avoid, const char* what,
                                                     dnnl_primitive_desc_t* out_pd);

#define GRT_DNNL_KEY_MAX 40
#define GRT_DNNL_CACHE_SIZE 4

typedef struct grt_dnnl_entry {
  int64_t key[GRT_DNNL_KEY_MAX];
  int32_t key_n;
  grt_dnnl_plan* plan;
} grt_dnnl_entry;

/* A node's plans and its packed constant weights (its kernel state). */
typedef struct grt_dnnl_cache {
  pthread_mutex_t mu;
  int32_t n;
  grt_dnnl_entry entries[GRT_DNNL_CACHE_SIZE];
  grt_dnnl_packs packs;
} grt_dnnl_cache;

/* create_state and free_state of every oneDNN kernel. */
GRT_MUST_USE grt_status* grt_dnnl_state_new(const grt_node* node, void** out_state);
void grt_dnnl_state_free(void* state);

/* The plan cached under key[0..n), or NULL. Thread-safe; a NULL cache (a
 * kernel run without state) holds nothing. */
grt_dnnl_plan* grt_dnnl_cache_find(grt_dnnl_cache* c, const int64_t* key, int32_t n);

/* Offers a freshly built plan for key and returns the plan to use: `plan`,
 * now the cache's (*out_owned false); another thread's plan for the same
 * key (`plan` is freed); or `plan` when the cache is full or NULL
 * (*out_owned true: the caller frees it after the call). */
grt_dnnl_plan* grt_dnnl_cache_offer(grt_dnnl_cache* c, const int64_t* key, int32_t n,
                                    grt_dnnl_plan* plan, bool* out_owned);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_DNNL_UTIL_H_ */
