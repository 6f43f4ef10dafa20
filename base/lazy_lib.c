/* Libraries opened on first use (lazy_lib.h). */
#include "base/lazy_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

enum { kUntried = 0, kOpen = 1, kFailed = 2 };

/* Under lib->mu: dlopen the first soname that loads, then every symbol. */
static void open_locked(grt_lazy_lib* lib) {
  char tried[256] = "";
  size_t len = 0;
  const char* why = "no library names";
  const char* name = NULL;
  void* h = NULL;
  for (const char* const* s = lib->sonames; *s && !h; s++) {
    /* RTLD_LOCAL: the library's symbols reach grt only through the table. */
    h = dlopen(*s, RTLD_NOW | RTLD_LOCAL);
    name = *s;
    if (!h) {
      const char* e = dlerror();
      why = e ? e : "unknown error";
      int n = snprintf(tried + len, sizeof tried - len, "%s%s", len ? ", " : "", *s);
      if (n > 0 && (size_t)n < sizeof tried - len) len += (size_t)n;
    }
  }
  if (!h) {
    snprintf(lib->error, sizeof lib->error, "%s, which cannot be loaded (tried %s): %s", lib->what,
             tried, why);
    __atomic_store_n(&lib->state, kFailed, __ATOMIC_RELEASE);
    return;
  }
  for (size_t i = 0; i < lib->n_symbols; i++) {
    void* p = dlsym(h, lib->symbols[i].name);
    if (!p) {
      snprintf(lib->error, sizeof lib->error,
               "%s, but %s has no %s (a version this plugin was not built for)", lib->what, name,
               lib->symbols[i].name);
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
