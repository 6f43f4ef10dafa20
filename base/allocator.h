/* Allocators: the interface every piece of host or device memory comes from. */
#ifndef GRT_BASE_ALLOCATOR_H_
#define GRT_BASE_ALLOCATOR_H_

#include <stddef.h>

#include "grt/backend.h" /* struct grt_allocator */

#ifdef __cplusplus
extern "C" {
#endif

/* Alignment of every tensor buffer grt allocates (a cache line, and what
 * AVX-512 loads want). */
#define GRT_TENSOR_ALIGNMENT 64

/* The process-wide host allocator (aligned malloc). Never freed. */
grt_allocator* grt_host_allocator(void);

static inline void* grt_allocator_alloc(grt_allocator* a, size_t size, size_t alignment) {
  return a->alloc(a, size, alignment);
}
static inline void grt_allocator_free(grt_allocator* a, void* p) { a->free(a, p); }

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_ALLOCATOR_H_ */
