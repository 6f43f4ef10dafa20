#include "base/checked.h"

#include <inttypes.h>
#include <stdio.h>

#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"

bool grt_checked_num_elements(int32_t rank, const int64_t* dims, int64_t* out) {
  int64_t n = 1;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] < 0 || !grt_checked_mul_i64(n, dims[i], &n)) return false;
  }
  *out = n;
  return true;
}

bool grt_checked_tensor_bytes(int64_t n, size_t elem_size, size_t* out) {
  size_t count, bytes;
  if (!grt_checked_i64_to_size(n, &count) || !grt_checked_mul_size(count, elem_size, &bytes) ||
      (uint64_t)bytes > GRT_MAX_TENSOR_BYTES)
    return false;
  *out = bytes;
  return true;
}

/* The exact size, as a decimal string, of a product that overflowed 64 bits:
 * 128-bit arithmetic is enough for any GRT_MAX_RANK dims below 2^63 only
 * when it does not overflow too, so this says "more than 2^64" past that. */
static void describe_bytes(const grt_shape* shape, size_t esize, char* buf, size_t size) {
  unsigned __int128 p = esize;
  for (int32_t i = 0; i < shape->rank; i++) {
    unsigned __int128 d = (unsigned __int128)shape->dims[i];
    if (d && p > ~(unsigned __int128)0 / d) {
      snprintf(buf, size, "more than 2^127 bytes");
      return;
    }
    p *= d;
  }
  /* Print the 128-bit value in decimal. */
  char digits[48];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(p % 10));
    p /= 10;
  } while (p && n < (int)sizeof digits);
  size_t k = 0;
  while (n > 0 && k + 1 < size) buf[k++] = digits[--n];
  if (k + 7 < size) {
    snprintf(buf + k, size - k, " bytes");
  } else if (size) {
    buf[k < size ? k : size - 1] = '\0';
  }
}

grt_status* grt_checked_shape_bytes(grt_dtype dtype, const grt_shape* shape, size_t* out) {
  char s[GRT_SHAPE_STR_MAX];
  if (!grt_dtype_valid(dtype))
    return GRT_ERROR(INVALID_ARGUMENT, "a tensor of invalid dtype %d", (int)dtype);
  if (shape->rank < 0 || shape->rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "a %s tensor needs a known rank of at most %d, got %d",
                     grt_dtype_name(dtype), GRT_MAX_RANK, (int)shape->rank);
  for (int32_t i = 0; i < shape->rank; i++)
    if (shape->dims[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT,
                       "a %s tensor of shape %s has a negative or unknown dimension",
                       grt_dtype_name(dtype), grt_shape_str(shape, s, sizeof s));
  int64_t n;
  size_t esize = grt_dtype_size(dtype);
  if (grt_checked_num_elements(shape->rank, shape->dims, &n) &&
      grt_checked_tensor_bytes(n, esize, out))
    return NULL;
  char bytes[64];
  describe_bytes(shape, esize, bytes, sizeof bytes);
  return GRT_ERROR(INVALID_ARGUMENT,
                   "a %s tensor of shape %s would be %s, more than the %" PRIu64
                   " a tensor may have (its size overflows)",
                   grt_dtype_name(dtype), grt_shape_str(shape, s, sizeof s), bytes,
                   GRT_MAX_TENSOR_BYTES);
}
