/* A picture of the plan in Graphviz's DOT language (the grt command turns
 * it into SVG; the library never spawns programs). Nodes are filled with
 * their device's colour; edges that cross devices (where copies go) are red,
 * bold and dashed; control edges are dotted. */
#include <stdio.h>

#include "base/status.h"
#include "placer/internal.h"

static const char* const kPalette[] = {
    "#cfe2f3", "#d9ead3", "#fff2cc", "#f4cccc", "#d9d2e9", "#fce5cd",
    "#d0e0e3", "#ead1dc", "#b6d7a8", "#ffe599", "#9fc5e8", "#ea9999",
};
#define PALETTE_SIZE ((int32_t)(sizeof kPalette / sizeof kPalette[0]))

static void put_label(FILE* f, const char* s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
}

grt_status* grt_plan_write_dot(const grt_plan* p, FILE* f) {
  if (!p || !f) return GRT_ERROR(INVALID_ARGUMENT, "grt_plan_write_dot needs a plan and a file");
  const grt_device_set* ds = p->devices;
  const grt_node* nodes = p->g->nodes;
  fprintf(f, "digraph plan {\n  rankdir=TB;\n");
  fprintf(f,
          "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n");
  fprintf(f, "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  fprintf(f, "  subgraph cluster_devices {\n    label=\"devices\";\n");
  for (int32_t i = 0; i < ds->n; i++)
    fprintf(f, "    d%d [label=\"%s:%d\", fillcolor=\"%s\"];\n", (int)i,
            grt_device_type_name(ds->devs[i].type), (int)ds->devs[i].id,
            kPalette[i % PALETTE_SIZE]);
  fprintf(f, "  }\n");
  for (int32_t v = 0; v < p->n; v++) {
    const grt_device_entry* d = &ds->devs[p->device[v]];
    fprintf(f, "  n%d [label=\"", (int)v);
    put_label(f, nodes[v].name);
    fprintf(f, "\\n");
    put_label(f, nodes[v].op);
    fprintf(f, "\\n%s:%d\", fillcolor=\"%s\"];\n", grt_device_type_name(d->type), (int)d->id,
            kPalette[p->device[v] % PALETTE_SIZE]);
  }
  for (int32_t v = 0; v < p->n; v++) {
    const grt_node* n = &nodes[v];
    for (int32_t i = 0; i < n->n_inputs + n->n_controls; i++) {
      bool control = i >= n->n_inputs;
      const grt_input* in = control ? &n->controls[i - n->n_inputs] : &n->inputs[i];
      bool cross = p->device[in->src] != p->device[v];
      fprintf(f, "  n%d -> n%d", (int)in->src, (int)v);
      if (cross || control) {
        fprintf(f, " [");
        if (cross)
          fprintf(f, "color=\"red\", penwidth=2, xlabel=\"copy\", style=\"%s\"",
                  control ? "dotted" : "dashed");
        else
          fprintf(f, "style=\"dotted\"");
        fprintf(f, "]");
      }
      fprintf(f, ";\n");
    }
  }
  fprintf(f, "}\n");
  if (fflush(f) != 0 || ferror(f)) return GRT_ERROR(UNAVAILABLE, "cannot write the DOT graph");
  return NULL;
}
