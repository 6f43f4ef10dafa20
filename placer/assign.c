/* Assignment: TensorFlow's two passes over the nodes.
 *
 * First pass, in topological order (the graph order itself whenever it is
 * already topological): a node whose group is placed takes its device;
 * otherwise Shape/Size/Rank follow their input when the group may use that
 * device (heuristic B), and anything else takes the group's default. Every
 * placement fixes the whole group. Generators (no data inputs, one non-ref
 * output) wait for the second pass, where they follow their consumers when
 * all of those share one device the group may use (heuristic A). Unlike
 * TensorFlow, a metadata op reading a generator waits for it (TensorFlow
 * gives up on the heuristic there, a TODO in its placer) and does not count
 * among the generator's consumers.
 *
 * Then each node gets its reason, and the kernel its device type runs. */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "ops/op_def.h"
#include "placer/context.h"

static bool is_generator(const grt_node* n) {
  return n->n_inputs == 0 && n->sig.n_outputs == 1 &&
         !(n->sig.output_is_ref && n->sig.output_is_ref[0]);
}

static bool is_metadata(const grt_node* n) {
  return n->def && (n->def->flags & GRT_OP_METADATA) && n->n_inputs > 0;
}

/* Post-order DFS from each node in graph order: inputs (data and control)
 * come first, and nodes keep their graph order wherever that already
 * respects the edges. Iterative, so a million-node chain is fine. */
static grt_status* topo_order(const grt_place_ctx* c, int32_t* order) {
  int32_t n = c->n;
  uint8_t* state = grt_calloc((size_t)n + 1, 1);
  int32_t* stack = grt_malloc(((size_t)n + 1) * sizeof *stack);
  int32_t* next = grt_malloc(((size_t)n + 1) * sizeof *next);
  if (!state || !stack || !next) {
    grt_free(state);
    grt_free(stack);
    grt_free(next);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory ordering %d nodes", (int)n);
  }
  grt_status* s = NULL;
  int32_t count = 0;
  for (int32_t i = 0; i < n && !s; i++) {
    if (state[i]) continue;
    int32_t top = 0;
    stack[0] = i;
    next[0] = 0;
    state[i] = 1;
    while (top >= 0 && !s) {
      int32_t v = stack[top];
      const grt_node* nv = &c->nodes[v];
      int32_t k = next[top]++;
      if (k < nv->n_inputs + nv->n_controls) {
        int32_t u = k < nv->n_inputs ? nv->inputs[k].src : nv->controls[k - nv->n_inputs].src;
        if (state[u] == 0) {
          state[u] = 1;
          stack[++top] = u;
          next[top] = 0;
        } else if (state[u] == 1) {
          s = GRT_ERROR(INVALID_ARGUMENT, "node '%s' (%s) is on a cycle; cannot place the graph",
                        c->nodes[u].name, c->nodes[u].op);
        }
      } else {
        state[v] = 2;
        order[count++] = v;
        top--;
      }
    }
  }
  grt_free(state);
  grt_free(stack);
  grt_free(next);
  return s;
}

/* Places v (group root r) unless its group is placed already. */
static void place(grt_place_ctx* c, int32_t v, int32_t d, uint8_t how) {
  int32_t r = grt_ctx_find(c, v);
  if (c->gdev[r] < 0) {
    if (!grt_ctx_allowed(c, r, d)) {
      d = c->gcand[r];
      how = GRT_REASON_DEFAULT;
    }
    c->gdev[r] = d;
    c->gdecider[r] = v;
    c->gheur[r] = how;
  }
  c->plan->device[v] = c->gdev[r];
}

/* The reason for v's placement (see grt_place_reason). */
static void explain(grt_place_ctx* c, int32_t v) {
  grt_plan* p = c->plan;
  int32_t r = grt_ctx_find(c, v);
  int32_t own = p->request[v];
  int32_t d = p->device[v];
  p->spec[v] = c->gspec[r];
  if (own) {
    if (p->reqs.items[own].match[d]) {
      p->reason[v] = p->ps_record_of[v] >= 0 ? GRT_REASON_PS_SETTER : GRT_REASON_EXPLICIT;
      p->detail[v] = p->ps_record_of[v];
      return;
    }
    /* The request was not met: say what overrode it. */
    bool compatible =
        grt_device_name_compatible(&p->reqs.items[own].name, &p->reqs.items[c->greq[r]].name);
    if (compatible && c->gstage[r]) {
      p->reason[v] = GRT_REASON_SOFT_FALLBACK;
      p->cause[v] = c->gcause[r];
      p->stage[v] = c->gstage[r];
      p->detail[v] = c->gsrc[r] == v ? -1 : c->gsrc[r];
    } else if (!(c->gflags[r] & GRT_GROUP_SOFT_CONFLICT) && c->gref[r] >= 0) {
      p->reason[v] = GRT_REASON_COLOCATION;
      p->cause[v] = GRT_CAUSE_REF_EDGE;
      p->detail[v] = c->gref[r];
    } else {
      p->reason[v] = GRT_REASON_SOFT_FALLBACK;
      p->cause[v] = GRT_CAUSE_COLOCATION_CONFLICT;
      p->stage[v] = c->gstage[r];
      p->detail[v] = c->gsrc[r] == v ? c->gdecider[r] : c->gsrc[r];
    }
    return;
  }
  if (v == c->gdecider[r] &&
      (c->gheur[r] == GRT_REASON_CONSUMERS || c->gheur[r] == GRT_REASON_INPUT)) {
    p->reason[v] = c->gheur[r];
    if (c->gheur[r] == GRT_REASON_INPUT) p->detail[v] = c->nodes[v].inputs[0].src;
    return;
  }
  if (c->greq[r] != 0 && c->gsrc[r] >= 0) {
    p->reason[v] = GRT_REASON_COLOCATION;
    p->detail[v] = c->gsrc[r];
    if (c->gstage[r]) {
      p->cause[v] = c->gcause[r];
      p->stage[v] = c->gstage[r];
    }
    return;
  }
  if (v == c->gdecider[r]) {
    p->reason[v] = GRT_REASON_DEFAULT;
    return;
  }
  p->reason[v] = GRT_REASON_COLOCATION;
  p->detail[v] = c->gdecider[r];
}

