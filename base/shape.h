/* Shape helpers over grt_shape (declared in grt/types.h). */
#ifndef GRT_BASE_SHAPE_H_
#define GRT_BASE_SHAPE_H_

#include <stdbool.h>
#include <stddef.h>

#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline grt_shape grt_shape_unknown(void) {
  grt_shape s = {0};
  s.rank = -1;
  return s;
}
static inline grt_shape grt_shape_scalar(void) {
  grt_shape s = {0};
  return s;
}
grt_shape grt_shape_make(int32_t rank, const int64_t* dims);

/* True when the rank and every dimension are known. */
bool grt_shape_fully_known(const grt_shape* s);

/* Product of the dimensions; -1 if any is unknown; -2 on int64 overflow. */
int64_t grt_shape_num_elements(const grt_shape* s);

bool grt_shape_equal(const grt_shape* a, const grt_shape* b);

/* True when a and b may describe the same shape (unknowns match anything). */
bool grt_shape_compatible(const grt_shape* a, const grt_shape* b);

/* The more specific of two compatible shapes; false if they are not compatible. */
bool grt_shape_merge(const grt_shape* a, const grt_shape* b, grt_shape* out);

/* Writes "[2,?,3]" ("<unknown>" for unknown rank) into buf; returns buf. */
const char* grt_shape_str(const grt_shape* s, char* buf, size_t size);
#define GRT_SHAPE_STR_MAX (GRT_MAX_RANK * 21 + 16)

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_SHAPE_H_ */
