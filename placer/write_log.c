/* The placement log, in TensorFlow's format (docs/placement.md). */
#include <stdio.h>

#include "placer/internal.h"
#include "base/status.h"

grt_status* grt_plan_write_log(const grt_plan* p, FILE* f) {
  if (!p || !f) return GRT_ERROR(INVALID_ARGUMENT, "grt_plan_write_log needs a plan and a file");
  const grt_device_set* ds = p->devices;
  GRT_RETURN_IF_ERROR(grt_device_set_write(ds, f));
  const grt_node* nodes = p->g->nodes;
  for (int32_t v = 0; v < p->n; v++)
    fprintf(f, "%s: (%s): %s\n", nodes[v].name, nodes[v].op, ds->devs[p->device[v]].name);
  if (fflush(f) != 0 || ferror(f)) return GRT_ERROR(UNAVAILABLE, "cannot write the placement log");
  return NULL;
}
