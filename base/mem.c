#include "base/mem.h"

#include "grt/memory.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Injection state: g_budget < 0 means off. g_count counts allocations since
 * the last grt_mem_fail_after call. g_once: only the allocation that takes
 * the budget below zero fails (which also turns injection off). */
static int64_t g_budget = -1;
static int64_t g_count;
static int g_once;

static int fail_now(void) {
  __atomic_add_fetch(&g_count, 1, __ATOMIC_RELAXED);
  if (__atomic_load_n(&g_budget, __ATOMIC_RELAXED) < 0) return 0;
  /* Take one unit of budget; once it reaches zero every call fails. */
  int64_t left = __atomic_sub_fetch(&g_budget, 1, __ATOMIC_RELAXED);
  if (left >= 0) return 0;
  if (__atomic_load_n(&g_once, __ATOMIC_RELAXED)) return left == -1;
  __atomic_store_n(&g_budget, 0, __ATOMIC_RELAXED);
  return 1;
}

static int64_t arm(int64_t n, int once) {
  __atomic_store_n(&g_budget, -1, __ATOMIC_RELAXED);
  __atomic_store_n(&g_once, once, __ATOMIC_RELAXED);
  __atomic_store_n(&g_budget, n < 0 ? -1 : n, __ATOMIC_RELAXED);
  return __atomic_exchange_n(&g_count, 0, __ATOMIC_RELAXED);
}

int64_t grt_mem_fail_after(int64_t n) { return arm(n, 0); }

int64_t grt_mem_fail_once_after(int64_t n) { return arm(n, 1); }

static int g_arena; /* arena allocations count too */

void grt_mem_fail_arena(bool on) { __atomic_store_n(&g_arena, on, __ATOMIC_RELAXED); }

bool grt_mem_arena_fails(void) { return __atomic_load_n(&g_arena, __ATOMIC_RELAXED) && fail_now(); }

/* The library's own blocks count against the soft heap limit by what malloc
 * really gave (malloc_usable_size), which grt_free takes off again: no
 * header, so a block freed by the wrong function only skews the count. A
 * request that would take the count past the limit fails first. */
static int64_t g_heap_used;  /* bytes counted: tensors and the library's blocks */
static int64_t g_soft_limit; /* 0: none */

static bool room_for(size_t bytes) {
  int64_t limit = __atomic_load_n(&g_soft_limit, __ATOMIC_RELAXED);
  if (limit <= 0) return true;
  return bytes <= (size_t)limit &&
         __atomic_load_n(&g_heap_used, __ATOMIC_RELAXED) <= limit - (int64_t)bytes;
}

