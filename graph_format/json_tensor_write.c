/* Writing a tensor value of the JSON text form on one line, in the form a
 * person can read where that is possible and in base64 where it is not
 * (non-finite floats, which JSON numbers cannot hold, and big tensors). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "graph_format/base64.h"
#include "graph_format/json_float.h"
#include "graph_format/json_value.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/tensor.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the base64 form holds little-endian bytes; a big-endian host needs byte swapping here"
#endif

static void write_shape(grt_strbuf* b, const grt_shape* s) {
  grt_strbuf_puts(b, "[");
  for (int32_t i = 0; i < s->rank; i++)
    grt_strbuf_printf(b, "%s%" PRId64, i ? ", " : "", s->dims[i]);
  grt_strbuf_puts(b, "]");
}

/* Element i as a JSON number or literal; false for NaN and infinities. */
static bool write_element(grt_strbuf* b, grt_dtype t, const void* data, int64_t i) {
  if (t == GRT_BOOL) {
    grt_strbuf_puts(b, grt_dtype_load_int(t, data, i) ? "true" : "false");
  } else if (grt_dtype_is_integer(t)) {
    grt_strbuf_printf(b, "%" PRId64, grt_dtype_load_int(t, data, i));
  } else {
    char num[GRT_JSON_FLOAT_MAX];
    size_t n = grt_json_format_float(t, grt_dtype_load_double(t, data, i), num);
    if (!n) return false;
    grt_strbuf_append(b, num, n);
  }
  return true;
}

static bool all_finite(grt_dtype t, const void* data, int64_t n) {
  if (!grt_dtype_is_float(t)) return true;
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(grt_dtype_load_double(t, data, i))) return false;
  return true;
}

/* True when every element has the same bytes as the first (so -0.0 and 0.0
 * differ, and a fill reproduces the tensor bit for bit). */
static bool uniform(const char* data, size_t esize, int64_t n) {
  for (int64_t i = 1; i < n; i++)
    if (memcmp(data + (size_t)i * esize, data, esize) != 0) return false;
  return true;
}

grt_status* grt_json_write_tensor(grt_strbuf* b, const grt_tensor* t) {
  grt_dtype dt = t->dtype;
  int64_t n = grt_shape_num_elements(&t->shape);
  if (!grt_dtype_valid(dt) || n < 0)
    return GRT_ERROR(INVALID_ARGUMENT, "tensor has an invalid dtype (%d) or shape", (int)dt);
  const char* data = grt_tensor_data(t);
  size_t esize = grt_dtype_size(dt);
  grt_strbuf_printf(b, "{\"dtype\": \"%s\", \"shape\": ", grt_dtype_name(dt));
  write_shape(b, &t->shape);
  if (n > 1 && uniform(data, esize, n) && all_finite(dt, data, 1)) {
    grt_strbuf_puts(b, ", \"values\": [");
    write_element(b, dt, data, 0);
    grt_strbuf_puts(b, "]}");
  } else if (n <= GRT_JSON_MAX_VALUES && all_finite(dt, data, n)) {
    grt_strbuf_puts(b, ", \"values\": [");
    for (int64_t i = 0; i < n; i++) {
      if (i) grt_strbuf_puts(b, ", ");
      write_element(b, dt, data, i);
    }
    grt_strbuf_puts(b, "]}");
  } else {
    size_t bytes = (size_t)n * esize, chars;
    if (!grt_base64_encoded_len(bytes, &chars))
      return GRT_ERROR(INVALID_ARGUMENT, "tensor of %zu bytes is too big to encode", bytes);
    grt_strbuf_puts(b, ", \"base64\": \"");
    char* p = grt_strbuf_reserve(b, chars);
    if (p) {
      grt_base64_encode(data, bytes, p);
      grt_strbuf_added(b, chars);
    }
    grt_strbuf_puts(b, "\"}");
  }
  return grt_json_text_status(b);
}
