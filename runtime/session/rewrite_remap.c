/* The remapper pass (see rewrite_remap.h and REWRITE.md). */
#include "runtime/session/rewrite_remap.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "base/status.h"

#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory in the session's graph rewrite")

struct grt_remap {
  grt_graph* graph; /* owns the replacement nodes */
  grt_rewritten* items;
  int32_t n;
  int32_t* by_root; /* per graph node: index into items, or -1 */
  int32_t n_graph_nodes;
};

/* Activations that may end a fused chain: the op, and its name in
 * fused_ops (TensorFlow's spelling; for _Gelu by its attr approximate).
 * A GELU fuses into MatMul only, and only on the CPU: the CPU's
 * _FusedMatMul runs it as a oneDNN post-op (a transformer's feed-forward
 * layer, one pass over its widest output saved), while the convolution
 * kernels and the GPU's _FusedMatMul take none. */
typedef struct {
  const char* op;
  const char* fused;        /* as fused_ops names it */
  const char* fused_approx; /* _Gelu with approximate = true */
  bool cpu_matmul_only;
} act_row;

static const act_row kActivations[] = {
    {"Relu", "Relu", "Relu", false},
    {"Relu6", "Relu6", "Relu6", false},
    {"Elu", "Elu", "Elu", false},
    {"_Gelu", "GeluExact", "GeluApproximate", true},
};

static const bool kNoRefs[GRT_REWRITE_MAX_INPUTS] = {false};

static const act_row* activation_of(const char* op) {
  for (size_t i = 0; i < sizeof kActivations / sizeof kActivations[0]; i++)
    if (strcmp(op, kActivations[i].op) == 0) return &kActivations[i];
  return NULL;
}

/* What the pass knows about the graph around a node. */
typedef struct {
  const grt_graph* g;
  const grt_plan* plan;
  grt_device* const* devices;
  int32_t n_devices;
  int32_t* data_uses;   /* data edges out of each node */
  uint8_t* control_src; /* a control input of some node */
  uint8_t* used;        /* already in a replacement */
} scan;

static const grt_node* node(const scan* sc, int32_t v) { return &sc->g->nodes[v]; }

/* input i of v comes from a node of op `op` (output 0): its index, else -1. */
static int32_t producer(const scan* sc, int32_t v, int32_t i, const char* op) {
  const grt_node* n = node(sc, v);
  if (i >= n->n_inputs || n->inputs[i].port != 0) return -1;
  int32_t src = n->inputs[i].src;
  return strcmp(node(sc, src)->op, op) == 0 ? src : -1;
}

/* A node swallowed by a fusion: its value goes nowhere else and no control
 * edge touches it. */
static bool swallowable(const scan* sc, int32_t v) {
  const grt_node* n = node(sc, v);
  return !sc->used[v] && sc->data_uses[v] == 1 && !sc->control_src[v] && n->n_controls == 0 &&
         n->sig.n_outputs == 1 && n->sig.output_types[0] == GRT_FLOAT32;
}

/* The device every member is on, and it has `op`'s kernel; else NULL. */
static grt_device* common_device(const scan* sc, const int32_t* members, int32_t n,
                                 const char* op) {
  int32_t d = grt_plan_node_device(sc->plan, members[0]);
  for (int32_t i = 1; i < n; i++)
    if (grt_plan_node_device(sc->plan, members[i]) != d) return NULL;
  grt_device* dev = d >= 0 && d < sc->n_devices ? sc->devices[d] : NULL;
  return dev && dev->backend->kernel(op) ? dev : NULL;
}

/* Variable ops whose output weights may be packed while no run writes
 * them (their kernels give the variable itself: runtime/session/executor.c). */
static const char* const kVariables[] = {"VariableV2", "Variable"};

static bool is_variable(const char* op) {
  for (size_t i = 0; i < sizeof kVariables / sizeof kVariables[0]; i++)
    if (strcmp(op, kVariables[i]) == 0) return true;
  return false;
}

/* Whether v's input 1 is a variable's value, read directly or through an
 * Identity (TensorFlow's `w/read`) on v's device; *weights is then the
 * variable's output, which the replacement reads instead so its kernel
 * sees the variable (and its version) beside the value; *read is that
 * Identity, or -1. */
static bool variable_weights(const scan* sc, int32_t v, grt_input* weights, int32_t* read) {
  *read = -1;
  const grt_node* n = node(sc, v);
  if (n->n_inputs < 2 || n->inputs[1].port != 0) return false;
  int32_t src = n->inputs[1].src;
  int32_t dev = grt_plan_node_device(sc->plan, v);
  if (strcmp(node(sc, src)->op, "Identity") == 0 && node(sc, src)->n_inputs == 1 &&
      grt_plan_node_device(sc->plan, src) == dev) {
    int32_t var = node(sc, src)->inputs[0].src;
    if (node(sc, src)->inputs[0].port != 0 || !is_variable(node(sc, var)->op) ||
        grt_plan_node_device(sc->plan, var) != dev)
      return false;
    *weights = node(sc, src)->inputs[0];
    *read = src;
    return true;
  }
  return is_variable(node(sc, src)->op);
}

