/* Pass "cse": two nodes with the same op, attrs, inputs and device compute
 * the same value; the second's readers read the first (common
 * subexpression elimination, as grappler's). ONNX imports repeat small
 * Consts everywhere (every Conv's bias shape), and constant folding makes
 * more of them.
 *
 * Compared: op, device (name and type), data inputs in order (the two of
 * a commutative op sorted), attrs by deep equality (a Const's tensor by
 * dtype, shape and bytes, up to kMaxTensorBytes; bigger ones are not
 * compared, so never merged). Left alone: fixed nodes, feed points,
 * control flow, nodes with control inputs, nodes without outputs, and
 * nodes nothing reads (graph outputs keep their names).
 *
 * Nodes are visited in dependency order, so a node's inputs are merged
 * before it is hashed and chains of duplicates collapse in one pass. The
 * kept node now has readers that did not read it before: it is marked
 * unsafe to feed (derived=false). */
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "optimizer/passes.h"

enum { kMaxTensorBytes = 1 << 20 };

static const char* const kNeverMerge[] = {
    "Placeholder", "PlaceholderWithDefault", "Switch",   "Merge", "Enter",
    "Exit",        "NextIteration",          "LoopCond", "NoOp",
};

static const char* const kCommutative[] = {
    "Add", "AddV2", "Mul", "Maximum", "Minimum", "LogicalAnd", "LogicalOr", "Equal", "NotEqual",
};

static bool in_list(const char* op, const char* const* list, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!strcmp(op, list[k])) return true;
  return false;
}

static uint64_t mix(uint64_t h, const void* p, size_t n) {
  const unsigned char* b = p;
  for (size_t k = 0; k < n; k++) h = (h ^ b[k]) * 1099511628211ull;
  return h;
}

static uint64_t mix_str(uint64_t h, const char* s) { return mix(h, s, strlen(s) + 1); }

/* Data input k of node n in comparison order (a commutative op's two
 * sorted by source and port). */
static grt_input input_at(const grt_node* n, int32_t k) {
  if (n->n_inputs == 2 &&
      in_list(n->op, kCommutative, sizeof kCommutative / sizeof *kCommutative)) {
    const grt_input* a = &n->inputs[0];
    const grt_input* b = &n->inputs[1];
    bool swap = b->src < a->src || (b->src == a->src && b->port < a->port);
    if (swap) return n->inputs[1 - k];
  }
  return n->inputs[k];
}

static bool tensor_small(const grt_tensor* t) {
  return t && grt_tensor_byte_size(t) <= kMaxTensorBytes;
}

static bool tensor_equal(const grt_tensor* a, const grt_tensor* b) {
  if (a == b) return true;
  if (!a || !b || grt_tensor_dtype(a) != grt_tensor_dtype(b)) return false;
  if (grt_tensor_rank(a) != grt_tensor_rank(b)) return false;
  for (int32_t d = 0; d < grt_tensor_rank(a); d++)
    if (grt_tensor_dim(a, d) != grt_tensor_dim(b, d)) return false;
  size_t n = grt_tensor_byte_size(a);
  return n == grt_tensor_byte_size(b) &&
         (n == 0 || !memcmp(grt_tensor_data(a), grt_tensor_data(b), n));
}

static uint64_t tensor_hash(uint64_t h, const grt_tensor* t) {
  grt_dtype dt = grt_tensor_dtype(t);
  int32_t r = grt_tensor_rank(t);
  h = mix(h, &dt, sizeof dt);
  h = mix(h, &r, sizeof r);
  for (int32_t d = 0; d < r; d++) {
    int64_t v = grt_tensor_dim(t, d);
    h = mix(h, &v, sizeof v);
  }
  /* The first bytes only, to keep hashing cheap (equality compares all). */
  size_t n = grt_tensor_byte_size(t);
  h = mix(h, &n, sizeof n);
  return mix(h, grt_tensor_data(t), n < 256 ? n : 256);
}

