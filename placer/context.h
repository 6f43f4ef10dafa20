/* The working state of one grt_place call, shared by its steps:
 * colocation.c (groups), candidates.c (devices per group, soft placement),
 * assign.c (the passes and heuristics), group_info.c (error messages).
 *
 * Group state lives at the union-find root's index; per-node arrays are
 * flat and freed when grt_place returns. */
#ifndef GRT_PLACER_CONTEXT_H_
#define GRT_PLACER_CONTEXT_H_

#include "placer/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Group flags. */
enum {
  GRT_GROUP_SOFT_CONFLICT = 1u << 0, /* a soft merge dropped conflicting fields */
  GRT_GROUP_CANDIDATES = 1u << 1,    /* candidates computed */
};

struct grt_place_ctx {
  grt_plan* plan;
  grt_graph* g;
  const grt_node* nodes;
  int32_t n;
  bool soft;
  uint32_t set_types;                /* device types the set has */
  int32_t n_slots;                   /* how many: kern keeps a row per node for each */
  int8_t slot[GRT_MAX_DEVICE_TYPES]; /* type -> its slot, -1 for types not in the set */
  grt_device_type slot_type[GRT_MAX_DEVICE_TYPES]; /* slot -> type */
  /* per node */
  uint8_t* types;  /* device types with a kernel (within set_types) */
  uint8_t* order;  /* GRT_ORDER_* from kernel priorities */
  int32_t* kern;   /* kernel row per type in the set: kern[v * n_slots + slot[t]] */
  int32_t* parent; /* union-find */
  uint8_t* rank;
  /* per group (valid at roots) */
  int32_t* greq; /* merged request id */
  int32_t* gsrc; /* first member (graph order) with a request of its own, or -1 */
  int32_t* gref; /* source of a reference edge that overrode a request, or -1 */
  uint8_t* gtypes;
  uint8_t* gorder;
  uint8_t* gflags;
  int32_t* gcand;    /* default device */
  int32_t* gspec;    /* request the candidates come from (after any fallback) */
  uint8_t* gcause;   /* why the request fell back */
  uint8_t* gstage;   /* how far it fell back (1 id, 2 only the type kept, 3 type) */
  int32_t* gdev;     /* assigned device, -1 until the first member is placed */
  int32_t* gdecider; /* the member whose placement fixed the group */
  uint8_t* gheur;    /* how the decider was placed (a grt_place_reason) */
};

int32_t grt_ctx_find(grt_place_ctx* c, int32_t v);

/* colocation.c: builds the groups from reference edges, then colocate_with. */
GRT_MUST_USE grt_status* grt_ctx_colocate(grt_place_ctx* c);

/* candidates.c: the default device of every group, applying soft placement;
 * fails (without soft placement) naming the group. Groups are visited in
 * graph order so the first error is the earliest node's. */
GRT_MUST_USE grt_status* grt_ctx_candidates(grt_place_ctx* c);
/* Whether device d is one the group rooted at r may use. */
bool grt_ctx_allowed(const grt_place_ctx* c, int32_t r, int32_t d);

/* assign.c: the two passes with TensorFlow's heuristics, then reasons. */
GRT_MUST_USE grt_status* grt_ctx_assign(grt_place_ctx* c);

/* group_info.c: appends "Colocation members ..." for the group(s) rooted at
 * r1 (and r2 when >= 0) to b, listing every member that asked for a device
 * and its supported device types. */
void grt_ctx_describe_group(grt_place_ctx* c, int32_t r1, int32_t r2, grt_strbuf* b);
/* "[float32, int32]": the node's input dtypes. */
void grt_ctx_describe_inputs(const grt_node* n, grt_strbuf* b);
/* "T=float32, transpose_a=false": the node's attrs, tensors elided. */
void grt_ctx_describe_attrs(const grt_node* n, grt_strbuf* b);
/* "CPU GPU": a device type mask, by type id. */
void grt_ctx_describe_types(uint32_t mask, grt_strbuf* b);

#ifdef __cplusplus
}
#endif

#endif /* GRT_PLACER_CONTEXT_H_ */
