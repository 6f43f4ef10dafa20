// The indexing ops' CPU kernels (Range, GatherV2, GatherNd, TensorScatter*,
// Cumsum, TopKV2, Where, ReverseSequence, Einsum, Pad, PadV2, MirrorPad) against references
// computed here with plain float64 loops, plus their error cases.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"

namespace grt_test {
namespace {

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Deterministic values in [-5, 5) with a few repeats (for ties).
std::vector<double> Values(int64_t n, uint32_t seed) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<double>((seed >> 8) % 40) / 4.0 - 5.0;
  }
  return v;
}

std::string TakeMessage(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

// ---- Range ----------------------------------------------------------------

TEST(IndexKernels, RangeIntegerAndFloat) {
  {
    OpRun r("Range");
    r.AttrType("Tidx", GRT_INT32).Input(T_<int32_t>({}, {3})).Input(T_<int32_t>({}, {18}));
    r.Input(T_<int32_t>({}, {4}));
    ASSERT_OK(r.Run());
    std::vector<double> want;
    for (int v = 3; v < 18; v += 4) want.push_back(v);
    ExpectNear(r.Output(0), {static_cast<int64_t>(want.size())}, want);
  }
  {
    OpRun r("Range");
    r.AttrType("Tidx", GRT_FLOAT64).Input(T_<double>({}, {0.5})).Input(T_<double>({}, {-1.2}));
    r.Input(T_<double>({}, {-0.3}));
    ASSERT_OK(r.Run());
    std::vector<double> want;
    int64_t n = static_cast<int64_t>(std::ceil(std::fabs((-1.2 - 0.5) / -0.3)));
    for (int64_t i = 0; i < n; i++) want.push_back(0.5 + i * -0.3);
    ExpectNear(r.Output(0), {n}, want, 1e-12);
  }
  for (double delta : {-2.0, 2.0}) {
    OpRun r("Range");  // an empty range, start == limit, either direction
    r.AttrType("Tidx", GRT_INT64).Input(T_<int64_t>({}, {5})).Input(T_<int64_t>({}, {5}));
    r.Input(T_<int64_t>({}, {delta}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {0}, {});
  }
}

TEST(IndexKernels, RangeErrors) {
  FeedRun zero("Range");
  zero.AttrType("Tidx", GRT_INT32).Input(T_<int32_t>({}, {0})).Input(T_<int32_t>({}, {3}));
  zero.Input(T_<int32_t>({}, {0}));
  EXPECT_EQ(TakeMessage(zero.Run()), "Requires delta != 0: 0");
  FeedRun away("Range");
  away.AttrType("Tidx", GRT_INT32).Input(T_<int32_t>({}, {5})).Input(T_<int32_t>({}, {3}));
  away.Input(T_<int32_t>({}, {1}));
  EXPECT_EQ(TakeMessage(away.Run()), "Requires start <= limit when delta > 0: 5/3");
}

// ---- GatherV2 / GatherNd --------------------------------------------------

TEST(IndexKernels, GatherV2EveryAxis) {
  const std::vector<int64_t> pd = {3, 4, 2};
  std::vector<double> p = Values(Count(pd), 7);
  const std::vector<double> ind = {1, 0, 1, 1};  // shape [2, 2], in range on every axis
  for (int axis : {0, 1, 2, -1}) {
    int a = axis < 0 ? axis + 3 : axis;
    std::vector<double> want;
    std::vector<int64_t> od;
    for (int i = 0; i < a; i++) od.push_back(pd[i]);
    od.push_back(2);
    od.push_back(2);
    for (int i = a + 1; i < 3; i++) od.push_back(pd[i]);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < a; i++) outer *= pd[i];
    for (int i = a + 1; i < 3; i++) inner *= pd[i];
    for (int64_t o = 0; o < outer; o++)
      for (double j : ind)
        for (int64_t in = 0; in < inner; in++)
          want.push_back(p[(o * pd[a] + static_cast<int64_t>(j)) * inner + in]);
    const std::vector<double>& idx = ind;
    OpRun r("GatherV2");
    r.AttrType("Tparams", GRT_FLOAT32).AttrType("Tindices", GRT_INT64).AttrType("Taxis", GRT_INT32);
    r.Input(T_<float>(pd, p))
        .Input(T_<int64_t>({2, 2}, idx))
        .Input(T_<int32_t>({}, {double(axis)}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), od, want);
  }
  FeedRun bad("GatherV2");
  bad.AttrType("Tparams", GRT_FLOAT32).AttrType("Tindices", GRT_INT32).AttrType("Taxis", GRT_INT32);
  bad.Input(T_<float>({3}, {1, 2, 3})).Input(T_<int32_t>({2}, {0, 3})).Input(T_<int32_t>({}, {0}));
  EXPECT_EQ(TakeMessage(bad.Run()), "indices[1] = 3 is not in [0, 3)");
}

// batch_dims: out[b][o][j][:] = params[b][o][indices[b][j]][:], against a
// reference written from that formula with every index spelled out.
TEST(IndexKernels, GatherV2BatchDims) {
  const std::vector<int64_t> pd = {2, 3, 4, 2};  // batch 2, then 3, the gathered 4, inner 2
  std::vector<double> p = Values(Count(pd), 5);
  const std::vector<int64_t> idd = {2, 3};  // per batch 3 indices into the axis of 4
  const std::vector<double> ind = {3, 0, 2, 1, 1, 0};
  struct Case {
    int batch_dims, axis;
  };
  for (Case c : {Case{1, 2}, Case{-1, 2}, Case{1, -2}, Case{1, 1}}) {
    int a = c.axis < 0 ? c.axis + 4 : c.axis;
    std::vector<int64_t> od;
    for (int i = 0; i < a; i++) od.push_back(pd[i]);
    od.push_back(3);
    for (int i = a + 1; i < 4; i++) od.push_back(pd[i]);
    std::vector<double> want;
    if (a == 2) {
      for (int b = 0; b < 2; b++)
        for (int o = 0; o < 3; o++)
          for (int j = 0; j < 3; j++)
            for (int e = 0; e < 2; e++)
              want.push_back(p[((b * 3 + o) * 4 + static_cast<int>(ind[b * 3 + j])) * 2 + e]);
    } else {  // axis 1 (of size 3): indices must stay below 3
      for (int b = 0; b < 2; b++)
        for (int j = 0; j < 3; j++)
          for (int k = 0; k < 4; k++)
            for (int e = 0; e < 2; e++)
              want.push_back(
                  p[((b * 3 + std::min(2, static_cast<int>(ind[b * 3 + j]))) * 4 + k) * 2 + e]);
    }
    std::vector<double> idx = ind;
    if (a == 1)
      for (double& v : idx) v = std::min(2.0, v);
    OpRun r("GatherV2");
    r.AttrType("Tparams", GRT_FLOAT32).AttrType("Tindices", GRT_INT32).AttrType("Taxis", GRT_INT64);
    r.AttrInt("batch_dims", c.batch_dims);
    r.Input(T_<float>(pd, p)).Input(T_<int32_t>(idd, idx)).Input(T_<int64_t>({}, {double(c.axis)}));
    SCOPED_TRACE("batch_dims " + std::to_string(c.batch_dims) + ", axis " + std::to_string(c.axis));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), od, want);
  }
  struct Bad {
    int batch_dims, axis;
    std::vector<int64_t> ind_dims;
    const char* message;
  };
  for (const Bad& b :
       {Bad{3, 2, {2, 3}, "Expected batch_dims in the range [-2, 2], but got 3"},
        Bad{2, 3, {2, 2}, "params.shape[1]: 3 should be equal to indices.shape[1]: 2"},
        Bad{1, 0, {2, 3}, "batch_dims (1) must be less than or equal to axis (0)"},
        Bad{1, 2, {3, 2}, "params.shape[0]: 2 should be equal to indices.shape[0]: 3"}}) {
    FeedRun bad("GatherV2");
    bad.AttrType("Tparams", GRT_FLOAT32)
        .AttrType("Tindices", GRT_INT32)
        .AttrType("Taxis", GRT_INT32);
    bad.AttrInt("batch_dims", b.batch_dims);
    bad.Input(T_<float>(pd, p))
        .Input(T_<int32_t>(b.ind_dims, std::vector<double>(Count(b.ind_dims), 0)));
    bad.Input(T_<int32_t>({}, {double(b.axis)}));
    std::string m = TakeMessage(bad.Run());
    EXPECT_NE(m.find(b.message), std::string::npos) << m;
  }
}

