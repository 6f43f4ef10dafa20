/* grt_graph_validate: every structural, attr, type and shape fault, naming
 * the node at fault. Runs in O(nodes + edges); a 100k-node graph is a few
 * milliseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/checked.h"
#include "base/device_name.h"
#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/graph.h"
#include "ops/op_def.h"

#define NODE_ERR(code, n, fmt, ...) \
  GRT_ERROR(code, "node '%s' (%s): " fmt, (n)->name, (n)->op, __VA_ARGS__)

/* Attr values set on the node must be declared by the op, of the declared
 * type, within the allowed dtypes and minimum; declared attrs without a
 * default must be present. */
static grt_status* check_attrs(const grt_node* n, const grt_op_def* def) {
  for (int32_t i = 0; i < n->n_attrs; i++) {
    const grt_attr* a = &n->attrs[i];
    const grt_attr_def* ad = grt_op_find_attr(def, a->name);
    if (!ad)
      return NODE_ERR(INVALID_ARGUMENT, n, "attr '%s' is not an attr of %s", a->name, def->name);
    if (a->value.type != ad->type)
      return NODE_ERR(INVALID_ARGUMENT, n, "attr '%s' must be %s, got %s", a->name,
                      grt_attr_type_name(ad->type), grt_attr_type_name(a->value.type));
    if (ad->type == GRT_ATTR_TYPE || ad->type == GRT_ATTR_LIST_TYPE) {
      int32_t count = ad->type == GRT_ATTR_TYPE ? 1 : a->value.u.list.n;
      for (int32_t k = 0; k < count; k++) {
        grt_dtype t = ad->type == GRT_ATTR_TYPE ? a->value.u.t : a->value.u.list.v.t[k];
        if (!grt_dtype_valid(t))
          return NODE_ERR(INVALID_ARGUMENT, n, "attr '%s' holds an invalid dtype %d", a->name,
                          (int)t);
        if (ad->allowed_types && !(ad->allowed_types & grt_dtype_bit(t)))
          return NODE_ERR(INVALID_ARGUMENT, n,
                          "attr '%s' is %s, which %s does not allow (dtype constraint violated)",
                          a->name, grt_dtype_name(t), def->name);
      }
    }
    if (ad->has_minimum) {
      int64_t v = ad->type == GRT_ATTR_INT     ? a->value.u.i
                  : (ad->type & GRT_ATTR_LIST) ? a->value.u.list.n
                                               : ad->minimum;
      if (v < ad->minimum)
        return NODE_ERR(INVALID_ARGUMENT, n, "attr '%s' is %lld, must be >= %lld", a->name,
                        (long long)v, (long long)ad->minimum);
    }
    if (ad->type == GRT_ATTR_SHAPE && a->value.u.shape.rank > GRT_MAX_RANK)
      return NODE_ERR(INVALID_ARGUMENT, n, "attr '%s' has rank %d, above the maximum %d", a->name,
                      (int)a->value.u.shape.rank, GRT_MAX_RANK);
  }
  for (int32_t i = 0; i < def->n_attrs; i++) {
    const grt_attr_def* ad = &def->attrs[i];
    if (!ad->has_default && !grt_node_find_attr(n, ad->name))
      return NODE_ERR(INVALID_ARGUMENT, n, "missing attr '%s' (%s)", ad->name,
                      grt_attr_type_name(ad->type));
  }
  /* A constant's value must carry the dtype the node declares. */
  const grt_attr_value* value = grt_node_find_attr(n, "value");
  const grt_attr_value* dtype = grt_node_attr(n, "dtype");
  if (value && value->type == GRT_ATTR_TENSOR && dtype && dtype->type == GRT_ATTR_TYPE &&
      value->u.tensor->dtype != dtype->u.t)
    return NODE_ERR(INVALID_ARGUMENT, n, "attr 'value' is a %s tensor but attr 'dtype' is %s",
                    grt_dtype_name(value->u.tensor->dtype), grt_dtype_name(dtype->u.t));
  return NULL;
}

static grt_status* resolve(const grt_graph* g, const grt_node* n, grt_input* in, const char* what) {
  int32_t src = grt_strmap_get(&g->by_name, in->node);
  if (src < 0)
    return NODE_ERR(NOT_FOUND, n, "%s '%s%s' names a node that does not exist", what,
                    in->port < 0 ? "^" : "", in->node);
  in->src = src;
  return NULL;
}

