// The integer column of the element-wise ops: Div, TruncateDiv and FloorDiv
// (with their float rows), integer Pow on every signed width, the bitwise
// ops and Invert, LessEqual and NotEqual, against references computed here in 64-bit integers,
// over every integer dtype their CPU support rows promise: negative
// operands (floor and truncation differ), zero divisors (an error, not
// SIGFPE), the most negative value divided by -1 (defined: it wraps, not a
// trap), and broadcasting.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"
#include "tests/kernels/kernel_test_util.h"

namespace grt_test {
namespace {

using Dims = std::vector<int64_t>;
using Vals = std::vector<double>;

const grt_dtype kInts[] = {GRT_INT8, GRT_INT16, GRT_INT32, GRT_INT64, GRT_UINT8};

bool IsSigned(grt_dtype t) { return t != GRT_UINT8; }

// v as the dtype's two's-complement value (what a store of v keeps).
int64_t WrapTo(grt_dtype dt, int64_t v) {
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
      return v;
  }
}

int64_t TruncDiv(int64_t a, int64_t b) { return a / b; }
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

struct IntOp {
  const char* op;
  std::function<int64_t(int64_t, int64_t)> f;
};

// x is {3, 4} and y {4}: every x row meets every divisor, mixed signs.
TEST(IntegerDivision, EveryDtypeMixedSignsBroadcast) {
  const std::vector<IntOp> ops = {
      {"Div", TruncDiv}, {"TruncateDiv", TruncDiv}, {"FloorDiv", FloorDiv}};
  Vals x = {7, -7, 8, -8, 1, -1, 0, 5, 100, -100, 127, -128};
  Vals y = {3, -3, 2, -5};
  Dims dx = {3, 4}, dy = {4};
  for (grt_dtype dt : kInts) {
    Vals xs = x, ys = y;
    if (!IsSigned(dt)) {
      xs = {7, 200, 8, 255, 1, 9, 0, 5, 100, 99, 127, 128};
      ys = {3, 7, 2, 5};
    }
    for (const IntOp& c : ops) {
      SCOPED_TRACE(std::string(c.op) + " " + grt_dtype_name(dt));
      Vals want(xs.size());
      for (size_t i = 0; i < xs.size(); i++)
        want[i] =
            static_cast<double>(c.f(static_cast<int64_t>(xs[i]), static_cast<int64_t>(ys[i % 4])));
      OpRun r(c.op);
      r.AttrType("T", dt).Input(MakeTensor(dt, dx, xs)).Input(MakeTensor(dt, dy, ys));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), dx, want, 0);
    }
  }
}

// Floor and truncation differ exactly where the quotient is inexact and
// the signs differ: -7 / 2 is -3 truncated and -4 floored.
TEST(IntegerDivision, FloorAndTruncateDiffer) {
  OpRun t("TruncateDiv"), f("FloorDiv");
  for (OpRun* r : {&t, &f})
    r->AttrType("T", GRT_INT64)
        .Input(T_<int64_t>({4}, {-7, 7, -6, 7}))
        .Input(T_<int64_t>({4}, {2, -2, 2, 2}));
  ASSERT_OK(t.Run());
  ASSERT_OK(f.Run());
  ExpectNear(t.Output(0), {4}, {-3, -3, -3, 3}, 0);
  ExpectNear(f.Output(0), {4}, {-4, -4, -3, 3}, 0);
}

TEST(IntegerDivision, ByZeroIsAnErrorForEveryOpAndDtype) {
  for (const char* op : {"Div", "TruncateDiv", "FloorDiv", "FloorMod", "TruncateMod"})
    for (grt_dtype dt : CpuDtypes(op, "T")) {
      if (!grt_dtype_is_integer(dt)) continue;
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(dt));
      OpRun r(op);
      // The zero is in a broadcast divisor, and also alone as a scalar.
      r.AttrType("T", dt)
          .Input(MakeTensor(dt, {2, 3}, {1, 2, 3, 4, 5, 6}))
          .Input(MakeTensor(dt, {3}, {1, 0, 2}));
      CheckStatus(r.Run(), GRT_INVALID_ARGUMENT, "Integer division by zero");
      OpRun s(op);
      s.AttrType("T", dt).Input(MakeTensor(dt, {2}, {1, 2})).Input(MakeTensor(dt, {}, {0}));
      CheckStatus(s.Run(), GRT_INVALID_ARGUMENT, "Integer division by zero");
    }
}

