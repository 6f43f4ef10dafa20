#include "graph_format/json_alloc.h"

#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>

#include "base/mem.h"

static _Thread_local bool t_failed;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void* json_alloc(size_t size) {
  void* p = grt_malloc(size);
  if (!p) t_failed = true;
  return p;
}

static void install(void) {
  json_malloc_t m = NULL;
  json_free_t f = NULL;
  json_get_alloc_funcs(&m, &f);
  /* Only over jansson's defaults: blocks a host's allocator made must go
   * back to its own free. */
  if (m == malloc && f == free) json_set_alloc_funcs(json_alloc, free);
}

void grt_json_alloc_begin(void) {
  pthread_once(&g_once, install);
  t_failed = false;
}

bool grt_json_alloc_failed(void) { return t_failed; }
