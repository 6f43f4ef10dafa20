// ReverseSequence, Where and MatrixDeterminant (added for ONNX import)
// against references computed here: index arithmetic for the first two,
// the Leibniz permutation sum in double for determinants.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"
#include "tests/kernels/kernel_test_util.h"

namespace grt_test {
namespace {

using Dims = std::vector<int64_t>;
using Vals = std::vector<double>;

Vals Iota(int64_t n) {
  Vals v(n);
  for (int64_t i = 0; i < n; i++) v[i] = static_cast<double>(i);
  return v;
}

// out[.., b, .., s, ..] = in[.., b, .., len[b]-1-s, ..] for s < len[b].
Vals RefReverse(const Dims& d, const Vals& in, int seq, int batch, const std::vector<int>& len) {
  int64_t n = Count(d);
  Vals out(n);
  std::vector<int64_t> stride(d.size());
  int64_t s = 1;
  for (size_t k = d.size(); k-- > 0;) {
    stride[k] = s;
    s *= d[k];
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t at = (i / stride[seq]) % d[seq];
    int l = len[(i / stride[batch]) % d[batch]];
    int64_t src = at < l ? i - at * stride[seq] + (l - 1 - at) * stride[seq] : i;
    out[i] = in[src];
  }
  return out;
}

TEST(ReverseSequence, EveryAxisPairAndLengthType) {
  Dims d = {3, 4, 2};
  struct Case {
    int seq, batch;
  };
  for (Case c : {Case{1, 0}, Case{0, 1}, Case{2, 0}, Case{1, 2}}) {
    for (grt_dtype lt : {GRT_INT32, GRT_INT64}) {
      for (grt_dtype dt : {GRT_FLOAT32, GRT_INT8, GRT_FLOAT64}) {
        SCOPED_TRACE(std::to_string(c.seq) + "," + std::to_string(c.batch) + " " +
                     grt_dtype_name(dt));
        std::vector<int> len;
        for (int64_t b = 0; b < d[c.batch]; b++)
          len.push_back(static_cast<int>((b * 3 + 1) % (d[c.seq] + 1)));
        Vals lv(len.begin(), len.end());
        OpRun r("ReverseSequence");
        r.AttrType("T", dt)
            .AttrType("Tlen", lt)
            .AttrInt("seq_dim", c.seq)
            .AttrInt("batch_dim", c.batch);
        r.Input(MakeTensor(dt, d, Iota(Count(d))))
            .Input(MakeTensor(lt, {static_cast<int64_t>(len.size())}, lv));
        ASSERT_OK(r.Run());
        ExpectNear(r.Output(0), d, RefReverse(d, Iota(Count(d)), c.seq, c.batch, len), 0);
      }
    }
  }
}

TEST(ReverseSequence, BadLengthsAreErrors) {
  OpRun r("ReverseSequence");
  r.AttrType("T", GRT_FLOAT32)
      .AttrType("Tlen", GRT_INT64)
      .AttrInt("seq_dim", 1)
      .AttrInt("batch_dim", 0);
  r.Input(T_<float>({2, 3}, Iota(6))).Input(T_<int64_t>({2}, {1, 4}));
  grt_status* s = r.Run();
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(grt_status_message(s)).find("seq_lens(1)"), std::string::npos)
      << grt_status_message(s);
  grt_status_free(s);
}

TEST(Where, CoordinatesOfNonZeroElements) {
  Dims d = {2, 3, 2};
  Vals v = {0, 1, -0.0, 2, 0, 0, 5, 0, 0, 0, std::nan(""), 3};
  for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT16, GRT_FLOAT64}) {
    SCOPED_TRACE(grt_dtype_name(dt));
    Vals want;
    for (int64_t i = 0; i < Count(d); i++)
      if (v[i] != 0) want.insert(want.end(), {double(i / 6), double(i / 2 % 3), double(i % 2)});
    OpRun r("Where");
    r.AttrType("T", dt).Input(MakeTensor(dt, d, v));
    ASSERT_OK(r.Run());
    EXPECT_EQ(grt_tensor_dtype(r.Output(0)), GRT_INT64);
    ExpectNear(r.Output(0), {static_cast<int64_t>(want.size() / 3), 3}, want, 0);
  }
  OpRun b("Where");
  b.Input(T_<bool>({4}, {0, 1, 1, 0}));
  ASSERT_OK(b.Run());
  ExpectNear(b.Output(0), {2, 1}, {1, 2}, 0);
  OpRun none("Where");
  none.AttrType("T", GRT_INT32).Input(T_<int32_t>({2, 2}, {0, 0, 0, 0}));
  ASSERT_OK(none.Run());
  ExpectNear(none.Output(0), {0, 2}, {}, 0);
}

