/* A best-fit-with-coalescing allocator (BFC) over an abstract region
 * provider: the CUDA backend gives it cudaMalloc'd regions, the tests give
 * it malloc'd ones. Plain C with no CUDA, so all of it is tested on a host.
 *
 * Memory comes from the provider in large regions; within a region, chunks
 * tile the address range in order. A request is rounded up to 256 bytes and
 * served by the smallest free chunk that fits (bins by power-of-two size,
 * each kept sorted by size then address), split when the rest is 256 bytes
 * or more. A freed chunk merges with free neighbours in its region, so
 * freeing everything leaves one free chunk per region.
 *
 * Two policies, as TensorFlow's GPU options:
 * - allow_growth: regions are taken on demand, each at least twice the last
 *   (from `initial_region` bytes), never past `limit` in total. When none
 *   more can be had, wholly free regions go back to the provider and the
 *   request is tried once more.
 * - otherwise: one region of `limit` bytes is taken up front (the share of
 *   the card that gpu.memory_fraction names) and nothing more.
 *
 * Thread-safe: one mutex. Metadata (chunk records, the pointer index) is
 * host memory from malloc, because this lives in a plugin that sees only
 * grt's public headers. */
#ifndef GRT_BACKENDS_CUDA_BFC_ALLOCATOR_H_
#define GRT_BACKENDS_CUDA_BFC_ALLOCATOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every chunk starts and ends on this boundary (cuBLAS and vectorised
 * kernels want 256-byte alignment; cudaMalloc gives at least that). */
#define GRT_BFC_ALIGNMENT 256u

/* Where regions come from. alloc returns a GRT_BFC_ALIGNMENT-aligned block
 * of `bytes` or NULL; free gives one back. */
typedef struct grt_bfc_provider {
  void* (*alloc)(void* ctx, size_t bytes);
  void (*free)(void* ctx, void* base, size_t bytes);
  void* ctx;
} grt_bfc_provider;

typedef struct grt_bfc_options {
  const char* name;      /* for messages: "GPU:0" */
  size_t limit;          /* bytes the allocator may hold from the provider in all */
  bool allow_growth;     /* grow on demand (true) or reserve `limit` now (false) */
  size_t initial_region; /* first region when growing; 0: 2 MiB */
} grt_bfc_options;

typedef struct grt_bfc_stats {
  size_t in_use; /* bytes in allocated chunks (rounded sizes) */
  size_t peak_in_use;
  size_t requested; /* bytes asked for by the live allocations (unrounded) */
  size_t reserved;  /* bytes held from the provider (all regions) */
  size_t limit;
  size_t largest_free; /* the largest free chunk */
  int64_t chunks;      /* chunks, free and in use */
  int64_t free_chunks;
  int64_t regions;
  int64_t allocs;       /* live allocations */
  int64_t total_allocs; /* allocations served so far */
  int64_t failed_allocs;
} grt_bfc_stats;

typedef struct grt_bfc grt_bfc;

/* Without allow_growth, takes the whole limit from the provider now and
 * fails (RESOURCE_EXHAUSTED naming the bytes) if it cannot. */
GRT_MUST_USE grt_status* grt_bfc_new(const grt_bfc_provider* provider,
                                     const grt_bfc_options* options, grt_bfc** out);
/* Gives every region back; live allocations become invalid. */
void grt_bfc_free_all(grt_bfc* a);

/* A GRT_BFC_ALIGNMENT-aligned block of at least `size` bytes (size 0 gets
 * a 256-byte chunk), or NULL when out of memory. */
void* grt_bfc_alloc(grt_bfc* a, size_t size);
/* The same, also setting *held to the bytes the block holds (its rounded
 * size; 0 on failure), for callers that account per user (gpu_memory.h). */
void* grt_bfc_alloc_sized(grt_bfc* a, size_t size, size_t* held);
/* NULL is a no-op; a pointer this allocator did not hand out is ignored
 * (and counted: grt_bfc_bad_frees). Returns the bytes the block held (0
 * for NULL or a bad free). */
size_t grt_bfc_release(grt_bfc* a, void* p);

/* The usable size of the chunk at p (its rounded size), 0 if p is not live. */
size_t grt_bfc_chunk_size(grt_bfc* a, const void* p);

void grt_bfc_get_stats(grt_bfc* a, grt_bfc_stats* out);
int64_t grt_bfc_bad_frees(grt_bfc* a);

/* "in use 3.0 MiB (peak 4.0 MiB), largest free chunk 1.0 MiB, reserved
 * 4.0 MiB of limit 1.0 GiB, 5 chunks in 2 regions". Returns the length the
 * whole text needs (snprintf's convention). */
size_t grt_bfc_describe(grt_bfc* a, char* buf, size_t size);

/* The error for a request of `size` bytes that failed: RESOURCE_EXHAUSTED
 * naming the allocator, the bytes asked and the allocator's state. */
GRT_MUST_USE grt_status* grt_bfc_oom_status(grt_bfc* a, size_t size);

/* Checks every invariant (chunks tile each region, no two free neighbours,
 * bins hold exactly the free chunks in order, counters add up). Returns
 * NULL or INTERNAL naming the first one broken. For tests. */
GRT_MUST_USE grt_status* grt_bfc_check(grt_bfc* a);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_BFC_ALLOCATOR_H_ */
