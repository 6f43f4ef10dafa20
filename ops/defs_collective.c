/* Collective ops (TensorFlow's nccl_ops.cc): NcclAllReduce. Every device
 * holding a copy runs one node with the same shared_name and num_devices,
 * and each gets the element-wise reduction of all the copies. The session
 * runs a group as one call (runtime/EXECUTION.md, gang scheduling); the
 * kernel tables hold a kernel only so the placer and the session find one. */
#include <string.h>

#include "base/status.h"
#include "ops/defs.h"
#include "ops/grad.h"
#include "ops/shape_fns.h"

/* The reductions NcclAllReduce accepts, in grt_reduction's order. */
static const char* const kReductions[] = {"sum", "prod", "min", "max"};

/* TensorFlow's shape function is UnchangedShape; the attrs the registry's
 * syntax cannot constrain (a string from a set, a non-empty name) are
 * checked here, so a bad node fails when the graph is validated. */
static grt_status* infer_nccl_all_reduce(grt_shape_ctx* c) {
  const grt_attr_value* red = grt_node_attr(c->node, "reduction");
  const char* r = red && red->type == GRT_ATTR_STRING ? red->u.s : "";
  bool known = false;
  for (size_t i = 0; i < sizeof kReductions / sizeof kReductions[0]; i++)
    known |= strcmp(r, kReductions[i]) == 0;
  if (!known)
    return GRT_ERROR(INVALID_ARGUMENT, "reduction '%s' is not one of 'min', 'max', 'prod', 'sum'",
                     r);
  const grt_attr_value* name = grt_node_attr(c->node, "shared_name");
  if (!name || name->type != GRT_ATTR_STRING || !name->u.s[0])
    return GRT_ERROR(INVALID_ARGUMENT,
                     "shared_name is empty: every NcclAllReduce of one reduction names its "
                     "group with the same shared_name");
  const grt_attr_value* nd = grt_node_attr(c->node, "num_devices");
  if (!nd || nd->type != GRT_ATTR_INT || nd->u.i < 1)
    return GRT_ERROR(INVALID_ARGUMENT, "num_devices must be at least 1, not %lld",
                     nd && nd->type == GRT_ATTR_INT ? (long long)nd->u.i : 0LL);
  return grt_infer_unchanged(c);
}

static const grt_op_spec kRows[] = {
    {"NcclAllReduce", "input: T", "data: T",
     "reduction: string; T: {float16, float32, float64, int32, int64}; num_devices: int; "
     "shared_name: string",
     GRT_OP_STATEFUL, infer_nccl_all_reduce},
};

GRT_OP_TABLE_WITH_GRADS(grt_ops_collective, "collective", kRows, grt_grads_collective);
