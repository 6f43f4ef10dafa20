// Neural-network CPU kernels (BiasAdd, BiasAddGrad, Softmax and the two
// softmax cross-entropies; Relu/ReluGrad are covered with the element-wise
// tests) against references computed here in double precision, including
// rows of large logits, half types, work split over a thread pool, and the
// error cases.
#include <cmath>
#include <cstdint>
#include <limits>
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
  uint32_t s = seed * 2654435761u + 99u;
  int64_t steps = static_cast<int64_t>((hi - lo) * 8);
  for (int64_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    v[i] = lo + static_cast<double>((s >> 8) % steps) / 8.0;
  }
  return v;
}

double Tol(grt_dtype dt) {
  return dt == GRT_FLOAT64 ? 1e-12 : dt == GRT_FLOAT32 ? 2e-6 : dt == GRT_FLOAT16 ? 2e-3 : 1.6e-2;
}

// ---- BiasAdd / BiasAddGrad ------------------------------------------------

// Channel index of value element `flat` for the format.
int64_t Channel(const Dims& d, int64_t flat, bool nchw) {
  if (!nchw) return flat % d.back();
  int64_t inner = 1;
  for (size_t i = 2; i < d.size(); i++) inner *= d[i];
  return (flat / inner) % d[1];
}

TEST(BiasAdd, NhwcAndNchwEveryClass) {
  struct Case {
    Dims value;
    bool nchw;
  };
  for (const Case& c : std::vector<Case>{{{2, 3}, false},
                                         {{2, 3}, true},
                                         {{2, 4, 5, 3}, false},
                                         {{2, 3, 4, 5}, true},
                                         {{2, 3, 7}, true},
                                         {{1, 1, 1, 6}, false}}) {
    for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_INT32, GRT_UINT8, GRT_FLOAT16}) {
      SCOPED_TRACE(::testing::PrintToString(c.value) + (c.nchw ? " NCHW " : " NHWC ") +
                   grt_dtype_name(dt));
      int64_t ch = c.nchw ? c.value[1] : c.value.back();
      Vals v = Seq(Count(c.value), 0, 8, 1), b = Seq(ch, 0, 8, 2);
      if (dt == GRT_INT32 || dt == GRT_UINT8) {
        for (double& x : v) x = std::floor(x);
        for (double& x : b) x = std::floor(x);
      }
      Vals want(Count(c.value));
      for (int64_t i = 0; i < Count(c.value); i++) want[i] = v[i] + b[Channel(c.value, i, c.nchw)];
      OpRun r("BiasAdd");
      r.AttrType("T", dt).AttrString("data_format", c.nchw ? "NCHW" : "NHWC");
      r.Input(MakeTensor(dt, c.value, v)).Input(MakeTensor(dt, {ch}, b));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), c.value, want, Tol(dt));

      Vals grad(ch, 0);
      for (int64_t i = 0; i < Count(c.value); i++) grad[Channel(c.value, i, c.nchw)] += v[i];
      if (dt == GRT_UINT8)  // integer sums wrap
        for (double& x : grad) x = static_cast<uint8_t>(static_cast<int64_t>(x));
      OpRun g("BiasAddGrad");
      g.AttrType("T", dt).AttrString("data_format", c.nchw ? "NCHW" : "NHWC");
      g.Input(MakeTensor(dt, c.value, v));
      ASSERT_OK(g.Run());
      ExpectNear(g.Output(0), {ch}, grad, Tol(dt));
    }
  }
}

TEST(BiasAdd, LargeSplitOverPool) {
  Dims d = {64, 32, 32, 16};
  Vals v = Seq(Count(d), -4, 4, 3), b = Seq(16, -4, 4, 4);
  Vals want(Count(d)), grad(16, 0);
  for (int64_t i = 0; i < Count(d); i++) {
    want[i] = v[i] + b[i % 16];
    grad[i % 16] += v[i];
  }
  FeedRun r("BiasAdd");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>(d, v)).Input(T_<float>({16}, b));
  ASSERT_OK(r.Run(TestPool()));
  ExpectNear(r.Output(0), d, want, 1e-6);
  FeedRun g("BiasAddGrad");
  g.AttrType("T", GRT_FLOAT32).Input(T_<float>(d, v));
  ASSERT_OK(g.Run(TestPool()));
  ExpectNear(g.Output(0), {16}, grad, 1e-6);
}

