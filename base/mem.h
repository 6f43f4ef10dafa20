/* The library's own heap allocations (not tensor memory, which comes from a
 * device's allocator). Every malloc-family call in grt goes through these, so
 * tests can make the Nth allocation fail and check that each failure
 * becomes an error status with nothing leaked, and so the soft heap limit
 * (grt/memory.h) counts them. */
#ifndef GRT_BASE_MEM_H_
#define GRT_BASE_MEM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void* grt_malloc(size_t size);
void* grt_calloc(size_t n, size_t size);
void* grt_realloc(void* p, size_t size);
char* grt_strdup(const char* s);
char* grt_strndup(const char* s, size_t n);
/* Frees what the five above returned; every such block goes back through
 * grt_free, never free(), so the soft heap limit's count (grt_heap_used)
 * comes back down (it counts malloc_usable_size of each block). */
void grt_free(void* p);
/* Takes a block the five above returned off the count and returns it: for
 * memory handed to the host, which frees it with free(). */
void* grt_mem_disown(void* p);
/* posix_memalign's contract: 0 on success, ENOMEM on failure. Not counted:
 * its callers (tensor allocators) reserve what they take with
 * grt_mem_reserve and free the block with free(). */
int grt_posix_memalign(void** out, size_t alignment, size_t size);
/* free() for grt_posix_memalign's blocks, which a thread's first
 * malloc-family call may be: that one is bracketed by the space hooks. */
void grt_posix_memalign_free(void* p);

/* Hooks around every call of grt's that may take new address space in one
 * piece: a block of 128 KiB or more (malloc maps it on its own), a thread's
 * first malloc-family call (glibc reserves a 64 MiB arena for the thread
 * then, even for a free()), grt_map_pages, and a new thread's stack
 * (base/threadpool.c brackets pthread_create). For a library that needs
 * no such call to happen at some moment: it installs hooks that can make
 * them wait. Without hooks (the default) a bracket costs a load and a
 * branch. Brackets never nest on a thread; end runs where begin ran. */
typedef struct grt_mem_space_hooks {
  void (*begin)(void);
  void (*end)(void);
} grt_mem_space_hooks;
/* `hooks` (static storage; NULL removes them) apply to brackets opened after
 * the call: install them before other threads allocate. */
void grt_mem_set_space_hooks(const grt_mem_space_hooks* hooks);
void grt_mem_space_begin(void);
void grt_mem_space_end(void);

/* Whole pages straight from the system (mmap), for an allocator that gives
 * large blocks back whole: munmap returns them at once, where a block freed
 * to malloc may stay resident in an arena (and raises glibc's mmap
 * threshold, sending later blocks into arenas). Page-aligned; NULL on
 * failure (fault injection counts it as an allocation). Not counted against
 * the soft heap limit: the caller reserves. Under AddressSanitizer these are
 * plain aligned heap blocks, so overflows are still caught. */
void* grt_map_pages(size_t bytes);
void grt_unmap_pages(void* p, size_t bytes);

/* Fault injection for tests: after `n` more successful allocations, every
 * allocation fails until the next call; n < 0 turns injection off (the
 * default). Returns the allocations made since the previous call, so a test
 * can count how many a piece of work takes. Process-wide and thread-safe. */
int64_t grt_mem_fail_after(int64_t n);

/* The same, but only that one allocation fails; the ones after it succeed
 * again (a transient failure, where grt_mem_fail_after's is persistent).
 * Error paths then have memory to spare, so a test can check the code and
 * message they report rather than the preallocated out-of-memory status.
 * n < 0 turns injection off. Returns what grt_mem_fail_after returns. */
int64_t grt_mem_fail_once_after(int64_t n);

/* Whether arena allocations (base/arena.h) count for the two above too; off
 * by default. An arena takes a block from the heap rarely (64 KiB at a
 * time), so without this a sweep over every allocation never fails the
 * node, name or attr a graph builder adds in mid-conversion; with it on,
 * each grt_arena_alloc is one more allocation that may fail (NULL), and the
 * builder's error paths are reached. For tests; process-wide. */
void grt_mem_fail_arena(bool on);
/* For base/arena.c: whether this arena allocation is to fail. */
bool grt_mem_arena_fails(void);

/* The soft heap limit's count (grt/memory.h: grt_soft_heap_limit64): an
 * allocator adds the bytes it takes from the system with grt_mem_reserve
 * and takes them off with grt_mem_unreserve when it gives them back.
 * grt_mem_reserve adds nothing and returns false when the count would pass
 * the limit. */
bool grt_mem_reserve(size_t bytes);
void grt_mem_unreserve(size_t bytes);
/* The limit now (0: none), for messages. */
int64_t grt_mem_soft_limit(void);

/* Caches that can give memory back (device allocators' free lists):
 * grt_release_memory (grt/memory.h) and a reservation past the soft heap
 * limit call every registered `release(ctx)`, which must not call back into
 * this registry. Register returns false when out of memory. */
typedef void (*grt_mem_release_fn)(void* ctx);
bool grt_mem_register_cache(grt_mem_release_fn release, void* ctx);
void grt_mem_unregister_cache(grt_mem_release_fn release, void* ctx);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_MEM_H_ */
