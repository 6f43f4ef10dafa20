/* What a pass reads and the edits it makes (pass.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "kernels/kernel_registry.h"
#include "ops/node_copy.h"
#include "optimizer/ctx.h"

grt_status* grt_opt_ctx_reserve(grt_opt_ctx* c, int32_t n) {
  if (n <= c->cap) return NULL;
  int32_t cap = c->cap ? c->cap : 64;
  while (cap < n) cap *= 2;
  uint8_t* flags = grt_realloc(c->flags, (size_t)cap * sizeof *flags);
  if (flags) c->flags = flags;
  const char** dt = grt_realloc(c->dev_type, (size_t)cap * sizeof *dt);
  if (dt) c->dev_type = dt;
  const char** dv = grt_realloc(c->device, (size_t)cap * sizeof *dv);
  if (dv) c->device = dv;
  int32_t* tn = grt_realloc(c->take_name, (size_t)cap * sizeof *tn);
  if (tn) c->take_name = tn;
  if (!flags || !dt || !dv || !tn) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = c->cap; i < cap; i++) {
    c->flags[i] = 0;
    c->dev_type[i] = "CPU";
    c->device[i] = NULL;
    c->take_name[i] = -1;
  }
  c->cap = cap;
  return NULL;
}

void grt_opt_ctx_free_index(grt_opt_ctx* c) {
  grt_free(c->slot0);
  grt_free(c->use_start);
  grt_free(c->use);
  grt_free(c->data_uses);
  c->slot0 = c->use_start = c->data_uses = NULL;
  c->use = NULL;
  c->n_slots = 0;
}

grt_status* grt_opt_index_uses(grt_opt_ctx* c) {
  grt_opt_ctx_free_index(c);
  const grt_graph* g = c->g;
  int32_t n = g->n_nodes;
  c->slot0 = grt_calloc((size_t)n + 1, sizeof *c->slot0);
  c->data_uses = grt_calloc((size_t)n + 1, sizeof *c->data_uses);
  if (!c->slot0 || !c->data_uses) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  int32_t slots = 0;
  for (int32_t i = 0; i < n; i++) {
    c->slot0[i] = slots;
    slots += 1 + g->nodes[i].sig.n_outputs;
  }
  c->slot0[n] = slots;
  c->n_slots = slots;
  c->use_start = grt_calloc((size_t)slots + 2, sizeof *c->use_start);
  if (!c->use_start) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  int32_t total = 0;
  /* Count, then place: slot s's uses go at use_start[s] .. */
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t i = 0; i < n; i++) {
      const grt_node* nd = &g->nodes[i];
      for (int32_t k = 0; k < nd->n_inputs + nd->n_controls; k++) {
        bool ctl = k >= nd->n_inputs;
        const grt_input* in = ctl ? &nd->controls[k - nd->n_inputs] : &nd->inputs[k];
        if (in->src < 0 || in->src >= n) continue;
        int32_t s = c->slot0[in->src] + (ctl ? 0 : 1 + in->port);
        if (pass == 0) {
          c->use_start[s + 1]++;
          total++;
          if (!ctl) c->data_uses[in->src]++;
        } else {
          c->use[c->use_start[s]++] = (grt_opt_use){i, ctl ? -1 : k};
        }
      }
    }
    if (pass == 0) {
      for (int32_t s = 0; s < slots; s++) c->use_start[s + 1] += c->use_start[s];
      c->use = grt_calloc((size_t)total + 1, sizeof *c->use);
      if (!c->use) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    } else {
      /* Placing advanced each start to the next slot's: shift back. */
      for (int32_t s = slots; s > 0; s--) c->use_start[s] = c->use_start[s - 1];
      c->use_start[0] = 0;
    }
  }
  return NULL;
}

/* ---- reading ---------------------------------------------------------- */

