/* grt — data parallelism as a graph transformation: towers (the seeds'
 * make_parallel). docs/parallel.md tells the whole story.
 *
 * grt_graph_replicate splits each input along the batch axis (axis 0) into
 * N parts (Split), clones the part of the graph between the inputs and the
 * outputs once per tower as "tower_K/<name>" on tower K's device, shares
 * the variables (never cloned; optionally moved to one device or spread
 * over ps devices by the placer's greedy setter), and concatenates the
 * towers' outputs along axis 0 under the outputs' old names, so feeds,
 * fetches and later transformations see the same names as before.
 *
 * Training composes: grt_graph_add_train_step (grt/training.h) with
 * colocate_gradients_with_ops on a loss built from the concatenated output
 * backpropagates through each tower on its own device, and the gradients
 * of a shared variable from the N towers meet in one AddN beside the
 * variable: the CIFAR-10 average_gradients pattern (the mean over the batch
 * divides by the whole batch, so the sum of the towers' parts is their
 * average). */
#ifndef GRT_PARALLEL_H_
#define GRT_PARALLEL_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/graph.h"
#include "grt/placer.h"
#include "grt/status.h"
#include "grt/training.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_replicate_options {
  int32_t towers; /* N >= 1 */
  /* N device specs, tower K on tower_devices[K]; n_tower_devices 0: tower
   * nodes keep the devices their originals asked for. */
  const char* const* tower_devices;
  int32_t n_tower_devices;
  /* Tensors ("node" or "node:k") split along axis 0; their first dimension
   * must divide by N when the graph runs. */
  const char* const* inputs;
  int32_t n_inputs;
  /* Nodes (one output each, rank >= 1) concatenated along axis 0. */
  const char* const* outputs;
  int32_t n_outputs;
  /* Shared variables: all on this device (NULL: as they are), or spread
   * over ps_devices by ps_strategy (n_ps_devices 0: not). Not both. */
  const char* variables_on;
  const char* const* ps_devices;
  int32_t n_ps_devices;
  grt_ps_strategy ps_strategy;
  /* Mirrored (TensorFlow's MirroredStrategy): every tower keeps its own
   * copy of each variable the towers use, on its device: tower 0 the
   * variable itself (moved to tower 0's device), tower K > 0 a new
   * "tower_K/<var>" initialised from it (an Assign after the variable's
   * own initialiser). Needs tower_devices; excludes variables_on and
   * ps_devices. Train with grt_graph_add_mirrored_train_step. */
  bool mirrored;
} grt_replicate_options;

/* A new graph (caller frees) that is `in` with towers as above. `in` is
 * validated first and not changed. Errors name the node: an input or
 * output that does not exist, an output that is an input or a variable or
 * a scalar, and a node outside the towers that uses a tower node other
 * than an output (it would have N values; name it an output). */
GRT_API GRT_MUST_USE grt_status* grt_graph_replicate(grt_graph* in, const grt_replicate_options* o,
                                                     grt_graph** out);

/* Training for a mirrored graph (grt_graph_replicate with mirrored): each
 * tower differentiates the mean of its part of `loss` (an output of the
 * towers, per example) with respect to its own copies; the gradients are
 * all-reduced (on each tower's device, an AddN of every tower's gradient in
 * tower order, times 1/N: a copy per device and a reduction, the CPU form
 * of an all-reduce; or, with all_reduce COLLECTIVE, one NcclAllReduce group
 * per variable, times 1/N) and each copy applies the same update with
 * `optimizer`. The sums are bitwise the same on every device, so the copies
 * stay identical, and the update equals one device's on the whole batch.
 * Adds the NoOps `train` and `init` (grt/training.h's names and rules).
 * `towers` and `tower_devices` as given to grt_graph_replicate. */
/* How the gradients are all-reduced. */
typedef enum grt_all_reduce_impl {
  /* On each tower's device, an AddN of every tower's gradient. */
  GRT_ALL_REDUCE_ADD_N = 0,
  /* One NcclAllReduce group (sum) per variable, a member on each tower's
   * device, shared_name "allreduce/<variable>": the session runs the group
   * as one collective call (NCCL on GPUs). */
  GRT_ALL_REDUCE_COLLECTIVE = 1,
} grt_all_reduce_impl;

typedef struct grt_mirrored_train_options {
  const char* loss;
  int32_t towers;
  const char* const* tower_devices;
  grt_optimizer optimizer;
  const char* train_name;         /* NULL: "train" */
  const char* init_name;          /* NULL: "init" */
  grt_all_reduce_impl all_reduce; /* 0: AddN */
} grt_mirrored_train_options;

GRT_API GRT_MUST_USE grt_status* grt_graph_add_mirrored_train_step(
    grt_graph* g, const grt_mirrored_train_options* o);

#ifdef __cplusplus
}
#endif

#endif /* GRT_PARALLEL_H_ */
