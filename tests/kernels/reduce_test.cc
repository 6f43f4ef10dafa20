// Reduction CPU kernels (Sum, Mean, Prod, Max, Min, ArgMax) against
// references computed here by visiting every input element: each axis,
// several axes, negative and duplicate axes, keep_dims, empty axes, empty
// tensors, every dtype class, long reductions split over a thread pool, and
// the error cases.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"
#include "tests/kernels/kernel_test_util.h"

extern "C" {
#include "kernels/kernel_registry.h"
#include "ops/op_def.h"
}

namespace grt_test {
namespace {

using Dims = std::vector<int64_t>;
using Vals = std::vector<double>;

Vals Seq(int64_t n, double lo, double hi, uint32_t seed) {
  Vals v(n);
  uint32_t s = seed * 2654435761u + 7u;
  int64_t steps = static_cast<int64_t>((hi - lo) * 8);
  for (int64_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    v[i] = lo + static_cast<double>((s >> 8) % steps) / 8.0;
  }
  return v;
}

enum class Red { kSum, kMean, kProd, kMax, kMin };
const char* OpName(Red r) {
  switch (r) {
    case Red::kSum:
      return "Sum";
    case Red::kMean:
      return "Mean";
    case Red::kProd:
      return "Prod";
    case Red::kMax:
      return "Max";
    default:
      return "Min";
  }
}

// The reference: every input element visits the output element its kept
// coordinates name. Integer results wrap into `dt`.
Vals RefReduce(Red r, grt_dtype dt, const Dims& in, const Vals& x, const std::vector<int64_t>& axes,
               bool keep, Dims* out_dims) {
  std::set<int64_t> red;
  for (int64_t a : axes) red.insert(a < 0 ? a + static_cast<int64_t>(in.size()) : a);
  Dims kept;
  out_dims->clear();
  for (size_t i = 0; i < in.size(); i++) {
    if (!red.count(i)) {
      kept.push_back(in[i]);
      out_dims->push_back(in[i]);
    } else if (keep) {
      out_dims->push_back(1);
    }
  }
  int64_t n_out = Count(kept), count = 1;
  for (int64_t a : red) count *= in[a];
  bool is_float = dt == GRT_FLOAT32 || dt == GRT_FLOAT64 || dt == GRT_FLOAT16 || dt == GRT_BFLOAT16;
  double inf = std::numeric_limits<double>::infinity();
  double init = r == Red::kProd ? 1 : r == Red::kMax ? -inf : r == Red::kMin ? inf : 0;
  Vals acc(n_out, init);
  std::vector<int64_t> iacc(n_out, r == Red::kProd ? 1 : 0);
  std::vector<bool> seen(n_out, false);
  std::vector<int64_t> idx(in.size(), 0);
  for (int64_t flat = 0; flat < Count(in); flat++) {
    int64_t o = 0;
    for (size_t k = 0; k < in.size(); k++)
      if (!red.count(k)) o = o * in[k] + idx[k];
    double v = x[flat];
    switch (r) {
      case Red::kSum:
      case Red::kMean:
        acc[o] += v;
        iacc[o] += static_cast<int64_t>(v);
        break;
      case Red::kProd:
        acc[o] *= v;
        iacc[o] = static_cast<int64_t>(static_cast<uint64_t>(iacc[o]) *
                                       static_cast<uint64_t>(static_cast<int64_t>(v)));
        break;
      case Red::kMax:
        acc[o] = (std::isnan(v) || std::isnan(acc[o])) ? NAN : std::max(acc[o], v);
        break;
      case Red::kMin:
        acc[o] = (std::isnan(v) || std::isnan(acc[o])) ? NAN : std::min(acc[o], v);
        break;
    }
    seen[o] = true;
    for (size_t k = in.size(); k-- > 0;) {
      if (++idx[k] < in[k]) break;
      idx[k] = 0;
    }
  }
  Vals out(n_out);
  for (int64_t o = 0; o < n_out; o++) {
    if (is_float) {
      out[o] = r == Red::kMean ? acc[o] / static_cast<double>(count) : acc[o];
      continue;
    }
    int64_t v;
    if (r == Red::kMax || r == Red::kMin) {
      if (!seen[o]) {  // identity of an empty reduction: lowest / highest
        bool max = r == Red::kMax;
        switch (dt) {
          case GRT_INT8:
            v = max ? INT8_MIN : INT8_MAX;
            break;
          case GRT_UINT8:
            v = max ? 0 : UINT8_MAX;
            break;
          case GRT_INT32:
            v = max ? INT32_MIN : INT32_MAX;
            break;
          default:
            v = max ? INT64_MIN : INT64_MAX;
            break;
        }
      } else {
        v = static_cast<int64_t>(acc[o]);
      }
    } else {
      v = iacc[o];
    }
    switch (dt) {
      case GRT_INT8:
        v = static_cast<int8_t>(v);
        break;
      case GRT_INT16:
        v = static_cast<int16_t>(v);
        break;
      case GRT_INT32:
        v = static_cast<int32_t>(v);
        break;
      case GRT_UINT8:
        v = static_cast<uint8_t>(v);
        break;
      default:
        break;
    }
    if (r == Red::kMean) v = count ? v / count : 0;
    out[o] = static_cast<double>(v);
  }
  return out;
}

double Tol(grt_dtype dt) {
  switch (dt) {
    case GRT_FLOAT16:
      return 2e-3;
    case GRT_BFLOAT16:
      return 1.6e-2;
    case GRT_FLOAT32:
      return 1e-5;
    case GRT_FLOAT64:
      return 1e-12;
    default:
      return 0;
  }
}

struct AxesCase {
  Dims in;
  std::vector<int64_t> axes;
};

const std::vector<AxesCase>& AxesCases() {
  static const std::vector<AxesCase> cases = {
      {{2, 3}, {0}},
      {{2, 3}, {1}},
      {{2, 3}, {0, 1}},
      {{2, 3}, {-1}},
      {{2, 3}, {-2, 1}},
      {{2, 3}, {0, 0}},
      {{2, 3, 4, 5}, {1, 3}},
      {{2, 3, 4, 5}, {0, 2}},
      {{2, 3, 4, 5}, {0, 1, 2, 3}},
      {{2, 3, 4, 5}, {2}},
      {{2, 1, 4, 1}, {1, 2}},
      {{7}, {0}},
      {{3, 1, 2, 2, 1, 3, 2, 2}, {0, 2, 5, 7}},
      {{4, 5, 6}, {0, 2}},
      {{4, 5, 6}, {1}},
  };
  return cases;
}

void RunReduce(Red r, grt_dtype dt, const Dims& in, const Vals& x, const std::vector<int64_t>& axes,
               bool keep, grt_dtype axes_dt = GRT_INT32, bool scalar_axis = false,
               grt_threadpool* pool = nullptr) {
  Dims od;
  Vals want = RefReduce(r, dt, in, x, axes, keep, &od);
  Vals av(axes.begin(), axes.end());
  Dims ad = scalar_axis ? Dims{} : Dims{static_cast<int64_t>(axes.size())};
  if (pool) {
    FeedRun f(OpName(r));
    f.AttrType("T", dt).AttrType("Tidx", axes_dt).AttrBool("keep_dims", keep);
    f.Input(MakeTensor(dt, in, x)).Input(MakeTensor(axes_dt, ad, av));
    ASSERT_OK(f.Run(pool));
    ExpectNear(f.Output(0), od, want, Tol(dt));
    return;
  }
  OpRun o(OpName(r));
  o.AttrType("T", dt).AttrType("Tidx", axes_dt).AttrBool("keep_dims", keep);
  o.Input(MakeTensor(dt, in, x)).Input(MakeTensor(axes_dt, ad, av));
  ASSERT_OK(o.Run());
  EXPECT_EQ(grt_tensor_dtype(o.Output(0)), dt);
  ExpectNear(o.Output(0), od, want, Tol(dt));
}

TEST(Reduce, Float32EveryOpEveryAxesCase) {
  for (Red r : {Red::kSum, Red::kMean, Red::kProd, Red::kMax, Red::kMin}) {
    for (const AxesCase& c : AxesCases()) {
      for (bool keep : {false, true}) {
        SCOPED_TRACE(std::string(OpName(r)) + " " + ::testing::PrintToString(c.in) + " axes " +
                     ::testing::PrintToString(c.axes) + (keep ? " keep" : ""));
        // Values near 1 keep products in range.
        Vals x = Seq(Count(c.in), r == Red::kProd ? 0.5 : -4, r == Red::kProd ? 1.5 : 4, 3);
        RunReduce(r, GRT_FLOAT32, c.in, x, c.axes, keep);
      }
    }
  }
}

TEST(Reduce, EveryDtypeClass) {
  for (grt_dtype dt :
       {GRT_FLOAT64, GRT_INT32, GRT_INT64, GRT_INT8, GRT_UINT8, GRT_FLOAT16, GRT_BFLOAT16}) {
    bool is_int = dt != GRT_FLOAT64 && dt != GRT_FLOAT16 && dt != GRT_BFLOAT16;
    for (Red r : {Red::kSum, Red::kMean, Red::kProd, Red::kMax, Red::kMin}) {
      for (const AxesCase& c : AxesCases()) {
        SCOPED_TRACE(std::string(OpName(r)) + " " + grt_dtype_name(dt) + " " +
                     ::testing::PrintToString(c.in) + " axes " + ::testing::PrintToString(c.axes));
        Vals x = Seq(Count(c.in), dt == GRT_UINT8 ? 0 : -3, 3, 4);
        if (r == Red::kProd && !is_int) x = Seq(Count(c.in), 0.75, 1.25, 4);
        if (is_int)
          for (double& v : x) v = std::floor(v * 9);  // int8 sums wrap
        RunReduce(r, dt, c.in, x, c.axes, false);
      }
    }
  }
}

TEST(Reduce, AxisForms) {
  Dims in = {3, 4};
  Vals x = Seq(12, -4, 4, 5);
  RunReduce(Red::kSum, GRT_FLOAT32, in, x, {1}, false, GRT_INT64);
  RunReduce(Red::kSum, GRT_FLOAT32, in, x, {-1}, false, GRT_INT32, /*scalar_axis=*/true);
  RunReduce(Red::kMax, GRT_FLOAT32, in, x, {0}, true, GRT_INT64, true);
}

TEST(Reduce, NoAxesIsTheInputItself) {
  grt_tensor* t = T_<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  void* data = grt_tensor_data(t);
  OpRun r("Sum");
  r.AttrType("T", GRT_FLOAT32).Input(t).Input(T_<int32_t>({0}, {}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {2, 3}, {1, 2, 3, 4, 5, 6}, 0);
  EXPECT_EQ(grt_tensor_data(r.Output(0)), data);
  // A scalar input with no axes, too.
  OpRun s("Prod");
  s.AttrType("T", GRT_INT32).Input(T_<int32_t>({}, {7})).Input(T_<int32_t>({0}, {}));
  ASSERT_OK(s.Run());
  ExpectNear(s.Output(0), {}, {7}, 0);
}

TEST(Reduce, EmptyReductionsGiveIdentities) {
  double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  struct Empty {
    const char* op;
    double want;
  };
  for (const Empty& e :
       std::vector<Empty>{{"Sum", 0}, {"Prod", 1}, {"Max", -inf}, {"Min", inf}, {"Mean", nan}}) {
    SCOPED_TRACE(e.op);
    OpRun r(e.op);
    r.AttrType("T", GRT_FLOAT32).Input(T_<float>({0, 3}, {})).Input(T_<int32_t>({1}, {0}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {3}, {e.want, e.want, e.want}, 0);
  }
  OpRun i("Max");
  i.AttrType("T", GRT_INT32).Input(T_<int32_t>({2, 0}, {})).Input(T_<int32_t>({1}, {1}));
  ASSERT_OK(i.Run());
  ExpectNear(i.Output(0), {2}, {-2147483648.0, -2147483648.0}, 0);
  OpRun m("Mean");
  m.AttrType("T", GRT_INT64).Input(T_<int64_t>({0}, {})).Input(T_<int32_t>({1}, {0}));
  ASSERT_OK(m.Run());
  ExpectNear(m.Output(0), {}, {0}, 0);
  // Reducing nothing out of an empty tensor keeps it empty.
  OpRun k("Sum");
  k.AttrType("T", GRT_FLOAT32).Input(T_<float>({0, 3}, {})).Input(T_<int32_t>({1}, {1}));
  ASSERT_OK(k.Run());
  ExpectNear(k.Output(0), {0}, {}, 0);
}

TEST(Reduce, MaxMinPropagateNaN) {
  double nan = std::nan("");
  for (const char* op : {"Max", "Min"}) {
    OpRun r(op);
    r.AttrType("T", GRT_FLOAT32)
        .Input(T_<float>({2, 3}, {1, nan, 3, 4, 5, 6}))
        .Input(T_<int32_t>({1}, {1}));
    ASSERT_OK(r.Run());
    EXPECT_TRUE(std::isnan(At(r.Output(0), 0))) << op;
    EXPECT_EQ(At(r.Output(0), 1), std::string(op) == "Max" ? 6 : 4);
  }
}

TEST(Reduce, IntegerMeanTruncatesAndSumWraps) {
  OpRun m("Mean");
  m.AttrType("T", GRT_INT32)
      .Input(T_<int32_t>({2, 2}, {1, 2, -1, -2}))
      .Input(T_<int32_t>({1}, {1}));
  ASSERT_OK(m.Run());
  ExpectNear(m.Output(0), {2}, {1, -1}, 0);  // 3/2 and -3/2 truncate toward zero
  OpRun s("Sum");
  s.AttrType("T", GRT_INT8).Input(T_<int8_t>({3}, {100, 100, 100})).Input(T_<int32_t>({}, {0}));
  ASSERT_OK(s.Run());
  ExpectNear(s.Output(0), {}, {static_cast<int8_t>(300)}, 0);
}

TEST(Reduce, LongReductionsSplitOverPool) {
  struct Big {
    Dims in;
    std::vector<int64_t> axes;
  };
  for (const Big& b : std::vector<Big>{{{300001}, {0}},          // blocked full reduction
                                       {{100000, 3}, {0}},       // blocked columns
                                       {{3, 100000}, {1}},       // long rows
                                       {{64, 5000, 3}, {1}},     // many column slices
                                       {{2, 3000, 70}, {0, 2}},  // two passes
                                       {{500, 4100}, {0}}}) {    // column chunks
    for (Red r : {Red::kSum, Red::kMax, Red::kMean}) {
      SCOPED_TRACE(std::string(OpName(r)) + " " + ::testing::PrintToString(b.in) + " axes " +
                   ::testing::PrintToString(b.axes));
      Vals x = Seq(Count(b.in), -4, 4, 6);
      RunReduce(r, GRT_FLOAT32, b.in, x, b.axes, false, GRT_INT32, false, TestPool());
      RunReduce(r, GRT_INT64, b.in, x, b.axes, false, GRT_INT32, false, TestPool());
    }
  }
}

TEST(Reduce, ResultDoesNotDependOnThreads) {
  Vals x = Seq(1 << 20, -1, 1, 8);
  for (double& v : x) v = v / 3;  // not exactly representable: order matters
  float with_pool, without;
  {
    FeedRun f("Sum");
    f.AttrType("T", GRT_FLOAT32).Input(T_<float>({1 << 20}, x)).Input(T_<int32_t>({}, {0}));
    ASSERT_OK(f.Run(TestPool()));
    with_pool = static_cast<float>(At(f.Output(0), 0));
  }
  {
    FeedRun f("Sum");
    f.AttrType("T", GRT_FLOAT32).Input(T_<float>({1 << 20}, x)).Input(T_<int32_t>({}, {0}));
    ASSERT_OK(f.Run(nullptr));
    without = static_cast<float>(At(f.Output(0), 0));
  }
  EXPECT_EQ(with_pool, without);
}

TEST(Reduce, InvalidAxisIsAnError) {
  FeedRun r("Sum");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<int32_t>({1}, {2}));
  CheckStatus(r.Run(), GRT_INVALID_ARGUMENT,
              "Invalid reduction dimension 2 for input with 2 dimension(s)");
  FeedRun n("Max");
  n.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<int32_t>({1}, {-3}));
  CheckStatus(n.Run(), GRT_INVALID_ARGUMENT, "Invalid reduction dimension -3");
  FeedRun m("Mean");
  m.AttrType("T", GRT_FLOAT32).Input(T_<float>({2}, {0})).Input(T_<int32_t>({1, 1}, {0}));
  CheckStatus(m.Run(), GRT_INVALID_ARGUMENT, "reduction_indices must be a scalar or vector");
}

// ---- ArgMax -----------------------------------------------------------------

Vals RefArgMax(const Dims& in, const Vals& x, int64_t axis, Dims* out_dims) {
  int64_t A = 1, B = in[axis], C = 1;
  out_dims->clear();
  for (int64_t i = 0; i < static_cast<int64_t>(in.size()); i++) {
    if (i < axis) A *= in[i];
    if (i > axis) C *= in[i];
    if (i != axis) out_dims->push_back(in[i]);
  }
  Vals out(A * C);
  for (int64_t a = 0; a < A; a++)
    for (int64_t c = 0; c < C; c++) {
      int64_t best = 0;
      for (int64_t b = 1; b < B; b++)
        if (x[(a * B + b) * C + c] > x[(a * B + best) * C + c]) best = b;
      out[a * C + c] = static_cast<double>(best);
    }
  return out;
}

TEST(ArgMax, EveryAxisDtypeAndOutputType) {
  struct Case {
    Dims in;
    int64_t dim;
  };
  for (const Case& c : std::vector<Case>{{{5}, 0},
                                         {{3, 4}, 0},
                                         {{3, 4}, 1},
                                         {{3, 4}, -1},
                                         {{2, 3, 4}, 1},
                                         {{2, 300, 5}, 2},
                                         {{2, 3, 300}, 1}}) {
    for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT32, GRT_INT64, GRT_INT8, GRT_UINT8,
                         GRT_INT16, GRT_FLOAT16, GRT_BFLOAT16}) {
      for (grt_dtype ot : {GRT_INT64, GRT_INT32, GRT_INT16}) {
        SCOPED_TRACE(::testing::PrintToString(c.in) + " dim " + std::to_string(c.dim) + " " +
                     grt_dtype_name(dt) + " -> " + grt_dtype_name(ot));
        // Few distinct values: ties must go to the first index.
        Vals x = Seq(Count(c.in), 0, 1, 9);
        for (double& v : x) v *= 8;
        int64_t axis = c.dim < 0 ? c.dim + static_cast<int64_t>(c.in.size()) : c.dim;
        Dims od;
        Vals want = RefArgMax(c.in, x, axis, &od);
        OpRun r("ArgMax");
        r.AttrType("T", dt).AttrType("Tidx", GRT_INT32).AttrType("output_type", ot);
        r.Input(MakeTensor(dt, c.in, x)).Input(T_<int32_t>({}, {static_cast<double>(c.dim)}));
        ASSERT_OK(r.Run());
        EXPECT_EQ(grt_tensor_dtype(r.Output(0)), ot);
        ExpectNear(r.Output(0), od, want, 0);
      }
    }
  }
}

