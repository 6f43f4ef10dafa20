/* grt_copy_node: a node into another graph, attrs copied into its arena. */
#include "ops/node_copy.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/attr.h"

grt_status* grt_attr_value_copy(grt_arena* a, const grt_attr_value* v, grt_attr_value* out) {
  *out = *v;
  if (v->type == GRT_ATTR_STRING) {
    out->u.s = grt_arena_strdup(a, v->u.s ? v->u.s : "");
    return out->u.s ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory copying an attr");
  }
  if (v->type == GRT_ATTR_TENSOR) {
    out->u.tensor = grt_tensor_ref(v->u.tensor);
    return NULL;
  }
  if (!(v->type & GRT_ATTR_LIST)) return NULL;
  grt_attr_type base = (grt_attr_type)(v->type & ~GRT_ATTR_LIST);
  size_t esize = grt_attr_elem_size(base);
  int32_t n = v->u.list.n;
  void* arr = n > 0 ? grt_arena_alloc(a, esize * (size_t)n) : NULL;
  if (n > 0 && !arr) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory copying an attr");
  if (n > 0) memcpy(arr, v->u.list.v.i, esize * (size_t)n);
  out->u.list.v.i = arr;
  for (int32_t j = 0; j < n && base == GRT_ATTR_STRING; j++) {
    out->u.list.v.s[j] = grt_arena_strdup(a, v->u.list.v.s[j] ? v->u.list.v.s[j] : "");
    if (!out->u.list.v.s[j]) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory copying an attr");
  }
  for (int32_t j = 0; j < n && base == GRT_ATTR_TENSOR; j++)
    grt_tensor_ref(out->u.list.v.tensor[j]);
  return NULL;
}

grt_status* grt_copy_node(grt_graph* dst, const grt_graph* src, int32_t i, const char* name,
                          const char* device, grt_copy_rename_fn rename, void* ctx,
                          int32_t* out_index) {
  const grt_node* n = &src->nodes[i];
  int32_t k = -1;
  char buf[1024], spec[1030];
  GRT_RETURN_IF_ERROR(grt_graph_add_node(dst, name, n->op, &k));
  *out_index = k;
  grt_status* st = grt_graph_set_device(dst, k, device ? device : n->device);
  for (int32_t j = 0; !st && j < n->n_inputs; j++) {
    rename(ctx, n->inputs[j].node, n->inputs[j].port, buf, sizeof buf);
    st = grt_graph_add_input(dst, k, buf);
  }
  for (int32_t j = 0; !st && j < n->n_controls; j++) {
    rename(ctx, n->controls[j].node, -1, buf, sizeof buf);
    snprintf(spec, sizeof spec, "^%s", buf);
    st = grt_graph_add_input(dst, k, spec);
  }
  for (int32_t j = 0; !st && j < n->n_colocate; j++) {
    rename(ctx, n->colocate_with[j], -1, buf, sizeof buf);
    st = grt_graph_add_colocation(dst, k, buf);
  }
  for (int32_t j = 0; !st && j < n->n_attrs; j++) {
    grt_attr_value v;
    st = grt_attr_value_copy(dst->arena, &n->attrs[j].value, &v);
    if (!st) st = grt_graph_set_attr_value(dst, k, n->attrs[j].name, &v);
  }
  return st ? grt_status_prefix(st, "copying node '%s'", n->name) : NULL;
}

void grt_copy_rename_same(void* ctx, const char* node, int32_t port, char* buf, size_t size) {
  (void)ctx;
  if (port > 0)
    snprintf(buf, size, "%s:%d", node, (int)port);
  else
    snprintf(buf, size, "%s", node);
}
