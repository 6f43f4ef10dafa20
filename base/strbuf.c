#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/strbuf.h"

void grt_strbuf_printf(grt_strbuf* b, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char probe[1];
  int need = vsnprintf(probe, 0, fmt, ap);
  va_end(ap);
  if (need <= 0) return;
  size_t want = b->len + (size_t)need + 1;
  if (want > b->cap) {
    size_t cap = b->cap ? b->cap : 128;
    while (cap < want) cap *= 2;
    char* s = grt_realloc(b->s, cap);
    if (!s) {
      b->failed = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)need;
}
