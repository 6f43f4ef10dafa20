// Shortest float spelling (graph_format/json_float.h): known values, and
// every float16/bfloat16 plus samples of float32/float64 checked both for
// reading back exactly and for being as short as possible.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "graph_format/json_float.h"
#include "base/dtype.h"

namespace {

std::string Fmt(grt_dtype t, double v) {
  char buf[GRT_JSON_FLOAT_MAX];
  size_t n = grt_json_format_float(t, v, buf);
  EXPECT_EQ(n, strlen(buf));
  return std::string(buf, n);
}

std::string Half(uint16_t h) { return Fmt(GRT_FLOAT16, grt_half_to_float(h)); }
std::string Bf16(uint16_t b) { return Fmt(GRT_BFLOAT16, grt_bfloat16_to_float(b)); }

// The bytes `v` has in dtype t, as the reader stores it.
std::string Bits(grt_dtype t, double v) {
  unsigned char b[8] = {0};
  grt_dtype_store_double(t, b, 0, v);
  return std::string(reinterpret_cast<char*>(b), grt_dtype_size(t));
}

bool ReadsBack(grt_dtype t, const std::string& text, double v) {
  return Bits(t, strtod(text.c_str(), nullptr)) == Bits(t, v);
}

int SignificantDigits(const std::string& s) {
  std::string m = s.substr(0, s.find('e'));
  std::string d;
  for (char c : m)
    if (c >= '0' && c <= '9') d += c;
  size_t first = d.find_first_not_of('0');
  if (first == std::string::npos) return 1;
  d = d.substr(first);
  while (d.size() > 1 && d.back() == '0') d.pop_back();
  return static_cast<int>(d.size());
}

// True when some decimal with fewer significant digits than `digits` reads
// back as v. Such decimals fill an interval around v, so it is enough to
// try the two (digits-1)-digit decimals either side of v.
bool ShorterExists(grt_dtype t, double v, int digits) {
  if (digits <= 1) return false;
  int p = digits - 1;
  char sci[64];
  snprintf(sci, sizeof sci, "%.*e", p - 1, std::fabs(v));
  long long m = 0;
  const char* s = sci;
  for (; *s != 'e'; s++)
    if (*s >= '0' && *s <= '9') m = m * 10 + (*s - '0');
  int e = atoi(s + 1) - (p - 1);
  for (long long c : {m - 1, m, m + 1}) {
    if (c <= 0) continue;
    char text[64];
    snprintf(text, sizeof text, "%s%llde%d", v < 0 ? "-" : "", c, e);
    if (ReadsBack(t, text, v)) return true;
  }
  return false;
}

void CheckShortestRoundTrip(grt_dtype t, double v) {
  std::string s = Fmt(t, v);
  ASSERT_FALSE(s.empty()) << v;
  EXPECT_TRUE(ReadsBack(t, s, v)) << grt_dtype_name(t) << " " << s;
  EXPECT_FALSE(ShorterExists(t, v, SignificantDigits(s))) << grt_dtype_name(t) << " " << s;
}

TEST(JsonFloat, Float32KnownSpellings) {
  EXPECT_EQ(Fmt(GRT_FLOAT32, 0.1f), "0.1");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 1e-8f), "1e-8");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 3.4028235e38f), "3.4028235e38");
  EXPECT_EQ(Fmt(GRT_FLOAT32, FLT_MAX), "3.4028235e38");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 1.0f), "1");
  EXPECT_EQ(Fmt(GRT_FLOAT32, -2.5f), "-2.5");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 0.0f), "0");
  EXPECT_EQ(Fmt(GRT_FLOAT32, -0.0f), "-0.0");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 1e-45f), "1e-45");  // smallest subnormal
  EXPECT_EQ(Fmt(GRT_FLOAT32, 16777216.0f), "16777216");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 123456789.0f), "123456790");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 0.000001f), "0.000001");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 1e-7f), "1e-7");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 1e15f), "1e15");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 1e14f), "100000000000000");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 1.5e20f), "1.5e20");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 0.3f), "0.3");
  EXPECT_EQ(Fmt(GRT_FLOAT32, 3.14159265f), "3.1415927");
}

