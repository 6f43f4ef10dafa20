// Element-wise CPU kernels against references computed here from the
// inputs: broadcasting arithmetic and comparisons, unary math, activation
// gradients, Select, Cast and AddN, over every dtype class, with edge
// values, work split over a thread pool, and the error cases.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/unary_check.h"

extern "C" {
#include "kernels/kernel_registry.h"
#include "ops/op_def.h"
}

namespace grt_test {
namespace {

using Dims = std::vector<int64_t>;

// NumPy broadcasting of two shapes, computed independently of the kernels.
Dims BroadcastDims(const Dims& a, const Dims& b) {
  size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t i = 0; i < r; i++) {
    int64_t da = i + a.size() >= r ? a[i + a.size() - r] : 1;
    int64_t db = i + b.size() >= r ? b[i + b.size() - r] : 1;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Flat index into `in` (right-aligned, size-1 dims repeat) of output index.
int64_t SourceIndex(const Dims& in, const Dims& out, int64_t flat) {
  std::vector<int64_t> idx(out.size());
  for (size_t k = out.size(); k-- > 0;) {
    idx[k] = flat % out[k];
    flat /= out[k];
  }
  int64_t at = 0;
  for (size_t k = 0; k < in.size(); k++) {
    size_t ok = k + out.size() - in.size();
    at = at * in[k] + (in[k] == 1 ? 0 : idx[ok]);
  }
  return at;
}

Vals RefBinary(const Dims& da, const Vals& a, const Dims& db, const Vals& b, Dims* out_dims,
               const std::function<double(double, double)>& f) {
  *out_dims = BroadcastDims(da, db);
  int64_t n = Count(*out_dims);
  Vals z(n);
  for (int64_t i = 0; i < n; i++)
    z[i] = f(a[SourceIndex(da, *out_dims, i)], b[SourceIndex(db, *out_dims, i)]);
  return z;
}

struct ShapePair {
  Dims a, b;
};
const std::vector<ShapePair>& BroadcastCases() {
  static const std::vector<ShapePair> cases = {
      {{2, 3}, {2, 3}},
      {{2, 3}, {3}},
      {{3}, {2, 3}},
      {{2, 1}, {1, 3}},
      {{}, {4}},
      {{4}, {}},
      {{}, {}},
      {{2, 1, 3, 1}, {1, 4, 1, 5}},
      {{3, 1}, {3, 4}},
      {{1, 1}, {3}},
      {{0, 3}, {3}},
      {{2, 3, 4}, {2, 1, 4}},
      {{5, 1, 1, 2, 1, 3, 1, 2}, {1, 2, 3, 1, 4, 1, 2, 1}},
  };
  return cases;
}

// ---- binary arithmetic, float32 over every broadcast case ------------------

struct BinaryCase {
  const char* op;
  std::function<double(double, double)> f;
  double lo, hi;  // input range
  double tol;
};

const std::vector<BinaryCase>& FloatBinaryCases() {
  static const std::vector<BinaryCase> cases = {
      {"Add", [](double a, double b) { return a + b; }, -4, 4, 1e-6},
      {"AddV2", [](double a, double b) { return a + b; }, -4, 4, 1e-6},
      {"Sub", [](double a, double b) { return a - b; }, -4, 4, 1e-6},
      {"Mul", [](double a, double b) { return a * b; }, -4, 4, 1e-6},
      {"RealDiv", [](double a, double b) { return a / b; }, 0.5, 4, 1e-6},
      {"Maximum", [](double a, double b) { return std::max(a, b); }, -4, 4, 0},
      {"Minimum", [](double a, double b) { return std::min(a, b); }, -4, 4, 0},
      {"Pow", [](double a, double b) { return std::pow(a, b); }, 0.5, 3, 1e-6},
      {"SquaredDifference", [](double a, double b) { return (a - b) * (a - b); }, -4, 4, 1e-6},
  };
  return cases;
}

TEST(Binary, Float32EveryOpEveryBroadcast) {
  for (const BinaryCase& c : FloatBinaryCases()) {
    for (const ShapePair& sp : BroadcastCases()) {
      SCOPED_TRACE(std::string(c.op) + " " + ::testing::PrintToString(sp.a) + " op " +
                   ::testing::PrintToString(sp.b));
      Vals a = Seq(Count(sp.a), c.lo, c.hi, 1), b = Seq(Count(sp.b), c.lo, c.hi, 2);
      Dims od;
      Vals want = RefBinary(sp.a, a, sp.b, b, &od, c.f);
      OpRun r(c.op);
      r.AttrType("T", GRT_FLOAT32).Input(T_<float>(sp.a, a)).Input(T_<float>(sp.b, b));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), od, want, c.tol);
    }
  }
}

TEST(Binary, Float64Arithmetic) {
  for (const BinaryCase& c : FloatBinaryCases()) {
    SCOPED_TRACE(c.op);
    Dims da = {2, 1, 3}, db = {4, 1};
    Vals a = Seq(6, c.lo, c.hi, 3), b = Seq(4, c.lo, c.hi, 4);
    Dims od;
    Vals want = RefBinary(da, a, db, b, &od, c.f);
    OpRun r(c.op);
    r.AttrType("T", GRT_FLOAT64).Input(T_<double>(da, a)).Input(T_<double>(db, b));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), od, want, 1e-12);
  }
}

// Integers wrap around as two's complement, like TensorFlow's kernels.
template <typename T>
double Wrap(double v) {
  return static_cast<double>(static_cast<T>(static_cast<int64_t>(v)));
}

