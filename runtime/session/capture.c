/* Captured steps (capture.h): the first call runs as usual, the second
 * records, later ones replay. A recording owns its device memory (a pool,
 * capture_pool.h), a host buffer per feed that the recorded copies read,
 * the host tensors the recorded copies write the fetches into, and the
 * variable tensors it saw, so a replay can tell when it went stale. */
#include "runtime/session/capture.h"

#include <stdio.h>
#include <string.h>

#include "base/cancel.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "kernels/op_kernel.h"
#include "runtime/session/capture_check.h"
#include "runtime/session/capture_pool.h"

/* A variable the recording read or wrote, and its tensor then. */
typedef struct {
  grt_var* v;
  const grt_tensor* value;
  bool by_ref;
} seen_var;

typedef struct recording {
  grt_captured* graph;
  grt_capture_pool* pool[GRT_NUM_MEMORY_KINDS];
  grt_tensor** staging; /* per feed: the host buffer the recorded copy reads */
  grt_tensor** fetched; /* per fetch: what the replay writes (or a fixed value) */
  seen_var* vars;
  int32_t n_vars, cap_vars;
  pthread_mutex_t vars_mu; /* saw_var is called from the executor's threads */
  bool vars_oom;
} recording;

struct grt_capture {
  grt_session* s;
  const grt_executable* e;
  grt_device* d;
  int32_t device, n_kernels;
  /* Why the step cannot be captured: set when it is made (device -1), or
   * under mu when the device refused a recording (then gave_up, atomic). */
  char why[480];
  int gave_up;
  pthread_mutex_t mu; /* one call at a time */
  int64_t calls, recordings, replays;
  recording* rec;
};

/* ---- the recording's parts ------------------------------------------------ */

static void saw_var(void* ctx, grt_var* v, const grt_tensor* value, bool by_ref) {
  recording* r = ctx;
  pthread_mutex_lock(&r->vars_mu);
  int32_t i = 0;
  while (i < r->n_vars && r->vars[i].v != v) i++;
  if (i < r->n_vars) {
    r->vars[i].by_ref |= by_ref;
  } else if (r->n_vars < r->cap_vars || !r->vars_oom) {
    if (r->n_vars == r->cap_vars) {
      int32_t cap = r->cap_vars ? r->cap_vars * 2 : 16;
      seen_var* grown = grt_realloc(r->vars, (size_t)cap * sizeof *grown);
      if (grown) {
        r->vars = grown;
        r->cap_vars = cap;
      }
    }
    if (r->n_vars < r->cap_vars)
      r->vars[r->n_vars++] = (seen_var){v, value, by_ref};
    else
      r->vars_oom = true; /* the recording is dropped: staleness could not be told */
  }
  pthread_mutex_unlock(&r->vars_mu);
}

static void drop(grt_capture* c) {
  recording* r = c->rec;
  if (!r) return;
  c->rec = NULL;
  for (int32_t i = 0; r->staging && i < c->e->n_feeds; i++) grt_tensor_free(r->staging[i]);
  for (int32_t i = 0; r->fetched && i < c->e->n_fetches; i++) grt_tensor_free(r->fetched[i]);
  /* The graph goes before its memory. */
  if (r->graph) c->d->ops->captured_free(c->d, r->graph);
  for (int k = 0; k < GRT_NUM_MEMORY_KINDS; k++) grt_capture_pool_release(r->pool[k]);
  grt_free(r->staging);
  grt_free(r->fetched);
  grt_free(r->vars);
  pthread_mutex_destroy(&r->vars_mu);
  grt_free(r);
}

/* A recording with its pools and a staging buffer per feed holding this
 * call's values. */
static grt_status* start(grt_capture* c, grt_tensor* const* feeds, recording** out) {
  recording* r = grt_calloc(1, sizeof *r);
  if (!r) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory recording a step");
  pthread_mutex_init(&r->vars_mu, NULL);
  c->rec = r;
  r->staging = grt_calloc((size_t)c->e->n_feeds + 1, sizeof *r->staging);
  r->fetched = grt_calloc((size_t)c->e->n_fetches + 1, sizeof *r->fetched);
  for (int k = 0; k < GRT_NUM_MEMORY_KINDS; k++) r->pool[k] = grt_capture_pool_new(c->d->memory[k]);
  if (!r->staging || !r->fetched || !r->pool[0] || !r->pool[1]) {
    drop(c);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory recording a step");
  }
  grt_allocator* host = grt_capture_pool_allocator(r->pool[GRT_MEMORY_HOST]);
  for (int32_t i = 0; i < c->e->n_feeds; i++) {
    const grt_tensor* f = feeds[i];
    grt_status* st = grt_tensor_new_packed(host, f->dtype, &f->shape, &r->staging[i]);
    if (st) {
      drop(c);
      return grt_status_prefix(st, "a feed's buffer for the recorded step");
    }
    memcpy(grt_tensor_data(r->staging[i]), grt_tensor_data(f), grt_tensor_byte_size(f));
  }
  *out = r;
  return NULL;
}

