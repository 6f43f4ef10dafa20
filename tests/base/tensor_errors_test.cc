// The argument checks of tensor construction that the coverage run found
// untested (docs/testing.md, "Uncovered error paths"): grt_tensor_wrap's
// checks, in the order it makes them, and the internal constructors' rank
// and shape checks, each by its message. Every case also checks that
// nothing was made.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "base/allocator.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

namespace {

std::string Take(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "OK";
  grt_status_free(s);
  return m;
}

void ExpectError(grt_status* s, const std::string& says) {
  std::string m = Take(s);
  EXPECT_NE(m.find(says), std::string::npos) << "want '" << says << "', got '" << m << "'";
}

TEST(TensorWrap, EachBadArgumentIsNamed) {
  alignas(8) float data[8] = {};
  int64_t dims[2] = {2, 4};
  grt_tensor* t = reinterpret_cast<grt_tensor*>(&data);  // must be reset to NULL
  ExpectError(grt_tensor_wrap(data, (grt_dtype)999, 2, dims, nullptr, nullptr, &t),
              "grt_tensor_wrap: invalid dtype 999");
  EXPECT_EQ(t, nullptr);
  ExpectError(grt_tensor_wrap(data, GRT_FLOAT32, -1, dims, nullptr, nullptr, &t),
              "tensor rank -1 is outside 0..8");
  ExpectError(grt_tensor_wrap(data, GRT_FLOAT32, GRT_MAX_RANK + 1, dims, nullptr, nullptr, &t),
              "tensor rank 9 is outside 0..8");
  ExpectError(grt_tensor_wrap(data, GRT_FLOAT32, 2, nullptr, nullptr, nullptr, &t),
              "grt_tensor_wrap: rank 2 needs dims");
  int64_t unknown[2] = {2, -1};
  ExpectError(grt_tensor_wrap(data, GRT_FLOAT32, 2, unknown, nullptr, nullptr, &t),
              "a tensor of float32 needs known, non-negative dims");
  ExpectError(grt_tensor_wrap(nullptr, GRT_FLOAT32, 2, dims, nullptr, nullptr, &t),
              "grt_tensor_wrap: NULL data for 32 bytes of float32");
  ExpectError(grt_tensor_wrap(reinterpret_cast<char*>(data) + 1, GRT_FLOAT32, 1, dims, nullptr,
                              nullptr, &t),
              "is not aligned for float32 (needs 4 bytes)");
  EXPECT_EQ(t, nullptr);
  // The boundaries that pass: rank 8, and NULL data for no elements.
  int64_t eight[GRT_MAX_RANK] = {1, 1, 1, 1, 1, 1, 2, 4};
  ASSERT_EQ(Take(grt_tensor_wrap(data, GRT_FLOAT32, GRT_MAX_RANK, eight, nullptr, nullptr, &t)),
            "OK");
  EXPECT_EQ(grt_tensor_num_elements(t), 8);
  grt_tensor_free(t);
  int64_t empty[1] = {0};
  ASSERT_EQ(Take(grt_tensor_wrap(nullptr, GRT_FLOAT32, 1, empty, nullptr, nullptr, &t)), "OK");
  EXPECT_EQ(grt_tensor_num_elements(t), 0);
  grt_tensor_free(t);
}

TEST(TensorNew, RankAndShapeChecksNameTheProblem) {
  grt_allocator* a = grt_host_allocator();
  grt_tensor* t = nullptr;
  grt_shape nine{};
  nine.rank = GRT_MAX_RANK + 1;
  ExpectError(grt_tensor_new_from(a, GRT_FLOAT32, &nine, &t), "rank 9 exceeds the maximum of 8");
  ExpectError(grt_tensor_new_device(a, GRT_FLOAT32, &nine, &t),
              "tensor of float32 needs a known, non-overflowing shape");
  ExpectError(grt_tensor_new_packed(a, GRT_INT32, &nine, &t),
              "a int32 tensor needs a known rank of at most 8, got 9");
  int64_t unknown_dims[2] = {3, -1};
  grt_shape unknown = grt_shape_make(2, unknown_dims);
  ExpectError(grt_tensor_new_device(a, GRT_FLOAT32, &unknown, &t),
              "tensor of float32 needs a known, non-overflowing shape");
  grt_buffer* b = nullptr;
  ASSERT_EQ(Take(grt_buffer_alloc(a, 64, &b)), "OK");
  ExpectError(grt_tensor_new_view(GRT_FLOAT32, &unknown, b, 0, &t),
              "tensor of float32 needs a known, non-overflowing shape");
  grt_buffer_unref(b);
  // 2^61 - 1 doubles would be 2^64 - 8 bytes: refused by the size check
  // (at most INT64_MAX bytes), so the packed block's own overflow check
  // (size plus header) cannot fail where size_t has 64 bits.
  int64_t huge_dims[1] = {((int64_t)1 << 61) - 1};
  grt_shape huge = grt_shape_make(1, huge_dims);
  ExpectError(grt_tensor_new_packed(a, GRT_FLOAT64, &huge, &t),
              "would be 18446744073709551608 bytes, more than the 9223372036854775807");
  EXPECT_EQ(t, nullptr);
}

}  // namespace