template <typename T>
void CheckIntArithmetic(grt_dtype dt) {
  struct IntCase {
    const char* op;
    std::function<int64_t(int64_t, int64_t)> f;
  };
  const std::vector<IntCase> cases = {
      {"Add", [](int64_t a, int64_t b) { return a + b; }},
      {"Sub", [](int64_t a, int64_t b) { return a - b; }},
      {"Mul", [](int64_t a, int64_t b) { return a * b; }},
      {"Maximum", [](int64_t a, int64_t b) { return std::max(a, b); }},
      {"Minimum", [](int64_t a, int64_t b) { return std::min(a, b); }},
  };
  double lo = std::is_signed<T>::value ? -100 : 0;
  for (const IntCase& c : cases) {
    for (const ShapePair& sp : BroadcastCases()) {
      SCOPED_TRACE(std::string(c.op) + " " + grt_dtype_name(dt) + " " +
                   ::testing::PrintToString(sp.a) + " op " + ::testing::PrintToString(sp.b));
      Vals a = Seq(Count(sp.a), lo, 120, 5), b = Seq(Count(sp.b), lo, 120, 6);
      for (double& v : a) v = std::floor(v);
      for (double& v : b) v = std::floor(v);
      Dims od;
      Vals want = RefBinary(sp.a, a, sp.b, b, &od, [&](double x, double y) {
        return Wrap<T>(static_cast<double>(c.f(static_cast<int64_t>(x), static_cast<int64_t>(y))));
      });
      OpRun r(c.op);
      r.AttrType("T", dt).Input(MakeTensor(dt, sp.a, a)).Input(MakeTensor(dt, sp.b, b));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), od, want, 0);
    }
  }
}

TEST(Binary, Int32) { CheckIntArithmetic<int32_t>(GRT_INT32); }
TEST(Binary, Int64) { CheckIntArithmetic<int64_t>(GRT_INT64); }
TEST(Binary, Int8Wraps) { CheckIntArithmetic<int8_t>(GRT_INT8); }
TEST(Binary, Int16) { CheckIntArithmetic<int16_t>(GRT_INT16); }
TEST(Binary, Uint8Wraps) { CheckIntArithmetic<uint8_t>(GRT_UINT8); }

TEST(Binary, Int32OverflowWraps) {
  OpRun r("Add");
  r.AttrType("T", GRT_INT32)
      .Input(T_<int32_t>({2}, {2147483647.0, -2147483648.0}))
      .Input(T_<int32_t>({}, {1}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {2}, {-2147483648.0, -2147483647.0}, 0);
  OpRun m("Mul");
  m.AttrType("T", GRT_INT64)
      .Input(T_<int64_t>({}, {4611686018427387904.0}))  // 2^62
      .Input(T_<int64_t>({}, {4}));
  ASSERT_OK(m.Run());
  EXPECT_EQ(static_cast<const int64_t*>(grt_tensor_data(m.Output(0)))[0], 0);
}

TEST(Binary, SquaredDifferenceInt) {
  Vals a = {1, -5, 7, 100000}, b = {4, 3, 7, -100000};
  OpRun r("SquaredDifference");
  r.AttrType("T", GRT_INT64).Input(T_<int64_t>({4}, a)).Input(T_<int64_t>({4}, b));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {4}, {9, 64, 0, 4e10}, 0);
}

TEST(Binary, IntegerPow) {
  Vals base = {3, -2, 2, 0, 7, -1}, exp = {4, 3, 31, 0, 1, 5};
  OpRun r("Pow");
  r.AttrType("T", GRT_INT32).Input(T_<int32_t>({6}, base)).Input(T_<int32_t>({6}, exp));
  ASSERT_OK(r.Run());
  // 2^31 wraps to INT32_MIN.
  ExpectNear(r.Output(0), {6}, {81, -8, -2147483648.0, 1, 7, -1}, 0);

  OpRun neg("Pow");
  neg.AttrType("T", GRT_INT64).Input(T_<int64_t>({2}, {2, 3})).Input(T_<int64_t>({2}, {1, -1}));
  CheckStatus(neg.Run(), GRT_INVALID_ARGUMENT, "Integers to negative integer powers");
}

TEST(Binary, MaximumMinimumPropagateNaN) {
  double nan = std::nan("");
  for (const char* op : {"Maximum", "Minimum"}) {
    OpRun r(op);
    r.AttrType("T", GRT_FLOAT32)
        .Input(T_<float>({3}, {nan, 1, 2}))
        .Input(T_<float>({3}, {1, nan, -1}));
    ASSERT_OK(r.Run());
    EXPECT_TRUE(std::isnan(At(r.Output(0), 0))) << op;
    EXPECT_TRUE(std::isnan(At(r.Output(0), 1))) << op;
    EXPECT_EQ(At(r.Output(0), 2), std::string(op) == "Maximum" ? 2 : -1);
  }
}

TEST(Binary, DivisionEdges) {
  double inf = std::numeric_limits<double>::infinity();
  OpRun r("RealDiv");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({3}, {1, -1, 0})).Input(T_<float>({}, {0}));
  ASSERT_OK(r.Run());
  EXPECT_EQ(At(r.Output(0), 0), inf);
  EXPECT_EQ(At(r.Output(0), 1), -inf);
  EXPECT_TRUE(std::isnan(At(r.Output(0), 2)));
}

