/* GPU memory per process (gpu_memory.h says what and why); here, how. */
#include "gpu_memory.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One allocator of the process: a logical GPU's device memory, or a card's
 * pinned host memory. */
typedef struct entry {
  struct entry* next;
  bool host;
  grt_gpu_memory_spec spec; /* host: only physical is meaningful */
  char name[48];            /* "GPU:3", "pinned host memory of card 0" */
  grt_bfc* bfc;
  int32_t refs; /* open accounts, closing ones included until their last block goes */
} entry;

struct grt_gpu_memory {
  pthread_mutex_t mu;
  entry* entries;
};

struct grt_gpu_memory_account {
  grt_gpu_memory* m;
  entry* e;
  const char* name; /* the session's device */
  size_t limit;     /* memory_limit; 0: none */
  pthread_mutex_t mu;
  size_t in_use, peak;
  int64_t blocks;
  bool closed; /* the device went; freed with its last block */
  void (*done)(void* arg);
  void* done_arg;
};

static grt_gpu_memory g_process = {PTHREAD_MUTEX_INITIALIZER, NULL};

grt_gpu_memory* grt_gpu_memory_process(void) { return &g_process; }

grt_status* grt_gpu_memory_new(grt_gpu_memory** out) {
  *out = calloc(1, sizeof **out);
  if (!*out) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory making a GPU registry");
  pthread_mutex_init(&(*out)->mu, NULL);
  return NULL;
}

static void entry_free(entry* e) {
  grt_bfc_free_all(e->bfc);
  free(e);
}

void grt_gpu_memory_free(grt_gpu_memory* m) {
  if (!m) return;
  for (entry* e = m->entries; e;) {
    entry* next = e->next;
    entry_free(e);
    e = next;
  }
  pthread_mutex_destroy(&m->mu);
  free(m);
}

/* ---- finding and making allocators (under m->mu) ------------------------ */

static bool same_logical_gpu(const entry* e, const grt_gpu_memory_spec* s) {
  return !e->host && e->spec.physical == s->physical && e->spec.virtual_index == s->virtual_index &&
         e->spec.virtual_count == s->virtual_count && e->spec.virtual_size == s->virtual_size;
}

static bool same_options(const entry* e, const grt_gpu_memory_spec* s) {
  return e->spec.allow_growth == s->allow_growth &&
         (s->virtual_size || e->spec.memory_fraction == s->memory_fraction);
}

/* "allow_growth false, memory_fraction 1" or "allow_growth true, 1024 MiB
 * (logical 1 of 2)". */
static void describe_options(const grt_gpu_memory_spec* s, char* buf, size_t size) {
  if (s->virtual_size)
    snprintf(buf, size, "gpu.allow_growth=%s, %zu MiB (logical %d of %d)",
             s->allow_growth ? "true" : "false", s->virtual_size >> 20, s->virtual_index,
             s->virtual_count);
  else
    snprintf(buf, size, "gpu.allow_growth=%s, gpu.memory_fraction=%g",
             s->allow_growth ? "true" : "false", s->memory_fraction);
}

/* What the process holds on card `physical`, for an error: "GPU:0
 * (gpu.allow_growth=false, gpu.memory_fraction=1; 2 sessions, reserved
 * 139.0 GiB)". */
static void describe_card(const grt_gpu_memory* m, int physical, char* buf, size_t size) {
  size_t at = 0;
  int n = snprintf(buf, size, "this process holds on card %d:", physical);
  if (n > 0) at = (size_t)n < size ? (size_t)n : size;
  int listed = 0;
  for (const entry* e = m->entries; e && at < size; e = e->next) {
    if (e->host || e->spec.physical != physical) continue;
    char opts[128];
    describe_options(&e->spec, opts, sizeof opts);
    grt_bfc_stats st;
    grt_bfc_get_stats(e->bfc, &st);
    n = snprintf(buf + at, size - at, "%s %s (%s; %d session%s, reserved %zu MiB)",
                 listed ? "," : "", e->name, opts, (int)e->refs, e->refs == 1 ? "" : "s",
                 st.reserved >> 20);
    if (n > 0) at += (size_t)n < size - at ? (size_t)n : size - at;
    listed++;
  }
  if (!listed && at < size) snprintf(buf + at, size - at, " nothing");
}