TEST(BiasAdd, Errors) {
  FeedRun one("BiasAdd");
  one.AttrType("T", GRT_FLOAT32).Input(T_<float>({3}, {0})).Input(T_<float>({3}, {0}));
  CheckStatus(one.Run(), GRT_INVALID_ARGUMENT, "Input tensor must be at least 2D: [3]");
  FeedRun len("BiasAdd");
  len.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<float>({4}, {0}));
  CheckStatus(len.Run(), GRT_INVALID_ARGUMENT,
              "Must provide as many biases as the last dimension of the input tensor: [4] vs. "
              "[2,3]");
  FeedRun mat("BiasAdd");
  mat.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<float>({1, 3}, {0}));
  CheckStatus(mat.Run(), GRT_INVALID_ARGUMENT, "Biases must be 1D: [1,3]");
  FeedRun grad("BiasAddGrad");
  grad.AttrType("T", GRT_FLOAT32).Input(T_<float>({5}, {0}));
  CheckStatus(grad.Run(), GRT_INVALID_ARGUMENT, "Input tensor must be at least 2D");
}

// ---- Softmax ----------------------------------------------------------------

Vals RefSoftmax(const Vals& x, int64_t n) {
  Vals y(x.size());
  for (size_t r = 0; r < x.size() / n; r++) {
    double m = -std::numeric_limits<double>::infinity(), s = 0;
    for (int64_t j = 0; j < n; j++) m = std::max(m, x[r * n + j]);
    for (int64_t j = 0; j < n; j++) s += std::exp(x[r * n + j] - m);
    for (int64_t j = 0; j < n; j++) y[r * n + j] = std::exp(x[r * n + j] - m) / s;
  }
  return y;
}

TEST(Softmax, RowsOfEveryRankAndDtype) {
  for (const Dims& d : std::vector<Dims>{{5}, {3, 4}, {2, 3, 7}, {4, 1}, {2, 2, 2, 9}}) {
    for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16}) {
      SCOPED_TRACE(::testing::PrintToString(d) + " " + grt_dtype_name(dt));
      Vals x = Seq(Count(d), -6, 6, 5);
      OpRun r("Softmax");
      r.AttrType("T", dt).Input(MakeTensor(dt, d, x));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), d, RefSoftmax(x, d.back()), Tol(dt));
    }
  }
}

TEST(Softmax, LargeLogitsDoNotOverflow) {
  // exp(1000) overflows every float type; subtracting the row max keeps the
  // result exact.
  Vals x = {1000, 1001, 1002, -1000, -1001, -1000, 88, 89, 90};
  OpRun r("Softmax");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({3, 3}, x));
  ASSERT_OK(r.Run());
  Vals want = RefSoftmax(x, 3);
  ExpectNear(r.Output(0), {3, 3}, want, 2e-6);
  for (int i = 0; i < 9; i++) EXPECT_FALSE(std::isnan(At(r.Output(0), i)));
}

TEST(Softmax, LargeSplitOverPool) {
  Dims d = {3000, 129};
  Vals x = Seq(Count(d), -20, 20, 6);
  FeedRun r("Softmax");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>(d, x));
  ASSERT_OK(r.Run(TestPool()));
  ExpectNear(r.Output(0), d, RefSoftmax(x, 129), 2e-6);
}

// Rows shorter than 16 (a classifier's classes) run in blocks of 64 rows
// with their exps in one loop: row counts off the block, and split over a
// pool so shards start mid-block.
TEST(Softmax, ShortRowsInBlocks) {
  for (int64_t n : {1, 2, 10, 15, 16}) {
    for (int64_t rows : {1, 63, 64, 65, 1001}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + " of " + std::to_string(n));
      Dims d = {rows, n};
      Vals x = Seq(Count(d), -30, 30, 7);
      FeedRun r("Softmax");
      r.AttrType("T", GRT_FLOAT32).Input(T_<float>(d, x));
      ASSERT_OK(r.Run(TestPool()));
      ExpectNear(r.Output(0), d, RefSoftmax(x, n), 2e-6);
    }
  }
}

TEST(Softmax, ScalarIsAnError) {
  FeedRun r("Softmax");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({}, {1}));
  CheckStatus(r.Run(), GRT_INVALID_ARGUMENT, "logits must have >= 1 dimension, got []");
}

