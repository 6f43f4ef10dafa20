/* Whole-file reads (the writer is file_write.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_open.h"
#include "base/mem.h"
#include "base/status.h"
#include "graph_format/formats.h"

grt_status* grt_read_file(const char* path, char** out, size_t* out_len) {
  *out = NULL;
  *out_len = 0;
  int fd;
  struct stat st;
  GRT_RETURN_IF_ERROR(grt_open_regular_file(path, &fd, &st));
  size_t size = (size_t)st.st_size;
  char* buf = grt_malloc(size + 1);
  if (!buf) {
    close(fd);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory reading %zu bytes", path, size);
  }
  size_t got = 0;
  int err = 0;
  while (got < size) {
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    got += (size_t)n;
  }
  close(fd);
  if (got != size) {
    grt_free(buf);
    if (err)
      return GRT_ERROR(DATA_LOSS, "%s: read %zu of %zu bytes: %s", path, got, size, strerror(err));
    return GRT_ERROR(DATA_LOSS, "%s: read %zu of %zu bytes", path, got, size);
  }
  buf[size] = '\0';
  *out = buf;
  *out_len = size;
  return NULL;
}
