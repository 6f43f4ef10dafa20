/* Room for OpenBLAS's work buffers (blas_buffers.h). */
#include "backends/cpu/blas_buffers.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "backends/cpu/address_space.h"
#include "backends/cpu/openblas.h"
#include "base/mem.h"
#include "base/status.h"

/* OpenBLAS's work-buffer pool (grt_openblas.memory_alloc and _free,
 * openblas.h): Debian's 0.3.21 build keeps one table for the whole process:
 * alloc hands out the first slot not in use, allocating its buffer if that
 * slot has none yet (retrying forever when it cannot); free marks the slot
 * unused and keeps the buffer. */

/* One OpenBLAS work buffer: BUFFER_SIZE (128 MiB on x86-64) plus the page
 * OpenBLAS adds (its malloc asks for 134221824 bytes here), plus a glibc
 * thread arena's reservation (64 MiB), rounded up: slack for what the
 * address-space gate cannot stop (threads grt does not own, a new heap for
 * an arena) between the trial and OpenBLAS's own allocation. */
#define kBufferBytes ((size_t)(128 + 64 + 1) << 20)

/* Shared by every caller between enter and leave (so by every thread inside
 * OpenBLAS); exclusive while the pool grows, when no thread is inside
 * OpenBLAS and every buffer in its pool is therefore free. Writer-preferring
 * so a stream of GEMMs cannot starve a thread that needs a buffer; callers
 * never nest it. */
static pthread_rwlock_t g_calls = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_active;  /* callers between enter and leave, under g_mu */
static int g_buffers; /* buffers OpenBLAS's pool has at least; grows only under g_calls exclusive */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* grt parallelises GEMMs itself; OpenBLAS's own threads would compete with
 * grt's pools and each hold a buffer of their own. */
static void single_threaded(void) { grt_openblas.set_num_threads(1); }

static grt_status* exhausted(void) {
  return GRT_ERROR(RESOURCE_EXHAUSTED,
                   "out of memory for an OpenBLAS work buffer (%zu MiB; %d in use)",
                   kBufferBytes >> 20, g_buffers);
}

/* Has OpenBLAS allocate exactly one buffer more, with g_calls held
 * exclusively. A GEMM run as a warm-up cannot do that: it takes the first
 * free buffer, and a caller between two of its row blocks leaves one free,
 * so the pool did not grow while the count did, and a later GEMM allocated
 * unchecked and spun forever under a memory cap. Instead every buffer the
 * pool has is taken first (all are free now: none of them allocates), so
 * the next take must allocate, right after the same room was checked and
 * freed. From that check to OpenBLAS's allocation the address space is held
 * still (address_space.h): no other grt thread maps a tensor, starts a
 * thread or has glibc reserve a new thread's 64 MiB arena in between. */
static grt_status* grow(void) {
  void** held = grt_calloc((size_t)g_buffers + 1, sizeof *held);
  if (!held) return exhausted();
  grt_status* s = NULL;
  int n = 0;
  while (n < g_buffers && (held[n] = grt_openblas.memory_alloc(0))) n++;
  if (n < g_buffers) {
    s = GRT_ERROR(RESOURCE_EXHAUSTED, "OpenBLAS's buffer table is full (%d buffers)", n);
  } else {
    grt_address_space_hold();
    void* room = grt_malloc(kBufferBytes);
    if (room) {
      grt_free(room);
      held[n] = grt_openblas.memory_alloc(0);
    }
    grt_address_space_release();
    if (!room)
      s = exhausted();
    else if (!held[n])
      s = GRT_ERROR(RESOURCE_EXHAUSTED, "OpenBLAS's buffer table is full (%d buffers)", n);
    else
      g_buffers = ++n;
  }
  while (n > 0) grt_openblas.memory_free(held[--n]);
  grt_free(held);
  return s;
}

grt_status* grt_blas_buffers_enter(void) {
  /* The first GEMM opens OpenBLAS (openblas.h); no pool can grow before. */
  grt_status* open = grt_openblas_open("a GEMM on the CPU (MatMul, BatchMatMul)");
  if (open) return open;
  pthread_once(&g_once, single_threaded);
  for (;;) {
    pthread_rwlock_rdlock(&g_calls);
    pthread_mutex_lock(&g_mu);
    int want = g_active + 1;
    bool free_buffer = want <= g_buffers;
    if (free_buffer) g_active++;
    pthread_mutex_unlock(&g_mu);
    if (free_buffer) return NULL;
    pthread_rwlock_unlock(&g_calls);
    /* Another caller may grow the pool meanwhile: then just try again. */
    pthread_rwlock_wrlock(&g_calls);
    grt_status* s = g_buffers < want ? grow() : NULL;
    pthread_rwlock_unlock(&g_calls);
    if (s) return s;
  }
}

void grt_blas_buffers_leave(void) {
  pthread_mutex_lock(&g_mu);
  g_active--;
  pthread_mutex_unlock(&g_mu);
  pthread_rwlock_unlock(&g_calls);
}
