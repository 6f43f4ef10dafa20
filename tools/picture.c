/* Pictures of a plan: the library writes DOT (grt_plan_write_dot); drawing
 * SVG means running Graphviz, which only the command does. */
#include "tools/picture.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

static bool ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static grt_status* write_dot(void* plan, FILE* f) { return grt_plan_write_dot(plan, f); }

typedef struct svg_job {
  const grt_plan* plan;
} svg_job;

/* Copies everything readable from `fd` into `out`; false when `out` failed. */
static bool copy_out(int fd, FILE* out) {
  char buf[1 << 15];
  bool ok = true;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    /* Keep reading after a failed write, so dot never blocks on a full pipe. */
    if (ok && fwrite(buf, 1, (size_t)n, out) != (size_t)n) ok = false;
  }
  return ok;
}

/* Runs `dot -Tsvg` without a shell, reading the DOT text from `in_fd`, its
 * output copied into `out` through a pipe (out is grt_write_file_atomic's
 * stream, which has no descriptor of its own). */
static grt_status* run_dot(int in_fd, FILE* out) {
  char* argv[] = {"dot", "-Tsvg", NULL};
  int pipe_fd[2];
  if (pipe2(pipe_fd, O_CLOEXEC) != 0)
    return grt_status_new(GRT_UNAVAILABLE, "cannot make a pipe for Graphviz 'dot': %s",
                          strerror(errno));
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) {
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  }
  int rc = posix_spawn_file_actions_adddup2(&fa, in_fd, STDIN_FILENO);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, pipe_fd[1], STDOUT_FILENO);
  pid_t pid;
  if (rc == 0) rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipe_fd[1]);
  if (rc != 0) {
    close(pipe_fd[0]);
    return grt_status_new(GRT_UNAVAILABLE,
                          "cannot run Graphviz 'dot' to draw SVG: %s (is graphviz installed?)",
                          strerror(rc));
  }
  bool copied = copy_out(pipe_fd[0], out);
  close(pipe_fd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return grt_status_new(GRT_UNAVAILABLE, "waiting for Graphviz 'dot': %s", strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return grt_status_new(GRT_UNAVAILABLE, "Graphviz 'dot -Tsvg' failed (status %d)", status);
  if (!copied) return grt_status_new(GRT_UNAVAILABLE, "cannot write the SVG: %s", strerror(errno));
  return NULL;
}

/* Writes the SVG into `f` (grt_write_file_atomic's stream): the DOT goes to
 * an anonymous in-memory file (nothing named is left if we are killed),
 * which dot reads as its standard input; its SVG is copied into f. */
static grt_status* write_svg(void* ctx, FILE* f) {
  const svg_job* job = ctx;
  int fd = memfd_create("grt-plan.dot", MFD_CLOEXEC);
  if (fd < 0)
    return grt_status_new(GRT_UNAVAILABLE, "cannot make a buffer for the DOT text: %s",
                          strerror(errno));
  FILE* dot = fdopen(fd, "w+");
  if (!dot) {
    grt_status* s =
        grt_status_new(GRT_UNAVAILABLE, "cannot write the DOT text: %s", strerror(errno));
    close(fd);
    return s;
  }
  grt_status* s = grt_plan_write_dot(job->plan, dot);
  if (!s && (fflush(dot) != 0 || lseek(fd, 0, SEEK_SET) != 0))
    s = grt_status_new(GRT_UNAVAILABLE, "cannot write the DOT text: %s", strerror(errno));
  if (!s) s = run_dot(fd, f);
  fclose(dot);
  return s;
}

grt_status* grt_tool_save_picture(const grt_plan* p, const char* path) {
  if (!p || !path || !*path)
    return grt_status_new(GRT_INVALID_ARGUMENT, "no output path for the picture");
  if (!ends_with(path, ".svg")) return grt_write_file_atomic(path, write_dot, (void*)p);
  svg_job job = {p};
  return grt_write_file_atomic(path, write_svg, &job);
}
