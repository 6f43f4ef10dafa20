/* Checkpoint files: writer and checker (layout in docs/checkpoint-format.md). */
#include "graph_format/checkpoint_format.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"

/* Header fields, by byte offset. */
enum {
  OFF_MAGIC = 0,
  OFF_VERSION = 8,
  OFF_COUNT = 12,
  OFF_INDEX_OFFSET = 16,
  OFF_INDEX_SIZE = 24,
  OFF_FILE_SIZE = 32,
  OFF_INDEX_CRC = 40,
  OFF_HEADER_CRC = 44,
};

static uint32_t crc_of(const void* p, size_t n) {
  return (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), (const Bytef*)p, n);
}

static void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static uint64_t align_up(uint64_t x) {
  return (x + GRT_CKPT_ALIGN - 1) / GRT_CKPT_ALIGN * GRT_CKPT_ALIGN;
}

static size_t record_size(const grt_ckpt_var* v) {
  return 4 + strlen(v->name) + 4 + 4 + 8 * (size_t)v->value->shape.rank + 8 + 8 + 4;
}

static grt_status* write_bytes(FILE* f, const void* p, size_t n) {
  if (n && fwrite(p, 1, n, f) != n) return GRT_ERROR(UNAVAILABLE, "writing the checkpoint failed");
  return NULL;
}

grt_status* grt_ckpt_write(FILE* f, const grt_ckpt_var* vars, int32_t n) {
  if (n < 0 || (uint32_t)n > GRT_CKPT_MAX_ENTRIES)
    return GRT_ERROR(INVALID_ARGUMENT, "%d variables: a checkpoint holds at most %u", (int)n,
                     GRT_CKPT_MAX_ENTRIES);
  size_t index_size = 0;
  for (int32_t i = 0; i < n; i++) index_size += record_size(&vars[i]);
  unsigned char* index = grt_malloc(index_size + 1);
  if (!index) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory writing a checkpoint");
  uint64_t data_start = align_up(GRT_CKPT_HEADER_SIZE + index_size), at = data_start;
  uint64_t file_size = GRT_CKPT_HEADER_SIZE + index_size; /* no variables: no padding */
  unsigned char* p = index;
  for (int32_t i = 0; i < n; i++) {
    const grt_tensor* t = vars[i].value;
    size_t name_len = strlen(vars[i].name), size = grt_tensor_byte_size(t);
    put_u32(p, (uint32_t)name_len);
    memcpy(p + 4, vars[i].name, name_len);
    p += 4 + name_len;
    put_u32(p, (uint32_t)t->dtype);
    put_u32(p + 4, (uint32_t)t->shape.rank);
    p += 8;
    for (int32_t d = 0; d < t->shape.rank; d++, p += 8) put_u64(p, (uint64_t)t->shape.dims[d]);
    put_u64(p, at);
    put_u64(p + 8, size);
    put_u32(p + 16, crc_of(grt_tensor_data(t), size));
    p += 20;
    file_size = at + size;
    at = align_up(at + size);
  }
  unsigned char header[GRT_CKPT_HEADER_SIZE];
  memset(header, 0, sizeof header);
  memcpy(header + OFF_MAGIC, GRT_CKPT_MAGIC, 8);
  put_u32(header + OFF_VERSION, GRT_CKPT_VERSION);
  put_u32(header + OFF_COUNT, (uint32_t)n);
  put_u64(header + OFF_INDEX_OFFSET, GRT_CKPT_HEADER_SIZE);
  put_u64(header + OFF_INDEX_SIZE, index_size);
  put_u64(header + OFF_FILE_SIZE, file_size);
  put_u32(header + OFF_INDEX_CRC, crc_of(index, index_size));
  put_u32(header + OFF_HEADER_CRC, crc_of(header, OFF_HEADER_CRC));
  static const unsigned char kZeros[GRT_CKPT_ALIGN];
  uint64_t written = GRT_CKPT_HEADER_SIZE + index_size;
  grt_status* st = write_bytes(f, header, sizeof header);
  if (!st) st = write_bytes(f, index, index_size);
  for (int32_t i = 0; !st && i < n; i++) {
    st = write_bytes(f, kZeros, align_up(written) - written);
    size_t size = grt_tensor_byte_size(vars[i].value);
    if (!st) st = write_bytes(f, grt_tensor_data(vars[i].value), size);
    written = align_up(written) + size;
  }
  grt_free(index);
  return st;
}

