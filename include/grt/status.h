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
 * status is returned instead (grt_status_free knows not to free it).
 * Where GRT_STATUS_SOURCES is 1 (below) this name is a macro over
 * grt_status_new_at, so the status also records where it was made; the
 * function stays exported for callers that take its address or build
 * without sources. */
GRT_API GRT_MUST_USE grt_status* grt_status_new(grt_code code, const char* fmt, ...)
    GRT_PRINTF(2, 3);

/* grt_status_new recording `file`:`line` as the status's source (file
 * NULL: none). The file name is copied, so a status made by a plugin
 * outlives the plugin's string constants. */
GRT_API GRT_MUST_USE grt_status* grt_status_new_at(const char* file, int line, grt_code code,
                                                   const char* fmt, ...) GRT_PRINTF(4, 5);

/* Where `s` was made, "runtime/session/session.c:42" (the compiler's
 * __FILE__, so relative to the build root under Bazel), or NULL: s is NULL,
 * was made without a source (a build with GRT_STATUS_SOURCES 0, or through
 * an internal path that has none), or is the static out-of-memory status.
 * Owned by `s`. Never part of the message: grt_status_message reads the
 * same in every build; the grt command prints the source on request
 * (GRT_DEBUG_STATUS=1). */
GRT_API const char* grt_status_source(const grt_status* s);

/* Returns `s` with "prefix: " put in front of its message (same code and
 * source), for adding context such as a file name as an error travels up.
 * Takes `s` (NULL gives NULL). If memory for the longer message runs out,
 * `s` comes back unchanged: the error is never lost for want of context. */
GRT_API GRT_MUST_USE grt_status* grt_status_prefix(grt_status* s, const char* fmt, ...)
    GRT_PRINTF(2, 3);

/* Whether grt_status_new records its caller's file and line: by default in
 * builds without NDEBUG (Bazel's default fastbuild and -c dbg, so every
 * test; -c opt defines NDEBUG and records none). Define GRT_STATUS_SOURCES
 * to 0 or 1 to decide otherwise. Decided where the call is compiled: grt's
 * own build for its statuses, a plugin's or host's build for theirs. */
#ifndef GRT_STATUS_SOURCES
#ifdef NDEBUG
#define GRT_STATUS_SOURCES 0
#else
#define GRT_STATUS_SOURCES 1
#endif
#endif
#if GRT_STATUS_SOURCES
#define grt_status_new(code, ...) grt_status_new_at(__FILE__, __LINE__, (code), __VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif

#endif /* GRT_STATUS_H_ */
