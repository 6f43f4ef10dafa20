/* The CPU device: synchronous streams over host memory, kernels from the
 * CPU table, and an allocator per logical device that counts its bytes. */
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/cancel.h"
#include "base/mem.h"
#include "base/status.h"
#include "backends/cpu/collective.h"
#include "backends/cpu/cpu_kernels.h"
#include "grt/backend.h"
#include "grt/memory.h"

/* Each logical CPU device has its own allocator, which keeps released
 * blocks on free lists by size class and hands them out again:
 * - blocks of 64 KiB and more, so a run that makes the same large tensors
 *   every step reuses their memory instead of mapping fresh pages (whose
 *   first-touch faults cost a few percent of a 1024^3 MatMul);
 * - blocks up to 4 KiB (64-byte classes, a bounded number each), so the
 *   executor's small per-node outputs skip malloc's aligned path (a third
 *   of the time of a chain of scalar Adds).
 * What the lists keep is returned to the system when it goes unused, so a
 * long-running host's memory follows what its graphs need now, not the
 * most they ever needed together:
 * - blocks of 64 KiB and more are mapped pages of their own (grt_map_pages),
 *   which go back to the system whole when freed; through malloc they could
 *   stay resident in an arena;
 * - a block is kept while the cache (256 MiB) has room for it, however
 *   large, or while what the allocator holds (in use and cached) stays
 *   within the most it ever had in use: fresh pages cost a first-touch
 *   fault each, which is small beside a kernel that computes a big tensor
 *   but not beside one that only moves it (a 64 MiB all-reduce across
 *   processes ran at 38% of MPI_Allreduce's bandwidth with its output
 *   mapped anew every step, 83-90% kept), and a step that needs a block
 *   over 256 MiB needs it again next step;
 * - every kDecayNs, blocks that stayed on a list the whole period (the
 *   list's low-water mark, as jemalloc's thread caches do) are released. */
enum {
  kHeader = GRT_TENSOR_ALIGNMENT, /* block size lives in front of the data */
  kMinCached = 64 * 1024,
  kClasses = 4 * 40, /* four classes per power of two up to 2^40 */
  kSmallStep = 64,
  kSmallMax = 4096,
  kSmallClasses = kSmallMax / kSmallStep,
  kSmallKeep = 1024,      /* blocks kept per small class */
  kDecayCheckEvery = 256, /* frees between looks at the clock */
};
static const size_t kMaxCachedBytes = (size_t)256 << 20;
static const int64_t kDecayNs = 2000000000; /* 2 s */

typedef struct free_block {
  struct free_block* next;
} free_block;

typedef struct {
  grt_allocator base;
  size_t in_use; /* written under the lock; read atomically by memory_stats */
  size_t peak;
  size_t limit; /* memory_limit: in_use never passes it; 0: none */
  int lock;     /* a spin lock: held for a few instructions, cheaper than a mutex */
  free_block* free_lists[kClasses];
  size_t cached; /* bytes on the free lists, under the lock */
  free_block* small_lists[kSmallClasses];
  int32_t small_count[kSmallClasses];
  /* Blocks on each list now, and the fewest there were since the last
   * decay: that many went unused for a whole period. */
  int32_t large_count[kClasses];
  int32_t large_low[kClasses];
  int32_t small_low[kSmallClasses];
  int64_t next_decay_ns;
  uint32_t frees;
  /* The device was freed while tensors from it were still alive (fetched
   * tensors belong to the caller and may outlive the session): the
   * allocator stays until the last of them is freed, caching nothing. */
  bool orphaned;
} counting_allocator;

static void free_orphan(counting_allocator* a);

/* The size class of `size` (>= kMinCached) and the size it rounds up to:
 * steps of a quarter power of two, so at most 25% is wasted. */
static int size_class(size_t size, size_t* rounded) {
  if (size <= kSmallMax) {
    size_t c = size ? (size + kSmallStep - 1) / kSmallStep : 1;
    *rounded = c * kSmallStep;
    return (int)c - 1;
  }
  int p = 63 - __builtin_clzll((unsigned long long)size); /* 2^p <= size */
  size_t base = (size_t)1 << p, step = base / 4;
  size_t q = (size - base + step - 1) / step; /* 0..4 */
  if (q == 4) {
    p++;
    q = 0;
    base <<= 1;
    step <<= 1;
  }
  *rounded = base + q * step;
  int c = p * 4 + (int)q;
  return c < kClasses ? c : -1;
}