// ---- cross-entropy ------------------------------------------------------------

// loss_r = sum_j l_rj (lse_r - x_rj); backprop = softmax - l.
void RefXent(const Vals& x, const Vals& l, int64_t rows, int64_t n, Vals* loss, Vals* back) {
  *back = RefSoftmax(x, n);
  loss->assign(rows, 0);
  for (int64_t r = 0; r < rows; r++) {
    double m = -std::numeric_limits<double>::infinity(), s = 0;
    for (int64_t j = 0; j < n; j++) m = std::max(m, x[r * n + j]);
    for (int64_t j = 0; j < n; j++) s += std::exp(x[r * n + j] - m);
    double lse = m + std::log(s);
    for (int64_t j = 0; j < n; j++) {
      (*loss)[r] += l[r * n + j] * (lse - x[r * n + j]);
      (*back)[r * n + j] -= l[r * n + j];
    }
  }
}

TEST(SparseXent, LossAndGradientEveryDtype) {
  int64_t rows = 6, n = 5;
  Vals x = Seq(rows * n, -5, 5, 7);
  x[0] = 500;  // a large logit
  Vals labels = {0, 4, 2, 2, 1, 3};
  Vals dense(rows * n, 0);
  for (int64_t r = 0; r < rows; r++) dense[r * n + static_cast<int64_t>(labels[r])] = 1;
  Vals loss, back;
  RefXent(x, dense, rows, n, &loss, &back);
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16}) {
    for (grt_dtype lt : {GRT_INT32, GRT_INT64}) {
      SCOPED_TRACE(std::string(grt_dtype_name(dt)) + " labels " + grt_dtype_name(lt));
      if ((dt == GRT_FLOAT16 || dt == GRT_BFLOAT16) && x[0] > 256) continue;
      OpRun r("SparseSoftmaxCrossEntropyWithLogits");
      r.AttrType("T", dt).AttrType("Tlabels", lt);
      r.Input(MakeTensor(dt, {rows, n}, x)).Input(MakeTensor(lt, {rows}, labels));
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), {rows}, loss, Tol(dt) * 5);
      ExpectNear(r.Output(1), {rows, n}, back, Tol(dt));
    }
  }
  // Half types with logits they can hold.
  Vals hx = Seq(rows * n, -5, 5, 8);
  RefXent(hx, dense, rows, n, &loss, &back);
  for (grt_dtype dt : {GRT_FLOAT16, GRT_BFLOAT16}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    OpRun r("SparseSoftmaxCrossEntropyWithLogits");
    r.AttrType("T", dt).AttrType("Tlabels", GRT_INT32);
    r.Input(MakeTensor(dt, {rows, n}, hx)).Input(T_<int32_t>({rows}, labels));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {rows}, loss, Tol(dt) * 5);
    ExpectNear(r.Output(1), {rows, n}, back, Tol(dt));
  }
}

TEST(SparseXent, OutOfRangeLabelNamesIndexAndValue) {
  for (double bad : {5.0, -1.0}) {
    FeedRun r("SparseSoftmaxCrossEntropyWithLogits");
    r.AttrType("T", GRT_FLOAT32).AttrType("Tlabels", GRT_INT64);
    r.Input(T_<float>({3, 3}, {0})).Input(T_<int64_t>({3}, {0, bad, 1}));
    grt_status* s = r.Run();
    std::string want = "Received a label value of " + std::to_string(static_cast<int>(bad)) +
                       " which is outside the valid range of [0, 3)";
    ASSERT_NE(s, nullptr);
    std::string msg = grt_status_message(s);
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
    EXPECT_NE(msg.find("labels[1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Label values: 0 " + std::to_string(static_cast<int>(bad)) + " 1"),
              std::string::npos)
        << msg;
    EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
    grt_status_free(s);
  }
}

