/* grt_graph_replicate: towers over a split batch with shared variables
 * (include/grt/parallel.h).
 *
 * The tower part is every node the outputs depend on (data and control
 * edges, backwards), stopping at the inputs' nodes and at variables: what
 * the seeds' make_parallel builds inside `fn`. Every other node is copied
 * once, unchanged but for the variables' devices. */
#include "grt/parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strmap.h"
#include "ops/graph.h"
#include "ops/op_def.h"
#include "ops/node_copy.h"
#include "placer/ps_setter.h"

#define SPLIT_SCOPE "tower_split"
#define CONCAT_SCOPE "tower_concat"

typedef struct {
  grt_graph* g; /* the input */
  const grt_replicate_options* o;
  int32_t* in_node; /* per input: node and port */
  int32_t* in_port;
  bool* tower;     /* per node: in the tower part */
  bool* is_output; /* per node */
  bool* mirror;    /* per node: a variable the towers use, copied per tower (mirrored) */
  int32_t k;       /* the tower being copied (rename) */
} rep;

static bool is_variable(const grt_node* n) { return n->def && (n->def->flags & GRT_OP_VARIABLE); }

static grt_status* resolve(const grt_graph* g, const char* spec, const char* what, int32_t* node,
                           int32_t* port) {
  const char* name;
  size_t len;
  bool control;
  if (!spec || !grt_parse_input_spec(spec, &name, &len, port, &control) || control)
    return GRT_ERROR(INVALID_ARGUMENT, "%s '%s' is not a tensor name", what,
                     spec ? spec : "(null)");
  *node = grt_strmap_getn(&g->by_name, name, len);
  if (*node < 0)
    return GRT_ERROR(NOT_FOUND, "%s '%s': the graph has no node '%.*s'", what, spec, (int)len,
                     name);
  if (*port < 0 || *port >= g->nodes[*node].sig.n_outputs)
    return GRT_ERROR(INVALID_ARGUMENT, "%s '%s': node '%s' has %d outputs", what, spec,
                     g->nodes[*node].name, (int)g->nodes[*node].sig.n_outputs);
  return NULL;
}

static int32_t input_index(const rep* r, int32_t node, int32_t port) {
  for (int32_t i = 0; i < r->o->n_inputs; i++)
    if (r->in_node[i] == node && r->in_port[i] == port) return i;
  return -1;
}

static bool is_input_node(const rep* r, int32_t node) {
  for (int32_t i = 0; i < r->o->n_inputs; i++)
    if (r->in_node[i] == node) return true;
  return false;
}

/* Marks the tower part: a backward walk from the outputs. */
static grt_status* mark_towers(rep* r) {
  int32_t nn = r->g->n_nodes, top = 0;
  int32_t* stack = grt_malloc(((size_t)nn + 1) * sizeof *stack);
  if (!stack) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < r->o->n_outputs; i++) {
    int32_t node, port;
    grt_status* st = resolve(r->g, r->o->outputs[i], "output", &node, &port);
    const grt_node* n = st ? NULL : &r->g->nodes[node];
    if (!st && (port != 0 || n->sig.n_outputs != 1))
      st = GRT_ERROR(INVALID_ARGUMENT, "output '%s': towers concatenate whole nodes of one output",
                     r->o->outputs[i]);
    if (!st && (is_input_node(r, node) || is_variable(n)))
      st = GRT_ERROR(INVALID_ARGUMENT,
                     "output '%s' is an input or a variable, not computed by the towers", n->name);
    if (!st && n->sig.output_shapes[0].rank == 0)
      st = GRT_ERROR(INVALID_ARGUMENT,
                     "output '%s' is a scalar: towers' outputs are concatenated along the batch "
                     "axis (replicate the per-example value and reduce it after)",
                     n->name);
    if (st) {
      grt_free(stack);
      return st;
    }
    r->is_output[node] = true;
    if (!r->tower[node]) {
      r->tower[node] = true;
      stack[top++] = node;
    }
  }
  while (top > 0) {
    const grt_node* n = &r->g->nodes[stack[--top]];
    for (int32_t j = 0; j < n->n_inputs + n->n_controls; j++) {
      const grt_input* in = j < n->n_inputs ? &n->inputs[j] : &n->controls[j - n->n_inputs];
      int32_t s = in->src;
      if (s >= 0 && r->o->mirrored && is_variable(&r->g->nodes[s])) r->mirror[s] = true;
      if (s < 0 || r->tower[s] || is_input_node(r, s) || is_variable(&r->g->nodes[s])) continue;
      r->tower[s] = true;
      stack[top++] = s;
    }
  }
  grt_free(stack);
  return NULL;
}

