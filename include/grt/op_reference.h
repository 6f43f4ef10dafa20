/* The op registry as a reference: every op grt knows, its signature as
 * declared, and the kernel support rows of each device type (`grt ops`,
 * docs/ops.md, which is generated from these calls).
 *
 * Signatures are in the registry's own syntax, modelled on TensorFlow's
 * REGISTER_OP:
 *   inputs, outputs: comma-separated "name: TYPE", TYPE a dtype ("int32"),
 *     a type attr ("T"), "N * T" (a list of N tensors of type T) or
 *     "Ref(T)" (a variable's reference);
 *   attrs: semicolon-separated "name: KIND [>= MIN] [= DEFAULT]", KIND one
 *     of int float bool string type shape tensor list(...), or a dtype set
 *     "{float32, float64}": a type attr limited to those dtypes.
 * Everything returned lives for the rest of the process. */
#ifndef GRT_OP_REFERENCE_H_
#define GRT_OP_REFERENCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_op_info {
  const char* name;    /* TensorFlow's name: "MatMul" */
  const char* family;  /* the table it is declared in: "math", "nn", "state", ... */
  const char* inputs;  /* "a: T, b: T"; "" for none */
  const char* outputs; /* "product: T"; "" for none */
  const char* attrs;   /* "transpose_a: bool = false; T: {float32, ...}"; "" for none */
  bool stateful;       /* not a pure function of its inputs (variables, random ops) */
  bool differentiable; /* grt_graph_add_gradients has a gradient function for it */
} grt_op_info;

/* How many ops are registered; ops 0 .. count-1 in registration order. */
GRT_API int32_t grt_op_info_count(void);
/* Op `i`, or false (and *out untouched) when i is out of range. */
GRT_API bool grt_op_info_at(int32_t i, grt_op_info* out);
/* The op called `name` (exact case), or false when none is. */
GRT_API bool grt_op_info_find(const char* name, grt_op_info* out);

/* One kernel support row: a device type can run the op when the node's type
 * attrs hold dtypes the constraints allow. */
typedef struct grt_op_kernel_info {
  const char* device;    /* the device type: "CPU", "GPU", or a loaded plugin's */
  char constraints[512]; /* "T in [float32, float64]; Tidx in [int32]"; "" for none */
  char host_memory[256]; /* arguments kept in host memory: "shape, output"; "" */
  int32_t priority;      /* TensorFlow's kernel priority, 0 normally */
} grt_op_kernel_info;

/* How many support rows op `op` has on the device types registered so far
 * (CPU and GPU are built in, so the answer holds without the CUDA plugin;
 * a plugin's type counts once the plugin is loaded). 0 for an unknown op. */
GRT_API int32_t grt_op_kernel_info_count(const char* op);
/* Row `i` of op `op`, by device type and then in table order; false when
 * out of range. */
GRT_API bool grt_op_kernel_info_at(const char* op, int32_t i, grt_op_kernel_info* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OP_REFERENCE_H_ */
