/* Attr type names, as op specs and error messages spell them, and the typed
 * reads every layer shares. */
#include "ops/attr.h"

#include <string.h>

#include "base/status.h"
#include "ops/graph.h"
#include "ops/op_def.h"

/* Indexed by the scalar kind (GRT_ATTR_INT..GRT_ATTR_TENSOR). */
static const char* const kScalarNames[] = {
    [GRT_ATTR_INT] = "int",       [GRT_ATTR_FLOAT] = "float", [GRT_ATTR_BOOL] = "bool",
    [GRT_ATTR_STRING] = "string", [GRT_ATTR_TYPE] = "type",   [GRT_ATTR_SHAPE] = "shape",
    [GRT_ATTR_TENSOR] = "tensor",
};

static const char* const kListNames[] = {
    [GRT_ATTR_INT] = "list(int)",       [GRT_ATTR_FLOAT] = "list(float)",
    [GRT_ATTR_BOOL] = "list(bool)",     [GRT_ATTR_STRING] = "list(string)",
    [GRT_ATTR_TYPE] = "list(type)",     [GRT_ATTR_SHAPE] = "list(shape)",
    [GRT_ATTR_TENSOR] = "list(tensor)",
};

bool grt_attr_type_valid(int t) {
  int base = t & ~GRT_ATTR_LIST;
  if ((t & ~(GRT_ATTR_LIST | 0x0f)) != 0) return false;
  return base >= GRT_ATTR_INT && base <= GRT_ATTR_TENSOR;
}

const char* grt_attr_type_name(grt_attr_type t) {
  if (t == GRT_ATTR_NONE) return "none";
  if (!grt_attr_type_valid((int)t)) return "invalid";
  int base = (int)t & ~GRT_ATTR_LIST;
  return ((int)t & GRT_ATTR_LIST) ? kListNames[base] : kScalarNames[base];
}

static const size_t kElemSize[] = {
    [GRT_ATTR_INT] = sizeof(int64_t),        [GRT_ATTR_FLOAT] = sizeof(float),
    [GRT_ATTR_BOOL] = sizeof(bool),          [GRT_ATTR_STRING] = sizeof(const char*),
    [GRT_ATTR_TYPE] = sizeof(grt_dtype),     [GRT_ATTR_SHAPE] = sizeof(grt_shape),
    [GRT_ATTR_TENSOR] = sizeof(grt_tensor*),
};

size_t grt_attr_elem_size(grt_attr_type base) {
  if (base < GRT_ATTR_INT || base > GRT_ATTR_TENSOR) return 0;
  return kElemSize[base];
}

void grt_attr_list_put(grt_attr_value* list, int32_t j, const grt_attr_value* item) {
  size_t esize = grt_attr_elem_size((grt_attr_type)(list->type & ~GRT_ATTR_LIST));
  /* Every member of the union starts at its address: the scalar's bytes
   * are the first esize bytes of item->u, and every list array member is
   * the same pointer. */
  memcpy((char*)(void*)list->u.list.v.i + (size_t)j * esize, &item->u, esize);
}

void grt_attr_list_get(const grt_attr_value* list, int32_t j, grt_attr_value* item) {
  grt_attr_type base = (grt_attr_type)(list->type & ~GRT_ATTR_LIST);
  size_t esize = grt_attr_elem_size(base);
  memset(item, 0, sizeof *item);
  item->type = base;
  memcpy(&item->u, (const char*)(const void*)list->u.list.v.i + (size_t)j * esize, esize);
}

void grt_attr_value_release(grt_attr_value* v) {
  if (v->type == GRT_ATTR_TENSOR) {
    grt_tensor_free(v->u.tensor);
    v->u.tensor = NULL;
  } else if (v->type == GRT_ATTR_LIST_TENSOR) {
    for (int32_t i = 0; i < v->u.list.n; i++) {
      grt_tensor_free(v->u.list.v.tensor[i]);
      v->u.list.v.tensor[i] = NULL;
    }
  }
}

const grt_attr_value* grt_attr_lookup(const grt_node* node, const grt_op_def* def,
                                      const char* name) {
  const grt_attr_value* v = node ? grt_node_find_attr(node, name) : NULL;
  if (v || !def) return v;
  const grt_attr_def* ad = grt_op_find_attr(def, name);
  return ad && ad->has_default ? &ad->default_value : NULL;
}

grt_status* grt_attr_get(const grt_attr_value* v, const char* name, grt_attr_type want,
                         const grt_attr_value** out) {
  if (!v) return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' is missing", name);
  if (v->type != want)
    return GRT_ERROR(INVALID_ARGUMENT, "attr '%s' must be %s, got %s", name,
                     grt_attr_type_name(want), grt_attr_type_name(v->type));
  *out = v;
  return NULL;
}

grt_status* grt_attr_get_int(const grt_attr_value* v, const char* name, int64_t* out) {
  GRT_RETURN_IF_ERROR(grt_attr_get(v, name, GRT_ATTR_INT, &v));
  *out = v->u.i;
  return NULL;
}

grt_status* grt_attr_get_float(const grt_attr_value* v, const char* name, float* out) {
  GRT_RETURN_IF_ERROR(grt_attr_get(v, name, GRT_ATTR_FLOAT, &v));
  *out = v->u.f;
  return NULL;
}

grt_status* grt_attr_get_bool(const grt_attr_value* v, const char* name, bool* out) {
  GRT_RETURN_IF_ERROR(grt_attr_get(v, name, GRT_ATTR_BOOL, &v));
  *out = v->u.b;
  return NULL;
}

grt_status* grt_attr_get_string(const grt_attr_value* v, const char* name, const char** out) {
  GRT_RETURN_IF_ERROR(grt_attr_get(v, name, GRT_ATTR_STRING, &v));
  *out = v->u.s ? v->u.s : "";
  return NULL;
}

grt_status* grt_attr_get_type(const grt_attr_value* v, const char* name, grt_dtype* out) {
  GRT_RETURN_IF_ERROR(grt_attr_get(v, name, GRT_ATTR_TYPE, &v));
  *out = v->u.t;
  return NULL;
}

grt_status* grt_attr_get_tensor(const grt_attr_value* v, const char* name, const grt_tensor** out) {
  GRT_RETURN_IF_ERROR(grt_attr_get(v, name, GRT_ATTR_TENSOR, &v));
  *out = v->u.tensor;
  return NULL;
}

grt_status* grt_attr_get_int_list(const grt_attr_value* v, const char* name, const int64_t** out,
                                  int32_t* out_n) {
  GRT_RETURN_IF_ERROR(grt_attr_get(v, name, GRT_ATTR_LIST_INT, &v));
  *out = v->u.list.v.i;
  *out_n = v->u.list.n > 0 ? v->u.list.n : 0;
  return NULL;
}
