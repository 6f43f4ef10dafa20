/* The one file writer behind everything grt writes (grt_write_file_atomic,
 * grt/tensor_io.h): graphs from convert, plans, DOT and SVG pictures, traces.
 *
 * A regular destination (or a new one) is never written in place. The bytes
 * go to an unnamed file (O_TMPFILE) in the destination's directory, which is
 * fsynced and then linked into place, so a process killed at any moment
 * leaves the old file or the new one and no temporary: an unnamed file
 * vanishes with its last descriptor. Where the file system has no O_TMPFILE
 * a named temporary beside the destination takes its place (then only a kill
 * between its creation and the rename can leave it behind). Replacing an
 * existing file takes a rename, which needs a name: the unnamed file is
 * linked under a temporary name and renamed over the destination at once.
 * The directory is fsynced last, so the new name is durable too.
 *
 * That temporary name is the one window a kill can leave something in (two
 * system calls wide; on a loaded machine a process can be stopped between
 * them). Temporary names carry the writer's host and process id
 * (DEST.tmp.HOST.PID.RANDOM), and every write sweeps its destination's
 * directory for temporaries of the same destination whose writer, on this
 * host, is gone: a killed writer's leftover lives until the next write of
 * that file. The host tag keeps a writer from judging another machine's
 * process ids (a directory shared over NFS, a container with its own
 * hostname and pid space).
 *
 * New files get mode 0666 less the umask, applied by the kernel at creation
 * (umask is never changed: that would race with other threads); a replaced
 * file keeps its permission bits.
 *
 * Destinations that are not regular files are written directly, as a shell
 * redirection would: character devices (/dev/null, a terminal), FIFOs, and
 * the process's own descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N:
 * written through a duplicate of that descriptor, after flushing the stdio
 * stream on it). A symlink is followed and its target replaced, except
 * where the kernel would not follow it (below, `may_follow`).
 *
 * Temporary names must fit whenever the destination's name does: a name
 * too long to take the suffix is shortened first (`temp_prefix`). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/status.h"
#include "graph_format/file_sys.h"
#include "graph_format/formats.h"

typedef grt_status* (*write_fn)(void* ctx, FILE* f);

/* ---- a FILE over a descriptor, every write through file_sys ---- */

typedef struct {
  int fd;
  int err; /* the first write's errno, 0 if none failed */
} sink;

static ssize_t sink_write(void* cookie, const char* buf, size_t n) {
  sink* s = cookie;
  size_t done = 0;
  while (done < n) {
    ssize_t r = grt_sys_write(s->fd, buf + done, n - done);
    if (r <= 0) {
      if (!s->err) s->err = r < 0 ? errno : EIO;
      return (ssize_t)done; /* 0 on error: fopencookie must never see a negative count */
    }
    done += (size_t)r;
  }
  return (ssize_t)done;
}

/* Runs `write` into a stream on `fd` and flushes it. The descriptor stays
 * open (the caller syncs, links and closes it). */
static grt_status* fill(const char* shown, int fd, write_fn write, void* ctx) {
  sink s = {fd, 0};
  cookie_io_functions_t io = {.write = sink_write};
  FILE* f = fopencookie(&s, "w", io);
  if (!f) return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory opening a stream", shown);
  setvbuf(f, NULL, _IOFBF, 1 << 16);
  grt_status* st = write(ctx, f);
  int flushed = fflush(f);
  int err = s.err ? s.err : errno;
  bool failed = flushed != 0 || ferror(f) || s.err;
  fclose(f);
  if (failed) {
    grt_status_free(st); /* the OS reason explains a writer's failure best */
    return GRT_ERROR(UNAVAILABLE, "%s: cannot write: %s", shown, strerror(err ? err : EIO));
  }
  return st;
}

/* ---- where the bytes go ---- */

/* N when `path` names one of this process's descriptors (/dev/stdout,
 * /dev/stderr, /dev/stdin, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N for
 * our PID); -1 otherwise. */
static int own_descriptor(const char* path) {
  static const struct {
    const char* name;
    int fd;
  } kStd[] = {{"/dev/stdin", 0}, {"/dev/stdout", 1}, {"/dev/stderr", 2}};
  for (size_t i = 0; i < sizeof kStd / sizeof kStd[0]; i++)
    if (strcmp(path, kStd[i].name) == 0) return kStd[i].fd;
  const char* rest = NULL;
  char self[48];
  snprintf(self, sizeof self, "/proc/%ld/fd/", (long)getpid());
  if (strncmp(path, "/dev/fd/", 8) == 0)
    rest = path + 8;
  else if (strncmp(path, "/proc/self/fd/", 14) == 0)
    rest = path + 14;
  else if (strncmp(path, self, strlen(self)) == 0)
    rest = path + strlen(self);
  if (!rest || !*rest) return -1;
  char* end;
  long n = strtol(rest, &end, 10);
  if (*end || n < 0 || n > INT_MAX) return -1;
  return (int)n;
}

