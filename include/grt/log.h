/* grt — where the library's messages go.
 *
 * The library never writes to stdout or stderr itself: everything it has to
 * say (today: the placement log of a session made with
 * log_device_placement=true) goes to one process-wide sink. The default
 * sink writes each message and a newline to stderr. */
#ifndef GRT_LOG_H_
#define GRT_LOG_H_

#include "grt/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grt_log_level {
  GRT_LOG_DEBUG = 0,
  GRT_LOG_INFO = 1,
  GRT_LOG_WARNING = 2,
  GRT_LOG_ERROR = 3,
} grt_log_level;

/* A sink receives one line per call: `message` has no trailing newline and
 * is valid only during the call. A multi-line text (the placement log) is
 * delivered as consecutive calls, one per line, that no other grt message
 * interleaves with. Calls are serialised: the sink is never entered by two
 * threads at once, but it may be called from any thread that uses grt. */
typedef void (*grt_log_fn)(void* arg, grt_log_level level, const char* message);

/* Sends every later message to fn(arg, level, message); NULL restores the
 * default (stderr). Thread-safe; once it returns, the previous sink is not
 * called again. A sink must not call grt_set_log_sink itself. */
GRT_API void grt_set_log_sink(grt_log_fn fn, void* arg);

#ifdef __cplusplus
}
#endif

#endif /* GRT_LOG_H_ */
