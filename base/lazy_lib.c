/* Libraries opened on first use (lazy_lib.h): the search and the table. */
#include "base/lazy_lib.h"

#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { kUntried = 0, kOpen = 1, kFailed = 2, kMaxCompanions = 16, kAnchorLevels = 4 };

/* One search: what was opened, or the folders tried and the last reason. */
typedef struct {
  const grt_lazy_lib* lib;
  void* handle;
  char name[PATH_MAX]; /* the soname or path that loaded */
  char tried[1024];    /* folders, ", "-separated */
  size_t tried_len;
  char why[512]; /* the most telling dlerror: a file that exists but fails beats a missing one */
  bool why_from_file;
} search;

static void set_why(search* s, bool from_file) {
  const char* e = dlerror();
  if (s->why_from_file && !from_file) return;
  snprintf(s->why, sizeof s->why, "%s", e ? e : "unknown error");
  s->why_from_file = from_file;
}

static bool is_dir(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether `dir` is already in the list (roots overlap: /usr/local and a venv's symlinks). */
static bool seen(const search* s, const char* dir) {
  size_t n = strlen(dir);
  for (const char* p = s->tried; (p = strstr(p, dir)) != NULL; p++) {
    bool starts = p == s->tried || (p >= s->tried + 2 && p[-2] == ',' && p[-1] == ' ');
    if (starts && (p[n] == '\0' || p[n] == ',')) return true;
  }
  return false;
}

static void note(search* s, const char* dir) {
  int n = snprintf(s->tried + s->tried_len, sizeof s->tried - s->tried_len, "%s%s",
                   s->tried_len ? ", " : "", dir);
  if (n > 0 && (size_t)n < sizeof s->tried - s->tried_len) s->tried_len += (size_t)n;
}

/* Whether `path` is a regular file (following links). Not merely present:
 * dlopen of a FIFO planted under a library's name would block forever. */
static bool is_file(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Opens the library from `dir`, its companions there first. */
static bool try_folder(search* s, const char* dir) {
  if (!*dir || seen(s, dir)) return false;
  note(s, dir);
  char path[PATH_MAX];
  for (const char* const* so = s->lib->sonames; *so; so++) {
    if (snprintf(path, sizeof path, "%s/%s", dir, *so) >= (int)sizeof path) continue;
    if (!is_file(path)) continue;
    void* comp[kMaxCompanions];
    int n_comp = 0;
    for (const char* const* c = s->lib->companions; c && *c && n_comp < kMaxCompanions; c++) {
      char cp[PATH_MAX];
      if (snprintf(cp, sizeof cp, "%s/%s", dir, *c) >= (int)sizeof cp || !is_file(cp)) continue;
      void* h = dlopen(cp, RTLD_NOW | RTLD_LOCAL);
      if (h) comp[n_comp++] = h; /* a companion that fails may not be needed: the library says */
    }
    s->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (s->handle) { /* companions stay loaded with it */
      snprintf(s->name, sizeof s->name, "%s", path);
      return true;
    }
    set_why(s, true);
    while (n_comp) dlclose(comp[--n_comp]);
  }
  return false;
}

/* The package folders under `root` (a folder or a glob pattern). */
static bool try_packages(search* s, const char* root) {
  for (const char* const* p = s->lib->package_dirs; p && *p; p++) {
    char pattern[PATH_MAX];
    if (snprintf(pattern, sizeof pattern, "%s/%s", root, *p) >= (int)sizeof pattern) continue;
    glob_t g;
    if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0) continue; /* no match: not a place tried */
    bool found = false;
    for (size_t i = 0; i < g.gl_pathc && !found; i++)
      if (is_dir(g.gl_pathv[i])) found = try_folder(s, g.gl_pathv[i]);
    globfree(&g);
    if (found) return true;
  }
  return false;
}

/* Beside the anchor's library and under the folders above it. */
static bool try_anchor(search* s) {
  Dl_info info;
  if (!s->lib->anchor || !dladdr((void*)(size_t)s->lib->anchor, &info) || !info.dli_fname ||
      !strchr(info.dli_fname, '/'))
    return false;
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", info.dli_fname);
  char* slash = strrchr(dir, '/');
  *slash = '\0';
  if (try_folder(s, dir)) return true;
  for (int level = 0; level < kAnchorLevels; level++) {
    if (try_packages(s, dir)) return true;
    if (!(slash = strrchr(dir, '/')) || slash == dir) break;
    *slash = '\0';
  }
  return false;
}

/* The usual Python package roots: a venv's, conda's, the user's, the system's. */
static bool try_python_roots(search* s) {
  const char* prefixes[] = {getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX"), NULL,    "/usr",
                            "/usr/local",          "/opt/*/.venv",         "/opt/*"};
  char home_local[PATH_MAX] = "";
  const char* home = getenv("HOME");
  if (home && *home &&
      snprintf(home_local, sizeof home_local, "%s/.local", home) < (int)sizeof home_local)
    prefixes[2] = home_local;
  const char* kinds[] = {"site-packages", "dist-packages"};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    if (!prefixes[i] || !*prefixes[i]) continue;
    for (size_t k = 0; k < 2; k++) {
      char root[PATH_MAX];
      if (snprintf(root, sizeof root, "%s/lib/python3*/%s", prefixes[i], kinds[k]) <
              (int)sizeof root &&
          try_packages(s, root))
        return true;
    }
  }
  return false;
}

static bool try_env(search* s) {
  const char* v = s->lib->path_env ? getenv(s->lib->path_env) : NULL;
  if (!v) return false;
  char dir[PATH_MAX];
  for (const char* p = v; *p;) {
    size_t n = strcspn(p, ":");
    if (n && n < sizeof dir) {
      memcpy(dir, p, n);
      dir[n] = '\0';
      if (try_folder(s, dir)) return true;
    }
    p += n;
    if (*p == ':') p++;
  }
  return false;
}

/* The loader's own search, by soname. */
static bool try_loader(search* s) {
  for (const char* const* so = s->lib->sonames; *so; so++) {
    /* RTLD_LOCAL: the library's symbols reach grt only through the table. */
    s->handle = dlopen(*so, RTLD_NOW | RTLD_LOCAL);
    if (s->handle) {
      snprintf(s->name, sizeof s->name, "%s", *so);
      return true;
    }
    set_why(s, false);
  }
  return false;
}

static void fail_not_found(grt_lazy_lib* lib, search* s) {
  char names[256] = "";
  size_t len = 0;
  for (const char* const* so = lib->sonames; *so; so++) {
    int n = snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", *so);
    if (n > 0 && (size_t)n < sizeof names - len) len += (size_t)n;
  }
  if (!len) snprintf(names, sizeof names, "no library names");
  char env_hint[160] = "";
  if (lib->path_env)
    snprintf(env_hint, sizeof env_hint, "; set %s to the folder that holds it", lib->path_env);
  snprintf(lib->error, sizeof lib->error,
           "%s, which cannot be loaded (tried %s on the loader's path%s%s): %s%s", lib->what, names,
           s->tried_len ? " and in " : "", s->tried, s->why[0] ? s->why : "not found", env_hint);
}

/* Under lib->mu: find and dlopen the library, then resolve every symbol. */
static void open_locked(grt_lazy_lib* lib) {
  static search s; /* under lib->mu, but shared by libraries: kept off the stack, locked */
  static pthread_mutex_t search_mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&search_mu);
  memset(&s, 0, sizeof s);
  s.lib = lib;
  bool found = try_env(&s) || try_loader(&s) || try_anchor(&s) || try_python_roots(&s);
  if (!found) {
    fail_not_found(lib, &s);
    pthread_mutex_unlock(&search_mu);
    __atomic_store_n(&lib->state, kFailed, __ATOMIC_RELEASE);
    return;
  }
  void* h = s.handle;
  char name[PATH_MAX];
  snprintf(name, sizeof name, "%s", s.name);
  pthread_mutex_unlock(&search_mu);
  for (size_t i = 0; i < lib->n_symbols; i++) {
    void* p = dlsym(h, lib->symbols[i].name);
    if (!p) {
      snprintf(lib->error, sizeof lib->error,
               "%s, but %.1500s has no %s (a version this plugin was not built for)", lib->what,
               name, lib->symbols[i].name);
      dlclose(h);
      __atomic_store_n(&lib->state, kFailed, __ATOMIC_RELEASE);
      return;
    }
    memcpy((char*)lib->table + lib->symbols[i].offset, &p, sizeof p);
  }
  lib->handle = h; /* kept for the life of the process, as a linked library would be */
  __atomic_store_n(&lib->state, kOpen, __ATOMIC_RELEASE);
}

grt_status* grt_lazy_lib_open(grt_lazy_lib* lib, const char* needed_for) {
  int state = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);
  if (state == kUntried) {
    pthread_mutex_lock(&lib->mu);
    if (lib->state == kUntried) open_locked(lib);
    state = lib->state;
    pthread_mutex_unlock(&lib->mu);
  }
  if (state == kOpen) return NULL;
  return grt_status_new(GRT_FAILED_PRECONDITION, "%s needs %s", needed_for, lib->error);
}
