/* .npy reader. The header is a Python dict literal; only the three keys
 * NumPy writes are read ('descr', 'fortran_order', 'shape'), each checked. */
#include "graph_format/npy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph_format/formats.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

typedef struct {
  const char* descr;
  grt_dtype dtype;
} descr_row;

/* '<' little-endian, '|' not applicable (one byte). */
static const descr_row kDescrs[] = {
    {"<f2", GRT_FLOAT16}, {"<f4", GRT_FLOAT32}, {"<f8", GRT_FLOAT64}, {"|i1", GRT_INT8},
    {"<i2", GRT_INT16},   {"<i4", GRT_INT32},   {"<i8", GRT_INT64},   {"|u1", GRT_UINT8},
    {"|b1", GRT_BOOL},
};

/* The text after "'key':" (skipping blanks), or NULL. */
static const char* find_key(const char* h, size_t n, const char* key) {
  size_t k = strlen(key);
  for (size_t i = 0; i + k + 3 <= n; i++) {
    if (h[i] == '\'' && memcmp(h + i + 1, key, k) == 0 && h[i + 1 + k] == '\'') {
      size_t j = i + k + 2;
      while (j < n && h[j] == ' ') j++;
      if (j >= n || h[j] != ':') return NULL;
      j++;
      while (j < n && h[j] == ' ') j++;
      return j < n ? h + j : NULL;
    }
  }
  return NULL;
}

grt_status* grt_npy_parse(const void* data, size_t len, const char* name, grt_tensor** out) {
  *out = NULL;
  const unsigned char* p = data;
  if (len < 10 || memcmp(p, "\x93NUMPY", 6) != 0)
    return GRT_ERROR(INVALID_ARGUMENT, "%s: not a .npy file (bad magic)", name);
  unsigned major = p[6];
  size_t header_len, at;
  if (major == 1) {
    header_len = (size_t)p[8] | (size_t)p[9] << 8;
    at = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return GRT_ERROR(INVALID_ARGUMENT, "%s: truncated .npy header", name);
    header_len = (size_t)p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24;
    at = 12;
  } else {
    return GRT_ERROR(UNIMPLEMENTED, "%s: .npy format version %u is not supported", name, major);
  }
  if (header_len > len - at)
    return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy header of %zu bytes runs past the end (%zu bytes)",
                     name, header_len, len);
  const char* h = (const char*)p + at;
  const char* v = find_key(h, header_len, "descr");
  const char* end = h + header_len;
  grt_dtype dtype = GRT_DTYPE_INVALID;
  for (size_t i = 0; v && i < sizeof kDescrs / sizeof kDescrs[0]; i++) {
    size_t dl = strlen(kDescrs[i].descr);
    if ((size_t)(end - v) >= dl + 2 && v[0] == '\'' && memcmp(v + 1, kDescrs[i].descr, dl) == 0 &&
        v[1 + dl] == '\'')
      dtype = kDescrs[i].dtype;
  }
  if (dtype == GRT_DTYPE_INVALID)
    return GRT_ERROR(UNIMPLEMENTED,
                     "%s: .npy 'descr' must be one of <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 |b1 "
                     "(little-endian)",
                     name);
  v = find_key(h, header_len, "fortran_order");
  if (!v || (size_t)(end - v) < 5 || memcmp(v, "False", 5) != 0)
    return GRT_ERROR(UNIMPLEMENTED, "%s: .npy arrays must be in C order (fortran_order False)",
                     name);
  v = find_key(h, header_len, "shape");
  if (!v || *v != '(') return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy header has no 'shape' tuple", name);
  grt_shape shape = grt_shape_scalar();
  v++;
  for (;;) {
    while (v < end && (*v == ' ' || *v == ',')) v++;
    if (v >= end) return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy 'shape' is not closed", name);
    if (*v == ')') break;
    if (*v < '0' || *v > '9') return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy 'shape' is malformed", name);
    int64_t d = 0;
    while (v < end && *v >= '0' && *v <= '9') {
      if (d > (INT64_MAX - 9) / 10) return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy dimension too large", name);
      d = d * 10 + (*v++ - '0');
    }
    if (shape.rank == GRT_MAX_RANK)
      return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy array has more than %d dimensions", name,
                       GRT_MAX_RANK);
    shape.dims[shape.rank++] = d;
  }
  size_t bytes;
  if (!grt_tensor_bytes_for(dtype, &shape, &bytes))
    return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy shape is too large", name);
  size_t data_at = at + header_len;
  if (len - data_at != bytes) {
    char sb[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy %s %s needs %zu bytes of data, the file has %zu",
                     name, grt_dtype_name(dtype), grt_shape_str(&shape, sb, sizeof sb), bytes,
                     len - data_at);
  }
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_tensor_new_from(grt_host_allocator(), dtype, &shape, &t));
  if (bytes) memcpy(grt_tensor_data(t), p + data_at, bytes);
  if (dtype == GRT_BOOL) {
    const unsigned char* b = grt_tensor_data(t);
    for (size_t i = 0; i < bytes; i++)
      if (b[i] > 1) {
        unsigned v = b[i];
        grt_tensor_free(t);
        return GRT_ERROR(INVALID_ARGUMENT, "%s: .npy bool element %zu is %u, not 0 or 1", name, i,
                         v);
      }
  }
  *out = t;
  return NULL;
}

grt_status* grt_npy_read(const char* path, grt_tensor** out) {
  *out = NULL;
  char* buf;
  size_t len;
  GRT_RETURN_IF_ERROR(grt_read_file(path, &buf, &len));
  grt_status* s = grt_npy_parse(buf, len, path, out);
  free(buf);
  return s;
}
