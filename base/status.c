#include "base/mem.h"
#include "base/status.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The message, its NUL, then the source ("file:line") and its NUL when
 * there is one: one allocation, so recording where a status was made adds
 * no failure path. */
struct grt_status {
  grt_code code;
  uint32_t source; /* offset of the source in text; 0: none */
  char text[];
};

/* Returned when even the error cannot be allocated; never freed. */
static struct {
  grt_code code;
  uint32_t source;
  char text[32];
} kOutOfMemory = {GRT_RESOURCE_EXHAUSTED, 0, "out of memory"};

#define OOM_STATUS ((grt_status*)&kOutOfMemory)

const grt_status* grt_status_out_of_memory(void) { return OOM_STATUS; }

/* A status with room for an n-byte message and, when has_source, a
 * src_len-byte source, both for the caller to fill (terminators in place). */
static grt_status* status_alloc(grt_code code, size_t n, bool has_source, size_t src_len) {
  if (n > UINT32_MAX - 2 || src_len > UINT32_MAX) return NULL;
  grt_status* s = grt_malloc(sizeof *s + n + 1 + (has_source ? src_len + 1 : 0));
  if (!s) return NULL;
  s->code = code == GRT_OK ? GRT_UNKNOWN : code;
  s->text[n] = '\0';
  s->source = has_source ? (uint32_t)n + 1 : 0;
  if (has_source) s->text[n + 1 + src_len] = '\0';
  return s;
}

static grt_status* new_at(const char* file, int line, grt_code code, const char* fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  int m = file ? snprintf(NULL, 0, "%s:%d", file, line) : -1;
  grt_status* s = status_alloc(code, (size_t)n, m >= 0, m >= 0 ? (size_t)m : 0);
  if (!s) return OOM_STATUS;
  vsnprintf(s->text, (size_t)n + 1, fmt, ap);
  if (m >= 0) snprintf(s->text + s->source, (size_t)m + 1, "%s:%d", file, line);
  return s;
}

grt_status* grt_status_newv(grt_code code, const char* fmt, va_list ap) {
  return new_at(NULL, 0, code, fmt, ap);
}

/* The function behind the macro of the same name (grt/status.h), for
 * callers built without sources. */
#undef grt_status_new
grt_status* grt_status_new(grt_code code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  grt_status* s = new_at(NULL, 0, code, fmt, ap);
  va_end(ap);
  return s;
}

grt_status* grt_status_new_at(const char* file, int line, grt_code code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  grt_status* s = new_at(file, line, code, fmt, ap);
  va_end(ap);
  return s;
}

grt_status* grt_status_prefix(grt_status* s, const char* fmt, ...) {
  if (!s || s == OOM_STATUS) return s;
  va_list ap;
  va_start(ap, fmt);
  int p = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (p < 0) return s;
  const char* src = grt_status_source(s);
  size_t m = strlen(s->text), src_len = src ? strlen(src) : 0;
  grt_status* out = status_alloc(s->code, (size_t)p + 2 + m, src != NULL, src_len);
  if (!out) return s; /* the error itself matters more than the context */
  va_start(ap, fmt);
  vsnprintf(out->text, (size_t)p + 1, fmt, ap);
  va_end(ap);
  memcpy(out->text + p, ": ", 2);
  memcpy(out->text + p + 2, s->text, m);
  if (src) memcpy(out->text + out->source, src, src_len);
  grt_status_free(s);
  return out;
}

const char* grt_status_source(const grt_status* s) {
  return s && s->source ? s->text + s->source : NULL;
}

grt_code grt_status_code(const grt_status* s) { return s ? s->code : GRT_OK; }

const char* grt_status_message(const grt_status* s) { return s ? s->text : ""; }

void grt_status_free(grt_status* s) {
  if (s && s != OOM_STATUS) grt_free(s);
}

static const char* const kCodeNames[] = {
    "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS",
};

const char* grt_code_name(grt_code code) {
  if ((unsigned)code < sizeof kCodeNames / sizeof kCodeNames[0]) return kCodeNames[code];
  return "UNKNOWN_CODE";
}