TEST(Binary, HalfTypesComputeInFloat) {
  for (grt_dtype dt : {GRT_FLOAT16, GRT_BFLOAT16}) {
    for (const char* op : {"Add", "Mul", "Maximum", "RealDiv"}) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(dt));
      Dims da = {2, 1, 3}, db = {4, 1};
      grt_tensor* ta = MakeTensor(dt, da, Seq(6, 0.5, 4, 7));
      grt_tensor* tb = MakeTensor(dt, db, Seq(4, 0.5, 4, 8));
      Vals a(6), b(4);  // the values as stored
      for (int i = 0; i < 6; i++) a[i] = At(ta, i);
      for (int i = 0; i < 4; i++) b[i] = At(tb, i);
      const BinaryCase* c = nullptr;
      for (const BinaryCase& bc : FloatBinaryCases())
        if (std::string(bc.op) == op) c = &bc;
      Dims od;
      Vals want = RefBinary(da, a, db, b, &od, c->f);
      OpRun r(op);
      r.AttrType("T", dt).Input(ta).Input(tb);
      ASSERT_OK(r.Run());
      EXPECT_EQ(grt_tensor_dtype(r.Output(0)), dt);
      ExpectNear(r.Output(0), od, want, dt == GRT_FLOAT16 ? 1e-3 : 8e-3);
    }
  }
}

TEST(Binary, IncompatibleShapesAreAnError) {
  FeedRun r("Add");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<float>({4}, {0}));
  CheckStatus(r.Run(), GRT_INVALID_ARGUMENT, "Incompatible shapes: [2,3] vs. [4]");
  FeedRun c("Less");
  c.AttrType("T", GRT_INT32).Input(T_<int32_t>({3, 2}, {0})).Input(T_<int32_t>({3}, {0}));
  CheckStatus(c.Run(), GRT_INVALID_ARGUMENT, "Incompatible shapes: [3,2] vs. [3]");
  FeedRun h("Mul");
  h.AttrType("T", GRT_FLOAT16)
      .Input(MakeTensor(GRT_FLOAT16, {2}, {1}))
      .Input(MakeTensor(GRT_FLOAT16, {5}, {1}));
  CheckStatus(h.Run(), GRT_INVALID_ARGUMENT, "Incompatible shapes: [2] vs. [5]");
}

TEST(Binary, DtypeWithoutKernelIsUnimplemented) {
  OpRun r("RealDiv");
  r.AttrType("T", GRT_INT32).Input(T_<int32_t>({2}, {4, 6})).Input(T_<int32_t>({2}, {2, 3}));
  CheckStatus(r.Run(), GRT_UNIMPLEMENTED, "RealDiv has no CPU kernel for T=int32");
}

TEST(Binary, LargeBroadcastSplitOverPool) {
  struct Big {
    Dims a, b;
  };
  for (const Big& c : std::vector<Big>{{{1000, 257}, {257}},
                                       {{513, 1}, {1, 300}},
                                       {{200000}, {}},
                                       {{300, 1, 257}, {300, 4, 1}},
                                       {{150000}, {150000}}}) {
    SCOPED_TRACE(::testing::PrintToString(c.a) + " + " + ::testing::PrintToString(c.b));
    Vals a = Seq(Count(c.a), -8, 8, 9), b = Seq(Count(c.b), -8, 8, 10);
    Dims od;
    Vals want = RefBinary(c.a, a, c.b, b, &od, [](double x, double y) { return x * y - x; });
    FeedRun mul("Mul");
    mul.AttrType("T", GRT_FLOAT32).Input(T_<float>(c.a, a)).Input(T_<float>(c.b, b));
    ASSERT_OK(mul.Run(TestPool()));
    FeedRun sub("Sub");
    sub.AttrType("T", GRT_FLOAT32).Input(grt_tensor_ref(mul.Output(0))).Input(T_<float>(c.a, a));
    // Sub(x*y, x) broadcasts x back against the product.
    ASSERT_OK(sub.Run(TestPool()));
    ExpectNear(sub.Output(0), od, want, 1e-6);
  }
}

// ---- comparisons -----------------------------------------------------------

TEST(Compare, EveryOpEveryBroadcastSeveralDtypes) {
  struct Cmp {
    const char* op;
    std::function<bool(double, double)> f;
  };
  const std::vector<Cmp> ops = {
      {"Less", [](double a, double b) { return a < b; }},
      {"Greater", [](double a, double b) { return a > b; }},
      {"GreaterEqual", [](double a, double b) { return a >= b; }},
      {"Equal", [](double a, double b) { return a == b; }},
  };
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT32, GRT_INT64, GRT_INT8, GRT_UINT8,
                       GRT_FLOAT16, GRT_BFLOAT16}) {
    for (const Cmp& c : ops) {
      for (const ShapePair& sp : BroadcastCases()) {
        SCOPED_TRACE(std::string(c.op) + " " + grt_dtype_name(dt) + " " +
                     ::testing::PrintToString(sp.a) + " vs " + ::testing::PrintToString(sp.b));
        // Few distinct values so Equal is often true.
        Vals a = Seq(Count(sp.a), 0, 1, 11), b = Seq(Count(sp.b), 0, 1, 12);
        for (double& v : a) v *= 8;
        for (double& v : b) v *= 8;
        Dims od;
        Vals want = RefBinary(sp.a, a, sp.b, b, &od,
                              [&](double x, double y) { return c.f(x, y) ? 1.0 : 0.0; });
        OpRun r(c.op);
        r.AttrType("T", dt).Input(MakeTensor(dt, sp.a, a)).Input(MakeTensor(dt, sp.b, b));
        ASSERT_OK(r.Run());
        EXPECT_EQ(grt_tensor_dtype(r.Output(0)), GRT_BOOL);
        ExpectNear(r.Output(0), od, want, 0);
      }
    }
  }
}

