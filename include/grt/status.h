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
grt_code grt_status_code(const grt_status* s);

/* The message of `s` ("" for NULL). Owned by `s`. */
const char* grt_status_message(const grt_status* s);

/* A readable name for `code`, e.g. "INVALID_ARGUMENT". Static storage. */
const char* grt_code_name(grt_code code);

/* Frees `s`. NULL is a no-op. */
void grt_status_free(grt_status* s);

#ifdef __cplusplus
}
#endif

#endif  /* GRT_STATUS_H_ */
