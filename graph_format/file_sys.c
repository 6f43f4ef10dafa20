/* The file writer's system calls with an injectable failure (file_sys.h). */
#include "graph_format/file_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int g_calls;
static atomic_int g_fail_at; /* 0: never */
static atomic_int g_errno;
static atomic_bool g_persist;
static atomic_bool g_no_tmpfile;
static grt_file_sys_observer g_observer; /* set and cleared by one test thread */
static void* g_observer_ctx;

void grt_file_sys_no_tmpfile(bool on) { atomic_store(&g_no_tmpfile, on); }

void grt_file_sys_fail_at(int nth, int err, bool persist) {
  atomic_store(&g_calls, 0);
  atomic_store(&g_errno, err);
  atomic_store(&g_persist, persist);
  atomic_store(&g_fail_at, nth);
}

int grt_file_sys_calls(void) { return atomic_load(&g_calls); }

void grt_file_sys_observe(grt_file_sys_observer fn, void* ctx) {
  g_observer_ctx = ctx;
  g_observer = fn;
}

/* Tells the observer of the call, then says whether this call is the one to
 * fail (errno set). */
static bool inject(const char* call, int fd, const char* path) {
  if (g_observer) g_observer(g_observer_ctx, call, fd, path);
  int at = atomic_load(&g_fail_at);
  if (at <= 0) return false;
  int n = atomic_fetch_add(&g_calls, 1) + 1;
  if (n == at || (n > at && atomic_load(&g_persist))) {
    errno = atomic_load(&g_errno);
    return true;
  }
  return false;
}

ssize_t grt_sys_write(int fd, const void* buf, size_t n) {
  if (inject("write", fd, NULL)) return -1;
  ssize_t r;
  do r = write(fd, buf, n);
  while (r < 0 && errno == EINTR);
  return r;
}

int grt_sys_fsync(int fd) {
  if (inject("fsync", fd, NULL)) return -1;
  return fsync(fd);
}

int grt_sys_open(const char* path, int flags, mode_t mode) {
  if (inject("open", -1, path)) return -1;
  if ((flags & O_TMPFILE) == O_TMPFILE && atomic_load(&g_no_tmpfile)) {
    errno = EOPNOTSUPP;
    return -1;
  }
  int fd;
  do fd = open(path, flags, mode);
  while (fd < 0 && errno == EINTR);
  return fd;
}

int grt_sys_linkat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath,
                   int flags) {
  if (inject("linkat", -1, newpath)) return -1;
  return linkat(olddirfd, oldpath, newdirfd, newpath, flags);
}

int grt_sys_rename(const char* from, const char* to) {
  if (inject("rename", -1, to)) return -1;
  return rename(from, to);
}

/* A close that "fails" still releases the descriptor, as close(2) does. */
int grt_sys_close(int fd) {
  bool fail = inject("close", fd, NULL);
  int err = errno;
  int r = close(fd);
  if (!fail) return r;
  errno = err;
  return -1;
}
