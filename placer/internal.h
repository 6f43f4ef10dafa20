/* Internal layout of the placer's objects and the steps grt_place runs.
 *
 * Everything per node is a flat array indexed by node (no per-node mallocs);
 * device requests are interned once per distinct spelling, so a million
 * nodes asking for "/gpu:0" share one parsed name and one match table. */
#ifndef GRT_PLACER_INTERNAL_H_
#define GRT_PLACER_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/placer.h"
#include "kernels/kernel_registry.h"
#include "ops/graph.h"
#include "placer/ps_setter.h"
#include "runtime/device/device_set.h"
#include "base/arena.h"
#include "base/device_name.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- devices (runtime/device/device_set.h) ---- */

/* Per-node type masks are stored in a byte. */
_Static_assert(GRT_MAX_DEVICE_TYPES <= 8, "type masks are uint8_t per node");

/* ---- options (options.c) ---- */

struct grt_place_options {
  bool soft;
  grt_ps_strategy strategy;
  int32_t n_ps;
  char** ps; /* as given */
  grt_device_name* ps_parsed;
};

/* ---- interned requests (request.c) ---- */

/* Type orders a group can prefer: the device types' priority (higher first,
 * ties by type id), or a kernel priority that puts type t first
 * (GRT_ORDER_FIRST(t)), the rest by priority. */
enum { GRT_ORDER_DEFAULT = 0 };
#define GRT_ORDER_FIRST(t) ((uint8_t)(1 + (t)))

/* Answers grt_requests_best remembers per request. */
#define GRT_REQUEST_BEST_CACHE 8

typedef struct grt_request {
  grt_device_name name;
  const char* text; /* canonical partial spec ("" for none), arena */
  uint8_t* match;   /* per device: 1 when the device satisfies the spec */
  int32_t n_match;
  /* The first matching device of an allowed type in preference order (-1
   * none) for the last (mask, order) keys asked: key = mask | order << 8. */
  uint8_t n_best, next_best;
  uint16_t best_key[GRT_REQUEST_BEST_CACHE];
  int32_t best[GRT_REQUEST_BEST_CACHE];
} grt_request;

typedef struct grt_requests {
  const grt_device_set* ds;
  /* the set's types by priority (higher first, ties by id) */
  int32_t n_types;
  grt_device_type by_priority[GRT_MAX_DEVICE_TYPES];
  grt_arena* arena;
  grt_request* items; /* items[0] is the empty request */
  int32_t n, cap;
  grt_strmap by_text; /* canonical text -> id */
  grt_strmap by_raw;  /* spelling as written -> id */
} grt_requests;

GRT_MUST_USE grt_status* grt_requests_init(grt_requests* r, const grt_device_set* ds,
                                           grt_arena* arena);
void grt_requests_clear(grt_requests* r);
/* Id of the request `spec` parses to (0 for ""); `raw` strings must outlive
 * the table. Fails on a malformed spec. */
GRT_MUST_USE grt_status* grt_requests_intern_raw(grt_requests* r, const char* raw, int32_t* out);
GRT_MUST_USE grt_status* grt_requests_intern(grt_requests* r, const grt_device_name* name,
                                             int32_t* out);
/* First device of an allowed type (mask of 1 << type) in preference order
 * (GRT_ORDER_DEFAULT or GRT_ORDER_FIRST(t)), -1 when none. */
int32_t grt_requests_best(grt_requests* r, int32_t id, uint32_t mask, int order);

/* Merges b into a with TensorFlow's rules: job/replica/task conflicts always
 * fail; type and id conflicts fail, or with `soft` drop the type and id (or
 * just the id). Returns 0 merged, 1 merged by dropping fields (soft), -1 on
 * a conflict; then `why` holds TensorFlow's message. */
int grt_device_name_merge_soft(grt_device_name* a, const grt_device_name* b, bool soft, char* why,
                               size_t why_size);

/* ---- the plan (plan.c) ---- */

typedef struct grt_ps_record {
  int32_t node;
  int32_t ps;    /* index into the ps list */
  int64_t bytes; /* the variable's size; -1 when its shape is not fully known */
} grt_ps_record;

struct grt_plan {
  const grt_graph* g;
  grt_device_set* devices;
  grt_arena* arena;
  bool soft;
  int32_t n;
  int32_t* device;
  uint8_t* reason;
  uint8_t* cause;
  uint8_t* stage;   /* soft fallback: 1 dropped the id, 2 kept only the type, 3 dropped it */
  int32_t* request; /* own request id (written or from the ps setter); 0 none */
  int32_t* detail;  /* the other node a reason names, or a ps record; -1 none */
  int32_t* kernel;  /* kernel row for the assigned device type */
  int32_t* spec;    /* per node: the request its group was finally placed by */
  grt_requests reqs;
  /* ps setter */
  grt_ps_strategy strategy;
  int32_t n_ps;
  char** ps_names;     /* arena */
  int32_t* ps_request; /* request id per ps device */
  int32_t n_ps_records;
  grt_ps_record* ps_records;
  int64_t* ps_loads;     /* n_ps_records x n_ps: loads before each placement */
  int32_t* ps_record_of; /* per node, -1 unless placed by the setter */
  /* colocate_with requests ignored under soft placement (node, other) */
  int32_t n_ignored;
  int32_t* ignored;
  /* copies, sorted by (src, port, dst_device) */
  int32_t n_copies;
  grt_plan_copy* copies;
  int32_t* copy_start; /* n + 1: copies of node v are [copy_start[v], copy_start[v+1]) */
};

/* Allocates the per-node arrays. */
GRT_MUST_USE grt_status* grt_plan_alloc(const grt_graph* g, const grt_device_set* ds,
                                        grt_plan** out);

/* ---- steps (one file each) ---- */

typedef struct grt_place_ctx grt_place_ctx;

/* ps_setter.c: gives each unconstrained variable a ps device request. */
GRT_MUST_USE grt_status* grt_place_ps_setter(grt_plan* p, const grt_place_options* opts);
/* copies.c: fills p->copies from the assignment. */
GRT_MUST_USE grt_status* grt_place_copies(grt_plan* p);
/* reason.c: one-line text for a node's placement. */
size_t grt_place_reason_text(const grt_plan* p, int32_t node, char* buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GRT_PLACER_INTERNAL_H_ */