/* Inputs must exist, match the op's arity, have ports in range, carry the
 * dtypes the op expects, and feed a reference input only from a reference. */
static grt_status* check_inputs(grt_graph* g, grt_node* n) {
  if (n->n_inputs != n->sig.n_inputs)
    return NODE_ERR(INVALID_ARGUMENT, n, "expects %d data inputs, has %d", (int)n->sig.n_inputs,
                    (int)n->n_inputs);
  for (int32_t i = 0; i < n->n_inputs; i++) {
    grt_input* in = &n->inputs[i];
    const grt_node* src = &g->nodes[in->src];
    if (in->port >= src->sig.n_outputs)
      return NODE_ERR(OUT_OF_RANGE, n, "input %d '%s:%d': node '%s' (%s) has only %d output%s",
                      (int)i, in->node, (int)in->port, src->name, src->op, (int)src->sig.n_outputs,
                      src->sig.n_outputs == 1 ? "" : "s");
    grt_dtype have = src->sig.output_types[in->port];
    grt_dtype want = n->sig.input_types[i];
    if (have != want)
      return NODE_ERR(INVALID_ARGUMENT, n, "input %d '%s:%d' is %s, expected %s", (int)i, in->node,
                      (int)in->port, grt_dtype_name(have), grt_dtype_name(want));
    if (n->sig.input_is_ref[i] && !src->sig.output_is_ref[in->port])
      return NODE_ERR(INVALID_ARGUMENT, n,
                      "input %d '%s:%d' must be a reference (a variable), but %s gives a value",
                      (int)i, in->node, (int)in->port, src->op);
  }
  return NULL;
}

/* Resolves every input, control input and colocation name to a node. */
static grt_status* resolve_edges(grt_graph* g, grt_node* n) {
  for (int32_t i = 0; i < n->n_inputs; i++)
    GRT_RETURN_IF_ERROR(resolve(g, n, &n->inputs[i], "input"));
  for (int32_t i = 0; i < n->n_controls; i++)
    GRT_RETURN_IF_ERROR(resolve(g, n, &n->controls[i], "control input"));
  for (int32_t i = 0; i < n->n_colocate; i++) {
    if (grt_strmap_get(&g->by_name, n->colocate_with[i]) < 0)
      return NODE_ERR(NOT_FOUND, n, "colocate_with names '%s', which does not exist",
                      n->colocate_with[i]);
  }
  return NULL;
}

/* TensorFlow's Python layer fills in a node's type attrs ("T") and list
 * lengths ("N") from its inputs; the text form may leave them out likewise
 * (the example in docs/json-format.md does). Inputs are visited in topological
 * order, so producers already have their output dtypes. Only attrs without
 * a default are inferred; what cannot be inferred is left for check_attrs
 * to report as missing. */
static grt_status* infer_attrs(grt_graph* g, int32_t index) {
  grt_node* n = &g->nodes[index];
  const grt_op_def* def = n->def;
  int32_t list_args = 0, fixed = 0;
  for (int32_t a = 0; a < def->n_inputs; a++) {
    if (def->inputs[a].number_attr)
      list_args++;
    else
      fixed++;
  }
  int32_t offset = 0;
  for (int32_t a = 0; a < def->n_inputs; a++) {
    const grt_arg_def* arg = &def->inputs[a];
    int32_t count = 1;
    if (arg->number_attr) {
      const grt_attr_value* nv = grt_node_attr(n, arg->number_attr);
      if (nv && nv->type == GRT_ATTR_INT) {
        count = nv->u.i > 0 && nv->u.i < INT32_MAX ? (int32_t)nv->u.i : 0;
      } else if (!nv && list_args == 1 && n->n_inputs > fixed) {
        count = n->n_inputs - fixed;
        grt_attr_value v = {.type = GRT_ATTR_INT, .u.i = count};
        GRT_RETURN_IF_ERROR(grt_graph_set_attr_value(g, index, arg->number_attr, &v));
      } else {
        return NULL; /* offsets of later args are unknown */
      }
    }
    if (arg->type_attr && count > 0 && offset < n->n_inputs && !grt_node_attr(n, arg->type_attr)) {
      const grt_input* in = &n->inputs[offset];
      const grt_node* src = &g->nodes[in->src];
      if (in->port >= 0 && in->port < src->sig.n_outputs) {
        grt_attr_value v = {.type = GRT_ATTR_TYPE, .u.t = src->sig.output_types[in->port]};
        GRT_RETURN_IF_ERROR(grt_graph_set_attr_value(g, index, arg->type_attr, &v));
      }
    }
    offset += count;
  }
  return NULL;
}

