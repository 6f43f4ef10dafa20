/* The per-device cache of cuDNN choices (dnn_cache.h): a list in use order
 * with each key's hash beside it. A device sees tens of distinct
 * convolutions, so a walk of the list costs less than the call it saves. */
#include "dnn_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
  struct entry *prev, *next; /* most recently used first */
  uint64_t hash;
  size_t key_size;
  void* value;
  unsigned char key[]; /* key_size bytes */
} entry;

struct grt_dnn_cache {
  size_t capacity, size;
  void (*free_value)(void* value);
  entry *head, *tail;
};

static uint64_t hash_of(const void* key, size_t n) { /* FNV-1a */
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char*)key)[i]) * 1099511628211ull;
  return h;
}

grt_status* grt_dnn_cache_new(size_t capacity, void (*free_value)(void* value),
                              grt_dnn_cache** out) {
  *out = NULL;
  if (!capacity) return grt_status_new(GRT_INVALID_ARGUMENT, "a cuDNN cache needs capacity > 0");
  grt_dnn_cache* c = calloc(1, sizeof *c);
  if (!c) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of host memory for a cuDNN cache");
  c->capacity = capacity;
  c->free_value = free_value;
  *out = c;
  return NULL;
}

static void unlink_entry(grt_dnn_cache* c, entry* e) {
  if (e->prev)
    e->prev->next = e->next;
  else
    c->head = e->next;
  if (e->next)
    e->next->prev = e->prev;
  else
    c->tail = e->prev;
  e->prev = e->next = NULL;
}

static void push_front(grt_dnn_cache* c, entry* e) {
  e->prev = NULL;
  e->next = c->head;
  if (c->head) c->head->prev = e;
  c->head = e;
  if (!c->tail) c->tail = e;
}

static void destroy(grt_dnn_cache* c, entry* e) {
  if (c->free_value && e->value) c->free_value(e->value);
  free(e);
}

static entry* find(const grt_dnn_cache* c, const void* key, size_t key_size, uint64_t h) {
  for (entry* e = c->head; e; e = e->next)
    if (e->hash == h && e->key_size == key_size && memcmp(e->key, key, key_size) == 0) return e;
  return NULL;
}

void grt_dnn_cache_free(grt_dnn_cache* c) {
  if (!c) return;
  for (entry* e = c->head; e;) {
    entry* next = e->next;
    destroy(c, e);
    e = next;
  }
  free(c);
}

void* grt_dnn_cache_get(grt_dnn_cache* c, const void* key, size_t key_size) {
  entry* e = find(c, key, key_size, hash_of(key, key_size));
  if (!e) return NULL;
  if (e != c->head) {
    unlink_entry(c, e);
    push_front(c, e);
  }
  return e->value;
}

void grt_dnn_cache_remove(grt_dnn_cache* c, const void* key, size_t key_size) {
  entry* e = find(c, key, key_size, hash_of(key, key_size));
  if (!e) return;
  unlink_entry(c, e);
  c->size--;
  destroy(c, e);
}

grt_status* grt_dnn_cache_put(grt_dnn_cache* c, const void* key, size_t key_size, void* value) {
  grt_dnn_cache_remove(c, key, key_size);
  entry* e = malloc(sizeof *e + key_size);
  if (!e) {
    if (c->free_value && value) c->free_value(value);
    return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of host memory for a cuDNN cache entry");
  }
  memcpy(e->key, key, key_size);
  e->key_size = key_size;
  e->hash = hash_of(key, key_size);
  e->value = value;
  push_front(c, e);
  if (++c->size > c->capacity) {
    entry* old = c->tail;
    unlink_entry(c, old);
    c->size--;
    destroy(c, old);
  }
  return NULL;
}

size_t grt_dnn_cache_size(const grt_dnn_cache* c) { return c ? c->size : 0; }
