/* The library's side of grt_status: constructors and the propagation macro. */
#ifndef GRT_BASE_STATUS_H_
#define GRT_BASE_STATUS_H_

#include <stdarg.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* grt_status_new and grt_status_prefix are public (grt/status.h). */

/* grt_status_new with a va_list (for helpers that format on a caller's
 * behalf; the status records no source, since this file and line would
 * name the helper). */
GRT_MUST_USE grt_status* grt_status_newv(grt_code code, const char* fmt, va_list ap);

/* Returns the first non-NULL status, freeing nothing. */
#define GRT_RETURN_IF_ERROR(expr)                \
  do {                                           \
    grt_status* grt_status_tmp_ = (expr);        \
    if (grt_status_tmp_) return grt_status_tmp_; \
  } while (0)

/* Returns the status of `expr`, if any, with "context: " put in front of
 * its message (grt_status_prefix: same code and source; unchanged if
 * memory runs out), as IREE_RETURN_IF_ERROR(expr, fmt, ...) does: the
 * caller adds where it was (the file it was loading, the node it was
 * running) on the error's way up. The format's arguments are evaluated
 * only on failure. */
#define GRT_RETURN_IF_ERROR_ANNOTATED(expr, ...)                                 \
  do {                                                                           \
    grt_status* grt_status_tmp_ = (expr);                                        \
    if (grt_status_tmp_) return grt_status_prefix(grt_status_tmp_, __VA_ARGS__); \
  } while (0)

/* The static "out of memory" status (RESOURCE_EXHAUSTED): for state that
 * reports a failure without owning a status. Never freed. */
const grt_status* grt_status_out_of_memory(void);

#define GRT_ERROR(code, ...) grt_status_new(GRT_##code, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_STATUS_H_ */
