/* Reading a tensor value of the JSON text form:
 *   {"dtype": "float32", "shape": [2, 2], "values": [1, 2, 3, 4]}
 *   {"dtype": "float32", "shape": [2, 2], "values": [0]}      one value fills
 *   {"dtype": "float32", "shape": [2], "base64": "AACAPwAAAEA="}  raw bytes */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "graph_format/base64.h"
#include "graph_format/json_value.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/tensor.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the base64 form holds little-endian bytes; a big-endian host needs byte swapping here"
#endif

/* The range a JSON integer must fall in for each integer dtype. */
static const struct {
  int64_t min, max;
} kIntRange[GRT_NUM_DTYPES] = {
    [GRT_INT8] = {INT8_MIN, INT8_MAX},    [GRT_INT16] = {INT16_MIN, INT16_MAX},
    [GRT_INT32] = {INT32_MIN, INT32_MAX}, [GRT_INT64] = {INT64_MIN, INT64_MAX},
    [GRT_UINT8] = {0, UINT8_MAX},
};

/* Converts one JSON value to element i of `data`. */
static grt_status* store_value(grt_dtype t, const json_t* v, void* data, int64_t i) {
  if (t == GRT_BOOL) {
    if (!json_is_boolean(v))
      return GRT_ERROR(INVALID_ARGUMENT, "expected true or false, got %s", grt_json_kind(v));
    grt_dtype_store_int(t, data, i, json_is_true(v));
    return NULL;
  }
  if (grt_dtype_is_integer(t)) {
    if (!json_is_integer(v))
      return GRT_ERROR(INVALID_ARGUMENT, "expected an integer, got %s", grt_json_kind(v));
    int64_t x = json_integer_value(v);
    if (x < kIntRange[t].min || x > kIntRange[t].max)
      return GRT_ERROR(INVALID_ARGUMENT, "%lld is out of range for %s [%lld, %lld]", (long long)x,
                       grt_dtype_name(t), (long long)kIntRange[t].min, (long long)kIntRange[t].max);
    grt_dtype_store_int(t, data, i, x);
    return NULL;
  }
  if (json_is_string(v)) {
    /* Non-finite elements as the full form writes them (json_tensor_full.c). */
    static const struct {
      const char* name;
      double value;
    } kSpecial[] = {{"NaN", NAN}, {"Infinity", INFINITY}, {"-Infinity", -INFINITY}};
    for (size_t k = 0; k < sizeof kSpecial / sizeof kSpecial[0]; k++) {
      if (strcmp(json_string_value(v), kSpecial[k].name) == 0) {
        grt_dtype_store_double(t, data, i, kSpecial[k].value);
        return NULL;
      }
    }
  }
  if (!json_is_number(v))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "expected a number, got %s (non-finite values are the strings \"NaN\", "
                     "\"Infinity\" and \"-Infinity\")",
                     grt_json_kind(v));
  double x = json_number_value(v);
  grt_dtype_store_double(t, data, i, x);
  /* A finite number that narrows to infinity is a mistake, not a value. */
  if (!isfinite(grt_dtype_load_double(t, data, i)))
    return GRT_ERROR(INVALID_ARGUMENT, "%g is out of range for %s", x, grt_dtype_name(t));
  return NULL;
}

static grt_status* fill_from_values(grt_tensor* t, const json_t* values) {
  if (!json_is_array(values))
    return GRT_ERROR(INVALID_ARGUMENT, "\"values\" must be a list, got %s", grt_json_kind(values));
  int64_t n = grt_tensor_num_elements(t);
  size_t count = json_array_size(values);
  char shape[GRT_SHAPE_STR_MAX];
  if ((int64_t)count != n && count != 1)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "\"values\" has %zu values but shape %s has %lld elements (give %lld, or 1 "
                     "to fill)",
                     count, grt_shape_str(&t->shape, shape, sizeof shape), (long long)n,
                     (long long)n);
  char* data = grt_tensor_data(t);
  size_t esize = grt_dtype_size(t->dtype);
  if ((int64_t)count == n) {
    for (size_t i = 0; i < count; i++) {
      grt_status* s = store_value(t->dtype, json_array_get(values, i), data, (int64_t)i);
      if (s) return grt_status_prefix(s, "values[%zu]", i);
    }
    return NULL;
  }
  /* One value fills the shape: convert it once, then double the filled
   * prefix until the tensor is full. */
  unsigned char one[8];
  grt_status* s = store_value(t->dtype, json_array_get(values, 0), one, 0);
  if (s) return grt_status_prefix(s, "values[0]");
  size_t bytes = grt_tensor_byte_size(t);
  if (bytes == 0) return NULL;
  memcpy(data, one, esize);
  for (size_t done = esize; done < bytes;) {
    size_t chunk = done < bytes - done ? done : bytes - done;
    memcpy(data + done, data, chunk);
    done += chunk;
  }
  return NULL;
}

