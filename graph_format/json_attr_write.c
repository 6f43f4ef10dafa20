/* Writing attr values of the JSON text form, each on one line. */
#include <inttypes.h>
#include <math.h>

#include "graph_format/json_float.h"
#include "graph_format/json_value.h"
#include "base/dtype.h"

/* Each writer takes one scalar at `p`: a member of grt_attr_value's union
 * or a list element, which are laid out the same. */
typedef grt_status* (*scalar_writer)(grt_strbuf* b, const void* p);

static grt_status* write_int(grt_strbuf* b, const void* p) {
  grt_strbuf_printf(b, "%" PRId64, *(const int64_t*)p);
  return NULL;
}

static grt_status* write_float(grt_strbuf* b, const void* p) {
  float f = *(const float*)p;
  char num[GRT_JSON_FLOAT_MAX];
  size_t n = grt_json_format_float(GRT_FLOAT32, f, num);
  if (n)
    grt_strbuf_append(b, num, n);
  else /* the spellings the reader accepts for float attrs */
    grt_strbuf_puts(b, isnan(f) ? "\"NaN\"" : f > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  return NULL;
}

static grt_status* write_bool(grt_strbuf* b, const void* p) {
  grt_strbuf_puts(b, *(const bool*)p ? "true" : "false");
  return NULL;
}

static grt_status* write_string(grt_strbuf* b, const void* p) {
  const char* s = *(const char* const*)p;
  if (!s || !grt_json_append_string(b, s))
    return GRT_ERROR(INVALID_ARGUMENT, "string is not valid UTF-8, which JSON cannot hold");
  return NULL;
}

static grt_status* write_type(grt_strbuf* b, const void* p) {
  grt_dtype t = *(const grt_dtype*)p;
  if (!grt_dtype_valid(t)) return GRT_ERROR(INVALID_ARGUMENT, "invalid dtype %d", (int)t);
  grt_strbuf_printf(b, "\"%s\"", grt_dtype_name(t));
  return NULL;
}

static grt_status* write_shape(grt_strbuf* b, const void* p) {
  const grt_shape* s = p;
  if (s->rank < 0) {
    grt_strbuf_puts(b, "null");
    return NULL;
  }
  if (s->rank > GRT_MAX_RANK) return GRT_ERROR(INVALID_ARGUMENT, "shape of rank %d", (int)s->rank);
  grt_strbuf_puts(b, "[");
  for (int32_t i = 0; i < s->rank; i++)
    grt_strbuf_printf(b, "%s%" PRId64, i ? ", " : "", s->dims[i]);
  grt_strbuf_puts(b, "]");
  return NULL;
}

static grt_status* write_tensor(grt_strbuf* b, const void* p) {
  const grt_tensor* t = *(grt_tensor* const*)p;
  if (!t) return GRT_ERROR(INVALID_ARGUMENT, "tensor attr holds no tensor");
  return grt_json_write_tensor(b, t);
}

static const scalar_writer kWriters[] = {
    [GRT_ATTR_INT] = write_int,       [GRT_ATTR_FLOAT] = write_float,
    [GRT_ATTR_BOOL] = write_bool,     [GRT_ATTR_STRING] = write_string,
    [GRT_ATTR_TYPE] = write_type,     [GRT_ATTR_SHAPE] = write_shape,
    [GRT_ATTR_TENSOR] = write_tensor,
};

grt_status* grt_json_write_attr(grt_strbuf* b, const grt_attr_value* v) {
  grt_attr_type base = (grt_attr_type)(v->type & ~GRT_ATTR_LIST);
  size_t esize = grt_attr_elem_size(base);
  if (!esize || (v->type & ~(GRT_ATTR_LIST | 0xf)))
    return GRT_ERROR(INVALID_ARGUMENT, "attr type %d has no JSON form", (int)v->type);
  if (!(v->type & GRT_ATTR_LIST)) return kWriters[base](b, &v->u);
  const char* items = (const char*)(const void*)v->u.list.v.i;
  grt_strbuf_puts(b, "[");
  for (int32_t i = 0; i < v->u.list.n; i++) {
    if (i) grt_strbuf_puts(b, ", ");
    grt_status* s = kWriters[base](b, items + (size_t)i * esize);
    if (s) return grt_status_prefix(s, "element %d", (int)i);
  }
  grt_strbuf_puts(b, "]");
  return NULL;
}
