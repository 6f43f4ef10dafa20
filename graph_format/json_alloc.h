/* jansson's allocations through grt_malloc, so that fault injection
 * (base/mem.h) reaches the JSON parser too, and a way to tell a parse that
 * failed for want of memory from one that met bad text. */
#ifndef GRT_GRAPH_FORMAT_JSON_ALLOC_H_
#define GRT_GRAPH_FORMAT_JSON_ALLOC_H_

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Once per process, before grt's first jansson call that allocates: makes
 * jansson allocate with grt_malloc (and free with free, which grt_malloc's
 * blocks take). Left alone when the host has already given jansson
 * allocators of its own. Then clears this thread's failure flag. */
void grt_json_alloc_begin(void);

/* Whether a jansson allocation on this thread failed since the last
 * grt_json_alloc_begin. */
bool grt_json_alloc_failed(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_JSON_ALLOC_H_ */