TEST(ArgMax, BoolsDimensionDtypesNaNAndDefaults) {
  OpRun b("ArgMax");
  b.AttrType("T", GRT_BOOL).AttrType("Tidx", GRT_INT64);
  b.Input(T_<bool>({2, 3}, {0, 1, 1, 0, 0, 0})).Input(T_<int64_t>({}, {1}));
  ASSERT_OK(b.Run());
  EXPECT_EQ(grt_tensor_dtype(b.Output(0)), GRT_INT64);  // the default output_type
  ExpectNear(b.Output(0), {2}, {1, 0}, 0);

  OpRun s("ArgMax");
  s.AttrType("T", GRT_FLOAT32).AttrType("Tidx", GRT_INT16);
  s.Input(T_<float>({4}, {1, 7, 7, 2})).Input(MakeTensor(GRT_INT16, {}, {0}));
  ASSERT_OK(s.Run());
  ExpectNear(s.Output(0), {}, {1}, 0);

  double nan = std::nan("");
  OpRun n("ArgMax");
  n.AttrType("T", GRT_FLOAT32);
  n.Input(T_<float>({2, 3}, {nan, 1, 3, nan, nan, nan})).Input(T_<int32_t>({}, {1}));
  ASSERT_OK(n.Run());
  ExpectNear(n.Output(0), {2}, {2, 0}, 0);
}

