/* A picture of the plan: DOT, or SVG through Graphviz's `dot`. Nodes are
 * filled with their device's colour; edges that cross devices (where copies
 * go) are red, bold and dashed; control edges are dotted. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/status.h"
#include "placer/internal.h"

extern char** environ;

static const char* const kPalette[] = {
    "#cfe2f3", "#d9ead3", "#fff2cc", "#f4cccc", "#d9d2e9", "#fce5cd",
    "#d0e0e3", "#ead1dc", "#b6d7a8", "#ffe599", "#9fc5e8", "#ea9999",
};
#define PALETTE_SIZE ((int32_t)(sizeof kPalette / sizeof kPalette[0]))

static void put_label(FILE* f, const char* s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
}

grt_status* grt_plan_write_dot(const grt_plan* p, FILE* f) {
  if (!p || !f) return GRT_ERROR(INVALID_ARGUMENT, "grt_plan_write_dot needs a plan and a file");
  const grt_device_set* ds = p->devices;
  const grt_node* nodes = p->g->nodes;
  fprintf(f, "digraph plan {\n  rankdir=TB;\n");
  fprintf(f, "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n");
  fprintf(f, "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  fprintf(f, "  subgraph cluster_devices {\n    label=\"devices\";\n");
  for (int32_t i = 0; i < ds->n; i++)
    fprintf(f, "    d%d [label=\"%s:%d\", fillcolor=\"%s\"];\n", (int)i,
            grt_device_type_name(ds->devs[i].type), (int)ds->devs[i].id,
            kPalette[i % PALETTE_SIZE]);
  fprintf(f, "  }\n");
  for (int32_t v = 0; v < p->n; v++) {
    const grt_device_entry* d = &ds->devs[p->device[v]];
    fprintf(f, "  n%d [label=\"", (int)v);
    put_label(f, nodes[v].name);
    fprintf(f, "\\n");
    put_label(f, nodes[v].op);
    fprintf(f, "\\n%s:%d\", fillcolor=\"%s\"];\n", grt_device_type_name(d->type), (int)d->id,
            kPalette[p->device[v] % PALETTE_SIZE]);
  }
  for (int32_t v = 0; v < p->n; v++) {
    const grt_node* n = &nodes[v];
    for (int32_t i = 0; i < n->n_inputs + n->n_controls; i++) {
      bool control = i >= n->n_inputs;
      const grt_input* in = control ? &n->controls[i - n->n_inputs] : &n->inputs[i];
      bool cross = p->device[in->src] != p->device[v];
      fprintf(f, "  n%d -> n%d", (int)in->src, (int)v);
      if (cross || control) {
        fprintf(f, " [");
        if (cross) fprintf(f, "color=\"red\", penwidth=2, xlabel=\"copy\", style=\"%s\"",
                           control ? "dotted" : "dashed");
        else fprintf(f, "style=\"dotted\"");
        fprintf(f, "]");
      }
      fprintf(f, ";\n");
    }
  }
  fprintf(f, "}\n");
  if (fflush(f) != 0 || ferror(f)) return GRT_ERROR(UNAVAILABLE, "cannot write the DOT graph");
  return NULL;
}

static bool ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* A temporary file beside `path` (so the final rename stays on one file
 * system). Caller frees the name. */
static char* temp_beside(const char* path, int* out_fd) {
  size_t n = strlen(path);
  char* name = grt_malloc(n + 16);
  if (!name) return NULL;
  snprintf(name, n + 16, "%s.tmp.XXXXXX", path);
  *out_fd = mkstemp(name);
  if (*out_fd < 0) {
    free(name);
    return NULL;
  }
  fchmod(*out_fd, 0644); /* mkstemp's 0600 would stick to the output */
  return name;
}

static grt_status* write_dot_file(const grt_plan* p, const char* path, char** out_tmp) {
  int fd;
  char* tmp = temp_beside(path, &fd);
  if (!tmp) return GRT_ERROR(UNAVAILABLE, "cannot create a file beside '%s': %s", path, strerror(errno));
  FILE* f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(tmp);
    free(tmp);
    return GRT_ERROR(UNAVAILABLE, "cannot write '%s': %s", path, strerror(errno));
  }
  grt_status* s = grt_plan_write_dot(p, f);
  if (fclose(f) != 0 && !s) s = GRT_ERROR(UNAVAILABLE, "cannot write '%s'", path);
  if (s) {
    unlink(tmp);
    free(tmp);
    return s;
  }
  *out_tmp = tmp;
  return NULL;
}

/* Runs `dot -Tsvg -o out in` without a shell (file names are not parsed). */
static grt_status* run_dot(const char* in, const char* out) {
  char* argv[] = {"dot", "-Tsvg", "-o", (char*)out, (char*)in, NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, "dot", NULL, NULL, argv, environ);
  if (rc != 0)
    return GRT_ERROR(UNAVAILABLE, "cannot run Graphviz 'dot' to draw SVG: %s (is graphviz installed?)",
                     strerror(rc));
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return GRT_ERROR(UNAVAILABLE, "waiting for Graphviz 'dot': %s", strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return GRT_ERROR(UNAVAILABLE, "Graphviz 'dot -Tsvg' failed (status %d)", status);
  return NULL;
}

grt_status* grt_plan_save_picture(const grt_plan* p, const char* path) {
  if (!p || !path || !*path) return GRT_ERROR(INVALID_ARGUMENT, "no output path for the picture");
  char* dot_tmp = NULL;
  GRT_RETURN_IF_ERROR(write_dot_file(p, path, &dot_tmp));
  grt_status* s = NULL;
  if (ends_with(path, ".svg")) {
    int fd;
    char* svg_tmp = temp_beside(path, &fd);
    if (!svg_tmp) {
      s = GRT_ERROR(UNAVAILABLE, "cannot create a file beside '%s': %s", path, strerror(errno));
    } else {
      close(fd);
      s = run_dot(dot_tmp, svg_tmp);
      if (!s && rename(svg_tmp, path) != 0)
        s = GRT_ERROR(UNAVAILABLE, "cannot write '%s': %s", path, strerror(errno));
      if (s) unlink(svg_tmp);
      free(svg_tmp);
    }
    unlink(dot_tmp);
  } else if (rename(dot_tmp, path) != 0) {
    s = GRT_ERROR(UNAVAILABLE, "cannot write '%s': %s", path, strerror(errno));
    unlink(dot_tmp);
  }
  free(dot_tmp);
  return s;
}