/* Whether the kernel would follow the symlink `link` (lstat'ed into `st`)
 * for this process under fs.protected_symlinks: a link in a sticky,
 * world-writable directory (/tmp) is followed only when it belongs to the
 * directory's owner or to the follower. grt resolves links itself to
 * replace their targets, so without this a link another user planted in
 * /tmp would make grt replace any file the caller may write (a root-only
 * one, for root). The rule is applied whatever the sysctl says: a writer
 * that replaces files must not be easier to misdirect than open(). */
static grt_status* may_follow(const char* path, const char* link, const struct stat* st) {
  const char* slash = strrchr(link, '/');
  char* dir = grt_malloc(slash ? (size_t)(slash - link) + 2 : 2);
  if (!dir) return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory", path);
  if (!slash)
    strcpy(dir, ".");
  else if (slash == link)
    strcpy(dir, "/");
  else
    snprintf(dir, (size_t)(slash - link) + 1, "%s", link);
  struct stat d;
  grt_status* s = NULL;
  uid_t self = geteuid();
  if (stat(dir, &d) != 0) {
    s = GRT_ERROR(UNAVAILABLE, "%s: cannot stat the directory %s of the link %s: %s", path, dir,
                  link, strerror(errno));
  } else if ((d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH) && st->st_uid != d.st_uid &&
             st->st_uid != self) {
    s = GRT_ERROR(PERMISSION_DENIED,
                  "%s: refusing to follow the symlink %s: it lies in the sticky, world-writable "
                  "directory %s and belongs to uid %lu, neither the directory's owner (uid %lu) "
                  "nor this process (uid %lu); the kernel does not follow such links "
                  "(fs.protected_symlinks). Write to the target's own path instead",
                  path, link, dir, (unsigned long)st->st_uid, (unsigned long)d.st_uid,
                  (unsigned long)self);
  }
  grt_free(dir);
  return s;
}

/* Follows symlinks at the end of `path` (intermediate directories the kernel
 * resolves) to the file that would be replaced, in a grt_malloc'd string;
 * stops early at one of our own descriptors. A link the kernel would not
 * follow (may_follow) is an error. */
static grt_status* resolve(const char* path, char** out) {
  char* cur = grt_strdup(path);
  if (!cur) return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory", path);
  for (int hops = 0; hops < 40; hops++) {
    struct stat st;
    if (own_descriptor(cur) >= 0 || lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
      *out = cur;
      return NULL;
    }
    grt_status* refused = may_follow(path, cur, &st);
    if (refused) {
      grt_free(cur);
      return refused;
    }
    char target[PATH_MAX];
    ssize_t n = readlink(cur, target, sizeof target - 1);
    if (n < 0) {
      grt_status* s =
          GRT_ERROR(UNAVAILABLE, "%s: cannot read the link %s: %s", path, cur, strerror(errno));
      grt_free(cur);
      return s;
    }
    target[n] = '\0';
    size_t dir = 0;
    if (target[0] != '/') {
      const char* slash = strrchr(cur, '/');
      dir = slash ? (size_t)(slash - cur) + 1 : 0;
    }
    char* next = grt_malloc(dir + (size_t)n + 1);
    if (!next) {
      grt_free(cur);
      return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory", path);
    }
    memcpy(next, cur, dir);
    memcpy(next + dir, target, (size_t)n + 1);
    grt_free(cur);
    cur = next;
  }
  grt_free(cur);
  return GRT_ERROR(INVALID_ARGUMENT, "%s: %s", path, strerror(ELOOP));
}

/* A device, FIFO or descriptor of ours: written as it is, never replaced. */
static grt_status* write_in_place(const char* shown, const char* dest, write_fn write, void* ctx) {
  int own = own_descriptor(dest);
  int fd;
  if (own >= 0) {
    /* What the process buffered for that stream goes first. */
    if (own == 1) fflush(stdout);
    if (own == 2) fflush(stderr);
    fd = fcntl(own, F_DUPFD_CLOEXEC, 3);
  } else {
    fd = grt_sys_open(dest, O_WRONLY | O_NOCTTY | O_CLOEXEC, 0);
  }
  if (fd < 0) return GRT_ERROR(UNAVAILABLE, "%s: cannot open: %s", shown, strerror(errno));
  grt_status* s = fill(shown, fd, write, ctx);
  if (grt_sys_close(fd) != 0 && !s)
    s = GRT_ERROR(UNAVAILABLE, "%s: cannot write: %s", shown, strerror(errno));
  return s;
}

