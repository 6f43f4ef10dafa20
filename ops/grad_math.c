/* Gradients of the math ops (ops/defs_math.c), TensorFlow's math_grad.py:
 * element-wise arithmetic with broadcasting, products, reductions, casts. */
#include "ops/grad.h"

/* ---- broadcasting binary ops ------------------------------------------ */

static void both(grt_grad_builder* b, grt_tref gx, grt_tref gy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1);
  dx[0] = grt_gb_unbroadcast(b, gx, x, y, true);
  dx[1] = grt_gb_unbroadcast(b, gy, y, x, false);
}

static void add_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  both(b, dy[0], dy[0], dx);
}

static void sub_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  both(b, dy[0], grt_gb_neg(b, dy[0]), dx);
}

static void mul_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1);
  both(b, grt_gb_mul(b, dy[0], y), grt_gb_mul(b, x, dy[0]), dx);
}

static void real_div_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1);
  grt_tref gy = grt_gb_mul(b, dy[0], grt_gb_div(b, grt_gb_div(b, grt_gb_neg(b, x), y), y));
  both(b, grt_gb_div(b, dy[0], y), gy, dx);
}

/* x's share goes where x won (Maximum: x >= y; Minimum: x <= y). */
static void max_min_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx, bool is_max) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1);
  grt_tref xmask =
      is_max ? grt_gb_compare(b, "GreaterEqual", x, y) : grt_gb_compare(b, "GreaterEqual", y, x);
  grt_tref zeros = grt_gb_unary(b, "ZerosLike", dy[0]);
  both(b, grt_gb_select(b, xmask, dy[0], zeros), grt_gb_select(b, xmask, zeros, dy[0]), dx);
}
static void maximum_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  max_min_grad(b, dy, dx, true);
}
static void minimum_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  max_min_grad(b, dy, dx, false);
}

/* gx = g * y * x^(y-1); gy = g * z * log(x), with log(x) taken as 0 where
 * x <= 0 (no false singularity at x = 0). */
static void pow_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1), z = grt_gb_output(b, 0);
  grt_tref y_1 = grt_gb_sub(b, y, grt_gb_scalar(b, y.dtype, 1));
  grt_tref gx = grt_gb_mul(b, grt_gb_mul(b, dy[0], y), grt_gb_binary(b, "Pow", x, y_1));
  grt_tref mask = grt_gb_compare(b, "Greater", x, grt_gb_scalar(b, x.dtype, 0));
  grt_tref safe_x = grt_gb_select(b, mask, x, grt_gb_unary(b, "OnesLike", x));
  grt_tref log_x =
      grt_gb_select(b, mask, grt_gb_unary(b, "Log", safe_x), grt_gb_unary(b, "ZerosLike", x));
  both(b, gx, grt_gb_mul(b, grt_gb_mul(b, dy[0], z), log_x), dx);
}

static void squared_difference_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1);
  grt_tref two_g = grt_gb_mul(b, grt_gb_scalar(b, dy[0].dtype, 2), dy[0]);
  grt_tref gx = grt_gb_mul(b, two_g, grt_gb_sub(b, x, y));
  both(b, gx, grt_gb_neg(b, gx), dx);
}

/* ---- unary ------------------------------------------------------------ */

static void neg_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_neg(b, dy[0]);
}

/* g * sign(x), sign(x) = (x > 0) - (x < 0) */
static void abs_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), zero = grt_gb_scalar(b, x.dtype, 0);
  grt_tref pos = grt_gb_cast(b, grt_gb_compare(b, "Greater", x, zero), x.dtype);
  grt_tref neg = grt_gb_cast(b, grt_gb_compare(b, "Less", x, zero), x.dtype);
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_sub(b, pos, neg));
}

static void square_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0);
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_mul(b, x, grt_gb_scalar(b, x.dtype, 2)));
}

/* SqrtGrad: g * 0.5 / y */
static void sqrt_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref y = grt_gb_output(b, 0);
  dx[0] = grt_gb_div(b, grt_gb_mul(b, dy[0], grt_gb_scalar(b, y.dtype, 0.5)), y);
}

/* RsqrtGrad: g * -0.5 * y^3 */
static void rsqrt_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref y = grt_gb_output(b, 0);
  grt_tref y3 = grt_gb_mul(b, y, grt_gb_mul(b, y, y));
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_mul(b, grt_gb_scalar(b, y.dtype, -0.5), y3));
}

static void exp_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_output(b, 0));
}

static void log_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_div(b, dy[0], grt_gb_input(b, 0));
}

/* TanhGrad / SigmoidGrad take (y, dy) */
static void tanh_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_binary(b, "TanhGrad", grt_gb_output(b, 0), dy[0]);
}
static void sigmoid_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_binary(b, "SigmoidGrad", grt_gb_output(b, 0), dy[0]);
}