TEST(ArgMax, LargeSplitOverPool) {
  Dims in = {4000, 97};
  Vals x = Seq(Count(in), -50, 50, 10);
  Dims od;
  Vals want = RefArgMax(in, x, 1, &od);
  FeedRun r("ArgMax");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>(in, x)).Input(T_<int32_t>({}, {1}));
  ASSERT_OK(r.Run(TestPool()));
  ExpectNear(r.Output(0), od, want, 0);
}

TEST(ArgMax, Errors) {
  FeedRun e("ArgMax");
  e.AttrType("T", GRT_FLOAT32).Input(T_<float>({0, 3}, {})).Input(T_<int32_t>({}, {0}));
  CheckStatus(e.Run(), GRT_INVALID_ARGUMENT, "Reduction axis 0 is empty in shape [0,3]");
  FeedRun o("ArgMax");
  o.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<int32_t>({}, {2}));
  CheckStatus(o.Run(), GRT_INVALID_ARGUMENT, "Expected dimension in the range [-2, 2), but got 2");
  FeedRun v("ArgMax");
  v.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<int32_t>({1}, {0}));
  CheckStatus(v.Run(), GRT_INVALID_ARGUMENT, "dim must be a scalar");
}

// ---- coverage of the CPU support rows ---------------------------------------

