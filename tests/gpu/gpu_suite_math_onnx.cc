// The GPU suite, continued: the element-wise math added for ONNX import
// (trigonometric and hyperbolic functions, Floor, Ceil, Round, Sign, Erf,
// IsNan, IsInf, FloorMod, TruncateMod, LeftShift, RightShift), each against
// the CPU kernel: broadcasting, every dtype of the rows that the suite can
// fill, NaN/Inf/.5-tie inputs (kEdges), negative operands, empty tensors,
// and the integer division by zero both devices refuse.
//
// Run on an H200 (tests/gpu/runs); GRT_GPU_SUITE_DRY=1 runs
// the graphs and comparisons on the CPU only).
#include "tests/gpu/gpu_suite_util.h"

namespace {

class GpuMathOnnx : public GpuSuite {};

// float16 and bfloat16 run the float32 arithmetic on widened values.
const grt_dtype kAllFloats[] = {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16};

TEST_F(GpuMathOnnx, UnaryFloat) {
  for (const char* op : {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh",
                         "Acosh", "Atanh", "Floor", "Ceil", "Round", "Sign", "Erf"})
    for (grt_dtype dt : kAllFloats) {
      CheckAgainstCpu({op, "", {{dt, {7, 9}, kEdges}}});
      CheckAgainstCpu({op, "", {{dt, {0, 3}}}});  // empty
    }
}

TEST_F(GpuMathOnnx, SignOfIntegers) {
  // int64 in device memory, int32 in host memory (the row's "x, y").
  for (grt_dtype dt : {GRT_INT64, GRT_INT32}) CheckAgainstCpu({"Sign", "", {{dt, {5, 11}}}});
}

TEST_F(GpuMathOnnx, IsNanIsInf) {
  for (const char* op : {"IsNan", "IsInf"})
    for (grt_dtype dt : kAllFloats) {
      CheckAgainstCpu({op, "", {{dt, {6, 8}, kEdges}}});
      CheckAgainstCpu({op, "", {{dt, {0}}}});
    }
}

TEST_F(GpuMathOnnx, Remainders) {
  for (grt_dtype dt : kFloats) {
    CheckAgainstCpu({"FloorMod", "", {{dt, {4, 6}}, {dt, {4, 6}}}});       // both signs
    CheckAgainstCpu({"FloorMod", "", {{dt, {3, 1, 5}}, {dt, {4, 1}}}});    // broadcasting
    CheckAgainstCpu({"FloorMod", "", {{dt, {5, 4}, kEdges}, {dt, {4}}}});  // NaN, inf, -0
    CheckAgainstCpu({"FloorMod", "", {{dt, {0, 4}}, {dt, {4}}}});          // empty
  }
  for (const char* op : {"FloorMod", "TruncateMod"}) {  // int32: host memory
    CheckAgainstCpu({op, "", {{GRT_INT32, {5, 7}}, {GRT_INT32, {5, 7}, kNonZero}}});
    CheckAgainstCpu({op, "", {{GRT_INT32, {2, 1, 7}}, {GRT_INT32, {3, 1}, kNonZero}}});
    CheckAgainstCpu(
        {op, "", {{GRT_INT32, {2}, kConst, {INT32_MIN, 7}}, {GRT_INT32, {2}, kConst, {-1, -3}}}});
    ExpectSameError(
        {op, "", {{GRT_INT32, {3}, kConst, {5, 6, 7}}, {GRT_INT32, {3}, kConst, {2, 0, 1}}}},
        GRT_INVALID_ARGUMENT, "Integer division by zero");
  }
}

TEST_F(GpuMathOnnx, Shifts) {
  // Counts from -50 to 50: negative and past the width are clamped.
  for (const char* op : {"LeftShift", "RightShift"})
    for (grt_dtype dt : {GRT_INT8, GRT_INT16, GRT_INT32, GRT_INT64, GRT_UINT8}) {
      CheckAgainstCpu({op, "", {{dt, {6, 9}}, {dt, {6, 9}}}});
      CheckAgainstCpu({op, "", {{dt, {2, 3, 4}}, {dt, {4}}}});
      CheckAgainstCpu({op, "", {{dt, {0, 4}}, {dt, {4}}}});
    }
}

}  // namespace