/* This host's tag in temporary names: 8 hex digits hashed from the host
 * name (FNV-1a), so names stay short and free of odd characters. */
static unsigned host_tag(void) {
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  unsigned h = 2166136261u;
  for (const char* c = host; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
  return h;
}

/* The longest suffix a temporary name adds: ".tmp." HOST(8) "." PID (at most
 * 10 digits: pid_t is 32 bits) "." RANDOM(8). */
enum { kTempSuffixMax = 5 + 8 + 1 + 10 + 1 + 8 };

/* How many bytes of the file name `base` (no directory) start the names
 * of its temporaries: all of them, unless the suffix would push the name
 * past NAME_MAX (a 229-byte destination could be replaced otherwise only
 * with "File name too long"); then as many as leave room for it. The
 * writer and the sweep both take the prefix from here, so a shortened
 * name's leftovers are still found. */
static size_t temp_prefix(const char* base) {
  size_t n = strlen(base);
  return n + kTempSuffixMax <= NAME_MAX ? n : NAME_MAX - kTempSuffixMax;
}

/* A fresh name for a temporary beside `dest`: DEST.tmp.HOST.PID.RANDOM, with
 * DEST's file name cut to temp_prefix. */
static void temp_name(char* buf, size_t size, const char* dest) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char r[8];
  if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32);
    for (size_t i = 0; i < sizeof r; i++) r[i] = (unsigned char)(x >> (8 * i));
  }
  char suffix[sizeof r + 1];
  for (size_t i = 0; i < sizeof r; i++) suffix[i] = kChars[r[i] % (sizeof kChars - 1)];
  suffix[sizeof r] = '\0';
  const char* slash = strrchr(dest, '/');
  const char* base = slash ? slash + 1 : dest;
  int keep = (int)((size_t)(base - dest) + temp_prefix(base));
  snprintf(buf, size, "%.*s.tmp.%08x.%ld.%s", keep, dest, host_tag(), (long)getpid(), suffix);
}

/* The writer's process id when `name` is a temporary of ours for the file
 * named `base` written on this host (BASE.tmp.HOST.PID.RANDOM, BASE cut to
 * temp_prefix); -1 if not. */
static long temp_writer(const char* name, const char* base, unsigned host) {
  size_t n = temp_prefix(base);
  if (strncmp(name, base, n) != 0 || strncmp(name + n, ".tmp.", 5) != 0) return -1;
  const char* p = name + n + 5;
  char* end;
  unsigned long tag = strtoul(p, &end, 16);
  if (end != p + 8 || *end != '.' || tag != host) return -1;
  p = end + 1;
  long pid = strtol(p, &end, 10);
  if (end == p || *end != '.' || pid <= 0) return -1;
  p = end + 1;
  if (strlen(p) != 8) return -1;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
      return -1;
  return pid;
}

/* Removes temporaries of `dest` left in `dir` by writers on this host that
 * no longer run (killed between naming a file and renaming it). Best
 * effort: a directory we cannot read keeps what it holds. A live writer's
 * temporary, our own process's included (another thread), is never touched. */
static void sweep_dead_writers(const char* dir, const char* dest) {
  const char* slash = strrchr(dest, '/');
  const char* base = slash ? slash + 1 : dest;
  DIR* d = opendir(dir);
  if (!d) return;
  int dfd = dirfd(d);
  unsigned host = host_tag();
  long self = (long)getpid();
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    long pid = temp_writer(e->d_name, base, host);
    if (pid < 0 || pid == self) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to ask */
    (void)unlinkat(dfd, e->d_name, 0);
  }
  closedir(d);
}

typedef struct {
  const char* shown; /* the path the caller gave, for messages */
  const char* dest;  /* the resolved destination */
  char* dir;         /* its directory */
  int fd;            /* the new file */
  bool unnamed;      /* fd is an O_TMPFILE */
  char* temp;        /* a named temporary in `dir` while one exists */
  size_t temp_size;
} job;

