/* Checked size arithmetic. Every element count, byte size and offset grt
 * computes from data it was given (a shape in a file, a feed, a constant
 * input) goes through these, so an overflow is reported as an error and is
 * never a wrapped number passed on to an allocator or a memcpy.
 *
 * Each returns true with the result in *out, or false on overflow (then
 * *out is unspecified). */
#ifndef GRT_BASE_CHECKED_H_
#define GRT_BASE_CHECKED_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest byte size of one tensor: INT64_MAX, so byte sizes and offsets
 * fit signed and unsigned arithmetic alike (ptrdiff_t, off_t, int64_t). */
#define GRT_MAX_TENSOR_BYTES ((uint64_t)INT64_MAX)

static inline bool grt_checked_add_i64(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
static inline bool grt_checked_mul_i64(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
static inline bool grt_checked_add_size(size_t a, size_t b, size_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
static inline bool grt_checked_mul_size(size_t a, size_t b, size_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
/* A non-negative int64 as a size_t (false for a negative value). */
static inline bool grt_checked_i64_to_size(int64_t v, size_t* out) {
  if (v < 0 || (uint64_t)v > SIZE_MAX) return false;
  *out = (size_t)v;
  return true;
}
/* offset + len <= size, without forming offset + len. */
static inline bool grt_checked_range(size_t offset, size_t len, size_t size) {
  return offset <= size && len <= size - offset;
}

/* The product of `rank` dims, each >= 0; false when one is negative or the
 * product overflows int64. rank 0 gives 1. */
bool grt_checked_num_elements(int32_t rank, const int64_t* dims, int64_t* out);

/* n elements of `elem_size` bytes; false when n < 0 or the product passes
 * GRT_MAX_TENSOR_BYTES. */
bool grt_checked_tensor_bytes(int64_t n, size_t elem_size, size_t* out);

/* The byte size of a tensor of `dtype` and fully known `shape`; on overflow
 * (or an unknown or negative dim) an INVALID_ARGUMENT that names the dtype
 * and the shape, e.g. "a float32 tensor of shape [2147483647,2147483647]
 * would be 18446744056529682436 bytes, more than the 9223372036854775807
 * a tensor may have". The caller puts the node in front. */
GRT_MUST_USE grt_status* grt_checked_shape_bytes(grt_dtype dtype, const grt_shape* shape,
                                                 size_t* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_CHECKED_H_ */
