/* Reading a .grt file, part 1: header, checksum and section table.
 * Nothing here trusts a byte of the file before checking it; all arithmetic
 * on file values is done in uint64_t after range checks that cannot
 * overflow. */
#include "graph_format/grt_file_view.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "base/status.h"

typedef unsigned long long ull; /* for printf */

grt_status* grt_file_error(const grt_file_view* v, grt_code code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  grt_status* s = grt_status_newv(code, fmt, ap);
  va_end(ap);
  return grt_status_prefix(s, "%s", v->name);
}

const char* grt_file_section_name(uint32_t type) {
  static const char* const kNames[GRT_SECTION_LAST + 1] = {
      [GRT_SECTION_STRINGS] = "STRINGS",
      [GRT_SECTION_NODES] = "NODES",
      [GRT_SECTION_INPUTS] = "INPUTS",
      [GRT_SECTION_REFS] = "REFS",
      [GRT_SECTION_ATTRS] = "ATTRS",
      [GRT_SECTION_WORDS] = "WORDS",
      [GRT_SECTION_SHAPES] = "SHAPES",
      [GRT_SECTION_TENSORS] = "TENSORS",
      [GRT_SECTION_DATA_CRC32C] = "DATA_CRC32C",
  };
  if (type >= 1 && type <= GRT_SECTION_LAST) return kNames[type];
  return "unknown section";
}

uint32_t grt_file_checksum(const unsigned char* data, uint64_t data_offset) {
  static const unsigned char kZero[4] = {0};
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, data, GRT_FILE_OFF_CHECKSUM);
  crc = crc32_z(crc, kZero, sizeof kZero);
  crc = crc32_z(crc, data + GRT_FILE_OFF_CHECKSUM + 4,
                (z_size_t)(data_offset - GRT_FILE_OFF_CHECKSUM - 4));
  return (uint32_t)crc;
}

/* Magic, version, header size, file size, data offset, checksum. */
static grt_status* check_header(grt_file_view* v) {
  const unsigned char* p = v->data;
  size_t n = v->size < GRT_FILE_MAGIC_SIZE ? v->size : GRT_FILE_MAGIC_SIZE;
  if ((n > 0 && memcmp(p, GRT_FILE_MAGIC, n) != 0) || v->size == 0)
    return grt_file_error(
        v, GRT_INVALID_ARGUMENT,
        "not a .grt file: bad magic at offset 0 (expected \\x89GRT\\r\\n\\x1a\\n)");
  if (v->size < GRT_FILE_HEADER_SIZE)
    return grt_file_error(v, GRT_DATA_LOSS,
                          "truncated: the file is %zu bytes, shorter than the %d-byte header",
                          v->size, GRT_FILE_HEADER_SIZE);
  v->major = grt_le16(p + GRT_FILE_OFF_MAJOR);
  v->minor = grt_le16(p + GRT_FILE_OFF_MINOR);
  if (v->major != GRT_FILE_VERSION_MAJOR)
    return grt_file_error(
        v, GRT_INVALID_ARGUMENT,
        "format version %u.%u (offset 8) is %s; this reader reads %d.x up to %d.%d", v->major,
        v->minor,
        v->major > GRT_FILE_VERSION_MAJOR ? "newer than this reader supports" : "not supported",
        GRT_FILE_VERSION_MAJOR, GRT_FILE_VERSION_MAJOR, GRT_FILE_VERSION_MINOR);
  bool newer = v->minor > GRT_FILE_VERSION_MINOR;

  uint32_t header_size = grt_le32(p + GRT_FILE_OFF_HEADER_SIZE);
  bool header_ok = newer ? (header_size >= GRT_FILE_HEADER_SIZE && header_size % 8 == 0 &&
                            header_size <= v->size)
                         : header_size == GRT_FILE_HEADER_SIZE;
  if (!header_ok)
    return grt_file_error(v, GRT_DATA_LOSS, "header size %u at offset %d is invalid (expected %d)",
                          header_size, GRT_FILE_OFF_HEADER_SIZE, GRT_FILE_HEADER_SIZE);

  uint64_t file_size = grt_le64(p + GRT_FILE_OFF_FILE_SIZE);
  if (file_size != v->size)
    return grt_file_error(v, GRT_DATA_LOSS,
                          "the header (offset %d) says the file is %llu bytes but it is %zu "
                          "(truncated or extended)",
                          GRT_FILE_OFF_FILE_SIZE, (ull)file_size, v->size);

  v->data_offset = grt_le64(p + GRT_FILE_OFF_DATA);
  if (v->data_offset < header_size || v->data_offset > v->size ||
      v->data_offset % GRT_FILE_DATA_ALIGN != 0)
    return grt_file_error(
        v, GRT_DATA_LOSS, "data offset %llu at offset %d is not a multiple of %d in [%u, %zu]",
        (ull)v->data_offset, GRT_FILE_OFF_DATA, GRT_FILE_DATA_ALIGN, header_size, v->size);

  uint32_t want = grt_le32(p + GRT_FILE_OFF_CHECKSUM);
  uint32_t got = grt_file_checksum(p, v->data_offset);
  if (want != got)
    return grt_file_error(v, GRT_DATA_LOSS,
                          "checksum mismatch: the header (offset %d) says 0x%08x but bytes "
                          "[0, %llu) give 0x%08x",
                          GRT_FILE_OFF_CHECKSUM, want, (ull)v->data_offset, got);

  if (!newer) {
    for (int i = GRT_FILE_OFF_RESERVED; i < GRT_FILE_HEADER_SIZE; i++)
      if (p[i] != 0)
        return grt_file_error(v, GRT_DATA_LOSS, "reserved header byte at offset %d is not zero", i);
  }
  return NULL;
}