TEST(IndexKernels, GatherNdWholeRowsAndElements) {
  const std::vector<int64_t> pd = {3, 4, 2};
  std::vector<double> p = Values(Count(pd), 11);
  {  // k = 2: slices of [2]
    std::vector<double> ind = {1, 2, 0, 3, 2, 0};
    std::vector<double> want;
    for (int c = 0; c < 3; c++)
      for (int e = 0; e < 2; e++)
        want.push_back(
            p[(static_cast<int64_t>(ind[2 * c]) * 4 + static_cast<int64_t>(ind[2 * c + 1])) * 2 +
              e]);
    OpRun r("GatherNd");
    r.AttrType("Tparams", GRT_FLOAT32).AttrType("Tindices", GRT_INT32);
    r.Input(T_<float>(pd, p)).Input(T_<int32_t>({3, 2}, ind));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {3, 2}, want);
  }
  {  // k = 3: single elements, indices [2, 1, 3]
    std::vector<double> ind = {2, 3, 1, 0, 1, 0};
    std::vector<double> want;
    for (int c = 0; c < 2; c++)
      want.push_back(
          p[(static_cast<int64_t>(ind[3 * c]) * 4 + static_cast<int64_t>(ind[3 * c + 1])) * 2 +
            static_cast<int64_t>(ind[3 * c + 2])]);
    OpRun r("GatherNd");
    r.AttrType("Tparams", GRT_FLOAT32).AttrType("Tindices", GRT_INT64);
    r.Input(T_<float>(pd, p)).Input(T_<int64_t>({2, 1, 3}, ind));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {2, 1}, want);
  }
  FeedRun bad("GatherNd");
  bad.AttrType("Tparams", GRT_FLOAT32).AttrType("Tindices", GRT_INT32);
  bad.Input(T_<float>({2, 2}, {1, 2, 3, 4})).Input(T_<int32_t>({1, 2}, {0, -1}));
  EXPECT_EQ(TakeMessage(bad.Run()),
            "indices[0][1] = -1 does not index into param dimension 1 of size 2");
}

