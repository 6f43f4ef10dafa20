/* What the ranks of a cluster compare after placing (DESIGN.md): a hash of
 * the graph, its attr values included, and of the plan. */
#ifndef GRT_RUNTIME_CLUSTER_PLAN_HASH_H_
#define GRT_RUNTIME_CLUSTER_PLAN_HASH_H_

#include <stddef.h>
#include <stdint.h>

#include "grt/placer.h"
#include "ops/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FNV-1a over 64 bits: what the ranks compare, not a defence. Start from
 * grt_cluster_hash_seed(). */
uint64_t grt_cluster_hash_seed(void);
uint64_t grt_cluster_hash_bytes(uint64_t h, const void* p, size_t n);
uint64_t grt_cluster_hash_str(uint64_t h, const char* s); /* NULL hashes as "" */

/* The graph: node names, ops, requested devices, inputs, control inputs,
 * colocations and every attr's value (a tensor's dtype, shape and bytes),
 * attrs in any order. */
uint64_t grt_cluster_graph_hash(const grt_graph* g);
/* The graph's hash, then the device `plan` gives each node. */
uint64_t grt_cluster_plan_hash(const grt_graph* g, const grt_plan* plan);

#ifdef __cplusplus
}
#endif

#endif /* GRT_RUNTIME_CLUSTER_PLAN_HASH_H_ */
