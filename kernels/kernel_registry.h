/* The kernel registry: which device types can run each op, for which dtypes,
 * with which arguments held in host memory.
 *
 * This is data known without the device present (backends/cpu/support_cpu.c,
 * backends/cuda/support_gpu.c): the placer reads it to plan for machines it does not have,
 * and each backend must implement exactly the rows declared for its device
 * type (a test checks the two agree). Rows follow TensorFlow's
 * REGISTER_KERNEL_BUILDER registrations, restricted to grt's dtypes.
 *
 * A row is written like an op spec (ops/op_def.h):
 *   constraints: semicolon-separated "ATTR: {dtype, dtype, ...}" — the type
 *       attr ATTR of the node must hold one of the listed dtypes (TensorFlow's
 *       TypeConstraint); "" for none.
 *   host_memory: comma-separated argument names (inputs or outputs of the op)
 *       whose tensors stay in host memory on that device (HostMemory).
 * The int32-on-host rule: an attr's dtype set followed by "+ int32 on host"
 * (GRT_INT32_ON_HOST in kernel_table.h), as in
 *   {"Add", "GPU", "T: {float32, int64} + int32 on host", "", 0}
 * makes one row stand for two, parsed as if written one after the other:
 *   {"Add", "GPU", "T: {float32, int64}", "", 0}
 *   {"Add", "GPU", "T: {int32}", "x, y, z", 0}
 * the second with the marked attr int32, the other constraints and the
 * priority unchanged, and every argument of the op (inputs and outputs)
 * in host memory: TensorFlow's GPU registrations for int32 data, whose
 * kernel is the CPU one. One attr per row at most; its set must not hold
 * int32 and the op must allow int32 there. Both rows point to the one spec
 * (grt_kernel_def.spec); row numbers in errors are table rows.
 * The built-in types' rows are parsed on first use and checked against the
 * op registry. Device types are registered: CPU and GPU are built in; a
 * backend plugin adds its own type with its rows at run time
 * (grt_device_type_register). Registration only ever adds: a type, its id,
 * its rows and their indices never change or move once registered. */
#ifndef GRT_KERNELS_KERNEL_REGISTRY_H_
#define GRT_KERNELS_KERNEL_REGISTRY_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/backend.h"
#include "grt/status.h"
#include "kernels/kernel_table.h"
#include "ops/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device type: its id, 0 .. grt_device_type_count() - 1, in registration
 * order. Ids index per-type arrays of GRT_MAX_DEVICE_TYPES entries, and type
 * masks are bitmasks (1 << id). */
typedef int32_t grt_device_type;
enum {
  GRT_DEVICE_CPU = 0, /* built in, priority 70 */
  GRT_DEVICE_GPU = 1, /* built in, priority 210 */
};
#define GRT_MAX_DEVICE_TYPES 8
/* Longest type name, with its NUL. */
#define GRT_DEVICE_TYPE_NAME_MAX 32

/* Registers device type `name` with TensorFlow's device-factory `priority`
 * (CPU 70, GPU 210: with no request the higher is preferred) and its kernel
 * support rows (each row's device must be `name`), and sets *out to its id.
 * Names are letters, digits and '_' starting with a letter, stored
 * upper-case and matched in any case. The rows are parsed and checked
 * against the op registry now; a bad row fails the registration
 * (INVALID_ARGUMENT naming the row) and nothing is registered. A name that
 * exists fails with ALREADY_EXISTS, unless `rows` and `n_rows` are the ones
 * it was registered with (a plugin loaded twice): then *out is its id. At
 * most GRT_MAX_DEVICE_TYPES types (RESOURCE_EXHAUSTED beyond). The rows must
 * live for the rest of the process. Thread-safe. */
GRT_MUST_USE grt_status* grt_device_type_register(const char* name, int32_t priority,
                                                  const grt_kernel_spec* rows, int32_t n_rows,
                                                  grt_device_type* out);
/* Types registered so far (CPU and GPU included). */
int32_t grt_device_type_count(void);
/* The registered name ("CPU", "GPU", "TEST"); "?" for an id not registered.
 * Static storage. */