/* The recorded step still fits this call: same feed dtypes and shapes, and
 * every variable still holds the tensor the recording addressed. */
static bool still_fits(const grt_capture* c, grt_tensor* const* feeds) {
  const recording* r = c->rec;
  for (int32_t i = 0; i < c->e->n_feeds; i++)
    if (feeds[i]->dtype != r->staging[i]->dtype ||
        !grt_shape_equal(&feeds[i]->shape, &r->staging[i]->shape))
      return false;
  for (int32_t i = 0; i < r->n_vars; i++) {
    pthread_mutex_lock(&r->vars[i].v->mu);
    bool same = r->vars[i].v->value == r->vars[i].value;
    pthread_mutex_unlock(&r->vars[i].v->mu);
    if (!same) return false;
  }
  return true;
}

/* ---- replay --------------------------------------------------------------- */

/* CANCELLED or DEADLINE_EXCEEDED `when` ("before", "after") the replay. */
static grt_status* stop_status(grt_code stop, const grt_run_options* opts, const char* when) {
  if (stop == GRT_DEADLINE_EXCEEDED)
    return grt_status_new(stop,
                          "deadline exceeded: the run passed its timeout of %lld ms %s "
                          "the captured step",
                          (long long)opts->timeout_ms, when);
  return grt_status_new(stop, "run cancelled (grt_session_cancel) %s the captured step", when);
}

static grt_status* replay(grt_capture* c, const grt_run_options* opts, grt_tensor* const* feeds,
                          grt_tensor** out_values, grt_trace* trace) {
  recording* r = c->rec;
  grt_cancel_token token;
  grt_cancel_token_init(&token, &c->s->cancel_epoch, opts ? opts->timeout_ms : 0);
  grt_code stop = grt_cancel_check(&token);
  if (stop != GRT_OK) return stop_status(stop, opts, "before");
  /* The last replay has completed (it was synced), so nothing reads these. */
  for (int32_t i = 0; i < c->e->n_feeds; i++)
    memcpy(grt_tensor_data(r->staging[i]), grt_tensor_data(feeds[i]),
           grt_tensor_byte_size(feeds[i]));
  int64_t t0 = trace ? grt_trace_now_ns() : 0;
  for (int32_t i = 0; i < r->n_vars; i++)
    if (r->vars[i].by_ref) grt_var_write_begin(r->vars[i].v);
  grt_stream* compute = c->d->streams[GRT_STREAM_COMPUTE];
  grt_status* st = c->d->ops->replay(c->d, r->graph);
  grt_status* synced = grt_stream_sync(compute);
  if (!st)
    st = synced;
  else
    grt_status_free(synced);
  for (int32_t i = 0; i < r->n_vars; i++)
    if (r->vars[i].by_ref) grt_var_write_end(r->vars[i].v);
  if (trace)
    grt_trace_add(trace, "(captured step)", "replay", "kernel", c->device, 0, t0,
                  grt_trace_now_ns() - t0);
  if (st) return grt_status_prefix(st, "replaying the captured step on %s", c->d->name);
  c->replays++;
  /* A replay cannot be stopped, but a run past its deadline, or cancelled
   * meanwhile, does not report success (as the executor's runs). */
  stop = grt_cancel_check(&token);
  if (stop != GRT_OK) return stop_status(stop, opts, "during");
  /* Fetches are copied out: the next replay writes the same buffers. */
  grt_allocator* a = c->s->device[0]->memory[GRT_MEMORY_HOST];
  for (int32_t i = 0; !st && i < c->e->n_fetches; i++) {
    const grt_tensor* t = r->fetched[i];
    st = grt_tensor_new_packed(a, t->dtype, &t->shape, &out_values[i]);
    if (!st) memcpy(grt_tensor_data(out_values[i]), grt_tensor_data(t), grt_tensor_byte_size(t));
  }
  if (st) {
    for (int32_t i = 0; i < c->e->n_fetches; i++) {
      grt_tensor_free(out_values[i]);
      out_values[i] = NULL;
    }
  }
  return st;
}

/* ---- recording ------------------------------------------------------------ */

/* Records the step with this call's feeds; NULL with c->rec set on success.
 * A cancel or deadline returns its error (the next call records again);
 * any other failure sets c->why and returns NULL with no recording, and
 * this call and later ones run as usual. */
