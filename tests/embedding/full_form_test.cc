// grt_json_tensor_format's full form: every element, and float32/float64
// values (NaN and infinities included) read back by
// grt_json_tensor_from_text with the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "grt/grt.h"

namespace {

template <typename T, typename Bits>
void RoundTrip(grt_dtype dtype, Bits (*make)(std::mt19937_64&)) {
  const int64_t n = 4096;
  grt_tensor* t = nullptr;
  ASSERT_EQ(grt_tensor_new(dtype, 1, &n, &t), nullptr);
  Bits* p = static_cast<Bits*>(grt_tensor_data(t));
  std::mt19937_64 rng(7);
  for (int64_t i = 0; i < n; i++) p[i] = make(rng);
  char* text = nullptr;
  size_t len = 0;
  ASSERT_EQ(grt_json_tensor_format(t, 0, &text, &len), nullptr);
  grt_tensor* back = nullptr;
  grt_status* st = grt_json_tensor_from_text(text, len, &back);
  ASSERT_EQ(st, nullptr) << grt_status_message(st);
  const Bits* q = static_cast<const Bits*>(grt_tensor_data(back));
  for (int64_t i = 0; i < n; i++) {
    T a, b;
    memcpy(&a, &p[i], sizeof a);
    memcpy(&b, &q[i], sizeof b);
    if (std::isnan(a)) {
      EXPECT_TRUE(std::isnan(b)) << "element " << i;  // a NaN's payload is not kept
    } else {
      ASSERT_EQ(p[i], q[i]) << "element " << i << ": " << a << " came back as " << b;
    }
  }
  free(text);
  grt_tensor_free(back);
  grt_tensor_free(t);
}

uint32_t AnyFloatBits(std::mt19937_64& rng) {
  // Random bit patterns cover subnormals, NaNs and infinities; a quarter
  // are specials on purpose.
  switch (rng() % 8) {
    case 0:
      return 0x7f800000u;  // +inf
    case 1:
      return 0xff800000u;  // -inf
    case 2:
      return 0x80000000u;  // -0
    default:
      return static_cast<uint32_t>(rng());
  }
}

uint64_t AnyDoubleBits(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return 0x7ff0000000000000ull;
    case 1:
      return 0x7ff8000000000000ull;  // NaN
    default:
      return rng();
  }
}

TEST(FullForm, Float32ReadsBackBitIdentical) {
  RoundTrip<float, uint32_t>(GRT_FLOAT32, AnyFloatBits);
}

TEST(FullForm, Float64ReadsBackBitIdentical) {
  RoundTrip<double, uint64_t>(GRT_FLOAT64, AnyDoubleBits);
}

TEST(FullForm, UniformTensorsListEveryElementUnlessCompact) {
  const int64_t dims[] = {2, 3};
  grt_tensor* t = nullptr;
  ASSERT_EQ(grt_tensor_new(GRT_INT32, 2, dims, &t), nullptr);
  for (int i = 0; i < 6; i++) static_cast<int32_t*>(grt_tensor_data(t))[i] = 7;
  char* text = nullptr;
  ASSERT_EQ(grt_json_tensor_format(t, 0, &text, nullptr), nullptr);
  EXPECT_STREQ(text, "{\"dtype\": \"int32\", \"shape\": [2, 3], \"values\": [7, 7, 7, 7, 7, 7]}");
  free(text);
  ASSERT_EQ(grt_json_tensor_format(t, GRT_JSON_TENSOR_COMPACT, &text, nullptr), nullptr);
  EXPECT_STREQ(text, "{\"dtype\": \"int32\", \"shape\": [2, 3], \"values\": [7]}");
  free(text);
  // grt_json_tensor_to_text keeps the compact form it always had.
  ASSERT_EQ(grt_json_tensor_to_text(t, &text, nullptr), nullptr);
  EXPECT_STREQ(text, "{\"dtype\": \"int32\", \"shape\": [2, 3], \"values\": [7]}");
  free(text);
  grt_tensor_free(t);
}

TEST(FullForm, ReaderRejectsOtherStrings) {
  const char* text = R"({"dtype": "float32", "shape": [1], "values": ["nan"]})";
  grt_tensor* t = nullptr;
  grt_status* st = grt_json_tensor_from_text(text, strlen(text), &t);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(grt_status_code(st), GRT_INVALID_ARGUMENT);
  grt_status_free(st);
  // Integers take no strings at all.
  text = R"({"dtype": "int32", "shape": [1], "values": ["NaN"]})";
  st = grt_json_tensor_from_text(text, strlen(text), &t);
  ASSERT_NE(st, nullptr);
  grt_status_free(st);
}

}  // namespace
