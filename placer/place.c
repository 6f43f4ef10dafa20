/* grt_place: requests and kernel support per node, colocation groups,
 * candidates (with soft placement), the two assignment passes, copies. */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/context.h"

static void ctx_free(grt_place_ctx* c) {
  grt_free(c->types);
  grt_free(c->order);
  grt_free(c->kern);
  grt_free(c->parent);
  grt_free(c->rank);
  grt_free(c->greq);
  grt_free(c->gsrc);
  grt_free(c->gref);
  grt_free(c->gtypes);
  grt_free(c->gorder);
  grt_free(c->gflags);
  grt_free(c->gcand);
  grt_free(c->gspec);
  grt_free(c->gcause);
  grt_free(c->gstage);
  grt_free(c->gdev);
  grt_free(c->gdecider);
  grt_free(c->gheur);
}

static grt_status* ctx_alloc(grt_place_ctx* c) {
  size_t n = (size_t)c->n + 1;
  c->types = grt_calloc(n, 1);
  c->order = grt_calloc(n, 1);
  c->kern = grt_malloc(n * (size_t)c->n_slots * sizeof *c->kern);
  c->parent = grt_malloc(n * sizeof *c->parent);
  c->rank = grt_calloc(n, 1);
  c->greq = grt_malloc(n * sizeof *c->greq);
  c->gsrc = grt_malloc(n * sizeof *c->gsrc);
  c->gref = grt_malloc(n * sizeof *c->gref);
  c->gtypes = grt_calloc(n, 1);
  c->gorder = grt_calloc(n, 1);
  c->gflags = grt_calloc(n, 1);
  c->gcand = grt_malloc(n * sizeof *c->gcand);
  c->gspec = grt_calloc(n, sizeof *c->gspec);
  c->gcause = grt_calloc(n, 1);
  c->gstage = grt_calloc(n, 1);
  c->gdev = grt_malloc(n * sizeof *c->gdev);
  c->gdecider = grt_malloc(n * sizeof *c->gdecider);
  c->gheur = grt_calloc(n, 1);
  if (!c->types || !c->order || !c->kern || !c->parent || !c->rank || !c->greq || !c->gsrc ||
      !c->gref || !c->gtypes || !c->gorder || !c->gflags || !c->gcand || !c->gspec || !c->gcause ||
      !c->gstage || !c->gdev || !c->gdecider || !c->gheur)
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory placing %d nodes", (int)c->n);
  return NULL;
}

/* TensorFlow's check before anything else: an op with no kernel for any
 * device type in the set cannot be placed, soft placement or not. */
static grt_status* no_kernel_error(const grt_place_ctx* c, const grt_node* n) {
  grt_strbuf b = {0};
  grt_strbuf_printf(
      &b, "No OpKernel was registered to support Op '%s' used by node %s with these attrs: [",
      n->op, n->name);
  grt_ctx_describe_attrs(n, &b);
  grt_strbuf_printf(&b, "]\nRegistered devices: [");
  bool any = false;
  for (int32_t k = 0; k < c->n_slots; k++) {
    grt_strbuf_printf(&b, "%s%s", any ? ", " : "", grt_device_type_name(c->slot_type[k]));
    any = true;
  }
  char kernels[2048];
  grt_kernel_describe_op(n->op, kernels, sizeof kernels);
  grt_strbuf_printf(&b, "]\nRegistered kernels:\n%s", kernels);
  grt_status* s = GRT_ERROR(INVALID_ARGUMENT, "%s", grt_strbuf_str(&b));
  grt_free(b.s);
  return s;
}

/* TensorFlow's kernel priority: among the set's types with a kernel
 * (rows[t] not NULL), when their kernels' priorities differ, the type with
 * the highest goes first (ties between types by device type priority, then
 * id); the rest keep the device types' order. */
