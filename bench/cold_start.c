/* Cold start: what a fresh process pays for its first call into grt, one new
 * process per sample (bench/cold_start_child.c), beside the same work done a
 * second time in that process.
 *
 *   (a) devices: load libgrt + what `grt devices` does (plugin discovery,
 *       each backend's probe, the device listing)
 *   (b) session: load libgrt, list the devices, load a 10k-node chain of
 *       scalar Adds (.grt, pinned to the CPU), create the first session, run
 *       it once; every phase in ms from posix_spawn, then to the exit
 *   (c) second: the same load + session + run again in the process of (b)
 *
 * The library and its plugins are installed as a host would have them, in a
 * temporary lib/ of links: the CUDA plugin beside libgrt.so (where it was
 * built: on a machine without a GPU it probes and finds none), the test
 * plugin on GRT_PLUGIN_PATH. Samples of each kind are interleaved, round by
 * round, so drift from the machine's other load falls on all of them; min and
 * median. `libs` rows: each library grt links, dlopen'ed alone in a fresh
 * process (with its own dependencies), for what the library load is made of.
 *
 *   bazel run -c opt //bench:cold_start [-- --samples N]
 *
 * The environment is passed on as it is (a host owns it): OpenBLAS starts its
 * threads as it loads unless OPENBLAS_NUM_THREADS=1 is set, as `grt` sets it
 * (tools/blas_threads.h). Figures: bench/README.md. */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grt/grt.h"

extern char** environ;

enum { kMaxPhases = 16, kMaxSamples = 200 };

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void check(grt_status* s, const char* what) {
  if (!s) return;
  fprintf(stderr, "cold_start: %s: %s\n", what, grt_status_message(s));
  exit(1);
}

/* ---- the graph ----------------------------------------------------------- */

static int32_t pinned(grt_graph* g, const char* name, const char* op) {
  int32_t i;
  check(grt_graph_add_node(g, name, op, &i), name);
  check(grt_graph_set_device(g, i, "/device:CPU:0"), name);
  check(grt_graph_set_attr_type(g, i, op[0] == 'A' ? "T" : "dtype", GRT_FLOAT32), name);
  return i;
}

/* x -> Add(x, one) -> ... n times, the last named "last". Pinned to the CPU:
 * the test plugin's TEST devices have Add rows and a higher priority. */
static void write_chain(const char* path, int n) {
  grt_graph* g;
  check(grt_graph_new(&g), "graph");
  int32_t x = pinned(g, "x", "Placeholder");
  check(grt_graph_set_attr_shape(g, x, "shape", 0, NULL), "x");
  grt_tensor* one;
  check(grt_tensor_new(GRT_FLOAT32, 0, NULL, &one), "one");
  *(float*)grt_tensor_data(one) = 1.0f;
  check(grt_graph_set_attr_tensor(g, pinned(g, "one", "Const"), "value", one), "one");
  grt_tensor_free(one);
  char prev[32] = "x", name[32];
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, i == n - 1 ? "last" : "add%d", i);
    int32_t a = pinned(g, name, "Add");
    check(grt_graph_add_input(g, a, prev), name);
    check(grt_graph_add_input(g, a, "one"), name);
    memcpy(prev, name, sizeof prev);
  }
  check(grt_graph_save(g, path), path);
  grt_graph_free(g);
}

/* ---- samples ------------------------------------------------------------- */

typedef struct {
  const char* title;
  char names[kMaxPhases][64];
  int n_phases;
  double ms[kMaxPhases + 1][kMaxSamples]; /* per phase, then the exit */
  int n;
} series;

/* Runs the child once; its phases and the time to its exit go into `s`.
 * A failed child ends the benchmark unless it is `optional`. */
