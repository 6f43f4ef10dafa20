/* The checkpoint file: variables' values by name (docs/checkpoint-format.md).
 *
 * Writing takes host-readable tensors and streams header, index and data to
 * a FILE*; reading checks a whole file in memory (magic, version, sizes, the
 * header's and the index's checksums, every entry's bounds, alignment and
 * its data's checksum, bools 0 or 1, nothing after the last entry) before
 * handing back a single entry, so a caller that validates first never acts
 * on a damaged file. */
#ifndef GRT_GRAPH_FORMAT_CHECKPOINT_FORMAT_H_
#define GRT_GRAPH_FORMAT_CHECKPOINT_FORMAT_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GRT_CKPT_MAGIC "GRTCKPT\0"
#define GRT_CKPT_VERSION 1u
#define GRT_CKPT_HEADER_SIZE 48u
#define GRT_CKPT_ALIGN 64u
/* The most variables a checkpoint holds (2^20): far more than any graph's
 * variables, few enough that a crafted index cannot make the reader
 * allocate gigabytes of entries. The writer refuses more too. */
#define GRT_CKPT_MAX_ENTRIES (1u << 20)

/* A variable to write: its name and its value (in host memory). */
typedef struct grt_ckpt_var {
  const char* name;
  const grt_tensor* value;
} grt_ckpt_var;

/* Writes a checkpoint of vars[0..n) (names unique; n at most
 * GRT_CKPT_MAX_ENTRIES) to `f`. */
GRT_MUST_USE grt_status* grt_ckpt_write(FILE* f, const grt_ckpt_var* vars, int32_t n);

/* One entry of a checked checkpoint; name and data point into the file's
 * bytes (name is not NUL-terminated). */
typedef struct grt_ckpt_entry {
  const char* name;
  size_t name_len;
  grt_dtype dtype;
  grt_shape shape;
  const void* data;
  size_t size;
} grt_ckpt_entry;

/* Checks the checkpoint in data[0..len) (read from `path`, for messages) and
 * returns its entries (caller frees the array; they borrow `data`). Errors
 * are DATA_LOSS for damage (bad magic, truncation, a checksum that does not
 * match: the message names the variable when the damage is in its data),
 * FAILED_PRECONDITION for a newer version. */
GRT_MUST_USE grt_status* grt_ckpt_parse(const char* path, const void* data, size_t len,
                                        grt_ckpt_entry** out, int32_t* out_n);

/* Sorts e[0..n) by name, for grt_ckpt_find. */
void grt_ckpt_sort_by_name(grt_ckpt_entry* e, int32_t n);

/* The entry named name[0..len) in e[0..n) sorted by grt_ckpt_sort_by_name,
 * or NULL: a binary search, so matching every variable of a graph against a
 * checkpoint takes n log n, not n times the graph's variables. */
const grt_ckpt_entry* grt_ckpt_find(const grt_ckpt_entry* e, int32_t n, const char* name,
                                    size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_CHECKPOINT_FORMAT_H_ */
