/* Whether a callable's step can be captured (capture.h): every kernel on
 * one device whose backend records streams and says the kernel may be
 * recorded, values crossing only from feeds into that device's memory and
 * from it to fetches, and nothing the host computes from values that
 * change between calls. */
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "runtime/session/capture_check.h"

static const grt_node* node_of(const grt_session* s, const exec_node* x) {
  return x->rw ? x->rw->node : &s->graph->nodes[x->node];
}

static const grt_op_kernel* kernel_of(const grt_session* s, const exec_node* x) {
  return x->rw ? x->rw->kernel : s->kernels[x->node];
}

static bool can_record(const grt_device* d) {
  const grt_device_ops* o = d->ops;
  return o->capturable && o->capture_begin && o->capture_end && o->replay && o->captured_free;
}

/* Ops whose host-memory outputs depend only on their inputs' shapes. */
static bool shape_only(const char* op) {
  static const char* const kOps[] = {"Shape", "ShapeN", "Size", "Rank"};
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++)
    if (strcmp(op, kOps[i]) == 0) return true;
  return false;
}

/* The device of the step's kernels, or a reason why there is none. */
static bool one_device(const grt_session* s, const grt_executable* e, int32_t* out, char* why,
                       size_t size) {
  int32_t dev = -1, first = -1;
  for (int32_t x = 0; x < e->n_nodes; x++) {
    const exec_node* n = &e->nodes[x];
    if (n->kind != EXEC_KERNEL) continue;
    const grt_device* d = s->device[n->device];
    if (d->host_addressable) {
      snprintf(why, size, "node '%s' (%s) runs on %s, whose work cannot be recorded",
               node_of(s, n)->name, node_of(s, n)->op, d->name);
      return false;
    }
    if (dev >= 0 && n->device != dev) {
      snprintf(
          why, size, "node '%s' runs on %s and node '%s' on %s: a captured step runs on one device",
          node_of(s, &e->nodes[first])->name, s->device[dev]->name, node_of(s, n)->name, d->name);
      return false;
    }
    if (dev < 0) dev = n->device, first = x;
  }
  if (dev < 0) {
    snprintf(why, size, "the step runs no kernel");
    return false;
  }
  if (!can_record(s->device[dev])) {
    snprintf(why, size, "%s cannot record its streams (its backend has no capture hooks)",
             s->device[dev]->name);
    return false;
  }
  *out = dev;
  return true;
}

/* Copies: feeds into the device's memory, fetches out of it. */
static bool copies_allowed(const grt_session* s, const grt_executable* e, int32_t dev,
                           const grt_output* feeds, const bool* host_static,
                           const int32_t* producer, char* why, size_t size) {
  for (int32_t x = 0; x < e->n_nodes; x++) {
    const exec_node* n = &e->nodes[x];
    if (n->kind != EXEC_SEND) continue;
    const exec_node* recv = &e->nodes[n->peer];
    if (n->n_inputs == 0) {
      snprintf(why, size, "a control edge crosses from %s to %s", s->device[n->device]->name,
               s->device[recv->device]->name);
      return false;
    }
    if (recv->device == dev) {
      int32_t slot = e->in_slots[n->in_start], fi = -1;
      for (int32_t i = 0; i < e->n_feeds; i++)
        if (e->feed_slots[i] == slot) fi = i;
      if (n->dst_host) {
        if (fi >= 0)
          snprintf(why, size, "feed '%s:%d' is read in host memory on %s",
                   s->graph->nodes[feeds[fi].node].name, (int)feeds[fi].port, s->device[dev]->name);
        else
          snprintf(why, size, "the output of node '%s' (%s) on %s is read in host memory of %s",
                   s->graph->nodes[n->node].name, s->graph->nodes[n->node].op,
                   s->device[n->device]->name, s->device[dev]->name);
        return false;
      }
      continue;
    }
    /* A fetch: out of device memory, or a host value fixed for the recording. */
    const grt_node* g = &s->graph->nodes[n->node];
    int32_t p = producer[e->in_slots[n->in_start]];
    if (n->src_host && !(p >= 0 && host_static[p])) {
      snprintf(why, size, "fetch of '%s' (%s) is computed on the host each call", g->name, g->op);
      return false;
    }
  }
  return true;
}

/* The kernel whose host-memory output `slot` is, or -1 (a device-memory
 * value, a feed, a copy). */
