/* The gradient builder: adds the nodes gradient functions ask for, named
 * under the forward node's scope and joined to its colocation group, with
 * the first failure kept (ops/grad.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "ops/grad.h"
#include "ops/op_def.h"

const grt_grad_entry* grt_grad_table_find(const grt_grad_table* table, const char* op) {
  if (!table) return NULL;
  for (int32_t i = 0; i < table->n; i++)
    if (strcmp(table->rows[i].op, op) == 0) return &table->rows[i];
  return NULL;
}

grt_tref grt_gb_fail(grt_grad_builder* b, grt_code code, const char* fmt, ...) {
  if (!b->status) {
    va_list ap;
    va_start(ap, fmt);
    b->status = grt_status_newv(code, fmt, ap);
    va_end(ap);
  }
  return GRT_TREF_NONE;
}

static bool keep(grt_grad_builder* b, grt_status* s) {
  if (!s) return true;
  if (!b->status)
    b->status = s;
  else
    grt_status_free(s);
  return false;
}

const grt_node* grt_gb_node(const grt_grad_builder* b) { return &b->g->nodes[b->fwd]; }

grt_tref grt_gb_ref(int32_t node, int32_t port, grt_dtype t) {
  if (node < 0) return GRT_TREF_NONE;
  return (grt_tref){node, port, t};
}

grt_tref grt_gb_input(grt_grad_builder* b, int32_t i) {
  const grt_node* n = grt_gb_node(b);
  if (i < 0 || i >= n->n_inputs)
    return grt_gb_fail(b, GRT_INTERNAL, "gradient of '%s': no input %d", n->name, (int)i);
  return (grt_tref){n->inputs[i].src, n->inputs[i].port, n->sig.input_types[i]};
}

grt_tref grt_gb_output(grt_grad_builder* b, int32_t k) {
  const grt_node* n = grt_gb_node(b);
  if (k < 0 || k >= n->sig.n_outputs)
    return grt_gb_fail(b, GRT_INTERNAL, "gradient of '%s': no output %d", n->name, (int)k);
  return (grt_tref){b->fwd, k, n->sig.output_types[k]};
}

static const grt_attr_value* attr(grt_grad_builder* b, const char* name, grt_attr_type type) {
  const grt_attr_value* v = grt_node_attr(grt_gb_node(b), name);
  if (!v || v->type != type) {
    grt_gb_fail(b, GRT_INTERNAL, "gradient of '%s': attr '%s' is missing", grt_gb_node(b)->name,
                name);
    return NULL;
  }
  return v;
}

bool grt_gb_attr_bool(grt_grad_builder* b, const char* name) {
  const grt_attr_value* v = attr(b, name, GRT_ATTR_BOOL);
  return v ? v->u.b : false;
}
int64_t grt_gb_attr_int(grt_grad_builder* b, const char* name) {
  const grt_attr_value* v = attr(b, name, GRT_ATTR_INT);
  return v ? v->u.i : 0;
}
const char* grt_gb_attr_string(grt_grad_builder* b, const char* name) {
  const grt_attr_value* v = attr(b, name, GRT_ATTR_STRING);
  return v ? v->u.s : "";
}
grt_dtype grt_gb_attr_type(grt_grad_builder* b, const char* name) {
  const grt_attr_value* v = attr(b, name, GRT_ATTR_TYPE);
  return v ? v->u.t : GRT_DTYPE_INVALID;
}

const grt_tensor* grt_gb_const_input(grt_grad_builder* b, int32_t i) {
  const grt_node* n = grt_gb_node(b);
  if (i < 0 || i >= n->n_inputs || n->inputs[i].src < 0) return NULL;
  const grt_node* src = &b->g->nodes[n->inputs[i].src];
  if (strcmp(src->op, "Const") != 0) return NULL;
  const grt_attr_value* v = grt_node_find_attr(src, "value");
  return v && v->type == GRT_ATTR_TENSOR ? v->u.tensor : NULL;
}

static const grt_shape* input_shape(grt_grad_builder* b, int32_t i) {
  const grt_node* n = grt_gb_node(b);
  if (i < 0 || i >= n->n_inputs || n->inputs[i].src < 0) return NULL;
  const grt_node* src = &b->g->nodes[n->inputs[i].src];
  int32_t port = n->inputs[i].port;
  if (!src->sig.output_shapes || port >= src->sig.n_outputs) return NULL;
  return &src->sig.output_shapes[port];
}

int32_t grt_gb_input_rank(grt_grad_builder* b, int32_t i) {
  const grt_shape* s = input_shape(b, i);
  return s ? s->rank : -1;
}

int64_t grt_gb_input_dim(grt_grad_builder* b, int32_t i, int32_t d) {
  const grt_shape* s = input_shape(b, i);
  return s && d >= 0 && d < s->rank ? s->dims[d] : -1;
}

/* "<scope>/<op>", or "<scope>/<op>_<k>" with the first free k. */
static bool unique_name(grt_grad_builder* b, const char* op, grt_strbuf* out) {
  grt_strbuf_printf(out, "%s/%s", b->scope, op);
  for (int k = 1; !out->failed && grt_graph_find_node(b->g, grt_strbuf_str(out)) >= 0; k++) {
    grt_strbuf_reset(out);
    grt_strbuf_printf(out, "%s/%s_%d", b->scope, op, k);
  }
  return !out->failed;
}

