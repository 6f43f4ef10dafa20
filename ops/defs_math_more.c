/* More math ops, with TensorFlow's names, signatures and dtype sets
 * (math_ops.cc, bitwise_ops.cc; restricted to grt's dtypes): the
 * trigonometric and hyperbolic functions and their inverses, rounding,
 * Sign, Erf, IsNan/IsInf, the comparisons LessEqual and NotEqual, the divisions Div, TruncateDiv
 * and FloorDiv, the remainders FloorMod and TruncateMod, the shifts and the bitwise ops. Kernels:
 * backends/cpu/elementwise_unary_math.c, elementwise_div.c, elementwise_mod_shift.c and
 * elementwise_bitwise.c; gradients: ops/grad_math_more.c. */
#include "ops/defs.h"
#include "ops/grad.h"
#include "ops/shape_fns.h"

#define UNARY(name, types) \
  { name, "x: T", "y: T", "T: " types, 0, grt_infer_unchanged }
#define CLASSIFY(name) \
  { name, "x: T", "y: bool", "T: " GRT_TYPES_FLOAT, 0, grt_infer_unchanged }
#define BINARY(name, types) \
  { name, "x: T, y: T", "z: T", "T: " types, 0, grt_infer_broadcast_binary }
#define TYPES_INTEGER "{int8, int16, int32, int64, uint8}"

static const grt_op_spec kRows[] = {
    UNARY("Sin", GRT_TYPES_FLOAT),
    UNARY("Cos", GRT_TYPES_FLOAT),
    UNARY("Tan", GRT_TYPES_FLOAT),
    UNARY("Asin", GRT_TYPES_FLOAT),
    UNARY("Acos", GRT_TYPES_FLOAT),
    UNARY("Atan", GRT_TYPES_FLOAT),
    UNARY("Sinh", GRT_TYPES_FLOAT),
    UNARY("Cosh", GRT_TYPES_FLOAT),
    UNARY("Asinh", GRT_TYPES_FLOAT),
    UNARY("Acosh", GRT_TYPES_FLOAT),
    UNARY("Atanh", GRT_TYPES_FLOAT),
    UNARY("Floor", GRT_TYPES_FLOAT),
    UNARY("Ceil", GRT_TYPES_FLOAT),
    UNARY("Round", GRT_TYPES_SIGNED),
    UNARY("Sign", GRT_TYPES_SIGNED),
    UNARY("Erf", GRT_TYPES_FLOAT),
    CLASSIFY("IsNan"),
    CLASSIFY("IsInf"),
    BINARY("FloorMod", GRT_TYPES_NUMBER),
    BINARY("TruncateMod", GRT_TYPES_FLOAT_INDEX),
    {"LessEqual", "x: T, y: T", "z: bool", "T: " GRT_TYPES_REAL, 0, grt_infer_broadcast_binary},
    {"NotEqual", "x: T, y: T", "z: bool", "T: type; incompatible_shape_error: bool = true", 0,
     grt_infer_equal},
    BINARY("Div", GRT_TYPES_NUMBER),
    BINARY("TruncateDiv", GRT_TYPES_NUMBER),
    BINARY("FloorDiv", GRT_TYPES_NUMBER),
    BINARY("BitwiseAnd", TYPES_INTEGER),
    BINARY("BitwiseOr", TYPES_INTEGER),
    BINARY("BitwiseXor", TYPES_INTEGER),
    UNARY("Invert", TYPES_INTEGER),
    BINARY("LeftShift", TYPES_INTEGER),
    BINARY("RightShift", TYPES_INTEGER),
};

GRT_OP_TABLE_WITH_GRADS(grt_ops_math_more, "math_more", kRows, grt_grads_math_more);
