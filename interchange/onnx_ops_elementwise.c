/* ONNX element-wise ops: those with a TensorFlow op of the same meaning map
 * onto it; activations without one are small decompositions over
 * element-wise ops, so parameters fed at run time work unchanged. */
#include <string.h>

#include "base/dtype.h"
#include "base/status.h"
#include "interchange/onnx_import.h"
#include "interchange/onnx_tensor.h"

static int32_t max_rank(int32_t a, int32_t b) { return a < 0 || b < 0 ? -1 : a > b ? a : b; }

/* y = OP(x) */
static grt_status* unary(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const char* y;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, tf, NULL, x->dtype, &x->ref, 1, NULL, &y));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

/* An intermediate OP(a, b) of dtype t, named base/suffix. */
static grt_status* binary_step(onnx_import* ctx, const char* tf, const char* suffix, grt_dtype t,
                               const char* a, const char* b, const char** out) {
  const char* in[2] = {a, b};
  return onnx_emit(ctx, tf, suffix, t, in, 2, NULL, out);
}

static bool is_compare(const char* tf) {
  return !strcmp(tf, "Less") || !strcmp(tf, "Greater") || !strcmp(tf, "GreaterEqual") ||
         !strcmp(tf, "Equal");
}

/* z = OP(x, y) with numpy broadcasting, as TensorFlow's binary ops do. */
static grt_status* binary(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *y;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &y));
  const char* in[2] = {x->ref, y->ref};
  const char* z;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, tf, NULL, x->dtype, in, 2, NULL, &z));
  return onnx_bind(ctx, 0, z, is_compare(tf) ? GRT_BOOL : x->dtype, max_rank(x->rank, y->rank));
}

/* Div: floats are RealDiv; integers truncate toward zero in ONNX (as C
 * and ONNX Runtime divide), TensorFlow's TruncateDiv, which reports a zero
 * divisor as an error. */
static grt_status* divide(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  return binary(ctx, grt_dtype_is_integer(x->dtype) ? "TruncateDiv" : "RealDiv");
}

/* LessOrEqual(x, y) is GreaterEqual(y, x). */
static grt_status* less_or_equal(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *y;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &y));
  const char* in[2] = {y->ref, x->ref};
  const char* z;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "GreaterEqual", NULL, x->dtype, in, 2, NULL, &z));
  return onnx_bind(ctx, 0, z, GRT_BOOL, max_rank(x->rank, y->rank));
}

/* Pow: ONNX lets the exponent have another type; TensorFlow's Pow wants
 * one, so the exponent is cast to the base's. */
static grt_status* pow_op(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *y;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &y));
  const char* e = y->ref;
  if (y->dtype != x->dtype) {
    int32_t idx;
    GRT_RETURN_IF_ERROR(
        onnx_emit(ctx, "Cast", "exponent", GRT_DTYPE_INVALID, &y->ref, 1, &idx, &e));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "SrcT", y->dtype));
    GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "DstT", x->dtype));
  }
  const char* in[2] = {x->ref, e};
  const char* z;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Pow", NULL, x->dtype, in, 2, NULL, &z));
  return onnx_bind(ctx, 0, z, x->dtype, max_rank(x->rank, y->rank));
}

/* Max, Min, Sum, Mean of any number of inputs, broadcasting: a chain of the
 * binary op (AddN would need equal shapes); Mean divides the sum by n. */
static grt_status* variadic(onnx_import* ctx, const char* tf) {
  bool mean = strcmp(tf, "Mean") == 0;
  const char* op = mean ? "AddV2" : tf;
  const onnx_value* first;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &first));
  int n = (int)ctx->node->n_input;
  const char* acc = first->ref;
  int32_t rank = first->rank;
  for (int k = 1; k < n; k++) {
    const onnx_value* v;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, k, &v));
    bool last = k == n - 1 && !mean;
    GRT_RETURN_IF_ERROR(binary_step(ctx, op, last ? NULL : "acc", first->dtype, acc, v->ref, &acc));
    rank = max_rank(rank, v->rank);
  }
  if (mean) {
    const char* count;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, first->dtype, n, &count));
    GRT_RETURN_IF_ERROR(binary_step(ctx, "RealDiv", NULL, first->dtype, acc, count, &acc));
  } else if (n == 1) {
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, first->dtype, &acc, 1, NULL, &acc));
  }
  return onnx_bind(ctx, 0, acc, first->dtype, rank);
}

static grt_status* cast_to(onnx_import* ctx, const onnx_value* x, grt_dtype to, const char* suffix,
                           const char** out) {
  int32_t idx;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Cast", suffix, GRT_DTYPE_INVALID, &x->ref, 1, &idx, out));
  GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(ctx->g, idx, "SrcT", x->dtype));
  return grt_graph_set_attr_type(ctx->g, idx, "DstT", to);
}

