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
 *   bazel run -c opt //bench:cold_start [-- --samples N] [--compare BIN] [--keep]
 *
 * --compare BIN: a second build (a bazel-bin, or a copy of its libgrt.so,
 * backends/cuda/ and tests/plugin/), sampled in the same rounds and printed
 * beside: before/after figures from one sitting of this noisy machine.
 * --keep leaves the installation and the chain in /tmp and prints the
 * child's command line, to run it under a profiler.
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
  char names[kMaxPhases][64];
  int n_phases;
  double ms[kMaxPhases + 1][kMaxSamples]; /* per phase, then the exit */
  double cpu[kMaxPhases][kMaxSamples];    /* the process's CPU time in each phase */
  double threads[kMaxSamples];            /* after the first run, where counted */
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
  /* "phase=ns,cpu_ns ... #threads=N": durations of each phase from the one
   * before. */
  int k = 0;
  double prev = 0, prev_cpu = 0;
  s->threads[s->n] = -1;
  for (char* tok = strtok(line, " \n"); tok && k < kMaxPhases; tok = strtok(NULL, " \n")) {
    char* eq = strrchr(tok, '=');
    if (!eq) break;
    *eq = '\0';
    if (tok[0] == '#') {
      s->threads[s->n] = strtod(eq + 1, NULL);
      continue;
    }
    char* comma;
    double at = strtod(eq + 1, &comma) / 1e6;
    double cpu = *comma == ',' ? strtod(comma + 1, NULL) / 1e6 : 0;
    snprintf(s->names[k], sizeof s->names[k], "%s", tok);
    s->ms[k][s->n] = at - prev;
    s->cpu[k][s->n] = cpu - prev_cpu;
    prev = at;
    prev_cpu = cpu;
    k++;
  }
  s->n_phases = k;
  s->ms[k][s->n] = (double)(t_exit - t0) / 1e6 - prev; /* the exit itself */
  s->n++;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* min and median of n values (a sorted copy). */
