/* IDX files: a big-endian header (magic 0x00000803 for images, 0x00000801
 * for labels, then the dimensions) and unsigned bytes, gzip-compressed. */
#include "fashion_mnist_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static grt_status* read_exact(gzFile f, const char* path, void* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    unsigned chunk = n - got > (1u << 30) ? (1u << 30) : (unsigned)(n - got);
    int r = gzread(f, (char*)buf + got, chunk);
    if (r <= 0)
      return grt_status_new(GRT_DATA_LOSS, "%s: ends after %zu of %zu bytes", path, got, n);
    got += (size_t)r;
  }
  return NULL;
}

/* The header's dimensions after checking its magic; *f stays open on success. */
static grt_status* open_idx(const char* path, uint32_t magic, int rank, uint32_t* dims, gzFile* f) {
  *f = gzopen(path, "rb");
  if (!*f)
    return grt_status_new(GRT_NOT_FOUND, "%s: cannot open (install dataset-fashion-mnist)", path);
  unsigned char h[4 * 4];
  grt_status* st = read_exact(*f, path, h, 4 * (size_t)(rank + 1));
  uint32_t m = st ? 0 : (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
  if (!st && m != magic)
    st = grt_status_new(GRT_DATA_LOSS, "%s: magic 0x%08x, expected 0x%08x", path, m, magic);
  for (int i = 0; !st && i < rank; i++) {
    const unsigned char* p = h + 4 * (i + 1);
    dims[i] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
  }
  if (st) {
    gzclose(*f);
    *f = NULL;
  }
  return st;
}

grt_status* fmnist_load(const char* dir, const char* prefix, int64_t limit, fmnist_set* out) {
  memset(out, 0, sizeof *out);
  char ipath[1024], lpath[1024];
  snprintf(ipath, sizeof ipath, "%s/%s-images-idx3-ubyte.gz", dir, prefix);
  snprintf(lpath, sizeof lpath, "%s/%s-labels-idx1-ubyte.gz", dir, prefix);
  gzFile fi = NULL, fl = NULL;
  uint32_t idims[3], ldims[1];
  grt_status* st = open_idx(ipath, 0x803, 3, idims, &fi);
  if (!st) st = open_idx(lpath, 0x801, 1, ldims, &fl);
  if (!st && (idims[1] * idims[2] != FMNIST_PIXELS || idims[0] != ldims[0]))
    st = grt_status_new(GRT_DATA_LOSS, "%s: %u images of %ux%u for %u labels", ipath, idims[0],
                        idims[1], idims[2], ldims[0]);
  int64_t n = st ? 0 : idims[0];
  if (limit > 0 && limit < n) n = limit;
  unsigned char* bytes = st ? NULL : malloc((size_t)n * FMNIST_PIXELS + 1);
  if (!st && !bytes) st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  if (!st) {
    out->n = n;
    out->images = malloc((size_t)n * FMNIST_PIXELS * sizeof(float) + 1);
    out->labels = malloc((size_t)n * sizeof(int32_t) + 1);
    if (!out->images || !out->labels) st = grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  }
  if (!st) st = read_exact(fi, ipath, bytes, (size_t)n * FMNIST_PIXELS);
  for (int64_t i = 0; !st && i < n * FMNIST_PIXELS; i++) out->images[i] = bytes[i] / 255.0f;
  if (!st) st = read_exact(fl, lpath, bytes, (size_t)n);
  for (int64_t i = 0; !st && i < n; i++) {
    if (bytes[i] >= FMNIST_CLASSES)
      st = grt_status_new(GRT_DATA_LOSS, "%s: label %u of example %lld", lpath, bytes[i],
                          (long long)i);
    else
      out->labels[i] = bytes[i];
  }
  free(bytes);
  if (fi) gzclose(fi);
  if (fl) gzclose(fl);
  if (st) fmnist_free(out);
  return st;
}

void fmnist_free(fmnist_set* s) {
  free(s->images);
  free(s->labels);
  memset(s, 0, sizeof *s);
}
