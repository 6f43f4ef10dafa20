/* Whole-file reads and atomic writes (temporary file + fsync + rename). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/status.h"
#include "graph_format/formats.h"

grt_status* grt_write_file_atomic(const char* path, grt_status* (*write)(void* ctx, FILE* f),
                                  void* ctx) {
  size_t len = strlen(path);
  char* tmp = grt_malloc(len + 16);
  if (!tmp) return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory", path);
  snprintf(tmp, len + 16, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    grt_status* s = GRT_ERROR(UNAVAILABLE, "%s: cannot create a temporary file beside it: %s",
                              path, strerror(errno));
    free(tmp);
    return s;
  }
  /* mkstemp makes the file 0600; give it the usual permissions. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  FILE* f = fdopen(fd, "wb");
  grt_status* s = NULL;
  if (!f) {
    s = GRT_ERROR(UNAVAILABLE, "%s: %s", tmp, strerror(errno));
    close(fd);
  } else {
    s = write(ctx, f);
    if (!s && fflush(f) != 0) s = GRT_ERROR(UNAVAILABLE, "%s: write failed: %s", path, strerror(errno));
    if (!s && fsync(fileno(f)) != 0)
      s = GRT_ERROR(UNAVAILABLE, "%s: fsync failed: %s", path, strerror(errno));
    if (fclose(f) != 0 && !s) s = GRT_ERROR(UNAVAILABLE, "%s: close failed: %s", path, strerror(errno));
  }
  if (!s && rename(tmp, path) != 0)
    s = GRT_ERROR(UNAVAILABLE, "%s: cannot rename the finished file into place: %s", path,
                  strerror(errno));
  if (s) unlink(tmp);
  free(tmp);
  return s;
}

grt_status* grt_read_file(const char* path, char** out, size_t* out_len) {
  *out = NULL;
  *out_len = 0;
  FILE* f = fopen(path, "rb");
  if (!f) return GRT_ERROR(NOT_FOUND, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return GRT_ERROR(INVALID_ARGUMENT, "%s: not a regular file", path);
  }
  size_t size = (size_t)st.st_size;
  char* buf = grt_malloc(size + 1);
  if (!buf) {
    fclose(f);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory reading %zu bytes", path, size);
  }
  size_t got = fread(buf, 1, size, f);
  int err = ferror(f);
  fclose(f);
  if (err || got != size) {
    free(buf);
    return GRT_ERROR(DATA_LOSS, "%s: read %zu of %zu bytes", path, got, size);
  }
  buf[size] = '\0';
  *out = buf;
  *out_len = size;
  return NULL;
}