static grt_status* cast(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  grt_dtype to;
  if (strcmp(tf, "CastLike") == 0) {
    const onnx_value* like;
    GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &like));
    to = like->dtype;
  } else {
    int64_t t;
    GRT_RETURN_IF_ERROR(onnx_attr_int(ctx, "to", 0, &t));
    GRT_RETURN_IF_ERROR(grt_onnx_dtype_read(t, &to));
  }
  const char* y;
  GRT_RETURN_IF_ERROR(cast_to(ctx, x, to, NULL, &y));
  return onnx_bind(ctx, 0, y, to, x->rank);
}

/* And, Or, Xor on bools, which grt has no logical op for: over 0/1 int32,
 * And is the product, Or a sum above 0, Xor inequality. */
static grt_status* logical(onnx_import* ctx, const char* tf) {
  const onnx_value *x, *y;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &y));
  if (x->dtype != GRT_BOOL || y->dtype != GRT_BOOL)
    return GRT_ERROR(INVALID_ARGUMENT, "inputs must be bool");
  int32_t rank = max_rank(x->rank, y->rank);
  const char* z;
  if (strcmp(tf, "Xor") == 0) {
    const char* eq;
    GRT_RETURN_IF_ERROR(binary_step(ctx, "Equal", "eq", GRT_BOOL, x->ref, y->ref, &eq));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "LogicalNot", NULL, GRT_DTYPE_INVALID, &eq, 1, NULL, &z));
    return onnx_bind(ctx, 0, z, GRT_BOOL, rank);
  }
  const char *xi, *yi, *r, *zero;
  GRT_RETURN_IF_ERROR(cast_to(ctx, x, GRT_INT32, "x", &xi));
  GRT_RETURN_IF_ERROR(cast_to(ctx, y, GRT_INT32, "y", &yi));
  bool is_and = strcmp(tf, "And") == 0;
  GRT_RETURN_IF_ERROR(binary_step(ctx, is_and ? "Mul" : "AddV2", "combine", GRT_INT32, xi, yi, &r));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, GRT_INT32, 0, &zero));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "Greater", NULL, GRT_INT32, r, zero, &z));
  return onnx_bind(ctx, 0, z, GRT_BOOL, rank);
}

/* Where(c, x, y) broadcasts all three; TensorFlow's Select wants equal
 * shapes. With T = x's type, zeros of the common shape are
 * z = zeros_like(x) + zeros_like(y) + zeros_like(T(c)) (not 0*x, which is
 * NaN where x is infinite), and then Select(T(c) + z > 0, x + z, y + z). */
static grt_status* where(onnx_import* ctx, const char* tf) {
  const onnx_value *c, *x, *y;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &c));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &x));
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &y));
  grt_dtype t = x->dtype;
  if (t == GRT_BOOL) return GRT_ERROR(UNIMPLEMENTED, "Where over bool values is not supported");
  const char *ct, *zero, *zx, *zy, *zc, *z, *cz, *cb, *xb, *yb, *out;
  GRT_RETURN_IF_ERROR(cast_to(ctx, c, t, "cond", &ct));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 0, &zero));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zx", t, &x->ref, 1, NULL, &zx));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zy", t, &y->ref, 1, NULL, &zy));
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zc", t, &ct, 1, NULL, &zc));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", "zxy", t, zx, zy, &z));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", "zeros", t, z, zc, &z));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", "c", t, ct, z, &cz));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "Greater", "cb", t, cz, zero, &cb));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", "xb", t, x->ref, z, &xb));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", "yb", t, y->ref, z, &yb));
  const char* in[3] = {cb, xb, yb};
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Select", NULL, t, in, 3, NULL, &out));
  return onnx_bind(ctx, 0, out, t, max_rank(c->rank, max_rank(x->rank, y->rank)));
}

/* 1 / x */
static grt_status* reciprocal(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const char *one, *y;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, x->dtype, 1, &one));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "RealDiv", NULL, x->dtype, one, x->ref, &y));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

/* The activations below, in terms of p = max(x, 0) and n = min(x, 0):
 *   LeakyRelu  p + alpha*n
 *   Elu        p + alpha*(exp(n) - 1)
 *   Selu       gamma*(p + alpha*(exp(n) - 1))
 *   PRelu      p + slope*n          (slope an input, broadcast)
 * and
 *   HardSigmoid max(0, min(1, alpha*x + beta))
 *   HardSwish   x * HardSigmoid(x) with alpha 1/6, beta 1/2
 *   Softplus    log(exp(x) + 1)
 *   Softsign    x / (1 + |x|)
 *   ThresholdedRelu  x where x > alpha, else 0 */
