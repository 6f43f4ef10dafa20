/* grt — the placer: which device runs each node, and why.
 *
 * grt_place takes a validated graph, a device set and options and returns a
 * plan: for every node the assigned device and the reason, plus the copies
 * execution must insert where an edge crosses devices. Execution consumes
 * the plan and never re-decides. The rules are TensorFlow's (explicit
 * requests, colocation groups, soft placement, the generator and metadata
 * heuristics, a ps variable setter), with devices ordered by numeric id. */
#ifndef GRT_PLACER_H_
#define GRT_PLACER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grt/device_set.h"
#include "grt/graph.h"
#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options ----------------------------------------------------------- */

typedef struct grt_place_options grt_place_options;

typedef enum grt_ps_strategy {
  GRT_PS_GREEDY = 0,      /* least-loaded ps device by bytes, ties to the earliest */
  GRT_PS_ROUND_ROBIN = 1, /* the next ps device in turn */
} grt_ps_strategy;

/* Defaults: no soft placement, no ps devices, greedy. Caller owns *out. */
GRT_API GRT_MUST_USE grt_status* grt_place_options_new(grt_place_options** out);
GRT_API void grt_place_options_free(grt_place_options* o); /* NULL is a no-op */
GRT_API void grt_place_options_set_soft_placement(grt_place_options* o, bool on);
/* Comma-separated device specs ("/gpu:0,/gpu:1"); "" clears. Fails on a
 * malformed spec, naming it. */
GRT_API GRT_MUST_USE grt_status* grt_place_options_set_ps_devices(grt_place_options* o,
                                                                  const char* list);
/* "greedy" or "round_robin". */
GRT_API GRT_MUST_USE grt_status* grt_place_options_set_ps_strategy(grt_place_options* o,
                                                                   const char* name);

/* ---- placing ----------------------------------------------------------- */

typedef struct grt_plan grt_plan;

/* Places every node of `g` (validated first if it is not). `opts` may be
 * NULL for the defaults. On failure the message names the node and, for a
 * colocation group, every member and what it asked for; the wording follows
 * TensorFlow's ("Cannot assign a device for operation X: ..."). The plan
 * borrows `g`, which must outlive it unchanged; it keeps its own copy of
 * the device set. Caller owns *out. */
GRT_API GRT_MUST_USE grt_status* grt_place(grt_graph* g, const grt_device_set* devices,
                                           const grt_place_options* opts, grt_plan** out);
GRT_API void grt_plan_free(grt_plan* p); /* NULL is a no-op */

/* Why a node is where it is. */
typedef enum grt_place_reason {
  GRT_REASON_EXPLICIT = 0,      /* its own device request */
  GRT_REASON_COLOCATION = 1,    /* placed with its colocation group */
  GRT_REASON_SOFT_FALLBACK = 2, /* its request could not be met; soft placement */
  GRT_REASON_DEFAULT = 3,       /* no request: first supported device by priority */
  GRT_REASON_CONSUMERS = 4,     /* a generator placed with its consumers */
  GRT_REASON_INPUT = 5,         /* Shape/Size/Rank placed with its input */
  GRT_REASON_PS_SETTER = 6,     /* a variable placed by the ps setter */
} grt_place_reason;

/* What made a request fail (SOFT_FALLBACK) or be overridden (COLOCATION). */
typedef enum grt_place_cause {
  GRT_CAUSE_NONE = 0,
  GRT_CAUSE_NO_SUCH_DEVICE = 1,      /* no device in the set matches it */
  GRT_CAUSE_NO_KERNEL = 2,           /* devices match but none has a kernel */
  GRT_CAUSE_COLOCATION_CONFLICT = 3, /* the group asked for incompatible devices */
  GRT_CAUSE_REF_EDGE = 4,            /* a reference input's variable decides (TensorFlow's rule) */
} grt_place_cause;

/* "explicit", "colocation", "soft_fallback", "default", "consumers", "input",
 * "ps_setter"; and "none", "no_such_device", "no_kernel",
 * "colocation_conflict", "ref_edge". Static storage. */
GRT_API const char* grt_place_reason_name(grt_place_reason r);
GRT_API const char* grt_place_cause_name(grt_place_cause c);

GRT_API const grt_device_set* grt_plan_devices(const grt_plan* p);
GRT_API int32_t grt_plan_num_nodes(const grt_plan* p);
/* Index into grt_plan_devices() of the node's device (-1 out of range). */
GRT_API int32_t grt_plan_node_device(const grt_plan* p, int32_t node);
/* Its canonical name ("" out of range). */
GRT_API const char* grt_plan_node_device_name(const grt_plan* p, int32_t node);
/* The request the placer honoured for this node: the node's device as
 * written, or the ps device the setter chose; "" when none. */
GRT_API const char* grt_plan_node_requested(const grt_plan* p, int32_t node);
GRT_API grt_place_reason grt_plan_node_reason(const grt_plan* p, int32_t node);
GRT_API grt_place_cause grt_plan_node_cause(const grt_plan* p, int32_t node);
/* One sentence explaining the placement, snprintf-style: writes at most
 * `size` bytes and returns the length the whole text needs. */
GRT_API size_t grt_plan_node_reason_text(const grt_plan* p, int32_t node, char* buf, size_t size);

/* Copies execution inserts: one per (source tensor, destination device) for
 * data edges that cross devices. port is -1 for a control edge that crosses
 * devices (a signal, no tensor). Ordered by source node, then port, then
 * destination device. */
typedef struct grt_plan_copy {
  int32_t src;        /* source node */
  int32_t port;       /* its output, or -1 for control */
  int32_t src_device; /* device indices */
  int32_t dst_device;
  bool src_host_memory; /* the tensor sits in host memory on the source side */
} grt_plan_copy;

GRT_API int32_t grt_plan_num_copies(const grt_plan* p);
/* Copy i, or NULL out of range. Owned by the plan. */
GRT_API const grt_plan_copy* grt_plan_copy_at(const grt_plan* p, int32_t i);

/* Whether data input `input` / output `output` of the node is held in host
 * memory by the kernel chosen for its device (TensorFlow's HostMemory: int32
 * tensors on GPU, Shape's output, Reshape's shape...). */
GRT_API bool grt_plan_input_in_host_memory(const grt_plan* p, int32_t node, int32_t input);
GRT_API bool grt_plan_output_in_host_memory(const grt_plan* p, int32_t node, int32_t output);

/* ---- writers ----------------------------------------------------------- */

/* TensorFlow's placement log: "Device mapping:" and one line per device,
 * then one line per node in graph order,
 * "<name>: (<op>): /job:localhost/replica:0/task:0/device:<TYPE>:<ID>". */
GRT_API GRT_MUST_USE grt_status* grt_plan_write_log(const grt_plan* p, FILE* f);
/* The plan as JSON: devices, options, and per node the request, assignment,
 * reason (with its details) and the copies out of it. */
GRT_API GRT_MUST_USE grt_status* grt_plan_write_json(const grt_plan* p, FILE* f);
/* A DOT graph: nodes coloured by device, cross-device edges red and dashed
 * (`grt place --dot OUT.svg` renders it with Graphviz). */
GRT_API GRT_MUST_USE grt_status* grt_plan_write_dot(const grt_plan* p, FILE* f);

#ifdef __cplusplus
}
#endif

#endif /* GRT_PLACER_H_ */
