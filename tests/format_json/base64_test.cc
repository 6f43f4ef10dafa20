// graph_format/base64.h: RFC 4648 test vectors and strict decoding.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "graph_format/base64.h"

namespace {

std::string Encode(const std::string& in) {
  size_t n;
  EXPECT_TRUE(grt_base64_encoded_len(in.size(), &n));
  std::string out(n, '\0');
  grt_base64_encode(in.data(), in.size(), &out[0]);
  return out;
}

// Decodes `text`; on failure returns "bad@OFFSET".
std::string Decode(const std::string& text) {
  size_t n, bad = 0;
  if (!grt_base64_decoded_len(text.data(), text.size(), &n)) return "bad@len";
  std::string out(n, '\0');
  if (!grt_base64_decode(text.data(), text.size(), &out[0], &bad))
    return "bad@" + std::to_string(bad);
  return out;
}

TEST(Base64, Rfc4648Vectors) {
  const char* vectors[][2] = {{"", ""},
                              {"f", "Zg=="},
                              {"fo", "Zm8="},
                              {"foo", "Zm9v"},
                              {"foob", "Zm9vYg=="},
                              {"fooba", "Zm9vYmE="},
                              {"foobar", "Zm9vYmFy"}};
  for (auto& v : vectors) {
    EXPECT_EQ(Encode(v[0]), v[1]);
    EXPECT_EQ(Decode(v[1]), v[0]);
  }
}

TEST(Base64, AllByteValuesRoundTrip) {
  std::string all;
  for (int i = 0; i < 256; i++) all += static_cast<char>(i);
  std::mt19937 rng(3);
  for (size_t len = 0; len < 300; len++) {
    std::string s;
    for (size_t i = 0; i < len; i++) s += all[rng() % 256];
    EXPECT_EQ(Decode(Encode(s)), s);
  }
  EXPECT_EQ(Encode("\xfb\xff"), "+/8=");
}

TEST(Base64, RejectsMalformedText) {
  EXPECT_EQ(Decode("Zg="), "bad@len");  // not a multiple of 4
  EXPECT_EQ(Decode("Zm9v\n"), "bad@len");
  EXPECT_EQ(Decode("Zm"), "bad@len");  // even but not a multiple of 4
  EXPECT_EQ(Decode("Zm9vYm"), "bad@len");
  EXPECT_EQ(Decode("Zm 9"), "bad@2");      // whitespace
  EXPECT_EQ(Decode("Zm-v"), "bad@2");      // URL-safe alphabet is not ours
  EXPECT_EQ(Decode("Z==="), "bad@1");      // '=' too early
  EXPECT_EQ(Decode("Zg==Zg=="), "bad@2");  // padding before the end
  EXPECT_EQ(Decode("Zm=v"), "bad@2");      // '=' then data
  EXPECT_EQ(Decode("Zh=="), "bad@1");      // stray bits below the byte
  EXPECT_EQ(Decode("Zm9="), "bad@2");
}

TEST(Base64, CheckingWithoutOutputFindsTheSameFaults) {
  size_t bad = 99;
  EXPECT_TRUE(grt_base64_decode("Zm9vYmE=", 8, nullptr, &bad));
  EXPECT_FALSE(grt_base64_decode("Zm9v YE=", 8, nullptr, &bad));
  EXPECT_EQ(bad, 4u);
  EXPECT_FALSE(grt_base64_decode("Zh==", 4, nullptr, &bad));
  EXPECT_EQ(bad, 1u);
}

}  // namespace
