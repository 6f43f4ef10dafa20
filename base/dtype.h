/* The library's dtype helpers: the dtype table and half-precision conversions. */
#ifndef GRT_BASE_DTYPE_H_
#define GRT_BASE_DTYPE_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline bool grt_dtype_valid(int t) { return t > GRT_DTYPE_INVALID && t < GRT_NUM_DTYPES; }
static inline uint32_t grt_dtype_bit(grt_dtype t) { return 1u << (unsigned)t; }

bool grt_dtype_is_float(grt_dtype t);   /* float16, bfloat16, float32, float64 */
bool grt_dtype_is_integer(grt_dtype t); /* int8..int64, uint8 */

/* IEEE half and bfloat16 <-> float, round to nearest even. */
float grt_half_to_float(uint16_t h);
uint16_t grt_float_to_half(float f);
float grt_bfloat16_to_float(uint16_t b);
uint16_t grt_float_to_bfloat16(float f);

/* Element i of `data` (of type t) as double / int64, and the reverse.
 * Used by text conversion and by tests, not by kernels. */
double grt_dtype_load_double(grt_dtype t, const void* data, int64_t i);
/* Stores v as element i of dtype t; into an integer dtype v is rounded toward
 * zero and saturated to int64 (NaN: 0), then stored as grt_dtype_store_int
 * stores an int64. */
void grt_dtype_store_double(grt_dtype t, void* data, int64_t i, double v);
int64_t grt_dtype_load_int(grt_dtype t, const void* data, int64_t i);
void grt_dtype_store_int(grt_dtype t, void* data, int64_t i, int64_t v);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_DTYPE_H_ */