TEST(Compare, EqualOnBoolsAndNaN) {
  OpRun r("Equal");
  r.AttrType("T", GRT_BOOL).Input(T_<bool>({4}, {0, 0, 1, 1})).Input(T_<bool>({4}, {0, 1, 0, 1}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {4}, {1, 0, 0, 1}, 0);
  double nan = std::nan("");
  OpRun n("Equal");
  n.AttrType("T", GRT_FLOAT32).Input(T_<float>({2}, {nan, 1})).Input(T_<float>({2}, {nan, 1}));
  ASSERT_OK(n.Run());
  ExpectNear(n.Output(0), {2}, {0, 1}, 0);
}

TEST(Compare, EqualWithoutShapeErrorGivesScalarFalse) {
  FeedRun r("Equal");
  r.AttrType("T", GRT_INT32)
      .AttrBool("incompatible_shape_error", false)
      .Input(T_<int32_t>({2, 3}, {1}))
      .Input(T_<int32_t>({4}, {1}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {}, {0}, 0);
  // Compatible shapes still compare element-wise.
  FeedRun ok("Equal");
  ok.AttrType("T", GRT_INT32)
      .AttrBool("incompatible_shape_error", false)
      .Input(T_<int32_t>({2, 1}, {1, 2}))
      .Input(T_<int32_t>({2}, {2, 1}));
  ASSERT_OK(ok.Run());
  ExpectNear(ok.Output(0), {2, 2}, {0, 1, 1, 0}, 0);
  // With the default, the same shapes fail.
  FeedRun strict("Equal");
  strict.AttrType("T", GRT_INT32).Input(T_<int32_t>({2, 3}, {1})).Input(T_<int32_t>({4}, {1}));
  CheckStatus(strict.Run(), GRT_INVALID_ARGUMENT, "Incompatible shapes: [2,3] vs. [4]");
}

// ---- unary ------------------------------------------------------------------

const std::vector<UnaryCase>& FloatUnaryCases() {
  static const std::vector<UnaryCase> cases = {
      {"Neg", [](double x) { return -x; }, -8, 8},
      {"Abs", [](double x) { return std::fabs(x); }, -8, 8},
      {"Square", [](double x) { return x * x; }, -8, 8},
      {"Sqrt", [](double x) { return std::sqrt(x); }, 0, 16},
      {"Rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.125, 16},
      {"Exp", [](double x) { return std::exp(x); }, -10, 10},
      {"Log", [](double x) { return std::log(x); }, 0.125, 100},
      {"Tanh", [](double x) { return std::tanh(x); }, -6, 6},
      {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -12, 12},
      {"Relu", [](double x) { return x < 0 ? 0 : x; }, -8, 8},
  };
  return cases;
}

TEST(Unary, FloatOpsAgainstReference) { CheckUnaryCases(FloatUnaryCases(), 13, 2e-6); }

TEST(Unary, EdgeValues) {
  double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  struct Edge {
    const char* op;
    Vals in, out;
  };
  const std::vector<Edge> edges = {
      {"Sigmoid", {-100, 100, -1000, 1000, -inf, inf, 0}, {0, 1, 0, 1, 0, 1, 0.5}},
      {"Log", {0, -1, inf, 1}, {-inf, nan, inf, 0}},
      {"Exp", {100, -1000, inf, -inf}, {inf, 0, inf, 0}},  // float32 overflows at ~88.7
      {"Sqrt", {-1, 0, inf}, {nan, 0, inf}},
      {"Rsqrt", {0, inf}, {inf, 0}},
      {"Tanh", {-100, 100, -inf, inf}, {-1, 1, -1, 1}},
      {"Relu", {nan, -inf, inf, -0.0}, {nan, 0, inf, 0}},
      {"Abs", {-inf, nan}, {inf, nan}},
  };
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT16}) {
    for (const Edge& e : edges) {
      SCOPED_TRACE(std::string(e.op) + " " + grt_dtype_name(dt));
      OpRun r(e.op);
      Dims d = {static_cast<int64_t>(e.in.size())};
      r.AttrType("T", dt).Input(MakeTensor(dt, d, e.in));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), d, e.out, 1e-6);
    }
  }
}

