/* GraphDef and ONNX files: mapped read-only and parsed in place, so a model
 * with large constants is in memory once as the file's pages and once as the
 * graph's tensors, never also as a heap copy of the file. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_open.h"
#include "base/status.h"
#include "graph_format/formats.h"

grt_status* grt_format_read_protobuf(const char* path,
                                     grt_status* (*parse)(const void* data, size_t len,
                                                          grt_graph** out),
                                     grt_graph** out) {
  *out = NULL;
  int fd;
  struct stat st;
  GRT_RETURN_IF_ERROR(grt_open_regular_file(path, &fd, &st));
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
