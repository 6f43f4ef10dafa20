/* The CPU backend's all-reduce (grt_backend.all_reduce): collective.c. */
#ifndef GRT_BACKENDS_CPU_COLLECTIVE_H_
#define GRT_BACKENDS_CPU_COLLECTIVE_H_

#include "grt/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The whole of one NcclAllReduce group on logical CPUs. */
GRT_MUST_USE grt_status* grt_cpu_all_reduce(const grt_all_reduce_args* a);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CPU_COLLECTIVE_H_ */
