/* Fuzz target for the checkpoint reader (grt_ckpt_parse,
 * docs/checkpoint-format.md): any bytes must give a status whose message
 * starts with the file's name, never a crash, hang or leak. A checkpoint the
 * reader accepts must hold what it promises (entries inside the file, data
 * that fits each shape, bools 0 or 1) and survive a round trip: written
 * again by grt_ckpt_write it reads back to the same entries, and writing
 * those gives the same bytes. Runs under `bazel test` with the standalone
 * driver over the seed and bad-input corpora, and under libFuzzer for long
 * runs (tests/fuzz/README.md). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/mem.h"
#include "base/tensor.h"
#include "graph_format/checkpoint_format.h"

static const char kPath[] = "fuzz.ckpt";

static void fail(const char* what) {
  fprintf(stderr, "fuzz_ckpt_parser: %s\n", what);
  abort();
}

static uint32_t get32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t get64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static void put32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t crc(const unsigned char* p, size_t n) {
  return (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), p, n);
}

/* Writes entries[0..n) as a checkpoint into a new malloc'd buffer; NULL
 * when a name holds a NUL (the writer takes C strings). */
static char* rewrite(const grt_ckpt_entry* e, int32_t n, size_t* len) {
  grt_ckpt_var* vars = calloc((size_t)n + 1, sizeof *vars);
  char** names = calloc((size_t)n + 1, sizeof *names);
  if (!vars || !names) fail("out of memory");
  char* buf = NULL;
  int32_t made = 0;
  for (; made < n; made++) {
    if (memchr(e[made].name, '\0', e[made].name_len)) break;
    names[made] = strndup(e[made].name, e[made].name_len);
    grt_tensor* t = NULL;
    grt_status* s = grt_tensor_new(e[made].dtype, e[made].shape.rank, e[made].shape.dims, &t);
    if (s) fail(grt_status_message(s));
    if (grt_tensor_byte_size(t) != e[made].size) fail("an entry's size is not its shape's");
    if (e[made].size) memcpy(grt_tensor_data(t), e[made].data, e[made].size);
    vars[made].name = names[made];
    vars[made].value = t;
  }
  if (made == n) {
    FILE* f = open_memstream(&buf, len);
    if (!f) fail("open_memstream");
    grt_status* s = grt_ckpt_write(f, vars, n);
    fclose(f);
    if (s) fail(grt_status_message(s));
  }
  for (int32_t i = 0; i < made; i++) {
    grt_tensor_free((grt_tensor*)vars[i].value);
    free(names[i]);
  }
  free(vars);
  free(names);
  return buf;
}

static void check_entries(const unsigned char* data, size_t size, const grt_ckpt_entry* e,
                          int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    const unsigned char* name = (const unsigned char*)e[i].name;
    const unsigned char* d = e[i].data;
    if (name < data || e[i].name_len > size || name - data > (ptrdiff_t)(size - e[i].name_len))
      fail("a name outside the file");
    if (d < data || e[i].size > size || d - data > (ptrdiff_t)(size - e[i].size))
      fail("data outside the file");
    size_t want = 0;
    if (!grt_tensor_bytes_for(e[i].dtype, &e[i].shape, &want) || want != e[i].size)
      fail("data that does not fit its shape");
    for (size_t k = 0; e[i].dtype == GRT_BOOL && k < e[i].size; k++)
      if (d[k] > 1) fail("a bool that is not 0 or 1");
  }
}

static int same_entries(const grt_ckpt_entry* a, int32_t na, const grt_ckpt_entry* b, int32_t nb) {
  if (na != nb) return 0;
  for (int32_t i = 0; i < na; i++)
    if (a[i].name_len != b[i].name_len || memcmp(a[i].name, b[i].name, a[i].name_len) != 0 ||
        a[i].dtype != b[i].dtype || a[i].shape.rank != b[i].shape.rank ||
        memcmp(a[i].shape.dims, b[i].shape.dims, sizeof(int64_t) * (size_t)a[i].shape.rank) != 0 ||
        a[i].size != b[i].size || (a[i].size && memcmp(a[i].data, b[i].data, a[i].size) != 0))
      return 0;
  return 1;
}

/* Parses data[0..size); if it is accepted, checks it and its round trip.
 * Returns whether it parsed. */
static int check_one(const unsigned char* data, size_t size) {
  grt_ckpt_entry* e = NULL;
  int32_t n = 0;
  grt_status* s = grt_ckpt_parse(kPath, data, size, &e, &n);
  if (s) {
    if (e || n) fail("a failed parse handed out entries");
    const char* m = grt_status_message(s);
    if (strncmp(m, kPath, sizeof kPath - 1) != 0 || strncmp(m + sizeof kPath - 1, ": ", 2) != 0)
      fail(m); /* every error names the file */
    grt_status_free(s);
    return 0;
  }
  check_entries(data, size, e, n);
  size_t len1 = 0, len2 = 0;
  char* once = rewrite(e, n, &len1);
  if (once) {
    grt_ckpt_entry* e2 = NULL;
    int32_t n2 = 0;
    s = grt_ckpt_parse(kPath, once, len1, &e2, &n2);
    if (s) fail(grt_status_message(s)); /* a rewritten checkpoint must read back */
    if (!same_entries(e, n, e2, n2)) fail("the rewritten checkpoint holds other entries");
    char* twice = rewrite(e2, n2, &len2);
    if (!twice || len1 != len2 || memcmp(once, twice, len1) != 0)
      fail("rewriting is not deterministic");
    free(twice);
    grt_free(e2);
  }
  free(once);
  grt_free(e);
  return 1;
}

/* Sets the data checksum of every record the walk can read (it stops at
 * the first that runs past the index), from data that lies in the file. */
static void fix_data_checksums(unsigned char* p, size_t size) {
  uint64_t off = get64(p + 16), len = get64(p + 24);
  if (off > size || len > size - off) return;
  size_t at = (size_t)off, end = (size_t)(off + len);
  uint32_t n = get32(p + 12);
  for (uint32_t i = 0; i < n; i++) {
    if (end - at < 4) return;
    size_t name_len = get32(p + at);
    if (end - at - 4 < name_len + 8) return;
    at += 4 + name_len;
    size_t rank = get32(p + at + 4);
    if (rank > GRT_MAX_RANK) return;
    at += 8;
    if (end - at < 8 * rank + 20) return;
    at += 8 * rank;
    uint64_t data_off = get64(p + at), data_size = get64(p + at + 8);
    if (data_off <= size && data_size <= size - data_off)
      put32(p + at + 16, crc(p + data_off, (size_t)data_size));
    at += 20;
  }
}

/* Makes the header's size and checksums (and with_data, the records' data
 * checksums) right for the bytes as they are. */
static void fix_up(unsigned char* p, size_t size, int with_data) {
  put64(p + 32, size);
  if (with_data) fix_data_checksums(p, size);
  uint64_t off = get64(p + 16), len = get64(p + 24);
  if (off <= size && len <= size - off) put32(p + 40, crc(p + off, (size_t)len));
  put32(p + 44, crc(p, 44));
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  unsigned char* copy = calloc(size ? size : 1, 1);
  if (!copy) return 0;
  if (size) memcpy(copy, data, size);
  /* As given (most mutations die at a checksum), then with the header's
   * size and checksums made right, then the data's too, so mutations reach
   * the checks behind each checksum. */
  if (!check_one(copy, size) && size >= GRT_CKPT_HEADER_SIZE) {
    fix_up(copy, size, 0);
    if (!check_one(copy, size)) {
      fix_up(copy, size, 1);
      check_one(copy, size);
    }
  }
  free(copy);
  return 0;
}
