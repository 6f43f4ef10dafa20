/* The parsed session options (grt_session_options behind grt/session.h). */
#ifndef GRT_RUNTIME_SESSION_SESSION_OPTIONS_H_
#define GRT_RUNTIME_SESSION_SESSION_OPTIONS_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/session.h"
#include "runtime/device/backend_options.h"

struct grt_session_options {
  bool allow_soft_placement;
  bool log_device_placement;
  int64_t inter_op_threads;
  int64_t intra_op_threads;
  bool concurrent_kernels; /* expensive nodes of one device may run at once (executor.c) */
  bool rewrite;            /* the graph rewrite at session creation (rewrite_remap.h) */
  char* ps_devices;        /* grt_malloc'd, "" when unset */
  char* ps_strategy;
  int64_t memory_limit;   /* bytes per device; 0: none */
  bool verify_constants;  /* check constants' CRC-32C when the session is made */
  char* optimizer_off;    /* optimizer passes switched off ("a,b" or "all") */
  int64_t fold_max_bytes; /* constant folding's cap per value */
  char* dims;             /* symbolic dimensions bound to sizes ("N=1,seq=16"; "" for none) */
  bool graph_capture;     /* callables record and replay their step (capture.c) */
  char* cluster;          /* "JOB:N,..." (runtime/cluster), "" for none */
  int64_t cluster_peer_timeout_ms; /* a peer silent or in no run this long is lost; 0: never */
  /* The backends' own keys (cpu.devices, gpu.*, a plugin's), checked by
   * their declarations and handed to the backends (backend_options.h). */
  grt_backend_values* backend;
};

/* A deep copy of `in` (NULL: every default) into *out, which the caller
 * releases with grt_session_options_clear. */
GRT_MUST_USE grt_status* grt_session_options_copy_into(const grt_session_options* in,
                                                       grt_session_options* out);
/* Frees what *o holds, not o itself. */
void grt_session_options_clear(grt_session_options* o);

#endif /* GRT_RUNTIME_SESSION_SESSION_OPTIONS_H_ */
