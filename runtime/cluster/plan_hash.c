/* The hash every rank of a cluster compares after placing (DESIGN.md):
 * the graph, attr values included, so two files that differ only in a
 * constant or an attr are caught, and the device of every node. */
#include <string.h>

#include "base/tensor.h"
#include "ops/attr.h"
#include "runtime/cluster/plan_hash.h"

enum { kPrime = 0x100000001b3ull };

uint64_t grt_cluster_hash_seed(void) { return 0xcbf29ce484222325ull; }

/* FNV-1a over 8-byte words (each product folded so its high bits reach
 * the low ones), then the tail byte by byte: a constant of hundreds of MB
 * is hashed at memory speed, not one multiply per byte. */
uint64_t grt_cluster_hash_bytes(uint64_t h, const void* p, size_t n) {
  const unsigned char* b = p;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, sizeof w);
    h = (h ^ w) * kPrime;
    h ^= h >> 32;
  }
  for (; i < n; i++) h = (h ^ b[i]) * kPrime;
  return h;
}

uint64_t grt_cluster_hash_str(uint64_t h, const char* s) {
  return grt_cluster_hash_bytes(h, s ? s : "", (s ? strlen(s) : 0) + 1);
}

static uint64_t hash_shape(uint64_t h, const grt_shape* s) {
  h = grt_cluster_hash_bytes(h, &s->rank, sizeof s->rank);
  return grt_cluster_hash_bytes(h, s->dims,
                                (size_t)(s->rank > 0 ? s->rank : 0) * sizeof s->dims[0]);
}

static uint64_t hash_tensor(uint64_t h, const grt_tensor* t) {
  if (!t) return grt_cluster_hash_str(h, "(no tensor)");
  int32_t dtype = (int32_t)grt_tensor_dtype(t), rank = grt_tensor_rank(t);
  h = grt_cluster_hash_bytes(h, &dtype, sizeof dtype);
  h = grt_cluster_hash_bytes(h, &rank, sizeof rank);
  for (int32_t i = 0; i < rank; i++) {
    int64_t d = grt_tensor_dim(t, i);
    h = grt_cluster_hash_bytes(h, &d, sizeof d);
  }
  return grt_cluster_hash_bytes(h, grt_tensor_data(t), grt_tensor_byte_size(t));
}

/* One scalar value (an attr, or an element of a list attr). */
static uint64_t hash_scalar(uint64_t h, const grt_attr_value* v) {
  switch (v->type) {
    case GRT_ATTR_INT:
      return grt_cluster_hash_bytes(h, &v->u.i, sizeof v->u.i);
    case GRT_ATTR_FLOAT:
      return grt_cluster_hash_bytes(h, &v->u.f, sizeof v->u.f);
    case GRT_ATTR_BOOL:
      return grt_cluster_hash_bytes(h, &(unsigned char){v->u.b}, 1);
    case GRT_ATTR_STRING:
      return grt_cluster_hash_str(h, v->u.s);
    case GRT_ATTR_TYPE:
      return grt_cluster_hash_bytes(h, &(int32_t){(int32_t)v->u.t}, 4);
    case GRT_ATTR_SHAPE:
      return hash_shape(h, &v->u.shape);
    case GRT_ATTR_TENSOR:
      return hash_tensor(h, v->u.tensor);
    default:
      return h;
  }
}

static uint64_t hash_attr(const grt_attr* a) {
  uint64_t h = grt_cluster_hash_str(grt_cluster_hash_seed(), a->name);
  int32_t type = (int32_t)a->value.type;
  h = grt_cluster_hash_bytes(h, &type, sizeof type);
  if (!(a->value.type & GRT_ATTR_LIST)) return hash_scalar(h, &a->value);
  h = grt_cluster_hash_bytes(h, &a->value.u.list.n, sizeof a->value.u.list.n);
  for (int32_t j = 0; j < a->value.u.list.n; j++) {
    grt_attr_value item;
    grt_attr_list_get(&a->value, j, &item);
    h = hash_scalar(h, &item);
  }
  return h;
}

uint64_t grt_cluster_graph_hash(const grt_graph* g) {
  uint64_t h = grt_cluster_hash_bytes(grt_cluster_hash_seed(), &g->n_nodes, sizeof g->n_nodes);
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const grt_node* n = &g->nodes[i];
    h = grt_cluster_hash_str(grt_cluster_hash_str(grt_cluster_hash_str(h, n->name), n->op),
                             n->device);
    for (int32_t k = 0; k < n->n_inputs; k++) {
      h = grt_cluster_hash_bytes(h, &n->inputs[k].src, sizeof n->inputs[k].src);
      h = grt_cluster_hash_bytes(h, &n->inputs[k].port, sizeof n->inputs[k].port);
    }
    for (int32_t k = 0; k < n->n_controls; k++)
      h = grt_cluster_hash_bytes(h, &n->controls[k].src, sizeof n->controls[k].src);
    for (int32_t k = 0; k < n->n_colocate; k++) h = grt_cluster_hash_str(h, n->colocate_with[k]);
    /* Attrs are a set: their hashes are summed, so their order (which a
     * file's writer chooses) does not count. */
    uint64_t attrs = 0;
    for (int32_t k = 0; k < n->n_attrs; k++) attrs += hash_attr(&n->attrs[k]);
    h = grt_cluster_hash_bytes(h, &attrs, sizeof attrs);
  }
  return h;
}

uint64_t grt_cluster_plan_hash(const grt_graph* g, const grt_plan* plan) {
  uint64_t h = grt_cluster_graph_hash(g);
  for (int32_t i = 0; i < g->n_nodes; i++)
    h = grt_cluster_hash_str(h, grt_plan_node_device_name(plan, i));
  return h;
}
