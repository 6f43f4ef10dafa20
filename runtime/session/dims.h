/* Session option `dims` (dims.c): "NAME=SIZE,..." parsed once, by the
 * option's check and by the binding, and the binding itself. */
#ifndef GRT_RUNTIME_SESSION_DIMS_H_
#define GRT_RUNTIME_SESSION_DIMS_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "ops/graph.h"

enum { GRT_MAX_DIM_BINDINGS = 64 };

typedef struct grt_dim_binding {
  char name[128];
  int64_t size;
  bool used;
} grt_dim_binding;

/* Parses `text` into out[0..*n): each item NAME=SIZE (a name of at most
 * 127 bytes, a size of 0 or more), each name once, no trailing ','.
 * Errors read "option dims: ...". */
GRT_MUST_USE grt_status* grt_dims_parse(const char* text, grt_dim_binding* out, int32_t* n);

/* A copy of `g` whose Placeholders declare the sizes `dims` binds to their
 * dim_names; every name must be one of the graph's. */
GRT_MUST_USE grt_status* grt_session_bind_dims(const grt_graph* g, const char* dims,
                                               grt_graph** out);

#endif /* GRT_RUNTIME_SESSION_DIMS_H_ */
