/* The backend registry: built-in backends register themselves when the
 * library loads; plugins are found on first use beside the library and on
 * GRT_PLUGIN_PATH. Entries never change once published, so readers take no
 * lock. */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "kernels/kernel_registry.h"
#include "runtime/device/backend_options.h"
#include "runtime/device/device.h"

enum { kMaxBackends = 16 };

typedef struct {
  const grt_backend* b;
  void* handle;                     /* a plugin's dlopen handle; NULL when built in */
  grt_backend_describe_fn describe; /* a plugin's optional describer */
  int32_t devices;                  /* the probe's answer; -1 until asked (under g_mu) */
  char why[192];                    /* the probe's reason when it found none */
} entry;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static entry g_entries[kMaxBackends];
static int32_t g_n;          /* published entries (atomic) */
static bool g_types_ready;   /* device types registered for the entries (under g_mu) */
static grt_strbuf g_refused; /* one line per plugin refused during discovery (under g_mu) */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static grt_status* check_backend(const grt_backend* b) {
  if (!b) return GRT_ERROR(INVALID_ARGUMENT, "no backend");
  if (b->api_version != GRT_BACKEND_API_VERSION)
    return GRT_ERROR(FAILED_PRECONDITION,
                     "built for backend API version %u, this library has version %u",
                     b->api_version, GRT_BACKEND_API_VERSION);
  if (!b->type || !b->type[0] || strlen(b->type) > 16)
    return GRT_ERROR(INVALID_ARGUMENT, "the backend names no device type");
  if (!b->probe || !b->device_new || !b->kernel)
    return GRT_ERROR(INVALID_ARGUMENT, "backend '%s' lacks probe, device_new or kernel", b->type);
  grt_status* st = grt_backend_options_check(b->options);
  return st ? grt_status_prefix(st, "backend '%s'", b->type) : NULL;
}

/* Makes the backend's device type known to the placer (a new type brings its
 * kernel rows; CPU and GPU rows are built in). Under g_mu. */
static grt_status* register_type(const grt_backend* b) {
  grt_device_type t;
  if (grt_device_type_from_name(b->type, &t)) return NULL;
  return grt_device_type_register(b->type, b->priority, b->rows, b->n_rows, &t);
}

/* Under g_mu. */
static grt_status* add(const grt_backend* b, void* handle) {
  GRT_RETURN_IF_ERROR(check_backend(b));
  for (int32_t i = 0; i < g_n; i++)
    if (g_entries[i].b == b) return NULL; /* the same backend again: already here */
  for (int32_t i = 0; i < g_n; i++)
    if (strcasecmp(g_entries[i].b->type, b->type) == 0)
      return GRT_ERROR(ALREADY_EXISTS, "a backend for device type %s is already registered",
                       b->type);
  if (g_n == kMaxBackends)
    return GRT_ERROR(RESOURCE_EXHAUSTED, "too many backends (at most %d)", kMaxBackends);
  if (g_types_ready) GRT_RETURN_IF_ERROR(register_type(b));
  entry* e = &g_entries[g_n];
  e->b = b;
  e->handle = handle;
  e->devices = -1;
  __atomic_store_n(&g_n, g_n + 1, __ATOMIC_RELEASE);
  return NULL;
}

grt_status* grt_backend_register(const grt_backend* b) {
  pthread_mutex_lock(&g_mu);
  grt_status* st = add(b, NULL);
  pthread_mutex_unlock(&g_mu);
  return st;
}