grt_status* grt_ctx_assign(grt_place_ctx* c) {
  grt_plan* p = c->plan;
  int32_t n = c->n;
  int32_t* order = grt_malloc(((size_t)n + 1) * sizeof *order);
  if (!order) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory placing %d nodes", (int)n);
  grt_status* s = topo_order(c, order);
  if (s) {
    grt_free(order);
    return s;
  }
  /* First pass: everything but generators. A metadata op whose input is
   * not placed yet (a generator, or another such op) waits until after the
   * generators, so that it can still follow its input. */
  bool deferred = false;
  for (int32_t k = 0; k < n; k++) {
    int32_t v = order[k];
    const grt_node* nv = &c->nodes[v];
    if (is_generator(nv)) continue;
    if (is_metadata(nv)) {
      int32_t d = p->device[nv->inputs[0].src];
      if (d < 0) {
        deferred = true;
        continue;
      }
      place(c, v, d, GRT_REASON_INPUT);
    } else {
      place(c, v, -1, GRT_REASON_DEFAULT);
    }
  }
  /* The device all consumers of each node share: -1 none yet, -2 mixed or
   * not placed. `first` keeps the first consumer for the plan's reason. */
  int32_t* shared = grt_malloc(((size_t)n + 1) * sizeof *shared);
  int32_t* first = grt_malloc(((size_t)n + 1) * sizeof *first);
  if (!shared || !first) {
    grt_free(order);
    grt_free(shared);
    grt_free(first);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory placing %d nodes", (int)n);
  }
  for (int32_t v = 0; v < n; v++) shared[v] = first[v] = -1;
  for (int32_t v = 0; v < n; v++) {
    const grt_node* nv = &c->nodes[v];
    /* Deferred metadata ops will follow the generator: they have no vote. */
    if (p->device[v] < 0 && is_metadata(nv)) continue;
    int32_t d = p->device[v] >= 0 ? p->device[v] : -2;
    for (int32_t k = 0; k < nv->n_inputs + nv->n_controls; k++) {
      int32_t u = k < nv->n_inputs ? nv->inputs[k].src : nv->controls[k - nv->n_inputs].src;
      if (first[u] < 0) first[u] = v;
      if (shared[u] == -1)
        shared[u] = d;
      else if (shared[u] != d)
        shared[u] = -2;
    }
  }
  /* Second pass: generators, with their consumers when those agree. */
  for (int32_t k = 0; k < n; k++) {
    int32_t v = order[k];
    if (!is_generator(&c->nodes[v])) continue;
    place(c, v, shared[v] >= 0 ? shared[v] : -1, GRT_REASON_CONSUMERS);
  }
  for (int32_t k = 0; k < n && deferred; k++) {
    int32_t v = order[k];
    const grt_node* nv = &c->nodes[v];
    if (p->device[v] < 0 && is_metadata(nv))
      place(c, v, p->device[nv->inputs[0].src], GRT_REASON_INPUT);
  }
  for (int32_t v = 0; v < n; v++) {
    if (p->device[v] < 0) { /* every path above places every node; stay safe */
      grt_free(order);
      grt_free(shared);
      grt_free(first);
      return GRT_ERROR(INTERNAL, "node '%s' (%s) was left unplaced", c->nodes[v].name,
                       c->nodes[v].op);
    }
    explain(c, v);
    if (p->reason[v] == GRT_REASON_CONSUMERS) p->detail[v] = first[v];
    p->kernel[v] =
        c->kern[(size_t)v * (size_t)c->n_slots + c->slot[p->devices->devs[p->device[v]].type]];
  }
  grt_free(order);
  grt_free(shared);
  grt_free(first);
  return NULL;
}
