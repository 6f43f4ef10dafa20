/* GraphDef and ONNX files: mapped read-only and parsed in place, so a model
 * with large constants is in memory once as the file's pages and once as the
 * graph's tensors, never also as a heap copy of the file. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/status.h"
#include "graph_format/formats.h"

grt_status* grt_format_read_protobuf(const char* path,
                                     grt_status* (*parse)(const void* data, size_t len,
                                                          grt_graph** out),
                                     grt_graph** out) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return GRT_ERROR(NOT_FOUND, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return GRT_ERROR(INVALID_ARGUMENT, "%s: not a regular file", path);
  }
  size_t len = (size_t)st.st_size;
  void* data = NULL;
  if (len > 0) {
    data = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      grt_status* s = GRT_ERROR(UNAVAILABLE, "%s: cannot map: %s", path, strerror(errno));
      close(fd);
      return s;
    }
  }
  close(fd);
  grt_status* s = parse(len ? data : "", len, out);
  if (len > 0) munmap(data, len);
  return s ? grt_status_prefix(s, "%s", path) : NULL;
}