static grt_status* set_attr(grt_graph* rg, int32_t i, const char* name, grt_attr_value v) {
  return grt_graph_set_attr_value(rg, i, name, &v);
}

/* A MatMul attr as the original node reads it (its value or the default). */
static grt_status* copy_bool(grt_graph* rg, int32_t i, const grt_node* mm, const char* name) {
  const grt_attr_value* v = grt_node_attr(mm, name);
  grt_attr_value b = {.type = GRT_ATTR_BOOL};
  b.u.b = v && v->type == GRT_ATTR_BOOL && v->u.b;
  return set_attr(rg, i, name, b);
}

/* Adds the replacement for members (MatMul first, root last) to r. bias is
 * the BiasAdd (-1: a MatMul marked only), act the activation op or NULL. */
static grt_status* add_replacement(grt_remap* r, const scan* sc, const int32_t* members,
                                   int32_t n_members, int32_t bias, const char* act,
                                   grt_device* dev) {
  int32_t mm = members[0], root = members[n_members - 1];
  const grt_node* m = node(sc, mm);
  bool conv = strcmp(m->op, "MatMul") != 0; /* Conv2D or DepthwiseConv2dNative */
  const char* op = bias < 0 ? m->op : conv ? "_FusedConv2D" : "_FusedMatMul";
  grt_graph* rg = r->graph;
  int32_t i;
  GRT_RETURN_IF_ERROR(grt_graph_add_node(rg, node(sc, root)->name, op, &i));
  grt_attr_value t = {.type = GRT_ATTR_TYPE};
  t.u.t = GRT_FLOAT32;
  GRT_RETURN_IF_ERROR(set_attr(rg, i, "T", t));
  if (conv) {
    /* Conv2D's attrs as set (values shared with the user's graph, which
     * outlives the session); its op definition supplies the defaults. */
    for (int32_t a = 0; a < m->n_attrs; a++)
      if (strcmp(m->attrs[a].name, "T") != 0)
        GRT_RETURN_IF_ERROR(set_attr(rg, i, m->attrs[a].name, m->attrs[a].value));
  } else {
    GRT_RETURN_IF_ERROR(copy_bool(rg, i, m, "transpose_a"));
    GRT_RETURN_IF_ERROR(copy_bool(rg, i, m, "transpose_b"));
  }
  grt_attr_value cb = {.type = GRT_ATTR_BOOL};
  cb.u.b = producer(sc, mm, 1, "Const") >= 0;
  GRT_RETURN_IF_ERROR(set_attr(rg, i, "_grt_const_b", cb));
  grt_input weights = m->inputs[1];
  grt_attr_value vb = {.type = GRT_ATTR_BOOL};
  int32_t read;
  vb.u.b = variable_weights(sc, mm, &weights, &read);
  if (vb.u.b) GRT_RETURN_IF_ERROR(set_attr(rg, i, "_grt_var_b", vb));
  if (bias >= 0) {
    const char** ops = grt_arena_alloc(rg->arena, 2 * sizeof *ops);
    if (!ops) return OOM();
    ops[0] = "BiasAdd";
    ops[1] = act;
    grt_attr_value fo = {.type = GRT_ATTR_LIST_STRING};
    fo.u.list.n = act ? 2 : 1;
    fo.u.list.v.s = ops;
    GRT_RETURN_IF_ERROR(set_attr(rg, i, "fused_ops", fo));
    grt_attr_value na = {.type = GRT_ATTR_INT};
    na.u.i = 1;
    GRT_RETURN_IF_ERROR(set_attr(rg, i, "num_args", na));
    grt_attr_value eps = {.type = GRT_ATTR_FLOAT};
    eps.u.f = 0.0f;
    GRT_RETURN_IF_ERROR(set_attr(rg, i, "epsilon", eps));
  }
  grt_rewritten* w = &r->items[r->n];
  memset(w, 0, sizeof *w);
  w->root = root;
  for (int32_t k = 0; k < n_members; k++) w->members[k] = members[k];
  w->n_members = n_members;
  w->weights_const = cb.u.b ? producer(sc, mm, 1, "Const") : -1;
  w->weights_read = vb.u.b ? read : -1;
  /* The inputs: MatMul's a and b (a convolution's all: Conv2DBackpropInput
   * has three), the weights read from their variable itself when they come
   * through an Identity; then BiasAdd's bias. */
  int32_t own = bias >= 0 ? 2 : m->n_inputs;
  for (int32_t k = 0; k < own; k++) {
    w->inputs[k] = k == 1 ? weights : m->inputs[k];
    w->input_owner[k] = mm;
    w->input_index[k] = k;
  }
  w->n_inputs = own;
  if (bias >= 0) {
    w->inputs[2] = node(sc, bias)->inputs[1];
    w->input_owner[2] = bias;
    w->input_index[2] = 1;
    w->n_inputs = 3;
  }
  w->kernel = dev->backend->kernel(op);
  w->node = NULL;                /* set once the graph stops growing */
  w->state = (void*)(intptr_t)i; /* the node's index until then */
  r->n++;
  for (int32_t k = 0; k < n_members; k++) ((scan*)sc)->used[members[k]] = 1;
  return NULL;
}