int32_t grt_gb_add(grt_grad_builder* b, const char* op, const grt_tref* ins, int32_t n_ins) {
  if (b->status) return -1;
  for (int32_t i = 0; i < n_ins; i++)
    if (!grt_tref_ok(ins[i])) {
      grt_gb_fail(b, GRT_INTERNAL, "gradient of '%s': input %d of a new %s is missing",
                  grt_gb_node(b)->name, (int)i, op);
      return -1;
    }
  grt_strbuf name = {0};
  if (!unique_name(b, op, &name)) {
    grt_strbuf_free(&name);
    keep(b, GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building gradients"));
    return -1;
  }
  int32_t node = -1;
  bool ok = keep(b, grt_graph_add_node(b->g, grt_strbuf_str(&name), op, &node));
  grt_strbuf_free(&name);
  for (int32_t i = 0; ok && i < n_ins; i++) {
    char spec[32 + 1024];
    const char* src = b->g->nodes[ins[i].node].name;
    int len = snprintf(spec, sizeof spec, "%s:%d", src, (int)ins[i].port);
    if (len < 0 || (size_t)len >= sizeof spec) {
      keep(b, GRT_ERROR(INVALID_ARGUMENT, "node name '%s' is too long", src));
      return -1;
    }
    ok = keep(b, grt_graph_add_input(b->g, node, spec));
  }
  for (int32_t i = 0; ok && i < b->n_colocate; i++)
    ok = keep(b, grt_graph_add_colocation(b->g, node, b->colocate[i]));
  return ok ? node : -1;
}

void grt_gb_set_type(grt_grad_builder* b, int32_t node, const char* a, grt_dtype t) {
  if (node >= 0 && !b->status) keep(b, grt_graph_set_attr_type(b->g, node, a, t));
}
void grt_gb_set_bool(grt_grad_builder* b, int32_t node, const char* a, bool v) {
  if (node >= 0 && !b->status) keep(b, grt_graph_set_attr_bool(b->g, node, a, v));
}
void grt_gb_set_int(grt_grad_builder* b, int32_t node, const char* a, int64_t v) {
  if (node >= 0 && !b->status) keep(b, grt_graph_set_attr_int(b->g, node, a, v));
}
void grt_gb_set_string(grt_grad_builder* b, int32_t node, const char* a, const char* v) {
  if (node >= 0 && !b->status) keep(b, grt_graph_set_attr_string(b->g, node, a, v));
}

void grt_gb_copy_attrs(grt_grad_builder* b, int32_t node, const char* const* names) {
  for (; node >= 0 && !b->status && *names; names++) {
    const grt_attr_value* v = grt_node_attr(grt_gb_node(b), *names);
    if (!v) continue; /* neither set nor defaulted: the new node's default applies */
    grt_status* s = NULL;
    switch (v->type) {
      case GRT_ATTR_INT:
        s = grt_graph_set_attr_int(b->g, node, *names, v->u.i);
        break;
      case GRT_ATTR_FLOAT:
        s = grt_graph_set_attr_float(b->g, node, *names, v->u.f);
        break;
      case GRT_ATTR_BOOL:
        s = grt_graph_set_attr_bool(b->g, node, *names, v->u.b);
        break;
      case GRT_ATTR_STRING:
        s = grt_graph_set_attr_string(b->g, node, *names, v->u.s);
        break;
      case GRT_ATTR_TYPE:
        s = grt_graph_set_attr_type(b->g, node, *names, v->u.t);
        break;
      case GRT_ATTR_LIST_INT:
        s = grt_graph_set_attr_int_list(b->g, node, *names, v->u.list.v.i, v->u.list.n);
        break;
      default:
        s = GRT_ERROR(INTERNAL, "gradient of '%s': cannot copy attr '%s'", grt_gb_node(b)->name,
                      *names);
    }
    keep(b, s);
  }
}

grt_tref grt_gb_unary(grt_grad_builder* b, const char* op, grt_tref x) {
  int32_t n = grt_gb_add(b, op, &x, 1);
  grt_gb_set_type(b, n, "T", x.dtype);
  return grt_gb_ref(n, 0, x.dtype);
}

grt_tref grt_gb_binary(grt_grad_builder* b, const char* op, grt_tref x, grt_tref y) {
  grt_tref ins[2] = {x, y};
  int32_t n = grt_gb_add(b, op, ins, 2);
  grt_gb_set_type(b, n, "T", x.dtype);
  return grt_gb_ref(n, 0, x.dtype);
}

static grt_tref constant(grt_grad_builder* b, grt_tensor* t) {
  if (!t) {
    keep(b, GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory building gradients"));
    return GRT_TREF_NONE;
  }
  grt_dtype dt = grt_tensor_dtype(t);
  int32_t n = grt_gb_add(b, "Const", NULL, 0);
  grt_gb_set_type(b, n, "dtype", dt);
  if (n >= 0 && !b->status) keep(b, grt_graph_set_attr_tensor(b->g, n, "value", t));
  grt_tensor_free(t);
  return grt_gb_ref(n, 0, dt);
}

grt_tref grt_gb_scalar(grt_grad_builder* b, grt_dtype t, double v) {
  if (b->status) return GRT_TREF_NONE;
  grt_tensor* c = NULL;
  grt_status* s = grt_tensor_new(t, 0, NULL, &c);
  if (!keep(b, s)) return GRT_TREF_NONE;
  grt_dtype_store_double(t, grt_tensor_data(c), 0, v);
  return constant(b, c);
}

grt_tref grt_gb_ints(grt_grad_builder* b, const int64_t* v, int32_t n) {
  if (b->status) return GRT_TREF_NONE;
  grt_tensor* c = NULL;
  int64_t dims[1] = {n};
  grt_status* s = grt_tensor_new(GRT_INT32, n < 0 ? 0 : 1, dims, &c);
  if (!keep(b, s)) return GRT_TREF_NONE;
  int32_t* d = grt_tensor_data(c);
  for (int32_t i = 0; i < (n < 0 ? 1 : n); i++) d[i] = (int32_t)v[i];
  return constant(b, c);
}

grt_tref grt_gb_int(grt_grad_builder* b, int64_t v) { return grt_gb_ints(b, &v, -1); }

static grt_tref metadata(grt_grad_builder* b, const char* op, grt_tref x, bool out_type) {
  int32_t n = grt_gb_add(b, op, &x, 1);
  grt_gb_set_type(b, n, "T", x.dtype);
  if (out_type) grt_gb_set_type(b, n, "out_type", GRT_INT32);
  return grt_gb_ref(n, 0, GRT_INT32);
}
grt_tref grt_gb_shape(grt_grad_builder* b, grt_tref x) { return metadata(b, "Shape", x, true); }
grt_tref grt_gb_size(grt_grad_builder* b, grt_tref x) { return metadata(b, "Size", x, true); }
grt_tref grt_gb_rank(grt_grad_builder* b, grt_tref x) { return metadata(b, "Rank", x, false); }

grt_tref grt_gb_reshape(grt_grad_builder* b, grt_tref x, grt_tref shape) {
  grt_tref ins[2] = {x, shape};
  int32_t n = grt_gb_add(b, "Reshape", ins, 2);
  grt_gb_set_type(b, n, "T", x.dtype);
  grt_gb_set_type(b, n, "Tshape", shape.dtype);
  return grt_gb_ref(n, 0, x.dtype);
}

grt_tref grt_gb_sum(grt_grad_builder* b, grt_tref x, grt_tref axes, bool keep_dims) {
  grt_tref ins[2] = {x, axes};
  int32_t n = grt_gb_add(b, "Sum", ins, 2);
  grt_gb_set_type(b, n, "T", x.dtype);
  grt_gb_set_type(b, n, "Tidx", axes.dtype);
  grt_gb_set_bool(b, n, "keep_dims", keep_dims);
  return grt_gb_ref(n, 0, x.dtype);
}

grt_tref grt_gb_sum_all(grt_grad_builder* b, grt_tref x) {
  int64_t flat = -1;
  grt_tref v = grt_gb_reshape(b, x, grt_gb_ints(b, &flat, 1));
  return grt_gb_sum(b, v, grt_gb_int(b, 0), false);
}

grt_tref grt_gb_cast(grt_grad_builder* b, grt_tref x, grt_dtype to) {
  int32_t n = grt_gb_add(b, "Cast", &x, 1);
  grt_gb_set_type(b, n, "SrcT", x.dtype);
  grt_gb_set_type(b, n, "DstT", to);
  return grt_gb_ref(n, 0, to);
}

grt_tref grt_gb_select(grt_grad_builder* b, grt_tref cond, grt_tref t, grt_tref e) {
  grt_tref ins[3] = {cond, t, e};
  int32_t n = grt_gb_add(b, "Select", ins, 3);
  grt_gb_set_type(b, n, "T", t.dtype);
  return grt_gb_ref(n, 0, t.dtype);
}

grt_tref grt_gb_compare(grt_grad_builder* b, const char* op, grt_tref x, grt_tref y) {
  grt_tref r = grt_gb_binary(b, op, x, y);
  r.dtype = GRT_BOOL;
  return r;
}

grt_tref grt_gb_matmul(grt_grad_builder* b, grt_tref x, grt_tref y, bool ta, bool tb) {
  grt_tref r = grt_gb_binary(b, "MatMul", x, y);
  grt_gb_set_bool(b, r.node, "transpose_a", ta);
  grt_gb_set_bool(b, r.node, "transpose_b", tb);
  return r;
}

grt_tref grt_gb_batch_matmul(grt_grad_builder* b, grt_tref x, grt_tref y, bool adj_x, bool adj_y) {
  grt_tref r = grt_gb_binary(b, "BatchMatMulV2", x, y);
  grt_gb_set_bool(b, r.node, "adj_x", adj_x);
  grt_gb_set_bool(b, r.node, "adj_y", adj_y);
  return r;
}

/* Both static shapes fully known and equal: no broadcasting happened. */
static bool same_known_shape(grt_grad_builder* b, grt_tref x, grt_tref y) {
  const grt_node* nx = &b->g->nodes[x.node];
  const grt_node* ny = &b->g->nodes[y.node];
  if (!nx->sig.output_shapes || !ny->sig.output_shapes) return false;
  if (x.port >= nx->sig.n_outputs || y.port >= ny->sig.n_outputs) return false;
  const grt_shape* a = &nx->sig.output_shapes[x.port];
  const grt_shape* c = &ny->sig.output_shapes[y.port];
  if (a->rank < 0 || a->rank != c->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] < 0 || a->dims[i] != c->dims[i]) return false;
  return true;
}

grt_tref grt_gb_unbroadcast(grt_grad_builder* b, grt_tref g, grt_tref x, grt_tref other,
                            bool first) {
  if (!grt_tref_ok(g) || b->status) return GRT_TREF_NONE;
  if (same_known_shape(b, x, other)) return g;
  grt_tref sx = grt_gb_shape(b, x), so = grt_gb_shape(b, other);
  grt_tref ins[2] = {first ? sx : so, first ? so : sx};
  int32_t n = grt_gb_add(b, "BroadcastGradientArgs", ins, 2);
  grt_gb_set_type(b, n, "T", GRT_INT32);
  grt_tref axes = grt_gb_ref(n, first ? 0 : 1, GRT_INT32);
  return grt_gb_reshape(b, grt_gb_sum(b, g, axes, false), sx);
}

grt_tref grt_gb_reduced_shape(grt_grad_builder* b, grt_tref x, grt_tref axes, grt_tref* tile) {
  /* axes as an int32 vector with negative axes counted from the end */
  int64_t flat = -1;
  grt_tref ax = grt_gb_reshape(b, axes, grt_gb_ints(b, &flat, 1));
  if (ax.dtype != GRT_INT32) ax = grt_gb_cast(b, ax, GRT_INT32);
  grt_tref rank = grt_gb_rank(b, x);
  grt_tref negative = grt_gb_compare(b, "Less", ax, grt_gb_int(b, 0));
  ax = grt_gb_select(b, negative, grt_gb_add2(b, ax, rank), ax);
  /* mask[d] = d is reduced: the one-hot rows of the axes, summed */
  grt_tref ins[4] = {ax, rank, grt_gb_int(b, 1), grt_gb_int(b, 0)};
  int32_t oh = grt_gb_add(b, "OneHot", ins, 4);
  grt_gb_set_type(b, oh, "T", GRT_INT32);
  grt_gb_set_type(b, oh, "TI", GRT_INT32);
  grt_tref hits = grt_gb_sum(b, grt_gb_ref(oh, 0, GRT_INT32), grt_gb_int(b, 0), false);
  grt_tref mask = grt_gb_compare(b, "Greater", hits, grt_gb_int(b, 0));
  grt_tref shape = grt_gb_shape(b, x);
  grt_tref ones = grt_gb_unary(b, "OnesLike", shape);
  if (tile) *tile = grt_gb_select(b, mask, shape, ones);
  return grt_gb_select(b, mask, ones, shape);
}