TEST(JsonFloat, Float64UsesUpTo17Digits) {
  EXPECT_EQ(Fmt(GRT_FLOAT64, 0.1), "0.1");
  EXPECT_EQ(Fmt(GRT_FLOAT64, 0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Fmt(GRT_FLOAT64, 1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(Fmt(GRT_FLOAT64, 5e-324), "5e-324");
  EXPECT_EQ(Fmt(GRT_FLOAT64, DBL_MAX), "1.7976931348623157e308");
  EXPECT_EQ(Fmt(GRT_FLOAT64, (double)0.1f), "0.10000000149011612");
  EXPECT_EQ(Fmt(GRT_FLOAT64, 9007199254740992.0), "9.007199254740992e15");  // 2^53
  EXPECT_EQ(Fmt(GRT_FLOAT64, 123456789012345.0), "123456789012345");
  EXPECT_EQ(Fmt(GRT_FLOAT64, -1e-300), "-1e-300");
}

TEST(JsonFloat, HalfPrecisionShortestThrough16Bits) {
  EXPECT_EQ(Half(0x3C00), "1");
  EXPECT_EQ(Half(0x2E66), "0.1");     // 0.0999755859375
  EXPECT_EQ(Half(0x3555), "0.3333");  // 0.333251953125
  EXPECT_EQ(Half(0x7BFF), "65500");   // 65504: 655e2 already reads back as it
  EXPECT_EQ(Half(0x0001), "6e-8");    // smallest subnormal 5.96e-8
  EXPECT_EQ(Half(0x8000), "-0.0");
  EXPECT_EQ(Bf16(0x3DCD), "0.1");  // 0.10009765625
  EXPECT_EQ(Bf16(0x3F80), "1");
  EXPECT_EQ(Bf16(0x7F7F), "3.39e38");  // largest finite bfloat16
}

TEST(JsonFloat, NonFiniteHasNoNumber) {
  char buf[GRT_JSON_FLOAT_MAX];
  EXPECT_EQ(grt_json_format_float(GRT_FLOAT32, NAN, buf), 0u);
  EXPECT_EQ(grt_json_format_float(GRT_FLOAT64, INFINITY, buf), 0u);
  EXPECT_EQ(grt_json_format_float(GRT_FLOAT16, -INFINITY, buf), 0u);
}

TEST(JsonFloat, EveryHalfAndBfloat16IsShortestAndExact) {
  for (uint32_t h = 0; h < 0x10000; h++) {
    double v = grt_half_to_float(static_cast<uint16_t>(h));
    if (std::isfinite(v)) CheckShortestRoundTrip(GRT_FLOAT16, v);
    double b = grt_bfloat16_to_float(static_cast<uint16_t>(h));
    if (std::isfinite(b)) CheckShortestRoundTrip(GRT_BFLOAT16, b);
    if (HasFailure()) return;
  }
}

TEST(JsonFloat, SampledFloat32AndFloat64AreShortestAndExact) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 40000; i++) {
    uint64_t r = rng();
    uint32_t u = static_cast<uint32_t>(r);
    float f;
    memcpy(&f, &u, 4);
    if (std::isfinite(f)) CheckShortestRoundTrip(GRT_FLOAT32, f);
    double d;
    memcpy(&d, &r, 8);
    if (std::isfinite(d)) CheckShortestRoundTrip(GRT_FLOAT64, d);
    if (HasFailure()) return;
  }
}

// The plain search the fast one must agree with to the character: for p =
// 1..17 digits, the correctly rounded p-digit decimal (printf's), then its
// neighbours one unit below and above, each checked through strtod; the
// first that reads back wins. Same layout rules as the product.
std::string Reference(grt_dtype t, double v) {
  if (v == 0) return std::signbit(v) ? "-0.0" : "0";
  double a = std::fabs(v);
  for (int p = 1; p <= 17; p++) {
    char sci[64];
    snprintf(sci, sizeof sci, "%.*e", p - 1, a);
    unsigned long long m = 0;
    const char* s = sci;
    for (; *s != 'e'; s++)
      if (*s >= '0' && *s <= '9') m = m * 10 + (*s - '0');
    int e = atoi(s + 1) - (p - 1);
    for (unsigned long long c : {m, m - 1, m + 1}) {
      if (c == 0) continue;
      char text[64];
      snprintf(text, sizeof text, "%s%llue%d", std::signbit(v) ? "-" : "", c, e);
      if (!ReadsBack(t, text, v)) continue;
      std::string digits = std::to_string(c);
      int k = e + static_cast<int>(digits.size());
      while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
      int n = static_cast<int>(digits.size());
      std::string out = std::signbit(v) ? "-" : "";
      if (n <= k && k <= 15) {
        out += digits + std::string(k - n, '0');
      } else if (0 < k && k < n) {
        out += digits.substr(0, k) + "." + digits.substr(k);
      } else if (-6 < k && k <= 0) {
        out += "0." + std::string(-k, '0') + digits;
      } else {
        out += digits.substr(0, 1);
        if (n > 1) out += "." + digits.substr(1);
        out += "e" + std::to_string(k - 1);
      }
      return out;
    }
  }
  return "";
}

// The fast path (decisions without strtod, rounding from 17 digits once)
// spells every value exactly as the plain search does: random bit patterns,
// values near ties and powers of ten, and the ends of each dtype's range.
TEST(JsonFloat, FastSearchSpellsAsThePlainSearch) {
  std::mt19937_64 rng(11);
  std::vector<double> f32, f64;
  for (int i = 0; i < 20000; i++) {
    uint64_t r = rng();
    uint32_t u = static_cast<uint32_t>(r >> 7);
    float f;
    memcpy(&f, &u, 4);
    if (std::isfinite(f)) f32.push_back(f);
    double d;
    memcpy(&d, &r, 8);
    if (std::isfinite(d)) f64.push_back(d);
  }
  for (int e = -45; e <= 38; e++)
    for (double k : {1.0, 2.5, 5.0, 9.5, 9.99, 1.25, 0.5}) {
      float f = static_cast<float>(k * std::pow(10.0, e));
      for (int step = -3; step <= 3; step++) {
        float g = f;
        for (int j = 0; j < std::abs(step); j++) g = std::nextafter(g, step < 0 ? 0.0f : INFINITY);
        if (std::isfinite(g)) f32.push_back(g);
      }
    }
  for (int e = -323; e <= 308; e++) {
    double d = 1.5 * std::pow(10.0, e);
    for (int step = -2; step <= 2; step++) {
      double g = d;
      for (int j = 0; j < std::abs(step); j++) g = std::nextafter(g, step < 0 ? 0.0 : INFINITY);
      if (std::isfinite(g)) f64.push_back(g);
    }
  }
  for (float f : {FLT_MAX, FLT_MIN, FLT_TRUE_MIN, std::nextafter(FLT_MAX, 0.0f), 16777217.0f, 0.1f})
    f32.push_back(f);
  for (double d :
       {DBL_MAX, DBL_MIN, DBL_TRUE_MIN, std::nextafter(DBL_MAX, 0.0), 9007199254740993.0})
    f64.push_back(d);
  for (double v : f32) {
    ASSERT_EQ(Fmt(GRT_FLOAT32, v), Reference(GRT_FLOAT32, v)) << "float32 " << v;
    ASSERT_EQ(Fmt(GRT_FLOAT32, -v), Reference(GRT_FLOAT32, -v)) << "float32 " << -v;
  }
  for (double v : f64) ASSERT_EQ(Fmt(GRT_FLOAT64, v), Reference(GRT_FLOAT64, v)) << "float64 " << v;
}

// Powers of two sit where the interval that reads back is lopsided, the
// case a plain "%.*e" search gets wrong.
TEST(JsonFloat, PowersOfTwoAreShortest) {
  for (int e = -149; e <= 127; e++) CheckShortestRoundTrip(GRT_FLOAT32, std::ldexp(1.0, e));
  for (int e = -1074; e <= 1023; e++) CheckShortestRoundTrip(GRT_FLOAT64, std::ldexp(1.0, e));
}

}  // namespace
