/* The parsed session options (grt_session_options behind grt/session.h). */
#ifndef GRT_RUNTIME_SESSION_SESSION_OPTIONS_H_
#define GRT_RUNTIME_SESSION_SESSION_OPTIONS_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/session.h"

#define GRT_MAX_VIRTUAL_GPUS 64

struct grt_session_options {
  bool allow_soft_placement;
  bool log_device_placement;
  int64_t cpu_devices;
  bool gpu_allow_growth;
  double gpu_memory_fraction;
  int64_t gpu_virtual_mib[GRT_MAX_VIRTUAL_GPUS];
  int32_t gpu_virtual_count;
  int64_t inter_op_threads;
  int64_t intra_op_threads;
  bool rewrite; /* the graph rewrite at session creation (rewrite_remap.h) */
  char* ps_devices; /* malloc'd, "" when unset */
  char* ps_strategy;
  int64_t memory_limit; /* bytes per device; 0: none */
  bool verify_constants; /* check constants' CRC-32C when the session is made */
  bool graph_capture;    /* callables record and replay their step (capture.c) */
};

#endif  /* GRT_RUNTIME_SESSION_SESSION_OPTIONS_H_ */