static void lock(counting_allocator* a) {
  int spins = 0;
  while (__atomic_exchange_n(&a->lock, 1, __ATOMIC_ACQUIRE)) {
    while (__atomic_load_n(&a->lock, __ATOMIC_RELAXED))
      if (++spins > 64) {
        sched_yield(); /* the holder may be descheduled: let it run */
        spins = 0;
      }
  }
}

static void unlock(counting_allocator* a) { __atomic_store_n(&a->lock, 0, __ATOMIC_RELEASE); }

/* Under the lock. */
static void account(counting_allocator* a, size_t add, size_t sub) {
  size_t now = a->in_use + add - sub;
  __atomic_store_n(&a->in_use, now, __ATOMIC_RELAXED);
  if (now > a->peak) __atomic_store_n(&a->peak, now, __ATOMIC_RELAXED);
}

/* Under the lock: would `add` more bytes in use pass the memory limit? */
static bool over_limit(const counting_allocator* a, size_t add) {
  return a->limit && (add > a->limit || a->in_use > a->limit - add);
}

static void counting_release_cache(counting_allocator* a);

/* Counts `bytes` fresh from the system against the soft heap limit; when
 * that fails, gives every allocator's cached blocks back (this one's
 * included) and tries again. */
static bool reserve_heap(counting_allocator* a, size_t bytes) {
  (void)a;
  if (grt_mem_reserve(bytes)) return true;
  grt_release_memory();
  return grt_mem_reserve(bytes);
}

/* grt_release_memory's callback (base/mem.h's registry). */
static void release_cached(void* ctx) {
  counting_allocator* a = ctx;
  lock(a);
  counting_release_cache(a);
  unlock(a);
}

static void* counting_alloc(grt_allocator* self, size_t size, size_t alignment) {
  counting_allocator* a = (counting_allocator*)self;
  if (alignment > kHeader || size > SIZE_MAX / 2) return NULL;
  size_t rounded = size;
  bool small = size <= kSmallMax;
  int c = (small || size >= kMinCached) ? size_class(size, &rounded) : -1;
  void* p = NULL;
  if (c >= 0) {
    free_block** list = small ? &a->small_lists[c] : &a->free_lists[c];
    lock(a);
    if (over_limit(a, rounded)) {
      unlock(a);
      return NULL;
    }
    free_block* b = *list;
    if (b) {
      *list = b->next;
      int32_t* count = small ? &a->small_count[c] : &a->large_count[c];
      int32_t* low = small ? &a->small_low[c] : &a->large_low[c];
      if (--*count < *low) *low = *count;
      if (!small) a->cached -= rounded;
      p = (char*)b - kHeader;
      account(a, rounded, 0);
    }
    unlock(a);
    if (p) {
      *(size_t*)p = rounded;
      return (char*)p + kHeader;
    }
  } else {
    rounded = size;
  }
  /* In use counts before the memory exists, so concurrent allocations
   * cannot pass the limit together. */
  lock(a);
  if (over_limit(a, rounded)) {
    unlock(a);
    return NULL;
  }
  account(a, rounded, 0);
  unlock(a);
  if (!reserve_heap(a, rounded + kHeader)) {
    p = NULL;
  } else if (rounded >= kMinCached) {
    p = grt_map_pages(rounded + kHeader);
    if (!p) grt_mem_unreserve(rounded + kHeader);
  } else if (grt_posix_memalign(&p, kHeader, rounded + kHeader) != 0) {
    grt_mem_unreserve(rounded + kHeader);
    p = NULL;
  }
  if (!p) {
    lock(a);
    account(a, 0, rounded);
    unlock(a);
    return NULL;
  }
  *(size_t*)p = rounded;
  return (char*)p + kHeader;
}

