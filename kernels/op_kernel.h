/* The interface between executors and the kernels that compute ops.
 *
 * A kernel is a compute function (plus optional per-node state) registered
 * for an op on a device type. The executor hands it a context with the
 * node (for attrs: grt_node_attr), its input tensors, and room for its
 * outputs; the kernel allocates outputs through the context and returns
 * NULL or a status. Error messages describe the fault without the node name;
 * the executor puts "node 'x' (Op): " in front.
 *
 * References (TensorFlow's Ref(T)): a variable's storage is a grt_var. An op
 * with a Ref output (VariableV2, Assign, Apply*) sets output_refs[k]; an op
 * with a Ref input (Assign, ApplyAdam, ...) finds the variable in
 * input_refs[k]. A consumer taking a Ref output as a plain value gets the
 * variable's current tensor; if the variable was never assigned, the executor
 * fails with "Attempting to use uninitialized value NAME". A plain input
 * read from a variable also has the variable in input_refs[k] (its value is
 * inputs[k], a snapshot), so a kernel may key a derived copy on the
 * variable's version (below). */
#ifndef GRT_KERNELS_OP_KERNEL_H_
#define GRT_KERNELS_OP_KERNEL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "grt/backend.h"
#include "grt/status.h"
#include "grt/types.h"
#include "ops/graph.h"
#include "base/allocator.h"
#include "base/tensor.h"
#include "base/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A variable's storage on its device. Kernels that read or replace `value`
 * hold `mu` while they do (ops with use_locking=false may update in place
 * without it, as TensorFlow's do). */
struct grt_var {
  pthread_mutex_t mu;
  grt_tensor* value; /* NULL until first assigned; one reference owned here */
  const char* name;  /* the variable node's name, for messages */
  /* Writes, for kernels that keep a copy derived from the value (packed
   * weights, backends/cpu/dnnl_pack.h). The executor counts every kernel
   * that takes the variable by reference as a writer (Assign, AssignAdd,
   * Apply*, ...): `writers` is raised before it runs; after it, `version`
   * is raised and then `writers` lowered; checkpoint restore does the same.
   * A reader that, after taking its snapshot of `value`, sees writers == 0
   * and then reads version V knows that any copy it makes of the snapshot
   * is the value of version V. Both atomic. */
  int32_t writers;
  uint64_t version;
};

/* The write protocol above. */
static inline void grt_var_write_begin(grt_var* v) {
  __atomic_add_fetch(&v->writers, 1, __ATOMIC_ACQ_REL);
}
static inline void grt_var_write_end(grt_var* v) {
  __atomic_add_fetch(&v->version, 1, __ATOMIC_RELEASE);
  __atomic_sub_fetch(&v->writers, 1, __ATOMIC_RELEASE);
}
/* The version of a snapshot taken before this call, or false while a write
 * may be under way. */
static inline bool grt_var_stable_version(const grt_var* v, uint64_t* out) {
  if (__atomic_load_n(&v->writers, __ATOMIC_ACQUIRE) != 0) return false;
  *out = __atomic_load_n(&v->version, __ATOMIC_ACQUIRE);
  return true;
}

/* grt_kernel_ctx, grt_op_kernel and the kernel flags are part of the
 * backend interface (grt/backend.h). */

/* grt_kernel_alloc_output (grt/backend.h) allocates output k uninitialised
 * from ctx->allocator, or from ctx->host_allocator for a HostMemory output,
 * and stores it in ctx->outputs[k]; grt_kernel_set_output makes output k
 * share a tensor (Identity, Reshape, ...). */

/* Output k over input i's buffer when the executor marked input i
 * forwardable (ctx->forwardable: this node is the value's only reader) and
 * the tensor is held by nothing else and matches dtype and shape; else a
 * new output, as grt_kernel_alloc_output. For element-wise kernels whose
 * output element j depends on input element j only (read before it is
 * written), so writing in place gives the same values. */
GRT_MUST_USE grt_status* grt_kernel_forward_or_alloc_output(grt_kernel_ctx* ctx, int32_t i,
                                                            int32_t k, grt_dtype dtype,
                                                            const grt_shape* shape,
                                                            grt_tensor** out);

/* grt_kernel_alloc_temp (a scratch tensor the caller frees), the list(int)
 * attr reader and the variable calls (grt_var_*) are public too. */

/* Attr helpers: the node's value or the op's default; an error names the attr. */
GRT_MUST_USE grt_status* grt_kernel_attr_int(const grt_kernel_ctx* ctx, const char* name,
                                             int64_t* out);
GRT_MUST_USE grt_status* grt_kernel_attr_float(const grt_kernel_ctx* ctx, const char* name,
                                               float* out);
GRT_MUST_USE grt_status* grt_kernel_attr_string(const grt_kernel_ctx* ctx, const char* name,
                                                const char** out);
/* The attr value itself (any type), or NULL. */
const grt_attr_value* grt_kernel_attr(const grt_kernel_ctx* ctx, const char* name);

/* Reads an integer tensor of rank <= 1 into a vector (for shape, axis, perm,
 * begin/size and multiples inputs). Fails naming `what` on a non-integer
 * dtype, a higher rank, or more than `max` elements. */
GRT_MUST_USE grt_status* grt_kernel_read_int_vector(const grt_tensor* t, const char* what,
                                                    int64_t* out, int32_t max, int32_t* out_n);

#ifdef __cplusplus
}
#endif

#endif /* GRT_KERNELS_OP_KERNEL_H_ */