/* Kahn's algorithm over data and control edges. On a cycle, walks back from
 * a node that never became ready to name the nodes on the cycle. */
static grt_status* topo_order(const grt_graph* g, int32_t* order) {
  int32_t nn = g->n_nodes;
  int32_t* pending = grt_calloc((size_t)nn + 1, sizeof *pending);
  int32_t* out_start = grt_calloc((size_t)nn + 1, sizeof *out_start);
  size_t edges = 0;
  for (int32_t i = 0; i < nn; i++) edges += (size_t)g->nodes[i].n_inputs + g->nodes[i].n_controls;
  int32_t* out_edges = grt_malloc((edges + 1) * sizeof *out_edges);
  int32_t* fill = grt_calloc((size_t)nn + 1, sizeof *fill);
  if (!pending || !out_start || !out_edges || !fill) {
    grt_free(pending);
    grt_free(out_start);
    grt_free(out_edges);
    grt_free(fill);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory ordering %d nodes", (int)nn);
  }
  /* Consumers of each node in CSR form. */
  for (int32_t i = 0; i < nn; i++) {
    const grt_node* n = &g->nodes[i];
    for (int32_t k = 0; k < n->n_inputs; k++) out_start[n->inputs[k].src + 1]++;
    for (int32_t k = 0; k < n->n_controls; k++) out_start[n->controls[k].src + 1]++;
    pending[i] = n->n_inputs + n->n_controls;
  }
  for (int32_t i = 0; i < nn; i++) out_start[i + 1] += out_start[i];
  for (int32_t i = 0; i < nn; i++) {
    const grt_node* n = &g->nodes[i];
    for (int32_t k = 0; k < n->n_inputs; k++) {
      int32_t s = n->inputs[k].src;
      out_edges[out_start[s] + fill[s]++] = i;
    }
    for (int32_t k = 0; k < n->n_controls; k++) {
      int32_t s = n->controls[k].src;
      out_edges[out_start[s] + fill[s]++] = i;
    }
  }
  int32_t head = 0, tail = 0;
  for (int32_t i = 0; i < nn; i++)
    if (pending[i] == 0) order[tail++] = i;
  while (head < tail) {
    int32_t v = order[head++];
    for (int32_t e = out_start[v]; e < out_start[v + 1]; e++)
      if (--pending[out_edges[e]] == 0) order[tail++] = out_edges[e];
  }
  grt_status* s = NULL;
  if (tail < nn) {
    /* Every unfinished node has an unfinished input; follow them until one
     * repeats: that stretch is a cycle. `fill` marks the step of the visit. */
    int32_t v = -1;
    for (int32_t i = 0; i < nn && v < 0; i++)
      if (pending[i] > 0) v = i;
    memset(fill, 0, ((size_t)nn + 1) * sizeof *fill);
    int32_t step = 1;
    while (!fill[v]) {
      fill[v] = step++;
      const grt_node* n = &g->nodes[v];
      int32_t next = -1;
      for (int32_t k = 0; k < n->n_inputs && next < 0; k++)
        if (pending[n->inputs[k].src] > 0) next = n->inputs[k].src;
      for (int32_t k = 0; k < n->n_controls && next < 0; k++)
        if (pending[n->controls[k].src] > 0) next = n->controls[k].src;
      v = next;
    }
    /* v starts the cycle; walk it again to print it in edge direction. */
    char path[1024];
    size_t len = 0;
    int32_t start = v, count = 0;
    int32_t* cyc = out_edges; /* reuse: cycle nodes in walk order (against edges) */
    do {
      cyc[count++] = v;
      const grt_node* n = &g->nodes[v];
      int32_t next = -1;
      for (int32_t k = 0; k < n->n_inputs && next < 0; k++)
        if (pending[n->inputs[k].src] > 0 && fill[n->inputs[k].src]) next = n->inputs[k].src;
      for (int32_t k = 0; k < n->n_controls && next < 0; k++)
        if (pending[n->controls[k].src] > 0 && fill[n->controls[k].src]) next = n->controls[k].src;
      v = next;
    } while (v != start && v >= 0 && count < nn);
    /* Print in edge direction, starting from the cycle's first node in
     * graph order so the message does not depend on where the walk began. */
    int32_t first = 0;
    for (int32_t k = 1; k < count; k++)
      if (cyc[k] < cyc[first]) first = k;
    for (int32_t j = 0; j <= count && len < sizeof path - 64; j++) {
      int32_t id = cyc[((first - j) % count + count) % count];
      len += (size_t)snprintf(path + len, sizeof path - len, "%s'%s'", len ? " -> " : "",
                              g->nodes[id].name);
    }
    s = GRT_ERROR(INVALID_ARGUMENT, "graph has a cycle through data or control edges: %s", path);
  }
  grt_free(pending);
  grt_free(out_start);
  grt_free(out_edges);
  grt_free(fill);
  return s;
}