TEST(Unary, IntegerOps) {
  struct IntUnary {
    const char* op;
    std::function<int64_t(int64_t)> f;
  };
  const std::vector<IntUnary> ops = {
      {"Neg", [](int64_t x) { return -x; }},
      {"Abs", [](int64_t x) { return x < 0 ? -x : x; }},
      {"Square", [](int64_t x) { return x * x; }},
      {"Relu", [](int64_t x) { return x < 0 ? 0 : x; }},
  };
  Vals in = {-100, -7, -1, 0, 1, 5, 99, 127};
  for (grt_dtype dt : {GRT_INT8, GRT_INT16, GRT_INT32, GRT_INT64}) {
    for (const IntUnary& c : ops) {
      SCOPED_TRACE(std::string(c.op) + " " + grt_dtype_name(dt));
      Vals want;
      for (double v : in) {
        int64_t r = c.f(static_cast<int64_t>(v));
        switch (dt) {
          case GRT_INT8:
            want.push_back(static_cast<int8_t>(r));
            break;
          case GRT_INT16:
            want.push_back(static_cast<int16_t>(r));
            break;
          case GRT_INT32:
            want.push_back(static_cast<int32_t>(r));
            break;
          default:
            want.push_back(static_cast<double>(r));
            break;
        }
      }
      OpRun r(c.op);
      r.AttrType("T", dt).Input(MakeTensor(dt, {8}, in));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), {8}, want, 0);
    }
  }
  // The most negative value negates to itself (two's complement).
  OpRun n("Neg");
  n.AttrType("T", GRT_INT32).Input(T_<int32_t>({1}, {-2147483648.0}));
  ASSERT_OK(n.Run());
  ExpectNear(n.Output(0), {1}, {-2147483648.0}, 0);
  OpRun sq("Square");
  sq.AttrType("T", GRT_UINT8).Input(T_<uint8_t>({3}, {3, 16, 255}));
  ASSERT_OK(sq.Run());
  ExpectNear(sq.Output(0), {3}, {9, 0, 1}, 0);
  OpRun relu("Relu");
  relu.AttrType("T", GRT_UINT8).Input(T_<uint8_t>({2}, {0, 200}));
  ASSERT_OK(relu.Run());
  ExpectNear(relu.Output(0), {2}, {0, 200}, 0);
}

TEST(Unary, LogicalNot) {
  OpRun r("LogicalNot");
  r.Input(T_<bool>({2, 2}, {1, 0, 0, 1}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {2, 2}, {0, 1, 1, 0}, 0);
}

TEST(Unary, LargeTensorsSplitOverPool) {
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT16}) {
    Dims d = {400001};
    grt_tensor* x = MakeTensor(dt, d, Seq(Count(d), -5, 5, 14));
    Vals want(Count(d));
    for (int64_t i = 0; i < Count(d); i++) want[i] = std::tanh(At(x, i));
    FeedRun r("Tanh");
    r.AttrType("T", dt).Input(x);
    ASSERT_OK(r.Run(TestPool()));
    ExpectNear(r.Output(0), d, want, dt == GRT_FLOAT32 ? 2e-6 : 1e-3);
  }
}

// ---- activation gradients -------------------------------------------------

TEST(Grad, TanhSigmoidReluGrad) {
  Dims d = {4, 5};
  Vals y = Seq(20, -1, 1, 15), dy = Seq(20, -3, 3, 16), f = Seq(20, -2, 2, 17);
  Vals tanh_want(20), sig_want(20), relu_want(20);
  for (int i = 0; i < 20; i++) {
    tanh_want[i] = dy[i] * (1 - y[i] * y[i]);
    sig_want[i] = dy[i] * y[i] * (1 - y[i]);
    relu_want[i] = f[i] > 0 ? dy[i] : 0;
  }
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_BFLOAT16}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    double tol = dt == GRT_BFLOAT16 ? 2e-2 : 1e-6;
    OpRun t("TanhGrad");
    t.AttrType("T", dt).Input(MakeTensor(dt, d, y)).Input(MakeTensor(dt, d, dy));
    ASSERT_OK(t.Run());
    ExpectNear(t.Output(0), d, tanh_want, tol);
    OpRun s("SigmoidGrad");
    s.AttrType("T", dt).Input(MakeTensor(dt, d, y)).Input(MakeTensor(dt, d, dy));
    ASSERT_OK(s.Run());
    ExpectNear(s.Output(0), d, sig_want, tol);
    OpRun r("ReluGrad");
    r.AttrType("T", dt).Input(MakeTensor(dt, d, dy)).Input(MakeTensor(dt, d, f));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), d, relu_want, tol);
  }
  OpRun ri("ReluGrad");
  ri.AttrType("T", GRT_INT32)
      .Input(T_<int32_t>({4}, {5, 6, 7, 8}))
      .Input(T_<int32_t>({4}, {-1, 0, 1, 2}));
  ASSERT_OK(ri.Run());
  ExpectNear(ri.Output(0), {4}, {0, 0, 7, 8}, 0);
}

TEST(Grad, SizeMismatchIsAnError) {
  FeedRun t("TanhGrad");
  t.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<float>({4}, {0}));
  CheckStatus(t.Run(), GRT_INVALID_ARGUMENT, "must have same number of elements, got 6 and 4");
  FeedRun r("ReluGrad");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<float>({6}, {0}));
  CheckStatus(r.Run(), GRT_INVALID_ARGUMENT, "g and a must be the same size");
}

// ---- Select -------------------------------------------------------------------

TEST(Select, ScalarConditionSharesTheChosenInput) {
  for (double c : {0.0, 1.0}) {
    grt_tensor* t = T_<float>({2, 2}, {1, 2, 3, 4});
    grt_tensor* e = T_<float>({2, 2}, {5, 6, 7, 8});
    void* chosen = grt_tensor_data(c ? t : e);
    OpRun r("Select");
    r.AttrType("T", GRT_FLOAT32).Input(T_<bool>({}, {c})).Input(t).Input(e);
    ASSERT_OK(r.Run());
    EXPECT_EQ(grt_tensor_data(r.Output(0)), chosen);
  }
}

