/* The best-fit-with-coalescing allocator (bfc_allocator.h says what it
 * does); here, how. */
#include "bfc_allocator.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  kBins = 48,               /* bin b: chunks of [256 << b, 256 << (b + 1)) bytes */
  kDefaultInitial = 2 << 20 /* first region when growing */
};

typedef struct chunk {
  char* ptr;
  size_t size;
  size_t requested; /* what the live allocation asked for; 0 when free */
  bool in_use;
  int32_t region;                    /* index in regions[] */
  struct chunk *prev, *next;         /* address neighbours in the region */
  struct chunk *bin_prev, *bin_next; /* the bin's list, when free */
} chunk;

typedef struct {
  char* base;
  size_t size;
  chunk* first;
} region;

struct grt_bfc {
  pthread_mutex_t mu;
  grt_bfc_provider provider;
  char name[64];
  size_t limit;
  bool allow_growth;
  size_t next_region;
  region* regions;
  int32_t n_regions, cap_regions;
  chunk* bins[kBins]; /* each sorted by (size, address) ascending */
  /* In-use chunks by address: open addressing, linear probing, capacity a
   * power of two kept at most half full. */
  chunk** index;
  size_t index_cap;
  grt_bfc_stats st;
  int64_t bad_frees;
};

/* ---- sizes and bins ---------------------------------------------------- */

static bool round_size(size_t size, size_t* out) {
  if (size == 0) size = 1;
  if (size > SIZE_MAX - (GRT_BFC_ALIGNMENT - 1)) return false;
  *out = (size + GRT_BFC_ALIGNMENT - 1) & ~(size_t)(GRT_BFC_ALIGNMENT - 1);
  return true;
}

static int bin_of(size_t size) {
  size_t units = size / GRT_BFC_ALIGNMENT; /* >= 1 */
  int b = 63 - __builtin_clzll((unsigned long long)units);
  return b < kBins ? b : kBins - 1;
}

static bool before(const chunk* x, const chunk* y) {
  return x->size < y->size || (x->size == y->size && x->ptr < y->ptr);
}

static void bin_insert(grt_bfc* a, chunk* c) {
  chunk** head = &a->bins[bin_of(c->size)];
  chunk* prev = NULL;
  chunk* at = *head;
  while (at && before(at, c)) {
    prev = at;
    at = at->bin_next;
  }
  c->bin_prev = prev;
  c->bin_next = at;
  if (at) at->bin_prev = c;
  if (prev)
    prev->bin_next = c;
  else
    *head = c;
  a->st.free_chunks++;
}

static void bin_remove(grt_bfc* a, chunk* c) {
  if (c->bin_prev)
    c->bin_prev->bin_next = c->bin_next;
  else
    a->bins[bin_of(c->size)] = c->bin_next;
  if (c->bin_next) c->bin_next->bin_prev = c->bin_prev;
  c->bin_prev = c->bin_next = NULL;
  a->st.free_chunks--;
}

/* The smallest free chunk of at least `size` bytes (lowest address among
 * equals), or NULL. */
static chunk* best_fit(grt_bfc* a, size_t size) {
  for (int b = bin_of(size); b < kBins; b++)
    for (chunk* c = a->bins[b]; c; c = c->bin_next)
      if (c->size >= size) return c;
  return NULL;
}

/* ---- the index of live allocations -------------------------------------- */

static size_t slot_of(const grt_bfc* a, const void* p) {
  uint64_t h = (uint64_t)(uintptr_t)p / GRT_BFC_ALIGNMENT * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) & (a->index_cap - 1);
}

static void index_put_raw(chunk** table, size_t cap, size_t (*slot)(const grt_bfc*, const void*),
                          const grt_bfc* a, chunk* c) {
  size_t i = slot(a, c->ptr);
  while (table[i]) i = (i + 1) & (cap - 1);
  table[i] = c;
}

