/* grt_format_write_json: the JSON text form laid out for people and diffs.
 *
 *   {
 *     "format": "grt.graph",
 *     "version": 1,
 *     "nodes": [
 *       {"name": "w", "op": "VariableV2", "attrs": {"dtype": "float32", "shape": [2, 1]}},
 *       {"name": "y", "op": "MatMul", "inputs": ["a", "w"], "device": "/gpu:0",
 *        "attrs": {"transpose_a": false, "transpose_b": false}},
 *       ...
 *     ]
 *   }
 *
 * A node is one line when it fits kMaxLine columns; otherwise its attrs
 * start a second line, and when they do not fit there either, each attr
 * gets a line of its own. Keys come in one order (name, op, inputs, device,
 * colocate_with, attrs) and attrs in name order, so the same graph always
 * gives the same bytes and a change to one node changes its lines only. jansson escapes strings;
 * the layout is ours because jansson's pretty printer puts every list element on its own line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "graph_format/formats.h"
#include "graph_format/json_value.h"
#include "ops/graph.h"

enum { kMaxLine = 100 };
static const char kNodeIndent[] = "    ";
static const char kAttrsIndent[] = "     "; /* under the node's '{' plus one */
static const char kAttrsOpen[] = "\"attrs\": {";
/* Between attrs on lines of their own: each lines up under the first
 * attr's key, after kAttrsIndent and kAttrsOpen. */
static const char kAttrLineSep[] = ",\n               ";

typedef struct writer {
  FILE* f;
  grt_strbuf head;  /* {"name": ..., up to the attrs */
  grt_strbuf attrs; /* "key": value for each attr, back to back */
  size_t* attr_end; /* where each attr's text ends in `attrs` */
  const grt_attr** sorted;
  size_t cap;         /* of attr_end and sorted */
  grt_strbuf scratch; /* an input spec being put together */
  grt_strbuf out;     /* the node's finished lines */
} writer;

static grt_status* put(writer* w, const char* s, size_t n) {
  if (fwrite(s, 1, n, w->f) != n) {
    /* A full disk or, writing to memory (grt_graph_to_json), no memory
     * left: RESOURCE_EXHAUSTED, as the .grt writer reports them. */
    int err = errno;
    return grt_status_new(err == ENOSPC || err == ENOMEM ? GRT_RESOURCE_EXHAUSTED : GRT_UNKNOWN,
                          "writing the JSON text form failed: %s",
                          err ? strerror(err) : "write error");
  }
  return NULL;
}

static grt_status* put_str(writer* w, const char* s) { return put(w, s, strlen(s)); }

static int by_name(const void* a, const void* b) {
  return strcmp((*(const grt_attr* const*)a)->name, (*(const grt_attr* const*)b)->name);
}

/* Appends the input spec "src", "src:k" or "^src" as a JSON string. Running
 * out of memory for the spec counts as running out for the head, so the
 * head's status reports it instead of a line missing an input. */
static bool append_input(writer* w, const char* src, int32_t port) {
  grt_strbuf_reset(&w->scratch);
  if (port < 0) grt_strbuf_puts(&w->scratch, "^");
  grt_strbuf_puts(&w->scratch, src);
  if (port > 0) grt_strbuf_printf(&w->scratch, ":%d", (int)port);
  if (w->scratch.failed) {
    w->head.failed = 1;
    return true;
  }
  return grt_json_append_string(&w->head, w->scratch.s);
}

static grt_status* render_head(writer* w, const grt_node* n) {
  grt_strbuf* b = &w->head;
  grt_strbuf_reset(b);
  bool ok = true;
  grt_strbuf_puts(b, "{\"name\": ");
  ok &= grt_json_append_string(b, n->name);
  grt_strbuf_puts(b, ", \"op\": ");
  ok &= grt_json_append_string(b, n->op);
  if (n->n_inputs + n->n_controls > 0) {
    grt_strbuf_puts(b, ", \"inputs\": [");
    for (int32_t i = 0; i < n->n_inputs; i++) {
      if (i) grt_strbuf_puts(b, ", ");
      ok &= append_input(w, n->inputs[i].node, n->inputs[i].port);
    }
    for (int32_t i = 0; i < n->n_controls; i++) {
      if (i || n->n_inputs) grt_strbuf_puts(b, ", ");
      ok &= append_input(w, n->controls[i].node, -1);
    }
    grt_strbuf_puts(b, "]");
  }
  if (n->device && n->device[0]) {
    grt_strbuf_puts(b, ", \"device\": ");
    ok &= grt_json_append_string(b, n->device);
  }
  if (n->n_colocate > 0) {
    grt_strbuf_puts(b, ", \"colocate_with\": [");
    for (int32_t i = 0; i < n->n_colocate; i++) {
      if (i) grt_strbuf_puts(b, ", ");
      ok &= grt_json_append_string(b, n->colocate_with[i]);
    }
    grt_strbuf_puts(b, "]");
  }
  if (!ok)
    return GRT_ERROR(INVALID_ARGUMENT, "node '%s': a name or device is not valid UTF-8", n->name);
  return grt_json_text_status(b);
}