TEST(SparseXent, ShapeErrors) {
  FeedRun rank("SparseSoftmaxCrossEntropyWithLogits");
  rank.AttrType("T", GRT_FLOAT32).AttrType("Tlabels", GRT_INT32);
  rank.Input(T_<float>({3}, {0})).Input(T_<int32_t>({3}, {0}));
  CheckStatus(rank.Run(), GRT_INVALID_ARGUMENT, "logits must be 2-D, but got shape [3]");
  FeedRun batch("SparseSoftmaxCrossEntropyWithLogits");
  batch.AttrType("T", GRT_FLOAT32).AttrType("Tlabels", GRT_INT32);
  batch.Input(T_<float>({3, 5}, {0})).Input(T_<int32_t>({7}, {0}));
  CheckStatus(batch.Run(), GRT_INVALID_ARGUMENT,
              "logits and labels must have the same first dimension, got logits shape [3,5] and "
              "labels shape [7]");
  FeedRun none("SparseSoftmaxCrossEntropyWithLogits");
  none.AttrType("T", GRT_FLOAT32).AttrType("Tlabels", GRT_INT32);
  none.Input(T_<float>({2, 0}, {})).Input(T_<int32_t>({2}, {0}));
  CheckStatus(none.Run(), GRT_INVALID_ARGUMENT, "Must have at least one class");
}

TEST(Xent, DenseLabelsAndBroadcasting) {
  int64_t rows = 4, n = 6;
  Vals x = Seq(rows * n, -4, 4, 9);
  x[5] = -300;
  x[6] = 300;
  Vals l = Seq(rows * n, 0, 1, 10);  // any weights, not only distributions
  Vals loss, back;
  RefXent(x, l, rows, n, &loss, &back);
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    OpRun r("SoftmaxCrossEntropyWithLogits");
    r.AttrType("T", dt).Input(MakeTensor(dt, {rows, n}, x)).Input(MakeTensor(dt, {rows, n}, l));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {rows}, loss, Tol(dt) * 5);
    ExpectNear(r.Output(1), {rows, n}, back, Tol(dt));
  }
  // Labels [1, n] broadcast over the rows.
  Vals l1(l.begin(), l.begin() + n), lb(rows * n);
  for (int64_t i = 0; i < rows * n; i++) lb[i] = l1[i % n];
  RefXent(x, lb, rows, n, &loss, &back);
  FeedRun b("SoftmaxCrossEntropyWithLogits");
  b.AttrType("T", GRT_FLOAT32).Input(T_<float>({rows, n}, x)).Input(T_<float>({1, n}, l1));
  ASSERT_OK(b.Run());
  ExpectNear(b.Output(0), {rows}, loss, 1e-5);
  ExpectNear(b.Output(1), {rows, n}, back, 2e-6);
  // Half types.
  Vals hx = Seq(rows * n, -4, 4, 11);
  RefXent(hx, l, rows, n, &loss, &back);
  OpRun h("SoftmaxCrossEntropyWithLogits");
  h.AttrType("T", GRT_FLOAT16).Input(MakeTensor(GRT_FLOAT16, {rows, n}, hx));
  h.Input(MakeTensor(GRT_FLOAT16, {rows, n}, l));
  ASSERT_OK(h.Run());
  ExpectNear(h.Output(0), {rows}, loss, 1e-2);
  ExpectNear(h.Output(1), {rows, n}, back, 2e-3);
}

TEST(Xent, LargeSplitOverPool) {
  int64_t rows = 2000, n = 33;
  Vals x = Seq(rows * n, -8, 8, 12), labels(rows), dense(rows * n, 0);
  for (int64_t r = 0; r < rows; r++) {
    labels[r] = static_cast<double>((r * 7) % n);
    dense[r * n + (r * 7) % n] = 1;
  }
  Vals loss, back;
  RefXent(x, dense, rows, n, &loss, &back);
  FeedRun s("SparseSoftmaxCrossEntropyWithLogits");
  s.AttrType("T", GRT_FLOAT32).AttrType("Tlabels", GRT_INT32);
  s.Input(T_<float>({rows, n}, x)).Input(T_<int32_t>({rows}, labels));
  ASSERT_OK(s.Run(TestPool()));
  ExpectNear(s.Output(0), {rows}, loss, 1e-5);
  ExpectNear(s.Output(1), {rows, n}, back, 2e-6);
  FeedRun d("SoftmaxCrossEntropyWithLogits");
  d.AttrType("T", GRT_FLOAT32).Input(T_<float>({rows, n}, x)).Input(T_<float>({rows, n}, dense));
  ASSERT_OK(d.Run(TestPool()));
  ExpectNear(d.Output(0), {rows}, loss, 1e-5);
  ExpectNear(d.Output(1), {rows, n}, back, 2e-6);
}

