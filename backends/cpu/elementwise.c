/* The element-wise family's kernel table (kernels in elementwise_*.c).
 * None is marked cheap: all do work that grows with the tensors.
 * StopGradient, an identity, is in the array family. */
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/elementwise.h"

#define K(op, fn) \
  { op, grt_cpu_##fn, NULL, NULL, 0 }

GRT_CPU_KERNEL_TABLE(elementwise, K("Add", add), K("AddV2", add), K("Sub", sub), K("Mul", mul),
                     K("RealDiv", real_div), K("Div", div), K("TruncateDiv", truncate_div),
                     K("FloorDiv", floor_div), K("Maximum", maximum), K("Minimum", minimum),
                     K("Pow", pow), K("SquaredDifference", squared_difference), K("Less", less),
                     K("Greater", greater), K("GreaterEqual", greater_equal), K("Equal", equal),
                     K("LessEqual", less_equal), K("NotEqual", not_equal), K("Neg", neg),
                     K("Abs", abs), K("Square", square), K("Sqrt", sqrt), K("Rsqrt", rsqrt),
                     K("Exp", exp), K("Log", log), K("Tanh", tanh), K("Sigmoid", sigmoid),
                     K("TanhGrad", tanh_grad), K("SigmoidGrad", sigmoid_grad),
                     K("LogicalNot", logical_not), K("Select", select), K("Cast", cast),
                     K("AddN", add_n), K("BitwiseAnd", bitwise_and), K("BitwiseOr", bitwise_or),
                     K("BitwiseXor", bitwise_xor), K("Invert", invert));