/* Room for `n` live entries; false when out of host memory. */
static bool index_reserve(grt_bfc* a, size_t n) {
  if (a->index_cap && n * 2 <= a->index_cap) return true;
  size_t cap = a->index_cap ? a->index_cap : 64;
  while (n * 2 > cap) cap *= 2;
  chunk** table = calloc(cap, sizeof *table);
  if (!table) return false;
  chunk** old = a->index;
  size_t old_cap = a->index_cap;
  a->index = table;
  a->index_cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i]) index_put_raw(table, cap, slot_of, a, old[i]);
  free(old);
  return true;
}

static void index_put(grt_bfc* a, chunk* c) {
  index_put_raw(a->index, a->index_cap, slot_of, a, c);
}

static size_t index_find(const grt_bfc* a, const void* p) {
  if (!a->index_cap) return SIZE_MAX;
  size_t i = slot_of(a, p);
  while (a->index[i]) {
    if (a->index[i]->ptr == p) return i;
    i = (i + 1) & (a->index_cap - 1);
  }
  return SIZE_MAX;
}

/* Deletion by backward shift: later entries of the probe run move up so
 * lookups never stop early at the hole. */
static void index_delete(grt_bfc* a, size_t i) {
  size_t mask = a->index_cap - 1;
  a->index[i] = NULL;
  for (size_t j = (i + 1) & mask; a->index[j]; j = (j + 1) & mask) {
    size_t home = slot_of(a, a->index[j]->ptr);
    /* Move j into the hole unless its home lies cyclically in (i, j]. */
    bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
    if (!stays) {
      a->index[i] = a->index[j];
      a->index[j] = NULL;
      i = j;
    }
  }
}

/* ---- regions ----------------------------------------------------------- */

/* Takes a region of exactly `size` bytes; false if the provider or the
 * host's memory says no. */
static bool add_region(grt_bfc* a, size_t size) {
  if (a->n_regions == a->cap_regions) {
    int32_t cap = a->cap_regions ? a->cap_regions * 2 : 8;
    region* r = realloc(a->regions, (size_t)cap * sizeof *r);
    if (!r) return false;
    a->regions = r;
    a->cap_regions = cap;
  }
  chunk* c = calloc(1, sizeof *c);
  if (!c) return false;
  void* base = a->provider.alloc(a->provider.ctx, size);
  if (!base) {
    free(c);
    return false;
  }
  c->ptr = base;
  c->size = size;
  c->region = a->n_regions;
  a->regions[a->n_regions++] = (region){base, size, c};
  a->st.reserved += size;
  a->st.regions++;
  a->st.chunks++;
  bin_insert(a, c);
  return true;
}

/* A region for a request of `need` bytes: twice the last one (at least
 * `need`), smaller if the provider refuses, never past the limit. */
static bool grow(grt_bfc* a, size_t need) {
  if (a->st.reserved > a->limit || need > a->limit - a->st.reserved) return false;
  size_t room = (a->limit - a->st.reserved) & ~(size_t)(GRT_BFC_ALIGNMENT - 1);
  size_t size = a->next_region > need ? a->next_region : need;
  if (size > room) size = room;
  for (;;) {
    if (add_region(a, size)) {
      if (size <= SIZE_MAX / 2) a->next_region = size * 2;
      return true;
    }
    if (size == need) return false;
    size_t half = (size / 2) & ~(size_t)(GRT_BFC_ALIGNMENT - 1);
    size = half > need ? half : need;
  }
}

/* Gives back every region that is wholly free; true if any went. */
static bool release_free_regions(grt_bfc* a) {
  int32_t kept = 0;
  bool any = false;
  for (int32_t i = 0; i < a->n_regions; i++) {
    region r = a->regions[i];
    if (!r.first->in_use && r.first->size == r.size) {
      bin_remove(a, r.first);
      free(r.first);
      a->provider.free(a->provider.ctx, r.base, r.size);
      a->st.reserved -= r.size;
      a->st.regions--;
      a->st.chunks--;
      any = true;
      continue;
    }
    if (kept != i)
      for (chunk* c = r.first; c; c = c->next) c->region = kept;
    a->regions[kept++] = r;
  }
  a->n_regions = kept;
  return any;
}