static uint8_t kernel_order(const grt_place_ctx* c, const grt_kernel_def* const* rows) {
  const grt_kernel_def* first = NULL;
  bool differ = false;
  for (int32_t k = 0; k < c->n_slots && !differ; k++) {
    const grt_kernel_def* d = rows[c->slot_type[k]];
    if (!d) continue;
    differ = first && d->priority != first->priority;
    if (!first) first = d;
  }
  if (!differ) return GRT_ORDER_DEFAULT; /* the usual case */
  const grt_kernel_def* best = NULL;
  for (int32_t k = 0; k < c->n_slots; k++) {
    const grt_kernel_def* d = rows[c->slot_type[k]];
    if (!d) continue;
    if (!best || d->priority > best->priority ||
        (d->priority == best->priority &&
         grt_device_type_priority(d->device) > grt_device_type_priority(best->device)))
      best = d;
  }
  return GRT_ORDER_FIRST(best->device);
}

/* Own requests, kernel support and singleton groups. */
static grt_status* init_nodes(grt_place_ctx* c) {
  grt_plan* p = c->plan;
  for (int32_t v = 0; v < c->n; v++) {
    const grt_node* n = &c->nodes[v];
    if (n->device && n->device[0]) {
      grt_status* s = grt_requests_intern_raw(&p->reqs, n->device, &p->request[v]);
      if (s) return grt_status_prefix(s, "node '%s' (%s)", n->name, n->op);
    }
    const grt_kernel_def* rows[GRT_MAX_DEVICE_TYPES];
    uint32_t mask = grt_kernel_supported_rows(n, rows) & c->set_types;
    if (!mask) return no_kernel_error(c, n);
    int32_t* kern = &c->kern[(size_t)v * (size_t)c->n_slots];
    for (int32_t k = 0; k < c->n_slots; k++) {
      const grt_kernel_def* d = rows[c->slot_type[k]];
      kern[k] = d ? d->index : -1;
    }
    c->types[v] = (uint8_t)mask;
    c->order[v] = mask & (mask - 1) ? kernel_order(c, rows) : GRT_ORDER_DEFAULT;
    c->parent[v] = v;
    c->greq[v] = p->request[v];
    c->gsrc[v] = p->request[v] ? v : -1;
    c->gref[v] = -1;
    c->gtypes[v] = (uint8_t)mask;
    c->gorder[v] = c->order[v];
    c->gcand[v] = -1;
    c->gdev[v] = -1;
    c->gdecider[v] = -1;
  }
  return NULL;
}

grt_status* grt_place(grt_graph* g, const grt_device_set* devices, const grt_place_options* opts,
                      grt_plan** out) {
  *out = NULL;
  if (!g || !devices)
    return GRT_ERROR(INVALID_ARGUMENT, "grt_place needs a graph and a device set");
  if (devices->n == 0) return GRT_ERROR(FAILED_PRECONDITION, "No devices are registered");
  const grt_status* reg = grt_kernel_registry_status();
  if (reg) /* out of memory stays RESOURCE_EXHAUSTED; anything else is a bug */
    return grt_status_new(
        grt_status_code(reg) == GRT_RESOURCE_EXHAUSTED ? GRT_RESOURCE_EXHAUSTED : GRT_INTERNAL,
        "the kernel registry failed to build: %s", grt_status_message(reg));
  if (!g->validated) GRT_RETURN_IF_ERROR(grt_graph_validate(g));
  grt_plan* p;
  GRT_RETURN_IF_ERROR(grt_plan_alloc(g, devices, &p));
  p->soft = opts && opts->soft;
  grt_place_ctx c;
  memset(&c, 0, sizeof c);
  c.plan = p;
  c.g = g;
  c.nodes = g->nodes;
  c.n = g->n_nodes;
  c.soft = p->soft;
  c.set_types = grt_device_set_types(p->devices);
  for (grt_device_type t = 0; t < GRT_MAX_DEVICE_TYPES; t++) {
    c.slot[t] = -1;
    if (!(c.set_types & (1u << t))) continue;
    c.slot[t] = (int8_t)c.n_slots;
    c.slot_type[c.n_slots++] = t;
  }
  grt_status* s = grt_place_ps_setter(p, opts);
  if (!s) s = ctx_alloc(&c);
  if (!s) s = init_nodes(&c);
  if (!s) s = grt_ctx_colocate(&c);
  if (!s) s = grt_ctx_candidates(&c);
  if (!s) s = grt_ctx_assign(&c);
  if (!s) s = grt_place_copies(p);
  ctx_free(&c);
  if (s) {
    grt_plan_free(p);
    return s;
  }
  *out = p;
  return NULL;
}