static grt_status* record(grt_capture* c, const grt_run_options* opts, grt_tensor* const* feeds,
                          grt_trace* trace) {
  recording* r = NULL;
  GRT_RETURN_IF_ERROR(start(c, feeds, &r));
  grt_capture_run run = {c->device, {NULL, NULL}, saw_var, r};
  for (int k = 0; k < GRT_NUM_MEMORY_KINDS; k++)
    run.pool[k] = grt_capture_pool_allocator(r->pool[k]);
  pthread_rwlock_wrlock(&c->s->capture_lock);
  grt_status* st = c->d->ops->capture_begin(c->d);
  if (st) {
    pthread_rwlock_unlock(&c->s->capture_lock);
    drop(c);
    snprintf(c->why, sizeof c->why, "%s refused to record: %s", c->d->name, grt_status_message(st));
    __atomic_store_n(&c->gave_up, 1, __ATOMIC_RELEASE);
    grt_status_free(st);
    return NULL;
  }
  st = grt_executor_run_ex(c->s, c->e, opts, r->staging, r->fetched, trace, &run);
  grt_status* ended = c->d->ops->capture_end(c->d, &r->graph);
  pthread_rwlock_unlock(&c->s->capture_lock);
  c->recordings++;
  if (st) {
    grt_status_free(ended);
    drop(c);
    grt_code code = grt_status_code(st);
    if (code == GRT_CANCELLED || code == GRT_DEADLINE_EXCEEDED) return st; /* next call records */
    /* A step that fails while recording runs as usual from now on: a real
     * fault fails that run too, with its own error; a kernel the device
     * could not record (it says it can, but the recording refused) costs
     * only the capture. */
    snprintf(c->why, sizeof c->why, "recording on %s failed: %s", c->d->name,
             grt_status_message(st));
    __atomic_store_n(&c->gave_up, 1, __ATOMIC_RELEASE);
    grt_status_free(st);
    return NULL;
  }
  if (ended || r->vars_oom) {
    snprintf(c->why, sizeof c->why, "%s could not record the step: %s", c->d->name,
             ended ? grt_status_message(ended) : "out of memory listing its variables");
    __atomic_store_n(&c->gave_up, 1, __ATOMIC_RELEASE);
    grt_status_free(ended);
    drop(c);
  }
  return NULL;
}

/* ---- the callable's calls -------------------------------------------------- */

grt_status* grt_capture_new(grt_session* s, const grt_executable* e, const grt_output* feeds,
                            grt_capture** out) {
  *out = NULL;
  grt_capture* c = grt_calloc(1, sizeof *c);
  if (!c) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory making a callable");
  c->s = s;
  c->e = e;
  grt_status* st = grt_capture_check(s, e, feeds, &c->device, &c->n_kernels, c->why, sizeof c->why);
  if (st) {
    grt_free(c);
    return st;
  }
  c->d = c->device >= 0 ? s->device[c->device] : NULL;
  pthread_mutex_init(&c->mu, NULL);
  *out = c;
  return NULL;
}

void grt_capture_free(grt_capture* c) {
  if (!c) return;
  drop(c);
  pthread_mutex_destroy(&c->mu);
  grt_free(c);
}

grt_status* grt_capture_call(grt_capture* c, const grt_run_options* opts, grt_tensor* const* feeds,
                             grt_tensor** out_values, grt_trace* trace) {
  if (c->device < 0 || __atomic_load_n(&c->gave_up, __ATOMIC_ACQUIRE))
    return grt_executor_run(c->s, c->e, opts, feeds, out_values, trace);
  pthread_mutex_lock(&c->mu);
  grt_status* st = NULL;
  bool first = c->calls++ == 0;
  if (c->rec && !still_fits(c, feeds)) drop(c);
  if (!first && !c->rec) st = record(c, opts, feeds, trace);
  if (!st && c->rec) {
    pthread_rwlock_rdlock(&c->s->capture_lock);
    st = replay(c, opts, feeds, out_values, trace);
    pthread_rwlock_unlock(&c->s->capture_lock);
    /* A replay that failed may have left the recorded memory half written. */
    if (st) drop(c);
  } else if (!st) {
    st = grt_executor_run(c->s, c->e, opts, feeds, out_values, trace);
  }
  pthread_mutex_unlock(&c->mu);
  return st;
}

size_t grt_capture_report(const grt_capture* c, char* buf, size_t size) {
  grt_capture* m = (grt_capture*)c;
  if (c->device < 0) return (size_t)snprintf(buf, size, "not captured: %s", c->why);
  pthread_mutex_lock(&m->mu);
  int n;
  if (c->gave_up)
    n = snprintf(buf, size, "not captured: %s", c->why);
  else if (!c->recordings)
    n = snprintf(buf, size, "not yet recorded (%s: %d kernels)", c->d->name, (int)c->n_kernels);
  else
    n = snprintf(buf, size, "captured on %s: %d kernels; %lld recording%s, %lld replay%s",
                 c->d->name, (int)c->n_kernels, (long long)c->recordings,
                 c->recordings == 1 ? "" : "s", (long long)c->replays, c->replays == 1 ? "" : "s");
  pthread_mutex_unlock(&m->mu);
  return n < 0 ? 0 : (size_t)n;
}