// INT_MIN / -1 overflows (SIGFPE on x86 in C): defined here as the wrapped
// value, INT_MIN, with remainder 0, for every signed width.
template <typename T>
void CheckMinByMinusOne(grt_dtype dt) {
  const T lo = std::numeric_limits<T>::min();
  for (const char* op : {"Div", "TruncateDiv", "FloorDiv", "FloorMod", "TruncateMod"}) {
    bool listed = false;
    for (grt_dtype t : CpuDtypes(op, "T")) listed |= t == dt;
    if (!listed) continue;
    SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(dt));
    OpRun r(op);
    r.AttrType("T", dt)
        .Input(MakeTensor(dt, {3}, {static_cast<double>(lo), 9, -9}))
        .Input(MakeTensor(dt, {}, {-1}));
    ASSERT_OK(r.Run());
    const T* z = static_cast<const T*>(grt_tensor_data(r.Output(0)));
    bool remainder = std::string(op).find("Mod") != std::string::npos;
    EXPECT_EQ(z[0], remainder ? T(0) : lo);
    EXPECT_EQ(z[1], remainder ? T(0) : T(-9));
    EXPECT_EQ(z[2], remainder ? T(0) : T(9));
  }
}

TEST(IntegerDivision, MostNegativeByMinusOneWraps) {
  CheckMinByMinusOne<int8_t>(GRT_INT8);
  CheckMinByMinusOne<int16_t>(GRT_INT16);
  CheckMinByMinusOne<int32_t>(GRT_INT32);
  CheckMinByMinusOne<int64_t>(GRT_INT64);
}

TEST(IntegerDivision, FloatRowsDivideAndFloor) {
  double inf = std::numeric_limits<double>::infinity();
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    Vals x = {7, -7, 7.5, -0.5, 1, 0}, y = {2, 2, -2.5, 4, 0, 0};
    OpRun d("Div"), f("FloorDiv");
    for (OpRun* r : {&d, &f})
      r->AttrType("T", dt).Input(MakeTensor(dt, {6}, x)).Input(MakeTensor(dt, {6}, y));
    ASSERT_OK(d.Run());
    ASSERT_OK(f.Run());
    ExpectNear(d.Output(0), {6}, {3.5, -3.5, -3, -0.125, inf, std::nan("")}, 1e-3);
    ExpectNear(f.Output(0), {6}, {3, -4, -3, -1, inf, std::nan("")}, 0);
  }
  // TruncateDiv has no float kernel, as in TensorFlow.
  OpRun t("TruncateDiv");
  t.AttrType("T", GRT_FLOAT32).Input(T_<float>({1}, {1})).Input(T_<float>({1}, {1}));
  grt_status* s = t.Run();
  EXPECT_NE(s, nullptr);
  grt_status_free(s);
}

TEST(IntegerPow, EverySignedWidthWraps) {
  Vals base = {3, -2, 2, 0, 7, -1, 5};
  Vals exp = {4, 3, 9, 0, 1, 5, 2};
  for (grt_dtype dt : {GRT_INT8, GRT_INT16, GRT_INT32, GRT_INT64}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    Vals want(base.size());
    for (size_t i = 0; i < base.size(); i++) {
      uint64_t p = 1;
      for (int k = 0; k < exp[i]; k++) p *= static_cast<uint64_t>(static_cast<int64_t>(base[i]));
      want[i] = static_cast<double>(WrapTo(dt, static_cast<int64_t>(p)));
    }
    OpRun r("Pow");
    r.AttrType("T", dt).Input(MakeTensor(dt, {7}, base)).Input(MakeTensor(dt, {7}, exp));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {7}, want, 0);
    OpRun neg("Pow");
    neg.AttrType("T", dt).Input(MakeTensor(dt, {2}, {2, 3})).Input(MakeTensor(dt, {2}, {1, -1}));
    CheckStatus(neg.Run(), GRT_INVALID_ARGUMENT, "Integers to negative integer powers");
  }
}