TEST(Select, VectorConditionPicksRows) {
  Vals cond = {1, 0, 1};
  Vals t = Seq(3 * 2 * 4, -4, 4, 18), e = Seq(3 * 2 * 4, -4, 4, 19);
  Vals want(24);
  for (int i = 0; i < 24; i++) want[i] = cond[i / 8] ? t[i] : e[i];
  for (grt_dtype dt : {GRT_FLOAT32, GRT_INT64, GRT_INT8, GRT_FLOAT16}) {
    OpRun r("Select");
    r.AttrType("T", dt)
        .Input(T_<bool>({3}, cond))
        .Input(MakeTensor(dt, {3, 2, 4}, t))
        .Input(MakeTensor(dt, {3, 2, 4}, e));
    ASSERT_OK(r.Run());
    Vals expect = want;
    if (dt == GRT_INT64 || dt == GRT_INT8)
      for (double& v : expect) v = static_cast<double>(static_cast<int64_t>(v));
    ExpectNear(r.Output(0), {3, 2, 4}, expect, 0);
  }
}

TEST(Select, ElementwiseEveryElementSize) {
  Vals cond = {1, 0, 0, 1, 1, 0};
  for (grt_dtype dt : {GRT_FLOAT64, GRT_FLOAT32, GRT_INT16, GRT_UINT8, GRT_BOOL}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    Vals t = {1, 1, 1, 1, 1, 1}, e = {0, 0, 0, 0, 0, 0};
    if (dt != GRT_BOOL) t = {1, 2, 3, 4, 5, 6}, e = {10, 20, 30, 40, 50, 60};
    Vals want(6);
    for (int i = 0; i < 6; i++) want[i] = cond[i] ? t[i] : e[i];
    OpRun r("Select");
    r.AttrType("T", dt)
        .Input(T_<bool>({2, 3}, cond))
        .Input(MakeTensor(dt, {2, 3}, t))
        .Input(MakeTensor(dt, {2, 3}, e));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {2, 3}, want, 0);
  }
}

TEST(Select, LargeSplitOverPool) {
  int64_t n = 300000;
  Vals cond(n), t(n), e(n), want(n);
  for (int64_t i = 0; i < n; i++) {
    cond[i] = (i * 7 % 3) == 0;
    t[i] = static_cast<double>(i);
    e[i] = -static_cast<double>(i);
    want[i] = cond[i] ? t[i] : e[i];
  }
  FeedRun r("Select");
  r.AttrType("T", GRT_INT32)
      .Input(T_<bool>({n}, cond))
      .Input(T_<int32_t>({n}, t))
      .Input(T_<int32_t>({n}, e));
  ASSERT_OK(r.Run(TestPool()));
  ExpectNear(r.Output(0), {n}, want, 0);
}

TEST(Select, ShapeErrors) {
  FeedRun te("Select");
  te.AttrType("T", GRT_FLOAT32)
      .Input(T_<bool>({2}, {1, 0}))
      .Input(T_<float>({2}, {0}))
      .Input(T_<float>({3}, {0}));
  CheckStatus(te.Run(), GRT_INVALID_ARGUMENT, "'then' and 'else' must have the same size");
  FeedRun rows("Select");
  rows.AttrType("T", GRT_FLOAT32)
      .Input(T_<bool>({2}, {1, 0}))
      .Input(T_<float>({3, 2}, {0}))
      .Input(T_<float>({3, 2}, {0}));
  CheckStatus(rows.Run(), GRT_INVALID_ARGUMENT,
              "Number of batches of 'then' must match size of 'cond', but saw: 3 vs. 2");
  FeedRun same("Select");
  same.AttrType("T", GRT_FLOAT32)
      .Input(T_<bool>({2, 2}, {1}))
      .Input(T_<float>({2, 3}, {0}))
      .Input(T_<float>({2, 3}, {0}));
  CheckStatus(same.Run(), GRT_INVALID_ARGUMENT, "'cond' and 'then' must have the same size");
  FeedRun scalar("Select");
  scalar.AttrType("T", GRT_FLOAT32)
      .Input(T_<bool>({1}, {1}))
      .Input(T_<float>({}, {0}))
      .Input(T_<float>({}, {0}));
  CheckStatus(scalar.Run(), GRT_INVALID_ARGUMENT, "'then' must be at least a vector");
}

// ---- Cast -------------------------------------------------------------------

const grt_dtype kAllDtypes[] = {GRT_FLOAT16, GRT_BFLOAT16, GRT_FLOAT32, GRT_FLOAT64, GRT_INT8,
                                GRT_INT16,   GRT_INT32,    GRT_INT64,   GRT_UINT8,   GRT_BOOL};

bool IsFloat(grt_dtype t) {
  return t == GRT_FLOAT16 || t == GRT_BFLOAT16 || t == GRT_FLOAT32 || t == GRT_FLOAT64;
}

