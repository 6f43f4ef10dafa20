/* Named-node helpers with a kept first failure (training/build.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "training/build.h"

static grt_status* oom(void) {
  return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building the graph");
}

bool grt_tb_keep(grt_tb* b, grt_status* s) {
  if (!s) return true;
  if (!b->status)
    b->status = s;
  else
    grt_status_free(s);
  return false;
}

int32_t grt_tb_node(grt_tb* b, const char* op, const char* fmt, ...) {
  if (b->status) return -1;
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char* name = len < 0 ? NULL : grt_malloc((size_t)len + 1);
  if (name) vsnprintf(name, (size_t)len + 1, fmt, ap2);
  va_end(ap2);
  int32_t node = -1;
  grt_tb_keep(b, name ? grt_graph_add_node(b->g, name, op, &node) : oom());
  grt_free(name);
  return b->status ? -1 : node;
}

static bool taken(const grt_graph* g, const char* name) {
  size_t n = strlen(name);
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const char* s = g->nodes[i].name;
    if (strncmp(s, name, n) == 0 && (s[n] == 0 || s[n] == '/')) return true;
  }
  return false;
}

char* grt_tb_unique(grt_tb* b, const char* base) {
  if (b->status) return NULL;
  grt_strbuf name = {0};
  grt_strbuf_puts(&name, base);
  for (int k = 1; !name.failed && taken(b->g, name.s); k++) {
    grt_strbuf_reset(&name);
    grt_strbuf_printf(&name, "%s_%d", base, k);
  }
  if (name.failed) {
    grt_strbuf_free(&name);
    grt_tb_keep(b, oom());
    return NULL;
  }
  return name.s;
}

void grt_tb_input(grt_tb* b, int32_t node, int32_t src, int32_t port) {
  if (b->status || node < 0 || src < 0) return;
  grt_strbuf spec = {0};
  grt_strbuf_printf(&spec, "%s:%d", b->g->nodes[src].name, (int)port);
  grt_tb_keep(b, spec.failed ? oom() : grt_graph_add_input(b->g, node, spec.s));
  grt_strbuf_free(&spec);
}

void grt_tb_control(grt_tb* b, int32_t node, int32_t src) {
  if (b->status || node < 0 || src < 0) return;
  grt_strbuf spec = {0};
  grt_strbuf_printf(&spec, "^%s", b->g->nodes[src].name);
  grt_tb_keep(b, spec.failed ? oom() : grt_graph_add_input(b->g, node, spec.s));
  grt_strbuf_free(&spec);
}

void grt_tb_colocate(grt_tb* b, int32_t node, int32_t with) {
  if (b->status || node < 0 || with < 0) return;
  grt_tb_keep(b, grt_graph_add_colocation(b->g, node, b->g->nodes[with].name));
}

void grt_tb_type(grt_tb* b, int32_t node, const char* attr, grt_dtype t) {
  if (!b->status && node >= 0) grt_tb_keep(b, grt_graph_set_attr_type(b->g, node, attr, t));
}

void grt_tb_bool(grt_tb* b, int32_t node, const char* attr, bool v) {
  if (!b->status && node >= 0) grt_tb_keep(b, grt_graph_set_attr_bool(b->g, node, attr, v));
}

void grt_tb_shape(grt_tb* b, int32_t node, const char* attr, const grt_shape* s) {
  if (!b->status && node >= 0)
    grt_tb_keep(b, grt_graph_set_attr_shape(b->g, node, attr, s->rank, s->dims));
}

static int32_t constant(grt_tb* b, const char* name, grt_tensor* t) {
  int32_t n = grt_tb_node(b, "Const", "%s", name);
  grt_tb_type(b, n, "dtype", grt_tensor_dtype(t));
  if (!b->status) grt_tb_keep(b, grt_graph_set_attr_tensor(b->g, n, "value", t));
  grt_tensor_free(t);
  return b->status ? -1 : n;
}

int32_t grt_tb_scalar(grt_tb* b, const char* name, grt_dtype t, double v) {
  grt_tensor* c = NULL;
  if (b->status || !grt_tb_keep(b, grt_tensor_new(t, 0, NULL, &c))) return -1;
  grt_dtype_store_double(t, grt_tensor_data(c), 0, v);
  return constant(b, name, c);
}

int32_t grt_tb_ints(grt_tb* b, const char* name, const int64_t* v, int32_t n) {
  grt_tensor* c = NULL;
  int64_t dims[1] = {n};
  if (b->status || !grt_tb_keep(b, grt_tensor_new(GRT_INT32, 1, dims, &c))) return -1;
  int32_t* d = grt_tensor_data(c);
  for (int32_t i = 0; i < n; i++) d[i] = (int32_t)v[i];
  return constant(b, name, c);
}
