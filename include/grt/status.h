/* grt — status values: how every fallible call reports failure.
 *
 * A call returns NULL on success, or a grt_status* the caller owns and frees
 * with grt_status_free().  The message names what is at fault (node, file,
 * byte offset) so it can be shown to a user as it is. */
#ifndef GRT_STATUS_H_
#define GRT_STATUS_H_

#include "grt/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Codes follow TensorFlow's canonical error codes so users can map them. */
typedef enum grt_code {
  GRT_OK = 0,
  GRT_CANCELLED = 1,
  GRT_UNKNOWN = 2,
  GRT_INVALID_ARGUMENT = 3,
  GRT_DEADLINE_EXCEEDED = 4,
  GRT_NOT_FOUND = 5,
  GRT_ALREADY_EXISTS = 6,
  GRT_PERMISSION_DENIED = 7,
  GRT_RESOURCE_EXHAUSTED = 8,
  GRT_FAILED_PRECONDITION = 9,
  GRT_ABORTED = 10,
  GRT_OUT_OF_RANGE = 11,
  GRT_UNIMPLEMENTED = 12,
  GRT_INTERNAL = 13,
  GRT_UNAVAILABLE = 14,
  GRT_DATA_LOSS = 15,
} grt_code;

typedef struct grt_status grt_status;

/* The code of `s`; GRT_OK for NULL. */
GRT_API grt_code grt_status_code(const grt_status* s);

/* The message of `s` ("" for NULL). Owned by `s`. */
GRT_API const char* grt_status_message(const grt_status* s);

/* A readable name for `code`, e.g. "INVALID_ARGUMENT". Static storage. */
GRT_API const char* grt_code_name(grt_code code);

/* Frees `s`. NULL is a no-op. */
GRT_API void grt_status_free(grt_status* s);

/* A new status with `code` (GRT_OK is taken as GRT_UNKNOWN) and a
 * printf-formatted message, for host code that reports errors the way grt
 * does. Never returns NULL: if memory runs out, a static RESOURCE_EXHAUSTED
 * status is returned instead (grt_status_free knows not to free it). */
GRT_API GRT_MUST_USE grt_status* grt_status_new(grt_code code, const char* fmt, ...)
    GRT_PRINTF(2, 3);

/* Returns `s` with "prefix: " put in front of its message (same code), for
 * adding context such as a file name as an error travels up. Takes `s`
 * (NULL gives NULL). */
GRT_API GRT_MUST_USE grt_status* grt_status_prefix(grt_status* s, const char* fmt, ...)
    GRT_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif  /* GRT_STATUS_H_ */