// ---- TensorScatter* --------------------------------------------------------

TEST(IndexKernels, TensorScatterInIndexOrder) {
  const std::vector<int64_t> td = {4, 3};
  std::vector<double> t = Values(12, 3), up = Values(9, 5);
  const std::vector<double> ind = {1, 3, 1};  // [3, 1]: row 1 twice
  for (const char* op :
       {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterMax", "TensorScatterMin"}) {
    std::vector<double> want = t;
    for (int c = 0; c < 3; c++)
      for (int e = 0; e < 3; e++) {
        double& w = want[static_cast<int64_t>(ind[c]) * 3 + e];
        double u = up[c * 3 + e];
        std::string o = op;
        w = o == "TensorScatterUpdate" ? u
            : o == "TensorScatterAdd"  ? w + u
            : o == "TensorScatterMax"  ? std::max(w, u)
                                       : std::min(w, u);
      }
    OpRun r(op);
    r.AttrType("T", GRT_FLOAT32).AttrType("Tindices", GRT_INT32);
    r.Input(T_<float>(td, t)).Input(T_<int32_t>({3, 1}, ind)).Input(T_<float>({3, 3}, up));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), td, want);
  }
  {  // element indices into int64 with Add
    OpRun r("TensorScatterAdd");
    r.AttrType("T", GRT_INT64).AttrType("Tindices", GRT_INT64);
    r.Input(T_<int64_t>({2, 2}, {1, 2, 3, 4})).Input(T_<int64_t>({2, 2}, {0, 1, 0, 1}));
    r.Input(T_<int64_t>({2}, {10, 100}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {2, 2}, {1, 112, 3, 4});
  }
  FeedRun bad("TensorScatterUpdate");
  bad.AttrType("T", GRT_FLOAT32).AttrType("Tindices", GRT_INT32);
  bad.Input(T_<float>({2}, {1, 2})).Input(T_<int32_t>({1, 1}, {2})).Input(T_<float>({1}, {5}));
  EXPECT_EQ(TakeMessage(bad.Run()), "indices[0] = [2] does not index into dimension 0 of size 2");
}

// ---- Cumsum ----------------------------------------------------------------