/* Reads index records one at a time within [p, end). */
typedef struct {
  const unsigned char* p;
  const unsigned char* end;
} cursor;

static bool take(cursor* c, size_t n, const unsigned char** out) {
  if ((size_t)(c->end - c->p) < n) return false;
  *out = c->p;
  c->p += n;
  return true;
}

static grt_status* parse_entry(const char* path, const unsigned char* base, size_t len,
                               uint64_t index_end, int32_t i, cursor* c, grt_ckpt_entry* e) {
  const unsigned char* q;
  if (!take(c, 4, &q)) goto short_index;
  uint32_t name_len = get_u32(q);
  if (!take(c, name_len, &q)) goto short_index;
  e->name = (const char*)q;
  e->name_len = name_len;
  int nl = (int)(name_len > 200 ? 200 : name_len);
  if (!take(c, 8, &q)) goto short_index;
  uint32_t dtype = get_u32(q), rank = get_u32(q + 4);
  if (!grt_dtype_valid((int)dtype) || rank > GRT_MAX_RANK)
    return GRT_ERROR(DATA_LOSS, "%s: variable '%.*s': bad dtype %u or rank %u", path, nl, e->name,
                     dtype, rank);
  e->dtype = (grt_dtype)dtype;
  e->shape.rank = (int32_t)rank;
  for (uint32_t d = 0; d < rank; d++) {
    if (!take(c, 8, &q)) goto short_index;
    uint64_t dim = get_u64(q);
    if (dim > (uint64_t)INT64_MAX / 2)
      return GRT_ERROR(DATA_LOSS, "%s: variable '%.*s': bad dimension", path, nl, e->name);
    e->shape.dims[d] = (int64_t)dim;
  }
  if (!take(c, 20, &q)) goto short_index;
  uint64_t off = get_u64(q), size = get_u64(q + 8);
  uint32_t crc = get_u32(q + 16);
  size_t want = 0;
  if (!grt_tensor_bytes_for(e->dtype, &e->shape, &want) || want != size)
    return GRT_ERROR(DATA_LOSS, "%s: variable '%.*s': %llu data bytes do not fit its shape", path,
                     nl, e->name, (unsigned long long)size);
  if (off < index_end || off > len || size > len - off)
    return GRT_ERROR(DATA_LOSS, "%s: variable '%.*s': its data lies outside the file", path, nl,
                     e->name);
  if (off % GRT_CKPT_ALIGN)
    return GRT_ERROR(DATA_LOSS, "%s: variable '%.*s': its data offset %llu is not a multiple of %u",
                     path, nl, e->name, (unsigned long long)off, GRT_CKPT_ALIGN);
  e->data = base + off;
  e->size = (size_t)size;
  if (crc_of(e->data, e->size) != crc)
    return GRT_ERROR(
        DATA_LOSS, "%s: variable '%.*s': the data's checksum does not match (the file is damaged)",
        path, nl, e->name);
  /* A bool is one byte, 0 or 1, wherever grt reads one (as in .grt and
   * .npy files): kernels load these bytes as C bool, where any other value
   * is undefined behaviour. */
  if (e->dtype == GRT_BOOL) {
    const unsigned char* b = e->data;
    for (size_t k = 0; k < e->size; k++)
      if (b[k] > 1)
        return GRT_ERROR(DATA_LOSS, "%s: variable '%.*s': bool element %zu is %u, not 0 or 1", path,
                         nl, e->name, k, (unsigned)b[k]);
  }
  return NULL;
short_index:
  return GRT_ERROR(DATA_LOSS, "%s: index entry %d runs past the end of the index", path, (int)i);
}

/* Names in one order, length first (any total order does): sorting finds
 * duplicates in n log n, where comparing each name with every earlier one
 * took minutes over a crafted index of 300,000 entries. */
static int compare_names(const char* a, size_t na, const char* b, size_t nb) {
  if (na != nb) return na < nb ? -1 : 1;
  return na ? memcmp(a, b, na) : 0;
}

static int entry_order(const void* a, const void* b) {
  const grt_ckpt_entry *x = a, *y = b;
  return compare_names(x->name, x->name_len, y->name, y->name_len);
}

static int entry_ptr_order(const void* a, const void* b) {
  return entry_order(*(const grt_ckpt_entry* const*)a, *(const grt_ckpt_entry* const*)b);
}

void grt_ckpt_sort_by_name(grt_ckpt_entry* e, int32_t n) {
  if (n > 1) qsort(e, (size_t)n, sizeof *e, entry_order);
}

