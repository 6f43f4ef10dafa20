/* BroadcastGradientArgs' arithmetic (grt/op_semantics.h): for shapes s0 and
 * s1 that broadcast together, the axes of the result along which each was
 * repeated, so its gradient is summed over them. Follows TensorFlow's
 * BCast: equal shapes reduce over nothing; an axis where both are 1 is
 * reduced for both; otherwise an input is reduced where it is 1. One
 * implementation for the CPU kernel and plugins' kernels. */
#include <stdio.h>

#include "base/status.h"
#include "grt/op_semantics.h"

static void shape_text(const int64_t* d, int32_t n, char* buf, size_t size) {
  size_t at = (size_t)snprintf(buf, size, "[");
  for (int32_t i = 0; i < n && at < size; i++)
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", i ? "," : "", (long long)d[i]);
  if (at < size) snprintf(buf + at, size - at, "]");
}

grt_status* grt_op_broadcast_gradient_args(const int64_t* s0, int32_t n0, const int64_t* s1,
                                           int32_t n1, int64_t* r0, int32_t* n_r0, int64_t* r1,
                                           int32_t* n_r1) {
  *n_r0 = *n_r1 = 0;
  for (int32_t k = 0; k < 2; k++) {
    int32_t n = k ? n1 : n0;
    if (n < 0 || n > GRT_BCAST_ARGS_MAX_DIMS)
      return GRT_ERROR(INVALID_ARGUMENT, "s%d has %d elements, at most %d are supported", (int)k,
                       (int)n, GRT_BCAST_ARGS_MAX_DIMS);
  }
  bool equal = n0 == n1;
  for (int32_t i = 0; i < n0 && equal; i++) equal = s0[i] == s1[i];
  if (equal) return NULL;
  int32_t rank = n0 > n1 ? n0 : n1;
  for (int32_t i = 0; i < rank; i++) {
    /* Aligned from the end; missing leading dims count as 1. */
    int64_t a = i - (rank - n0) >= 0 ? s0[i - (rank - n0)] : 1;
    int64_t b = i - (rank - n1) >= 0 ? s1[i - (rank - n1)] : 1;
    if (a != 1 && b != 1 && a != b) {
      char sa[GRT_BCAST_ARGS_MAX_DIMS * 21 + 3], sb[GRT_BCAST_ARGS_MAX_DIMS * 21 + 3];
      shape_text(s0, n0, sa, sizeof sa);
      shape_text(s1, n1, sb, sizeof sb);
      *n_r0 = *n_r1 = 0;
      return GRT_ERROR(INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s", sa, sb);
    }
    if (a == 1) r0[(*n_r0)++] = i;
    if (b == 1) r1[(*n_r1)++] = i;
  }
  return NULL;
}