/* Gives one block (its header's address) back to the system. */
static void release_block(void* p) {
  size_t size = *(size_t*)p;
  grt_mem_unreserve(size + kHeader);
  if (size >= kMinCached)
    grt_unmap_pages(p, size + kHeader);
  else
    grt_posix_memalign_free(p);
}

/* Under the lock: moves the blocks that went unused for a whole period off
 * the lists onto `out`, for release_chain after the lock. */
static void take_decayed(counting_allocator* a, free_block** out) {
  for (int c = 0; c < kSmallClasses; c++) {
    for (int32_t k = 0; k < a->small_low[c] && a->small_lists[c]; k++) {
      free_block* b = a->small_lists[c];
      a->small_lists[c] = b->next;
      b->next = *out;
      *out = b;
      a->small_count[c]--;
    }
    a->small_low[c] = a->small_count[c];
  }
  for (int c = 0; c < kClasses; c++) {
    for (int32_t k = 0; k < a->large_low[c] && a->free_lists[c]; k++) {
      free_block* b = a->free_lists[c];
      a->free_lists[c] = b->next;
      b->next = *out;
      *out = b;
      a->large_count[c]--;
      a->cached -= *(size_t*)((char*)b - kHeader);
    }
    a->large_low[c] = a->large_count[c];
  }
}

static void release_chain(free_block* b) {
  while (b) {
    free_block* next = b->next;
    release_block((char*)b - kHeader);
    b = next;
  }
}

static void counting_free(grt_allocator* self, void* ptr) {
  if (!ptr) return;
  counting_allocator* a = (counting_allocator*)self;
  void* p = (char*)ptr - kHeader;
  size_t size = *(size_t*)p, rounded;
  bool small = size <= kSmallMax;
  int c = (small || size >= kMinCached) ? size_class(size, &rounded) : -1;
  free_block* decayed = NULL;
  lock(a);
  account(a, 0, size);
  bool last_orphan_block = a->orphaned && a->in_use == 0;
  if (c >= 0 && rounded == size && !a->orphaned) {
    free_block* b = ptr;
    if (small && a->small_count[c] < kSmallKeep) {
      b->next = a->small_lists[c];
      a->small_lists[c] = b;
      a->small_count[c]++;
      p = NULL;
    } else if (!small &&
               (a->cached + size <= kMaxCachedBytes || a->in_use + a->cached + size <= a->peak)) {
      b->next = a->free_lists[c];
      a->free_lists[c] = b;
      a->cached += size;
      a->large_count[c]++;
      p = NULL;
    }
  }
  if (++a->frees % kDecayCheckEvery == 0 && !a->orphaned) {
    int64_t now = grt_monotonic_ns();
    if (now >= a->next_decay_ns) {
      take_decayed(a, &decayed);
      a->next_decay_ns = now + kDecayNs;
    }
  }
  unlock(a);
  if (p) release_block(p);
  release_chain(decayed);
  if (last_orphan_block) free_orphan(a);
}

/* Gives the cached blocks back to the system (under the lock, or when
 * nothing else uses the allocator). */
static void free_list(free_block** list) {
  release_chain(*list);
  *list = NULL;
}

static void counting_release_cache(counting_allocator* a) {
  for (int c = 0; c < kSmallClasses; c++) {
    free_list(&a->small_lists[c]);
    a->small_count[c] = 0;
    a->small_low[c] = 0;
  }
  for (int c = 0; c < kClasses; c++) {
    free_list(&a->free_lists[c]);
    a->large_count[c] = 0;
    a->large_low[c] = 0;
  }
  a->cached = 0;
}

/* Host streams: work runs on the calling thread when it is queued, so
 * events are complete when recorded and waits have nothing to wait for. */
static grt_status* cpu_memcpy(grt_stream* s, void* dst, const void* src, size_t n) {
  if (n) memcpy(dst, src, n);
  return NULL;
}
static grt_status* cpu_record(grt_stream* s, grt_event* e) { return NULL; }
static grt_status* cpu_wait(grt_stream* s, grt_event* e) { return NULL; }
static grt_status* cpu_stream_sync(grt_stream* s) { return NULL; }

static const grt_stream_ops kCpuStreamOps = {cpu_memcpy, cpu_record, cpu_wait, cpu_stream_sync};

