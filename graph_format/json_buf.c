#include "base/mem.h"
#include "graph_format/json_buf.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void grt_json_buf_init(grt_json_buf* b) { memset(b, 0, sizeof *b); }

void grt_json_buf_free(grt_json_buf* b) {
  free(b->data);
  grt_json_buf_init(b);
}

void grt_json_buf_reset(grt_json_buf* b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

char* grt_json_buf_reserve(grt_json_buf* b, size_t n) {
  if (b->oom) return NULL;
  if (n >= SIZE_MAX - b->len) {
    b->oom = true;
    return NULL;
  }
  size_t need = b->len + n + 1; /* room for the NUL */
  if (need > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char* d = grt_realloc(b->data, cap);
    if (!d) {
      b->oom = true;
      return NULL;
    }
    b->data = d;
    b->cap = cap;
  }
  return b->data + b->len;
}

void grt_json_buf_append(grt_json_buf* b, const char* s, size_t n) {
  char* p = grt_json_buf_reserve(b, n);
  if (!p) return;
  memcpy(p, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void grt_json_buf_puts(grt_json_buf* b, const char* s) { grt_json_buf_append(b, s, strlen(s)); }

void grt_json_buf_printf(grt_json_buf* b, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  char* p = grt_json_buf_reserve(b, (size_t)n);
  if (!p) return;
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* Printable ASCII other than '"' and '\\' is what jansson copies unchanged;
 * names and dtypes are all like that, so they skip the round trip through
 * a json_t. */
static bool plain(const char* s) {
  for (; *s; s++)
    if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\') return false;
  return true;
}

bool grt_json_buf_string(grt_json_buf* b, const char* s) {
  if (plain(s)) {
    size_t n = strlen(s);
    char* p = grt_json_buf_reserve(b, n + 2);
    if (!p) return true;
    p[0] = '"';
    memcpy(p + 1, s, n);
    p[n + 1] = '"';
    b->len += n + 2;
    b->data[b->len] = '\0';
    return true;
  }
  json_t* j = json_string(s);
  if (!j) return false; /* not UTF-8 (or out of memory, reported the same way) */
  char* text = json_dumps(j, JSON_ENCODE_ANY);
  json_decref(j);
  if (!text) {
    b->oom = true;
    return true;
  }
  grt_json_buf_puts(b, text);
  free(text);
  return true;
}

grt_status* grt_json_buf_status(const grt_json_buf* b) {
  return b->oom ? GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory writing the JSON text form") : NULL;
}