/* ---- the allocator ------------------------------------------------------ */

grt_status* grt_bfc_new(const grt_bfc_provider* provider, const grt_bfc_options* options,
                        grt_bfc** out) {
  *out = NULL;
  if (!provider || !provider->alloc || !provider->free || !options)
    return grt_status_new(GRT_INVALID_ARGUMENT, "BFC allocator: no region provider or options");
  grt_bfc* a = calloc(1, sizeof *a);
  if (!a) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory making a BFC allocator");
  pthread_mutex_init(&a->mu, NULL);
  a->provider = *provider;
  snprintf(a->name, sizeof a->name, "%s", options->name ? options->name : "BFC");
  a->limit = options->limit & ~(size_t)(GRT_BFC_ALIGNMENT - 1);
  a->allow_growth = options->allow_growth;
  a->next_region = options->initial_region ? options->initial_region : kDefaultInitial;
  round_size(a->next_region, &a->next_region);
  a->st.limit = a->limit;
  if (!a->allow_growth && a->limit && !add_region(a, a->limit)) {
    grt_status* st = grt_status_new(GRT_RESOURCE_EXHAUSTED,
                                    "%s: cannot reserve %zu bytes up front (memory_fraction)",
                                    a->name, a->limit);
    grt_bfc_free_all(a);
    return st;
  }
  *out = a;
  return NULL;
}

void grt_bfc_free_all(grt_bfc* a) {
  if (!a) return;
  for (int32_t i = 0; i < a->n_regions; i++) {
    for (chunk* c = a->regions[i].first; c;) {
      chunk* next = c->next;
      free(c);
      c = next;
    }
    a->provider.free(a->provider.ctx, a->regions[i].base, a->regions[i].size);
  }
  free(a->regions);
  free(a->index);
  pthread_mutex_destroy(&a->mu);
  free(a);
}

/* Under the lock: serves `rounded` bytes from free chunk c. `spare` is a
 * chunk record for the split-off rest (NULL: no split). */
static void take(grt_bfc* a, chunk* c, size_t rounded, size_t requested, chunk** spare) {
  bin_remove(a, c);
  if (*spare && c->size - rounded >= GRT_BFC_ALIGNMENT) {
    chunk* rest = *spare;
    *spare = NULL;
    *rest =
        (chunk){c->ptr + rounded, c->size - rounded, 0, false, c->region, c, c->next, NULL, NULL};
    if (c->next) c->next->prev = rest;
    c->next = rest;
    c->size = rounded;
    a->st.chunks++;
    bin_insert(a, rest);
  }
  c->in_use = true;
  c->requested = requested;
  index_put(a, c);
  a->st.in_use += c->size;
  a->st.requested += requested;
  if (a->st.in_use > a->st.peak_in_use) a->st.peak_in_use = a->st.in_use;
  a->st.allocs++;
  a->st.total_allocs++;
}

void* grt_bfc_alloc(grt_bfc* a, size_t size) {
  size_t held;
  return grt_bfc_alloc_sized(a, size, &held);
}

void* grt_bfc_alloc_sized(grt_bfc* a, size_t size, size_t* held) {
  *held = 0;
  size_t rounded;
  if (!round_size(size, &rounded)) {
    pthread_mutex_lock(&a->mu);
    a->st.failed_allocs++;
    pthread_mutex_unlock(&a->mu);
    return NULL;
  }
  /* Host memory for the bookkeeping first, so nothing needs undoing. */
  chunk* spare = malloc(sizeof *spare);
  pthread_mutex_lock(&a->mu);
  void* p = NULL;
  if (index_reserve(a, (size_t)a->st.allocs + 1)) {
    chunk* c = best_fit(a, rounded);
    if (!c && a->allow_growth) {
      if (grow(a, rounded) || (release_free_regions(a) && grow(a, rounded)))
        c = best_fit(a, rounded);
    }
    if (c) {
      take(a, c, rounded, size, &spare);
      p = c->ptr;
      *held = c->size;
    }
  }
  if (!p) a->st.failed_allocs++;
  pthread_mutex_unlock(&a->mu);
  free(spare);
  return p;
}