TEST(Bitwise, EveryDtypeBroadcast) {
  const std::vector<IntOp> ops = {
      {"BitwiseAnd", [](int64_t a, int64_t b) { return a & b; }},
      {"BitwiseOr", [](int64_t a, int64_t b) { return a | b; }},
      {"BitwiseXor", [](int64_t a, int64_t b) { return a ^ b; }},
  };
  for (grt_dtype dt : kInts) {
    Vals x = {12, -1, 0, 85, -128, 127};
    if (!IsSigned(dt)) x = {12, 255, 0, 85, 128, 127};
    Vals y = {10, 3};
    Dims dx = {3, 2}, dy = {2};
    for (const IntOp& c : ops) {
      SCOPED_TRACE(std::string(c.op) + " " + grt_dtype_name(dt));
      Vals want(x.size());
      for (size_t i = 0; i < x.size(); i++)
        want[i] = static_cast<double>(
            WrapTo(dt, c.f(static_cast<int64_t>(x[i]), static_cast<int64_t>(y[i % 2]))));
      OpRun r(c.op);
      r.AttrType("T", dt).Input(MakeTensor(dt, dx, x)).Input(MakeTensor(dt, dy, y));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), dx, want, 0);
    }
    SCOPED_TRACE(std::string("Invert ") + grt_dtype_name(dt));
    Vals want(x.size());
    for (size_t i = 0; i < x.size(); i++)
      want[i] = static_cast<double>(WrapTo(dt, ~static_cast<int64_t>(x[i])));
    OpRun r("Invert");
    r.AttrType("T", dt).Input(MakeTensor(dt, dx, x));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), dx, want, 0);
  }
}

// LessEqual and NotEqual over every dtype their rows promise, broadcast;
// NaN is unequal to everything, itself included.
TEST(Compare, LessEqualAndNotEqualEveryDtype) {
  for (const char* op : {"LessEqual", "NotEqual"})
    for (grt_dtype dt : CpuDtypes(op, "T")) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(dt));
      bool is_bool = dt == GRT_BOOL;
      Vals x = is_bool ? Vals{0, 1, 1, 0, 1, 0} : Vals{-3, 0, 5, 2, 2, 100};
      Vals y = is_bool ? Vals{0, 1, 1} : Vals{2, 0, 4};
      if (dt == GRT_UINT8) x[0] = 3;
      Vals want(6);
      for (size_t i = 0; i < 6; i++) {
        double a = x[i], b = y[i % 3];
        want[i] = std::string(op) == "LessEqual" ? a <= b : a != b;
      }
      OpRun r(op);
      r.AttrType("T", dt).Input(MakeTensor(dt, {2, 3}, x)).Input(MakeTensor(dt, {3}, y));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), {2, 3}, want, 0);
    }
  double nan = std::nan("");
  OpRun n("NotEqual");
  n.AttrType("T", GRT_FLOAT32).Input(T_<float>({2}, {nan, 1})).Input(T_<float>({2}, {nan, 1}));
  ASSERT_OK(n.Run());
  ExpectNear(n.Output(0), {2}, {1, 0}, 0);
}

TEST(Compare, NotEqualWithoutShapeErrorGivesScalarTrue) {
  FeedRun r("NotEqual");
  r.AttrType("T", GRT_INT32)
      .AttrBool("incompatible_shape_error", false)
      .Input(T_<int32_t>({2}, {1, 2}))
      .Input(T_<int32_t>({3}, {1, 2, 3}));
  ASSERT_OK(r.Run());
  ASSERT_EQ(grt_tensor_rank(r.Output(0)), 0);
  EXPECT_EQ(*static_cast<const uint8_t*>(grt_tensor_data(r.Output(0))), 1);
}

// Every dtype the CPU support rows promise runs, through a session.
TEST(Coverage, EverySupportRowDtypeRuns) {
  auto two = [](grt_dtype t) { return MakeTensor(t, {2}, {1, 2}); };
  for (const char* op : {"Div", "TruncateDiv", "FloorDiv", "Pow", "BitwiseAnd", "BitwiseOr",
                         "BitwiseXor", "LessEqual", "NotEqual"})
    for (grt_dtype t : CpuDtypes(op, "T")) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(t));
      FeedRun r(op);
      r.AttrType("T", t).Input(two(t)).Input(two(t));
      ASSERT_OK(r.Run());
    }
  for (grt_dtype t : CpuDtypes("Invert", "T")) {
    SCOPED_TRACE(std::string("Invert ") + grt_dtype_name(t));
    FeedRun r("Invert");
    r.AttrType("T", t).Input(two(t));
    ASSERT_OK(r.Run());
  }
}

}  // namespace
}  // namespace grt_test
