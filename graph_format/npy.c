/* .npy reader. The header is a Python dict literal of exactly the three keys
 * NumPy writes ('descr', 'fortran_order', 'shape'), parsed in npy_header.c. */
#include "base/mem.h"
#include "graph_format/npy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph_format/formats.h"
#include "graph_format/npy_header.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

typedef struct {
  const char* descr;
  grt_dtype dtype;
} descr_row;

/* '<' little-endian, '|' not applicable (one byte). */
static const descr_row kDescrs[] = {
    {"<f2", GRT_FLOAT16}, {"<f4", GRT_FLOAT32}, {"<f8", GRT_FLOAT64},
    {"|i1", GRT_INT8},    {"<i2", GRT_INT16},   {"<i4", GRT_INT32},
    {"<i8", GRT_INT64},   {"|u1", GRT_UINT8},   {"|b1", GRT_BOOL},
};

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
  grt_npy_header hd;
  GRT_RETURN_IF_ERROR(grt_npy_header_parse((const char*)p + at, header_len, name, &hd));
  grt_dtype dtype = GRT_DTYPE_INVALID;
  for (size_t i = 0; i < sizeof kDescrs / sizeof kDescrs[0]; i++)
    if (strcmp(hd.descr, kDescrs[i].descr) == 0) dtype = kDescrs[i].dtype;
  if (dtype == GRT_DTYPE_INVALID)
    return GRT_ERROR(UNIMPLEMENTED,
                     "%s: .npy 'descr' must be one of <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 |b1 "
                     "(little-endian), not '%s'",
                     name, hd.descr);
  if (hd.fortran_order)
    return GRT_ERROR(UNIMPLEMENTED, "%s: .npy arrays must be in C order (fortran_order False)",
                     name);
  grt_shape shape = hd.shape;
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
  GRT_RETURN_IF_ERROR_ANNOTATED(grt_tensor_new_from(grt_host_allocator(), dtype, &shape, &t), "%s",
                                name);
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
  grt_free(buf);
  return s;
}