size_t grt_bfc_release(grt_bfc* a, void* p) {
  if (!p) return 0;
  pthread_mutex_lock(&a->mu);
  size_t i = index_find(a, p);
  if (i == SIZE_MAX) {
    a->bad_frees++;
    pthread_mutex_unlock(&a->mu);
    return 0;
  }
  chunk* c = a->index[i];
  size_t freed = c->size;
  index_delete(a, i);
  a->st.in_use -= c->size;
  a->st.requested -= c->requested;
  a->st.allocs--;
  c->in_use = false;
  c->requested = 0;
  /* Coalesce with free neighbours. */
  chunk* n = c->next;
  if (n && !n->in_use) {
    bin_remove(a, n);
    c->size += n->size;
    c->next = n->next;
    if (n->next) n->next->prev = c;
    free(n);
    a->st.chunks--;
  }
  chunk* pv = c->prev;
  if (pv && !pv->in_use) {
    bin_remove(a, pv);
    pv->size += c->size;
    pv->next = c->next;
    if (c->next) c->next->prev = pv;
    free(c);
    a->st.chunks--;
    c = pv;
  }
  bin_insert(a, c);
  pthread_mutex_unlock(&a->mu);
  return freed;
}

size_t grt_bfc_chunk_size(grt_bfc* a, const void* p) {
  pthread_mutex_lock(&a->mu);
  size_t i = index_find(a, p);
  size_t n = i == SIZE_MAX ? 0 : a->index[i]->size;
  pthread_mutex_unlock(&a->mu);
  return n;
}

/* Under the lock. */
static size_t largest_free(const grt_bfc* a) {
  for (int b = kBins - 1; b >= 0; b--) {
    const chunk* c = a->bins[b];
    if (!c) continue;
    while (c->bin_next) c = c->bin_next;
    return c->size;
  }
  return 0;
}

void grt_bfc_get_stats(grt_bfc* a, grt_bfc_stats* out) {
  pthread_mutex_lock(&a->mu);
  *out = a->st;
  out->largest_free = largest_free(a);
  pthread_mutex_unlock(&a->mu);
}

int64_t grt_bfc_bad_frees(grt_bfc* a) {
  pthread_mutex_lock(&a->mu);
  int64_t n = a->bad_frees;
  pthread_mutex_unlock(&a->mu);
  return n;
}

/* "1.5 MiB", "300 B". */
static void human(size_t n, char* buf, size_t size) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)n;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  if (u == 0)
    snprintf(buf, size, "%zu B", n);
  else
    snprintf(buf, size, "%.1f %s", v, units[u]);
}

static size_t describe_stats(const grt_bfc_stats* s, char* buf, size_t size) {
  char in_use[32], peak[32], largest[32], reserved[32], limit[32];
  human(s->in_use, in_use, sizeof in_use);
  human(s->peak_in_use, peak, sizeof peak);
  human(s->largest_free, largest, sizeof largest);
  human(s->reserved, reserved, sizeof reserved);
  human(s->limit, limit, sizeof limit);
  int n = snprintf(buf, size,
                   "in use %s (peak %s) in %lld allocations, largest free chunk %s, "
                   "reserved %s of limit %s, %lld chunks (%lld free) in %lld regions",
                   in_use, peak, (long long)s->allocs, largest, reserved, limit,
                   (long long)s->chunks, (long long)s->free_chunks, (long long)s->regions);
  return n < 0 ? 0 : (size_t)n;
}

size_t grt_bfc_describe(grt_bfc* a, char* buf, size_t size) {
  grt_bfc_stats s;
  grt_bfc_get_stats(a, &s);
  return describe_stats(&s, buf, size);
}

