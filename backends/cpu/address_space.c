/* Holding the process's address space still (address_space.h). */
#include "backends/cpu/address_space.h"

#include <pthread.h>
#include <stdbool.h>

#include "base/mem.h"

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

static void take_begin(void) {
  if (!t_holding) pthread_rwlock_rdlock(&g_space);
}

static void take_end(void) {
  if (!t_holding) pthread_rwlock_unlock(&g_space);
}

static const grt_mem_space_hooks kHooks = {take_begin, take_end};

/* Installed as the library loads, before any of its threads allocate, so
 * no bracket is open unhooked when a holder first takes the gate. */
__attribute__((constructor)) static void install_hooks(void) { grt_mem_set_space_hooks(&kHooks); }
