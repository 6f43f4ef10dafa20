/* A verified view of a .grt file's header and section table (the first half
 * of reading; grt_file_reader.c builds the graph from it). */
#ifndef GRT_GRAPH_FORMAT_GRT_FILE_VIEW_H_
#define GRT_GRAPH_FORMAT_GRT_FILE_VIEW_H_

#include <stddef.h>
#include <stdint.h>

#include "graph_format/grt_file_format.h"
#include "grt/graph.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_file_range {
  uint64_t offset; /* from the start of the file */
  uint64_t length; /* bytes */
  uint64_t count;  /* records: length / record size */
} grt_file_range;

typedef struct grt_file_view {
  const char* name; /* file name for messages; borrowed */
  const unsigned char* data;
  size_t size;
  uint16_t major, minor;
  uint64_t data_offset; /* tensor data lies in [data_offset, size) */
  /* Known sections by type; a missing one is empty. */
  grt_file_range sec[GRT_SECTION_LAST + 1];
} grt_file_view;

/* Checks magic, version, sizes, checksum and the section table of the
 * `size` bytes at `data`, and fills *v. Every range in *v lies inside the
 * data. Errors start with `name` and give the byte offset at fault. */
GRT_MUST_USE grt_status* grt_file_view_init(grt_file_view* v, const char* name, const void* data,
                                            size_t size);

/* "STRINGS", "NODES", ... ("section N" for unknown types). Static storage. */
const char* grt_file_section_name(uint32_t type);

/* The checksum of a file's metadata part [0, data_offset), with the checksum
 * field taken as zero. `data_offset` must be >= GRT_FILE_HEADER_SIZE. */
uint32_t grt_file_checksum(const unsigned char* data, uint64_t data_offset);

/* grt_format_parse_grt with the file name used in messages. */
GRT_MUST_USE grt_status* grt_file_parse(const char* name, const void* data, size_t size,
                                        void* backing, void (*release)(void* backing),
                                        grt_graph** out);

/* A new status "<v->name>: <message>". */
GRT_MUST_USE grt_status* grt_file_error(const grt_file_view* v, grt_code code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_GRT_FILE_VIEW_H_ */