TEST(Coverage, EverySupportRowDtypeRuns) {
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"})
    for (grt_dtype t : CpuDtypes(op, "T"))
      for (grt_dtype ti : CpuDtypes(op, "Tidx")) {
        SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(t) + " " + grt_dtype_name(ti));
        FeedRun r(op);
        r.AttrType("T", t).AttrType("Tidx", ti);
        r.Input(MakeTensor(t, {2, 2}, {1, 2, 3, 4})).Input(MakeTensor(ti, {1}, {1}));
        ASSERT_OK(r.Run());
      }
  for (grt_dtype t : CpuDtypes("ArgMax", "T"))
    for (grt_dtype ti : CpuDtypes("ArgMax", "Tidx"))
      for (grt_dtype ot : CpuDtypes("ArgMax", "output_type")) {
        SCOPED_TRACE(std::string("ArgMax ") + grt_dtype_name(t) + " " + grt_dtype_name(ti) + " " +
                     grt_dtype_name(ot));
        FeedRun r("ArgMax");
        r.AttrType("T", t).AttrType("Tidx", ti).AttrType("output_type", ot);
        r.Input(MakeTensor(t, {2, 2}, {1, 0, 0, 1})).Input(MakeTensor(ti, {}, {1}));
        ASSERT_OK(r.Run());
        ExpectNear(r.Output(0), {2}, {0, 1}, 0);
      }
}
}  // namespace
}  // namespace grt_test
