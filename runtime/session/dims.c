/* Session option `dims`: symbolic dimensions bound to sizes when the
 * session is made. An ONNX model's inputs name their unknown dimensions
 * (dim_param "N"); the importer keeps the names in each Placeholder's
 * dim_names attr. With dims=N=1 the session runs a copy of the user's
 * graph whose Placeholders declare the bound sizes, so shape inference
 * knows every shape the sizes decide: the optimizer folds the Shape ->
 * Gather -> Concat -> Reshape chains exporters write, and a feed of
 * another size is refused as for any declared shape. The user's graph is
 * not changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "ops/graph.h"
#include "ops/node_copy.h"
#include "runtime/session/session_internal.h"

enum { kMaxDims = 64 };

typedef struct {
  char name[128];
  int64_t size;
  bool used;
} binding;

static grt_status* parse(const char* text, binding* b, int32_t* n) {
  *n = 0;
  for (const char* p = text; *p;) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char* eq = memchr(p, '=', len);
    if (*n == kMaxDims)
      return GRT_ERROR(INVALID_ARGUMENT, "option dims: more than %d names", kMaxDims);
    if (!eq || (size_t)(eq - p) >= sizeof b->name)
      return GRT_ERROR(INVALID_ARGUMENT, "option dims: '%.*s' is not NAME=SIZE", (int)len, p);
    snprintf(b[*n].name, sizeof b->name, "%.*s", (int)(eq - p), p);
    b[*n].size = strtoll(eq + 1, NULL, 10); /* checked when the option was set */
    b[*n].used = false;
    ++*n;
    p = end ? end + 1 : p + len;
  }
  return NULL;
}

static binding* find(binding* b, int32_t n, const char* name) {
  for (int32_t i = 0; i < n; i++)
    if (strcmp(b[i].name, name) == 0) return &b[i];
  return NULL;
}

static void rename_same(void* ctx, const char* node, int32_t port, char* buf, size_t size) {
  (void)ctx;
  if (port > 0)
    snprintf(buf, size, "%s:%d", node, (int)port);
  else
    snprintf(buf, size, "%s", node);
}

/* The graph's symbolic dimension names, "a, b" (each once), for messages. */
static void list_names(const grt_graph* g, grt_strbuf* out) {
  const char* seen[kMaxDims];
  int32_t n = 0;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const grt_attr_value* names = grt_node_find_attr(&g->nodes[i], "dim_names");
    for (int32_t d = 0; names && d < names->u.list.n; d++) {
      const char* s = names->u.list.v.s[d];
      bool dup = !s[0];
      for (int32_t k = 0; !dup && k < n; k++) dup = strcmp(seen[k], s) == 0;
      if (dup || n == kMaxDims) continue;
      grt_strbuf_printf(out, "%s%s", n ? ", " : "", s);
      seen[n++] = s;
    }
  }
}

/* Node i's copy's declared shape with the bound sizes, when it is a
 * Placeholder naming its dimensions. */
static grt_status* bind_placeholder(grt_graph* copy, int32_t k, const grt_node* n, binding* b,
                                    int32_t nb) {
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
    binding* x = names->u.list.v.s[d][0] ? find(b, nb, names->u.list.v.s[d]) : NULL;
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
  binding b[kMaxDims];
  int32_t nb;
  GRT_RETURN_IF_ERROR(parse(dims, b, &nb));
  grt_graph* copy = NULL;
  grt_status* st = grt_graph_new(&copy);
  for (int32_t i = 0; !st && i < g->n_nodes; i++) {
    int32_t k;
    st = grt_copy_node(copy, g, i, g->nodes[i].name, NULL, rename_same, NULL, &k);
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