const char* grt_device_type_name(grt_device_type t);
/* Case-insensitive lookup ("gpu" -> GRT_DEVICE_GPU); false when unknown. */
bool grt_device_type_from_name(const char* name, grt_device_type* out);
/* The priority it was registered with; 0 for an id not registered. */
int32_t grt_device_type_priority(grt_device_type t);

/* One row of a support table, in the syntax above: grt_kernel_spec, part of
 * the backend interface (grt/backend.h) so plugins can declare their rows. */

#define GRT_KERNEL_MAX_CONSTRAINTS 4
#define GRT_KERNEL_MAX_HOST_ARGS 8

typedef struct grt_kernel_constraint {
  const char* attr;
  uint32_t allowed; /* bitmask of grt_dtype_bit() */
} grt_kernel_constraint;

/* A parsed row. Host-memory arguments are resolved against the op's
 * signature into argument indices (not tensor indices: a list argument such
 * as AddN's "inputs" covers several tensors). */
typedef struct grt_kernel_def {
  const char* op;
  int32_t index; /* its index in grt_kernel_at() */
  grt_device_type device;
  int32_t priority;
  int32_t n_constraints;
  grt_kernel_constraint constraints[GRT_KERNEL_MAX_CONSTRAINTS];
  uint32_t host_inputs;        /* bit k: input argument k is in host memory */
  uint32_t host_outputs;       /* bit k: output argument k is in host memory */
  const grt_kernel_spec* spec; /* the row it came from */
} grt_kernel_def;

/* NULL when every built-in row parsed and names ops, attrs and arguments
 * the op registry knows; otherwise the first fault (a bug in grt's tables,
 * caught by the registry test). Owned by the registry. */
const grt_status* grt_kernel_registry_status(void);

/* Every kernel row: each type's rows in table order, types by id. Indices
 * are stable (a registration appends) and rows never move in memory. */
int32_t grt_kernel_count(void);
const grt_kernel_def* grt_kernel_at(int32_t i);

/* The rows for `op` on every registered type, by type id and then in table
 * order: returns how many and points *out_rows (may be NULL) at them, or at
 * NULL when there are none. The list stays valid for the rest of the
 * process; a later registration makes a new one. */
int32_t grt_kernel_find_op(const char* op, const grt_kernel_def* const** out_rows);

/* Index of the kernel that runs `node` (with its attrs; the node must have
 * been validated) on device type `t`, or -1 when none does. */
int32_t grt_kernel_find(const grt_node* node, grt_device_type t);

/* For every registered device type at once: out_kernel[t] =
 * grt_kernel_find(node, t) (-1 for every other slot). Returns the bitmask
 * (1 << t) of types that have one. One hash probe; no lock. */
uint32_t grt_kernel_supported(const grt_node* node, int32_t out_kernel[GRT_MAX_DEVICE_TYPES]);
/* The same with the rows themselves: out_rows[t] is the row for type t, or
 * NULL (the placer's hot path: it wants their priorities and indices). */
uint32_t grt_kernel_supported_rows(const grt_node* node,
                                   const grt_kernel_def* out_rows[GRT_MAX_DEVICE_TYPES]);

/* Whether data input `input` / output `output` (tensor indices, as in the
 * node's signature) of `node` stays in host memory under kernel `k`. */
bool grt_kernel_input_in_host_memory(const grt_kernel_def* k, const grt_node* node, int32_t input);
bool grt_kernel_output_in_host_memory(const grt_kernel_def* k, const grt_node* node,
                                      int32_t output);

/* TensorFlow-style listing of the kernels registered for `op`, one per line:
 *   "  device='GPU'; T in [float16, float32]"
 * ("  <no registered kernels>" when none). Writes at most `size` bytes
 * (NUL-terminated) and returns the length the whole text needs. */
size_t grt_kernel_describe_op(const char* op, char* buf, size_t size);

/* The built-in support tables, each owned by its backend's folder
 * (backends/cpu/support_cpu.c, backends/cuda/support_gpu.c) and compiled
 * into the core library so plans for those types work where the backend
 * itself is absent. */
extern const grt_kernel_table grt_kernels_cpu;
extern const grt_kernel_table grt_kernels_gpu;

#ifdef __cplusplus
}
#endif

#endif /* GRT_KERNELS_KERNEL_REGISTRY_H_ */