/* Opens the new file: unnamed where the file system allows, else named. */
static grt_status* create(job* j) {
  j->fd = grt_sys_open(j->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (j->fd >= 0) {
    j->unnamed = true;
    return NULL;
  }
  /* No O_TMPFILE here (old kernel, or a file system such as NFS without it). */
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    return GRT_ERROR(UNAVAILABLE, "%s: cannot create a file in %s: %s", j->shown, j->dir,
                     strerror(errno));
  for (int tries = 0; tries < 100; tries++) {
    temp_name(j->temp, j->temp_size, j->dest);
    j->fd = grt_sys_open(j->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (j->fd >= 0) return NULL;
    if (errno != EEXIST) break;
  }
  grt_status* s = GRT_ERROR(UNAVAILABLE, "%s: cannot create a temporary file beside it: %s",
                            j->shown, strerror(errno));
  j->temp[0] = '\0';
  return s;
}

/* Gives the finished, synced file the destination's name. */
static grt_status* publish(job* j) {
  if (j->unnamed) {
    char proc[48];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", j->fd);
    if (grt_sys_linkat(AT_FDCWD, proc, AT_FDCWD, j->dest, AT_SYMLINK_FOLLOW) == 0) return NULL;
    if (errno != EEXIST)
      return GRT_ERROR(UNAVAILABLE, "%s: cannot link the finished file into place: %s", j->shown,
                       strerror(errno));
    /* The destination exists: link under a temporary name, rename over it. */
    for (int tries = 0;; tries++) {
      temp_name(j->temp, j->temp_size, j->dest);
      if (grt_sys_linkat(AT_FDCWD, proc, AT_FDCWD, j->temp, AT_SYMLINK_FOLLOW) == 0) break;
      int err = errno;
      j->temp[0] = '\0';
      if (err != EEXIST || tries == 100)
        return GRT_ERROR(UNAVAILABLE, "%s: cannot link the finished file beside it: %s", j->shown,
                         strerror(err));
    }
  }
  if (grt_sys_rename(j->temp, j->dest) != 0)
    return GRT_ERROR(UNAVAILABLE, "%s: cannot rename the finished file into place: %s", j->shown,
                     strerror(errno));
  j->temp[0] = '\0'; /* it is the destination now */
  return NULL;
}

static grt_status* sync_dir(const job* j) {
  int dfd = open(j->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return NULL; /* a directory we may not open: nothing more we can do */
  grt_status* s = NULL;
  if (grt_sys_fsync(dfd) != 0 && errno != EINVAL)
    s = GRT_ERROR(UNAVAILABLE, "%s: cannot sync its directory %s: %s", j->shown, j->dir,
                  strerror(errno));
  close(dfd);
  return s;
}

static grt_status* replace(const char* shown, const char* dest, write_fn write, void* ctx) {
  size_t len = strlen(dest);
  job j = {shown, dest, NULL, -1, false, NULL, len + 64};
  j.dir = grt_malloc(len + 2);
  j.temp = grt_malloc(j.temp_size);
  if (!j.dir || !j.temp) {
    grt_free(j.dir);
    grt_free(j.temp);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "%s: out of memory", shown);
  }
  j.temp[0] = '\0';
  const char* slash = strrchr(dest, '/');
  if (!slash)
    snprintf(j.dir, len + 2, ".");
  else if (slash == dest)
    snprintf(j.dir, len + 2, "/");
  else
    snprintf(j.dir, len + 2, "%.*s", (int)(slash - dest), dest);

  struct stat old;
  bool existed = stat(dest, &old) == 0;
  grt_status* s = create(&j);
  if (!s && existed) fchmod(j.fd, old.st_mode & 07777);
  if (!s) s = fill(shown, j.fd, write, ctx);
  if (!s && grt_sys_fsync(j.fd) != 0)
    s = GRT_ERROR(UNAVAILABLE, "%s: cannot sync: %s", shown, strerror(errno));
  if (!s && !j.unnamed) { /* a named temporary is closed before the rename */
    int fd = j.fd;
    j.fd = -1;
    if (grt_sys_close(fd) != 0)
      s = GRT_ERROR(UNAVAILABLE, "%s: cannot write: %s", shown, strerror(errno));
  }
  if (!s) s = publish(&j);
  if (!s) s = sync_dir(&j);
  if (!s) sweep_dead_writers(j.dir, dest);
  /* Data and name are synced by now; a failing close changes nothing. */
  if (j.fd >= 0) (void)grt_sys_close(j.fd);
  if (j.temp[0]) unlink(j.temp);
  grt_free(j.dir);
  grt_free(j.temp);
  return s;
}

grt_status* grt_write_file_atomic(const char* path, write_fn write, void* ctx) {
  if (!path || !*path) return GRT_ERROR(INVALID_ARGUMENT, "no output path given");
  char* dest;
  grt_status* s = resolve(path, &dest);
  if (s) return s;
  struct stat st;
  if (own_descriptor(dest) >= 0) {
    s = write_in_place(path, dest, write, ctx);
  } else if (stat(dest, &st) == 0 && S_ISDIR(st.st_mode)) {
    s = GRT_ERROR(INVALID_ARGUMENT, "%s: is a directory", path);
  } else if (stat(dest, &st) == 0 && !S_ISREG(st.st_mode)) {
    s = write_in_place(path, dest, write, ctx);
  } else {
    s = replace(path, dest, write, ctx);
  }
  grt_free(dest);
  return s;
}