// The documented conversion of one stored element of `src` to `dst`, read
// back as a double.
double ExpectedCast(grt_dtype src, const grt_tensor* in, int64_t i, grt_dtype dst) {
  const void* d = grt_tensor_data(in);
  if (dst == GRT_BOOL) return At(in, i) != 0 ? 1 : 0;  // NaN != 0
  if (IsFloat(dst)) {
    grt_tensor* one = nullptr;
    int64_t dims[1] = {1};
    grt_status_free(grt_tensor_new(dst, 1, dims, &one));
    if (IsFloat(src))
      grt_dtype_store_double(dst, grt_tensor_data(one), 0,
                             src == GRT_FLOAT64 && dst != GRT_FLOAT64
                                 ? static_cast<double>(static_cast<float>(At(in, i)))
                                 : At(in, i));
    else  // integers convert straight to the target's precision
      switch (dst) {
        case GRT_FLOAT32:
          static_cast<float*>(grt_tensor_data(one))[0] =
              static_cast<float>(grt_dtype_load_int(src, d, i));
          break;
        case GRT_FLOAT64:
          static_cast<double*>(grt_tensor_data(one))[0] =
              static_cast<double>(grt_dtype_load_int(src, d, i));
          break;
        default:
          grt_dtype_store_double(dst, grt_tensor_data(one), 0,
                                 static_cast<float>(grt_dtype_load_int(src, d, i)));
      }
    double v = At(one, 0);
    grt_tensor_free(one);
    return v;
  }
  int64_t v;
  if (IsFloat(src)) {
    double f = At(in, i);
    bool wide = dst == GRT_INT64;
    double lim = wide ? 9223372036854775808.0 : 2147483648.0;
    if (std::isnan(f) || f < -lim || f >= lim)
      v = wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min();
    else
      v = static_cast<int64_t>(std::trunc(f));
  } else if (src == GRT_BOOL) {
    v = static_cast<const uint8_t*>(d)[i] != 0;
  } else {
    v = grt_dtype_load_int(src, d, i);
  }
  switch (dst) {
    case GRT_INT8:
      return static_cast<int8_t>(v);
    case GRT_INT16:
      return static_cast<int16_t>(v);
    case GRT_INT32:
      return static_cast<int32_t>(v);
    case GRT_UINT8:
      return static_cast<uint8_t>(v);
    default:
      return static_cast<double>(v);
  }
}

TEST(Cast, EveryDtypePair) {
  double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Vals floats = {0,   1,    -1,   2.5,   -2.7,  100,  127.9, 128, 255,
                 300, -129, 1e10, -1e10, 65504, 1e-8, nan,   inf, -inf};
  Vals ints = {0, 1, -1, 2, 100, 127, 128, 255, 256, 300, -129, -32769, 70000, 4294967297.0};
  for (grt_dtype src : kAllDtypes) {
    const Vals& vals = IsFloat(src) ? floats : ints;
    Dims d = {static_cast<int64_t>(vals.size())};
    grt_tensor* in = MakeTensor(src, d, {0});
    // Store raw so integer sources get wrapped bit patterns of the values.
    for (size_t i = 0; i < vals.size(); i++) {
      if (IsFloat(src))
        grt_dtype_store_double(src, grt_tensor_data(in), static_cast<int64_t>(i), vals[i]);
      else if (src == GRT_BOOL)
        static_cast<uint8_t*>(grt_tensor_data(in))[i] = vals[i] != 0;
      else
        grt_dtype_store_int(src, grt_tensor_data(in), static_cast<int64_t>(i),
                            static_cast<int64_t>(vals[i]));
    }
    for (grt_dtype dst : kAllDtypes) {
      SCOPED_TRACE(std::string(grt_dtype_name(src)) + " -> " + grt_dtype_name(dst));
      Vals want(vals.size());
      for (size_t i = 0; i < vals.size(); i++)
        want[i] = ExpectedCast(src, in, static_cast<int64_t>(i), dst);
      OpRun r("Cast");
      r.AttrType("SrcT", src).AttrType("DstT", dst).Input(grt_tensor_ref(in));
      ASSERT_OK(r.Run());
      EXPECT_EQ(grt_tensor_dtype(r.Output(0)), dst);
      ExpectNear(r.Output(0), d, want, 0);
      if (src == dst) {
        EXPECT_EQ(grt_tensor_data(r.Output(0)), grt_tensor_data(in));
      }
    }
    grt_tensor_free(in);
  }
}

TEST(Cast, FloatToIntTruncatesTowardZero) {
  OpRun r("Cast");
  r.AttrType("SrcT", GRT_FLOAT32)
      .AttrType("DstT", GRT_INT32)
      .Input(T_<float>({4}, {2.9, -2.9, 0.5, -0.5}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {4}, {2, -2, 0, 0}, 0);
}

TEST(Cast, TruncateClearsMantissaInsteadOfRounding) {
  float x = 1.0f + 3.0f / 512;  // between bfloat16 neighbours 1 and 1 + 1/128
  for (bool truncate : {false, true}) {
    OpRun r("Cast");
    r.AttrType("SrcT", GRT_FLOAT32)
        .AttrType("DstT", GRT_BFLOAT16)
        .AttrBool("Truncate", truncate)
        .Input(T_<float>({1}, {x}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {1}, {truncate ? 1.0 : 1.0 + 1.0 / 128}, 0);
  }
  float h = 1.0f + 3.0f / 2048;  // float16 neighbours 1 and 1 + 1/1024
  for (bool truncate : {false, true}) {
    OpRun r("Cast");
    r.AttrType("SrcT", GRT_FLOAT32)
        .AttrType("DstT", GRT_FLOAT16)
        .AttrBool("Truncate", truncate)
        .Input(T_<float>({1}, {h}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {1}, {truncate ? 1.0 + 1.0 / 1024 : 1.0 + 2.0 / 1024}, 0);
  }
}

TEST(Cast, LargeSplitOverPool) {
  int64_t n = 250000;
  Vals v(n), want(n);
  for (int64_t i = 0; i < n; i++) {
    v[i] = (i % 1000) - 500.5;
    want[i] = std::trunc(v[i]);
  }
  FeedRun r("Cast");
  r.AttrType("SrcT", GRT_FLOAT64).AttrType("DstT", GRT_INT64).Input(T_<double>({n}, v));
  ASSERT_OK(r.Run(TestPool()));
  ExpectNear(r.Output(0), {n}, want, 0);
}

// ---- AddN -------------------------------------------------------------------

TEST(AddN, SumsInputsOfEveryClass) {
  Dims d = {3, 700};
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT32, GRT_INT64, GRT_UINT8, GRT_FLOAT16}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    std::vector<grt_tensor*> in;
    for (int k = 0; k < 4; k++) {
      Vals v = Seq(Count(d), 0, 30, 20 + k);
      for (double& x : v) x = IsFloat(dt) ? x : std::floor(x);
      in.push_back(MakeTensor(dt, d, v));
    }
    Vals want(Count(d), 0);
    for (int64_t i = 0; i < Count(d); i++)
      for (grt_tensor* t : in) want[i] += At(t, i);
    if (dt == GRT_UINT8)
      for (double& w : want) w = static_cast<uint8_t>(static_cast<int64_t>(w));
    OpRun r("AddN");
    r.AttrType("T", dt).AttrInt("N", 4);
    for (grt_tensor* t : in) r.Input(t);
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), d, want, dt == GRT_FLOAT16 ? 1e-3 : 1e-7);
  }
}