/* A node outside the towers may use a tower node only when it is an output
 * (then it gets the concatenation). */
static grt_status* check_uses(const rep* r) {
  for (int32_t i = 0; i < r->g->n_nodes; i++) {
    const grt_node* n = &r->g->nodes[i];
    if (r->tower[i]) continue;
    for (int32_t j = 0; j < n->n_inputs + n->n_controls; j++) {
      const grt_input* in = j < n->n_inputs ? &n->inputs[j] : &n->controls[j - n->n_inputs];
      if (in->src >= 0 && r->tower[in->src] && !r->is_output[in->src])
        return GRT_ERROR(INVALID_ARGUMENT,
                         "node '%s' uses '%s', which the towers compute once per tower; name it "
                         "in the outputs or leave '%s' out of the towers",
                         n->name, r->g->nodes[in->src].name, n->name);
    }
  }
  return NULL;
}

/* The Split node of input tensor node:port. */
static void split_name(char* buf, size_t size, const char* node, int32_t port) {
  if (port == 0)
    snprintf(buf, size, SPLIT_SCOPE "/%s", node);
  else
    snprintf(buf, size, SPLIT_SCOPE "/%s_%d", node, (int)port);
}

/* Inside tower k: a split input becomes part k of its Split; a tower node
 * becomes tower k's copy; anything else (variables, nodes outside) stays. */
static void rename_in_tower(void* ctx, const char* node, int32_t port, char* buf, size_t size) {
  rep* r = ctx;
  int32_t src = grt_strmap_get(&r->g->by_name, node);
  int32_t in = src >= 0 && port >= 0 ? input_index(r, src, port) : -1;
  if (in >= 0) {
    char base[900];
    split_name(base, sizeof base, node, port);
    snprintf(buf, size, "%s:%d", base, (int)r->k);
  } else if (src >= 0 && (r->tower[src] || (r->mirror[src] && r->k > 0))) {
    char base[900];
    snprintf(base, sizeof base, "tower_%d/%s", (int)r->k, node);
    grt_copy_rename_same(NULL, base, port, buf, size);
  } else {
    grt_copy_rename_same(NULL, node, port, buf, size);
  }
}

static grt_status* add_const_int(grt_graph* g, const char* name, int32_t v) {
  int32_t k;
  grt_tensor* t = NULL;
  GRT_RETURN_IF_ERROR(grt_graph_add_node(g, name, "Const", &k));
  GRT_RETURN_IF_ERROR(grt_tensor_new(GRT_INT32, 0, NULL, &t));
  *(int32_t*)grt_tensor_data(t) = v;
  grt_status* st = grt_graph_set_attr_type(g, k, "dtype", GRT_INT32);
  if (!st) st = grt_graph_set_attr_tensor(g, k, "value", t);
  grt_tensor_free(t);
  return st;
}

/* Split of input i into N parts along axis 0. */
static grt_status* add_split(rep* r, grt_graph* out, int32_t i) {
  const grt_node* n = &r->g->nodes[r->in_node[i]];
  char name[900], src[900];
  split_name(name, sizeof name, n->name, r->in_port[i]);
  grt_copy_rename_same(NULL, n->name, r->in_port[i], src, sizeof src);
  int32_t k;
  GRT_RETURN_IF_ERROR(grt_graph_add_node(out, name, "Split", &k));
  GRT_RETURN_IF_ERROR(grt_graph_add_input(out, k, SPLIT_SCOPE "/axis"));
  GRT_RETURN_IF_ERROR(grt_graph_add_input(out, k, src));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(out, k, "num_split", r->o->towers));
  return grt_graph_set_attr_type(out, k, "T", n->sig.output_types[r->in_port[i]]);
}

/* The towers' values of output node i concatenated under its name (one
 * tower: an Identity, since ConcatV2 wants two values or more). */
static grt_status* add_concat(rep* r, grt_graph* out, int32_t i) {
  const grt_node* n = &r->g->nodes[i];
  char buf[900];
  int32_t k;
  if (r->o->towers == 1) {
    snprintf(buf, sizeof buf, "tower_0/%s", n->name);
    GRT_RETURN_IF_ERROR(grt_graph_add_node(out, n->name, "Identity", &k));
    GRT_RETURN_IF_ERROR(grt_graph_add_input(out, k, buf));
    return grt_graph_set_attr_type(out, k, "T", n->sig.output_types[0]);
  }
  GRT_RETURN_IF_ERROR(grt_graph_add_node(out, n->name, "ConcatV2", &k));
  for (int32_t t = 0; t < r->o->towers; t++) {
    snprintf(buf, sizeof buf, "tower_%d/%s", (int)t, n->name);
    GRT_RETURN_IF_ERROR(grt_graph_add_input(out, k, buf));
  }
  GRT_RETURN_IF_ERROR(grt_graph_add_input(out, k, CONCAT_SCOPE "/axis"));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_int(out, k, "N", r->o->towers));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(out, k, "T", n->sig.output_types[0]));
  return grt_graph_set_attr_type(out, k, "Tidx", GRT_INT32);
}

