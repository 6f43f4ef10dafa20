// MatMul and BatchMatMulV2 against a naive triple loop, for every transpose
// combination, odd sizes and every dtype the CPU rows list.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernels/feed_run.h"
#include "tests/kernels/harness.h"

namespace grt_test {
namespace {

// Small integers: every product and sum is exact in float32/float64.
std::vector<double> Ints(int64_t n, int seed) {
  std::vector<double> v(n);
  uint32_t s = 2463534242u + seed;
  for (double& x : v) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    x = static_cast<double>(s % 7) - 3;
  }
  return v;
}

// C = op(A) op(B), A stored [m,k] ([k,m] when ta), B [k,n] ([n,k] when tb).
std::vector<double> NaiveMatMul(const std::vector<double>& a, const std::vector<double>& b,
                                int64_t m, int64_t k, int64_t n, bool ta, bool tb) {
  std::vector<double> c(m * n, 0);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double sum = 0;
      for (int64_t p = 0; p < k; p++)
        sum += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
      c[i * n + j] = sum;
    }
  return c;
}

double Tolerance(grt_dtype t) { return t == GRT_BFLOAT16 ? 1e-2 : t == GRT_FLOAT16 ? 1e-3 : 1e-9; }

// Rounds each reference value to the dtype, so the comparison sees what
// the kernel can store.
std::vector<double> Rounded(grt_dtype t, const std::vector<double>& v) {
  grt_tensor* r = MakeTensor(t, {static_cast<int64_t>(v.size())}, v);
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); i++) out[i] = At(r, static_cast<int64_t>(i));
  grt_tensor_free(r);
  return out;
}

void CheckMatMul(grt_dtype t, int64_t m, int64_t k, int64_t n, bool ta, bool tb) {
  std::vector<double> a = Ints(m * k, 1), b = Ints(k * n, 2);
  OpRun r("MatMul");
  r.AttrType("T", t).AttrBool("transpose_a", ta).AttrBool("transpose_b", tb);
  r.Input(MakeTensor(t, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, a));
  r.Input(MakeTensor(t, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, b));
  ASSERT_OK(r.Run());
  SCOPED_TRACE(std::string(grt_dtype_name(t)) + " " + std::to_string(m) + "x" + std::to_string(k) +
               "x" + std::to_string(n) + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb));
  ExpectNear(r.Output(0), {m, n}, Rounded(t, NaiveMatMul(a, b, m, k, n, ta, tb)), Tolerance(t));
  EXPECT_EQ(grt_tensor_dtype(r.Output(0)), t);
}

TEST(MatMulKernels, EveryTransposeComboSizeAndDtype) {
  // m = 1: float32 runs matmul_gemv.c (matmul_gemv_test has its widths
  // and parts), the other dtypes OpenBLAS's GEMV path for a single row.
  const int64_t sizes[][3] = {{1, 1, 1}, {7, 13, 5}, {64, 64, 64},
                              {3, 1, 9}, {1, 13, 5}, {1, 300, 70}};
  for (grt_dtype t :
       {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16, GRT_INT16, GRT_INT32, GRT_INT64})
    for (const auto& s : sizes)
      for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) CheckMatMul(t, s[0], s[1], s[2], ta, tb);
}

// A transposed left operand with fewer than 16 result columns goes to
// OpenBLAS at any size (a classifier's weight gradient, h^T . dy), the
// rest of the table's oneDNN band to oneDNN (gemm_blocks_test checks the
// pick): both give the product.
TEST(MatMulKernels, NarrowTransposedProducts) {
  for (int64_t n : {10, 15, 16})
    for (int tb = 0; tb < 2; tb++) CheckMatMul(GRT_FLOAT32, 256, 256, n, true, tb);
}

TEST(MatMulKernels, IntegerOverflowWrapsAround) {
  OpRun r("MatMul");
  r.AttrType("T", GRT_INT16)
      .Input(T_<int16_t>({1, 2}, {300, 200}))
      .Input(T_<int16_t>({2, 1}, {300, 1}));
  ASSERT_OK(r.Run());
  // 300 * 300 + 200 = 90200, modulo 2^16 as a signed 16-bit value.
  ExpectNear(r.Output(0), {1, 1}, {static_cast<double>(static_cast<int16_t>(90200 - 65536))});
}

TEST(MatMulKernels, EmptyInnerDimensionGivesZeros) {
  OpRun r("MatMul");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 0}, {})).Input(T_<float>({0, 3}, {}));
  ASSERT_OK(r.Run());
  ExpectNear(r.Output(0), {2, 3}, std::vector<double>(6, 0));
  OpRun row("MatMul");  // one row: GEMV would leave the output unwritten
  row.AttrType("T", GRT_FLOAT32).Input(T_<float>({1, 0}, {})).Input(T_<float>({0, 3}, {}));
  ASSERT_OK(row.Run());
  ExpectNear(row.Output(0), {1, 3}, std::vector<double>(3, 0));
}

TEST(MatMulKernels, SizeMismatchAtRunTime) {
  FeedRun r("MatMul");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3}, {0})).Input(T_<float>({4, 5}, {0}));
  grt_status* s = r.Run();
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  EXPECT_STREQ(grt_status_message(s), "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  grt_status_free(s);
}