TEST(Xent, ShortRowsInBlocks) {
  for (int64_t n : {1, 10, 15}) {
    for (int64_t rows : {63, 65, 1001}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + " of " + std::to_string(n));
      Vals x = Seq(rows * n, -9, 9, 11), labels(rows), dense(rows * n, 0), soft(rows * n);
      for (int64_t r = 0; r < rows; r++) {
        labels[r] = static_cast<double>((r * 3) % n);
        dense[r * n + (r * 3) % n] = 1;
        for (int64_t j = 0; j < n; j++) soft[r * n + j] = 1.0 / static_cast<double>(n);
      }
      Vals loss, back;
      RefXent(x, dense, rows, n, &loss, &back);
      FeedRun s("SparseSoftmaxCrossEntropyWithLogits");
      s.AttrType("T", GRT_FLOAT32).AttrType("Tlabels", GRT_INT64);
      s.Input(T_<float>({rows, n}, x)).Input(T_<int64_t>({rows}, labels));
      ASSERT_OK(s.Run(TestPool()));
      ExpectNear(s.Output(0), {rows}, loss, 1e-5);
      ExpectNear(s.Output(1), {rows, n}, back, 2e-6);
      RefXent(x, soft, rows, n, &loss, &back);
      FeedRun d("SoftmaxCrossEntropyWithLogits");
      d.AttrType("T", GRT_FLOAT32).Input(T_<float>({rows, n}, x)).Input(T_<float>({rows, n}, soft));
      ASSERT_OK(d.Run(TestPool()));
      ExpectNear(d.Output(0), {rows}, loss, 1e-5);
      ExpectNear(d.Output(1), {rows, n}, back, 2e-6);
    }
  }
}

TEST(Xent, ShapeErrors) {
  FeedRun b("SoftmaxCrossEntropyWithLogits");
  b.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<float>({4, 3}, {0}));
  CheckStatus(b.Run(), GRT_INVALID_ARGUMENT,
              "logits and labels must be broadcastable: logits_size=[2,3] labels_size=[4,3]");
  FeedRun r("SoftmaxCrossEntropyWithLogits");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 2, 3}, {0})).Input(T_<float>({2, 2, 3}, {0}));
  CheckStatus(r.Run(), GRT_INVALID_ARGUMENT, "must be either 2-dimensional");
}

// ---- coverage of the CPU support rows ---------------------------------------

TEST(Coverage, EverySupportRowDtypeRuns) {
  auto m = [](grt_dtype t) { return MakeTensor(t, {2, 2}, {1, 2, 1, 2}); };
  for (const char* op : {"Relu", "BiasAddGrad", "Softmax"})
    for (grt_dtype t : CpuDtypes(op, "T")) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(t));
      FeedRun r(op);
      r.AttrType("T", t).Input(m(t));
      ASSERT_OK(r.Run());
    }
  for (const char* op : {"ReluGrad", "SoftmaxCrossEntropyWithLogits"})
    for (grt_dtype t : CpuDtypes(op, "T")) {
      SCOPED_TRACE(std::string(op) + " " + grt_dtype_name(t));
      FeedRun r(op);
      r.AttrType("T", t).Input(m(t)).Input(m(t));
      ASSERT_OK(r.Run());
    }
  for (grt_dtype t : CpuDtypes("BiasAdd", "T")) {
    SCOPED_TRACE(std::string("BiasAdd ") + grt_dtype_name(t));
    FeedRun r("BiasAdd");
    r.AttrType("T", t).Input(m(t)).Input(MakeTensor(t, {2}, {1, 2}));
    ASSERT_OK(r.Run());
  }
  for (grt_dtype t : CpuDtypes("SparseSoftmaxCrossEntropyWithLogits", "T"))
    for (grt_dtype l : CpuDtypes("SparseSoftmaxCrossEntropyWithLogits", "Tlabels")) {
      SCOPED_TRACE(std::string("SparseXent ") + grt_dtype_name(t) + " " + grt_dtype_name(l));
      FeedRun r("SparseSoftmaxCrossEntropyWithLogits");
      r.AttrType("T", t).AttrType("Tlabels", l).Input(m(t)).Input(MakeTensor(l, {2}, {0, 1}));
      ASSERT_OK(r.Run());
    }
}
}  // namespace
}  // namespace grt_test