static bool scalar_equal(grt_attr_type t, const grt_attr_value* a, const grt_attr_value* b) {
  switch (t) {
    case GRT_ATTR_INT:
      return a->u.i == b->u.i;
    case GRT_ATTR_FLOAT:
      return !memcmp(&a->u.f, &b->u.f, sizeof a->u.f);
    case GRT_ATTR_BOOL:
      return a->u.b == b->u.b;
    case GRT_ATTR_STRING:
      return !strcmp(a->u.s, b->u.s);
    case GRT_ATTR_TYPE:
      return a->u.t == b->u.t;
    case GRT_ATTR_SHAPE:
      return a->u.shape.rank == b->u.shape.rank &&
             (a->u.shape.rank <= 0 ||
              !memcmp(a->u.shape.dims, b->u.shape.dims, (size_t)a->u.shape.rank * sizeof(int64_t)));
    case GRT_ATTR_TENSOR:
      return tensor_equal(a->u.tensor, b->u.tensor);
    default:
      return false;
  }
}

/* One element of a list attr as a scalar value, to compare with the same. */
static grt_attr_value list_item(const grt_attr_value* v, int32_t k) {
  grt_attr_value e = {.type = (grt_attr_type)(v->type & ~GRT_ATTR_LIST)};
  switch (e.type) {
    case GRT_ATTR_INT:
      e.u.i = v->u.list.v.i[k];
      break;
    case GRT_ATTR_FLOAT:
      e.u.f = v->u.list.v.f[k];
      break;
    case GRT_ATTR_BOOL:
      e.u.b = v->u.list.v.b[k];
      break;
    case GRT_ATTR_STRING:
      e.u.s = v->u.list.v.s[k];
      break;
    case GRT_ATTR_TYPE:
      e.u.t = v->u.list.v.t[k];
      break;
    case GRT_ATTR_SHAPE:
      e.u.shape = v->u.list.v.shape[k];
      break;
    case GRT_ATTR_TENSOR:
      e.u.tensor = v->u.list.v.tensor[k];
      break;
    default:
      break;
  }
  return e;
}

static bool value_equal(const grt_attr_value* a, const grt_attr_value* b) {
  if (a->type != b->type) return false;
  if (!(a->type & GRT_ATTR_LIST)) return scalar_equal(a->type, a, b);
  if (a->u.list.n != b->u.list.n) return false;
  for (int32_t k = 0; k < a->u.list.n; k++) {
    grt_attr_value x = list_item(a, k), y = list_item(b, k);
    if (!scalar_equal(x.type, &x, &y)) return false;
  }
  return true;
}

/* Whether every tensor among the node's attrs is small enough to compare. */
static bool attrs_comparable(const grt_node* n) {
  for (int32_t j = 0; j < n->n_attrs; j++) {
    const grt_attr_value* v = &n->attrs[j].value;
    if (v->type == GRT_ATTR_TENSOR && !tensor_small(v->u.tensor)) return false;
    if (v->type == GRT_ATTR_LIST_TENSOR)
      for (int32_t k = 0; k < v->u.list.n; k++)
        if (!tensor_small(v->u.list.v.tensor[k])) return false;
  }
  return true;
}

static bool same_node(grt_opt_ctx* c, int32_t a, int32_t b) {
  const grt_node* x = grt_opt_node(c, a);
  const grt_node* y = grt_opt_node(c, b);
  if (strcmp(x->op, y->op) || strcmp(x->device, y->device) || x->n_inputs != y->n_inputs ||
      x->n_attrs != y->n_attrs || strcmp(grt_opt_device_type(c, a), grt_opt_device_type(c, b)))
    return false;
  for (int32_t k = 0; k < x->n_inputs; k++) {
    grt_input ix = input_at(x, k), iy = input_at(y, k);
    if (ix.src != iy.src || ix.port != iy.port) return false;
  }
  for (int32_t j = 0; j < x->n_attrs; j++) {
    const grt_attr_value* v = grt_node_find_attr(y, x->attrs[j].name);
    if (!v || !value_equal(&x->attrs[j].value, v)) return false;
  }
  return true;
}

