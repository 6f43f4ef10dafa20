/* One sample of bench/cold_start: a fresh process that does what a host does
 * on its first call into grt, and says when each step ended.
 *
 *   cold_start_child SPAWN_NS devices LIBGRT
 *   cold_start_child SPAWN_NS session LIBGRT CHAIN.grt
 *   cold_start_child SPAWN_NS libs LIB...
 *
 * SPAWN_NS is CLOCK_MONOTONIC in the driver just before posix_spawn, so every
 * figure runs from the start of the process. The library is dlopen'ed (as a
 * host's loader would map it, RTLD_GLOBAL so plugins bind to it) to time its
 * load apart from the rest; the API is then called through dlsym. One line
 * goes to stdout: "phase=ns,cpu_ns ..." with ns since SPAWN_NS at the end of
 * each phase, in order, the process's CPU time then, and the process's thread count after the first
 * run
 * ("#threads=N"). "libs" dlopens each library in turn (its dependencies
 * with it) and says when each was loaded. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grt/grt.h"

static int64_t g_spawn_ns;

static int64_t since_spawn(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - g_spawn_ns;
}

/* The phases recorded so far, printed as one line at the end. */
static char g_line[1024];
static size_t g_len;

/* CPU time of the whole process (every thread), ns: on a loaded machine
 * the wall clock mostly measures the wait for a core; this does not. */
static int64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void mark(const char* phase) {
  int64_t t = since_spawn();
  int n = snprintf(g_line + g_len, sizeof g_line - g_len, "%s%s=%lld,%lld", g_len ? " " : "", phase,
                   (long long)t, (long long)cpu_ns());
  if (n > 0 && (size_t)n < sizeof g_line - g_len) g_len += (size_t)n;
}

static void die(const char* what, const char* why) {
  fprintf(stderr, "cold_start_child: %s: %s\n", what, why);
  exit(1);
}

/* The public calls this program makes, looked up by name. */
static struct {
  __typeof__(&grt_device_set_from_machine) device_set_from_machine;
  __typeof__(&grt_device_set_write) device_set_write;
  __typeof__(&grt_device_set_free) device_set_free;
  __typeof__(&grt_graph_load) graph_load;
  __typeof__(&grt_graph_free) graph_free;
  __typeof__(&grt_session_new) session_new;
  __typeof__(&grt_session_run) session_run;
  __typeof__(&grt_session_free) session_free;
  __typeof__(&grt_tensor_new) tensor_new;
  __typeof__(&grt_tensor_data) tensor_data;
  __typeof__(&grt_tensor_free) tensor_free;
  __typeof__(&grt_status_message) status_message;
} api;

static const struct {
  const char* name;
  void** slot;
} kSymbols[] = {
    {"grt_device_set_from_machine", (void**)&api.device_set_from_machine},
    {"grt_device_set_write", (void**)&api.device_set_write},
    {"grt_device_set_free", (void**)&api.device_set_free},
    {"grt_graph_load", (void**)&api.graph_load},
    {"grt_graph_free", (void**)&api.graph_free},
    {"grt_session_new", (void**)&api.session_new},
    {"grt_session_run", (void**)&api.session_run},
    {"grt_session_free", (void**)&api.session_free},
    {"grt_tensor_new", (void**)&api.tensor_new},
    {"grt_tensor_data", (void**)&api.tensor_data},
    {"grt_tensor_free", (void**)&api.tensor_free},
    {"grt_status_message", (void**)&api.status_message},
};

static void check(grt_status* s, const char* what) {
  if (s) die(what, api.status_message(s));
}

static void load_library(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!h) die(path, dlerror());
  for (size_t i = 0; i < sizeof kSymbols / sizeof kSymbols[0]; i++) {
    *kSymbols[i].slot = dlsym(h, kSymbols[i].name);
    if (!*kSymbols[i].slot) die(kSymbols[i].name, "not exported");
  }
  mark("library");
}

/* What `grt devices` does: the registry (plugin discovery, each backend's
 * probe) and the device listing. */
static void list_devices(void) {
  grt_device_set* ds;
  check(api.device_set_from_machine(1, &ds), "devices");
  FILE* null = fopen("/dev/null", "w");
  if (!null) die("/dev/null", "cannot open");
  check(api.device_set_write(ds, null), "device listing");
  fclose(null);
  api.device_set_free(ds);
  mark("devices");
}

/* The process's threads now, as "#threads=N" (a count, not a time). */
static void count_threads(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  if (f) fclose(f);
  int k = snprintf(g_line + g_len, sizeof g_line - g_len, " #threads=%d", n);
  if (k > 0 && (size_t)k < sizeof g_line - g_len) g_len += (size_t)k;
}

/* Load the chain, make a session, run it once; `tag` prefixes the phases. */
static void first_run(const char* chain, const char* tag) {
  char phase[32];
  grt_graph* g;
  check(api.graph_load(chain, &g), chain);
  snprintf(phase, sizeof phase, "%sload", tag);
  mark(phase);
  grt_session* s;
  check(api.session_new(g, NULL, &s), "session");
  snprintf(phase, sizeof phase, "%ssession", tag);
  mark(phase);
  grt_tensor* x;
  check(api.tensor_new(GRT_FLOAT32, 0, NULL, &x), "feed");
  *(float*)api.tensor_data(x) = 1.0f;
  grt_feed feed = {"x", x};
  const char* fetch[] = {"last"};
  grt_tensor* y;
  check(api.session_run(s, &feed, 1, fetch, 1, NULL, 0, &y, NULL), "run");
  snprintf(phase, sizeof phase, "%srun", tag);
  mark(phase);
  if (!tag[0]) count_threads();
  api.tensor_free(y);
  api.tensor_free(x);
  api.session_free(s);
  api.graph_free(g);
}

int main(int argc, char** argv) {
  if (argc < 4) die("usage", "cold_start_child SPAWN_NS devices|session|libs ARG...");
  g_spawn_ns = strtoll(argv[1], NULL, 10);
  mark("main");
  const char* mode = argv[2];
  if (strcmp(mode, "libs") == 0) {
    for (int i = 3; i < argc; i++) {
      if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) die(argv[i], dlerror());
      mark(argv[i]);
    }
  } else if (strcmp(mode, "devices") == 0) {
    load_library(argv[3]);
    list_devices();
  } else if (strcmp(mode, "session") == 0 && argc == 5) {
    load_library(argv[3]);
    list_devices(); /* what the session would do first; apart, to see it */
    first_run(argv[4], "");
    first_run(argv[4], "second_"); /* the same again in this process */
  } else {
    die("usage", "unknown mode or wrong arguments");
  }
  printf("%s\n", g_line);
  return 0;
}
