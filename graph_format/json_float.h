/* Shortest decimal spelling of floating-point tensor elements and float
 * attrs for the JSON text form. */
#ifndef GRT_GRAPH_FORMAT_JSON_FLOAT_H_
#define GRT_GRAPH_FORMAT_JSON_FLOAT_H_

#include <stddef.h>

#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room grt_json_format_float needs, NUL included. */
#define GRT_JSON_FLOAT_MAX 32

/* Writes into buf the shortest decimal number that the JSON reader turns
 * back into exactly the value `v` has in dtype `t` (a float dtype; `v` is
 * the element widened to double). Returns the length, or 0 when `v` is NaN
 * or infinite, which JSON numbers cannot express.
 *
 * Spelling: plain integers up to 15 digits ("3", "-120"), plain decimals
 * when the point falls within the digits or at most 6 places left of them
 * ("0.1", "1.5", "0.000001"), otherwise an exponent ("1e-8",
 * "3.4028235e38"); negative zero is "-0.0" (JSON's "-0" reads as the integer
 * 0). */
size_t grt_json_format_float(grt_dtype t, double v, char* buf);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_JSON_FLOAT_H_ */