grt_graph* grt_opt_graph(grt_opt_ctx* c) { return c->g; }
const grt_opt_env* grt_opt_env_of(const grt_opt_ctx* c) { return c->env; }
int64_t grt_opt_fold_max_bytes(const grt_opt_ctx* c) { return c->fold_max_bytes; }
int32_t grt_opt_num_nodes(const grt_opt_ctx* c) { return c->n_start; }
const grt_node* grt_opt_node(const grt_opt_ctx* c, int32_t i) { return &c->g->nodes[i]; }
bool grt_opt_is_dead(const grt_opt_ctx* c, int32_t i) { return c->flags[i] & OPT_DEAD; }
const char* grt_opt_device_type(const grt_opt_ctx* c, int32_t i) { return c->dev_type[i]; }

bool grt_opt_same_device(const grt_opt_ctx* c, int32_t a, int32_t b) {
  return strcmp(grt_opt_node(c, a)->device, grt_opt_node(c, b)->device) == 0 &&
         strcmp(grt_opt_device_type(c, a), grt_opt_device_type(c, b)) == 0;
}

int32_t grt_opt_uses(const grt_opt_ctx* c, int32_t i, int32_t port, const grt_opt_use** out) {
  *out = NULL;
  if (i < 0 || i >= c->n_start || port < -1 || port >= c->g->nodes[i].sig.n_outputs) return 0;
  int32_t s = c->slot0[i] + 1 + port;
  *out = c->use + c->use_start[s];
  return c->use_start[s + 1] - c->use_start[s];
}

int32_t grt_opt_num_data_uses(const grt_opt_ctx* c, int32_t i) {
  return i >= 0 && i < c->n_start ? c->data_uses[i] : 0;
}

bool grt_opt_is_fixed(const grt_opt_ctx* c, int32_t i) {
  const grt_node* n = &c->g->nodes[i];
  if (!n->def || (n->def->flags & (GRT_OP_STATEFUL | GRT_OP_VARIABLE))) return true;
  for (int32_t k = 0; k < n->sig.n_inputs; k++)
    if (n->sig.input_is_ref && n->sig.input_is_ref[k]) return true;
  for (int32_t k = 0; k < n->sig.n_outputs; k++)
    if (n->sig.output_is_ref && n->sig.output_is_ref[k]) return true;
  return false;
}

const grt_tensor* grt_opt_const_value(const grt_opt_ctx* c, int32_t i) {
  const grt_node* n = &c->g->nodes[i];
  if (strcmp(n->op, "Const") != 0) return NULL;
  const grt_attr_value* v = grt_node_find_attr(n, "value");
  return v && v->type == GRT_ATTR_TENSOR ? v->u.tensor : NULL;
}

int32_t grt_opt_input_node(const grt_opt_ctx* c, int32_t i, int32_t input, int32_t* out_port) {
  const grt_node* n = &c->g->nodes[i];
  if (input < 0 || input >= n->n_inputs) return -1;
  if (out_port) *out_port = n->inputs[input].port;
  return n->inputs[input].src;
}

grt_dtype grt_opt_output_type(const grt_opt_ctx* c, int32_t i, int32_t port) {
  const grt_node* n = &c->g->nodes[i];
  return port >= 0 && port < n->sig.n_outputs ? n->sig.output_types[port] : GRT_DTYPE_INVALID;
}

const grt_shape* grt_opt_output_shape(const grt_opt_ctx* c, int32_t i, int32_t port) {
  const grt_node* n = &c->g->nodes[i];
  return port >= 0 && port < n->sig.n_outputs && n->sig.output_shapes ? &n->sig.output_shapes[port]
                                                                      : NULL;
}

const char* grt_opt_attr_string(const grt_node* n, const char* name, const char* dflt) {
  const grt_attr_value* v = grt_node_attr(n, name);
  return v && v->type == GRT_ATTR_STRING ? v->u.s : dflt;
}

bool grt_opt_attr_bool(const grt_node* n, const char* name, bool dflt) {
  const grt_attr_value* v = grt_node_attr(n, name);
  return v && v->type == GRT_ATTR_BOOL ? v->u.b : dflt;
}