TEST(IndexKernels, CumsumEveryMode) {
  const std::vector<int64_t> xd = {2, 3, 4};
  std::vector<double> x = Values(Count(xd), 9);
  for (int axis : {0, 1, -1})
    for (bool exclusive : {false, true})
      for (bool reverse : {false, true}) {
        int a = axis < 0 ? axis + 3 : axis;
        int64_t outer = 1, n = xd[a], inner = 1;
        for (int i = 0; i < a; i++) outer *= xd[i];
        for (int i = a + 1; i < 3; i++) inner *= xd[i];
        std::vector<double> want(x.size());
        for (int64_t o = 0; o < outer; o++)
          for (int64_t in = 0; in < inner; in++)
            for (int64_t j = 0; j < n; j++) {
              double s = 0;
              for (int64_t m = 0; m < n; m++) {
                bool before = reverse ? m > j : m < j;
                if (before || (!exclusive && m == j)) s += x[(o * n + m) * inner + in];
              }
              want[(o * n + j) * inner + in] = s;
            }
        OpRun r("Cumsum");
        r.AttrType("T", GRT_FLOAT32).AttrType("Tidx", GRT_INT32);
        r.AttrBool("exclusive", exclusive).AttrBool("reverse", reverse);
        r.Input(T_<float>(xd, x)).Input(T_<int32_t>({}, {double(axis)}));
        ASSERT_OK(r.Run());
        ExpectNear(r.Output(0), xd, want, 1e-5);
      }
}

TEST(IndexKernels, CumsumAxisOutOfRange) {
  for (int axis : {3, -4}) {
    FeedRun r("Cumsum");  // fed, so the kernel sees the axis and not the shape function
    r.AttrType("T", GRT_FLOAT32).AttrType("Tidx", GRT_INT32);
    r.Input(T_<float>({2, 3, 4}, Values(24, 5))).Input(T_<int32_t>({}, {double(axis)}));
    EXPECT_EQ(TakeMessage(r.Run()),
              "axis must be in the range [-3, 3), got " + std::to_string(axis));
  }
}

// ---- TopKV2 ----------------------------------------------------------------

TEST(IndexKernels, TopKLargestFirstTiesByIndex) {
  const std::vector<int64_t> xd = {3, 6};
  std::vector<double> x = Values(18, 21);
  x[1] = x[4];  // a tie in the first row
  for (int64_t k : {0, 1, 3, 6}) {
    std::vector<double> want_v, want_i;
    for (int r = 0; r < 3; r++) {
      std::vector<int> order(6);
      for (int j = 0; j < 6; j++) order[j] = j;
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return x[r * 6 + a] > x[r * 6 + b]; });
      for (int j = 0; j < k; j++) {
        want_v.push_back(x[r * 6 + order[j]]);
        want_i.push_back(order[j]);
      }
    }
    OpRun r("TopKV2");
    r.AttrType("T", GRT_FLOAT32).AttrType("index_type", GRT_INT64);
    r.Input(T_<float>(xd, x)).Input(T_<int32_t>({}, {double(k)}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {3, k}, want_v);
    ExpectNear(r.Output(1), {3, k}, want_i);
    EXPECT_EQ(r.Output(1)->dtype, GRT_INT64);
  }
  FeedRun bad("TopKV2");
  bad.AttrType("T", GRT_FLOAT32).Input(T_<float>({2}, {1, 2})).Input(T_<int32_t>({}, {3}));
  EXPECT_EQ(TakeMessage(bad.Run()), "input must have at least k columns. Had 2, needed 3");
}

// ---- Where -----------------------------------------------------------------

TEST(IndexKernels, WhereListsNonZeroCoordinates) {
  const std::vector<int64_t> xd = {3, 2, 4};
  std::vector<double> x = Values(Count(xd), 53);
  for (double& v : x) v = v < 0 ? 0 : v;  // about half zero
  std::vector<double> want;
  for (int64_t i = 0; i < 3; i++)
    for (int64_t j = 0; j < 2; j++)
      for (int64_t k = 0; k < 4; k++)
        if (x[(i * 2 + j) * 4 + k] != 0) want.insert(want.end(), {double(i), double(j), double(k)});
  OpRun r("Where");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>(xd, x));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {static_cast<int64_t>(want.size() / 3), 3}, want);
  OpRun b("Where");  // bool, none true
  b.AttrType("T", GRT_BOOL).Input(T_<bool>({4}, {0}));
  ASSERT_OK(b.Run());
  ExpectNear(b.Output(0), {0, 1}, {});
}