/* data_format as the node reads it ("NHWC" by default). */
static const char* data_format(const grt_node* n) {
  const grt_attr_value* v = grt_node_attr(n, "data_format");
  return v && v->type == GRT_ATTR_STRING && v->u.s ? v->u.s : "NHWC";
}

/* act <- BiasAdd <- MatMul|Conv2D, or BiasAdd <- MatMul|Conv2D. */
static grt_status* try_fuse(grt_remap* r, const scan* sc, int32_t v) {
  const grt_node* n = node(sc, v);
  int32_t bias, members[3], k = 0;
  const char* act = NULL;
  const act_row* row = activation_of(n->op);
  if (row) {
    bias = producer(sc, v, 0, "BiasAdd");
    if (bias < 0 || !swallowable(sc, bias)) return NULL;
    const grt_attr_value* approx = grt_node_attr(n, "approximate");
    act = approx && approx->type == GRT_ATTR_BOOL && approx->u.b ? row->fused_approx : row->fused;
  } else if (strcmp(n->op, "BiasAdd") == 0) {
    bias = v;
  } else {
    return NULL;
  }
  if (sc->used[v] || n->n_inputs < 1) return NULL;
  int32_t mm = producer(sc, bias, 0, "MatMul");
  const char* fused = "_FusedMatMul";
  if (mm < 0 && (mm = producer(sc, bias, 0, "Conv2D")) >= 0) {
    fused = "_FusedConv2D";
    if (strcmp(data_format(node(sc, mm)), data_format(node(sc, bias))) != 0) return NULL;
  }
  if (mm < 0 || !swallowable(sc, mm) || node(sc, v)->sig.output_types[0] != GRT_FLOAT32)
    return NULL;
  if (row && row->cpu_matmul_only && strcmp(fused, "_FusedMatMul") != 0) return NULL;
  members[k++] = mm;
  if (bias != v) members[k++] = bias;
  members[k++] = v;
  grt_device* dev = common_device(sc, members, k, fused);
  if (!dev || (row && row->cpu_matmul_only && strcmp(dev->backend->type, "CPU") != 0)) return NULL;
  return add_replacement(r, sc, members, k, bias, act, dev);
}

/* Ops whose input 1 is weights their oneDNN kernel can pack once. */
static const char* const kPackable[] = {"MatMul",
                                        "Conv2D",
                                        "DepthwiseConv2dNative",
                                        "Conv2DBackpropInput",
                                        "_FusedConv2D",
                                        "_FusedDepthwiseConv2dNative"};

static bool packable(const char* op) {
  for (size_t i = 0; i < sizeof kPackable / sizeof kPackable[0]; i++)
    if (strcmp(op, kPackable[i]) == 0) return true;
  return false;
}

/* A MatMul or convolution on constant weights or a variable's, marked so
 * its kernel packs them once (a variable's again when it changes). */
static grt_status* try_mark(grt_remap* r, const scan* sc, int32_t v) {
  const grt_node* n = node(sc, v);
  grt_input weights;
  int32_t read;
  if (sc->used[v] || !packable(n->op) || n->sig.output_types[0] != GRT_FLOAT32 ||
      n->n_inputs > GRT_REWRITE_MAX_INPUTS ||
      (producer(sc, v, 1, "Const") < 0 && !variable_weights(sc, v, &weights, &read)))
    return NULL;
  grt_device* dev = common_device(sc, &v, 1, n->op);
  return dev ? add_replacement(r, sc, &v, 1, -1, NULL, dev) : NULL;
}

typedef grt_status* (*rule_fn)(grt_remap* r, const scan* sc, int32_t v);

/* In order: a node taken by one rule is left alone by later ones. Chains
 * ending in an activation go first, so a BiasAdd followed by Relu fuses
 * with it rather than alone. */
static const rule_fn kRules[] = {try_fuse, try_mark};