int64_t grt_opt_attr_int(const grt_node* n, const char* name, int64_t dflt) {
  const grt_attr_value* v = grt_node_attr(n, name);
  return v && v->type == GRT_ATTR_INT ? v->u.i : dflt;
}

bool grt_opt_attr_all_ones(const grt_node* n, const char* name, bool dflt) {
  const grt_attr_value* v = grt_node_attr(n, name);
  if (!v) return dflt;
  if (v->type != GRT_ATTR_LIST_INT) return false;
  for (int32_t k = 0; k < v->u.list.n; k++)
    if (v->u.list.v.i[k] != 1) return false;
  return true;
}

bool grt_opt_no_padding(const grt_node* n) {
  const char* p = grt_opt_attr_string(n, "padding", "");
  if (strcmp(p, "VALID") == 0 || strcmp(p, "SAME") == 0) return true;
  if (strcmp(p, "EXPLICIT") != 0) return false;
  const grt_attr_value* v = grt_node_attr(n, "explicit_paddings");
  if (!v || v->type != GRT_ATTR_LIST_INT) return false;
  for (int32_t i = 0; i < v->u.list.n; i++)
    if (v->u.list.v.i[i] != 0) return false;
  return true;
}

const char* grt_opt_row_act(const char* name) {
  static const char* const kActs[] = {"Relu", "Relu6",      "LeakyRelu", "Sigmoid",
                                      "Tanh", "_HardSwish", "_Swish"};
  for (size_t i = 0; i < sizeof kActs / sizeof kActs[0]; i++)
    if (name && strcmp(name, kActs[i]) == 0) return kActs[i];
  return NULL;
}

bool grt_opt_has_kernel(const char* type, const char* op, const char* type_attr, grt_dtype dtype) {
  grt_device_type t;
  if (!grt_device_type_from_name(type, &t)) return false;
  const grt_kernel_def* const* rows = NULL;
  int32_t n = grt_kernel_find_op(op, &rows);
  for (int32_t r = 0; r < n; r++) {
    if (rows[r]->device != t) continue;
    if (!type_attr) return true;
    bool ok = true;
    for (int32_t k = 0; k < rows[r]->n_constraints; k++)
      if (!strcmp(rows[r]->constraints[k].attr, type_attr))
        ok = (rows[r]->constraints[k].allowed & grt_dtype_bit(dtype)) != 0;
    if (ok) return true;
  }
  return false;
}

/* ---- editing ---------------------------------------------------------- */

grt_status* grt_opt_add_node(grt_opt_ctx* c, int32_t like, const char* suffix, const char* op,
                             int32_t* out) {
  char name[512];
  const char* base = c->g->nodes[like].name;
  for (;;) {
    snprintf(name, sizeof name, "%s/%s%s%d", base, suffix, c->counter ? "_" : "", c->counter);
    if (c->counter == 0) snprintf(name, sizeof name, "%s/%s", base, suffix);
    c->counter++;
    if (grt_graph_find_node(c->g, name) < 0) break;
  }
  GRT_RETURN_IF_ERROR(grt_graph_add_node(c->g, name, op, out));
  GRT_RETURN_IF_ERROR(grt_opt_ctx_reserve(c, c->g->n_nodes));
  c->flags[*out] = OPT_NEW;
  c->dev_type[*out] = c->dev_type[like];
  c->device[*out] = c->device[like];
  return grt_graph_set_device(c->g, *out, c->g->nodes[like].device);
}

grt_status* grt_opt_add_const(grt_opt_ctx* c, int32_t like, const char* suffix, grt_tensor* value,
                              int32_t* out) {
  GRT_RETURN_IF_ERROR(grt_opt_add_node(c, like, suffix, "Const", out));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(c->g, *out, "dtype", grt_tensor_dtype(value)));
  return grt_graph_set_attr_tensor(c->g, *out, "value", value);
}

