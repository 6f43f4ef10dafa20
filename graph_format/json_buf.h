/* A growable text buffer for the JSON writer. Appends never fail on the
 * spot: running out of memory sets `oom` and later appends do nothing, so a
 * writer checks once at the end instead of after every piece. */
#ifndef GRT_GRAPH_FORMAT_JSON_BUF_H_
#define GRT_GRAPH_FORMAT_JSON_BUF_H_

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_json_buf {
  char* data; /* NUL-terminated once anything was appended */
  size_t len, cap;
  bool oom;
} grt_json_buf;

void grt_json_buf_init(grt_json_buf* b);
void grt_json_buf_free(grt_json_buf* b);
void grt_json_buf_reset(grt_json_buf* b); /* empties it, keeps the memory */

void grt_json_buf_append(grt_json_buf* b, const char* s, size_t n);
void grt_json_buf_puts(grt_json_buf* b, const char* s);
void grt_json_buf_printf(grt_json_buf* b, const char* fmt, ...) GRT_PRINTF(2, 3);
/* Room for n more bytes at data + len (the caller fills them and adds n to
 * len); NULL when out of memory. */
char* grt_json_buf_reserve(grt_json_buf* b, size_t n);

/* Appends `s` as a quoted JSON string, escaped by jansson. Returns false
 * (appending nothing) when `s` is not valid UTF-8, which JSON cannot hold. */
bool grt_json_buf_string(grt_json_buf* b, const char* s);

/* RESOURCE_EXHAUSTED if an append ran out of memory, else NULL. */
grt_status* grt_json_buf_status(const grt_json_buf* b);

#ifdef __cplusplus
}
#endif

#endif  /* GRT_GRAPH_FORMAT_JSON_BUF_H_ */
