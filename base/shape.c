#include "base/shape.h"

#include "base/checked.h"

#include <stdio.h>
#include <string.h>

grt_shape grt_shape_make(int32_t rank, const int64_t* dims) {
  grt_shape s = {0};
  s.rank = rank;
  for (int32_t i = 0; i < rank && i < GRT_MAX_RANK; i++) s.dims[i] = dims[i];
  return s;
}

bool grt_shape_fully_known(const grt_shape* s) {
  if (s->rank < 0) return false;
  for (int32_t i = 0; i < s->rank; i++)
    if (s->dims[i] < 0) return false;
  return true;
}

int64_t grt_shape_num_elements(const grt_shape* s) {
  if (!grt_shape_fully_known(s)) return -1;
  int64_t n;
  return grt_checked_num_elements(s->rank, s->dims, &n) ? n : -2;
}

bool grt_shape_equal(const grt_shape* a, const grt_shape* b) {
  if (a->rank != b->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

bool grt_shape_compatible(const grt_shape* a, const grt_shape* b) {
  grt_shape tmp;
  return grt_shape_merge(a, b, &tmp);
}

bool grt_shape_merge(const grt_shape* a, const grt_shape* b, grt_shape* out) {
  if (a->rank < 0) {
    *out = *b;
    return true;
  }
  if (b->rank < 0) {
    *out = *a;
    return true;
  }
  if (a->rank != b->rank) return false;
  grt_shape r = *a;
  for (int32_t i = 0; i < a->rank; i++) {
    if (a->dims[i] < 0)
      r.dims[i] = b->dims[i];
    else if (b->dims[i] >= 0 && a->dims[i] != b->dims[i])
      return false;
  }
  *out = r;
  return true;
}

const char* grt_shape_str(const grt_shape* s, char* buf, size_t size) {
  if (s->rank < 0) {
    snprintf(buf, size, "<unknown>");
    return buf;
  }
  size_t n = 0;
  n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "[");
  for (int32_t i = 0; i < s->rank && i < GRT_MAX_RANK; i++) {
    if (s->dims[i] < 0)
      n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s?", i ? "," : "");
    else
      n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%lld", i ? "," : "",
                            (long long)s->dims[i]);
  }
  snprintf(buf + n, n < size ? size - n : 0, "]");
  return buf;
}
