#include "base/mem.h"
#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a: short names, no adversary worth a keyed hash here. */
uint32_t grt_hash_bytes(const void* data, size_t len) {
  const unsigned char* p = data;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

void grt_strmap_init(grt_strmap* m) { memset(m, 0, sizeof *m); }

void grt_strmap_clear(grt_strmap* m) {
  grt_free(m->keys);
  grt_free(m->hashes);
  grt_free(m->values);
  grt_strmap_init(m);
}

static bool rehash(grt_strmap* m, size_t cap) {
  const char** keys = grt_calloc(cap, sizeof *keys);
  uint32_t* hashes = grt_calloc(cap, sizeof *hashes);
  int32_t* values = grt_calloc(cap, sizeof *values);
  if (!keys || !hashes || !values) {
    grt_free(keys);
    grt_free(hashes);
    grt_free(values);
    return false;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = m->hashes[i] & (cap - 1);
    while (keys[j]) j = (j + 1) & (cap - 1);
    keys[j] = m->keys[i];
    hashes[j] = m->hashes[i];
    values[j] = m->values[i];
  }
  grt_free(m->keys);
  grt_free(m->hashes);
  grt_free(m->values);
  m->keys = keys;
  m->hashes = hashes;
  m->values = values;
  m->cap = cap;
  return true;
}

bool grt_strmap_reserve(grt_strmap* m, size_t n) {
  size_t cap = m->cap ? m->cap : 16;
  while (cap / 4 * 3 < n) {
    if (cap > ((size_t)-1) / 4) return false;
    cap *= 2;
  }
  return cap == m->cap || rehash(m, cap);
}

static int32_t lookup(const grt_strmap* m, const char* key, size_t len, uint32_t h) {
  if (!m->cap) return -1;
  for (size_t j = h & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
    const char* k = m->keys[j];
    if (!k) return -1;
    if (m->hashes[j] == h && strncmp(k, key, len) == 0 && k[len] == '\0') return (int32_t)j;
  }
}

int grt_strmap_put(grt_strmap* m, const char* key, int32_t value, int32_t* existing) {
  if (!grt_strmap_reserve(m, m->count + 1)) return -1;
  size_t len = strlen(key);
  uint32_t h = grt_hash_bytes(key, len);
  int32_t slot = lookup(m, key, len, h);
  if (slot >= 0) {
    if (existing) *existing = m->values[slot];
    return 0;
  }
  size_t j = h & (m->cap - 1);
  while (m->keys[j]) j = (j + 1) & (m->cap - 1);
  m->keys[j] = key;
  m->hashes[j] = h;
  m->values[j] = value;
  m->count++;
  return 1;
}

bool grt_strmap_set(grt_strmap* m, const char* key, int32_t value) {
  size_t len = strlen(key);
  int32_t slot = lookup(m, key, len, grt_hash_bytes(key, len));
  if (slot >= 0) {
    m->values[slot] = value;
    return true;
  }
  return grt_strmap_put(m, key, value, NULL) == 1;
}

int32_t grt_strmap_getn(const grt_strmap* m, const char* key, size_t len) {
  int32_t slot = lookup(m, key, len, grt_hash_bytes(key, len));
  return slot >= 0 ? m->values[slot] : -1;
}

int32_t grt_strmap_get(const grt_strmap* m, const char* key) {
  return grt_strmap_getn(m, key, strlen(key));
}
