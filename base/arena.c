#include "base/arena.h"
#include "base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct block {
  struct block* next;
  size_t size;
  size_t used;
  _Alignas(16) unsigned char data[];
} block;

struct grt_arena {
  block* head;
  size_t used;
};

enum { kMinBlock = 64 * 1024 };

grt_arena* grt_arena_new(void) { return grt_calloc(1, sizeof(grt_arena)); }

void grt_arena_free(grt_arena* a) {
  if (!a) return;
  for (block* b = a->head; b;) {
    block* next = b->next;
    grt_free(b);
    b = next;
  }
  grt_free(a);
}

void* grt_arena_alloc(grt_arena* a, size_t size) {
  size_t rounded = (size + 15) & ~(size_t)15;
  if (rounded < size || grt_mem_arena_fails()) return NULL;
  block* b = a->head;
  if (!b || b->size - b->used < rounded) {
    /* Blocks grow with the arena so a big graph needs few of them. */
    size_t want = a->used / 2;
    if (want < kMinBlock) want = kMinBlock;
    if (want < rounded) want = rounded;
    if (want > SIZE_MAX - sizeof(block)) return NULL;
    block* nb = grt_malloc(sizeof(block) + want);
    if (!nb) return NULL;
    nb->size = want;
    nb->used = 0;
    /* A huge one-off allocation should not waste the current block's room. */
    if (b && rounded > kMinBlock && b->size - b->used >= kMinBlock / 4) {
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      a->head = nb;
    }
    b = nb;
  }
  void* p = b->data + b->used;
  b->used += rounded;
  a->used += rounded;
  memset(p, 0, size);
  return p;
}

void* grt_arena_calloc(grt_arena* a, size_t n, size_t elem) {
  size_t bytes;
  if (__builtin_mul_overflow(n, elem, &bytes)) return NULL;
  return grt_arena_alloc(a, bytes);
}

char* grt_arena_strndup(grt_arena* a, const char* s, size_t n) {
  char* p = grt_arena_alloc(a, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char* grt_arena_strdup(grt_arena* a, const char* s) { return grt_arena_strndup(a, s, strlen(s)); }

size_t grt_arena_used(const grt_arena* a) { return a->used; }