TEST(AddN, OneInputIsShared) {
  grt_tensor* t = T_<float>({2}, {1, 2});
  void* data = grt_tensor_data(t);
  OpRun r("AddN");
  r.AttrType("T", GRT_FLOAT32).AttrInt("N", 1).Input(t);
  ASSERT_OK(r.Run());
  EXPECT_EQ(grt_tensor_data(r.Output(0)), data);
}

TEST(AddN, LargeSplitOverPool) {
  int64_t n = 200000;
  Vals a = Seq(n, -4, 4, 30), b = Seq(n, -4, 4, 31), c = Seq(n, -4, 4, 32);
  Vals want(n);
  for (int64_t i = 0; i < n; i++) want[i] = a[i] + b[i] + c[i];
  FeedRun r("AddN");
  r.AttrType("T", GRT_FLOAT32)
      .AttrInt("N", 3)
      .Input(T_<float>({n}, a))
      .Input(T_<float>({n}, b))
      .Input(T_<float>({n}, c));
  ASSERT_OK(r.Run(TestPool()));
  ExpectNear(r.Output(0), {n}, want, 1e-6);
}

TEST(AddN, MismatchedShapesAreAnError) {
  FeedRun r("AddN");
  r.AttrType("T", GRT_FLOAT32)
      .AttrInt("N", 2)
      .Input(T_<float>({2, 3}, {0}))
      .Input(T_<float>({3, 2}, {0}));
  CheckStatus(r.Run(), GRT_INVALID_ARGUMENT, "Inputs must have the same size and shape");
}

// ---- coverage of the CPU support rows ---------------------------------------

// Every dtype the support data promises runs (values 1 and 2 suit every
// op and dtype: no negative exponents, no zero divisors).
TEST(Coverage, EverySupportRowDtypeRuns) {
  auto two = [](grt_dtype t) { return MakeTensor(t, {2}, {1, 2}); };
  const char* binary[] = {"Add",     "AddV2",    "Sub",
                          "Mul",     "RealDiv",  "Maximum",
                          "Minimum", "Pow",      "SquaredDifference",
                          "Less",    "Greater",  "GreaterEqual",
                          "Equal",   "TanhGrad", "SigmoidGrad"};
  for (const char* op : binary)
    for (grt_dtype t : CpuDtypes(op, "T")) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(t));
      FeedRun r(op);
      r.AttrType("T", t).Input(two(t)).Input(two(t));
      ASSERT_OK(r.Run());
    }
  const char* unary[] = {"Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Sigmoid"};
  for (const char* op : unary)
    for (grt_dtype t : CpuDtypes(op, "T")) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(t));
      FeedRun r(op);
      r.AttrType("T", t).Input(two(t));
      ASSERT_OK(r.Run());
    }
  for (grt_dtype t : CpuDtypes("Select", "T")) {
    SCOPED_TRACE(std::string("Select ") + grt_dtype_name(t));
    FeedRun r("Select");
    r.AttrType("T", t).Input(T_<bool>({2}, {1, 0})).Input(two(t)).Input(two(t));
    ASSERT_OK(r.Run());
  }
  for (grt_dtype t : CpuDtypes("AddN", "T")) {
    SCOPED_TRACE(std::string("AddN ") + grt_dtype_name(t));
    FeedRun r("AddN");
    r.AttrType("T", t).AttrInt("N", 2).Input(two(t)).Input(two(t));
    ASSERT_OK(r.Run());
  }
  for (grt_dtype s : CpuDtypes("Cast", "SrcT"))
    for (grt_dtype d : CpuDtypes("Cast", "DstT")) {
      SCOPED_TRACE(std::string("Cast ") + grt_dtype_name(s) + " -> " + grt_dtype_name(d));
      FeedRun r("Cast");
      r.AttrType("SrcT", s).AttrType("DstT", d).Input(two(s));
      ASSERT_OK(r.Run());
    }
  FeedRun n("LogicalNot");
  n.Input(T_<bool>({2}, {1, 0}));
  ASSERT_OK(n.Run());
}
}  // namespace
}  // namespace grt_test
