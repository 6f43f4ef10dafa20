/* The readers and writers behind grt_graph_load / grt_graph_save.
 *
 * Readers build a graph but do not validate it (the caller does). Writers
 * stream to a FILE* and expect a validated graph. */
#ifndef GRT_GRAPH_FORMAT_FORMATS_H_
#define GRT_GRAPH_FORMAT_FORMATS_H_

#include <stddef.h>
#include <stdio.h>

#include "grt/graph.h"
#include "grt/tensor_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- .grt binary (grt_file_*.c; layout in FORMAT.md) ---- */

/* Maps `path` read-only, verifies it and builds a graph whose strings and
 * constants point into the mapping (kept alive by the graph and tensors). */
GRT_MUST_USE grt_status* grt_format_open_grt(const char* path, grt_graph** out);
/* The same with GRT_LOAD_* flags (GRT_LOAD_NO_MMAP: read, not mapped). */
GRT_MUST_USE grt_status* grt_format_open_grt_flags(const char* path, unsigned flags,
                                                   grt_graph** out);

/* Verifies and builds a graph over `size` bytes at `data`. The graph borrows
 * them: `release(backing)` is called when the graph and every tensor taken
 * from it are gone (release may be NULL when the caller outlives them). */
GRT_MUST_USE grt_status* grt_format_parse_grt(const void* data, size_t size, void* backing,
                                              void (*release)(void* backing), grt_graph** out);

/* Writes the binary form. Deterministic: the same graph gives the same bytes. */
GRT_MUST_USE grt_status* grt_format_write_grt(grt_graph* g, FILE* f);

/* ---- JSON text form (json_*.c; docs/json-format.md) ---- */

/* Parses the text form. Errors name the node (or JSON line/column). */
GRT_MUST_USE grt_status* grt_format_parse_json(const char* text, size_t len, grt_graph** out);

/* Writes the text form: one node per line group, values arrays on one line,
 * attrs in name order, floats in the shortest form that reads back exactly. */
GRT_MUST_USE grt_status* grt_format_write_json(grt_graph* g, FILE* f);

/* ---- GraphDef and ONNX files (protobuf_file.c) ---- */

/* Maps `path` read-only and hands its bytes to `parse` (a GraphDef or ONNX
 * reader, interchange/); the mapping is gone when this returns. Errors are
 * prefixed with the path. */
GRT_MUST_USE grt_status* grt_format_read_protobuf(const char* path,
                                                  grt_status* (*parse)(const void* data, size_t len,
                                                                       grt_graph** out),
                                                  grt_graph** out);

/* ---- files (file_io.c) ---- */

/* grt_write_file_atomic (file_write.c) is public: grt/tensor_io.h. */

/* Reads a whole file into a malloc'd buffer (NUL-terminated; *out_len without
 * the NUL). */
GRT_MUST_USE grt_status* grt_read_file(const char* path, char** out, size_t* out_len);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_FORMATS_H_ */