static void sample(series* s, char* const* argv_tail, const char* child, bool optional) {
  char spawn_ns[32];
  char* argv[24] = {(char*)child, spawn_ns};
  int argc = 2;
  while (*argv_tail && argc < 23) argv[argc++] = *argv_tail++;
  argv[argc] = NULL;
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    exit(1);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  int64_t t0 = now_ns();
  snprintf(spawn_ns, sizeof spawn_ns, "%lld", (long long)t0);
  pid_t pid;
  int rc = posix_spawn(&pid, child, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    fprintf(stderr, "cold_start: cannot start %s: %s\n", child, strerror(rc));
    exit(1);
  }
  char line[2048];
  size_t len = 0;
  ssize_t got;
  while ((got = read(fds[0], line + len, sizeof line - 1 - len)) > 0) len += (size_t)got;
  close(fds[0]);
  line[len] = '\0';
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int64_t t_exit = now_ns();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (optional) return;
    fprintf(stderr, "cold_start: %s %s failed\n", child, argv[2]);
    exit(1);
  }
  if (s->n == kMaxSamples) return;
  /* "phase=ns phase=ns ...": durations of each phase from the one before. */
  int k = 0;
  double prev = 0;
  for (char* tok = strtok(line, " \n"); tok && k < kMaxPhases; tok = strtok(NULL, " \n"), k++) {
    char* eq = strrchr(tok, '=');
    if (!eq) break;
    *eq = '\0';
    double at = strtod(eq + 1, NULL) / 1e6;
    snprintf(s->names[k], sizeof s->names[k], "%s", tok);
    s->ms[k][s->n] = at - prev;
    prev = at;
  }
  s->n_phases = k;
  s->ms[k][s->n] = (double)(t_exit - t0) / 1e6 - prev; /* the exit itself */
  s->n++;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* min and median of n values (sorted in place). */
static void stats(double* v, int n, double* lo, double* med) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  *lo = v[0];
  *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each phase's duration, then the sums of phases [from, to): min / median. */
static void report(series* s, int from, int to, const char* sum_label) {
  printf("%s\n", s->title);
  double total[kMaxSamples] = {0};
  for (int k = 0; k <= s->n_phases; k++) {
    double v[kMaxSamples];
    memcpy(v, s->ms[k], sizeof(double) * (size_t)s->n);
    for (int i = 0; i < s->n && k >= from && k < to; i++) total[i] += v[i];
    double lo, med;
    stats(v, s->n, &lo, &med);
    const char* name = k < s->n_phases ? s->names[k] : "exit";
    if (strncmp(name, "/", 1) == 0) name = strrchr(name, '/') + 1;
    printf("  %-22s %8.2f %8.2f\n", name, lo, med);
  }
  if (sum_label) {
    double lo, med;
    stats(total, s->n, &lo, &med);
    printf("  %-22s %8.2f %8.2f\n", sum_label, lo, med);
  }
}

/* ---- the installation ---------------------------------------------------- */

static void link_into(const char* dir, const char* target, const char* name) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (symlink(target, path) != 0) {
    fprintf(stderr, "cold_start: cannot link %s: %s\n", path, strerror(errno));
    exit(1);
  }
}

static bool exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