/* The card's allocators no session holds go back to the card. */
static void free_idle(grt_gpu_memory* m, int physical) {
  for (entry** at = &m->entries; *at;) {
    entry* e = *at;
    if (!e->host && e->spec.physical == physical && e->refs == 0) {
      *at = e->next;
      entry_free(e);
    } else {
      at = &e->next;
    }
  }
}

static grt_status* make_device_entry(grt_gpu_memory* m, const grt_gpu_memory_spec* spec,
                                     const char* name, entry** out) {
  free_idle(m, spec->physical);
  entry* e = calloc(1, sizeof *e);
  if (!e) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "%s: out of memory", name);
  e->spec = *spec;
  snprintf(e->name, sizeof e->name, "GPU:%d",
           spec->physical * spec->virtual_count + spec->virtual_index);
  size_t limit = spec->limit ? spec->limit(spec->limit_ctx) : 0;
  grt_status* st = NULL;
  if (!limit) {
    st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "card %d has no memory free for %s", spec->physical,
                        e->name);
  } else {
    grt_bfc_options o = {e->name, limit, spec->allow_growth, 0};
    st = grt_bfc_new(&spec->provider, &o, &e->bfc);
  }
  if (st) {
    char held[512];
    describe_card(m, spec->physical, held, sizeof held);
    free(e);
    grt_status* out =
        grt_status_new(grt_status_code(st), "%s: %s; %s", name, grt_status_message(st), held);
    grt_status_free(st);
    return out;
  }
  e->next = m->entries;
  m->entries = e;
  *out = e;
  return NULL;
}

static grt_status* new_account(grt_gpu_memory* m, entry* e, const char* name, size_t limit,
                               grt_gpu_memory_account** out) {
  grt_gpu_memory_account* a = calloc(1, sizeof *a);
  if (!a) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "%s: out of memory", name);
  a->m = m;
  a->e = e;
  a->name = name;
  a->limit = limit;
  pthread_mutex_init(&a->mu, NULL);
  e->refs++;
  *out = a;
  return NULL;
}

grt_status* grt_gpu_memory_open(grt_gpu_memory* m, const grt_gpu_memory_spec* spec,
                                const char* name, size_t session_limit,
                                grt_gpu_memory_account** out) {
  *out = NULL;
  pthread_mutex_lock(&m->mu);
  entry* e = NULL;
  entry** at = &m->entries;
  for (; *at; at = &(*at)->next)
    if (same_logical_gpu(*at, spec)) break;
  e = *at;
  grt_status* st = NULL;
  if (e && !same_options(e, spec)) {
    if (e->refs == 0) { /* idle: made again with the new options */
      *at = e->next;
      entry_free(e);
      e = NULL;
    } else {
      char asked[128], made[128];
      describe_options(spec, asked, sizeof asked);
      describe_options(&e->spec, made, sizeof made);
      st = grt_status_new(GRT_FAILED_PRECONDITION,
                          "%s: asks for %s, but this process's allocator of %s was made with %s "
                          "and %d live session%s hold%s it; GPU memory options are per process "
                          "(as TensorFlow's): give every session the same values, or free the "
                          "others first",
                          name, asked, e->name, made, (int)e->refs, e->refs == 1 ? "" : "s",
                          e->refs == 1 ? "s" : "");
    }
  }
  if (!st && !e) st = make_device_entry(m, spec, name, &e);
  if (!st) st = new_account(m, e, name, session_limit, out);
  pthread_mutex_unlock(&m->mu);
  return st;
}

grt_status* grt_gpu_memory_open_host(grt_gpu_memory* m, int physical,
                                     const grt_bfc_provider* provider, size_t limit,
                                     const char* name, grt_gpu_memory_account** out) {
  *out = NULL;
  pthread_mutex_lock(&m->mu);
  entry* e = m->entries;
  while (e && !(e->host && e->spec.physical == physical)) e = e->next;
  grt_status* st = NULL;
  if (!e) {
    e = calloc(1, sizeof *e);
    if (!e) st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "%s: out of memory", name);
    if (!st) {
      e->host = true;
      e->spec.physical = physical;
      snprintf(e->name, sizeof e->name, "pinned host memory of card %d", physical);
      grt_bfc_options o = {e->name, limit, true, 0};
      st = grt_bfc_new(provider, &o, &e->bfc);
      if (st) {
        free(e);
        e = NULL;
      } else {
        e->next = m->entries;
        m->entries = e;
      }
    }
  }
  if (!st) st = new_account(m, e, name, 0, out);
  pthread_mutex_unlock(&m->mu);
  return st;
}