/* Decodes (or with out NULL, checks) base64 text. */
static grt_status* decode_base64(const json_t* b64, void* out) {
  const char* text = json_string_value(b64);
  size_t len = json_string_length(b64);
  size_t off = 0;
  if (grt_base64_decode(text, len, out, &off)) return NULL;
  if (off == len)
    return GRT_ERROR(INVALID_ARGUMENT, "\"base64\" text length %zu is not a multiple of 4", len);
  return GRT_ERROR(INVALID_ARGUMENT, "\"base64\" is malformed at character %zu ('%c')", off,
                   text[off] >= 0x20 && text[off] < 0x7f ? text[off] : '?');
}

static grt_status* fill_from_base64(grt_tensor* t, const json_t* b64) {
  GRT_RETURN_IF_ERROR(decode_base64(b64, grt_tensor_data(t)));
  if (t->dtype == GRT_BOOL) {
    const unsigned char* p = grt_tensor_data(t);
    size_t n = grt_tensor_byte_size(t);
    for (size_t i = 0; i < n; i++)
      if (p[i] > 1)
        return GRT_ERROR(INVALID_ARGUMENT, "\"base64\" bool element %zu is %u, expected 0 or 1", i,
                         (unsigned)p[i]);
  }
  return NULL;
}

static const char* const kKeys[] = {"dtype", "shape", "values", "base64"};

grt_status* grt_json_read_tensor(const json_t* j, grt_tensor** out) {
  *out = NULL;
  if (!json_is_object(j))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "expected a tensor {\"dtype\", \"shape\", \"values\" or \"base64\"}, got %s",
                     grt_json_kind(j));
  const char* key;
  json_t* v;
  json_object_foreach((json_t*)j, key, v) {
    bool known = false;
    for (size_t k = 0; k < sizeof kKeys / sizeof kKeys[0]; k++) known |= strcmp(key, kKeys[k]) == 0;
    if (!known)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "tensor: unknown key '%s' (expected dtype, shape, values or base64)", key);
  }
  const json_t* jd = json_object_get(j, "dtype");
  const json_t* js = json_object_get(j, "shape");
  const json_t* jv = json_object_get(j, "values");
  const json_t* jb = json_object_get(j, "base64");
  if (!jd) return GRT_ERROR(INVALID_ARGUMENT, "tensor: missing \"dtype\"");
  grt_dtype dtype;
  if (!json_is_string(jd) || !grt_dtype_from_name(json_string_value(jd), &dtype))
    return GRT_ERROR(
        INVALID_ARGUMENT,
        "tensor: \"dtype\" must be a dtype name (float16 bfloat16 float32 float64 int8 "
        "int16 int32 int64 uint8 bool), got %s%s%s%s",
        grt_json_kind(jd), json_is_string(jd) ? " '" : "",
        json_is_string(jd) ? json_string_value(jd) : "", json_is_string(jd) ? "'" : "");
  if (!js) return GRT_ERROR(INVALID_ARGUMENT, "tensor: missing \"shape\"");
  grt_shape shape;
  grt_status* s = grt_json_read_shape(js, false, &shape);
  if (s) return grt_status_prefix(s, "tensor: \"shape\"");
  if (!jv == !jb)
    return GRT_ERROR(INVALID_ARGUMENT, "tensor: needs exactly one of \"values\" and \"base64\"");
  size_t bytes;
  char shape_str[GRT_SHAPE_STR_MAX];
  grt_shape_str(&shape, shape_str, sizeof shape_str);
  if (!grt_tensor_bytes_for(dtype, &shape, &bytes) || bytes > GRT_JSON_MAX_TENSOR_BYTES)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "tensor: %s %s is larger than the text form's limit of %zu bytes",
                     grt_dtype_name(dtype), shape_str, GRT_JSON_MAX_TENSOR_BYTES);
  if (jb) {
    /* Check the text and its length before allocating. */
    size_t have;
    if (!json_is_string(jb))
      return GRT_ERROR(INVALID_ARGUMENT, "tensor: \"base64\" must be a string, got %s",
                       grt_json_kind(jb));
    s = decode_base64(jb, NULL);
    if (s) return grt_status_prefix(s, "tensor");
    grt_base64_decoded_len(json_string_value(jb), json_string_length(jb), &have);
    if (have != bytes)
      return GRT_ERROR(INVALID_ARGUMENT, "tensor: \"base64\" holds %zu bytes but %s %s needs %zu",
                       have, grt_dtype_name(dtype), shape_str, bytes);
  }
  grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_tensor_new_from(grt_host_allocator(), dtype, &shape, &t));
  s = jb ? fill_from_base64(t, jb) : fill_from_values(t, jv);
  if (s) {
    grt_tensor_free(t);
    return grt_status_prefix(s, "tensor");
  }
  *out = t;
  return NULL;
}