static uint64_t node_hash(grt_opt_ctx* c, int32_t i) {
  const grt_node* n = grt_opt_node(c, i);
  uint64_t h = 1469598103934665603ull;
  h = mix_str(h, n->op);
  h = mix_str(h, n->device);
  for (int32_t k = 0; k < n->n_inputs; k++) {
    grt_input in = input_at(n, k);
    h = mix(h, &in.src, sizeof in.src);
    h = mix(h, &in.port, sizeof in.port);
  }
  /* Attrs in any order: sum their hashes. */
  uint64_t sum = 0;
  for (int32_t j = 0; j < n->n_attrs; j++) {
    const grt_attr_value* v = &n->attrs[j].value;
    uint64_t a = mix_str(1469598103934665603ull, n->attrs[j].name);
    if (v->type == GRT_ATTR_TENSOR) a = tensor_hash(a, v->u.tensor);
    int64_t x = v->type == GRT_ATTR_INT    ? v->u.i
                : v->type == GRT_ATTR_TYPE ? (int64_t)v->u.t
                : v->type == GRT_ATTR_BOOL ? (int64_t)v->u.b
                                           : 0;
    a = mix(a, &x, sizeof x);
    sum += a;
  }
  return h ^ (sum * 0x9E3779B97F4A7C15ull);
}

static bool candidate(grt_opt_ctx* c, int32_t i) {
  const grt_node* n = grt_opt_node(c, i);
  if (grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) || n->n_controls > 0) return false;
  if (n->sig.n_outputs == 0 ||
      in_list(n->op, kNeverMerge, sizeof kNeverMerge / sizeof *kNeverMerge))
    return false;
  for (int32_t k = 0; k < n->n_inputs; k++)
    if (n->inputs[k].src < 0) return false;
  return attrs_comparable(n);
}

/* Kahn's order over data and control edges; nodes on cycles are left out. */
static int32_t topo_order(grt_opt_ctx* c, int32_t n, int32_t* order) {
  int32_t* pending = grt_calloc((size_t)n + 1, sizeof *pending);
  if (!pending) return -1;
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    const grt_node* nd = grt_opt_node(c, i);
    pending[i] = nd->n_inputs + nd->n_controls;
    if (pending[i] == 0) order[m++] = i;
  }
  for (int32_t h = 0; h < m; h++) {
    int32_t i = order[h];
    for (int32_t p = -1; p < grt_opt_node(c, i)->sig.n_outputs; p++) {
      const grt_opt_use* u = NULL;
      int32_t nu = grt_opt_uses(c, i, p, &u);
      for (int32_t k = 0; k < nu; k++)
        if (--pending[u[k].node] == 0) order[m++] = u[k].node;
    }
  }
  grt_free(pending);
  return m;
}

grt_status* grt_opt_pass_cse(grt_opt_ctx* c) {
  int32_t n = grt_opt_num_nodes(c);
  int32_t* order = grt_calloc((size_t)n + 1, sizeof *order);
  int32_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  int32_t* table = grt_malloc((size_t)cap * sizeof *table);
  uint64_t* hashes = grt_calloc((size_t)n + 1, sizeof *hashes);
  int32_t m = order && table && hashes ? topo_order(c, n, order) : -1;
  if (m < 0) {
    grt_free(order);
    grt_free(table);
    grt_free(hashes);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int32_t s = 0; s < cap; s++) table[s] = -1;
  int32_t merged = 0;
  grt_status* st = NULL;
  for (int32_t h = 0; h < m && !st; h++) {
    int32_t i = order[h];
    if (!candidate(c, i)) continue;
    const grt_opt_use* u = NULL;
    bool has_uses = grt_opt_num_data_uses(c, i) > 0 || grt_opt_uses(c, i, -1, &u) > 0;
    hashes[i] = node_hash(c, i);
    uint32_t s = (uint32_t)(hashes[i] & (uint64_t)(cap - 1));
    int32_t twin = -1;
    for (; table[s] >= 0; s = (s + 1) & (uint32_t)(cap - 1))
      if (hashes[table[s]] == hashes[i] && same_node(c, table[s], i)) {
        twin = table[s];
        break;
      }
    if (twin < 0) {
      table[s] = i;
      continue;
    }
    /* A graph output keeps its name: only nodes something reads merge. */
    if (!has_uses) continue;
    for (int32_t p = 0; p < grt_opt_node(c, i)->sig.n_outputs && !st; p++)
      st = grt_opt_replace_uses(c, i, p, twin, p, p == 0, false);
    grt_opt_kill(c, i);
    merged++;
  }
  grt_free(order);
  grt_free(table);
  grt_free(hashes);
  grt_opt_count(c, merged);
  return st;
}