static grt_status* render_attrs(writer* w, const grt_node* n) {
  size_t count = (size_t)n->n_attrs;
  if (count > w->cap) {
    size_t* ends = grt_realloc(w->attr_end, count * sizeof *ends);
    if (ends) w->attr_end = ends;
    const grt_attr** sorted = grt_realloc(w->sorted, count * sizeof *sorted);
    if (sorted) w->sorted = sorted;
    if (!ends || !sorted) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory sorting attrs");
    w->cap = count;
  }
  for (size_t i = 0; i < count; i++) w->sorted[i] = &n->attrs[i];
  if (count > 1) qsort(w->sorted, count, sizeof *w->sorted, by_name);
  grt_strbuf_reset(&w->attrs);
  for (size_t i = 0; i < count; i++) {
    const grt_attr* a = w->sorted[i];
    if (!grt_json_append_string(&w->attrs, a->name))
      return GRT_ERROR(INVALID_ARGUMENT, "node '%s' (%s): an attr name is not valid UTF-8", n->name,
                       n->op);
    grt_strbuf_puts(&w->attrs, ": ");
    grt_status* s = grt_json_write_attr(&w->attrs, &a->value);
    if (s) return grt_status_prefix(s, "node '%s' (%s): attr '%s'", n->name, n->op, a->name);
    w->attr_end[i] = w->attrs.len;
  }
  return grt_json_text_status(&w->attrs);
}

/* Appends attrs [0, count) separated by `sep`. */
static void join_attrs(writer* w, size_t count, const char* sep) {
  size_t start = 0;
  for (size_t i = 0; i < count; i++) {
    if (i) grt_strbuf_puts(&w->out, sep);
    grt_strbuf_append(&w->out, w->attrs.s + start, w->attr_end[i] - start);
    start = w->attr_end[i];
  }
}

static grt_status* write_node(writer* w, const grt_node* n, bool last) {
  GRT_RETURN_IF_ERROR(render_head(w, n));
  GRT_RETURN_IF_ERROR(render_attrs(w, n));
  size_t count = (size_t)n->n_attrs;
  const char* comma = last ? "" : ",";
  /* Joined attrs: their text plus ", " between each pair. */
  size_t joined = w->attrs.len + (count ? 2 * (count - 1) : 0);
  size_t close = 1 + strlen(comma);
  size_t one_line = strlen(kNodeIndent) + w->head.len + close +
                    (count ? strlen(", ") + strlen(kAttrsOpen) + joined + 1 : 0);
  size_t attrs_line = strlen(kAttrsIndent) + strlen(kAttrsOpen) + joined + 1 + close;
  grt_strbuf* o = &w->out;
  grt_strbuf_reset(o);
  grt_strbuf_puts(o, kNodeIndent);
  grt_strbuf_append(o, w->head.s, w->head.len);
  if (count > 0 && one_line <= kMaxLine) {
    grt_strbuf_printf(o, ", %s", kAttrsOpen);
    join_attrs(w, count, ", ");
    grt_strbuf_puts(o, "}");
  } else if (count > 0) {
    grt_strbuf_printf(o, ",\n%s%s", kAttrsIndent, kAttrsOpen);
    join_attrs(w, count, attrs_line <= kMaxLine ? ", " : kAttrLineSep);
    grt_strbuf_puts(o, "}");
  }
  grt_strbuf_printf(o, "}%s\n", comma);
  GRT_RETURN_IF_ERROR(grt_json_text_status(o));
  return put(w, o->s, o->len);
}

grt_status* grt_format_write_json(grt_graph* g, FILE* f) {
  writer w = {.f = f};
  static const char kHeader[] = "{\n  \"format\": \"grt.graph\",\n  \"version\": 1,\n";
  grt_status* s = put_str(&w, kHeader);
  if (!s && g->n_nodes == 0) s = put_str(&w, "  \"nodes\": []\n}\n");
  if (!s && g->n_nodes > 0) {
    s = put_str(&w, "  \"nodes\": [\n");
    for (int32_t i = 0; !s && i < g->n_nodes; i++)
      s = write_node(&w, &g->nodes[i], i + 1 == g->n_nodes);
    if (!s) s = put_str(&w, "  ]\n}\n");
  }
  grt_strbuf_free(&w.head);
  grt_strbuf_free(&w.attrs);
  grt_strbuf_free(&w.scratch);
  grt_strbuf_free(&w.out);
  grt_free(w.attr_end);
  grt_free(w.sorted);
  return s;
}