// ---- ReverseSequence -------------------------------------------------------

TEST(IndexKernels, ReverseSequencePrefixes) {
  const std::vector<int64_t> xd = {4, 3, 2};  // seq_dim 0, batch_dim 1
  std::vector<double> x = Values(Count(xd), 59);
  const std::vector<double> lens = {4, 0, 2};
  std::vector<double> want(x.size());
  for (int64_t s = 0; s < 4; s++)
    for (int64_t b = 0; b < 3; b++)
      for (int64_t e = 0; e < 2; e++) {
        int64_t l = static_cast<int64_t>(lens[b]), from = s < l ? l - 1 - s : s;
        want[(s * 3 + b) * 2 + e] = x[(from * 3 + b) * 2 + e];
      }
  OpRun r("ReverseSequence");
  r.AttrType("T", GRT_FLOAT32)
      .AttrType("Tlen", GRT_INT64)
      .AttrInt("seq_dim", 0)
      .AttrInt("batch_dim", 1);
  r.Input(T_<float>(xd, x)).Input(T_<int64_t>({3}, lens));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), xd, want);
  FeedRun bad("ReverseSequence");
  bad.AttrType("T", GRT_FLOAT32).AttrType("Tlen", GRT_INT64).AttrInt("seq_dim", 1);
  bad.Input(T_<float>({1, 2}, {1, 2})).Input(T_<int64_t>({1}, {3}));
  // TensorFlow's wording: the offending entry and its value.
  EXPECT_EQ(TakeMessage(bad.Run()), "seq_lens(0) > input.dims(1) or negative: 3");
}

// ---- Einsum ----------------------------------------------------------------

TEST(IndexKernels, EinsumProductsDiagonalsAndBroadcast) {
  std::vector<double> a = Values(6, 31), b = Values(12, 37);
  {  // matrix product
    std::vector<double> want(8, 0);
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 4; k++)
        for (int j = 0; j < 3; j++) want[i * 4 + k] += a[i * 3 + j] * b[j * 4 + k];
    OpRun r("Einsum");
    r.AttrType("T", GRT_FLOAT32).AttrInt("N", 2).AttrString("equation", "ij, jk -> ik");
    r.Input(T_<float>({2, 3}, a)).Input(T_<float>({3, 4}, b));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {2, 4}, want, 1e-5);
  }
  {  // batched diagonals under "..."
    std::vector<double> x = Values(18, 41), want;
    for (int n = 0; n < 2; n++)
      for (int i = 0; i < 3; i++) want.push_back(x[n * 9 + i * 3 + i]);
    OpRun r("Einsum");
    r.AttrType("T", GRT_FLOAT64).AttrInt("N", 1).AttrString("equation", "...ii->...i");
    r.Input(T_<double>({2, 3, 3}, x));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {2, 3}, want);
  }
  {  // "..." broadcasting [2,1] with [4] to [2,4], batched products
    std::vector<double> p = Values(12, 43), q = Values(24, 47), want(2 * 4 * 2 * 2, 0);
    for (int u = 0; u < 2; u++)
      for (int v = 0; v < 4; v++)
        for (int i = 0; i < 2; i++)
          for (int k = 0; k < 2; k++)
            for (int j = 0; j < 3; j++)
              want[((u * 4 + v) * 2 + i) * 2 + k] +=
                  p[(u * 2 + i) * 3 + j] * q[(v * 3 + j) * 2 + k];
    OpRun r("Einsum");
    r.AttrType("T", GRT_FLOAT32).AttrInt("N", 2).AttrString("equation", "...ij,...jk->...ik");
    r.Input(T_<float>({2, 1, 2, 3}, p)).Input(T_<float>({4, 3, 2}, q));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {2, 4, 2, 2}, want, 1e-5);
  }
  {  // everything summed, int64
    OpRun r("Einsum");
    r.AttrType("T", GRT_INT64).AttrInt("N", 1).AttrString("equation", "ij->");
    r.Input(T_<int64_t>({2, 2}, {1, 20, 300, 4000}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), {}, {4321});
  }
  FeedRun arrow("Einsum");
  arrow.AttrType("T", GRT_FLOAT32).AttrInt("N", 1).AttrString("equation", "ij");
  arrow.Input(T_<float>({1, 1}, {1}));
  EXPECT_EQ(TakeMessage(arrow.Run()),  // found by the shape function, before running
            "node 'op' (Einsum): Einsum: the equation 'ij' needs '->' and the output");
  FeedRun sizes("Einsum");
  sizes.AttrType("T", GRT_FLOAT32).AttrInt("N", 2).AttrString("equation", "ij,jk->ik");
  sizes.Input(T_<float>({2, 3}, {0})).Input(T_<float>({2, 2}, {0}));
  EXPECT_EQ(TakeMessage(sizes.Run()), "Einsum: dimensions 3 and 2 of one subscript differ");
}