/* The first Assign to variable `v` in node order (its initialiser), or -1. */
static int32_t initialiser_of(const grt_graph* g, int32_t v) {
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const grt_node* n = &g->nodes[i];
    if (strcmp(n->op, "Assign") == 0 && n->n_inputs > 0 && n->inputs[0].src == v) return i;
  }
  return -1;
}

/* The value mirrored variable i's copies start from: an Identity of the
 * variable on tower 0's device, run after the variable's own initialiser.
 * The copies read it, not the variable: a read that crosses devices is a
 * Send, which takes the value when it runs, so reading the variable itself
 * could copy it before its initialiser ran (a control edge on the copy's
 * Assign orders that Assign, not the Send feeding it). Made once per
 * variable, by the first copy. */
static grt_status* mirror_source(rep* r, grt_graph* out, int32_t i, char* name, size_t size) {
  const grt_node* n = &r->g->nodes[i];
  char ctl[960];
  snprintf(name, size, "%s/mirror_value", n->name);
  if (grt_graph_find_node(out, name) >= 0) return NULL;
  int32_t first = initialiser_of(r->g, i);
  if (first < 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "mirrored variable '%s' has no initialiser (an Assign to it)", n->name);
  int32_t id;
  GRT_RETURN_IF_ERROR(grt_graph_add_node(out, name, "Identity", &id));
  GRT_RETURN_IF_ERROR(grt_graph_add_input(out, id, n->name));
  snprintf(ctl, sizeof ctl, "^%s", r->g->nodes[first].name);
  GRT_RETURN_IF_ERROR(grt_graph_add_input(out, id, ctl));
  GRT_RETURN_IF_ERROR(grt_graph_set_device(out, id, r->o->tower_devices[0]));
  return grt_graph_set_attr_type(out, id, "T", n->sig.output_types[0]);
}

/* Tower k's copy of mirrored variable i, and its initialiser: an Assign
 * from the variable's initialised value (mirror_source). */
static grt_status* add_mirror(rep* r, grt_graph* out, int32_t i, int32_t k) {
  const grt_node* n = &r->g->nodes[i];
  char name[900], init[960];
  snprintf(name, sizeof name, "tower_%d/%s", (int)k, n->name);
  int32_t c, a;
  GRT_RETURN_IF_ERROR(
      grt_copy_node(out, r->g, i, name, r->o->tower_devices[k], grt_copy_rename_same, r, &c));
  char source[960];
  GRT_RETURN_IF_ERROR(mirror_source(r, out, i, source, sizeof source));
  snprintf(init, sizeof init, "%s/mirror_init", name);
  GRT_RETURN_IF_ERROR(grt_graph_add_node(out, init, "Assign", &a));
  GRT_RETURN_IF_ERROR(grt_graph_add_input(out, a, name));
  GRT_RETURN_IF_ERROR(grt_graph_add_input(out, a, source));
  GRT_RETURN_IF_ERROR(grt_graph_set_device(out, a, r->o->tower_devices[k]));
  return grt_graph_set_attr_type(out, a, "T", n->sig.output_types[0]);
}

/* Each variable's device: variables_on, or the ps setter's choice. */
static grt_status* variable_devices(rep* r, const char** dev) {
  const grt_replicate_options* o = r->o;
  if (o->variables_on) {
    for (int32_t i = 0; i < r->g->n_nodes; i++)
      if (is_variable(&r->g->nodes[i])) dev[i] = o->variables_on;
    return NULL;
  }
  if (o->n_ps_devices == 0) return NULL;
  int64_t* load = grt_calloc((size_t)o->n_ps_devices, sizeof *load);
  if (!load) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  int32_t v = 0;
  for (int32_t i = 0; i < r->g->n_nodes; i++) {
    const grt_node* n = &r->g->nodes[i];
    if (!is_variable(n)) continue;
    int32_t pick = grt_ps_pick(load, o->n_ps_devices, o->ps_strategy, v++);
    int64_t bytes = grt_ps_variable_bytes(n);
    if (bytes > 0) load[pick] += bytes;
    dev[i] = o->ps_devices[pick];
  }
  grt_free(load);
  return NULL;
}

