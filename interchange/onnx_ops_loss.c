/* ONNX's losses, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, as
 * decompositions over TensorFlow ops that take every input at run time
 * (targets, weights, and the class count C from the input's shape).
 *
 * With input x [N, C, d1..] (log-probabilities), target t [N, d1..] and
 * optional weight w [C]:
 *   picked = Sum_c Select(OneHot(t, C, axis 1), x, 0)     x[n, t[n,..], ..]
 *   wt     = Sum_c OneHot(t, C, axis -1) * w              w[t] (1 without w)
 *   wt    *= (t != ignore_index)                          when it is set
 *   loss   = -picked * wt
 * Select, not a 0/1 product, so that an -inf log-probability elsewhere in
 * the row does not turn the picked value into NaN; every sum over c has one
 * non-zero term, so picking is exact. A target outside [0, C) that is not
 * ignore_index is an error at run time (checked_targets), as ONNX allows
 * none: OneHot's all-off row would give a 0 loss, NaN as a mean.
 * Reductions: none keeps loss; sum adds all of it; mean divides that sum by
 * the sum of wt (the count of kept targets without weights), as ONNX does.
 * SoftmaxCrossEntropyLoss is this over LogSoftmax(scores) along axis 1,
 * which it can also return. */
#include <string.h>

#include "base/status.h"
#include "interchange/onnx_import.h"
#include "ops/graph.h"

/* A reduction of v over the constant axes, keep_dims as asked. */
static grt_status* reduce(onnx_import* ctx, const char* op, const char* suffix, grt_dtype t,
                          const char* v, int64_t axis, bool keep, const char** out) {
  const char* ax;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &axis, 1, &ax));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, op, suffix, t, v, ax, out));
  int32_t idx = grt_graph_find_node(ctx->g, *out);
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tidx", GRT_INT64));
  return grt_graph_set_attr_bool(ctx->g, idx, "keep_dims", keep);
}

/* The sum of every element of v, as a scalar. */
static grt_status* total(onnx_import* ctx, const char* suffix, grt_dtype t, const char* v,
                         const char** out) {
  const char *shape, *flat;
  int64_t minus_one = -1;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &minus_one, 1, &shape));
  const char* in[2] = {v, shape};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "flat", t, in, 2, &idx, &flat));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64));
  return reduce(ctx, "Sum", suffix, t, flat, 0, false, out);
}

/* C, the size of x's axis 1, as an int32 scalar computed at run time. */
static grt_status* class_count(onnx_import* ctx, const char* x, grt_dtype t, const char** out) {
  const char *shape, *begin, *size, *dim, *none;
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Shape", "shape", t, &x, 1, &idx, &shape));
  int64_t one = 1, nodims = 0;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &one, 1, &begin));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &one, 1, &size));
  const char* in[3] = {shape, begin, size};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Slice", "classes", GRT_INT32, in, 3, &idx, &dim));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "Index", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &nodims, 0, &none));
  const char* rs[2] = {dim, none};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "depth", GRT_INT32, rs, 2, &idx, out));
  return grt_graph_set_attr_type(ctx->g, idx, "Tshape", GRT_INT64);
}

/* OneHot(target, depth, on, off) along `axis`, of dtype t. */
static grt_status* one_hot(onnx_import* ctx, const char* suffix, const onnx_value* target,
                           const char* depth, grt_dtype t, double on, double off, int64_t axis,
                           const char** out) {
  const char *on_c, *off_c;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, on, &on_c));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, off, &off_c));
  const char* in[4] = {target->ref, depth, on_c, off_c};
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "OneHot", suffix, t, in, 4, &idx, out));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "TI", target->dtype));
  return grt_graph_set_attr_int(ctx->g, idx, "axis", axis);
}

/* wt times ones of the targets' shape, gathered from a [C] vector of ones
 * by the targets (ignored ones, `ignored` when not NULL, as 0): GatherV2
 * refuses an index outside [0, C) at run time ("indices[i] = 7 is not in
 * [0, 3)"), and the product puts that check on the loss's path. */
static grt_status* checked_targets(onnx_import* ctx, const onnx_value* target, const char* ignored,
                                   const char* depth, grt_dtype t, const char* wt,
                                   const char** out) {
  const char *idx = target->ref, *dims, *one, *ones, *axis, *hit;
  int32_t i;
  if (ignored) {
    const char* zeros;
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "ZerosLike", "target_zeros", target->dtype, &target->ref, 1, NULL, &zeros));
    const char* in[3] = {ignored, zeros, target->ref};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Select", "target_kept", target->dtype, in, 3, NULL, &idx));
  }
  int64_t vec = 1;
  const char* shape1;
  GRT_RETURN_IF_ERROR(onnx_const_ints(ctx, GRT_INT64, &vec, 1, &shape1));
  const char* rs[2] = {depth, shape1};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Reshape", "classes_vector", GRT_INT32, rs, 2, &i, &dims));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Tshape", GRT_INT64));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 1, &one));
  const char* fill[2] = {dims, one};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Fill", "class_ones", t, fill, 2, NULL, &ones));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &axis));
  const char* g[3] = {ones, idx, axis};
  GRT_RETURN_IF_ERROR(
      onnx_emit(ctx, "GatherV2", "target_check", GRT_DTYPE_INVALID, g, 3, &i, &hit));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Tparams", t));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Tindices", target->dtype));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, i, "Taxis", GRT_INT32));
  return onnx_op2(ctx, "Mul", "weight_checked", t, wt, hit, out);
}

typedef enum { REDUCE_NONE, REDUCE_SUM, REDUCE_MEAN } reduction;

