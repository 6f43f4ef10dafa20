/* Undoing additions: a transformation that adds nodes takes a mark first
 * and, if it fails, rolls the graph back to it. Everything the rollback
 * needs is allocated when the mark is taken, so a rollback cannot fail,
 * not even when memory has run out. */
#include "base/status.h"
#include "base/strmap.h"
#include "ops/graph.h"

grt_status* grt_graph_mark_take(grt_graph* g, grt_graph_mark* m) {
  m->n_nodes = g->n_nodes;
  grt_strmap_init(&m->names);
  bool ok = grt_strmap_reserve(&m->names, (size_t)g->n_nodes);
  for (int32_t i = 0; ok && i < g->n_nodes; i++)
    ok = grt_strmap_put(&m->names, g->nodes[i].name, i, NULL) >= 0;
  if (!ok) {
    grt_strmap_clear(&m->names);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory changing the graph");
  }
  return NULL;
}

void grt_graph_mark_release(grt_graph_mark* m) { grt_strmap_clear(&m->names); }

void grt_graph_mark_rollback(grt_graph* g, grt_graph_mark* m) {
  for (int32_t i = m->n_nodes; i < g->n_nodes; i++)
    for (int32_t k = 0; k < g->nodes[i].n_attrs; k++)
      grt_attr_value_release(&g->nodes[i].attrs[k].value);
  grt_strmap_clear(&g->by_name);
  g->by_name = m->names;
  grt_strmap_init(&m->names);
  g->n_nodes = m->n_nodes;
  g->validated = false;
}

bool grt_graph_truncate(grt_graph* g, int32_t n) {
  if (!g || n < 0 || n >= g->n_nodes) return true;
  grt_graph_mark m = {n, {0}};
  grt_strmap_init(&m.names);
  bool ok = grt_strmap_reserve(&m.names, (size_t)n);
  for (int32_t i = 0; ok && i < n; i++)
    ok = grt_strmap_put(&m.names, g->nodes[i].name, i, NULL) >= 0;
  if (!ok) {
    grt_strmap_clear(&m.names);
    return false;
  }
  grt_graph_mark_rollback(g, &m);
  return true;
}