/* An output whose shape is fully known must have a byte size that fits:
 * a shape from constants such as [2147483647, 2147483647] fails here, at
 * load, naming the node and the shape, rather than as a wrapped size later. */
static grt_status* check_output_sizes(const grt_node* n) {
  for (int32_t k = 0; k < n->sig.n_outputs; k++) {
    const grt_shape* sh = &n->sig.output_shapes[k];
    size_t bytes;
    if (!grt_shape_fully_known(sh) || !grt_dtype_valid(n->sig.output_types[k])) continue;
    grt_status* s = grt_checked_shape_bytes(n->sig.output_types[k], sh, &bytes);
    if (s) return grt_status_prefix(s, "node '%s' (%s): output %d", n->name, n->op, (int)k);
  }
  return NULL;
}

/* Runs node n's shape function on its inputs' shapes (inputs' nodes already
 * have theirs), constants from Const nodes or, when given, value_of. */
static grt_status* infer_node_shapes(grt_graph* g, grt_node* n, grt_value_fn value_of, void* user) {
  enum { kMaxStack = 64 };
  grt_shape shapes_stack[kMaxStack];
  grt_dtype types_stack[kMaxStack];
  const grt_tensor* values_stack[kMaxStack];
  for (int32_t k = 0; k < n->sig.n_outputs; k++) n->sig.output_shapes[k] = grt_shape_unknown();
  if (!n->def->shape_fn) return NULL;
  int32_t ni = n->n_inputs;
  grt_shape* shapes = shapes_stack;
  grt_dtype* types = types_stack;
  const grt_tensor** values = values_stack;
  if (ni > kMaxStack) {
    shapes = grt_arena_calloc(g->arena, (size_t)ni, sizeof *shapes);
    types = grt_arena_calloc(g->arena, (size_t)ni, sizeof *types);
    values = grt_arena_calloc(g->arena, (size_t)ni, sizeof *values);
    if (!shapes || !types || !values)
      return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory inferring shapes");
  }
  for (int32_t k = 0; k < ni; k++) {
    const grt_node* src = &g->nodes[n->inputs[k].src];
    shapes[k] = src->sig.output_shapes[n->inputs[k].port];
    types[k] = src->sig.output_types[n->inputs[k].port];
    values[k] = NULL;
    if (strcmp(src->op, "Const") == 0) {
      const grt_attr_value* v = grt_node_find_attr(src, "value");
      if (v && v->type == GRT_ATTR_TENSOR) values[k] = v->u.tensor;
    } else if (value_of) {
      values[k] = value_of(user, n->inputs[k].src, n->inputs[k].port);
    }
  }
  grt_shape_ctx ctx = {
      n, n->def, ni, shapes, types, values, n->sig.n_outputs, n->sig.output_shapes};
  grt_status* s = n->def->shape_fn(&ctx);
  if (s) return grt_status_prefix(s, "node '%s' (%s)", n->name, n->op);
  for (int32_t k = 0; k < n->sig.n_outputs; k++)
    if (n->sig.output_shapes[k].rank > GRT_MAX_RANK)
      return NODE_ERR(INVALID_ARGUMENT, n, "output %d would have rank %d, above the maximum %d",
                      (int)k, (int)n->sig.output_shapes[k].rank, GRT_MAX_RANK);
  return check_output_sizes(n);
}

