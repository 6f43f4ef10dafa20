// The element-wise math kernels added for ONNX import (trigonometric,
// hyperbolic, rounding, Sign, Erf, IsNan/IsInf, FloorMod/TruncateMod,
// LeftShift/RightShift) against references computed here in double or
// 64-bit integers, over every dtype their CPU support rows promise.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/unary_check.h"

namespace grt_test {
namespace {

using Dims = std::vector<int64_t>;

TEST(UnaryMath, FloatOpsAgainstReference) {
  const std::vector<UnaryCase> cases = {
      {"Sin", [](double x) { return std::sin(x); }, -8, 8},
      {"Cos", [](double x) { return std::cos(x); }, -8, 8},
      {"Tan", [](double x) { return std::tan(x); }, -1.5, 1.5},
      {"Asin", [](double x) { return std::asin(x); }, -1, 1},
      {"Acos", [](double x) { return std::acos(x); }, -1, 1},
      {"Atan", [](double x) { return std::atan(x); }, -8, 8},
      {"Sinh", [](double x) { return std::sinh(x); }, -4, 4},
      {"Cosh", [](double x) { return std::cosh(x); }, -4, 4},
      {"Asinh", [](double x) { return std::asinh(x); }, -8, 8},
      {"Acosh", [](double x) { return std::acosh(x); }, 1, 9},
      {"Atanh", [](double x) { return std::atanh(x); }, -0.875, 0.875},
      {"Floor", [](double x) { return std::floor(x); }, -8, 8},
      {"Ceil", [](double x) { return std::ceil(x); }, -8, 8},
      {"Round", [](double x) { return std::nearbyint(x); }, -8, 8},
      {"Sign", [](double x) { return static_cast<double>((x > 0) - (x < 0)); }, -4, 4},
      {"Erf", [](double x) { return std::erf(x); }, -3, 3},
  };
  CheckUnaryCases(cases, 5, 4e-6);
}

TEST(UnaryMath, RoundIsHalfToEvenAndEdges) {
  double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  struct Edge {
    const char* op;
    Vals in, out;
  };
  const std::vector<Edge> edges = {
      {"Round", {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.25, inf}, {0, 2, 2, 0, -2, -2, 3, inf}},
      {"Floor", {-0.5, 0.5, -inf}, {-1, 0, -inf}},
      {"Ceil", {-0.5, 0.5, inf}, {0, 1, inf}},
      {"Sign", {-inf, inf, 0, nan}, {-1, 1, 0, nan}},
      {"Asin", {2, -1}, {nan, -M_PI / 2}},
      {"Atanh", {1, -1}, {inf, -inf}},
      {"Erf", {inf, -inf, 0}, {1, -1, 0}},
  };
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16}) {
    for (const Edge& e : edges) {
      SCOPED_TRACE(std::string(e.op) + " " + grt_dtype_name(dt));
      OpRun r(e.op);
      Dims d = {static_cast<int64_t>(e.in.size())};
      r.AttrType("T", dt).Input(MakeTensor(dt, d, e.in));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), d, e.out, 1e-3);
    }
  }
}

TEST(UnaryMath, IntegerRoundAndSign) {
  for (grt_dtype dt : {GRT_INT32, GRT_INT64, GRT_INT8, GRT_INT16}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    Vals in = {-100, -3, -1, 0, 1, 7, 100};
    Vals sign(in.size());
    for (size_t i = 0; i < in.size(); i++) sign[i] = (in[i] > 0) - (in[i] < 0);
    Dims d = {static_cast<int64_t>(in.size())};
    OpRun s("Sign");
    s.AttrType("T", dt).Input(MakeTensor(dt, d, in));
    ASSERT_OK(s.Run());
    ExpectNear(s.Output(0), d, sign, 0);
    OpRun r("Round");
    r.AttrType("T", dt).Input(MakeTensor(dt, d, in));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), d, in, 0);
  }
}

TEST(UnaryMath, IsNanIsInfEveryFloatType) {
  double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Vals in = {nan, inf, -inf, 0, -1.5, 65504, -nan};
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    Dims d = {static_cast<int64_t>(in.size())};
    for (const char* op : {"IsNan", "IsInf"}) {
      grt_tensor* x = MakeTensor(dt, d, in);
      Vals want(in.size());
      for (size_t i = 0; i < in.size(); i++) {
        double v = At(x, static_cast<int64_t>(i));
        want[i] = std::string(op) == "IsNan" ? std::isnan(v) : std::isinf(v);
      }
      OpRun r(op);
      r.AttrType("T", dt).Input(x);
      ASSERT_OK(r.Run());
      EXPECT_EQ(grt_tensor_dtype(r.Output(0)), GRT_BOOL);
      ExpectNear(r.Output(0), d, want, 0);
    }
  }
}

// Remainders by the definitions: floor takes y's sign, trunc x's.
double FloorModRef(double a, double b) { return a - std::floor(a / b) * b; }
double TruncModRef(double a, double b) { return std::fmod(a, b); }

TEST(ModShift, FloatRemaindersBroadcast) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64}) {
    for (const char* op : {"FloorMod", "TruncateMod"}) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(dt));
      Dims da = {4, 5}, db = {5};
      Vals a = Seq(20, -8, 8, 3), b = {-3, -1.5, 0.75, 2, 5};
      Vals want(20);
      for (int64_t i = 0; i < 20; i++)
        want[i] = std::string(op) == "FloorMod" ? FloorModRef(a[i], b[i % 5])
                                                : TruncModRef(a[i], b[i % 5]);
      OpRun r(op);
      r.AttrType("T", dt).Input(MakeTensor(dt, da, a)).Input(MakeTensor(dt, db, b));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), da, want, 1e-6);
    }
  }
  // Float division by zero is NaN, not an error.
  OpRun r("FloorMod");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({1}, {3})).Input(T_<float>({1}, {0}));
  ASSERT_OK(r.Run());
  EXPECT_TRUE(std::isnan(At(r.Output(0), 0)));
}

