/* How the library says something: through the process-wide sink that
 * grt_set_log_sink (grt/log.h) installs, never straight to stdout/stderr. */
#ifndef GRT_BASE_LOG_H_
#define GRT_BASE_LOG_H_

#include <stddef.h>

#include "grt/api.h"
#include "grt/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One message (printf-style, one line: no trailing newline). */
void grt_log(grt_log_level level, const char* fmt, ...) GRT_PRINTF(2, 3);

/* `len` bytes of text that may hold several lines: one sink call per line
 * (a trailing newline does not make an empty last line), all delivered
 * before any other message. */
void grt_log_lines(grt_log_level level, const char* text, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_LOG_H_ */