typedef struct {
  const onnx_value* x;
  const char* p;
  const char* n;
} parts;

static grt_status* split_sign(onnx_import* ctx, const onnx_value* x, parts* out) {
  const char* zero;
  out->x = x;
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, x->dtype, 0, &zero));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "Maximum", "pos", x->dtype, x->ref, zero, &out->p));
  return binary_step(ctx, "Minimum", "neg", x->dtype, x->ref, zero, &out->n);
}

/* alpha * (exp(n) - 1) */
static grt_status* exp_part(onnx_import* ctx, const parts* s, float alpha, const char** out) {
  const char *e, *one, *em1, *a;
  grt_dtype t = s->x->dtype;
  GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Exp", "exp", t, &s->n, 1, NULL, &e));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 1, &one));
  GRT_RETURN_IF_ERROR(binary_step(ctx, "Sub", "expm1", t, e, one, &em1));
  GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, alpha, &a));
  return binary_step(ctx, "Mul", "scaled", t, a, em1, out);
}

static grt_status* activation(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  grt_dtype t = x->dtype;
  const char* y = NULL;
  parts s;
  if (!strcmp(tf, "LeakyRelu") || !strcmp(tf, "Elu") || !strcmp(tf, "Selu") ||
      !strcmp(tf, "PRelu")) {
    GRT_RETURN_IF_ERROR(split_sign(ctx, x, &s));
    const char* neg;
    bool gamma = !strcmp(tf, "Selu");
    if (!strcmp(tf, "PRelu")) {
      const onnx_value* slope;
      GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &slope));
      GRT_RETURN_IF_ERROR(binary_step(ctx, "Mul", "slope", t, slope->ref, s.n, &neg));
    } else if (!strcmp(tf, "LeakyRelu")) {
      float alpha;
      const char* a;
      GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "alpha", 0.01f, &alpha));
      GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, alpha, &a));
      GRT_RETURN_IF_ERROR(binary_step(ctx, "Mul", "slope", t, a, s.n, &neg));
    } else {
      float alpha;
      GRT_RETURN_IF_ERROR(
          onnx_attr_float(ctx, "alpha", gamma ? 1.67326319217681884765625f : 1.0f, &alpha));
      GRT_RETURN_IF_ERROR(exp_part(ctx, &s, alpha, &neg));
    }
    GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", gamma ? "sum" : NULL, t, s.p, neg, &y));
    if (gamma) {
      float g;
      const char* gc;
      GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "gamma", 1.05070102214813232421875f, &g));
      GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, g, &gc));
      GRT_RETURN_IF_ERROR(binary_step(ctx, "Mul", NULL, t, gc, y, &y));
    }
  } else if (!strcmp(tf, "HardSigmoid") || !strcmp(tf, "HardSwish")) {
    bool swish = !strcmp(tf, "HardSwish");
    float alpha = 1.0f / 6, beta = 0.5f;
    if (!swish) {
      GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "alpha", 0.2f, &alpha));
      GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "beta", 0.5f, &beta));
    }
    const char *a, *b, *ax, *lin, *zero, *one, *lo;
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, alpha, &a));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, beta, &b));
    GRT_RETURN_IF_ERROR(binary_step(ctx, "Mul", "ax", t, a, x->ref, &ax));
    GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", "linear", t, ax, b, &lin));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 0, &zero));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 1, &one));
    GRT_RETURN_IF_ERROR(binary_step(ctx, "Minimum", "upper", t, lin, one, &lo));
    GRT_RETURN_IF_ERROR(
        binary_step(ctx, "Maximum", swish ? "hard_sigmoid" : NULL, t, lo, zero, &y));
    if (swish) GRT_RETURN_IF_ERROR(binary_step(ctx, "Mul", NULL, t, x->ref, y, &y));
  } else if (!strcmp(tf, "Softplus")) {
    const char *e, *one;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Exp", "exp", t, &x->ref, 1, NULL, &e));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 1, &one));
    GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", "plus1", t, e, one, &e));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Log", NULL, t, &e, 1, NULL, &y));
  } else if (!strcmp(tf, "Softsign")) {
    const char *abs, *one, *den;
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Abs", "abs", t, &x->ref, 1, NULL, &abs));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, 1, &one));
    GRT_RETURN_IF_ERROR(binary_step(ctx, "AddV2", "den", t, one, abs, &den));
    GRT_RETURN_IF_ERROR(binary_step(ctx, "RealDiv", NULL, t, x->ref, den, &y));
  } else { /* ThresholdedRelu */
    float alpha;
    const char *a, *above, *zeros;
    GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "alpha", 1.0f, &alpha));
    GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, t, alpha, &a));
    GRT_RETURN_IF_ERROR(binary_step(ctx, "Greater", "above", t, x->ref, a, &above));
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "ZerosLike", "zeros", t, &x->ref, 1, NULL, &zeros));
    const char* in[3] = {above, x->ref, zeros};
    GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Select", NULL, t, in, 3, NULL, &y));
  }
  return onnx_bind(ctx, 0, y, t, x->rank);
}

