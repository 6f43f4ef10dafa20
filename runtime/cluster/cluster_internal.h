/* Internal to runtime/cluster: the cluster's state. */
#ifndef GRT_RUNTIME_CLUSTER_CLUSTER_INTERNAL_H_
#define GRT_RUNTIME_CLUSTER_CLUSTER_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include "runtime/cluster/cluster.h"

/* Tags hold the step modulo 2^GRT_CLUSTER_STEP_BITS below the crossing's
 * index (DESIGN.md). */
#define GRT_CLUSTER_STEP_BITS 12

struct grt_cluster {
  bool joined;
  char spec_text[256];
  grt_cluster_spec spec;
  const grt_transport* t;
  int32_t rank, size;
  int64_t max_tag;
  char (*task_name)[96]; /* per rank: "/job:J/replica:0/task:T" */
};

#endif /* GRT_RUNTIME_CLUSTER_CLUSTER_INTERNAL_H_ */
