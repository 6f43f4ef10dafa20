/* A bump arena: many small allocations freed together (graph strings, node
 * arrays). Loading a 100k-node graph makes a handful of mallocs, not 100k. */
#ifndef GRT_BASE_ARENA_H_
#define GRT_BASE_ARENA_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_arena grt_arena;

grt_arena* grt_arena_new(void);    /* NULL when out of memory */
void grt_arena_free(grt_arena* a); /* NULL is a no-op */

/* `size` bytes aligned to 16, zeroed; NULL when out of memory. */
void* grt_arena_alloc(grt_arena* a, size_t size);
/* `n` elements of `elem` bytes, zeroed; NULL on overflow or out of memory. */
void* grt_arena_calloc(grt_arena* a, size_t n, size_t elem);
char* grt_arena_strdup(grt_arena* a, const char* s);
char* grt_arena_strndup(grt_arena* a, const char* s, size_t n);

/* Bytes handed out so far (for statistics). */
size_t grt_arena_used(const grt_arena* a);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_ARENA_H_ */