static void stats(const double* values, int n, double* lo, double* med) {
  double v[kMaxSamples];
  memcpy(v, values, sizeof *v * (size_t)n);
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  *lo = v[0];
  *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the installations --------------------------------------------------- */

/* A libgrt.so with its plugins, linked into DIR/NAME/lib as a host installs
 * them, and the samples taken with it. */
typedef struct {
  const char* name;
  char lib[PATH_MAX + 16];
  char lib_grt[PATH_MAX + 32];
  bool cuda;
  series dev, ses;
} install;

static void link_into(const char* dir, const char* target, const char* name) {
  char path[PATH_MAX + 64];
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

/* bin: a Bazel output tree (bazel-bin, or a copy of its libgrt.so,
 * backends/cuda/ and tests/plugin/). */
static void install_from(install* in, const char* name, const char* bin, const char* dir) {
  in->name = name;
  char sub[PATH_MAX], libgrt[PATH_MAX + 32], cuda[PATH_MAX + 64];
  snprintf(sub, sizeof sub, "%s/%s", dir, name);
  snprintf(in->lib, sizeof in->lib, "%s/lib", sub);
  if (mkdir(sub, 0755) != 0 || mkdir(in->lib, 0755) != 0) {
    perror(in->lib);
    exit(1);
  }
  snprintf(libgrt, sizeof libgrt, "%s/libgrt.so", bin);
  snprintf(cuda, sizeof cuda, "%s/backends/cuda/libgrt_backend_cuda.so", bin);
  if (!exists(libgrt)) {
    fprintf(stderr, "cold_start: no %s\n", libgrt);
    exit(1);
  }
  link_into(in->lib, libgrt, "libgrt.so");
  in->cuda = exists(cuda);
  if (in->cuda) link_into(in->lib, cuda, "libgrt_backend_cuda.so");
  snprintf(in->lib_grt, sizeof in->lib_grt, "%s/libgrt.so", in->lib);
}

static void uninstall(const install* in) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/libgrt_backend_cuda.so", in->lib);
  if (in->cuda) unlink(path);
  unlink(in->lib_grt);
  rmdir(in->lib);
  *strrchr(in->lib, '/') = '\0';
  rmdir(in->lib);
}

/* ---- the report ---------------------------------------------------------- */

/* Per installation: wall min and median, then CPU min and median when given. */
static void row(const char* label, const double lo[], const double med[], const double cpu_lo[],
                const double cpu_med[], int n) {
  printf("  %-18s", label);
  for (int i = 0; i < n; i++) {
    printf(" |%7.2f %7.2f", lo[i], med[i]);
    if (cpu_lo)
      printf(" %7.2f %7.2f", cpu_lo[i], cpu_med[i]);
    else
      printf(" %15s", "");
  }
  printf("\n");
}

/* Each phase of `which` (0: dev, 1: ses) per installation, then the sum of
 * phases [from, to) as `sum_label`. */
static void report(install* ins, int n_ins, int which, int from, int to, const char* sum_label) {
  const series* s0 = which ? &ins[0].ses : &ins[0].dev;
  for (int k = 0; k <= s0->n_phases; k++) {
    double lo[2], med[2], clo[2], cmed[2];
    for (int i = 0; i < n_ins; i++) {
      const series* s = which ? &ins[i].ses : &ins[i].dev;
      stats(s->ms[k], s->n, &lo[i], &med[i]);
      if (k < s0->n_phases) stats(s->cpu[k], s->n, &clo[i], &cmed[i]);
    }
    bool phase = k < s0->n_phases;
    row(phase ? s0->names[k] : "exit", lo, med, phase ? clo : NULL, cmed, n_ins);
  }
  double lo[2], med[2], clo[2], cmed[2];
  for (int i = 0; i < n_ins; i++) {
    const series* s = which ? &ins[i].ses : &ins[i].dev;
    double total[kMaxSamples] = {0}, cpu[kMaxSamples] = {0};
    for (int j = 0; j < s->n; j++)
      for (int k = from; k < to; k++) {
        total[j] += s->ms[k][j];
        cpu[j] += s->cpu[k][j];
      }
    stats(total, s->n, &lo[i], &med[i]);
    stats(cpu, s->n, &clo[i], &cmed[i]);
  }
  row(sum_label, lo, med, clo, cmed, n_ins);
}

int main(int argc, char** argv) {
  int samples = 15, nodes = 10000;
  bool keep = false;
  const char* compare = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--keep") == 0)
      keep = true;
    else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
      samples = atoi(argv[++i]);
    else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
      nodes = atoi(argv[++i]);
    else if (strcmp(argv[i], "--compare") == 0 && i + 1 < argc)
      compare = argv[++i];
    else {
      fprintf(stderr, "usage: cold_start [--samples N] [--nodes N] [--compare BIN] [--keep]\n");
      return 2;
    }
  }
  if (samples < 1 || samples > kMaxSamples || nodes < 1) {
    fprintf(stderr, "cold_start: --samples 1..%d, --nodes at least 1\n", kMaxSamples);
    return 2;
  }
  /* The binaries beside this one in Bazel's output tree. */
  char self[PATH_MAX], bin[PATH_MAX], child[PATH_MAX + 32], test[PATH_MAX + 64];
  if (!realpath("/proc/self/exe", self)) {
    perror("/proc/self/exe");
    return 1;
  }
  snprintf(bin, sizeof bin, "%s", self);
  *strrchr(bin, '/') = '\0'; /* .../bin/bench */
  snprintf(child, sizeof child, "%s/cold_start_child", bin);
  *strrchr(bin, '/') = '\0'; /* .../bin */
  snprintf(test, sizeof test, "%s/tests/plugin/libgrt_backend_test.so", bin);

  char dir[] = "/tmp/grt-cold-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char chain[sizeof dir + 32];
  snprintf(chain, sizeof chain, "%s/chain.grt", dir);
  static install ins[2];
  int n_ins = compare ? 2 : 1;
  install_from(&ins[0], "this", bin, dir);
  if (compare) install_from(&ins[1], "compare", compare, dir);
  if (setenv("GRT_PLUGIN_PATH", test, 1) != 0) return 1;
  write_chain(chain, nodes);

  /* The libraries libgrt and the CUDA plugin link (or open), each alone. */
  static const char* const kLibs[] = {
      "libgomp.so.1",    "libopenblas.so.0", "libdnnl.so.2", "libcudart.so.13",
      "libcublas.so.13", "libcudnn.so.9",    "libnccl.so.2",
  };
  enum { kNLibs = sizeof kLibs / sizeof kLibs[0] };
  static series libs[kNLibs];
  for (int r = 0; r < samples; r++) {
    for (int i = 0; i < n_ins; i++) {
      char* dev_args[] = {"devices", ins[i].lib_grt, NULL};
      char* ses_args[] = {"session", ins[i].lib_grt, chain, NULL};
      sample(&ins[i].dev, dev_args, child, false);
      sample(&ins[i].ses, ses_args, child, false);
    }
    for (int i = 0; i < kNLibs; i++) {
      char* lib_args[] = {"libs", (char*)kLibs[i], NULL};
      sample(&libs[i], lib_args, child, true); /* absent without CUDA: no row */
    }
  }
  printf(
      "cold start: %d samples of each, interleaved; %d-node chain; CUDA plugin %s\n"
      "ms: each phase from the end of the one before; wall clock (min, median), then\n"
      "the process's CPU time in it (min, median)%s\n",
      samples, nodes, ins[0].cuda ? "installed" : "not built",
      compare ? "; this build, then --compare's" : "");
  printf("  %-18s", "");
  for (int i = 0; i < n_ins; i++) printf(" |%7s %7s %7s %7s", "min", "median", "cpu min", "median");
  printf("\n(a) library + devices\n");
  report(ins, n_ins, 0, 0, ins[0].dev.n_phases, "listed");
  /* (b)'s phases: main library devices load session run, then second_*. */
  int second = 0;
  while (second < ins[0].ses.n_phases && strncmp(ins[0].ses.names[second], "second_", 7) != 0)
    second++;
  printf("(b) first session, from posix_spawn\n");
  report(ins, n_ins, 1, 0, second, "first result");
  printf("(c) second session, same process\n");
  {
    double lo[2], med[2], clo[2], cmed[2];
    for (int i = 0; i < n_ins; i++) {
      double v[kMaxSamples] = {0}, c[kMaxSamples] = {0};
      for (int j = 0; j < ins[i].ses.n; j++)
        for (int k = second; k < ins[i].ses.n_phases; k++) {
          v[j] += ins[i].ses.ms[k][j];
          c[j] += ins[i].ses.cpu[k][j];
        }
      stats(v, ins[i].ses.n, &lo[i], &med[i]);
      stats(c, ins[i].ses.n, &clo[i], &cmed[i]);
    }
    row("second result", lo, med, clo, cmed, n_ins);
    for (int i = 0; i < n_ins; i++) stats(ins[i].ses.threads, ins[i].ses.n, &lo[i], &med[i]);
    row("threads after run", lo, med, NULL, NULL, n_ins);
  }
  printf("libs: dlopen of one library (and its dependencies) in a fresh process\n");
  for (int i = 0; i < kNLibs; i++) {
    double lo, med;
    if (!libs[i].n) {
      printf("  %-20s   absent\n", kLibs[i]);
      continue;
    }
    double clo, cmed;
    stats(libs[i].ms[1], libs[i].n, &lo, &med);
    stats(libs[i].cpu[1], libs[i].n, &clo, &cmed);
    row(kLibs[i], &lo, &med, &clo, &cmed, 1);
  }
  if (keep) {
    /* For a profiler: the same child on the same installation. */
    printf("kept: %s SPAWN_NS session %s %s\n", child, ins[0].lib_grt, chain);
    return 0;
  }
  unlink(chain);
  for (int i = 0; i < n_ins; i++) uninstall(&ins[i]);
  rmdir(dir);
  return 0;
}
