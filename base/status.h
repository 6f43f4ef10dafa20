/* The library's side of grt_status: constructors and the propagation macro. */
#ifndef GRT_BASE_STATUS_H_
#define GRT_BASE_STATUS_H_

#include <stdarg.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* grt_status_new and grt_status_prefix are public (grt/status.h). */

/* grt_status_new with a va_list. */
GRT_MUST_USE grt_status* grt_status_newv(grt_code code, const char* fmt, va_list ap);

/* Returns the first non-NULL status, freeing nothing. */
#define GRT_RETURN_IF_ERROR(expr)          \
  do {                                     \
    grt_status* grt_status_tmp_ = (expr);  \
    if (grt_status_tmp_) return grt_status_tmp_; \
  } while (0)

/* The static "out of memory" status (RESOURCE_EXHAUSTED): for state that
 * reports a failure without owning a status. Never freed. */
const grt_status* grt_status_out_of_memory(void);

#define GRT_ERROR(code, ...) grt_status_new(GRT_##code, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif  /* GRT_BASE_STATUS_H_ */