const grt_ckpt_entry* grt_ckpt_find(const grt_ckpt_entry* e, int32_t n, const char* name,
                                    size_t len) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    int c = compare_names(e[mid].name, e[mid].name_len, name, len);
    if (c == 0) return &e[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* DATA_LOSS naming a name that e[0..n) holds twice (file order is kept:
 * the sort is over pointers). */
static grt_status* check_unique(const char* path, const grt_ckpt_entry* e, uint32_t n) {
  if (n < 2) return NULL;
  const grt_ckpt_entry** by_name = grt_malloc((size_t)n * sizeof *by_name);
  if (!by_name) return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory reading the index", path);
  for (uint32_t i = 0; i < n; i++) by_name[i] = &e[i];
  qsort(by_name, n, sizeof *by_name, entry_ptr_order);
  grt_status* st = NULL;
  for (uint32_t i = 1; !st && i < n; i++)
    if (entry_order(by_name[i - 1], by_name[i]) == 0)
      st = GRT_ERROR(DATA_LOSS, "%s: variable '%.*s' appears twice", path,
                     (int)(by_name[i]->name_len > 200 ? 200 : by_name[i]->name_len),
                     by_name[i]->name);
  grt_free(by_name);
  return st;
}

grt_status* grt_ckpt_parse(const char* path, const void* data, size_t len, grt_ckpt_entry** out,
                           int32_t* out_n) {
  *out = NULL;
  *out_n = 0;
  const unsigned char* h = data;
  if (len < GRT_CKPT_HEADER_SIZE || memcmp(h + OFF_MAGIC, GRT_CKPT_MAGIC, 8) != 0)
    return GRT_ERROR(DATA_LOSS, "%s: not a grt checkpoint (no header; %zu bytes)", path, len);
  if (crc_of(h, OFF_HEADER_CRC) != get_u32(h + OFF_HEADER_CRC))
    return GRT_ERROR(DATA_LOSS, "%s: the header's checksum does not match (the file is damaged)",
                     path);
  uint32_t version = get_u32(h + OFF_VERSION);
  if (version != GRT_CKPT_VERSION)
    return GRT_ERROR(FAILED_PRECONDITION, "%s: checkpoint version %u; this grt reads version %u",
                     path, version, GRT_CKPT_VERSION);
  uint64_t file_size = get_u64(h + OFF_FILE_SIZE);
  if (file_size != len)
    return GRT_ERROR(DATA_LOSS,
                     "%s: truncated or extended: the header says %llu bytes, the file has %zu",
                     path, (unsigned long long)file_size, len);
  uint64_t index_off = get_u64(h + OFF_INDEX_OFFSET), index_size = get_u64(h + OFF_INDEX_SIZE);
  if (index_off < GRT_CKPT_HEADER_SIZE || index_off > len || index_size > len - index_off)
    return GRT_ERROR(DATA_LOSS, "%s: the index lies outside the file", path);
  if (crc_of(h + index_off, index_size) != get_u32(h + OFF_INDEX_CRC))
    return GRT_ERROR(DATA_LOSS, "%s: the index's checksum does not match (the file is damaged)",
                     path);
  uint32_t n = get_u32(h + OFF_COUNT);
  if (n > index_size / 28) /* the smallest record is 28 bytes */
    return GRT_ERROR(DATA_LOSS, "%s: %u variables cannot fit in a %llu-byte index", path, n,
                     (unsigned long long)index_size);
  if (n > GRT_CKPT_MAX_ENTRIES)
    return GRT_ERROR(DATA_LOSS, "%s: %u variables; a checkpoint holds at most %u", path, n,
                     GRT_CKPT_MAX_ENTRIES);
  grt_ckpt_entry* e = grt_calloc((size_t)n + 1, sizeof *e);
  if (!e) return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory reading the index", path);
  cursor c = {h + index_off, h + index_off + index_size};
  for (uint32_t i = 0; i < n; i++) {
    grt_status* st = parse_entry(path, h, len, index_off + index_size, (int32_t)i, &c, &e[i]);
    if (st) {
      grt_free(e);
      return st;
    }
  }
  if (c.p != c.end) {
    grt_free(e);
    return GRT_ERROR(DATA_LOSS, "%s: the index has %zu bytes after its last entry (%u entries)",
                     path, (size_t)(c.end - c.p), n);
  }
  grt_status* st = check_unique(path, e, n);
  if (st) {
    grt_free(e);
    return st;
  }
  *out = e;
  *out_n = (int32_t)n;
  return NULL;
}