static grt_status* check_options(const grt_replicate_options* o) {
  if (!o || o->towers < 1) return GRT_ERROR(INVALID_ARGUMENT, "towers must be at least 1");
  if (o->n_tower_devices != 0 && o->n_tower_devices != o->towers)
    return GRT_ERROR(INVALID_ARGUMENT, "%d towers but %d tower devices", (int)o->towers,
                     (int)o->n_tower_devices);
  if (o->n_inputs < 1 || o->n_outputs < 1)
    return GRT_ERROR(INVALID_ARGUMENT, "towers need at least one input and one output");
  if (o->variables_on && o->n_ps_devices > 0)
    return GRT_ERROR(INVALID_ARGUMENT, "give the variables one device or ps devices, not both");
  if (o->mirrored && (o->variables_on || o->n_ps_devices > 0 || o->n_tower_devices == 0))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "mirrored variables live on the tower devices: give tower devices, and "
                     "neither a variables device nor ps devices");
  return NULL;
}

static grt_status* build(rep* r, grt_graph* out) {
  const grt_replicate_options* o = r->o;
  int32_t nn = r->g->n_nodes;
  const char** var_dev = grt_calloc((size_t)nn + 1, sizeof *var_dev);
  if (!var_dev) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  grt_status* st = variable_devices(r, var_dev);
  if (!st) st = add_const_int(out, SPLIT_SCOPE "/axis", 0);
  if (!st) st = add_const_int(out, CONCAT_SCOPE "/axis", 0);
  char name[900];
  for (int32_t i = 0; !st && i < nn; i++) {
    const grt_node* n = &r->g->nodes[i];
    int32_t k;
    if (!r->tower[i]) {
      const char* dev = r->mirror[i] ? o->tower_devices[0] : var_dev[i];
      st = grt_copy_node(out, r->g, i, n->name, dev, grt_copy_rename_same, r, &k);
      for (int32_t t = 1; !st && r->mirror[i] && t < o->towers; t++) st = add_mirror(r, out, i, t);
      for (int32_t j = 0; !st && j < o->n_inputs; j++)
        if (r->in_node[j] == i) st = add_split(r, out, j);
      continue;
    }
    for (r->k = 0; !st && r->k < o->towers; r->k++) {
      snprintf(name, sizeof name, "tower_%d/%s", (int)r->k, n->name);
      st = grt_copy_node(out, r->g, i, name, o->n_tower_devices ? o->tower_devices[r->k] : NULL,
                         rename_in_tower, r, &k);
    }
    if (!st && r->is_output[i]) st = add_concat(r, out, i);
  }
  grt_free(var_dev);
  return st;
}

grt_status* grt_graph_replicate(grt_graph* in, const grt_replicate_options* o, grt_graph** out) {
  *out = NULL;
  if (!in) return GRT_ERROR(INVALID_ARGUMENT, "NULL graph");
  GRT_RETURN_IF_ERROR(check_options(o));
  if (!in->validated) GRT_RETURN_IF_ERROR(grt_graph_validate(in));
  int32_t nn = in->n_nodes;
  rep r = {.g = in, .o = o};
  r.in_node = grt_calloc((size_t)o->n_inputs, sizeof *r.in_node);
  r.in_port = grt_calloc((size_t)o->n_inputs, sizeof *r.in_port);
  r.tower = grt_calloc((size_t)nn + 1, sizeof *r.tower);
  r.is_output = grt_calloc((size_t)nn + 1, sizeof *r.is_output);
  r.mirror = grt_calloc((size_t)nn + 1, sizeof *r.mirror);
  grt_status* st = r.in_node && r.in_port && r.tower && r.is_output && r.mirror
                       ? NULL
                       : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; !st && i < o->n_inputs; i++)
    st = resolve(in, o->inputs[i], "input", &r.in_node[i], &r.in_port[i]);
  if (!st) st = mark_towers(&r);
  if (!st) st = check_uses(&r);
  grt_graph* g = NULL;
  if (!st) st = grt_graph_new(&g);
  if (!st) st = build(&r, g);
  if (!st) st = grt_graph_validate(g);
  grt_free(r.in_node);
  grt_free(r.in_port);
  grt_free(r.tower);
  grt_free(r.is_output);
  grt_free(r.mirror);
  if (st) {
    grt_graph_free(g);
    return grt_status_prefix(st, "replicate");
  }
  *out = g;
  return NULL;
}
