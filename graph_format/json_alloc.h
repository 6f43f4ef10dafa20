/* jansson's allocations through grt_malloc, so that fault injection
 * (base/mem.h) reaches the JSON parser too, and a way to tell a parse that
 * failed for want of memory from one that met bad text. */
#ifndef GRT_GRAPH_FORMAT_JSON_ALLOC_H_
#define GRT_GRAPH_FORMAT_JSON_ALLOC_H_

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "grt/status.h"

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

/* json_loadb over grt's allocator: `len` bytes of `text` with jansson's
 * `flags` into *out (the caller json_decref's it). Running out of memory
 * anywhere in the parse, even where jansson carries on (its lexer drops a
 * byte it cannot store: load.c, lex_save), is RESOURCE_EXHAUSTED ("out of
 * memory parsing JSON"); bad text is INVALID_ARGUMENT ("JSON syntax error
 * at line L, column C: ..."). */
GRT_MUST_USE grt_status* grt_json_parse_text(const char* text, size_t len, size_t flags,
                                             json_t** out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_GRAPH_FORMAT_JSON_ALLOC_H_ */