static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen) {
  return alen > 0 && blen > 0 && a < b + blen && b < a + alen;
}

/* One section table entry at file offset `at`. `table`/`table_len` is the
 * section table itself, which no section may overlap. */
static grt_status* check_entry(grt_file_view* v, uint64_t at, uint64_t table, uint64_t table_len,
                               bool seen[]) {
  const unsigned char* e = v->data + at;
  uint32_t type = grt_le32(e);
  uint32_t reserved = grt_le32(e + 4);
  uint64_t off = grt_le64(e + 8);
  uint64_t len = grt_le64(e + 16);
  uint32_t header_size = grt_le32(v->data + GRT_FILE_OFF_HEADER_SIZE);
  uint32_t rec = grt_file_record_size(type);
  const char* name = grt_file_section_name(type);
  if (rec == 0) {
    if (v->minor > GRT_FILE_VERSION_MINOR) return NULL; /* a later minor's section */
    return grt_file_error(v, GRT_DATA_LOSS,
                          "section table entry at offset %llu has unknown type %u in a version "
                          "%u.%u file",
                          (ull)at, type, v->major, v->minor);
  }
  if (reserved != 0)
    return grt_file_error(v, GRT_DATA_LOSS, "%s section entry at offset %llu: reserved field is %u",
                          name, (ull)at, reserved);
  if (seen[type])
    return grt_file_error(v, GRT_DATA_LOSS, "%s section entry at offset %llu: a second %s section",
                          name, (ull)at, name);
  seen[type] = true;
  if (off % GRT_FILE_SECTION_ALIGN != 0 || off < header_size || off > v->data_offset ||
      len > v->data_offset - off)
    return grt_file_error(v, GRT_DATA_LOSS,
                          "%s section at offset %llu+%llu (entry at offset %llu) is not an "
                          "8-aligned range inside the metadata [%u, %llu)",
                          name, (ull)off, (ull)len, (ull)at, header_size, (ull)v->data_offset);
  if (len % rec != 0)
    return grt_file_error(v, GRT_DATA_LOSS,
                          "%s section (entry at offset %llu) is %llu bytes, not a multiple of its "
                          "%u-byte records",
                          name, (ull)at, (ull)len, rec);
  if (ranges_overlap(off, len, table, table_len))
    return grt_file_error(v, GRT_DATA_LOSS,
                          "%s section at offset %llu+%llu overlaps the section table", name,
                          (ull)off, (ull)len);
  for (uint32_t t = 1; t <= GRT_SECTION_LAST; t++) {
    if (t == type || !seen[t]) continue;
    if (ranges_overlap(off, len, v->sec[t].offset, v->sec[t].length))
      return grt_file_error(v, GRT_DATA_LOSS,
                            "%s section at offset %llu+%llu overlaps the %s section", name,
                            (ull)off, (ull)len, grt_file_section_name(t));
  }
  v->sec[type].offset = off;
  v->sec[type].length = len;
  v->sec[type].count = len / rec;
  return NULL;
}

static grt_status* check_section_table(grt_file_view* v) {
  const unsigned char* p = v->data;
  uint32_t header_size = grt_le32(p + GRT_FILE_OFF_HEADER_SIZE);
  uint64_t table = grt_le64(p + GRT_FILE_OFF_TABLE);
  uint64_t count = grt_le32(p + GRT_FILE_OFF_COUNT);
  uint64_t table_len = count * GRT_FILE_SECTION_ENTRY_SIZE; /* < 2^37: no overflow */
  if (table % GRT_FILE_SECTION_ALIGN != 0 || table < header_size || table > v->data_offset ||
      table_len > v->data_offset - table)
    return grt_file_error(v, GRT_DATA_LOSS,
                          "section table at offset %llu with %llu entries (header offsets %d, "
                          "%d) is not an 8-aligned range inside the metadata [%u, %llu)",
                          (ull)table, (ull)count, GRT_FILE_OFF_TABLE, GRT_FILE_OFF_COUNT,
                          header_size, (ull)v->data_offset);
  bool seen[GRT_SECTION_LAST + 1] = {false};
  for (uint64_t i = 0; i < count; i++)
    GRT_RETURN_IF_ERROR(
        check_entry(v, table + i * GRT_FILE_SECTION_ENTRY_SIZE, table, table_len, seen));
  /* The string table's shape makes every string ref cheap to check: with a
   * NUL as its last byte, every string ends inside it. */
  const grt_file_range* s = &v->sec[GRT_SECTION_STRINGS];
  if (s->length > 0 && p[s->offset + s->length - 1] != 0)
    return grt_file_error(v, GRT_DATA_LOSS,
                          "string table at offset %llu+%llu does not end with a NUL byte: its "
                          "last string is not NUL-terminated",
                          (ull)s->offset, (ull)s->length);
  if (s->length > 0 && p[s->offset] != 0)
    return grt_file_error(v, GRT_DATA_LOSS,
                          "string table at offset %llu does not start with the empty string",
                          (ull)s->offset);
  return NULL;
}

grt_status* grt_file_view_init(grt_file_view* v, const char* name, const void* data, size_t size) {
  memset(v, 0, sizeof *v);
  v->name = name;
  v->data = data;
  v->size = size;
  GRT_RETURN_IF_ERROR(check_header(v));
  return check_section_table(v);
}
