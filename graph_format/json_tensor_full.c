/* The full form of a tensor value: every element in "values", so a program
 * reading grt's output as an array gets the whole array (the compact form,
 * json_tensor_write.c, fills uniform tensors from one value and writes big or
 * non-finite ones as base64). */
#include <inttypes.h>
#include <math.h>

#include "graph_format/json_float.h"
#include "graph_format/json_value.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/tensor.h"

static void write_element(grt_strbuf* b, grt_dtype t, const void* data, int64_t i) {
  if (t == GRT_BOOL) {
    grt_strbuf_puts(b, grt_dtype_load_int(t, data, i) ? "true" : "false");
  } else if (grt_dtype_is_integer(t)) {
    grt_strbuf_printf(b, "%" PRId64, grt_dtype_load_int(t, data, i));
  } else {
    double v = grt_dtype_load_double(t, data, i);
    char num[GRT_JSON_FLOAT_MAX];
    size_t n = grt_json_format_float(t, v, num);
    if (n)
      grt_strbuf_append(b, num, n);
    else
      grt_strbuf_puts(b, isnan(v) ? "\"NaN\"" : v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  }
}

grt_status* grt_json_write_tensor_full(grt_strbuf* b, const grt_tensor* t) {
  grt_dtype dt = t->dtype;
  int64_t n = grt_shape_num_elements(&t->shape);
  if (!grt_dtype_valid(dt) || n < 0)
    return GRT_ERROR(INVALID_ARGUMENT, "tensor has an invalid dtype (%d) or shape", (int)dt);
  const char* data = grt_tensor_data(t);
  grt_strbuf_printf(b, "{\"dtype\": \"%s\", \"shape\": [", grt_dtype_name(dt));
  for (int32_t i = 0; i < t->shape.rank; i++)
    grt_strbuf_printf(b, "%s%" PRId64, i ? ", " : "", t->shape.dims[i]);
  grt_strbuf_puts(b, "], \"values\": [");
  for (int64_t i = 0; i < n; i++) {
    if (i) grt_strbuf_puts(b, ", ");
    write_element(b, dt, data, i);
  }
  grt_strbuf_puts(b, "]}");
  return grt_json_text_status(b);
}