static void* counted(void* p) {
  if (p) __atomic_add_fetch(&g_heap_used, (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
  return p;
}

/* Calls that may take new address space in one piece are bracketed by the
 * installed hooks (mem.h): a block of kLargeBlock or more is mapped on its
 * own (glibc's mmap threshold starts at 128 KiB), and a thread's first
 * malloc-family call, even a free(), makes glibc reserve an arena of 64 MiB
 * for it. Anything else fits in the arena's reservation and calls no hook. */
enum { kLargeBlock = 128 << 10 };
static _Thread_local bool t_has_arena;
static const grt_mem_space_hooks* g_hooks;
static _Thread_local const grt_mem_space_hooks* t_hooks; /* those the open bracket called */

void grt_mem_set_space_hooks(const grt_mem_space_hooks* hooks) {
  __atomic_store_n(&g_hooks, hooks, __ATOMIC_RELEASE);
}

void grt_mem_space_begin(void) {
  const grt_mem_space_hooks* h = __atomic_load_n(&g_hooks, __ATOMIC_ACQUIRE);
  t_hooks = h;
  if (h) h->begin();
}

void grt_mem_space_end(void) {
  const grt_mem_space_hooks* h = t_hooks;
  t_hooks = NULL;
  if (h) h->end();
}

static bool takes_space(size_t bytes) { return bytes >= kLargeBlock || !t_has_arena; }

static void taking_begin(void) { grt_mem_space_begin(); }

/* After a malloc-family call: glibc gave this thread its arena. */
static void taking_end(void) {
  t_has_arena = true;
  grt_mem_space_end();
}

static void* malloc_gated(size_t size) {
  if (!takes_space(size)) return malloc(size);
  taking_begin();
  void* p = malloc(size);
  taking_end();
  return p;
}

void* grt_malloc(size_t size) {
  return fail_now() || !room_for(size) ? NULL : counted(malloc_gated(size));
}

void* grt_calloc(size_t n, size_t size) {
  if (fail_now() || (size && n > SIZE_MAX / size) || !room_for(n * size)) return NULL;
  if (!takes_space(n * size)) return counted(calloc(n, size));
  taking_begin();
  void* p = calloc(n, size);
  taking_end();
  return counted(p);
}

void* grt_realloc(void* p, size_t size) {
  size_t old = p ? malloc_usable_size(p) : 0;
  if (fail_now() || (size > old && !room_for(size - old))) return NULL;
  bool gate = takes_space(size);
  if (gate) taking_begin();
  void* q = realloc(p, size);
  if (gate) taking_end();
  if (!q) return size ? NULL : q;
  __atomic_sub_fetch(&g_heap_used, (int64_t)old, __ATOMIC_RELAXED);
  return counted(q);
}

char* grt_strdup(const char* s) {
  size_t n = strlen(s) + 1;
  if (fail_now() || !room_for(n)) return NULL;
  char* d = malloc_gated(n);
  if (d) memcpy(d, s, n);
  return counted(d);
}

char* grt_strndup(const char* s, size_t n) {
  size_t len = strnlen(s, n);
  if (fail_now() || !room_for(len + 1)) return NULL;
  char* d = malloc_gated(len + 1);
  if (d) {
    memcpy(d, s, len);
    d[len] = '\0';
  }
  return counted(d);
}

static void free_gated(void* p) {
  if (!p || t_has_arena) {
    free(p);
    return;
  }
  taking_begin();
  free(p);
  taking_end();
}

void grt_free(void* p) {
  if (!p) return;
  __atomic_sub_fetch(&g_heap_used, (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
  free_gated(p);
}

void* grt_mem_disown(void* p) {
  if (p) __atomic_sub_fetch(&g_heap_used, (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
  return p;
}

static int memalign_gated(void** out, size_t alignment, size_t size) {
  if (!takes_space(size)) return posix_memalign(out, alignment, size);
  taking_begin();
  int rc = posix_memalign(out, alignment, size);
  taking_end();
  return rc;
}

int grt_posix_memalign(void** out, size_t alignment, size_t size) {
  if (fail_now()) return ENOMEM;
  return memalign_gated(out, alignment, size);
}

void grt_posix_memalign_free(void* p) { free_gated(p); }

#if defined(__SANITIZE_ADDRESS__)
#define GRT_MAP_WITH_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRT_MAP_WITH_MALLOC 1
#endif
#endif

void* grt_map_pages(size_t bytes) {
  if (fail_now() || bytes == 0) return NULL;
#ifdef GRT_MAP_WITH_MALLOC
  void* p = NULL;
  return memalign_gated(&p, 4096, bytes) == 0 ? p : NULL;
#else
  grt_mem_space_begin();
  void* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  grt_mem_space_end();
  return p == MAP_FAILED ? NULL : p;
#endif
}

void grt_unmap_pages(void* p, size_t bytes) {
  if (!p) return;
#ifdef GRT_MAP_WITH_MALLOC
  (void)bytes;
  grt_posix_memalign_free(p);
#else
  munmap(p, bytes);
#endif
}

/* ---- the soft heap limit (grt/memory.h) --------------------------------- */

int64_t grt_soft_heap_limit64(int64_t n) {
  if (n < 0) return __atomic_load_n(&g_soft_limit, __ATOMIC_RELAXED);
  return __atomic_exchange_n(&g_soft_limit, n, __ATOMIC_RELAXED);
}

int64_t grt_heap_used(void) { return __atomic_load_n(&g_heap_used, __ATOMIC_RELAXED); }

int64_t grt_mem_soft_limit(void) { return __atomic_load_n(&g_soft_limit, __ATOMIC_RELAXED); }

bool grt_mem_reserve(size_t bytes) {
  int64_t b = bytes > (size_t)INT64_MAX ? INT64_MAX : (int64_t)bytes;
  int64_t now = __atomic_add_fetch(&g_heap_used, b, __ATOMIC_RELAXED);
  int64_t limit = __atomic_load_n(&g_soft_limit, __ATOMIC_RELAXED);
  if (limit > 0 && now > limit) {
    __atomic_sub_fetch(&g_heap_used, b, __ATOMIC_RELAXED);
    return false;
  }
  return true;
}

void grt_mem_unreserve(size_t bytes) {
  int64_t b = bytes > (size_t)INT64_MAX ? INT64_MAX : (int64_t)bytes;
  __atomic_sub_fetch(&g_heap_used, b, __ATOMIC_RELAXED);
}

/* ---- caches that give memory back ---------------------------------------- */

typedef struct {
  grt_mem_release_fn release;
  void* ctx;
} cache_entry;

static pthread_mutex_t g_caches_mu = PTHREAD_MUTEX_INITIALIZER;
static cache_entry* g_caches;
static size_t g_n_caches, g_cap_caches;

bool grt_mem_register_cache(grt_mem_release_fn release, void* ctx) {
  pthread_mutex_lock(&g_caches_mu);
  if (g_n_caches == g_cap_caches) {
    size_t cap = g_cap_caches ? 2 * g_cap_caches : 8;
    /* Plain realloc: the registry is the heap count's own bookkeeping. */
    cache_entry* grown = fail_now() ? NULL : realloc(g_caches, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&g_caches_mu);
      return false;
    }
    g_caches = grown;
    g_cap_caches = cap;
  }
  g_caches[g_n_caches++] = (cache_entry){release, ctx};
  pthread_mutex_unlock(&g_caches_mu);
  return true;
}

void grt_mem_unregister_cache(grt_mem_release_fn release, void* ctx) {
  pthread_mutex_lock(&g_caches_mu);
  for (size_t i = 0; i < g_n_caches; i++)
    if (g_caches[i].release == release && g_caches[i].ctx == ctx) {
      g_caches[i] = g_caches[--g_n_caches];
      break;
    }
  if (g_n_caches == 0) {
    free(g_caches);
    g_caches = NULL;
    g_cap_caches = 0;
  }
  pthread_mutex_unlock(&g_caches_mu);
}

int64_t grt_release_memory(void) {
  int64_t before = grt_heap_used();
  pthread_mutex_lock(&g_caches_mu);
  for (size_t i = 0; i < g_n_caches; i++) g_caches[i].release(g_caches[i].ctx);
  pthread_mutex_unlock(&g_caches_mu);
  int64_t freed = before - grt_heap_used();
  return freed > 0 ? freed : 0;
}
