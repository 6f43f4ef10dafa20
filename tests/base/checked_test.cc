// base/checked.h: each helper against exact 128-bit arithmetic, on the
// boundary values where 64-bit products and sums wrap.
#include "base/checked.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/shape.h"
#include "base/status.h"

namespace {

using i128 = __int128;
using u128 = unsigned __int128;

const std::vector<int64_t> kI64 = {0,
                                   1,
                                   -1,
                                   2,
                                   -2,
                                   3037000499,
                                   3037000500,
                                   -3037000500,
                                   INT32_MAX,
                                   INT32_MIN,
                                   INT64_MAX,
                                   INT64_MIN,
                                   INT64_MAX / 2,
                                   INT64_MIN / 2 - 1,
                                   (int64_t)1 << 32,
                                   ((int64_t)1 << 62) + 1};
const std::vector<size_t> kSize = {0,
                                   1,
                                   2,
                                   4096,
                                   SIZE_MAX,
                                   SIZE_MAX - 1,
                                   SIZE_MAX / 2,
                                   SIZE_MAX / 2 + 1,
                                   (size_t)1 << 32,
                                   ((size_t)1 << 32) - 1,
                                   (size_t)4294967297ull};

bool FitsI64(i128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

TEST(Checked, AddI64MatchesExactSum) {
  for (int64_t a : kI64)
    for (int64_t b : kI64) {
      int64_t out = 0;
      i128 exact = (i128)a + b;
      ASSERT_EQ(grt_checked_add_i64(a, b, &out), FitsI64(exact)) << a << " + " << b;
      if (FitsI64(exact)) {
        EXPECT_EQ((i128)out, exact);
      }
    }
}

TEST(Checked, MulI64MatchesExactProduct) {
  for (int64_t a : kI64)
    for (int64_t b : kI64) {
      int64_t out = 0;
      i128 exact = (i128)a * b;
      ASSERT_EQ(grt_checked_mul_i64(a, b, &out), FitsI64(exact)) << a << " * " << b;
      if (FitsI64(exact)) {
        EXPECT_EQ((i128)out, exact);
      }
    }
}

TEST(Checked, AddSizeMatchesExactSum) {
  for (size_t a : kSize)
    for (size_t b : kSize) {
      size_t out = 0;
      u128 exact = (u128)a + b;
      ASSERT_EQ(grt_checked_add_size(a, b, &out), exact <= SIZE_MAX) << a << " + " << b;
      if (exact <= SIZE_MAX) {
        EXPECT_EQ((u128)out, exact);
      }
    }
}

TEST(Checked, MulSizeMatchesExactProduct) {
  for (size_t a : kSize)
    for (size_t b : kSize) {
      size_t out = 0;
      u128 exact = (u128)a * b;
      ASSERT_EQ(grt_checked_mul_size(a, b, &out), exact <= SIZE_MAX) << a << " * " << b;
      if (exact <= SIZE_MAX) {
        EXPECT_EQ((u128)out, exact);
      }
    }
}

TEST(Checked, I64ToSizeRejectsNegatives) {
  for (int64_t v : kI64) {
    size_t out = 7;
    ASSERT_EQ(grt_checked_i64_to_size(v, &out), v >= 0) << v;
    if (v >= 0) {
      EXPECT_EQ(out, (size_t)v);
    }
  }
}

TEST(Checked, RangeNeverFormsTheWrappedSum) {
  for (size_t off : kSize)
    for (size_t len : kSize)
      for (size_t size : kSize)
        ASSERT_EQ(grt_checked_range(off, len, size), (u128)off + len <= size)
            << off << "+" << len << " in " << size;
}

TEST(Checked, NumElementsIsTheExactProductOrFails) {
  const std::vector<std::vector<int64_t>> shapes = {{},
                                                    {0},
                                                    {5},
                                                    {2, 3, 4},
                                                    {0, INT64_MAX},
                                                    {INT64_MAX},
                                                    {-1},
                                                    {3, -1},
                                                    {2147483647, 2147483647},
                                                    {3037000500, 3037000500},
                                                    {4294967296, 4294967296},
                                                    {2, 2, 2, 2, 2, 2, 2, 2}};
  for (const auto& dims : shapes) {
    i128 exact = 1;
    bool ok = true;
    for (int64_t d : dims) {
      if (d < 0) ok = false;
      exact *= d;
      if (!FitsI64(exact)) ok = false;
    }
    int64_t out = -5;
    ASSERT_EQ(grt_checked_num_elements((int32_t)dims.size(), dims.data(), &out), ok)
        << "rank " << dims.size();
    if (ok) {
      EXPECT_EQ((i128)out, exact);
    }
  }
}

TEST(Checked, TensorBytesStopsAtInt64Max) {
  size_t out = 0;
  EXPECT_TRUE(grt_checked_tensor_bytes(0, 4, &out));
  EXPECT_EQ(out, 0u);
  EXPECT_TRUE(grt_checked_tensor_bytes(INT64_MAX / 8, 8, &out));
  EXPECT_EQ((u128)out, (u128)(INT64_MAX / 8) * 8);
  EXPECT_TRUE(grt_checked_tensor_bytes(INT64_MAX, 1, &out));
  EXPECT_FALSE(grt_checked_tensor_bytes(INT64_MAX / 8 + 1, 8, &out));
  EXPECT_FALSE(grt_checked_tensor_bytes(-1, 1, &out));
  // 2147483647^2 floats: fits size_t (18446744056529682436) but not int64.
  EXPECT_FALSE(grt_checked_tensor_bytes((int64_t)2147483647 * 2147483647, 4, &out));
}

TEST(Checked, ShapeBytesNamesTheDtypeAndShapeOnOverflow) {
  const int64_t dims[] = {2147483647, 2147483647};
  grt_shape s = grt_shape_make(2, dims);
  size_t out = 0;
  grt_status* st = grt_checked_shape_bytes(GRT_FLOAT32, &s, &out);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
  std::string msg = grt_status_message(st);
  EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2147483647,2147483647]"), std::string::npos) << msg;
  // The exact size, computed here in 128 bits.
  u128 exact = (u128)2147483647 * 2147483647 * 4;
  std::string digits;
  for (u128 v = exact; v; v /= 10) digits.insert(digits.begin(), (char)('0' + (int)(v % 10)));
  EXPECT_NE(msg.find(digits + " bytes"), std::string::npos) << msg;
  grt_status_free(st);

  const int64_t ok_dims[] = {3, 5};
  s = grt_shape_make(2, ok_dims);
  ASSERT_EQ(grt_checked_shape_bytes(GRT_FLOAT64, &s, &out), nullptr);
  EXPECT_EQ(out, 3u * 5u * 8u);

  const int64_t unknown[] = {3, -1};
  s = grt_shape_make(2, unknown);
  st = grt_checked_shape_bytes(GRT_FLOAT32, &s, &out);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
  grt_status_free(st);
}

}  // namespace
