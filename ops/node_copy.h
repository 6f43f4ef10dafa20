/* Copying a node from one graph into another under a new name, with its
 * inputs and colocations renamed by the caller's mapping. */
#ifndef GRT_OPS_NODE_COPY_H_
#define GRT_OPS_NODE_COPY_H_

#include <stdint.h>

#include "grt/status.h"
#include "base/arena.h"
#include "ops/attr.h"
#include "ops/graph.h"

/* `v` with every string and array it points to copied into `a`, and a new
 * reference to each tensor (the graph takes those over). */
GRT_MUST_USE grt_status* grt_attr_value_copy(grt_arena* a, const grt_attr_value* v,
                                             grt_attr_value* out);

/* Maps a source node name (with its port for data inputs, -1 for a control
 * input or a colocation) to the name the copy refers to, written into buf
 * as "node" or "node:k" (without the '^'). */
typedef void (*grt_copy_rename_fn)(void* ctx, const char* node, int32_t port, char* buf,
                                   size_t size);

/* The identity mapping: "node" (port 0 or -1) or "node:k", unchanged. */
void grt_copy_rename_same(void* ctx, const char* node, int32_t port, char* buf, size_t size);

/* Adds to `dst` a copy of node `i` of `src` named `name` on `device` (NULL:
 * the original's), with every attr deep-copied. *out_index gets its index. */
GRT_MUST_USE grt_status* grt_copy_node(grt_graph* dst, const grt_graph* src, int32_t i,
                                       const char* name, const char* device,
                                       grt_copy_rename_fn rename, void* ctx, int32_t* out_index);

#endif /* GRT_OPS_NODE_COPY_H_ */