/* Under g_mu. */
static grt_status* load(const char* path) {
  /* dlopen would block forever opening a FIFO of a plugin's name; stat
   * does not (a file swapped in after this check is the directory owner's
   * doing, who could plant any library there). */
  struct stat info;
  if (stat(path, &info) == 0 && !S_ISREG(info.st_mode))
    return GRT_ERROR(INVALID_ARGUMENT, "plugin %s: not a regular file", path);
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* err = dlerror();
    return GRT_ERROR(NOT_FOUND, "plugin %s: cannot load: %s", path, err ? err : "unknown error");
  }
  grt_backend_entry_fn entry_fn;
  *(void**)&entry_fn = dlsym(h, GRT_BACKEND_ENTRY_SYMBOL);
  if (!entry_fn) {
    dlclose(h);
    return GRT_ERROR(INVALID_ARGUMENT, "plugin %s: no %s() entry point", path,
                     GRT_BACKEND_ENTRY_SYMBOL);
  }
  const grt_backend* b = entry_fn(GRT_BACKEND_API_VERSION);
  grt_status* st =
      b ? add(b, h)
        : GRT_ERROR(FAILED_PRECONDITION, "its entry point returned no backend for API version %u",
                    GRT_BACKEND_API_VERSION);
  if (st) {
    dlclose(h);
    return grt_status_prefix(st, "plugin %s refused", path);
  }
  grt_backend_describe_fn describe;
  *(void**)&describe = dlsym(h, GRT_BACKEND_DESCRIBE_SYMBOL);
  for (int32_t i = 0; i < g_n; i++)
    if (g_entries[i].b == b && !g_entries[i].describe) g_entries[i].describe = describe;
  return NULL;
}

static bool is_plugin_name(const char* name) {
  size_t n = strlen(name);
  return strncmp(name, "libgrt_backend_", 15) == 0 && n > 18 && strcmp(name + n - 3, ".so") == 0;
}

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* Loads every plugin in `dir`, in name order; refusals are noted. */
static void scan_dir(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return;
  char* names[kMaxBackends];
  int n = 0;
  struct dirent* ent;
  while ((ent = readdir(d)) && n < kMaxBackends)
    if (is_plugin_name(ent->d_name)) {
      grt_strbuf path = {0};
      grt_strbuf_printf(&path, "%s/%s", dir, ent->d_name);
      if (path.failed)
        grt_free(path.s);
      else
        names[n++] = path.s;
    }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  for (int i = 0; i < n; i++) {
    grt_status* st = load(names[i]);
    if (st) grt_strbuf_printf(&g_refused, "%s\n", grt_status_message(st));
    grt_status_free(st);
    grt_free(names[i]);
  }
}

static void scan_path_entry(const char* p, size_t len) {
  char* item = grt_strndup(p, len);
  if (!item) return;
  DIR* d = opendir(item);
  if (d) {
    closedir(d);
    scan_dir(item);
  } else if (len) {
    grt_status* st = load(item);
    if (st) grt_strbuf_printf(&g_refused, "%s\n", grt_status_message(st));
    grt_status_free(st);
  }
  grt_free(item);
}

static void discover(void) {
  pthread_mutex_lock(&g_mu);
  /* Beside the library (or the program it is linked into). */
  Dl_info info;
  if (dladdr((void*)&grt_registry_count, &info) && info.dli_fname) {
    const char* slash = strrchr(info.dli_fname, '/');
    if (slash) {
      /* Beside libgrt.so; for a program with the library linked in (the
       * installed grt command in PREFIX/bin), also PREFIX/lib. */
      grt_strbuf dir = {0}, lib = {0};
      grt_strbuf_printf(&dir, "%.*s", (int)(slash - info.dli_fname), info.dli_fname);
      grt_strbuf_printf(&lib, "%s/../lib", grt_strbuf_str(&dir));
      if (!dir.failed) scan_dir(grt_strbuf_str(&dir));
      if (!lib.failed) scan_dir(grt_strbuf_str(&lib));
      grt_free(dir.s);
      grt_free(lib.s);
    }
  }
  const char* env = getenv(GRT_PLUGIN_PATH_ENV);
  while (env && *env) {
    const char* colon = strchr(env, ':');
    size_t len = colon ? (size_t)(colon - env) : strlen(env);
    if (len) scan_path_entry(env, len);
    env = colon ? colon + 1 : NULL;
  }
  /* Types of backends registered before now (built-in ones register while
   * the library loads, before the kernel registry may be used). */
  for (int32_t i = 0; i < g_n; i++) {
    grt_status* st = register_type(g_entries[i].b);
    if (st)
      grt_strbuf_printf(&g_refused, "backend %s: %s\n", g_entries[i].b->type,
                        grt_status_message(st));
    grt_status_free(st);
  }
  g_types_ready = true;
  pthread_mutex_unlock(&g_mu);
}