/* Clip: bounds from attrs (opset < 11) or optional inputs. */
static grt_status* clip(onnx_import* ctx, const char* tf) {
  const onnx_value* x;
  GRT_RETURN_IF_ERROR(onnx_input(ctx, 0, &x));
  const char* y = x->ref;
  const char* lo = NULL;
  const char* hi = NULL;
  if (ctx->opset < 11) {
    if (onnx_attr(ctx, "min")) {
      float v;
      GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "min", 0, &v));
      GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, x->dtype, v, &lo));
    }
    if (onnx_attr(ctx, "max")) {
      float v;
      GRT_RETURN_IF_ERROR(onnx_attr_float(ctx, "max", 0, &v));
      GRT_RETURN_IF_ERROR(onnx_const_scalar(ctx, x->dtype, v, &hi));
    }
  } else {
    const onnx_value* v;
    if (onnx_has_input(ctx, 1)) {
      GRT_RETURN_IF_ERROR(onnx_input(ctx, 1, &v));
      lo = v->ref;
    }
    if (onnx_has_input(ctx, 2)) {
      GRT_RETURN_IF_ERROR(onnx_input(ctx, 2, &v));
      hi = v->ref;
    }
  }
  if (lo)
    GRT_RETURN_IF_ERROR(binary_step(ctx, "Maximum", hi ? "lower" : NULL, x->dtype, y, lo, &y));
  if (hi) GRT_RETURN_IF_ERROR(binary_step(ctx, "Minimum", NULL, x->dtype, y, hi, &y));
  if (!lo && !hi) GRT_RETURN_IF_ERROR(onnx_emit(ctx, "Identity", NULL, x->dtype, &y, 1, NULL, &y));
  return onnx_bind(ctx, 0, y, x->dtype, x->rank);
}

const onnx_op_row grt_onnx_ops_elementwise[] = {
    {"Abs", unary, "Abs", ""},
    {"Neg", unary, "Neg", ""},
    {"Exp", unary, "Exp", ""},
    {"Log", unary, "Log", ""},
    {"Sqrt", unary, "Sqrt", ""},
    {"Tanh", unary, "Tanh", ""},
    {"Sigmoid", unary, "Sigmoid", ""},
    {"Relu", unary, "Relu", ""},
    {"Identity", unary, "Identity", ""},
    {"Not", unary, "LogicalNot", ""},
    {"Add", binary, "AddV2", ""},
    {"Sub", binary, "Sub", ""},
    {"Mul", binary, "Mul", ""},
    {"Div", divide, NULL, ""},
    {"Less", binary, "Less", ""},
    {"Greater", binary, "Greater", ""},
    {"GreaterOrEqual", binary, "GreaterEqual", ""},
    {"Equal", binary, "Equal", ""},
    {"LessOrEqual", less_or_equal, NULL, ""},
    {"Pow", pow_op, NULL, ""},
    {"Max", variadic, "Maximum", ""},
    {"Min", variadic, "Minimum", ""},
    {"Sum", variadic, "AddV2", ""},
    {"Mean", variadic, "Mean", ""},
    {"Cast", cast, "Cast", "to"},
    {"CastLike", cast, "CastLike", ""},
    {"And", logical, "And", ""},
    {"Or", logical, "Or", ""},
    {"Xor", logical, "Xor", ""},
    {"Where", where, NULL, ""},
    {"Reciprocal", reciprocal, NULL, ""},
    {"LeakyRelu", activation, "LeakyRelu", "alpha"},
    {"Elu", activation, "Elu", "alpha"},
    {"Selu", activation, "Selu", "alpha,gamma"},
    {"PRelu", activation, "PRelu", ""},
    {"HardSigmoid", activation, "HardSigmoid", "alpha,beta"},
    {"HardSwish", activation, "HardSwish", ""},
    {"Softplus", activation, "Softplus", ""},
    {"Softsign", activation, "Softsign", ""},
    {"ThresholdedRelu", activation, "ThresholdedRelu", "alpha"},
    {"Clip", clip, NULL, "min,max"},
    {NULL, NULL, NULL, NULL},
};
