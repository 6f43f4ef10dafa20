// base/utf8.h: RFC 3629's table at its edges. Each lead-byte row is tried at
// its first and last lead byte with the first continuation byte at both ends
// of its range, and just past each edge, so a bound off by one anywhere is a
// failure (the JSON and .grt string checks go through here but hold few
// non-ASCII cases).
#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include "base/utf8.h"
}

namespace {

struct Case {
  std::string bytes;
  bool valid;
  size_t bad_at;  // when not valid
};

std::string B(std::initializer_list<int> v) {
  std::string s;
  for (int c : v) s.push_back(static_cast<char>(c));
  return s;
}

TEST(Utf8, EdgesOfEveryRow) {
  const std::vector<Case> cases = {
      {B({0x00}), true, 0},
      {B({0x7F}), true, 0},
      {B({0x80}), false, 0},        // a continuation byte alone
      {B({0xC1, 0xBF}), false, 0},  // overlong two-byte form
      {B({0xC2, 0x80}), true, 0},
      {B({0xDF, 0xBF}), true, 0},
      {B({0xDF, 0xC0}), false, 0},
      {B({0xDF, 0x7F}), false, 0},
      {B({0xE0, 0xA0, 0x80}), true, 0},
      {B({0xE0, 0x9F, 0xBF}), false, 0},  // overlong three-byte form
      {B({0xE0, 0xBF, 0xBF}), true, 0},
      {B({0xE1, 0x80, 0x80}), true, 0},
      {B({0xEC, 0xBF, 0xBF}), true, 0},
      {B({0xED, 0x80, 0x80}), true, 0},
      {B({0xED, 0x9F, 0xBF}), true, 0},
      {B({0xED, 0xA0, 0x80}), false, 0},  // a surrogate
      {B({0xEE, 0x80, 0x80}), true, 0},
      {B({0xEF, 0xBF, 0xBF}), true, 0},
      {B({0xEF, 0xBF, 0xC0}), false, 0},
      {B({0xF0, 0x90, 0x80, 0x80}), true, 0},
      {B({0xF0, 0x8F, 0xBF, 0xBF}), false, 0},  // overlong four-byte form
      {B({0xF0, 0xBF, 0xBF, 0xBF}), true, 0},
      {B({0xF1, 0x80, 0x80, 0x80}), true, 0},
      {B({0xF3, 0xBF, 0xBF, 0xBF}), true, 0},
      {B({0xF4, 0x80, 0x80, 0x80}), true, 0},
      {B({0xF4, 0x8F, 0xBF, 0xBF}), true, 0},   // U+10FFFF
      {B({0xF4, 0x90, 0x80, 0x80}), false, 0},  // above U+10FFFF
      {B({0xF5, 0x80, 0x80, 0x80}), false, 0},
      {B({0xFF}), false, 0},
      {B({'a', 0xE1, 0x80}), false, 1},  // cut short
      {B({'a', 'b', 0xC3, 0xA9, 0xFE}), false, 4},
  };
  for (const Case& c : cases) {
    std::string hex;
    for (unsigned char b : c.bytes) hex += " " + std::to_string(b);
    size_t bad_at = 99;
    EXPECT_EQ(grt_utf8_valid(c.bytes.data(), c.bytes.size(), &bad_at), c.valid) << hex;
    if (!c.valid) EXPECT_EQ(bad_at, c.bad_at) << hex;
  }
}

}  // namespace