// det by the permutation (Leibniz) sum: independent of LU.
double Leibniz(const Vals& a, int64_t off, int m) {
  std::vector<int> p(m);
  for (int i = 0; i < m; i++) p[i] = i;
  double sum = 0;
  do {
    int inversions = 0;
    for (int i = 0; i < m; i++)
      for (int j = i + 1; j < m; j++) inversions += p[i] > p[j];
    double prod = inversions % 2 ? -1 : 1;
    for (int i = 0; i < m; i++) prod *= a[off + i * m + p[i]];
    sum += prod;
  } while (std::next_permutation(p.begin(), p.end()));
  return m == 0 ? 1 : sum;
}

TEST(MatrixDeterminant, BatchesAgainstLeibniz) {
  for (int m : {0, 1, 2, 3, 4, 5}) {
    for (grt_dtype dt : {GRT_FLOAT32, GRT_FLOAT64}) {
      SCOPED_TRACE(std::to_string(m) + " " + grt_dtype_name(dt));
      Dims d = {2, 3, m, m};
      int64_t n = Count(d);
      Vals v(n);
      for (int64_t i = 0; i < n; i++) v[i] = std::sin(1.7 * static_cast<double>(i) + 0.3) * 2;
      if (m >= 2)  // a singular matrix: two equal rows
        for (int j = 0; j < m; j++) v[m * m + m + j] = v[m * m + j];
      grt_tensor* x = MakeTensor(dt, d, v);
      Vals xv(n), want;
      for (int64_t i = 0; i < n; i++) xv[i] = At(x, i);
      for (int64_t b = 0; b < 6; b++) want.push_back(Leibniz(xv, b * m * m, m));
      OpRun r("MatrixDeterminant");
      r.AttrType("T", dt).Input(x);
      ASSERT_OK(r.Run());
      ExpectNear(r.Output(0), {2, 3}, want, dt == GRT_FLOAT32 ? 1e-5 : 1e-12);
    }
  }
}

TEST(MatrixDeterminant, NonSquareIsAnError) {
  OpRun r("MatrixDeterminant");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, Iota(6)));
  grt_status* s = r.Run();
  ASSERT_NE(s, nullptr);
  grt_status_free(s);
}

TEST(Coverage, EverySupportRowDtypeRuns) {
  for (grt_dtype t : CpuDtypes("ReverseSequence", "T")) {
    SCOPED_TRACE(grt_dtype_name(t));
    FeedRun r("ReverseSequence");
    r.AttrType("T", t).AttrInt("seq_dim", 1).Input(MakeTensor(t, {1, 2}, {1, 2}));
    r.Input(T_<int64_t>({1}, {2}));
    ASSERT_OK(r.Run());
  }
  for (grt_dtype t : CpuDtypes("Where", "T")) {
    SCOPED_TRACE(grt_dtype_name(t));
    FeedRun r("Where");
    r.AttrType("T", t).Input(MakeTensor(t, {2}, {1, 0}));
    ASSERT_OK(r.Run());
  }
  for (grt_dtype t : CpuDtypes("MatrixDeterminant", "T")) {
    FeedRun r("MatrixDeterminant");
    r.AttrType("T", t).Input(MakeTensor(t, {2, 2}, {1, 2, 3, 4}));
    ASSERT_OK(r.Run());
  }
}

}  // namespace
}  // namespace grt_test
