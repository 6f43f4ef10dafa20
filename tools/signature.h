/* A graph's signature, as `grt inspect` prints it first: what a caller
 * feeds, fetches and runs. */
#ifndef GRT_TOOLS_SIGNATURE_H_
#define GRT_TOOLS_SIGNATURE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grt/grt.h"

/* Output k's inferred shape as "[2,?]", "[]" (a scalar), "?" (unknown rank)
 * or "-" (none), in buf (GRT_MAX_RANK * 21 + 4 bytes are enough). */
const char* grt_cli_shape_str(const grt_graph* g, int32_t node, int32_t k, char* buf, size_t size);

/* Prints, for a validated graph:
 *   feeds: every Placeholder with its dtype and shape ("?" for an unknown
 *     dimension);
 *   outputs: every output of a node that no node uses, as data or as a
 *     control input (the fetchable results: a loss, a prediction), with
 *     dtype and shape, placeholders aside; a backward pass's nodes
 *     ("gradients/...") are not counted as users or listed;
 *   targets: every node without outputs, or updating a variable (Assign,
 *     Apply*), that no node uses (init and train NoOps), with the number of
 *     nodes it waits for.
 * each "none" when empty. With `json`, one line instead:
 *   {"feeds": [{"name": "x", "dtype": "float32", "shape": [-1, 2]}],
 *    "outputs": [...], "targets": [{"name": "init", "op": "NoOp",
 *    "waits_for": 6}]}
 * with -1 for an unknown dimension and null for an unknown rank.
 * Returns false when memory ran out (nothing printed). */
bool grt_cli_print_signature(FILE* f, const grt_graph* g, bool json);

#endif /* GRT_TOOLS_SIGNATURE_H_ */