static void account_free(grt_gpu_memory_account* a) {
  pthread_mutex_lock(&a->m->mu);
  a->e->refs--; /* the allocator stays, idle when this was the last */
  pthread_mutex_unlock(&a->m->mu);
  void (*done)(void*) = a->done;
  void* arg = a->done_arg;
  pthread_mutex_destroy(&a->mu);
  free(a);
  if (done) done(arg);
}

void grt_gpu_memory_close(grt_gpu_memory_account* a, void (*done)(void* arg), void* arg) {
  if (!a) return;
  pthread_mutex_lock(&a->mu);
  a->closed = true;
  a->done = done;
  a->done_arg = arg;
  bool last = a->blocks == 0;
  pthread_mutex_unlock(&a->mu);
  if (last) account_free(a);
}

/* ---- blocks ---------------------------------------------------------------- */

void* grt_gpu_memory_alloc(grt_gpu_memory_account* a, size_t size, grt_status** why) {
  if (why) *why = NULL;
  size_t rounded = size ? size : 1;
  if (rounded > SIZE_MAX - GRT_BFC_ALIGNMENT) return NULL;
  rounded = (rounded + GRT_BFC_ALIGNMENT - 1) & ~(size_t)(GRT_BFC_ALIGNMENT - 1);
  /* The rounded bytes are counted before the allocator is asked, so two
   * threads of one session cannot both pass the limit. */
  pthread_mutex_lock(&a->mu);
  size_t in_use = a->in_use;
  bool over = a->limit && (rounded > a->limit || in_use > a->limit - rounded);
  if (!over) a->in_use += rounded;
  pthread_mutex_unlock(&a->mu);
  if (over) {
    if (why) {
      char state[320];
      grt_bfc_describe(a->e->bfc, state, sizeof state);
      *why = grt_status_new(GRT_RESOURCE_EXHAUSTED,
                            "the session's memory_limit of %zu bytes on %s refused %zu bytes "
                            "with %zu in use; the process's allocator of %s: %s",
                            a->limit, a->name, rounded, in_use, a->e->name, state);
    }
    return NULL;
  }
  size_t chunk = 0;
  void* p = grt_bfc_alloc_sized(a->e->bfc, size, &chunk);
  pthread_mutex_lock(&a->mu);
  a->in_use -= rounded;
  if (p) {
    a->in_use += chunk;
    a->blocks++;
    if (a->in_use > a->peak) a->peak = a->in_use;
  }
  in_use = a->in_use;
  pthread_mutex_unlock(&a->mu);
  if (!p && why) {
    char state[320];
    grt_bfc_describe(a->e->bfc, state, sizeof state);
    pthread_mutex_lock(&a->m->mu);
    int32_t sessions = a->e->refs;
    pthread_mutex_unlock(&a->m->mu);
    *why =
        grt_status_new(GRT_RESOURCE_EXHAUSTED,
                       "the process's allocator of %s (%d session%s) is full: %s; this "
                       "session's %s holds %zu bytes",
                       a->e->name, (int)sessions, sessions == 1 ? "" : "s", state, a->name, in_use);
  }
  return p;
}

void grt_gpu_memory_release(grt_gpu_memory_account* a, void* p) {
  if (!p) return;
  size_t n = grt_bfc_release(a->e->bfc, p);
  if (!n) return; /* not the allocator's: counted there as a bad free */
  pthread_mutex_lock(&a->mu);
  a->in_use -= n;
  a->blocks--;
  bool last = a->closed && a->blocks == 0;
  pthread_mutex_unlock(&a->mu);
  if (last) account_free(a);
}

void grt_gpu_memory_account_stats(grt_gpu_memory_account* a, size_t* in_use, size_t* peak) {
  pthread_mutex_lock(&a->mu);
  *in_use = a->in_use;
  *peak = a->peak;
  pthread_mutex_unlock(&a->mu);
}

grt_bfc* grt_gpu_memory_bfc(grt_gpu_memory_account* a) { return a->e->bfc; }

int32_t grt_gpu_memory_count(grt_gpu_memory* m, int32_t* idle) {
  int32_t n = 0, unused = 0;
  pthread_mutex_lock(&m->mu);
  for (const entry* e = m->entries; e; e = e->next)
    if (!e->host) {
      n++;
      unused += e->refs == 0;
    }
  pthread_mutex_unlock(&m->mu);
  if (idle) *idle = unused;
  return n;
}
