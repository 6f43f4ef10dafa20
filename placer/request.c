/* Interned device requests: each distinct spec is parsed once and matched
 * against the device set once, however many nodes ask for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/internal.h"

#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory interning device requests")

static grt_status* add(grt_requests* r, const grt_device_name* name, const char* text,
                       int32_t* out) {
  if (r->n == r->cap) {
    int32_t cap = r->cap ? r->cap * 2 : 16;
    grt_request* items = grt_realloc(r->items, (size_t)cap * sizeof *items);
    if (!items) return OOM();
    r->items = items;
    r->cap = cap;
  }
  grt_request* q = &r->items[r->n];
  memset(q, 0, sizeof *q);
  q->name = *name;
  q->text = grt_arena_strdup(r->arena, text);
  q->match = grt_arena_calloc(r->arena, (size_t)r->ds->n + 1, 1);
  if (!q->text || !q->match) return OOM();
  for (int32_t d = 0; d < r->ds->n; d++) {
    q->match[d] = grt_device_name_matches(name, &r->ds->devs[d].parsed);
    q->n_match += q->match[d];
  }
  if (grt_strmap_put(&r->by_text, q->text, r->n, NULL) < 0) return OOM();
  *out = r->n++;
  return NULL;
}

grt_status* grt_requests_init(grt_requests* r, const grt_device_set* ds, grt_arena* arena) {
  memset(r, 0, sizeof *r);
  r->ds = ds;
  r->arena = arena;
  /* The set's types, higher priority first, ties by id (insertion sort). */
  for (grt_device_type t = 0; t < GRT_MAX_DEVICE_TYPES; t++) {
    if (ds->count[t] == 0) continue;
    int32_t k = r->n_types++;
    int32_t p = grt_device_type_priority(t);
    while (k > 0 && grt_device_type_priority(r->by_priority[k - 1]) < p) {
      r->by_priority[k] = r->by_priority[k - 1];
      k--;
    }
    r->by_priority[k] = t;
  }
  grt_strmap_init(&r->by_text);
  grt_strmap_init(&r->by_raw);
  grt_device_name empty;
  memset(&empty, 0, sizeof empty);
  int32_t id;
  return add(r, &empty, "", &id);
}

void grt_requests_clear(grt_requests* r) {
  grt_free(r->items);
  grt_strmap_clear(&r->by_text);
  grt_strmap_clear(&r->by_raw);
  r->items = NULL;
  r->n = r->cap = 0;
}

grt_status* grt_requests_intern(grt_requests* r, const grt_device_name* name, int32_t* out) {
  char text[GRT_DEVICE_NAME_MAX];
  grt_device_name_str(name, text, sizeof text);
  int32_t id = grt_strmap_get(&r->by_text, text);
  if (id >= 0) {
    *out = id;
    return NULL;
  }
  return add(r, name, text, out);
}

grt_status* grt_requests_intern_raw(grt_requests* r, const char* raw, int32_t* out) {
  *out = 0;
  if (!raw || !*raw) return NULL;
  int32_t id = grt_strmap_get(&r->by_raw, raw);
  if (id >= 0) {
    *out = id;
    return NULL;
  }
  grt_device_name name;
  GRT_RETURN_IF_ERROR(grt_device_name_parse(raw, &name));
  GRT_RETURN_IF_ERROR(grt_requests_intern(r, &name, &id));
  if (grt_strmap_put(&r->by_raw, raw, id, NULL) < 0) return OOM();
  *out = id;
  return NULL;
}

/* The first device of type t the request matches, or -1. */
static int32_t first_match(const grt_requests* r, const grt_request* q, grt_device_type t) {
  for (int32_t d = r->ds->first[t]; d < r->ds->first[t] + r->ds->count[t]; d++)
    if (q->match[d]) return d;
  return -1;
}

int32_t grt_requests_best(grt_requests* r, int32_t id, uint32_t mask, int order) {
  grt_request* q = &r->items[id];
  mask &= (1u << GRT_MAX_DEVICE_TYPES) - 1;
  uint16_t key = (uint16_t)(mask | (uint32_t)order << 8);
  for (int i = 0; i < q->n_best; i++)
    if (q->best_key[i] == key) return q->best[i];
  /* Type order: the type a kernel priority puts first, if any; then the
   * set's types by priority (GPU before CPU); ids ascend within a type. */
  int32_t best = -1;
  grt_device_type first = order == GRT_ORDER_DEFAULT ? -1 : order - 1;
  if (first >= 0 && first < GRT_MAX_DEVICE_TYPES && (mask & (1u << first)))
    best = first_match(r, q, first);
  for (int32_t k = 0; k < r->n_types && best < 0; k++) {
    grt_device_type t = r->by_priority[k];
    if (t != first && (mask & (1u << t))) best = first_match(r, q, t);
  }
  int slot =
      q->n_best < GRT_REQUEST_BEST_CACHE ? q->n_best++ : q->next_best++ % GRT_REQUEST_BEST_CACHE;
  q->best_key[slot] = key;
  q->best[slot] = best;
  return best;
}

int grt_device_name_merge_soft(grt_device_name* a, const grt_device_name* b, bool soft, char* why,
                               size_t why_size) {
  char sa[GRT_DEVICE_NAME_MAX], sb[GRT_DEVICE_NAME_MAX];
  grt_device_name_str(a, sa, sizeof sa);
  grt_device_name_str(b, sb, sizeof sb);
  if (why_size) why[0] = '\0';
  const char* what = NULL;
  if (b->has_job && a->has_job && strcmp(a->job, b->job) != 0)
    what = "jobs";
  else if (b->has_replica && a->has_replica && a->replica != b->replica)
    what = "replicas";
  else if (b->has_task && a->has_task && a->task != b->task)
    what = "tasks";
  if (what) {
    snprintf(why, why_size, "Cannot merge devices with incompatible %s: '%s' and '%s'", what, sa,
             sb);
    return -1;
  }
  grt_device_name m = *a;
  if (b->has_job) {
    m.has_job = true;
    memcpy(m.job, b->job, sizeof m.job);
  }
  if (b->has_replica) {
    m.has_replica = true;
    m.replica = b->replica;
  }
  if (b->has_task) {
    m.has_task = true;
    m.task = b->task;
  }
  if (b->has_type) {
    if (m.has_type && strcmp(m.type, b->type) != 0) {
      snprintf(why, why_size, "Cannot merge devices with incompatible types: '%s' and '%s'", sa,
               sb);
      if (!soft) return -1;
      /* TensorFlow drops both: a type conflict leaves any device. */
      m.has_type = false;
      m.has_id = false;
      *a = m;
      return 1;
    }
    m.has_type = true;
    memcpy(m.type, b->type, sizeof m.type);
  }
  if (b->has_id) {
    if (m.has_id && m.id != b->id) {
      snprintf(why, why_size, "Cannot merge devices with incompatible ids: '%s' and '%s'", sa, sb);
      if (!soft) return -1;
      m.has_id = false;
      *a = m;
      return 1;
    }
    m.has_id = true;
    m.id = b->id;
  }
  *a = m;
  return 0;
}
