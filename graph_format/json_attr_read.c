/* Reading attr values of the JSON text form by the type the op declares:
 * the same JSON value means different things to different attrs (1 is an
 * int for one and a float for another), so the declaration decides. */
#include <math.h>
#include <string.h>

#include "graph_format/json_value.h"
#include "base/dtype.h"
#include "base/tensor.h"

const char* grt_json_kind(const json_t* j) {
  switch (json_typeof(j)) {
    case JSON_OBJECT:
      return "an object";
    case JSON_ARRAY:
      return "a list";
    case JSON_STRING:
      return "a string";
    case JSON_INTEGER:
      return "an integer";
    case JSON_REAL:
      return "a real number";
    case JSON_TRUE:
      return "true";
    case JSON_FALSE:
      return "false";
    default:
      return "null";
  }
}

grt_status* grt_json_read_shape(const json_t* j, bool allow_unknown, grt_shape* out) {
  const char* expect = allow_unknown ? "a list of ints or null" : "a list of ints";
  if (json_is_null(j) && allow_unknown) {
    out->rank = -1;
    memset(out->dims, 0, sizeof out->dims);
    return NULL;
  }
  if (!json_is_array(j))
    return GRT_ERROR(INVALID_ARGUMENT, "expected %s, got %s", expect, grt_json_kind(j));
  size_t rank = json_array_size(j);
  if (rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "rank %zu exceeds the maximum of %d", rank, GRT_MAX_RANK);
  grt_shape s = {0};
  s.rank = (int32_t)rank;
  for (size_t i = 0; i < rank; i++) {
    const json_t* d = json_array_get(j, i);
    if (!json_is_integer(d))
      return GRT_ERROR(INVALID_ARGUMENT, "expected %s, got %s at dimension %zu", expect,
                       grt_json_kind(d), i);
    int64_t v = json_integer_value(d);
    if (v < (allow_unknown ? -1 : 0))
      return GRT_ERROR(INVALID_ARGUMENT, "dimension %zu is %lld; dimensions are >= 0%s", i,
                       (long long)v, allow_unknown ? " (or -1 for unknown)" : "");
    s.dims[i] = v;
  }
  *out = s;
  return NULL;
}

/* Non-finite floats, which JSON numbers cannot hold, as the writer spells
 * them. */
static const struct {
  const char* name;
  float value;
} kSpecialFloats[] = {{"NaN", NAN}, {"Infinity", INFINITY}, {"-Infinity", -INFINITY}};

typedef grt_status* (*scalar_reader)(const json_t* j, grt_arena* arena, grt_attr_value* v);

static grt_status* read_int(const json_t* j, grt_arena* arena, grt_attr_value* v) {
  if (!json_is_integer(j))
    return GRT_ERROR(INVALID_ARGUMENT, "expected an integer, got %s", grt_json_kind(j));
  v->u.i = json_integer_value(j);
  return NULL;
}

static grt_status* read_float(const json_t* j, grt_arena* arena, grt_attr_value* v) {
  if (json_is_string(j)) {
    for (size_t k = 0; k < sizeof kSpecialFloats / sizeof kSpecialFloats[0]; k++) {
      if (strcmp(json_string_value(j), kSpecialFloats[k].name) == 0) {
        v->u.f = kSpecialFloats[k].value;
        return NULL;
      }
    }
  }
  if (!json_is_number(j))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), got %s",
                     grt_json_kind(j));
  double d = json_number_value(j);
  v->u.f = (float)d;
  if (!isfinite(v->u.f))
    return GRT_ERROR(INVALID_ARGUMENT, "%g is out of range for a float attr (float32)", d);
  return NULL;
}

static grt_status* read_bool(const json_t* j, grt_arena* arena, grt_attr_value* v) {
  if (!json_is_boolean(j))
    return GRT_ERROR(INVALID_ARGUMENT, "expected true or false, got %s", grt_json_kind(j));
  v->u.b = json_is_true(j);
  return NULL;
}

static grt_status* read_string(const json_t* j, grt_arena* arena, grt_attr_value* v) {
  if (!json_is_string(j))
    return GRT_ERROR(INVALID_ARGUMENT, "expected a string, got %s", grt_json_kind(j));
  v->u.s = grt_arena_strdup(arena, json_string_value(j));
  return v->u.s ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory copying a string");
}

static grt_status* read_type(const json_t* j, grt_arena* arena, grt_attr_value* v) {
  if (json_is_string(j) && grt_dtype_from_name(json_string_value(j), &v->u.t)) return NULL;
  return GRT_ERROR(INVALID_ARGUMENT,
                   "expected a dtype name (float16 bfloat16 float32 float64 int8 int16 int32 "
                   "int64 uint8 bool), got %s%s%s%s",
                   grt_json_kind(j), json_is_string(j) ? " '" : "",
                   json_is_string(j) ? json_string_value(j) : "", json_is_string(j) ? "'" : "");
}

static grt_status* read_shape(const json_t* j, grt_arena* arena, grt_attr_value* v) {
  return grt_json_read_shape(j, true, &v->u.shape);
}

static grt_status* read_tensor(const json_t* j, grt_arena* arena, grt_attr_value* v) {
  return grt_json_read_tensor(j, &v->u.tensor);
}

/* Per scalar attr type: how to read one. */
static const scalar_reader kScalar[] = {
    [GRT_ATTR_INT] = read_int,       [GRT_ATTR_FLOAT] = read_float, [GRT_ATTR_BOOL] = read_bool,
    [GRT_ATTR_STRING] = read_string, [GRT_ATTR_TYPE] = read_type,   [GRT_ATTR_SHAPE] = read_shape,
    [GRT_ATTR_TENSOR] = read_tensor,
};

grt_status* grt_json_read_attr(const json_t* j, grt_attr_type type, grt_arena* arena,
                               grt_attr_value* out) {
  memset(out, 0, sizeof *out);
  grt_attr_type base = (grt_attr_type)(type & ~GRT_ATTR_LIST);
  size_t esize = grt_attr_elem_size(base);
  if (!esize || (type & ~(GRT_ATTR_LIST | 0xf)))
    return GRT_ERROR(INTERNAL, "attr type %d has no JSON form", (int)type);
  if (!(type & GRT_ATTR_LIST)) {
    out->type = type;
    grt_status* s = kScalar[base](j, arena, out);
    if (s) memset(out, 0, sizeof *out);
    return s;
  }
  if (!json_is_array(j))
    return GRT_ERROR(INVALID_ARGUMENT, "expected a %s, got %s", grt_attr_type_name(type),
                     grt_json_kind(j));
  size_t n = json_array_size(j);
  if (n > INT32_MAX) return GRT_ERROR(INVALID_ARGUMENT, "list of %zu values is too long", n);
  char* items = NULL;
  if (n > 0) {
    items = grt_arena_calloc(arena, n, esize);
    if (!items) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory for a list of %zu values", n);
  }
  out->type = type;
  out->u.list.v.i = (int64_t*)(void*)items; /* every member of the union is a pointer */
  for (size_t i = 0; i < n; i++) {
    grt_attr_value one = {.type = base};
    grt_status* s = kScalar[base](json_array_get(j, i), arena, &one);
    if (s) {
      grt_attr_value_release(out);
      memset(out, 0, sizeof *out);
      return grt_status_prefix(s, "element %zu", i);
    }
    grt_attr_list_put(out, (int32_t)i, &one);
    out->u.list.n = (int32_t)i + 1;
  }
  return NULL;
}
