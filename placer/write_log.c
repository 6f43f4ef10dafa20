/* The placement log, in TensorFlow's format (docs/placement.md), with one
 * addition: a node that soft placement moved off its request says so at
 * the end of its line, since TensorFlow's log gives no way to tell a
 * fallback from a node that asked for where it landed. */
#include <stdio.h>

#include "placer/internal.h"
#include "base/status.h"

/* The request soft placement could not meet for node v (its own, or for a
 * node placed with its colocation group, the group's), or NULL when v was
 * not moved off a request. */
static const char* fallback_request(const grt_plan* p, int32_t v) {
  bool moved = p->reason[v] == GRT_REASON_SOFT_FALLBACK ||
               (p->reason[v] == GRT_REASON_COLOCATION && p->stage[v] != 0);
  if (!moved) return NULL;
  int32_t req = p->request[v];
  int32_t other = p->detail[v];
  if (!req && other >= 0 && other < p->n) req = p->request[other];
  return req ? p->reqs.items[req].text : NULL;
}

grt_status* grt_plan_write_log(const grt_plan* p, FILE* f) {
  if (!p || !f) return GRT_ERROR(INVALID_ARGUMENT, "grt_plan_write_log needs a plan and a file");
  const grt_device_set* ds = p->devices;
  GRT_RETURN_IF_ERROR(grt_device_set_write(ds, f));
  const grt_node* nodes = p->g->nodes;
  for (int32_t v = 0; v < p->n; v++) {
    fprintf(f, "%s: (%s): %s", nodes[v].name, nodes[v].op, ds->devs[p->device[v]].name);
    const char* requested = fallback_request(p, v);
    if (requested) fprintf(f, " (soft placement: requested %s)", requested);
    fputc('\n', f);
  }
  if (fflush(f) != 0 || ferror(f)) return GRT_ERROR(UNAVAILABLE, "cannot write the placement log");
  return NULL;
}
