#include "base/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/status.h"

static grt_code code_of(int err) {
  return err == ENOENT || err == ENOTDIR ? GRT_NOT_FOUND
         : err == EACCES || err == EPERM ? GRT_PERMISSION_DENIED
         : err == ENOMEM                 ? GRT_RESOURCE_EXHAUSTED
                                         : GRT_UNKNOWN;
}

grt_status* grt_open_regular_file(const char* path, int* fd, struct stat* st) {
  *fd = -1;
  /* O_NONBLOCK: opening a FIFO's read end returns at once instead of
   * waiting for a writer; O_NOCTTY: a terminal named here never becomes
   * the process's controlling terminal. */
  int f;
  do f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  while (f < 0 && errno == EINTR);
  if (f < 0) {
    int err = errno;
    return grt_status_new(code_of(err), "%s: cannot open: %s", path, strerror(err));
  }
  if (fstat(f, st) != 0) {
    int err = errno;
    close(f);
    return grt_status_new(code_of(err), "%s: cannot stat: %s", path, strerror(err));
  }
  if (!S_ISREG(st->st_mode)) {
    close(f);
    return GRT_ERROR(INVALID_ARGUMENT, "%s: not a regular file", path);
  }
  /* A regular file's reads never block on O_NONBLOCK's account, but the
   * descriptor may be handed to stdio or mmap: leave it as a plain one. */
  int flags = fcntl(f, F_GETFL);
  if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int err = errno;
    close(f);
    return grt_status_new(code_of(err), "%s: cannot open: %s", path, strerror(err));
  }
  *fd = f;
  return NULL;
}
