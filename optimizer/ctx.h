/* Internal: the working state of one optimizer run (the driver in
 * optimizer.c and the edits in edit.c share it; passes see it only
 * through pass.h). */
#ifndef GRT_OPTIMIZER_CTX_H_
#define GRT_OPTIMIZER_CTX_H_

#include "optimizer/pass.h"

enum {
  OPT_DEAD = 1u << 0,     /* killed: dropped at compaction */
  OPT_NO_FEED = 1u << 1,  /* feeding it would no longer mean what it meant */
  OPT_NEW = 1u << 2,      /* added by the optimizer (unused: dropped) */
  OPT_HAD_USES = 1u << 3, /* had uses when first seen (unused now: dropped) */
};

struct grt_opt_ctx {
  grt_graph* g; /* working graph, owned */
  const grt_opt_env* env;
  int64_t fold_max_bytes;
  int32_t n_start; /* nodes when the pass began */
  int32_t cap;     /* capacity of the per-node arrays */
  uint8_t* flags;
  const char** dev_type; /* per node: device type name (static or env's) */
  const char** device;   /* per node: pinned device, or NULL */
  int32_t* take_name;    /* per node: the node whose name it takes, or -1 */
  /* Uses index over the first n_start nodes: slot s = slot0[i] + 1 + port,
   * slot0[i] for control uses; uses of slot s are use[use_start[s] ..
   * use_start[s+1]). */
  int32_t* slot0;
  int32_t* use_start;
  grt_opt_use* use;
  int32_t n_slots;
  int32_t* data_uses; /* per node: data uses of all its outputs */
  int32_t counter;    /* for unique names */
  grt_opt_pass_report* rep;
};

/* Grows the per-node arrays to hold n nodes (new slots zeroed / -1). */
GRT_MUST_USE grt_status* grt_opt_ctx_reserve(grt_opt_ctx* c, int32_t n);
/* Builds the uses index for the graph as it is now. */
GRT_MUST_USE grt_status* grt_opt_index_uses(grt_opt_ctx* c);
void grt_opt_ctx_free_index(grt_opt_ctx* c);

#endif /* GRT_OPTIMIZER_CTX_H_ */
