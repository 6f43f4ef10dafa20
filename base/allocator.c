#include "base/allocator.h"
#include "base/mem.h"

#include <malloc.h>
#include <stdlib.h>

static void* host_alloc(grt_allocator* self, size_t size, size_t alignment) {
  (void)self;
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  void* p = NULL;
  /* posix_memalign rejects size 0 on some libcs; give a valid unique pointer. */
  if (grt_posix_memalign(&p, alignment, size ? size : 1) != 0) return NULL;
  /* The soft heap limit counts what malloc really gave, which free gives back. */
  if (!grt_mem_reserve(malloc_usable_size(p))) {
    grt_posix_memalign_free(p); /* reserved here, not by grt_malloc */
    return NULL;
  }
  return p;
}

static void host_free(grt_allocator* self, void* p) {
  (void)self;
  if (p) grt_mem_unreserve(malloc_usable_size(p));
  grt_posix_memalign_free(p);
}

static grt_allocator kHostAllocator = {"host", host_alloc, host_free};

grt_allocator* grt_host_allocator(void) { return &kHostAllocator; }
