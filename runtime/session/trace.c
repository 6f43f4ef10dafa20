/* Run traces as Chrome trace-event JSON: a process per device (named by its
 * canonical name), a thread per worker, a complete ("X") event per kernel
 * and per Send/Recv, in microseconds. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "base/status.h"
#include "runtime/session/session_internal.h"

typedef struct {
  const char* name; /* graph-owned */
  const char* op;
  const char* cat;
  int32_t device;
  int32_t thread;
  int64_t start_ns, dur_ns;
} trace_event;

struct grt_trace {
  pthread_mutex_t mu;
  trace_event* ev;
  int64_t n, cap;
  int64_t origin_ns;
  char** device_names;
  int32_t n_devices;
};

int64_t grt_trace_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

grt_status* grt_trace_new(grt_trace** out) {
  *out = grt_calloc(1, sizeof **out);
  if (!*out) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  pthread_mutex_init(&(*out)->mu, NULL);
  (*out)->origin_ns = -1;
  return NULL;
}

static void free_names(grt_trace* t) {
  for (int32_t i = 0; i < t->n_devices; i++) grt_free(t->device_names[i]);
  grt_free(t->device_names);
  t->device_names = NULL;
  t->n_devices = 0;
}

void grt_trace_free(grt_trace* t) {
  if (!t) return;
  free_names(t);
  grt_free(t->ev);
  pthread_mutex_destroy(&t->mu);
  grt_free(t);
}

int64_t grt_trace_num_events(const grt_trace* t) { return t ? t->n : 0; }

void grt_trace_begin_run(grt_trace* t, const grt_session* s) {
  pthread_mutex_lock(&t->mu);
  if (t->origin_ns < 0) t->origin_ns = grt_trace_now_ns();
  if (t->n_devices == 0) {
    t->device_names = grt_calloc((size_t)s->n_devices + 1, sizeof *t->device_names);
    if (t->device_names) {
      /* From the set: a device no node runs on is never made. */
      for (int32_t i = 0; i < s->n_devices; i++)
        t->device_names[i] = grt_strdup(grt_device_set_name(s->devices, i));
      t->n_devices = s->n_devices;
    }
  }
  pthread_mutex_unlock(&t->mu);
}

void grt_trace_add(grt_trace* t, const char* name, const char* op, const char* cat, int32_t device,
                   int32_t thread, int64_t start_ns, int64_t dur_ns) {
  pthread_mutex_lock(&t->mu);
  if (t->n == t->cap) {
    int64_t cap = t->cap ? t->cap * 2 : 256;
    trace_event* ev = grt_realloc(t->ev, (size_t)cap * sizeof *ev);
    if (!ev) {
      pthread_mutex_unlock(&t->mu);
      return; /* a trace that runs out of memory drops events, never the run */
    }
    t->ev = ev;
    t->cap = cap;
  }
  t->ev[t->n++] = (trace_event){name, op, cat, device, thread, start_ns, dur_ns};
  pthread_mutex_unlock(&t->mu);
}

/* Names are graph node names ([A-Za-z0-9_./-]) and device names: no
 * character needs escaping in JSON. */
grt_status* grt_trace_write_json(const grt_trace* t, FILE* f) {
  if (!t || !f) return GRT_ERROR(INVALID_ARGUMENT, "NULL trace or file");
  fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  bool first = true;
  for (int32_t d = 0; d < t->n_devices; d++) {
    fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"%s\"}}",
            first ? "" : ",\n", (int)d, t->device_names[d]);
    first = false;
  }
  /* One thread-name record per (device, thread) seen. */
  int32_t max_thread = 0;
  for (int64_t i = 0; i < t->n; i++)
    if (t->ev[i].thread > max_thread) max_thread = t->ev[i].thread;
  size_t width = (size_t)max_thread + 1;
  bool* seen = grt_calloc((size_t)(t->n_devices + 1) * width, sizeof *seen);
  for (int64_t i = 0; seen && i < t->n; i++) {
    const trace_event* e = &t->ev[i];
    if (e->device < 0 || e->device >= t->n_devices) continue;
    bool* mark = &seen[(size_t)e->device * width + (size_t)e->thread];
    if (*mark) continue;
    *mark = true;
    fprintf(f,
            "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
            "\"args\":{\"name\":\"compute stream, worker %d\"}}",
            first ? "" : ",\n", (int)e->device, (int)e->thread, (int)e->thread);
    first = false;
  }
  grt_free(seen);
  for (int64_t i = 0; i < t->n; i++) {
    const trace_event* e = &t->ev[i];
    fprintf(f,
            "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
            "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"op\":\"%s\"}}",
            first ? "" : ",\n", e->cat, e->name, (int)e->device, (int)e->thread,
            (double)(e->start_ns - t->origin_ns) / 1e3, (double)e->dur_ns / 1e3, e->op);
    first = false;
  }
  fprintf(f, "\n]}\n");
  return ferror(f) ? GRT_ERROR(UNAVAILABLE, "writing the trace failed") : NULL;
}
