/* The writer's building blocks: growable little-endian byte buffers (one
 * per section) and the deduplicating string table. */
#ifndef GRT_GRAPH_FORMAT_GRT_FILE_STRTAB_H_
#define GRT_GRAPH_FORMAT_GRT_FILE_STRTAB_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"
#include "base/strmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Appends never fail on the spot: running out of memory sets `oom`, and the
 * writer checks once at the end. */
typedef struct grt_file_buf {
  unsigned char* data;
  size_t len, cap;
  bool oom;
} grt_file_buf;

void grt_file_buf_free(grt_file_buf* b); /* frees the bytes, keeps the struct */
void grt_file_buf_put(grt_file_buf* b, const void* bytes, size_t n);
void grt_file_buf_u32(grt_file_buf* b, uint32_t v);
void grt_file_buf_u64(grt_file_buf* b, uint64_t v);
/* Zero bytes up to a multiple of `align`. */
void grt_file_buf_pad(grt_file_buf* b, size_t align);

/* Distinct strings in first-use order; ref 0 is always "". Keys are
 * borrowed: the strings must outlive the table (they are the graph's). */
typedef struct grt_file_strtab {
  grt_strmap map; /* string -> offset in bytes */
  grt_file_buf bytes;
} grt_file_strtab;

GRT_MUST_USE grt_status* grt_file_strtab_init(grt_file_strtab* t);
void grt_file_strtab_free(grt_file_strtab* t);
/* The ref of `s` (NULL is taken as ""), adding it if new. */
GRT_MUST_USE grt_status* grt_file_strtab_ref(grt_file_strtab* t, const char* s, uint32_t* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_GRT_FILE_STRTAB_H_ */
