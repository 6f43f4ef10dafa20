/* grt — process-wide memory: a soft heap limit, as SQLite's
 * sqlite3_soft_heap_limit64.
 *
 * grt counts the bytes it holds in the whole process: every device
 * allocator's memory (what its tensors use plus the freed blocks it keeps
 * for reuse), the host allocator's (fed and fetched tensors made by
 * grt_tensor_new), graph files read into memory, and the library's own
 * bookkeeping (graphs, plans, sessions, statuses), counted as what malloc
 * gave for each block. Memory grt hands to the host to free() (text from
 * grt_graph_to_json, grt_json_tensor_format) leaves the count when handed
 * over, and third-party libraries' own memory (OpenBLAS's buffers, oneDNN's
 * scratch) is not counted. Per-device caps are the session option
 * memory_limit (grt/session.h). */
#ifndef GRT_MEMORY_H_
#define GRT_MEMORY_H_

#include <stdint.h>

#include "grt/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the soft heap limit to `n` bytes (0: no limit, the default) and
 * returns the previous limit; n < 0 only returns it. When a tensor
 * allocation would take the count past the limit, the allocators first
 * return their cached blocks to the system, and if that is not enough the
 * allocation fails: the node fails with RESOURCE_EXHAUSTED and the session
 * stays usable. Any other allocation past the limit fails as running out of
 * memory does: the call that made it (loading a graph, creating a session,
 * a run) returns RESOURCE_EXHAUSTED and frees what it had made. "Soft" because concurrent
 * allocations are checked without a lock between them, so the count may pass the limit by what is
 * in flight, and because memory held when the limit is lowered is not taken back. */
GRT_API int64_t grt_soft_heap_limit64(int64_t n);

/* The bytes counted now (see above). */
GRT_API int64_t grt_heap_used(void);

/* Gives back to the system the memory grt keeps for reuse (the freed blocks
 * device allocators cache), as sqlite3_release_memory: for a host that is
 * short of memory or going idle. Tensors in use are not touched, and the
 * caches fill again as graphs run. Returns the bytes the count went down
 * by (other threads' work in the meantime may hide some). Allocators also
 * release on their own blocks that stay unused for a few seconds. */
GRT_API int64_t grt_release_memory(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_MEMORY_H_ */
