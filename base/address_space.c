/* Holding the process's address space still (address_space.h). */
#include "base/address_space.h"

#include <pthread.h>
#include <stdbool.h>

/* Writer-preferring: a stream of tensor allocations on other threads must
 * not keep a holder waiting. The non-recursive kind is fine because the
 * bracketed sections never nest (a nested read lock would wait behind a
 * waiting writer). */
static pthread_rwlock_t g_space = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

/* The holder's own allocations (its room, an error message) go through. */
static _Thread_local bool t_holding;

void grt_address_space_hold(void) {
  pthread_rwlock_wrlock(&g_space);
  t_holding = true;
}

void grt_address_space_release(void) {
  t_holding = false;
  pthread_rwlock_unlock(&g_space);
}

void grt_address_space_take_begin(void) {
  if (!t_holding) pthread_rwlock_rdlock(&g_space);
}

void grt_address_space_take_end(void) {
  if (!t_holding) pthread_rwlock_unlock(&g_space);
}
