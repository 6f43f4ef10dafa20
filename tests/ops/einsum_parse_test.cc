// The Einsum equation parser's checks that the coverage run found untested
// (docs/testing.md, "Uncovered error paths"), each by its message, and the
// boundaries next to them that parse: the output rank of 8, and "..." over
// an operand of unknown rank.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/shape.h"
#include "base/status.h"
#include "ops/einsum_parse.h"

namespace {

grt_shape Shape(std::vector<int64_t> dims) {
  return grt_shape_make((int32_t)dims.size(), dims.data());
}

std::string Parse(const char* eq, std::vector<grt_shape> shapes, grt_einsum* e) {
  grt_status* s = grt_einsum_parse(eq, (int32_t)shapes.size(), shapes.data(), e);
  std::string m = s ? grt_status_message(s) : "OK";
  grt_status_free(s);
  return m;
}

TEST(EinsumParse, EachBadEquationIsNamed) {
  grt_einsum e;
  struct Case {
    const char* eq;
    std::vector<grt_shape> shapes;
    const char* says;
  } cases[] = {
      {"i.j->i", {Shape({2, 3})}, "Einsum: '.' only as one '...' per operand"},
      {"ij,jk->ik",
       {Shape({2, 3}), Shape({4, 5})},
       "Einsum: dimensions 3 and 4 of one subscript differ"},
      {"ij->i", {Shape({2, 3}), Shape({3})}, "Einsum: the equation names fewer than 2 operands"},
      {"ij->i", {Shape({2, 3, 4})}, "Einsum: operand 0 has rank 3 but 2 subscripts"},
      // With operands, a surplus one reads as a bad subscript (','); only an
      // Einsum of no operands reaches this check.
      {"i->i", {}, "Einsum: the equation names more than 0 operands"},
      {"i,j,k->i", {Shape({2}), Shape({3})}, "Einsum: invalid subscript ','"},
      {"ij->ii", {Shape({2, 3})}, "Einsum: output subscript 'i' is repeated or in no input"},
      {"ij->k", {Shape({2, 3})}, "Einsum: output subscript 'k' is repeated or in no input"},
      // "..." of 7 axes and three letters: 10 output axes, past 8 at a letter.
      {"...a,bc->...abc",
       {Shape({1, 1, 1, 1, 1, 1, 1, 2}), Shape({3, 4})},
       "Einsum: output rank too large"},
      // Eight letters, then "..." of one axis: past 8 inside the "...".
      {"abcdefgh,...x->abcdefgh...",
       {Shape({1, 1, 1, 1, 1, 1, 1, 1}), Shape({2, 3})},
       "Einsum: output rank too large"},
  };
  for (const Case& c : cases) {
    std::string m = Parse(c.eq, c.shapes, &e);
    EXPECT_NE(m.find(c.says), std::string::npos) << c.eq << ": " << m;
  }
}

TEST(EinsumParse, BoundariesThatParse) {
  grt_einsum e;
  // Eight output axes: the most a tensor has.
  ASSERT_EQ(Parse("abcdefgh->hgfedcba", {Shape({1, 2, 1, 2, 1, 2, 1, 2})}, &e), "OK");
  EXPECT_EQ(e.n_out, 8);
  // "..." over an operand of unknown rank: the output rank is unknown too.
  grt_shape unknown = {};
  unknown.rank = -1;
  ASSERT_EQ(Parse("...i->...i", {unknown}, &e), "OK");
  EXPECT_EQ(e.n_out, -1);
  // An axis of size 1 under "..." broadcasts against a larger one.
  ASSERT_EQ(Parse("...i,...i->...i", {Shape({1, 3}), Shape({4, 3})}, &e), "OK");
  EXPECT_EQ(e.n_out, 2);
  EXPECT_EQ(e.size[GRT_EINSUM_LETTERS], 4);
}

}  // namespace
