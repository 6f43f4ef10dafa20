/* The ps variable setter's choice, the one part of the placer another
 * layer uses: towers (parallel/) spread their shared variables over the ps
 * devices with it, so a replicated graph puts them where grt_place would. */
#ifndef GRT_PLACER_PS_SETTER_H_
#define GRT_PLACER_PS_SETTER_H_

#include <stdint.h>

#include "grt/placer.h"
#include "ops/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The setter's choice for the r-th variable (from 0) given each ps device's
 * bytes so far: the least loaded (ties to the earliest), or r-th in turn. */
int32_t grt_ps_pick(const int64_t* load, int32_t n_ps, grt_ps_strategy strategy, int32_t r);
/* A variable node's bytes, or -1 when its shape is not fully known. */
int64_t grt_ps_variable_bytes(const grt_node* n);

#ifdef __cplusplus
}
#endif

#endif /* GRT_PLACER_PS_SETTER_H_ */
