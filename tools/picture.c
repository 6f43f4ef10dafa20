/* Pictures of a plan: the library writes DOT (grt_plan_write_dot); drawing
 * SVG means running Graphviz, which only the command does. */
#include "tools/picture.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
  const char* path;
} svg_job;

/* Runs `dot -Tsvg IN` without a shell (file names are not parsed), its
 * output going to `out_fd`. */
static grt_status* run_dot(const char* in, int out_fd) {
  char* argv[] = {"dot", "-Tsvg", (char*)in, NULL};
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0)
    return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  int rc = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
  pid_t pid;
  if (rc == 0) rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return grt_status_new(GRT_UNAVAILABLE,
                          "cannot run Graphviz 'dot' to draw SVG: %s (is graphviz installed?)",
                          strerror(rc));
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return grt_status_new(GRT_UNAVAILABLE, "waiting for Graphviz 'dot': %s", strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return grt_status_new(GRT_UNAVAILABLE, "Graphviz 'dot -Tsvg' failed (status %d)", status);
  return NULL;
}

/* Writes the SVG into `f` (grt_write_file_atomic's temporary): the DOT goes
 * to a temporary file beside the output, dot draws it into f's descriptor. */
static grt_status* write_svg(void* ctx, FILE* f) {
  const svg_job* job = ctx;
  size_t n = strlen(job->path) + 16;
  char* dot_path = malloc(n);
  if (!dot_path) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory");
  snprintf(dot_path, n, "%s.dot.XXXXXX", job->path);
  int fd = mkstemp(dot_path);
  if (fd < 0) {
    grt_status* s = grt_status_new(GRT_UNAVAILABLE, "cannot create a file beside '%s': %s",
                                   job->path, strerror(errno));
    free(dot_path);
    return s;
  }
  FILE* dot = fdopen(fd, "w");
  grt_status* s = NULL;
  if (!dot) {
    s = grt_status_new(GRT_UNAVAILABLE, "cannot write '%s': %s", dot_path, strerror(errno));
    close(fd);
  } else {
    s = grt_plan_write_dot(job->plan, dot);
    if (fclose(dot) != 0 && !s)
      s = grt_status_new(GRT_UNAVAILABLE, "cannot write '%s': %s", dot_path, strerror(errno));
  }
  if (!s && fflush(f) != 0)
    s = grt_status_new(GRT_UNAVAILABLE, "cannot write '%s': %s", job->path, strerror(errno));
  if (!s) s = run_dot(dot_path, fileno(f));
  unlink(dot_path);
  free(dot_path);
  return s;
}

grt_status* grt_tool_save_picture(const grt_plan* p, const char* path) {
  if (!p || !path || !*path)
    return grt_status_new(GRT_INVALID_ARGUMENT, "no output path for the picture");
  if (!ends_with(path, ".svg")) return grt_write_file_atomic(path, write_dot, (void*)p);
  svg_job job = {p, path};
  return grt_write_file_atomic(path, write_svg, &job);
}