int main(int argc, char** argv) {
  int samples = 15, nodes = 10000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) samples = atoi(argv[++i]);
    else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) nodes = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: cold_start [--samples N] [--nodes N]\n");
      return 2;
    }
  }
  if (samples < 1 || samples > kMaxSamples || nodes < 1) {
    fprintf(stderr, "cold_start: --samples 1..%d, --nodes at least 1\n", kMaxSamples);
    return 2;
  }
  /* The binaries beside this one in Bazel's output tree. */
  char self[PATH_MAX], bin[PATH_MAX], child[PATH_MAX + 32], libgrt[PATH_MAX + 32],
      cuda[PATH_MAX + 64], test[PATH_MAX + 64];
  if (!realpath("/proc/self/exe", self)) {
    perror("/proc/self/exe");
    return 1;
  }
  snprintf(bin, sizeof bin, "%s", self);
  *strrchr(bin, '/') = '\0'; /* .../bin/bench */
  snprintf(child, sizeof child, "%s/cold_start_child", bin);
  *strrchr(bin, '/') = '\0'; /* .../bin */
  snprintf(libgrt, sizeof libgrt, "%s/libgrt.so", bin);
  snprintf(cuda, sizeof cuda, "%s/backends/cuda/libgrt_backend_cuda.so", bin);
  snprintf(test, sizeof test, "%s/tests/plugin/libgrt_backend_test.so", bin);

  char dir[] = "/tmp/grt-cold-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char lib[sizeof dir + 8], lib_grt[sizeof dir + 32], chain[sizeof dir + 32];
  snprintf(lib, sizeof lib, "%s/lib", dir);
  snprintf(lib_grt, sizeof lib_grt, "%s/libgrt.so", lib);
  snprintf(chain, sizeof chain, "%s/chain.grt", dir);
  if (mkdir(lib, 0755) != 0) {
    perror(lib);
    return 1;
  }
  link_into(lib, libgrt, "libgrt.so");
  bool have_cuda = exists(cuda);
  if (have_cuda) link_into(lib, cuda, "libgrt_backend_cuda.so");
  if (setenv("GRT_PLUGIN_PATH", test, 1) != 0) return 1;
  write_chain(chain, nodes);

  series dev = {.title = "(a) library + devices"};
  series ses = {.title = "(b) first session, from posix_spawn"};
  /* The libraries libgrt and the CUDA plugin link, each alone. */
  static const char* const kLibs[] = {
      "libgomp.so.1",    "libopenblas.so.0", "libdnnl.so.2", "libcudart.so.13",
      "libcublas.so.13", "libcudnn.so.9",    "libnccl.so.2",
  };
  enum { kNLibs = sizeof kLibs / sizeof kLibs[0] };
  series libs[kNLibs];
  memset(libs, 0, sizeof libs);
  char* dev_args[] = {"devices", lib_grt, NULL};
  char* ses_args[] = {"session", lib_grt, chain, NULL};
  for (int r = 0; r < samples; r++) {
    sample(&dev, dev_args, child, false);
    sample(&ses, ses_args, child, false);
    for (int i = 0; i < kNLibs; i++) {
      char* lib_args[] = {"libs", (char*)kLibs[i], NULL};
      sample(&libs[i], lib_args, child, true); /* absent without CUDA: no row */
    }
  }
  printf("cold start: %d samples of each, interleaved; %d-node chain; %s\n"
         "ms: phase durations (min, median), each from the end of the one before\n",
         samples, nodes, have_cuda ? "CUDA plugin installed" : "no CUDA plugin (not built)");
  printf("  %-22s %8s %8s\n", "", "min", "median");
  report(&dev, 0, dev.n_phases, "to the listing");
  /* (b)'s phases: main library devices load session run | second_* */
  int second = 0;
  while (second < ses.n_phases && strncmp(ses.names[second], "second_", 7) != 0) second++;
  report(&ses, 0, second, "first result");
  printf("(c) second session, same process: load+session+run\n");
  {
    double v[kMaxSamples], lo, med;
    for (int i = 0; i < ses.n; i++) {
      v[i] = 0;
      for (int k = second; k < ses.n_phases; k++) v[i] += ses.ms[k][i];
    }
    stats(v, ses.n, &lo, &med);
    printf("  %-22s %8.2f %8.2f\n", "second result", lo, med);
  }
  printf("libs: dlopen of one library (and its dependencies) in a fresh process\n");
  for (int i = 0; i < kNLibs; i++) {
    double v[kMaxSamples], lo, med;
    if (!libs[i].n) {
      printf("  %-22s   absent\n", kLibs[i]);
      continue;
    }
    for (int j = 0; j < libs[i].n; j++) v[j] = libs[i].ms[1][j];
    stats(v, libs[i].n, &lo, &med);
    printf("  %-22s %8.2f %8.2f\n", kLibs[i], lo, med);
  }
  unlink(chain);
  char link_path[sizeof lib + 32];
  snprintf(link_path, sizeof link_path, "%s/libgrt_backend_cuda.so", lib);
  if (have_cuda) unlink(link_path);
  unlink(lib_grt);
  rmdir(lib);
  rmdir(dir);
  return 0;
}