static grt_status* cpu_event_sync(grt_event* e) { return NULL; }
static void cpu_event_free(grt_event* e) { grt_free(e); }

static const grt_event_ops kCpuEventOps = {cpu_event_sync, cpu_event_free};

typedef struct {
  grt_device base;
  counting_allocator alloc;
  grt_stream streams[GRT_NUM_STREAM_KINDS];
} cpu_device;

static void free_orphan(counting_allocator* a) { grt_free((char*)a - offsetof(cpu_device, alloc)); }

/* Frees the device now, or, while tensors from its allocator are alive,
 * when the last of them is freed (counting_free). */
static void cpu_free(grt_device* d) {
  counting_allocator* a = &((cpu_device*)d)->alloc;
  grt_mem_unregister_cache(release_cached, a);
  lock(a);
  counting_release_cache(a);
  bool in_use = a->in_use != 0;
  a->orphaned = in_use;
  unlock(a);
  if (!in_use) grt_free(d);
}

static grt_status* cpu_event_new(grt_device* d, grt_event** out) {
  *out = grt_calloc(1, sizeof **out);
  if (!*out) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making an event on %s", d->name);
  (*out)->ops = &kCpuEventOps;
  (*out)->device = d;
  return NULL;
}

static void cpu_memory_stats(grt_device* d, grt_memory_kind kind, size_t* in_use, size_t* peak) {
  const cpu_device* c = (const cpu_device*)d;
  *in_use = __atomic_load_n(&c->alloc.in_use, __ATOMIC_RELAXED);
  *peak = __atomic_load_n(&c->alloc.peak, __ATOMIC_RELAXED);
}

/* launch NULL: the executor calls the kernel on its own thread. */
static const grt_device_ops kCpuDeviceOps = {
    .free = cpu_free, .event_new = cpu_event_new, .memory_stats = cpu_memory_stats};

static grt_status* cpu_device_new(const grt_device_config* cfg, grt_device** out) {
  *out = NULL;
  /* The kernel table first: the backend's kernel() cannot say that it ran
   * out of memory (it would look like a missing kernel). */
  if (!grt_cpu_kernels_ready())
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building the CPU kernel table");
  cpu_device* d = grt_calloc(1, sizeof *d);
  if (!d) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory creating %s", cfg->name);
  d->base.ops = &kCpuDeviceOps;
  d->base.id = cfg->id;
  d->base.name = cfg->name;
  d->base.host_addressable = true;
  d->alloc.base.name = cfg->name;
  d->alloc.base.alloc = counting_alloc;
  d->alloc.base.free = counting_free;
  d->alloc.limit = cfg->memory_limit > 0 ? (size_t)cfg->memory_limit : 0;
  if (!grt_mem_register_cache(release_cached, &d->alloc)) {
    grt_free(d);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory creating %s", cfg->name);
  }
  /* Host memory is device memory here: one allocator serves both kinds. */
  d->base.memory[GRT_MEMORY_DEVICE] = &d->alloc.base;
  d->base.memory[GRT_MEMORY_HOST] = &d->alloc.base;
  for (int k = 0; k < GRT_NUM_STREAM_KINDS; k++) {
    d->streams[k] = (grt_stream){&kCpuStreamOps, &d->base, (grt_stream_kind)k, true};
    d->base.streams[k] = &d->streams[k];
  }
  *out = &d->base;
  return NULL;
}

/* The logical CPU devices are the session's to choose (cpu.devices); the
 * machine always has the host. */
static int32_t cpu_probe(char* why, size_t why_size) { return 1; }

static const grt_backend kCpuBackend = {
    .api_version = GRT_BACKEND_API_VERSION,
    .type = "CPU",
    .priority = 70,
    .probe = cpu_probe,
    .device_new = cpu_device_new,
    .kernel = grt_cpu_kernel_lookup,
    .all_reduce = grt_cpu_all_reduce,
};

/* Built in: registers itself when the library (or program) loads. */
__attribute__((constructor)) static void register_cpu_backend(void) {
  grt_status_free(grt_backend_register(&kCpuBackend));
}
