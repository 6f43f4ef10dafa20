/* GPU memory per process, as TensorFlow's GPU process state: one BFC
 * allocator per logical GPU, made by the first session that needs it and
 * kept for the process's life, shared by every later session's device of
 * that logical GPU; one pinned host allocator per card likewise. A
 * session's device sees its allocator through an account: the bytes this
 * session holds, its peak, and the session option memory_limit.
 *
 * A logical GPU is a card, its index in the card's gpu.virtual_devices
 * layout, the layout's length and its own size (the whole card: index 0 of
 * 1, size 0). The options that shape its allocator, gpu.allow_growth and
 * gpu.memory_fraction, are the first session's:
 * - an allocator no session holds (idle) whose options differ from a new
 *   session's is made again with the new ones;
 * - one a live session holds is not: the new session is refused with
 *   FAILED_PRECONDITION naming both values (TensorFlow 2 refuses to change
 *   GPU memory options once its devices exist; TensorFlow 1 silently kept
 *   the first session's).
 * Before an allocator is made on a card, the card's idle allocators give
 * their memory back, so sessions with other layouts or options, one after
 * another, each find the card free; an allocator held by a live (or
 * leaked) session stays, and shares its memory with every later session
 * of the same logical GPU instead of starving it.
 *
 * The allocators live until grt_gpu_memory_free, which the plugin never
 * calls: the process's exit returns device and pinned memory with the
 * CUDA context (a destructor at exit or unload may find the CUDA runtime
 * already torn down). Tests make their own registries over fake providers.
 *
 * Plain C with no CUDA: the provider and the limit come from the caller.
 * Thread-safe: the registry has one mutex (held while allocators are made
 * or found, never while a block is served); each allocator and each
 * account has its own. */
#ifndef GRT_BACKENDS_CUDA_GPU_MEMORY_H_
#define GRT_BACKENDS_CUDA_GPU_MEMORY_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bfc_allocator.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_gpu_memory grt_gpu_memory;
typedef struct grt_gpu_memory_account grt_gpu_memory_account;

/* The logical GPU a device wants and the options its allocator takes. */
typedef struct grt_gpu_memory_spec {
  int physical;        /* the card (CUDA ordinal) */
  int virtual_index;   /* which logical GPU of the card's layout */
  int virtual_count;   /* the layout's length; 1: the whole card */
  size_t virtual_size; /* this logical GPU's bytes; 0: memory_fraction of the card */
  bool allow_growth;
  double memory_fraction; /* compared only when virtual_size is 0 */
  /* The card's device memory (its ctx outlives the registry). */
  grt_bfc_provider provider;
  /* Asked only when an allocator is made, after the card's idle ones went
   * back: the bytes it may hold (what the card has free now decides it).
   * 0 means the card has no room. */
  size_t (*limit)(void* ctx);
  void* limit_ctx;
} grt_gpu_memory_spec;

/* The plugin's registry (static; never freed). */
grt_gpu_memory* grt_gpu_memory_process(void);

/* A registry of one's own (tests). */
GRT_MUST_USE grt_status* grt_gpu_memory_new(grt_gpu_memory** out);
/* Frees every allocator, giving their regions back; live accounts and
 * their blocks become invalid. */
void grt_gpu_memory_free(grt_gpu_memory* m);

/* Opens an account on the logical GPU's allocator, making the allocator
 * if the process has none (or only an idle one with other options).
 * `name` ("GPU:0", the session's device) names it in messages; the pointer
 * must outlive the account. `session_limit` (memory_limit; 0: none) bounds
 * the bytes this account holds at once. Fails with FAILED_PRECONDITION for
 * options that differ from a held allocator's, RESOURCE_EXHAUSTED when the
 * card has no room for a new one (naming what the process holds there). */
GRT_MUST_USE grt_status* grt_gpu_memory_open(grt_gpu_memory* m, const grt_gpu_memory_spec* spec,
                                             const char* name, size_t session_limit,
                                             grt_gpu_memory_account** out);

/* An account on card `physical`'s pinned host allocator (staging), made
 * on first use: growing on demand up to `limit` bytes, kept for the
 * process. No session limit. */
GRT_MUST_USE grt_status* grt_gpu_memory_open_host(grt_gpu_memory* m, int physical,
                                                  const grt_bfc_provider* provider, size_t limit,
                                                  const char* name, grt_gpu_memory_account** out);

/* The session's device goes: the account closes once its last block is
 * released (a tensor may outlive the session's device), and then calls
 * done(arg) when `done` is not NULL, on the thread that released it, so
 * the grt allocator in front of the account may live as long. NULL: no-op
 * (done is not called). */
void grt_gpu_memory_close(grt_gpu_memory_account* a, void (*done)(void* arg), void* arg);

/* A block of `size` bytes (GRT_BFC_ALIGNMENT-aligned) or NULL; on NULL,
 * *why (when `why` is not NULL) is RESOURCE_EXHAUSTED saying whether the
 * session's memory_limit or the shared allocator refused, with the
 * allocator's state. */
void* grt_gpu_memory_alloc(grt_gpu_memory_account* a, size_t size, grt_status** why);
void grt_gpu_memory_release(grt_gpu_memory_account* a, void* p);

/* This account's bytes in use (rounded, as the allocator holds them) and
 * its peak. */
void grt_gpu_memory_account_stats(grt_gpu_memory_account* a, size_t* in_use, size_t* peak);
/* The shared allocator behind the account. */
grt_bfc* grt_gpu_memory_bfc(grt_gpu_memory_account* a);

/* Device allocators the registry holds now, and how many of them no
 * session holds (tests). */
int32_t grt_gpu_memory_count(grt_gpu_memory* m, int32_t* idle);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_GPU_MEMORY_H_ */