/* TanhGrad(y, d) = d * (1 - y^2): d/dy = g * -2 * d * y; d/dd = TanhGrad(y, g) */
static void tanh_grad_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref y = grt_gb_input(b, 0), d = grt_gb_input(b, 1);
  grt_tref g2 = grt_gb_mul(b, dy[0], grt_gb_scalar(b, y.dtype, -2));
  dx[0] = grt_gb_mul(b, grt_gb_mul(b, g2, d), y);
  dx[1] = grt_gb_binary(b, "TanhGrad", y, dy[0]);
}

/* SigmoidGrad(y, d) = d * y * (1 - y): d/dy = g*d - 2*g*d*y; d/dd = SigmoidGrad(y, g) */
static void sigmoid_grad_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref y = grt_gb_input(b, 0), d = grt_gb_input(b, 1);
  grt_tref gd = grt_gb_mul(b, dy[0], d);
  grt_tref two_gd_y = grt_gb_mul(b, grt_gb_mul(b, grt_gb_scalar(b, y.dtype, 2), gd), y);
  dx[0] = grt_gb_sub(b, gd, two_gd_y);
  dx[1] = grt_gb_binary(b, "SigmoidGrad", y, dy[0]);
}

/* ---- selection, casts, sums ------------------------------------------- */

static void select_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref c = grt_gb_input(b, 0);
  grt_tref zeros = grt_gb_unary(b, "ZerosLike", grt_gb_input(b, 1));
  dx[1] = grt_gb_select(b, c, dy[0], zeros);
  dx[2] = grt_gb_select(b, c, zeros, dy[0]);
}

/* Only between float types; other casts pass no gradient. */
static void cast_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_dtype src = grt_gb_attr_type(b, "SrcT"), dst = grt_gb_attr_type(b, "DstT");
  bool src_float =
      src == GRT_FLOAT16 || src == GRT_BFLOAT16 || src == GRT_FLOAT32 || src == GRT_FLOAT64;
  bool dst_float =
      dst == GRT_FLOAT16 || dst == GRT_BFLOAT16 || dst == GRT_FLOAT32 || dst == GRT_FLOAT64;
  if (src_float && dst_float) dx[0] = grt_gb_cast(b, dy[0], src);
}

static void add_n_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  for (int32_t i = 0; i < grt_gb_node(b)->n_inputs; i++) dx[i] = dy[0];
}

/* ---- products --------------------------------------------------------- */

static void matmul_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref a = grt_gb_input(b, 0), m = grt_gb_input(b, 1), g = dy[0];
  bool ta = grt_gb_attr_bool(b, "transpose_a"), tb = grt_gb_attr_bool(b, "transpose_b");
  if (!ta && !tb) {
    dx[0] = grt_gb_matmul(b, g, m, false, true);
    dx[1] = grt_gb_matmul(b, a, g, true, false);
  } else if (!ta && tb) {
    dx[0] = grt_gb_matmul(b, g, m, false, false);
    dx[1] = grt_gb_matmul(b, g, a, true, false);
  } else if (ta && !tb) {
    dx[0] = grt_gb_matmul(b, m, g, false, true);
    dx[1] = grt_gb_matmul(b, a, g, false, false);
  } else {
    dx[0] = grt_gb_matmul(b, m, g, true, true);
    dx[1] = grt_gb_matmul(b, g, a, true, true);
  }
}

/* shape(x)[:-2]: the batch dimensions */
static grt_tref batch_dims(grt_grad_builder* b, grt_tref x) {
  int64_t zero = 0, minus2 = -2, one = 1;
  grt_tref ins[4] = {grt_gb_shape(b, x), grt_gb_ints(b, &zero, 1), grt_gb_ints(b, &minus2, 1),
                     grt_gb_ints(b, &one, 1)};
  int32_t n = grt_gb_add(b, "StridedSlice", ins, 4);
  grt_gb_set_type(b, n, "T", GRT_INT32);
  grt_gb_set_type(b, n, "Index", GRT_INT32);
  grt_gb_set_int(b, n, "begin_mask", 1);
  return grt_gb_ref(n, 0, GRT_INT32);
}

