/* The plan as JSON (--plan-json): devices, the ps setter, and per node the
 * request, the assignment, the reason with its details and the copies. */
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/internal.h"

static void put_string(FILE* f, const char* s) {
  fputc('"', f);
  for (const unsigned char* c = (const unsigned char*)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c == '\n')
      fputs("\\n", f);
    else if (*c < 0x20)
      fprintf(f, "\\u%04x", *c);
    else
      fputc(*c, f);
  }
  fputc('"', f);
}

static const char* stage_name(uint8_t stage) {
  switch (stage) {
    case 1:
      return "id";
    case 2:
      return "address";
    case 3:
      return "type";
    default:
      return "none";
  }
}

static void put_loads(FILE* f, const int64_t* loads, int32_t n) {
  fputc('[', f);
  for (int32_t k = 0; k < n; k++) fprintf(f, "%s%lld", k ? ", " : "", (long long)loads[k]);
  fputc(']', f);
}

static void put_reason(const grt_plan* p, int32_t v, FILE* f, char* text, size_t text_size) {
  const grt_node* nodes = p->g->nodes;
  grt_place_reason r = (grt_place_reason)p->reason[v];
  int32_t other = p->detail[v];
  fprintf(f, "{\"kind\": \"%s\"", grt_place_reason_name(r));
  if (p->cause[v]) fprintf(f, ", \"cause\": \"%s\"", grt_place_cause_name(p->cause[v]));
  switch (r) {
    case GRT_REASON_SOFT_FALLBACK:
      fprintf(f, ", \"from\": ");
      put_string(f, grt_plan_node_requested(p, v));
      fprintf(f, ", \"to\": ");
      put_string(f, grt_device_set_name(p->devices, p->device[v]));
      fprintf(f, ", \"dropped\": \"%s\"", stage_name(p->stage[v]));
      break;
    case GRT_REASON_PS_SETTER: {
      int32_t rec = p->ps_record_of[v];
      const grt_ps_record* pr = &p->ps_records[rec];
      const int64_t* before = &p->ps_loads[(size_t)rec * (size_t)p->n_ps];
      fprintf(f, ", \"strategy\": \"%s\", \"ps_index\": %d, \"ps_device\": ",
              p->strategy == GRT_PS_GREEDY ? "greedy" : "round_robin", (int)pr->ps);
      put_string(f, p->ps_names[pr->ps]);
      fprintf(f, ", \"bytes\": %lld, \"loads_before\": ", (long long)pr->bytes);
      put_loads(f, before, p->n_ps);
      int64_t* after = grt_malloc((size_t)p->n_ps * sizeof *after);
      if (after) {
        for (int32_t k = 0; k < p->n_ps; k++) after[k] = before[k];
        if (pr->bytes > 0) after[pr->ps] += pr->bytes;
        fprintf(f, ", \"loads_after\": ");
        put_loads(f, after, p->n_ps);
        grt_free(after);
      }
      break;
    }
    default:
      if (other >= 0 && other < p->n) {
        const char* key = r == GRT_REASON_CONSUMERS ? "consumer"
                          : r == GRT_REASON_INPUT   ? "input"
                                                    : "with";
        fprintf(f, ", \"%s\": ", key);
        put_string(f, nodes[other].name);
      }
      if (p->stage[v]) fprintf(f, ", \"dropped\": \"%s\"", stage_name(p->stage[v]));
      break;
  }
  size_t need = grt_place_reason_text(p, v, text, text_size);
  (void)need; /* a reason longer than the buffer is cut; it stays readable */
  fprintf(f, ", \"text\": ");
  put_string(f, text);
  fputc('}', f);
}

grt_status* grt_plan_write_json(const grt_plan* p, FILE* f) {
  if (!p || !f) return GRT_ERROR(INVALID_ARGUMENT, "grt_plan_write_json needs a plan and a file");
  const grt_device_set* ds = p->devices;
  const grt_node* nodes = p->g->nodes;
  fprintf(f, "{\n  \"format\": \"grt.plan\",\n  \"version\": 1,\n  \"soft_placement\": %s,\n",
          p->soft ? "true" : "false");
  fprintf(f, "  \"devices\": [");
  for (int32_t i = 0; i < ds->n; i++) {
    const grt_device_entry* d = &ds->devs[i];
    fprintf(
        f,
        "%s\n    {\"index\": %d, \"name\": \"%s\", \"type\": \"%s\", \"id\": %d, \"present\": %s}",
        i ? "," : "", (int)i, d->name, grt_device_type_name(d->type), (int)d->id,
        d->present ? "true" : "false");
  }
  fprintf(f, "\n  ],\n");
  if (p->n_ps) {
    fprintf(f, "  \"ps\": {\"strategy\": \"%s\", \"devices\": [",
            p->strategy == GRT_PS_GREEDY ? "greedy" : "round_robin");
    for (int32_t k = 0; k < p->n_ps; k++) {
      if (k) fprintf(f, ", ");
      put_string(f, p->ps_names[k]);
    }
    fprintf(f, "], \"variables\": %d, \"loads\": ", (int)p->n_ps_records);
    int64_t* loads = grt_calloc((size_t)p->n_ps, sizeof *loads);
    if (loads) {
      for (int32_t r = 0; r < p->n_ps_records; r++)
        if (p->ps_records[r].bytes > 0) loads[p->ps_records[r].ps] += p->ps_records[r].bytes;
      put_loads(f, loads, p->n_ps);
      grt_free(loads);
    } else {
      fprintf(f, "null");
    }
    fprintf(f, "},\n");
  }
  char text[1024];
  fprintf(f, "  \"nodes\": [");
  for (int32_t v = 0; v < p->n; v++) {
    fprintf(f, "%s\n    {\"name\": ", v ? "," : "");
    put_string(f, nodes[v].name);
    fprintf(f, ", \"op\": ");
    put_string(f, nodes[v].op);
    fprintf(f, ", \"requested\": ");
    put_string(f, grt_plan_node_requested(p, v));
    fprintf(f, ", \"assigned\": \"%s\", \"device_index\": %d,\n     \"reason\": ",
            ds->devs[p->device[v]].name, (int)p->device[v]);
    put_reason(p, v, f, text, sizeof text);
    fprintf(f, ",\n     \"copies\": [");
    for (int32_t c = p->copy_start[v]; c < p->copy_start[v + 1]; c++) {
      const grt_plan_copy* cp = &p->copies[c];
      fprintf(f, "%s{\"port\": %d, \"to\": \"%s\", \"host_memory\": %s}",
              c > p->copy_start[v] ? ", " : "", (int)cp->port, ds->devs[cp->dst_device].name,
              cp->src_host_memory ? "true" : "false");
    }
    fprintf(f, "]}");
  }
  fprintf(f, "\n  ],\n  \"num_copies\": %d,\n  \"colocation_ignored\": [", (int)p->n_copies);
  for (int32_t i = 0; i < p->n_ignored; i++) {
    fprintf(f, "%s{\"node\": ", i ? ", " : "");
    put_string(f, nodes[p->ignored[2 * i]].name);
    fprintf(f, ", \"with\": ");
    put_string(f, nodes[p->ignored[2 * i + 1]].name);
    fprintf(f, "}");
  }
  fprintf(f, "]\n}\n");
  if (fflush(f) != 0 || ferror(f)) return GRT_ERROR(UNAVAILABLE, "cannot write the plan JSON");
  return NULL;
}
