/* Shape functions of sources and state: Placeholder, Const, variables,
 * assignments, random generators and the optimizers' Apply ops. */
#include <string.h>

#include "ops/shape_fns.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

static grt_status* from_shape_attr(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 0, 1));
  return grt_infer_attr_shape(c, "shape", &c->output_shapes[0]);
}

grt_status* grt_infer_placeholder(grt_shape_ctx* c) { return from_shape_attr(c); }
grt_status* grt_infer_variable(grt_shape_ctx* c) { return from_shape_attr(c); }

/* The legacy Variable op cannot tell a scalar shape attr from "unknown"
 * (old GraphDefs wrote [] for both), so TensorFlow reads [] as unknown. */
grt_status* grt_infer_variable_legacy(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(from_shape_attr(c));
  if (c->output_shapes[0].rank == 0) c->output_shapes[0] = grt_shape_unknown();
  return NULL;
}

grt_status* grt_infer_const(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 0, 1));
  const grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_attr_get_tensor(grt_infer_attr(c, "value"), "value", &t));
  return grt_infer_make(t->shape.rank, t->shape.dims, &c->output_shapes[0]);
}

/* Assign: with validate_shape the value must fit the variable; without it
 * the variable takes the value's shape. */
grt_status* grt_infer_assign(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  bool validate;
  GRT_RETURN_IF_ERROR(grt_infer_attr_bool(c, "validate_shape", &validate));
  if (!validate) {
    c->output_shapes[0] = c->input_shapes[1];
    return NULL;
  }
  grt_status* s = grt_infer_merge(&c->input_shapes[0], &c->input_shapes[1], &c->output_shapes[0]);
  return s ? grt_status_prefix(s, "value does not fit the variable (validate_shape=true)") : NULL;
}

grt_status* grt_infer_assign_update(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  grt_status* s = grt_infer_merge(&c->input_shapes[0], &c->input_shapes[1], &c->output_shapes[0]);
  return s ? grt_status_prefix(s, "value does not fit the variable") : NULL;
}

/* Random generators: input 0 is the output's shape as a vector; -1 entries
 * are unknown dimensions. */
grt_status* grt_infer_from_shape_input(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 0, 1));
  const grt_tensor* t;
  GRT_RETURN_IF_ERROR(grt_infer_const_ints(c, 0, &t));
  if (!t) {
    const grt_shape* v = &c->input_shapes[0];
    if (v->rank == 1 && v->dims[0] >= 0)
      return grt_infer_unknown_dims(
          v->dims[0] > GRT_MAX_RANK ? GRT_MAX_RANK + 1 : (int32_t)v->dims[0], &c->output_shapes[0]);
    c->output_shapes[0] = grt_shape_unknown();
    return NULL;
  }
  int64_t n = grt_infer_value_count(t);
  if (n > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "shape has %lld dimensions, above the maximum %d",
                     (long long)n, GRT_MAX_RANK);
  int64_t dims[GRT_MAX_RANK];
  for (int32_t i = 0; i < n; i++) {
    dims[i] = grt_infer_value(t, i);
    if (dims[i] < -1)
      return GRT_ERROR(INVALID_ARGUMENT, "shape[%d] = %lld is negative", (int)i,
                       (long long)dims[i]);
  }
  return grt_infer_make((int32_t)n, dims, &c->output_shapes[0]);
}

/* ApplyGradientDescent, ApplyMomentum, ApplyAdam, ...: the reference inputs
 * (var and its slots) and the gradient share the variable's shape; every
 * other input (learning rate, betas, epsilon, ...) is a scalar. */
grt_status* grt_infer_apply(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  const grt_op_def* def = c->def;
  if (def->n_inputs != c->n_inputs)
    return GRT_ERROR(INTERNAL, "%s shape function expects %d inputs, got %d", def->name,
                     (int)def->n_inputs, (int)c->n_inputs);
  grt_shape var = c->input_shapes[0];
  for (int32_t i = 1; i < c->n_inputs; i++) {
    const grt_arg_def* a = &def->inputs[i];
    bool like_var = a->is_ref || strcmp(a->name, "grad") == 0 || strcmp(a->name, "delta") == 0;
    if (like_var) {
      grt_status* s = grt_infer_merge(&var, &c->input_shapes[i], &var);
      if (s) return grt_status_prefix(s, "'%s' must have the shape of 'var'", a->name);
    } else if (c->input_shapes[i].rank > 0) {
      char buf[GRT_SHAPE_STR_MAX];
      return GRT_ERROR(INVALID_ARGUMENT, "'%s' must be a scalar, got shape %s", a->name,
                       grt_shape_str(&c->input_shapes[i], buf, sizeof buf));
    }
  }
  c->output_shapes[0] = var;
  return NULL;
}
