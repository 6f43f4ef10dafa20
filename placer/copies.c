/* Copies: where an edge crosses devices, execution inserts one copy per
 * (source tensor, destination device), however many consumers share it.
 * Control edges that cross devices are listed with port -1 (a signal). */
#include <stdlib.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/internal.h"

static int cmp_copy(const void* a, const void* b) {
  const grt_plan_copy* x = a;
  const grt_plan_copy* y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->port != y->port) return x->port < y->port ? -1 : 1;
  if (x->dst_device != y->dst_device) return x->dst_device < y->dst_device ? -1 : 1;
  return 0;
}

grt_status* grt_place_copies(grt_plan* p) {
  const grt_node* nodes = p->g->nodes;
  size_t cross = 0;
  for (int32_t v = 0; v < p->n; v++) {
    const grt_node* n = &nodes[v];
    for (int32_t i = 0; i < n->n_inputs; i++) cross += p->device[n->inputs[i].src] != p->device[v];
    for (int32_t i = 0; i < n->n_controls; i++)
      cross += p->device[n->controls[i].src] != p->device[v];
  }
  p->n_copies = 0;
  if (cross == 0) return NULL;
  if (cross > INT32_MAX) return GRT_ERROR(RESOURCE_EXHAUSTED, "too many cross-device edges");
  grt_plan_copy* copies = grt_malloc(cross * sizeof *copies);
  if (!copies) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory listing copies");
  size_t k = 0;
  for (int32_t v = 0; v < p->n; v++) {
    const grt_node* n = &nodes[v];
    for (int32_t i = 0; i < n->n_inputs + n->n_controls; i++) {
      const grt_input* in = i < n->n_inputs ? &n->inputs[i] : &n->controls[i - n->n_inputs];
      if (p->device[in->src] == p->device[v]) continue;
      grt_plan_copy* c = &copies[k++];
      c->src = in->src;
      c->port = i < n->n_inputs ? in->port : -1;
      c->src_device = p->device[in->src];
      c->dst_device = p->device[v];
      c->src_host_memory = c->port >= 0 && grt_plan_output_in_host_memory(p, c->src, c->port);
    }
  }
  qsort(copies, k, sizeof *copies, cmp_copy);
  size_t unique = 0;
  for (size_t i = 0; i < k; i++)
    if (unique == 0 || cmp_copy(&copies[unique - 1], &copies[i]) != 0) copies[unique++] = copies[i];
  p->copies = copies;
  p->n_copies = (int32_t)unique;
  for (size_t i = 0; i < unique; i++) p->copy_start[copies[i].src + 1]++;
  for (int32_t v = 0; v < p->n; v++) p->copy_start[v + 1] += p->copy_start[v];
  return NULL;
}
