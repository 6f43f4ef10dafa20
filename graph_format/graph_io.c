/* grt_graph_load / grt_graph_save: choose the format, validate, and put the
 * file name in front of every error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_open.h"
#include "base/mem.h"
#include "graph_format/formats.h"
#include "graph_format/grt_file_format.h"
#include "interchange/interchange.h"
#include "ops/graph.h"
#include "base/status.h"

typedef enum { FORMAT_UNKNOWN, FORMAT_GRT, FORMAT_JSON, FORMAT_GRAPHDEF, FORMAT_ONNX } file_format;

static const struct {
  const char* ext;
  file_format fmt;
} kExtensions[] = {
    {".grt", FORMAT_GRT},
    {".json", FORMAT_JSON},
    {".pb", FORMAT_GRAPHDEF},
    {".onnx", FORMAT_ONNX},
};

static bool ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static file_format format_of(const char* path) {
  for (size_t i = 0; i < sizeof kExtensions / sizeof kExtensions[0]; i++)
    if (ends_with(path, kExtensions[i].ext)) return kExtensions[i].fmt;
  return FORMAT_UNKNOWN;
}

/* An unknown extension: the .grt magic; JSON text starts with '{' after
 * blanks; an ONNX ModelProto starts with its ir_version (field 1, varint:
 * byte 0x08) and a GraphDef with a node (field 1, bytes: 0x0a) or, when it
 * has none, its versions (field 4: 0x22). Anything else goes to the .grt
 * reader, which reports what is wrong. */
static file_format sniff(const char* path) {
  int fd;
  struct stat st;
  grt_status* err = grt_open_regular_file(path, &fd, &st);
  if (err) {
    grt_status_free(err);
    return FORMAT_GRT; /* the binary reader reports the open error */
  }
  FILE* f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return FORMAT_GRT;
  }
  unsigned char head[GRT_FILE_MAGIC_SIZE] = {0};
  size_t n = fread(head, 1, sizeof head, f);
  int c = n ? head[0] : EOF;
  for (size_t i = 0; (c == ' ' || c == '\t' || c == '\n' || c == '\r');) {
    c = ++i < n ? head[i] : fgetc(f);
  }
  fclose(f);
  if (grt_file_has_magic(head, n)) return FORMAT_GRT;
  if (c == '{') return FORMAT_JSON;
  if (head[0] == 0x08) return FORMAT_ONNX;
  if (head[0] == 0x0a || head[0] == 0x22) return FORMAT_GRAPHDEF;
  return FORMAT_GRT;
}

static grt_status* validated(grt_graph* g, grt_graph** out) {
  grt_status* s = grt_graph_validate(g);
  if (s) {
    grt_graph_free(g);
    return s;
  }
  *out = g;
  return NULL;
}

grt_status* grt_graph_load(const char* path, grt_graph** out) {
  return grt_graph_load_flags(path, 0, out);
}

const char* grt_graph_storage(const grt_graph* g) {
  return g && g->backing && g->storage ? g->storage : "parsed";
}

grt_status* grt_graph_load_flags(const char* path, unsigned flags, grt_graph** out) {
  *out = NULL;
  if (flags & ~GRT_LOAD_NO_MMAP)
    return GRT_ERROR(INVALID_ARGUMENT, "unknown load flags 0x%x", flags);
  if (!path) return GRT_ERROR(INVALID_ARGUMENT, "NULL path");
  file_format fmt = format_of(path);
  if (fmt == FORMAT_UNKNOWN) fmt = sniff(path);
  grt_graph* g = NULL;
  grt_status* s;
  if (fmt == FORMAT_GRT) {
    s = grt_format_open_grt_flags(path, flags, &g);
  } else if (fmt == FORMAT_GRAPHDEF || fmt == FORMAT_ONNX) {
    s = grt_format_read_protobuf(path, fmt == FORMAT_ONNX ? grt_onnx_parse : grt_graphdef_parse,
                                 &g);
  } else {
    char* text;
    size_t len;
    s = grt_read_file(path, &text, &len);
    if (s) return s; /* already names the file */
    s = grt_format_parse_json(text, len, &g);
    grt_free(text);
  }
  if (!s) s = validated(g, out);
  if (s && fmt == FORMAT_JSON) return grt_status_prefix(s, "%s", path);
  if (s && !strstr(grt_status_message(s), path)) return grt_status_prefix(s, "%s", path);
  return s;
}

grt_status* grt_graph_from_json(const char* text, size_t len, grt_graph** out) {
  *out = NULL;
  if (!text) return GRT_ERROR(INVALID_ARGUMENT, "NULL text");
  grt_graph* g = NULL;
  GRT_RETURN_IF_ERROR(grt_format_parse_json(text, len, &g));
  return validated(g, out);
}

static grt_status* write_grt(void* g, FILE* f) { return grt_format_write_grt(g, f); }
static grt_status* write_json(void* g, FILE* f) { return grt_format_write_json(g, f); }
static grt_status* write_graphdef(void* g, FILE* f) { return grt_graphdef_write(g, f); }

grt_status* grt_graph_save(grt_graph* g, const char* path) {
  if (!g || !path) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph or path");
  file_format fmt = format_of(path);
  if (fmt == FORMAT_UNKNOWN || fmt == FORMAT_ONNX)
    return GRT_ERROR(INVALID_ARGUMENT, "%s: unknown output format (use a .grt, .json or .pb name)",
                     path);
  if (!g->validated) GRT_RETURN_IF_ERROR(grt_graph_validate(g));
  return grt_write_file_atomic(path,
                               fmt == FORMAT_GRT    ? write_grt
                               : fmt == FORMAT_JSON ? write_json
                                                    : write_graphdef,
                               g);
}

grt_status* grt_graph_to_json(grt_graph* g, char** out_text, size_t* out_len) {
  *out_text = NULL;
  *out_len = 0;
  if (!g) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph");
  if (!g->validated) GRT_RETURN_IF_ERROR(grt_graph_validate(g));
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (!f) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory writing JSON");
  grt_status* s = grt_format_write_json(g, f);
  if (fclose(f) != 0 && !s) s = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory writing JSON");
  if (s) {
    free(buf); /* open_memstream's: plain malloc, like the text handed out */
    return s;
  }
  *out_text = buf;
  *out_len = len;
  return NULL;
}
