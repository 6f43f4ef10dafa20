/* Opening a .grt file: map it read-only and hand the mapping to the reader,
 * which keeps it alive for as long as the graph or any tensor over it
 * lives. Constants are never read here: pages of tensor data are touched
 * only when a kernel reads them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_open.h"
#include "base/mem.h"
#include "base/status.h"
#include "graph_format/formats.h"
#include "graph_format/grt_file_view.h"
#include "grt/graph.h"
#include "ops/graph.h"

typedef struct mapping {
  void* addr;
  size_t size;
} mapping;

static void unmap(void* backing) {
  mapping* m = backing;
  munmap(m->addr, m->size);
  grt_free(m);
}

static void release_read(void* backing) {
  mapping* m = backing;
  grt_posix_memalign_free(m->addr); /* read_whole's block, reserved there */
  grt_mem_unreserve(m->size);
  grt_free(m);
}

static grt_status* errno_status(const char* path, const char* what, int err) {
  grt_code code = err == ENOENT                   ? GRT_NOT_FOUND
                  : err == EACCES || err == EPERM ? GRT_PERMISSION_DENIED
                  : err == ENOMEM                 ? GRT_RESOURCE_EXHAUSTED
                                                  : GRT_UNKNOWN;
  return grt_status_new(code, "%s: cannot %s: %s", path, what, strerror(err));
}

/* The whole file read into a 64-byte-aligned buffer (tensor data is
 * 64-aligned in the file, and so in the buffer). */
static grt_status* read_whole(const char* path, int fd, size_t size, void** out) {
  void* buf = NULL;
  /* Counted against the soft heap limit as a tensor block is. */
  if (!grt_mem_reserve(size))
    return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: the soft heap limit leaves no room to read %zu bytes",
                     path, size);
  if (grt_posix_memalign(&buf, 64, size) != 0) {
    grt_mem_unreserve(size);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory reading %zu bytes", path, size);
  }
  size_t got = 0;
  while (got < size) {
    ssize_t n = pread(fd, (char*)buf + got, size - got, (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : 0;
      free(buf);
      grt_mem_unreserve(size);
      if (err) return errno_status(path, "read", err);
      return GRT_ERROR(DATA_LOSS, "%s: the file shrank while being read (%zu of %zu bytes)", path,
                       got, size);
    }
    got += (size_t)n;
  }
  *out = buf;
  return NULL;
}

grt_status* grt_format_open_grt(const char* path, grt_graph** out) {
  return grt_format_open_grt_flags(path, 0, out);
}

grt_status* grt_format_open_grt_flags(const char* path, unsigned flags, grt_graph** out) {
  *out = NULL;
  if (!path) return GRT_ERROR(INVALID_ARGUMENT, "NULL path");
  int fd;
  struct stat st;
  GRT_RETURN_IF_ERROR(grt_open_regular_file(path, &fd, &st));
  if (st.st_size == 0) {
    close(fd);
    /* mmap refuses 0 bytes; the reader gives the usual message. */
    return grt_file_parse(path, "", 0, NULL, NULL, out);
  }
  if ((uint64_t)st.st_size > SIZE_MAX) {
    close(fd);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: too large to map", path);
  }
  mapping* m = grt_malloc(sizeof *m);
  if (!m) {
    close(fd);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory", path);
  }
  m->size = (size_t)st.st_size;
  if (flags & GRT_LOAD_NO_MMAP) {
    grt_status* s = read_whole(path, fd, m->size, &m->addr);
    close(fd);
    if (s) {
      grt_free(m);
      return s;
    }
    s = grt_file_parse(path, m->addr, m->size, m, release_read, out);
    if (s)
      release_read(m);
    else
      (*out)->storage = "in memory";
    return s;
  }
  /* MAP_PRIVATE | PROT_READ: a stray write into a constant faults instead
   * of reaching the file. Truncating or rewriting the file in place while
   * it is mapped raises SIGBUS on access (docs/mapped-files.md): replace
   * model files by rename, as grt does, or load with GRT_LOAD_NO_MMAP. */
  m->addr = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  close(fd);
  if (m->addr == MAP_FAILED) {
    grt_free(m);
    return errno_status(path, "map", err);
  }
  grt_status* s = grt_file_parse(path, m->addr, m->size, m, unmap, out);
  if (s)
    unmap(m); /* on failure the reader leaves the mapping to us */
  else
    (*out)->storage = "mapped";
  return s;
}
