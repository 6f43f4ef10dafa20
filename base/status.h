/* Internal side of grt_status: constructors and the propagation macro. */
#ifndef GRT_RUNTIME_STATUS_H_
#define GRT_RUNTIME_STATUS_H_

#include <stdarg.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define GRT_MUST_USE __attribute__((warn_unused_result))
#else
#define GRT_PRINTF(f, a)
#define GRT_MUST_USE
#endif

/* A new status with `code` (not GRT_OK) and a printf-formatted message.
 * Never returns NULL: if memory runs out, a static RESOURCE_EXHAUSTED status
 * is returned instead (grt_status_free knows not to free it). */
grt_status* grt_status_new(grt_code code, const char* fmt, ...) GRT_PRINTF(2, 3);
grt_status* grt_status_newv(grt_code code, const char* fmt, va_list ap);

/* Returns `s` with "prefix: " put in front of its message (same code), for
 * adding context such as a file name as an error travels up. Takes `s`. */
grt_status* grt_status_prefix(grt_status* s, const char* fmt, ...) GRT_PRINTF(2, 3);

/* Returns the first non-NULL status, freeing nothing. */
#define GRT_RETURN_IF_ERROR(expr)          \
  do {                                     \
    grt_status* grt_status_tmp_ = (expr);  \
    if (grt_status_tmp_) return grt_status_tmp_; \
  } while (0)

#define GRT_ERROR(code, ...) grt_status_new(GRT_##code, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif  /* GRT_RUNTIME_STATUS_H_ */