static void batch_matmul_v2_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1), g = dy[0], gx, gy;
  bool ax = grt_gb_attr_bool(b, "adj_x"), ay = grt_gb_attr_bool(b, "adj_y");
  if (!ax && !ay) {
    gx = grt_gb_batch_matmul(b, g, y, false, true);
    gy = grt_gb_batch_matmul(b, x, g, true, false);
  } else if (!ax && ay) {
    gx = grt_gb_batch_matmul(b, g, y, false, false);
    gy = grt_gb_batch_matmul(b, g, x, true, false);
  } else if (ax && !ay) {
    gx = grt_gb_batch_matmul(b, y, g, false, true);
    gy = grt_gb_batch_matmul(b, x, g, false, false);
  } else {
    gx = grt_gb_batch_matmul(b, y, g, true, true);
    gy = grt_gb_batch_matmul(b, g, x, true, true);
  }
  /* sum over the batch dimensions that were broadcast */
  grt_tref ins[2] = {batch_dims(b, x), batch_dims(b, y)};
  int32_t args = grt_gb_add(b, "BroadcastGradientArgs", ins, 2);
  grt_gb_set_type(b, args, "T", GRT_INT32);
  grt_tref rx = grt_gb_ref(args, 0, GRT_INT32), ry = grt_gb_ref(args, 1, GRT_INT32);
  dx[0] = grt_gb_reshape(b, grt_gb_sum(b, gx, rx, false), grt_gb_shape(b, x));
  dx[1] = grt_gb_reshape(b, grt_gb_sum(b, gy, ry, false), grt_gb_shape(b, y));
}

/* ---- reductions ------------------------------------------------------- */

/* g spread back over x: reshaped to x's rank with the reduced dimensions
 * kept as 1, then tiled. */
static grt_tref spread(grt_grad_builder* b, grt_tref g) {
  grt_tref x = grt_gb_input(b, 0), tile;
  grt_tref kept = grt_gb_reduced_shape(b, x, grt_gb_input(b, 1), &tile);
  grt_tref ins[2] = {grt_gb_reshape(b, g, kept), tile};
  int32_t n = grt_gb_add(b, "Tile", ins, 2);
  grt_gb_set_type(b, n, "T", g.dtype);
  grt_gb_set_type(b, n, "Tmultiples", GRT_INT32);
  return grt_gb_ref(n, 0, g.dtype);
}

static void sum_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = spread(b, dy[0]);
}

/* the sum's gradient over the number of elements averaged */
static void mean_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_output(b, 0);
  grt_dtype t = dy[0].dtype;
  grt_tref in_size = grt_gb_cast(b, grt_gb_size(b, x), t);
  grt_tref out_size =
      grt_gb_binary(b, "Maximum", grt_gb_cast(b, grt_gb_size(b, y), t), grt_gb_scalar(b, t, 1));
  dx[0] = grt_gb_div(b, spread(b, dy[0]), grt_gb_div(b, in_size, out_size));
}

/* The gradient goes to the elements equal to the extremum, shared evenly
 * among ties. */
static void min_max_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), axes = grt_gb_input(b, 1), y = grt_gb_output(b, 0);
  grt_tref kept = grt_gb_reduced_shape(b, x, axes, NULL);
  grt_tref y_kept = grt_gb_reshape(b, y, kept), g_kept = grt_gb_reshape(b, dy[0], kept);
  grt_tref hit = grt_gb_cast(b, grt_gb_compare(b, "Equal", y_kept, x), dy[0].dtype);
  grt_tref count = grt_gb_reshape(b, grt_gb_sum(b, hit, axes, false), kept);
  dx[0] = grt_gb_mul(b, grt_gb_div(b, hit, count), g_kept);
}

static const grt_grad_entry kRows[] = {
    {"Add", add_grad},
    {"AddV2", add_grad},
    {"Sub", sub_grad},
    {"Mul", mul_grad},
    {"RealDiv", real_div_grad},
    {"Maximum", maximum_grad},
    {"Minimum", minimum_grad},
    {"Pow", pow_grad},
    {"SquaredDifference", squared_difference_grad},
    {"Neg", neg_grad},
    {"Abs", abs_grad},
    {"Square", square_grad},
    {"Sqrt", sqrt_grad},
    {"Rsqrt", rsqrt_grad},
    {"Exp", exp_grad},
    {"Log", log_grad},
    {"Tanh", tanh_grad},
    {"Sigmoid", sigmoid_grad},
    {"TanhGrad", tanh_grad_grad},
    {"SigmoidGrad", sigmoid_grad_grad},
    {"Less", NULL},
    {"Greater", NULL},
    {"GreaterEqual", NULL},
    {"Equal", NULL},
    {"LogicalNot", NULL},
    {"Select", select_grad},
    {"Cast", cast_grad},
    {"AddN", add_n_grad},
    {"MatMul", matmul_grad},
    {"BatchMatMulV2", batch_matmul_v2_grad},
    {"Sum", sum_grad},
    {"Mean", mean_grad},
    {"Max", min_max_grad},
    {"Min", min_max_grad},
    {"ArgMax", NULL},
    /* Prod: TensorFlow's gradient needs Cumprod, which grt lacks: no row */
};

GRT_GRAD_TABLE(grt_grads_math, kRows);
