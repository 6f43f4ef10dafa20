/* grt_node_compute_signature: a node's concrete input/output list from its
 * op's declared args and its attrs (type attrs give dtypes, int attrs give
 * list lengths), as TensorFlow's InOutTypesForNode does. */
#include <string.h>

#include "ops/graph.h"
#include "ops/op_def.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"

/* A list arg longer than this is refused rather than allocated: no real
 * graph comes near it, and a corrupt file must not make us allocate 2^31. */
enum { kMaxListLength = 1 << 20 };

#define SIG_ERR(n, fmt, ...) \
  GRT_ERROR(INVALID_ARGUMENT, "node '%s' (%s): " fmt, (n)->name, (n)->op, __VA_ARGS__)

/* A typed read's error with the node in front, as SIG_ERR words it. */
static grt_status* named(const grt_node* n, grt_status* s) {
  return s ? grt_status_prefix(s, "node '%s' (%s)", n->name, n->op) : NULL;
}

static grt_status* arg_count(const grt_node* n, const grt_op_def* def, const grt_arg_def* a,
                             int32_t* out) {
  *out = 1;
  if (!a->number_attr) return NULL;
  /* `def`, not n->def: callers may compute a signature before setting it. */
  const grt_attr_value* v = grt_attr_lookup(n, def, a->number_attr);
  if (!v)
    return SIG_ERR(n, "attr '%s' is missing (it gives the length of '%s')", a->number_attr,
                   a->name);
  GRT_RETURN_IF_ERROR(named(n, grt_attr_get(v, a->number_attr, GRT_ATTR_INT, &v)));
  const grt_attr_def* ad = grt_op_find_attr(def, a->number_attr);
  int64_t min = ad && ad->has_minimum ? ad->minimum : 0;
  if (v->u.i < min)
    return SIG_ERR(n, "attr '%s' must be >= %lld, got %lld", a->number_attr, (long long)min,
                   (long long)v->u.i);
  if (v->u.i > kMaxListLength)
    return SIG_ERR(n, "attr '%s' is %lld, above the supported maximum of %d", a->number_attr,
                   (long long)v->u.i, kMaxListLength);
  *out = (int32_t)v->u.i;
  return NULL;
}

static grt_status* arg_dtype(const grt_node* n, const grt_op_def* def, const grt_arg_def* a,
                             grt_dtype* out) {
  if (!a->type_attr) {
    *out = a->type;
    return NULL;
  }
  const grt_attr_value* v = grt_attr_lookup(n, def, a->type_attr);
  if (!v)
    return SIG_ERR(n, "attr '%s' is missing (it gives the dtype of '%s')", a->type_attr, a->name);
  GRT_RETURN_IF_ERROR(named(n, grt_attr_get(v, a->type_attr, GRT_ATTR_TYPE, &v)));
  if (!grt_dtype_valid(v->u.t))
    return SIG_ERR(n, "attr '%s' holds an invalid dtype %d", a->type_attr, (int)v->u.t);
  *out = v->u.t;
  return NULL;
}

/* Counts the flattened args of one side, then fills dtype and ref arrays. */
static grt_status* expand(grt_graph* g, const grt_node* n, const grt_op_def* def,
                          const grt_arg_def* args, int32_t n_args, int32_t* out_n,
                          grt_dtype** out_types, bool** out_refs) {
  int64_t total = 0;
  for (int32_t i = 0; i < n_args; i++) {
    int32_t c;
    GRT_RETURN_IF_ERROR(arg_count(n, def, &args[i], &c));
    total += c;
  }
  if (total > kMaxListLength)
    return SIG_ERR(n, "%lld tensors is above the supported maximum of %d", (long long)total,
                   kMaxListLength);
  grt_dtype* types = NULL;
  bool* refs = NULL;
  if (total > 0) {
    types = grt_arena_calloc(g->arena, (size_t)total, sizeof *types);
    refs = grt_arena_calloc(g->arena, (size_t)total, sizeof *refs);
    if (!types || !refs)
      return GRT_ERROR(RESOURCE_EXHAUSTED, "node '%s': out of memory for its signature", n->name);
  }
  int32_t k = 0;
  for (int32_t i = 0; i < n_args; i++) {
    int32_t c = 0;
    grt_dtype t = GRT_DTYPE_INVALID;
    GRT_RETURN_IF_ERROR(arg_count(n, def, &args[i], &c));
    GRT_RETURN_IF_ERROR(arg_dtype(n, def, &args[i], &t));
    for (int32_t j = 0; j < c; j++, k++) {
      types[k] = t;
      refs[k] = args[i].is_ref;
    }
  }
  *out_n = (int32_t)total;
  *out_types = types;
  *out_refs = refs;
  return NULL;
}

grt_status* grt_node_compute_signature(grt_graph* g, grt_node* n, const grt_op_def* def) {
  if (!g || !n || !def)
    return GRT_ERROR(INVALID_ARGUMENT, "grt_node_compute_signature: NULL argument");
  grt_node_sig sig;
  memset(&sig, 0, sizeof sig);
  GRT_RETURN_IF_ERROR(expand(g, n, def, def->inputs, def->n_inputs, &sig.n_inputs, &sig.input_types,
                             &sig.input_is_ref));
  GRT_RETURN_IF_ERROR(expand(g, n, def, def->outputs, def->n_outputs, &sig.n_outputs,
                             &sig.output_types, &sig.output_is_ref));
  if (sig.n_outputs > 0) {
    sig.output_shapes =
        grt_arena_calloc(g->arena, (size_t)sig.n_outputs, sizeof *sig.output_shapes);
    if (!sig.output_shapes)
      return GRT_ERROR(RESOURCE_EXHAUSTED, "node '%s': out of memory for its signature", n->name);
    for (int32_t i = 0; i < sig.n_outputs; i++) sig.output_shapes[i] = grt_shape_unknown();
  }
  n->sig = sig;
  return NULL;
}