grt_status* grt_bfc_oom_status(grt_bfc* a, size_t size) {
  char state[320];
  grt_bfc_describe(a, state, sizeof state);
  return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory on %s allocating %zu bytes: %s",
                        a->name, size, state);
}

/* ---- invariants (tests) -------------------------------------------------- */

#define BROKEN(...) grt_status_new(GRT_INTERNAL, "BFC invariant: " __VA_ARGS__)

static grt_status* check_locked(grt_bfc* a) {
  size_t in_use = 0, requested = 0, reserved = 0;
  int64_t chunks = 0, free_chunks = 0, allocs = 0;
  for (int32_t r = 0; r < a->n_regions; r++) {
    const region* rg = &a->regions[r];
    char* at = rg->base;
    if (rg->first->prev) return BROKEN("region %d's first chunk has a predecessor", (int)r);
    for (const chunk* c = rg->first; c; c = c->next) {
      chunks++;
      if (c->ptr != at) return BROKEN("region %d: chunk at %p, expected %p", (int)r, c->ptr, at);
      if (c->size == 0 || c->size % GRT_BFC_ALIGNMENT)
        return BROKEN("chunk %p has size %zu", c->ptr, c->size);
      if (c->region != r) return BROKEN("chunk %p names region %d, is in %d", c->ptr, c->region, r);
      if (c->next && c->next->prev != c) return BROKEN("chunk %p: broken links", c->ptr);
      if (!c->in_use && c->next && !c->next->in_use)
        return BROKEN("free chunks %p and %p were not merged", c->ptr, c->next->ptr);
      if (c->in_use) {
        allocs++;
        in_use += c->size;
        requested += c->requested;
        size_t i = index_find(a, c->ptr);
        if (i == SIZE_MAX || a->index[i] != c) return BROKEN("live chunk %p not indexed", c->ptr);
      } else {
        free_chunks++;
      }
      at += c->size;
    }
    if (at != rg->base + rg->size) return BROKEN("region %d's chunks do not cover it", (int)r);
    reserved += rg->size;
  }
  int64_t binned = 0;
  for (int b = 0; b < kBins; b++) {
    const chunk* prev = NULL;
    for (const chunk* c = a->bins[b]; c; c = c->bin_next) {
      binned++;
      if (c->in_use) return BROKEN("chunk %p in use but in bin %d", c->ptr, b);
      if (bin_of(c->size) != b) return BROKEN("chunk of %zu bytes in bin %d", c->size, b);
      if (c->bin_prev != prev) return BROKEN("bin %d: broken links", b);
      if (prev && !before(prev, c)) return BROKEN("bin %d out of order", b);
      prev = c;
    }
  }
  size_t indexed = 0;
  for (size_t i = 0; i < a->index_cap; i++) indexed += a->index[i] != NULL;
  if (binned != free_chunks)
    return BROKEN("%lld chunks binned, %lld free", (long long)binned, (long long)free_chunks);
  if (indexed != (size_t)allocs)
    return BROKEN("%zu indexed, %lld live", indexed, (long long)allocs);
  if (in_use != a->st.in_use || requested != a->st.requested || reserved != a->st.reserved ||
      chunks != a->st.chunks || free_chunks != a->st.free_chunks || allocs != a->st.allocs ||
      a->n_regions != a->st.regions)
    return BROKEN("counters disagree with the chunks (in use %zu vs %zu, chunks %lld vs %lld)",
                  in_use, a->st.in_use, (long long)chunks, (long long)a->st.chunks);
  if (reserved > a->limit) return BROKEN("reserved %zu past the limit %zu", reserved, a->limit);
  if (a->st.peak_in_use < in_use) return BROKEN("peak below in use");
  return NULL;
}

grt_status* grt_bfc_check(grt_bfc* a) {
  pthread_mutex_lock(&a->mu);
  grt_status* st = check_locked(a);
  pthread_mutex_unlock(&a->mu);
  return st;
}