static grt_status* run_rules(grt_remap* r, scan* sc) {
  const grt_graph* g = sc->g;
  for (int32_t v = 0; v < g->n_nodes; v++) {
    const grt_node* n = &g->nodes[v];
    for (int32_t i = 0; i < n->n_inputs; i++) sc->data_uses[n->inputs[i].src]++;
    for (int32_t i = 0; i < n->n_controls; i++) sc->control_src[n->controls[i].src] = 1;
  }
  /* Activation roots before BiasAdd roots: two sweeps of the fuse rule. */
  for (int32_t v = 0; v < g->n_nodes; v++)
    if (activation_of(g->nodes[v].op)) GRT_RETURN_IF_ERROR(try_fuse(r, sc, v));
  for (size_t k = 0; k < sizeof kRules / sizeof kRules[0]; k++)
    for (int32_t v = 0; v < g->n_nodes; v++) GRT_RETURN_IF_ERROR(kRules[k](r, sc, v));
  return NULL;
}

/* Signatures, node pointers and kernel state, once the graph is final. */
static grt_status* finish(grt_remap* r, const grt_graph* g) {
  for (int32_t k = 0; k < r->n; k++) {
    grt_rewritten* w = &r->items[k];
    grt_node* n = &r->graph->nodes[(intptr_t)w->state];
    w->state = NULL;
    const grt_node* root = &g->nodes[w->root];
    n->sig.n_inputs = w->n_inputs;
    n->sig.input_is_ref = (bool*)kNoRefs;
    n->sig.n_outputs = root->sig.n_outputs;
    n->sig.output_types = root->sig.output_types;
    n->sig.output_is_ref = root->sig.output_is_ref;
    n->sig.output_shapes = root->sig.output_shapes;
    /* Defaults of attrs left unset come from the first member's op
     * (Conv2D's dilations, data_format, ...). */
    n->def = g->nodes[w->members[0]].def;
    w->node = n;
    r->by_root[w->root] = k;
  }
  for (int32_t k = 0; k < r->n; k++) {
    grt_rewritten* w = &r->items[k];
    if (w->kernel->create_state) {
      grt_status* st = w->kernel->create_state(w->node, &w->state);
      if (st) return grt_status_prefix(st, "node '%s' (%s)", w->node->name, w->node->op);
    }
  }
  return NULL;
}

grt_status* grt_remap_new(const grt_graph* g, const grt_plan* plan, grt_device* const* devices,
                          int32_t n_devices, grt_remap** out) {
  *out = NULL;
  int32_t nn = g->n_nodes;
  grt_remap* r = grt_calloc(1, sizeof *r);
  scan sc = {g, plan, devices, n_devices, NULL, NULL, NULL};
  if (!r) return OOM();
  r->n_graph_nodes = nn;
  r->items = grt_calloc((size_t)nn + 1, sizeof *r->items);
  r->by_root = grt_malloc(((size_t)nn + 1) * sizeof *r->by_root);
  sc.data_uses = grt_calloc((size_t)nn + 1, sizeof *sc.data_uses);
  sc.control_src = grt_calloc((size_t)nn + 1, 1);
  sc.used = grt_calloc((size_t)nn + 1, 1);
  grt_status* st = NULL;
  if (!r->items || !r->by_root || !sc.data_uses || !sc.control_src || !sc.used) st = OOM();
  if (!st) st = grt_graph_new(&r->graph);
  for (int32_t v = 0; !st && v < nn; v++) r->by_root[v] = -1;
  if (!st) st = run_rules(r, &sc);
  if (!st) st = finish(r, g);
  grt_free(sc.data_uses);
  grt_free(sc.control_src);
  grt_free(sc.used);
  if (st) {
    /* States not made yet hold node indices, not state. */
    for (int32_t k = 0; k < r->n; k++)
      if (!r->items[k].node) r->items[k].state = NULL;
    grt_remap_free(r);
    return st;
  }
  *out = r;
  return NULL;
}

void grt_remap_free(grt_remap* r) {
  if (!r) return;
  for (int32_t k = 0; k < r->n; k++) {
    grt_rewritten* w = &r->items[k];
    if (w->state && w->kernel->free_state) w->kernel->free_state(w->state);
  }
  grt_free(r->items);
  grt_free(r->by_root);
  grt_graph_free(r->graph);
  grt_free(r);
}

const grt_rewritten* grt_remap_for(const grt_remap* r, int32_t v, const uint8_t* touched) {
  if (!r || v < 0 || v >= r->n_graph_nodes || r->by_root[v] < 0) return NULL;
  const grt_rewritten* w = &r->items[r->by_root[v]];
  for (int32_t k = 0; k + 1 < w->n_members; k++)
    if (touched[w->members[k]]) return NULL;
  if (w->weights_const >= 0 && touched[w->weights_const]) return NULL;
  if (w->weights_read >= 0 && touched[w->weights_read])
    return NULL; /* a fed read is not the variable */
  return w;
}

int32_t grt_remap_count(const grt_remap* r) { return r ? r->n : 0; }