TEST(ModShift, IntegerRemaindersMixedSigns) {
  Vals a = {7, -7, 7, -7, 0, 5, -128, 127};
  Vals b = {3, 3, -3, -3, 4, 1, -1, 10};
  Dims d = {8};
  for (grt_dtype dt : {GRT_INT8, GRT_INT16, GRT_INT32, GRT_INT64}) {
    for (const char* op : {"FloorMod", "TruncateMod"}) {
      if (std::string(op) == "TruncateMod" && dt != GRT_INT32 && dt != GRT_INT64) continue;
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(dt));
      Vals want(a.size());
      for (size_t i = 0; i < a.size(); i++)
        want[i] = std::string(op) == "FloorMod" ? FloorModRef(a[i], b[i]) : TruncModRef(a[i], b[i]);
      OpRun r(op);
      r.AttrType("T", dt).Input(MakeTensor(dt, d, a)).Input(MakeTensor(dt, d, b));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), d, want, 0);
    }
  }
  OpRun u("FloorMod");
  u.AttrType("T", GRT_UINT8)
      .Input(T_<uint8_t>({3}, {200, 9, 4}))
      .Input(T_<uint8_t>({3}, {7, 9, 5}));
  ASSERT_OK(u.Run());
  ExpectNear(u.Output(0), {3}, {200 % 7, 0, 4}, 0);
}

TEST(ModShift, IntegerDivisionByZeroIsAnError) {
  for (const char* op : {"FloorMod", "TruncateMod"}) {
    OpRun r(op);
    r.AttrType("T", GRT_INT32)
        .Input(T_<int32_t>({3}, {1, 2, 3}))
        .Input(T_<int32_t>({3}, {1, 0, 1}));
    grt_status* s = r.Run();
    ASSERT_NE(s, nullptr) << op;
    EXPECT_NE(std::string(grt_status_message(s)).find("division by zero"), std::string::npos);
    grt_status_free(s);
  }
}

// Shifts: the count clamped to [0, bits - 1]; left shifts wrap in the
// type's width, right shifts of signed values are arithmetic.
int64_t WrapTo(grt_dtype dt, uint64_t v) {
  switch (dt) {
    case GRT_INT8:
      return static_cast<int8_t>(v);
    case GRT_INT16:
      return static_cast<int16_t>(v);
    case GRT_INT32:
      return static_cast<int32_t>(v);
    case GRT_UINT8:
      return static_cast<uint8_t>(v);
    default:
      return static_cast<int64_t>(v);
  }
}

TEST(ModShift, ShiftsClampAndWrap) {
  Vals x = {-1, -5, 3, 100, 1, -128, 77, 6};
  Vals y = {5, 0, 7, 2, 70, 1, -3, 1};
  Dims d = {8};
  for (grt_dtype dt : {GRT_INT8, GRT_INT16, GRT_INT32, GRT_INT64, GRT_UINT8}) {
    int bits = static_cast<int>(grt_dtype_size(dt)) * 8;
    grt_tensor* xt = MakeTensor(dt, d, x);
    Vals left(x.size()), right(x.size());
    for (size_t i = 0; i < x.size(); i++) {
      int64_t a = static_cast<int64_t>(At(xt, static_cast<int64_t>(i)));
      int s = y[i] < 0 ? 0 : y[i] >= bits ? bits - 1 : static_cast<int>(y[i]);
      left[i] = static_cast<double>(WrapTo(dt, static_cast<uint64_t>(a) << s));
      // Arithmetic shift as floor division by 2^s.
      right[i] = std::floor(static_cast<double>(a) / std::ldexp(1.0, s));
    }
    for (const char* op : {"LeftShift", "RightShift"}) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(dt));
      Vals yy = y;
      if (dt == GRT_UINT8) yy[6] = 3;  // no negative counts in uint8
      if (dt == GRT_UINT8) {
        int64_t a = static_cast<int64_t>(At(xt, 6));
        left[6] = static_cast<double>(WrapTo(dt, static_cast<uint64_t>(a) << 3));
        right[6] = std::floor(static_cast<double>(a) / 8);
      }
      OpRun r(op);
      r.AttrType("T", dt).Input(MakeTensor(dt, d, x)).Input(MakeTensor(dt, d, yy));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), d, std::string(op) == "LeftShift" ? left : right, 0);
    }
    grt_tensor_free(xt);
  }
}

// Every dtype the CPU support rows promise runs.
TEST(Coverage, EverySupportRowDtypeRuns) {
  auto two = [](grt_dtype t) { return MakeTensor(t, {2}, {1, 2}); };
  for (const char* op :
       {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
        "Floor", "Ceil", "Round", "Sign", "Erf", "IsNan", "IsInf"})
    for (grt_dtype t : CpuDtypes(op, "T")) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(t));
      FeedRun r(op);
      r.AttrType("T", t).Input(two(t));
      ASSERT_OK(r.Run());
    }
  for (const char* op : {"FloorMod", "TruncateMod", "LeftShift", "RightShift"})
    for (grt_dtype t : CpuDtypes(op, "T")) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(t));
      FeedRun r(op);
      r.AttrType("T", t).Input(two(t)).Input(two(t));
      ASSERT_OK(r.Run());
    }
}

}  // namespace
}  // namespace grt_test
