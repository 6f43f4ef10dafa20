/* The plan: allocation, freeing and per-node queries. */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/internal.h"

static const char* const kReasonNames[] = {
    [GRT_REASON_EXPLICIT] = "explicit",           [GRT_REASON_COLOCATION] = "colocation",
    [GRT_REASON_SOFT_FALLBACK] = "soft_fallback", [GRT_REASON_DEFAULT] = "default",
    [GRT_REASON_CONSUMERS] = "consumers",         [GRT_REASON_INPUT] = "input",
    [GRT_REASON_PS_SETTER] = "ps_setter",
};

static const char* const kCauseNames[] = {
    [GRT_CAUSE_NONE] = "none",           [GRT_CAUSE_NO_SUCH_DEVICE] = "no_such_device",
    [GRT_CAUSE_NO_KERNEL] = "no_kernel", [GRT_CAUSE_COLOCATION_CONFLICT] = "colocation_conflict",
    [GRT_CAUSE_REF_EDGE] = "ref_edge",
};

const char* grt_place_reason_name(grt_place_reason r) {
  return (unsigned)r < sizeof kReasonNames / sizeof kReasonNames[0] ? kReasonNames[r] : "?";
}

const char* grt_place_cause_name(grt_place_cause c) {
  return (unsigned)c < sizeof kCauseNames / sizeof kCauseNames[0] ? kCauseNames[c] : "?";
}

grt_status* grt_plan_alloc(const grt_graph* g, const grt_device_set* ds, grt_plan** out) {
  *out = NULL;
  grt_plan* p = grt_calloc(1, sizeof *p);
  if (!p) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory allocating a plan");
  p->g = g;
  p->n = g->n_nodes;
  size_t n = (size_t)p->n + 1;
  p->arena = grt_arena_new();
  p->device = grt_malloc(n * sizeof *p->device);
  p->reason = grt_calloc(n, 1);
  p->cause = grt_calloc(n, 1);
  p->stage = grt_calloc(n, 1);
  p->request = grt_calloc(n, sizeof *p->request);
  p->detail = grt_malloc(n * sizeof *p->detail);
  p->kernel = grt_malloc(n * sizeof *p->kernel);
  p->spec = grt_calloc(n, sizeof *p->spec);
  p->ps_record_of = grt_malloc(n * sizeof *p->ps_record_of);
  p->copy_start = grt_calloc(n + 1, sizeof *p->copy_start);
  grt_status* s = NULL;
  if (!p->arena || !p->device || !p->reason || !p->cause || !p->stage || !p->request ||
      !p->detail || !p->kernel || !p->spec || !p->ps_record_of || !p->copy_start) {
    s = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory allocating a plan for %d nodes", (int)p->n);
  }
  if (!s) s = grt_device_set_copy(ds, &p->devices);
  if (!s) s = grt_requests_init(&p->reqs, p->devices, p->arena);
  if (s) {
    grt_plan_free(p);
    return s;
  }
  for (int32_t i = 0; i < p->n; i++) {
    p->device[i] = -1;
    p->detail[i] = -1;
    p->kernel[i] = -1;
    p->ps_record_of[i] = -1;
  }
  *out = p;
  return NULL;
}

void grt_plan_free(grt_plan* p) {
  if (!p) return;
  grt_free(p->device);
  grt_free(p->reason);
  grt_free(p->cause);
  grt_free(p->stage);
  grt_free(p->request);
  grt_free(p->detail);
  grt_free(p->kernel);
  grt_free(p->spec);
  grt_free(p->ps_record_of);
  grt_free(p->copy_start);
  grt_free(p->ps_request);
  grt_free(p->ps_records);
  grt_free(p->ps_loads);
  grt_free(p->ignored);
  grt_free(p->copies);
  grt_requests_clear(&p->reqs);
  grt_device_set_free(p->devices);
  grt_arena_free(p->arena);
  grt_free(p);
}

static bool in_range(const grt_plan* p, int32_t node) { return p && node >= 0 && node < p->n; }

const grt_device_set* grt_plan_devices(const grt_plan* p) { return p ? p->devices : NULL; }
int32_t grt_plan_num_nodes(const grt_plan* p) { return p ? p->n : 0; }

int32_t grt_plan_node_device(const grt_plan* p, int32_t node) {
  return in_range(p, node) ? p->device[node] : -1;
}

const char* grt_plan_node_device_name(const grt_plan* p, int32_t node) {
  return in_range(p, node) ? grt_device_set_name(p->devices, p->device[node]) : "";
}

const char* grt_plan_node_requested(const grt_plan* p, int32_t node) {
  if (!in_range(p, node)) return "";
  const char* written = p->g->nodes[node].device;
  if (written && *written) return written;
  int32_t rec = p->ps_record_of[node];
  return rec >= 0 ? p->ps_names[p->ps_records[rec].ps] : "";
}

grt_place_reason grt_plan_node_reason(const grt_plan* p, int32_t node) {
  return in_range(p, node) ? (grt_place_reason)p->reason[node] : GRT_REASON_DEFAULT;
}

grt_place_cause grt_plan_node_cause(const grt_plan* p, int32_t node) {
  return in_range(p, node) ? (grt_place_cause)p->cause[node] : GRT_CAUSE_NONE;
}

size_t grt_plan_node_reason_text(const grt_plan* p, int32_t node, char* buf, size_t size) {
  if (!in_range(p, node)) {
    if (size) buf[0] = '\0';
    return 0;
  }
  return grt_place_reason_text(p, node, buf, size);
}

int32_t grt_plan_num_copies(const grt_plan* p) { return p ? p->n_copies : 0; }

const grt_plan_copy* grt_plan_copy_at(const grt_plan* p, int32_t i) {
  return p && i >= 0 && i < p->n_copies ? &p->copies[i] : NULL;
}

bool grt_plan_input_in_host_memory(const grt_plan* p, int32_t node, int32_t input) {
  if (!in_range(p, node)) return false;
  const grt_node* n = &p->g->nodes[node];
  if (input < 0 || input >= n->n_inputs) return false;
  if (p->devices->devs[p->device[node]].type == GRT_DEVICE_CPU) return true; /* all host */
  return grt_kernel_input_in_host_memory(grt_kernel_at(p->kernel[node]), n, input);
}

bool grt_plan_output_in_host_memory(const grt_plan* p, int32_t node, int32_t output) {
  if (!in_range(p, node)) return false;
  const grt_node* n = &p->g->nodes[node];
  if (output < 0 || output >= n->sig.n_outputs) return false;
  if (p->devices->devs[p->device[node]].type == GRT_DEVICE_CPU) return true;
  /* any other type: as its kernel row says */
  return grt_kernel_output_in_host_memory(grt_kernel_at(p->kernel[node]), n, output);
}