static grt_status* read_reduction(onnx_import* ctx, reduction* out) {
  *out = REDUCE_MEAN;
  const Onnx__AttributeProto* a = onnx_attr(ctx, "reduction");
  if (!a) return NULL;
  static const struct {
    const char* name;
    reduction r;
  } kNames[] = {{"none", REDUCE_NONE}, {"sum", REDUCE_SUM}, {"mean", REDUCE_MEAN}};
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; i++) {
    if (a->s.len == strlen(kNames[i].name) && !memcmp(a->s.data, kNames[i].name, a->s.len)) {
      *out = kNames[i].r;
      return NULL;
    }
  }
  return GRT_ERROR(INVALID_ARGUMENT, "reduction must be none, sum or mean");
}

/* The loss of log-probabilities `x` (dtype t) against input 1 (targets)
 * and the optional input 2 (weights); binds output 0. */
static grt_status* nll(onnx_import* ctx, const char* x, grt_dtype t, int32_t x_rank) {
  const onnx_value *target, *weight = NULL;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &target));
  if (target->dtype != GRT_INT32 && target->dtype != GRT_INT64)
    return GRT_ERROR(INVALID_ARGUMENT, "targets must be int32 or int64");
  if (onnx_has_input(ctx, 2)) GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &weight));
  reduction red;
  GRT_RETURN_IF_ERROR(read_reduction(ctx, &red));
  const char *depth, *mask, *zeros, *sel, *picked, *oh, *wt, *loss;
  GRT_RETURN_IF_ERROR(class_count(ctx, x, t, &depth));
  GRT_RETURN_IF_ERROR(one_hot(ctx, "pick", target, depth, GRT_BOOL, 1, 0, 1, &mask));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zeros", t, &x, 1, NULL, &zeros));
  const char* in[3] = {mask, x, zeros};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Select", "selected", t, in, 3, NULL, &sel));
  GRT_RETURN_IF_ERROR(reduce(ctx, "Sum", "picked", t, sel, 1, false, &picked));
  GRT_RETURN_IF_ERROR(one_hot(ctx, "class", target, depth, t, 1, 0, -1, &oh));
  if (weight) GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "weighted", t, oh, weight->ref, &oh));
  GRT_RETURN_IF_ERROR(reduce(ctx, "Sum", "weight", t, oh, -1, false, &wt));
  const char* eq = NULL;
  if (onnx_attr(ctx, "ignore_index")) {
    int64_t ii;
    const char *ii_c, *keep, *keep_t;
    GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "ignore_index", 0, &ii));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, target->dtype, (double)ii, &ii_c));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Equal", "ignored", target->dtype, target->ref, ii_c, &eq));
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "LogicalNot", "kept", GRT_DTYPE_INVALID, &eq, 1, NULL, &keep));
    int32_t idx;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Cast", "keep", GRT_DTYPE_INVALID, &keep, 1, &idx, &keep_t));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "SrcT", GRT_BOOL));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "DstT", t));
    GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Mul", "weight_kept", t, wt, keep_t, &wt));
  }
  GRT_RETURN_IF_ERROR(checked_targets(ctx, target, eq, depth, t, wt, &wt));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Neg", "negated", t, &picked, 1, NULL, &picked));
  GRT_RETURN_IF_ERROR(
      onnx_op2(ctx, "Mul", red == REDUCE_NONE ? NULL : "loss", t, picked, wt, &loss));
  if (red == REDUCE_NONE) return onnx_bind(ctx, 0, loss, t, x_rank < 0 ? -1 : x_rank - 1);
  const char* sum;
  if (red == REDUCE_SUM) {
    GRT_RETURN_IF_ERROR(total(ctx, NULL, t, loss, &sum));
    return onnx_bind(ctx, 0, sum, t, 0);
  }
  const char *count, *mean;
  GRT_RETURN_IF_ERROR(total(ctx, "sum", t, loss, &sum));
  GRT_RETURN_IF_ERROR(total(ctx, "count", t, wt, &count));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "RealDiv", NULL, t, sum, count, &mean));
  return onnx_bind(ctx, 0, mean, t, 0);
}

static grt_status* nll_loss(onnx_import* ctx, const char* tf) {
  (void)tf;
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  return nll(ctx, x->ref, x->dtype, x->rank);
}

/* log_prob = (x - m) - log(sum(exp(x - m))) along axis 1, m = max(x). */
static grt_status* softmax_cross_entropy(onnx_import* ctx, const char* tf) {
  (void)tf;
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  grt_dtype t = x->dtype;
  const char *m, *shifted, *e, *sum, *ls, *logp;
  GRT_RETURN_IF_ERROR(reduce(ctx, "Max", "max", t, x->ref, 1, true, &m));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "shifted", t, x->ref, m, &shifted));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Exp", "exp", t, &shifted, 1, NULL, &e));
  GRT_RETURN_IF_ERROR(reduce(ctx, "Sum", "sum_exp", t, e, 1, true, &sum));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Log", "log_sum", t, &sum, 1, NULL, &ls));
  GRT_RETURN_IF_ERROR(onnx_op2(ctx, "Sub", "log_prob", t, shifted, ls, &logp));
  if (onnx_has_output(ctx, 1)) GRT_RETURN_IF_ERROR(onnx_bind(ctx, 1, logp, t, x->rank));
  return nll(ctx, logp, t, x->rank);
}

const onnx_op_row grt_onnx_ops_loss[] = {
    {"NegativeLogLikelihoodLoss", nll_loss, NULL, "ignore_index,reduction"},
    {"SoftmaxCrossEntropyLoss", softmax_cross_entropy, NULL, "ignore_index,reduction"},
    {NULL, NULL, NULL, NULL},
};