grt_status* grt_opt_add_input(grt_opt_ctx* c, int32_t node, int32_t src, int32_t port) {
  char spec[600];
  const char* name = c->g->nodes[src].name;
  if (port < 0)
    snprintf(spec, sizeof spec, "^%s", name);
  else if (port == 0)
    snprintf(spec, sizeof spec, "%s", name);
  else
    snprintf(spec, sizeof spec, "%s:%d", name, port);
  GRT_RETURN_IF_ERROR(grt_graph_add_input(c->g, node, spec));
  /* Resolve now, so later edits in this pass can follow the edge. */
  grt_node* n = &c->g->nodes[node];
  grt_input* in = port < 0 ? &n->controls[n->n_controls - 1] : &n->inputs[n->n_inputs - 1];
  in->src = src;
  return NULL;
}

grt_status* grt_opt_copy_controls(grt_opt_ctx* c, int32_t to, int32_t from) {
  /* Read through the array each time: adding an input may move it. */
  for (int32_t k = 0; k < c->g->nodes[from].n_controls; k++)
    GRT_RETURN_IF_ERROR(grt_opt_add_input(c, to, c->g->nodes[from].controls[k].src, -1));
  return NULL;
}

grt_status* grt_opt_copy_attrs(grt_opt_ctx* c, int32_t to, int32_t from, const char* const* skip) {
  const grt_node* f = &c->g->nodes[from];
  for (int32_t j = 0; j < f->n_attrs; j++) {
    bool skipped = false;
    for (int32_t s = 0; skip && skip[s] && !skipped; s++)
      skipped = !strcmp(skip[s], f->attrs[j].name);
    if (skipped) continue;
    grt_attr_value v;
    /* f may move when the node array grows: read the attr first. */
    grt_attr_value src = f->attrs[j].value;
    const char* name = f->attrs[j].name;
    GRT_RETURN_IF_ERROR(grt_attr_value_copy(c->g->arena, &src, &v));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_value(c->g, to, name, &v));
    f = &c->g->nodes[from];
  }
  return NULL;
}

/* Points input `in` of a node at (to, port). The name string is the
 * graph's (nodes' names live as long as the graph). */
static void repoint(grt_opt_ctx* c, grt_input* in, int32_t to, int32_t port) {
  in->node = c->g->nodes[to].name;
  in->src = to;
  in->port = port;
}

grt_status* grt_opt_replace_uses(grt_opt_ctx* c, int32_t from, int32_t from_port, int32_t to,
                                 int32_t to_port, bool with_controls, bool derived) {
  grt_graph* g = c->g;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    if (i == to || (c->flags[i] & OPT_DEAD)) continue;
    grt_node* n = &g->nodes[i];
    for (int32_t k = 0; k < n->n_inputs; k++)
      if (n->inputs[k].src == from && n->inputs[k].port == from_port)
        repoint(c, &n->inputs[k], to, to_port);
    for (int32_t k = 0; with_controls && from_port == 0 && k < n->n_controls; k++)
      if (n->controls[k].src == from) repoint(c, &n->controls[k], to, -1);
  }
  g->validated = false;
  if (!derived) c->flags[to] |= OPT_NO_FEED;
  return NULL;
}

void grt_opt_kill(grt_opt_ctx* c, int32_t i) { c->flags[i] |= OPT_DEAD; }

void grt_opt_mark_feed_unsafe(grt_opt_ctx* c, int32_t i) { c->flags[i] |= OPT_NO_FEED; }

void grt_opt_take_name(grt_opt_ctx* c, int32_t node, int32_t from) { c->take_name[node] = from; }

void grt_opt_count(grt_opt_ctx* c, int32_t n) {
  if (c->rep) c->rep->changes += n;
}

void grt_opt_detail(grt_opt_ctx* c, const char* fmt, ...) {
  if (!c->rep) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->rep->detail, sizeof c->rep->detail, fmt, ap);
  va_end(ap);
}
