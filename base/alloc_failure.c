/* Per-thread reasons for failed allocations (alloc_failure.h). A pthread
 * key rather than _Thread_local alone, so a reason nobody took is freed
 * with its thread instead of leaking. */
#include "base/alloc_failure.h"

#include <pthread.h>

#include "grt/backend.h"

static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_key_ok;

/* Whether this thread may hold a reason: every tensor allocation clears the
 * last one first, and this flag spares it the key's pthread_once and
 * lookup when there is none (a few ns of each small node's run). */
static _Thread_local bool t_may_hold;

static void drop(void* reason) { grt_status_free(reason); }

static void make_key(void) { g_key_ok = pthread_key_create(&g_key, drop) == 0; }

void grt_allocator_fail_reason(grt_status* why) {
  pthread_once(&g_once, make_key);
  if (!g_key_ok) {
    grt_status_free(why);
    return;
  }
  grt_status_free(pthread_getspecific(g_key));
  if (pthread_setspecific(g_key, why) != 0)
    grt_status_free(why);
  else
    t_may_hold = true;
}

grt_status* grt_allocator_take_failure(void) {
  if (!t_may_hold) return NULL;
  t_may_hold = false;
  pthread_once(&g_once, make_key);
  if (!g_key_ok) return NULL;
  grt_status* why = pthread_getspecific(g_key);
  if (why) pthread_setspecific(g_key, NULL);
  return why;
}

void grt_allocator_clear_failure(void) { grt_status_free(grt_allocator_take_failure()); }