// ---- Pad, PadV2, MirrorPad --------------------------------------------------

// Pads axis `axis` of a row-major tensor one side at a time: `src(i)` gives
// the input position for output position i (or -1 for the constant).
std::vector<double> PadAxis(const std::vector<double>& x, std::vector<int64_t>* dims, int axis,
                            int64_t before, int64_t after, const char* mode, double constant) {
  int64_t n = (*dims)[axis], m = n + before + after, outer = 1, inner = 1;
  for (int i = 0; i < axis; i++) outer *= (*dims)[i];
  for (size_t i = axis + 1; i < dims->size(); i++) inner *= (*dims)[i];
  std::vector<int64_t> src(m);
  for (int64_t i = 0; i < m; i++) src[i] = i - before;  // inside: itself
  std::string md = mode;
  for (int64_t i = 0; i < before; i++)  // mirror image of the first elements
    src[before - 1 - i] = md == "constant" ? -1 : md == "REFLECT" ? i + 1 : i;
  for (int64_t i = 0; i < after; i++)
    src[before + n + i] = md == "constant" ? -1 : md == "REFLECT" ? n - 2 - i : n - 1 - i;
  std::vector<double> out;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t in = 0; in < inner; in++)
        out.push_back(src[i] < 0 ? constant : x[(o * n + src[i]) * inner + in]);
  (*dims)[axis] = m;
  return out;
}

TEST(IndexKernels, PadEveryMode) {
  const std::vector<int64_t> xd = {3, 4};
  std::vector<double> x = Values(12, 13);
  const std::vector<double> pads = {1, 2, 3, 0};  // [[1, 2], [3, 0]]
  for (const char* op : {"Pad", "PadV2", "REFLECT", "SYMMETRIC"}) {
    std::string o = op;
    bool mirror = o == "REFLECT" || o == "SYMMETRIC";
    double c = o == "PadV2" ? 2.5 : 0;
    std::vector<int64_t> dims = xd;
    std::vector<double> want = PadAxis(x, &dims, 0, 1, 2, mirror ? op : "constant", c);
    want = PadAxis(want, &dims, 1, 3, 0, mirror ? op : "constant", c);
    OpRun r(mirror ? "MirrorPad" : op);
    r.AttrType("T", GRT_FLOAT32).AttrType("Tpaddings", GRT_INT64);
    if (mirror) r.AttrString("mode", op);
    r.Input(T_<float>(xd, x)).Input(T_<int64_t>({2, 2}, pads));
    if (o == "PadV2") r.Input(T_<float>({}, {c}));
    ASSERT_OK(r.Run());
    ExpectNear(r.Output(0), dims, want);
  }
  FeedRun bad("MirrorPad");
  bad.AttrType("T", GRT_FLOAT32).AttrString("mode", "REFLECT");
  bad.Input(T_<float>({2}, {1, 2})).Input(T_<int32_t>({1, 2}, {2, 0}));
  EXPECT_EQ(TakeMessage(bad.Run()),
            "paddings must be no greater than the dimension size minus 1: 2, 0 greater than 1");
  FeedRun neg("Pad");
  neg.AttrType("T", GRT_FLOAT32).Input(T_<float>({2}, {1, 2})).Input(T_<int32_t>({1, 2}, {-1, 0}));
  EXPECT_EQ(TakeMessage(neg.Run()), "Paddings must be non-negative: -1 0");
}

}  // namespace
}  // namespace grt_test