TEST(MatMulKernels, NoKernelForInt8) {
  FeedRun r("MatMul");
  r.AttrType("T", GRT_INT8).Input(T_<int8_t>({1, 1}, {1})).Input(T_<int8_t>({1, 1}, {1}));
  grt_status* s = r.Run();
  EXPECT_EQ(grt_status_code(s), GRT_UNIMPLEMENTED);
  EXPECT_NE(std::string(grt_status_message(s)).find("int8"), std::string::npos);
  grt_status_free(s);
}

// ---- BatchMatMulV2 -------------------------------------------------------------

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// Reference: broadcast batch indices by hand, one naive product per batch.
std::vector<double> NaiveBatch(const std::vector<int64_t>& xd, const std::vector<double>& x,
                               const std::vector<int64_t>& yd, const std::vector<double>& y,
                               bool ax, bool ay, std::vector<int64_t>* out_dims) {
  size_t xr = xd.size(), yr = yd.size();
  int64_t m = ax ? xd[xr - 1] : xd[xr - 2], k = ax ? xd[xr - 2] : xd[xr - 1];
  int64_t n = ay ? yd[yr - 2] : yd[yr - 1];
  size_t br = std::max(xr, yr) - 2;
  std::vector<int64_t> bx(br, 1), by(br, 1), bo(br);
  for (size_t i = 0; i < xr - 2; i++) bx[br - (xr - 2) + i] = xd[i];
  for (size_t i = 0; i < yr - 2; i++) by[br - (yr - 2) + i] = yd[i];
  for (size_t i = 0; i < br; i++) bo[i] = std::max(bx[i], by[i]);
  *out_dims = bo;
  out_dims->push_back(m);
  out_dims->push_back(n);
  std::vector<double> out;
  for (int64_t b = 0; b < Count(bo); b++) {
    int64_t rem = b, xi = 0, yi = 0, xs = 1, ys = 1;
    for (int d = static_cast<int>(br) - 1; d >= 0; d--) {
      int64_t i = rem % bo[d];
      rem /= bo[d];
      xi += (bx[d] == 1 ? 0 : i) * xs;
      yi += (by[d] == 1 ? 0 : i) * ys;
      xs *= bx[d];
      ys *= by[d];
    }
    std::vector<double> xa(x.begin() + xi * m * k, x.begin() + (xi + 1) * m * k);
    std::vector<double> ya(y.begin() + yi * k * n, y.begin() + (yi + 1) * k * n);
    std::vector<double> c = NaiveMatMul(xa, ya, m, k, n, ax, ay);
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

// xd, yd: the logical shapes [..., m, k] and [..., k, n]; an adjointed
// operand is stored with its last two dimensions swapped.
void CheckBatch(grt_dtype t, std::vector<int64_t> xd, std::vector<int64_t> yd, bool ax, bool ay,
                grt_threadpool* pool) {
  if (ax) std::swap(xd[xd.size() - 1], xd[xd.size() - 2]);
  if (ay) std::swap(yd[yd.size() - 1], yd[yd.size() - 2]);
  std::vector<double> x = Ints(Count(xd), 3), y = Ints(Count(yd), 4);
  FeedRun r("BatchMatMulV2");
  r.AttrType("T", t).AttrBool("adj_x", ax).AttrBool("adj_y", ay);
  r.Input(MakeTensor(t, xd, x)).Input(MakeTensor(t, yd, y));
  ASSERT_OK(r.Run(pool));
  std::vector<int64_t> od;
  std::vector<double> want = NaiveBatch(xd, x, yd, y, ax, ay, &od);
  SCOPED_TRACE(std::string(grt_dtype_name(t)) + " adj_x=" + std::to_string(ax) +
               " adj_y=" + std::to_string(ay));
  ExpectNear(r.Output(0), od, Rounded(t, want), Tolerance(t));
}

TEST(MatMulKernels, BatchMatMulBroadcastsBatchDims) {
  for (grt_dtype t : {GRT_FLOAT32, GRT_FLOAT64, GRT_BFLOAT16, GRT_INT32})
    for (int ax = 0; ax < 2; ax++)
      for (int ay = 0; ay < 2; ay++) {
        CheckBatch(t, {2, 1, 3, 4}, {5, 4, 2}, ax, ay, nullptr);  // [2,5] batches, 3x4 . 4x2
        CheckBatch(t, {3, 5, 5}, {5, 5}, ax, ay, nullptr);        // y shared by every batch
        CheckBatch(t, {4, 6}, {2, 3, 6, 4}, ax, ay, nullptr);     // x shared
      }
}

TEST(MatMulKernels, BatchMatMulOverThreadsMatchesInline) {
  // Many small products go to the pool one batch entry at a time.
  CheckBatch(GRT_FLOAT32, {16, 8, 7, 9}, {16, 1, 9, 5}, false, true, TestPool());
  CheckBatch(GRT_INT64, {16, 8, 7, 9}, {9, 5}, true, false, TestPool());
  CheckBatch(GRT_FLOAT64, {3, 70, 80}, {3, 80, 90}, false, false, TestPool());
}

TEST(MatMulKernels, BatchMatMulRejectsIncompatibleBatches) {
  FeedRun r("BatchMatMulV2");
  r.AttrType("T", GRT_FLOAT32).Input(T_<float>({2, 3, 4}, {0})).Input(T_<float>({5, 4, 2}, {0}));
  grt_status* s = r.Run();
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  EXPECT_STREQ(grt_status_message(s),
               "In[0] and In[1] must have compatible batch dimensions: [2,3,4] vs. [5,4,2]");
  grt_status_free(s);
}

}  // namespace
}  // namespace grt_test