static void ready(void) { pthread_once(&g_once, discover); }

grt_status* grt_backend_load(const char* path) {
  if (!path) return GRT_ERROR(INVALID_ARGUMENT, "NULL plugin path");
  ready();
  pthread_mutex_lock(&g_mu);
  grt_status* st = load(path);
  pthread_mutex_unlock(&g_mu);
  return st;
}

int32_t grt_registry_count(void) {
  ready();
  return __atomic_load_n(&g_n, __ATOMIC_ACQUIRE);
}

const grt_backend* grt_registry_at(int32_t i) {
  return i >= 0 && i < grt_registry_count() ? g_entries[i].b : NULL;
}

static int32_t find_index(const char* type) {
  int32_t n = grt_registry_count();
  for (int32_t i = 0; type && i < n; i++)
    if (strcasecmp(g_entries[i].b->type, type) == 0) return i;
  return -1;
}

const grt_backend* grt_registry_find(const char* type) {
  int32_t i = find_index(type);
  return i < 0 ? NULL : g_entries[i].b;
}

/* Asks the probe once. Under g_mu. */
static int32_t probe(entry* e) {
  if (e->devices < 0) {
    e->why[0] = '\0';
    int32_t n = e->b->probe(e->why, sizeof e->why);
    e->devices = n < 0 ? 0 : n;
  }
  return e->devices;
}

int32_t grt_registry_device_count(const char* type) {
  int32_t i = find_index(type);
  if (i < 0) return 0;
  pthread_mutex_lock(&g_mu);
  int32_t n = probe(&g_entries[i]);
  pthread_mutex_unlock(&g_mu);
  return n;
}

grt_status* grt_registry_device_new(const grt_device_set* ds, int32_t index,
                                    const grt_device_config* cfg, grt_device** out) {
  *out = NULL;
  const char* type = grt_device_set_type(ds, index);
  const grt_backend* b = grt_registry_find(type);
  if (!b)
    return GRT_ERROR(UNAVAILABLE, "%s: no backend for device type %s is loaded",
                     grt_device_set_name(ds, index), type);
  GRT_RETURN_IF_ERROR(b->device_new(cfg, out));
  (*out)->backend = b;
  (*out)->index = index;
  return NULL;
}

size_t grt_registry_describe(const char* type, const grt_device_config* cfg, char* buf,
                             size_t size) {
  int32_t i = find_index(type);
  if (size) buf[0] = '\0';
  if (i < 0 || !g_entries[i].describe) return 0;
  return g_entries[i].describe(cfg, buf, size);
}

size_t grt_backends_report(char* buf, size_t size) {
  grt_strbuf b = {0};
  int32_t n = grt_registry_count();
  pthread_mutex_lock(&g_mu);
  for (int32_t i = 0; i < n; i++) {
    entry* e = &g_entries[i];
    int32_t d = probe(e);
    grt_strbuf_printf(&b, "%s: %d device%s%s%s%s%s\n", e->b->type, (int)d, d == 1 ? "" : "s",
                      e->handle ? " (plugin)" : "", d == 0 && e->why[0] ? " (" : "",
                      d == 0 ? e->why : "", d == 0 && e->why[0] ? ")" : "");
  }
  grt_strbuf_printf(&b, "%s", grt_strbuf_str(&g_refused));
  pthread_mutex_unlock(&g_mu);
  size_t len = b.len;
  if (size) snprintf(buf, size, "%s", grt_strbuf_str(&b));
  grt_free(b.s);
  return len;
}
