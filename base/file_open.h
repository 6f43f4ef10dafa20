/* Opening a file grt reads (models, checkpoints, .npy feeds) so that what
 * is not a regular file is refused before anything can block: a plain
 * open() of a FIFO waits for a writer forever, and a character device may
 * never end. */
#ifndef GRT_BASE_FILE_OPEN_H_
#define GRT_BASE_FILE_OPEN_H_

#include <sys/stat.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens `path` read-only (close-on-exec), with its stat in *st. The open is
 * non-blocking, then the descriptor's own fstat decides (no window between
 * a check and the open), then reads block again. Errors name the path:
 * "PATH: cannot open: REASON" (NOT_FOUND, PERMISSION_DENIED, ...) and
 * "PATH: not a regular file" (INVALID_ARGUMENT). *fd is -1 on error. */
GRT_MUST_USE grt_status* grt_open_regular_file(const char* path, int* fd, struct stat* st);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_FILE_OPEN_H_ */