static grt_status* infer_shapes(grt_graph* g, const int32_t* order) {
  for (int32_t o = 0; o < g->n_nodes; o++)
    GRT_RETURN_IF_ERROR(infer_node_shapes(g, &g->nodes[order[o]], NULL, NULL));
  return NULL;
}

grt_status* grt_graph_infer_node(grt_graph* g, int32_t index, grt_value_fn value_of, void* user) {
  if (!g || index < 0 || index >= g->n_nodes)
    return GRT_ERROR(INVALID_ARGUMENT, "grt_graph_infer_node: no node %d", (int)index);
  grt_node* n = &g->nodes[index];
  const grt_op_def* def = grt_op_lookup(n->op);
  if (!def)
    return GRT_ERROR(NOT_FOUND, "node '%s': unknown op '%s' (no op of that name is registered)",
                     n->name, n->op);
  n->def = def;
  GRT_RETURN_IF_ERROR(resolve_edges(g, n));
  for (int32_t i = 0; i < n->n_inputs; i++)
    if (n->inputs[i].src >= index || !g->nodes[n->inputs[i].src].def)
      return NODE_ERR(INVALID_ARGUMENT, n, "input %d '%s' is not a node inferred before it", (int)i,
                      n->inputs[i].node);
  g->validated = false;
  GRT_RETURN_IF_ERROR(infer_attrs(g, index));
  n = &g->nodes[index];
  GRT_RETURN_IF_ERROR(check_attrs(n, n->def));
  GRT_RETURN_IF_ERROR(grt_node_compute_signature(g, n, n->def));
  GRT_RETURN_IF_ERROR(check_inputs(g, n));
  return infer_node_shapes(g, n, value_of, user);
}

grt_status* grt_graph_validate(grt_graph* g) {
  if (!g) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph");
  /* The registry failing to build is a bug (INTERNAL), unless it ran out
   * of memory, which stays RESOURCE_EXHAUSTED. */
  const grt_status* reg = grt_op_registry_status();
  if (reg)
    return grt_status_new(
        grt_status_code(reg) == GRT_RESOURCE_EXHAUSTED ? GRT_RESOURCE_EXHAUSTED : GRT_INTERNAL,
        "op registry failed to build: %s", grt_status_message(reg));
  g->validated = false;
  /* Pass 1, in graph order: ops, device specs, edges. Most nodes of a graph
   * share their device spec with the node before: a spec equal to the last
   * one that parsed is not parsed again (~0.3 ms of a 10k-node load). */
  const char* parsed = NULL;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    grt_node* n = &g->nodes[i];
    const grt_op_def* def = grt_op_lookup(n->op);
    if (!def)
      return GRT_ERROR(NOT_FOUND, "node '%s': unknown op '%s' (no op of that name is registered)",
                       n->name, n->op);
    n->def = def;
    if (n->device[0] && !(parsed && strcmp(parsed, n->device) == 0)) {
      grt_device_name dn;
      grt_status* s = grt_device_name_parse(n->device, &dn);
      if (s) return grt_status_prefix(s, "node '%s' (%s)", n->name, n->op);
      parsed = n->device;
    }
    GRT_RETURN_IF_ERROR(resolve_edges(g, n));
  }
  int32_t* order = grt_malloc(((size_t)g->n_nodes + 1) * sizeof *order);
  if (!order) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory validating the graph");
  /* Pass 2: no cycles. Pass 3, producers first: attrs, signatures, input
   * types, then shapes. */
  grt_status* s = topo_order(g, order);
  for (int32_t o = 0; !s && o < g->n_nodes; o++) {
    grt_node* n = &g->nodes[order[o]];
    s = infer_attrs(g, order[o]);
    if (!s) s = check_attrs(n, n->def);
    if (!s) s = grt_node_compute_signature(g, n, n->def);
    if (!s) s = check_inputs(g, n);
  }
  if (!s) s = infer_shapes(g, order);
  grt_free(order);
  if (!s) g->validated = true;
  return s;
}
