/* Checkpoints of a cluster (DESIGN.md, "Checkpoints by the chief"): one
 * task, the chief, writes the file; the others send it the variables they
 * hold, as wire messages on a tag no step uses. */
#include <string.h>

#include "runtime/cluster/cluster.h"
#include "runtime/cluster/cluster_internal.h"

/* TensorFlow's chief: /job:chief/task:0 where there is one, else
 * /job:worker/task:0, else the first task. */
int32_t grt_cluster_chief(const grt_cluster* c) {
  static const char* const kChiefJobs[] = {"chief", "worker"};
  for (size_t k = 0; k < sizeof kChiefJobs / sizeof kChiefJobs[0]; k++) {
    for (int32_t r = 0; r < c->size; r++) {
      const char* job;
      int32_t task;
      grt_cluster_spec_task(&c->spec, r, &job, &task);
      if (task == 0 && strcmp(job, kChiefJobs[k]) == 0) return r;
    }
  }
  return 0;
}

/* The tag below the liveness notes' (the transport's largest): grt_cluster_tag never
 * gives it to a step. */
int64_t grt_cluster_checkpoint_tag(const grt_cluster* c) { return c->max_tag; }
