/* Gradients of the ops in ops/defs_math_more.c, TensorFlow's math_grad.py
 * formulas (x the input, y the output, g the incoming gradient). Floor,
 * Ceil and Round pass no gradient (TensorFlow's return None); IsNan,
 * IsInf and the shifts are not differentiable, as TensorFlow marks them. */
#include <math.h>

#include "ops/grad.h"

static grt_tref one_like(grt_grad_builder* b, grt_tref x) { return grt_gb_scalar(b, x.dtype, 1); }

/* g * cos(x) */
static void sin_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_unary(b, "Cos", grt_gb_input(b, 0)));
}

/* -g * sin(x) */
static void cos_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_mul(b, grt_gb_neg(b, dy[0]), grt_gb_unary(b, "Sin", grt_gb_input(b, 0)));
}

/* g * (1 / cos(x))^2 */
static void tan_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0);
  grt_tref sec = grt_gb_div(b, one_like(b, x), grt_gb_unary(b, "Cos", x));
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_unary(b, "Square", sec));
}

/* 1 / sqrt(1 - x^2) */
static grt_tref inv_sqrt_one_minus_sq(grt_grad_builder* b, grt_tref x) {
  grt_tref den =
      grt_gb_unary(b, "Sqrt", grt_gb_sub(b, one_like(b, x), grt_gb_unary(b, "Square", x)));
  return grt_gb_div(b, one_like(b, x), den);
}

static void asin_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_mul(b, dy[0], inv_sqrt_one_minus_sq(b, grt_gb_input(b, 0)));
}

static void acos_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_neg(b, grt_gb_mul(b, dy[0], inv_sqrt_one_minus_sq(b, grt_gb_input(b, 0))));
}

/* g * 1 / (1 + x^2) */
static void atan_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0);
  grt_tref inv =
      grt_gb_div(b, one_like(b, x), grt_gb_add2(b, one_like(b, x), grt_gb_unary(b, "Square", x)));
  dx[0] = grt_gb_mul(b, dy[0], inv);
}

/* g * 1 / (1 - x^2) */
static void atanh_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0);
  grt_tref inv =
      grt_gb_div(b, one_like(b, x), grt_gb_sub(b, one_like(b, x), grt_gb_unary(b, "Square", x)));
  dx[0] = grt_gb_mul(b, dy[0], inv);
}

static void sinh_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_unary(b, "Cosh", grt_gb_input(b, 0)));
}

static void cosh_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_unary(b, "Sinh", grt_gb_input(b, 0)));
}

/* g / cosh(y) */
static void asinh_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_div(b, dy[0], grt_gb_unary(b, "Cosh", grt_gb_output(b, 0)));
}

/* g / sinh(y) */
static void acosh_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_div(b, dy[0], grt_gb_unary(b, "Sinh", grt_gb_output(b, 0)));
}

/* zeros_like(x) */
static void sign_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  dx[0] = grt_gb_unary(b, "ZerosLike", grt_gb_input(b, 0));
}

/* g * 2/sqrt(pi) * exp(-x^2) */
static void erf_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0);
  grt_tref e = grt_gb_unary(b, "Exp", grt_gb_neg(b, grt_gb_unary(b, "Square", x)));
  grt_tref c = grt_gb_scalar(b, x.dtype, 2.0 / sqrt(3.14159265358979323846));
  dx[0] = grt_gb_mul(b, dy[0], grt_gb_mul(b, c, e));
}

/* gx = g, gy = g * -floor(x / y), each summed back over broadcast axes
 * (floor(x / y) is TensorFlow's FloorDiv for floats; integer tensors get
 * no gradient). */
static void floor_mod_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1);
  grt_tref q = grt_gb_unary(b, "Floor", grt_gb_div(b, x, y));
  dx[0] = grt_gb_unbroadcast(b, dy[0], x, y, true);
  dx[1] = grt_gb_unbroadcast(b, grt_gb_mul(b, dy[0], grt_gb_neg(b, q)), y, x, false);
}

/* Div on floats is RealDiv: dx = dy / y, dy_y = dy * (-x / y / y). */
static void div_grad(grt_grad_builder* b, const grt_tref* dy, grt_tref* dx) {
  grt_tref x = grt_gb_input(b, 0), y = grt_gb_input(b, 1);
  grt_tref gy = grt_gb_mul(b, dy[0], grt_gb_div(b, grt_gb_div(b, grt_gb_neg(b, x), y), y));
  dx[0] = grt_gb_unbroadcast(b, grt_gb_div(b, dy[0], y), x, y, true);
  dx[1] = grt_gb_unbroadcast(b, gy, y, x, false);
}

static const grt_grad_entry kRows[] = {
    {"Sin", sin_grad},
    {"Cos", cos_grad},
    {"Tan", tan_grad},
    {"Asin", asin_grad},
    {"Acos", acos_grad},
    {"Atan", atan_grad},
    {"Sinh", sinh_grad},
    {"Cosh", cosh_grad},
    {"Asinh", asinh_grad},
    {"Acosh", acosh_grad},
    {"Atanh", atanh_grad},
    {"Floor", NULL},
    {"Ceil", NULL},
    {"Round", NULL},
    {"Sign", sign_grad},
    {"Erf", erf_grad},
    {"IsNan", NULL},
    {"IsInf", NULL},
    {"FloorMod", floor_mod_grad},
    {"LessEqual", NULL},
    {"NotEqual", NULL},
    {"Div", div_grad},
    /* TensorFlow: TruncateDiv and the bitwise ops are not differentiable,
     * FloorDiv's gradient is None for both inputs. */
    {"TruncateDiv", NULL},
    {"FloorDiv", NULL},
    {"BitwiseAnd", NULL},
    {"BitwiseOr", NULL},
    {"BitwiseXor", NULL},
    {"Invert", NULL},
    {"LeftShift", NULL},
    {"RightShift", NULL},
    /* TruncateMod: no gradient written (tests/training/grad_coverage_test.cc) */
};

GRT_GRAD_TABLE(grt_grads_math_more, kRows);
