/* The growable string: messages whose length depends on the input (a
 * colocation group's members, a device list) and the JSON text form. */
#ifndef GRT_BASE_STRBUF_H_
#define GRT_BASE_STRBUF_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Zero-initialise to start; grt_strbuf_free (or free(s)) when done. `s` is
 * NULL until the first append, then always NUL-terminated. Appends never
 * fail on the spot: running out of memory sets `failed`, and every later
 * append does nothing, so the text is cut where memory ran out and the
 * writer checks once at the end. */
typedef struct grt_strbuf {
  char* s;
  size_t len, cap;
  int failed;
} grt_strbuf;

void grt_strbuf_printf(grt_strbuf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void grt_strbuf_append(grt_strbuf* b, const char* s, size_t n);
void grt_strbuf_puts(grt_strbuf* b, const char* s);
/* Room for n more bytes at s + len, or NULL (out of memory, `failed` set).
 * The caller writes at most n bytes there, then calls grt_strbuf_added. */
char* grt_strbuf_reserve(grt_strbuf* b, size_t n);
void grt_strbuf_added(grt_strbuf* b, size_t n);
/* Empties the text, keeping its memory (and `failed`). */
void grt_strbuf_reset(grt_strbuf* b);
/* Frees the text and zeroes `b`. */
void grt_strbuf_free(grt_strbuf* b);
static inline const char* grt_strbuf_str(const grt_strbuf* b) { return b->s ? b->s : ""; }

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_STRBUF_H_ */
