/* A growing string for messages whose length depends on the input (a
 * colocation group's members, a device list, a JSON document). */
#ifndef GRT_BASE_STRBUF_H_
#define GRT_BASE_STRBUF_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Zero-initialise to start; free `s` when done. */
typedef struct grt_strbuf {
  char* s;
  size_t len, cap;
  int failed; /* set once an append ran out of memory; the text is then cut */
} grt_strbuf;

/* Appends printf-style text; on OOM the string is left as it was and
 * `failed` is set. */
void grt_strbuf_printf(grt_strbuf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static inline const char* grt_strbuf_str(const grt_strbuf* b) { return b->s ? b->s : ""; }

#ifdef __cplusplus
}
#endif

#endif  /* GRT_BASE_STRBUF_H_ */
