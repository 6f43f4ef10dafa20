/* Session option `dims`: symbolic dimensions bound to sizes when the
 * session is made. An ONNX model's inputs name their unknown dimensions
 * (dim_param "N"); the importer keeps the names in each Placeholder's
 * dim_names attr. With dims=N=1 the session runs a copy of the user's
 * graph whose Placeholders declare the bound sizes, so shape inference
 * knows every shape the sizes decide: the optimizer folds the Shape ->
 * Gather -> Concat -> Reshape chains exporters write, and a feed of
 * another size is refused as for any declared shape. The user's graph is
 * not changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "ops/graph.h"
#include "ops/node_copy.h"
#include "runtime/session/dims.h"

grt_status* grt_dims_parse(const char* text, grt_dim_binding* out, int32_t* n) {
  *n = 0;
  for (const char* p = text; *p;) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char* eq = memchr(p, '=', len);
    char* stop = NULL;
    errno = 0;
    long long size = eq ? strtoll(eq + 1, &stop, 10) : -1;
    if (!eq || eq == p || stop == eq + 1 || stop != p + len || errno || size < 0 ||
        (size_t)(eq - p) >= sizeof out->name)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "option dims: '%.*s' is not NAME=SIZE (a name, '=', a size of 0 or more)",
                       (int)len, p);
    if (*n == GRT_MAX_DIM_BINDINGS)
      return GRT_ERROR(INVALID_ARGUMENT, "option dims: more than %d names", GRT_MAX_DIM_BINDINGS);
    grt_dim_binding* b = &out[*n];
    snprintf(b->name, sizeof b->name, "%.*s", (int)(eq - p), p);
    for (int32_t i = 0; i < *n; i++)
      if (strcmp(out[i].name, b->name) == 0)
        return GRT_ERROR(INVALID_ARGUMENT, "option dims: '%s' is given twice", b->name);
    b->size = size;
    b->used = false;
    ++*n;
    p = end ? end + 1 : p + len;
    if (end && !*p) return GRT_ERROR(INVALID_ARGUMENT, "option dims: '%s' ends with ','", text);
  }
  return NULL;
}

static grt_dim_binding* find(grt_dim_binding* b, int32_t n, const char* name) {
  for (int32_t i = 0; i < n; i++)
    if (strcmp(b[i].name, name) == 0) return &b[i];
  return NULL;
}

/* The graph's symbolic dimension names, "a, b" (each once), for messages. */
static void list_names(const grt_graph* g, grt_strbuf* out) {
  const char* seen[GRT_MAX_DIM_BINDINGS];
  int32_t n = 0;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const grt_attr_value* names = grt_node_find_attr(&g->nodes[i], "dim_names");
    for (int32_t d = 0; names && d < names->u.list.n; d++) {
      const char* s = names->u.list.v.s[d];
      bool dup = !s[0];
      for (int32_t k = 0; !dup && k < n; k++) dup = strcmp(seen[k], s) == 0;
      if (dup || n == GRT_MAX_DIM_BINDINGS) continue;
      grt_strbuf_printf(out, "%s%s", n ? ", " : "", s);
      seen[n++] = s;
    }
  }
}

/* Node i's copy's declared shape with the bound sizes, when it is a
 * Placeholder naming its dimensions. */
static grt_status* bind_placeholder(grt_graph* copy, int32_t k, const grt_node* n,
                                    grt_dim_binding* b, int32_t nb) {
  const grt_attr_value* names = grt_node_find_attr(n, "dim_names");
  if (strcmp(n->op, "Placeholder") != 0 || !names || names->u.list.n == 0) return NULL;
  const grt_attr_value* sv = grt_node_attr(n, "shape");
  if (!sv || sv->u.shape.rank != names->u.list.n)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "node '%s' (Placeholder): dim_names has %d names for a shape of rank %d",
                     n->name, (int)names->u.list.n, sv ? (int)sv->u.shape.rank : -1);
  grt_shape s = sv->u.shape;
  bool changed = false;
  for (int32_t d = 0; d < s.rank; d++) {
    grt_dim_binding* x = names->u.list.v.s[d][0] ? find(b, nb, names->u.list.v.s[d]) : NULL;
    if (!x) continue;
    x->used = true;
    if (s.dims[d] >= 0 && s.dims[d] != x->size)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "option dims: %s=%lld, but node '%s' declares dimension %d (%s) as %lld",
                       x->name, (long long)x->size, n->name, (int)d, x->name, (long long)s.dims[d]);
    s.dims[d] = x->size;
    changed = true;
  }
  return changed ? grt_graph_set_attr_shape(copy, k, "shape", s.rank, s.dims) : NULL;
}

grt_status* grt_session_bind_dims(const grt_graph* g, const char* dims, grt_graph** out) {
  *out = NULL;
  grt_dim_binding b[GRT_MAX_DIM_BINDINGS];
  int32_t nb;
  GRT_RETURN_IF_ERROR(grt_dims_parse(dims, b, &nb));
  grt_graph* copy = NULL;
  grt_status* st = grt_graph_new(&copy);
  for (int32_t i = 0; !st && i < g->n_nodes; i++) {
    int32_t k;
    st = grt_copy_node(copy, g, i, g->nodes[i].name, NULL, grt_copy_rename_same, NULL, &k);
    if (!st) st = bind_placeholder(copy, k, &g->nodes[i], b, nb);
  }
  for (int32_t i = 0; !st && i < nb; i++) {
    if (b[i].used) continue;
    grt_strbuf names = {0};
    list_names(g, &names);
    st = GRT_ERROR(
        INVALID_ARGUMENT, "option dims: no input of the graph has a dimension named '%s' (%s%s)",
        b[i].name, names.len ? "the graph's: " : "the graph names none", grt_strbuf_str(&names));
    grt_strbuf_free(&names);
  }
  if (!st) st = grt_graph_validate(copy);
  if (st) {
    grt_graph_free(copy);
    return st;
  }
  *out = copy;
  return NULL;
}