static int32_t host_producer(const grt_executable* e, const int32_t* producer, int32_t slot) {
  int32_t p = producer[slot];
  if (p < 0 || e->nodes[p].kind != EXEC_KERNEL) return -1;
  return (e->nodes[p].host_outputs >> (slot - e->nodes[p].out_start)) & 1 ? p : -1;
}

/* host_static[x]: kernel x's host-memory outputs are the same on every call
 * with the recording's shapes (a shape op, or host arithmetic on such
 * values), so the values the recording computed on the host stay right. */
static void find_host_static(const grt_session* s, const grt_executable* e, bool* host_static,
                             int32_t* producer) {
  for (int32_t i = 0; i < e->n_slots; i++) producer[i] = -1;
  for (int32_t x = 0; x < e->n_nodes; x++)
    for (int32_t o = 0; o < e->nodes[x].n_outputs; o++) producer[e->nodes[x].out_start + o] = x;
  for (bool changed = true; changed;) {
    changed = false;
    for (int32_t x = 0; x < e->n_nodes; x++) {
      const exec_node* n = &e->nodes[x];
      if (host_static[x] || n->kind != EXEC_KERNEL || !n->host_outputs) continue;
      const grt_node* g = node_of(s, n);
      /* A shape op reads only its inputs' dims; other host kernels need
       * every input to be such a value (a variable's never is). */
      bool fixed = true;
      for (int32_t o = 0; o < g->sig.n_outputs; o++) fixed &= !g->sig.output_is_ref[o];
      for (int32_t i = 0; fixed && !shape_only(g->op) && i < n->n_inputs; i++) {
        int32_t p = host_producer(e, producer, e->in_slots[n->in_start + i]);
        fixed = p >= 0 && !g->sig.input_is_ref[i] && host_static[p];
      }
      if (fixed) host_static[x] = changed = true;
    }
  }
}

/* No kernel reads on the host a value that changes between calls. */
static bool host_reads_fixed(const grt_session* s, const grt_executable* e, const bool* host_static,
                             const int32_t* producer, char* why, size_t size) {
  for (int32_t x = 0; x < e->n_nodes; x++) {
    const exec_node* n = &e->nodes[x];
    for (int32_t i = 0; n->kind == EXEC_KERNEL && i < n->n_inputs; i++) {
      int32_t p = host_producer(e, producer, e->in_slots[n->in_start + i]);
      if (p >= 0 && !host_static[p]) {
        snprintf(why, size,
                 "node '%s' (%s) reads in host memory a value computed on each call (input %d, "
                 "from '%s')",
                 node_of(s, n)->name, node_of(s, n)->op, (int)i, node_of(s, &e->nodes[p])->name);
        return false;
      }
    }
  }
  return true;
}

grt_status* grt_capture_check(const grt_session* s, const grt_executable* e,
                              const grt_output* feeds, int32_t* device, int32_t* n_kernels,
                              char* why, size_t size) {
  *device = -1;
  *n_kernels = 0;
  why[0] = 0;
  if (e->n_groups) {
    snprintf(why, size, "NcclAllReduce group '%s' runs across devices", e->groups[0].shared_name);
    return NULL;
  }
  int32_t dev;
  if (!one_device(s, e, &dev, why, size)) return NULL;
  grt_device* d = s->device[dev];
  for (int32_t x = 0; x < e->n_nodes; x++) {
    const exec_node* n = &e->nodes[x];
    if (n->kind != EXEC_KERNEL) continue;
    const char* reason = "cannot be recorded";
    if (!d->ops->capturable(d, kernel_of(s, n), &reason)) {
      snprintf(why, size, "node '%s' (%s) on %s: its kernel %s", node_of(s, n)->name,
               node_of(s, n)->op, d->name, reason);
      return NULL;
    }
    ++*n_kernels;
  }
  bool* host_static = grt_calloc((size_t)e->n_nodes + 1, sizeof *host_static);
  int32_t* producer = grt_malloc(((size_t)e->n_slots + 1) * sizeof *producer);
  grt_status* st = NULL;
  if (!host_static || !producer) {
    st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory checking a callable for capture");
  } else {
    find_host_static(s, e, host_static, producer);
    if (copies_allowed(s, e, dev, feeds, host_static, producer, why, size) &&
        host_reads_fixed(s, e, host_static, producer, why, size))
      *device = dev;
  }
  grt_free(host_static);
  grt_free(producer);
  return st;
}
