// grt_op_conv_depths (grt/op_semantics.h), the input/filter depth check
// that convolution shape functions and kernels share: its errors, which the
// coverage run found untested (docs/testing.md, "Uncovered error paths"),
// each by its message, and the groups and output depth it gives where the
// depths agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/shape.h"
#include "base/status.h"
#include "grt/op_semantics.h"

namespace {

grt_shape Shape(std::vector<int64_t> dims) {
  return grt_shape_make((int32_t)dims.size(), dims.data());
}

std::string Depths(std::vector<int64_t> in, std::vector<int64_t> filter, bool nchw, bool depthwise,
                   int64_t* groups, int64_t* out) {
  grt_shape a = Shape(in), b = Shape(filter);
  grt_status* s = grt_op_conv_depths(&a, &b, nchw, depthwise, groups, out);
  std::string m = s ? grt_status_message(s) : "OK";
  grt_status_free(s);
  return m;
}

TEST(ConvDepths, EachMismatchIsNamed) {
  int64_t g = 0, d = 0;
  struct Case {
    std::vector<int64_t> in, filter;
    bool nchw, depthwise;
    const char* says;
  } cases[] = {
      {{1, 4, 4}, {3, 3, 2, 2}, false, false, "input must be 4-dimensional: [1,4,4]"},
      {{1, 4, 4, 2}, {3, 3, 2}, false, false, "filter must be 4-dimensional: [3,3,2]"},
      {{1, 4, 4, 3},
       {3, 3, 2, 2},
       false,
       true,
       "input and filter must have the same depth: 3 vs 2"},
      {{1, 4, 4, 6},
       {3, 3, 4, 2},
       false,
       false,
       "input depth must be evenly divisible by filter depth: 6 vs 4"},
      // NCHW: the input's depth is its second dimension.
      {{1, 6, 4, 4},
       {3, 3, 0, 2},
       true,
       false,
       "input depth must be evenly divisible by filter depth: 6 vs 0"},
      {{1, 4, 4, 6},
       {3, 3, 2, 4},
       false,
       false,
       "output depth 4 is not a multiple of the number of groups 3"},
  };
  for (const Case& c : cases) {
    std::string m = Depths(c.in, c.filter, c.nchw, c.depthwise, &g, &d);
    EXPECT_NE(m.find(c.says), std::string::npos) << c.says << "\ngot: " << m;
  }
}

TEST(ConvDepths, GroupsAndOutputDepth) {
  int64_t g = 0, d = 0;
  ASSERT_EQ(Depths({1, 4, 4, 6}, {3, 3, 2, 9}, false, false, &g, &d), "OK");
  EXPECT_EQ(g, 3);
  EXPECT_EQ(d, 9);
  ASSERT_EQ(Depths({1, 6, 4, 4}, {3, 3, 6, 2}, true, true, &g, &d), "OK");
  EXPECT_EQ(g, 6);
  EXPECT_EQ(d, 12);
  // An empty input (depth 0) is one group.
  ASSERT_EQ(Depths({1, 4, 4, 0}, {3, 3, 2, 4}, false, false, &g, &d), "OK");
  EXPECT_EQ(g, 1);
  EXPECT_EQ(d, 4);
}

}  // namespace
