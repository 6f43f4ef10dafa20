/* The session's graph rewrite (TensorFlow's remapper, on grt's terms).
 * See runtime/session/REWRITE.md.
 *
 * At session creation the pass finds, in the placed graph:
 *   - MatMul|Conv2D -> BiasAdd (-> Relu | Relu6 | Elu) chains whose
 *     intermediate values have no other consumer, no control edges and one
 *     device with the fused kernel: one _FusedMatMul / _FusedConv2D node
 *     replaces the chain;
 *   - MatMul or a convolution (fused or not) whose weights (input 1) are a
 *     Const or a variable (directly or through an Identity): the node is
 *     marked _grt_const_b or _grt_var_b, so its kernel packs them once and
 *     reuses them (a variable's again after it is written).
 * The user's graph and the plan are not changed (the placement log names
 * the original nodes). A replacement stands in for its last node (the
 * root) in an executable only when the run neither feeds, fetches nor
 * targets one of the nodes it swallows; otherwise those nodes run as
 * written. */
#ifndef GRT_RUNTIME_SESSION_REWRITE_REMAP_H_
#define GRT_RUNTIME_SESSION_REWRITE_REMAP_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/placer.h"
#include "grt/status.h"
#include "kernels/op_kernel.h"
#include "ops/graph.h"
#include "runtime/device/device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GRT_REWRITE_MAX_MEMBERS 3
#define GRT_REWRITE_MAX_INPUTS \
  6 /* _FusedConv2D: input, filter and up to four args (TensorFlow's most) */

/* One replacement node. */
typedef struct grt_rewritten {
  int32_t root;                             /* graph node whose outputs it produces */
  int32_t members[GRT_REWRITE_MAX_MEMBERS]; /* graph nodes it stands for, root last */
  int32_t n_members;
  const grt_node* node; /* op, attrs and signature of the replacement */
  int32_t n_inputs;
  grt_input inputs[GRT_REWRITE_MAX_INPUTS];    /* src: graph node indices */
  int32_t input_owner[GRT_REWRITE_MAX_INPUTS]; /* the member whose input it was ... */
  int32_t input_index[GRT_REWRITE_MAX_INPUTS]; /* ... and which (the plan's host-memory flags) */
  const grt_op_kernel* kernel;
  void* state;
  int32_t weights_const; /* the Const whose tensor the kernel packs once, or -1 */
  int32_t
      weights_read; /* the Identity between the weights' variable and the node, read past; or -1 */
} grt_rewritten;

typedef struct grt_remap grt_remap;

/* Runs the pass over validated graph g placed by `plan` on `devices`
 * (indexed as the plan's device set). *out holds the replacements (none is
 * fine). */
GRT_MUST_USE grt_status* grt_remap_new(const grt_graph* g, const grt_plan* plan,
                                       grt_device* const* devices, int32_t n_devices,
                                       grt_remap** out);
void grt_remap_free(grt_remap* r);

/* The replacement rooted at graph node v for a run whose fed, fetched and
 * targeted nodes are marked in `touched` (per graph node), or NULL. A
 * replacement whose packed weights' Const is touched is not used either: a
 * fed tensor may reuse an address the kernel packed other values from. */
const grt_rewritten* grt_remap_for(const grt_remap* r, int32_t v, const uint8_t* touched);

/* Replacements made (fused or marked), for tests and logs. */
int32_t grt_remap_count(const grt_remap* r);

#ifdef __cplusplus
}
#endif

#endif /* GRT_RUNTIME_SESSION_REWRITE_REMAP_H_ */
