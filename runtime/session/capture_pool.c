/* The memory of a recorded step (capture_pool.h). */
#include "runtime/session/capture_pool.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "base/mem.h"

typedef struct {
  void* p;
  size_t size, align;
  bool used;
} block;

struct grt_capture_pool {
  grt_allocator base;
  grt_allocator* under;
  pthread_mutex_t mu;
  block* blocks;
  int32_t n, cap;
  int32_t* free_ids; /* blocks not in use, reusable by the recording */
  int32_t n_free;
  int32_t* index;   /* open addressing: pointer -> block, -1 empty */
  size_t index_cap; /* a power of two, at least twice n */
  int32_t in_use;
  bool detached; /* the recording is gone */
};

static size_t slot_of(const grt_capture_pool* c, const void* p) {
  uintptr_t h = (uintptr_t)p >> 6;
  h *= 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 17) & (c->index_cap - 1);
}

static int32_t find(const grt_capture_pool* c, const void* p) {
  for (size_t i = slot_of(c, p);; i = (i + 1) & (c->index_cap - 1)) {
    int32_t b = c->index[i];
    if (b < 0) return -1;
    if (c->blocks[b].p == p) return b;
  }
}

static void index_put(grt_capture_pool* c, int32_t b) {
  size_t i = slot_of(c, c->blocks[b].p);
  while (c->index[i] >= 0) i = (i + 1) & (c->index_cap - 1);
  c->index[i] = b;
}

/* Room for one more block (arrays and index); false when out of memory. */
static bool reserve(grt_capture_pool* c) {
  if (c->n == c->cap) {
    int32_t cap = c->cap ? c->cap * 2 : 64;
    block* b = grt_realloc(c->blocks, (size_t)cap * sizeof *b);
    if (!b) return false;
    c->blocks = b;
    int32_t* f = grt_realloc(c->free_ids, (size_t)cap * sizeof *f);
    if (!f) return false;
    c->free_ids = f;
    c->cap = cap;
  }
  if ((size_t)(c->n + 1) * 2 > c->index_cap) {
    size_t cap = c->index_cap ? c->index_cap * 2 : 128;
    int32_t* index = grt_malloc(cap * sizeof *index);
    if (!index) return false;
    memset(index, 0xff, cap * sizeof *index);
    grt_free(c->index);
    c->index = index;
    c->index_cap = cap;
    for (int32_t b = 0; b < c->n; b++) index_put(c, b);
  }
  return true;
}

static void* pool_alloc(grt_allocator* self, size_t size, size_t alignment) {
  grt_capture_pool* c = (grt_capture_pool*)self;
  pthread_mutex_lock(&c->mu);
  void* p = NULL;
  for (int32_t i = c->n_free - 1; i >= 0; i--) {
    block* b = &c->blocks[c->free_ids[i]];
    if (b->size == size && b->align >= alignment) {
      b->used = true;
      c->free_ids[i] = c->free_ids[--c->n_free];
      p = b->p;
      break;
    }
  }
  if (!p && !c->detached && reserve(c)) {
    p = c->under->alloc(c->under, size, alignment);
    if (p) {
      c->blocks[c->n] = (block){p, size, alignment, true};
      index_put(c, c->n++);
    }
  }
  if (p) c->in_use++;
  pthread_mutex_unlock(&c->mu);
  return p;
}

static void destroy(grt_capture_pool* c) {
  pthread_mutex_destroy(&c->mu);
  grt_free(c->blocks);
  grt_free(c->free_ids);
  grt_free(c->index);
  grt_free(c);
}

static void pool_free(grt_allocator* self, void* p) {
  if (!p) return;
  grt_capture_pool* c = (grt_capture_pool*)self;
  pthread_mutex_lock(&c->mu);
  int32_t b = find(c, p);
  bool last = false;
  if (b >= 0 && c->blocks[b].used) {
    c->blocks[b].used = false;
    c->in_use--;
    if (c->detached) {
      c->under->free(c->under, p);
      last = c->in_use == 0;
    } else {
      c->free_ids[c->n_free++] = b;
    }
  }
  pthread_mutex_unlock(&c->mu);
  if (last) destroy(c);
}

grt_capture_pool* grt_capture_pool_new(grt_allocator* under) {
  grt_capture_pool* c = grt_calloc(1, sizeof *c);
  if (!c) return NULL;
  c->base = (grt_allocator){"captured step", pool_alloc, pool_free};
  c->under = under;
  pthread_mutex_init(&c->mu, NULL);
  if (!reserve(c)) {
    destroy(c);
    return NULL;
  }
  return c;
}

grt_allocator* grt_capture_pool_allocator(grt_capture_pool* c) { return &c->base; }

void grt_capture_pool_release(grt_capture_pool* c) {
  if (!c) return;
  pthread_mutex_lock(&c->mu);
  for (int32_t i = 0; i < c->n_free; i++) c->under->free(c->under, c->blocks[c->free_ids[i]].p);
  c->n_free = 0;
  c->detached = true;
  bool last = c->in_use == 0;
  pthread_mutex_unlock(&c->mu);
  if (last) destroy(c);
}
