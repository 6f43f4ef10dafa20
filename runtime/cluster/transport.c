/* Opens a transport plugin, libgrt_transport_NAME.so, the first time a
 * cluster is asked for: beside the library (or the program it is linked
 * into) and in the folders and files of GRT_PLUGIN_PATH, as backend
 * plugins are found (runtime/device/registry.c). The library never links
 * MPI; without the plugin the error says what to install. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "base/status.h"
#include "base/strbuf.h"
#include "runtime/cluster/cluster.h"

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static const grt_transport* g_transport; /* under g_mu; never unloaded */

static bool regular_file(const char* path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

/* Opens `path` if it is there; NULL with *why when it is but cannot serve. */
static const grt_transport* try_open(const char* path, grt_strbuf* why) {
  if (!regular_file(path)) return NULL;
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* err = dlerror();
    grt_strbuf_printf(why, "; %s: cannot load: %s", path, err ? err : "unknown error");
    return NULL;
  }
  grt_transport_entry_fn entry;
  *(void**)&entry = dlsym(h, GRT_TRANSPORT_ENTRY_SYMBOL);
  const grt_transport* t = entry ? entry(GRT_TRANSPORT_API_VERSION) : NULL;
  /* An older or newer plugin answers no table for this version (or one of
   * another size): refused by name, never called through a wrong layout. */
  if (!t || t->api_version != GRT_TRANSPORT_API_VERSION || t->size != sizeof(grt_transport)) {
    grt_strbuf_printf(why,
                      "; %s: built for another transport API than this grt's (version %u, a "
                      "table of %zu bytes): rebuild the plugin with this grt",
                      path, GRT_TRANSPORT_API_VERSION, sizeof(grt_transport));
    dlclose(h);
    return NULL;
  }
  return t;
}

/* `dir`/`file`, or `item` itself when it names the file. */
static const grt_transport* try_in(const char* item, size_t len, const char* file,
                                   grt_strbuf* why) {
  grt_strbuf path = {0};
  const char* base = memrchr(item, '/', len);
  size_t bn = base ? len - (size_t)(base + 1 - item) : len;
  if (bn == strlen(file) && memcmp(base ? base + 1 : item, file, bn) == 0)
    grt_strbuf_printf(&path, "%.*s", (int)len, item);
  else
    grt_strbuf_printf(&path, "%.*s/%s", (int)len, item, file);
  const grt_transport* t = path.failed ? NULL : try_open(path.s, why);
  grt_free(path.s);
  return t;
}

static const grt_transport* find(const char* file, grt_strbuf* why) {
  Dl_info info;
  if (dladdr((void*)&grt_transport_open, &info) && info.dli_fname) {
    const char* slash = strrchr(info.dli_fname, '/');
    if (slash) {
      size_t n = (size_t)(slash - info.dli_fname);
      const grt_transport* t = try_in(info.dli_fname, n, file, why);
      if (t) return t;
      grt_strbuf lib = {0};
      grt_strbuf_printf(&lib, "%.*s/../lib", (int)n, info.dli_fname);
      t = lib.failed ? NULL : try_in(lib.s, strlen(lib.s), file, why);
      grt_free(lib.s);
      if (t) return t;
    }
  }
  const char* env = getenv("GRT_PLUGIN_PATH");
  while (env && *env) {
    const char* colon = strchr(env, ':');
    size_t len = colon ? (size_t)(colon - env) : strlen(env);
    const grt_transport* t = len ? try_in(env, len, file, why) : NULL;
    if (t) return t;
    env = colon ? colon + 1 : NULL;
  }
  return NULL;
}

grt_status* grt_transport_open(const char* name, const grt_transport** out) {
  *out = NULL;
  pthread_mutex_lock(&g_mu);
  grt_status* st = NULL;
  if (!g_transport) {
    grt_strbuf file = {0}, why = {0};
    grt_strbuf_printf(&file, "libgrt_transport_%s.so", name);
    g_transport = file.failed ? NULL : find(file.s, &why);
    if (!g_transport)
      st = GRT_ERROR(NOT_FOUND,
                     "a cluster needs the %s transport plugin %s, found neither beside the "
                     "library nor on GRT_PLUGIN_PATH%s (it is built where Open MPI is installed: "
                     "apt-get install libopenmpi-dev openmpi-bin)",
                     name, file.failed ? "" : file.s, why.failed ? "" : grt_strbuf_str(&why));
    grt_free(file.s);
    grt_free(why.s);
  }
  *out = g_transport;
  pthread_mutex_unlock(&g_mu);
  return st;
}
