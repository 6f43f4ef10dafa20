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
 * fails with "Attempting to use uninitialized value NAME". */
#ifndef GRT_RUNTIME_OP_KERNEL_H_
#define GRT_RUNTIME_OP_KERNEL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

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
typedef struct grt_var {
  pthread_mutex_t mu;
  grt_tensor* value; /* NULL until first assigned; one reference owned here */
  const char* name;  /* the variable node's name, for messages */
} grt_var;

typedef struct grt_kernel_ctx {
  const grt_node* node;
  int32_t n_inputs;
  grt_tensor* const* inputs;   /* values; for Ref inputs the variable's tensor or NULL */
  grt_var* const* input_refs;  /* the variable for each Ref input, else NULL */
  int32_t n_outputs;
  grt_tensor** outputs;        /* the kernel sets each (one reference, owned by the executor) */
  grt_var** output_refs;       /* the kernel sets these for Ref outputs */
  grt_allocator* allocator;    /* the device's allocator for outputs and scratch */
  grt_threadpool* intra_op;    /* for grt_parallel_for; may be NULL */
  void* state;                 /* from create_state, per node, lives with the session */
  int64_t step;                /* counts runs of the session, from 0 */
} grt_kernel_ctx;

/* Kernel flags. */
enum {
  GRT_KERNEL_CHEAP = 1u << 0, /* constant-time work: run inline, never on another thread */
};

typedef struct grt_op_kernel {
  const char* op;
  grt_status* (*compute)(grt_kernel_ctx* ctx);
  /* Optional: per-node state made once when the session is built
   * (a variable's grt_var, a random generator's counter). */
  grt_status* (*create_state)(const grt_node* node, void** out_state);
  void (*free_state)(void* state);
  uint32_t flags;
} grt_op_kernel;

/* Allocates output k (dtype, shape) from ctx->allocator, uninitialised, and
 * stores it in ctx->outputs[k]; *out (may be NULL) receives it too. */
grt_status* grt_kernel_alloc_output(grt_kernel_ctx* ctx, int32_t k, grt_dtype dtype,
                                    const grt_shape* shape, grt_tensor** out);

/* Makes output k share `t` (a new reference): Identity, Reshape, ... */
void grt_kernel_set_output(grt_kernel_ctx* ctx, int32_t k, grt_tensor* t);

/* A scratch tensor from the device allocator (caller frees). */
grt_status* grt_kernel_alloc_temp(grt_kernel_ctx* ctx, grt_dtype dtype, const grt_shape* shape,
                                  grt_tensor** out);

/* Attr helpers: the node's value or the op's default; an error names the attr. */
grt_status* grt_kernel_attr_int(const grt_kernel_ctx* ctx, const char* name, int64_t* out);
grt_status* grt_kernel_attr_float(const grt_kernel_ctx* ctx, const char* name, float* out);
grt_status* grt_kernel_attr_bool(const grt_kernel_ctx* ctx, const char* name, bool* out);
grt_status* grt_kernel_attr_type(const grt_kernel_ctx* ctx, const char* name, grt_dtype* out);
grt_status* grt_kernel_attr_string(const grt_kernel_ctx* ctx, const char* name,
                                   const char** out);
/* The attr value itself (any type), or NULL. */
const grt_attr_value* grt_kernel_attr(const grt_kernel_ctx* ctx, const char* name);

/* Reads an integer tensor of rank <= 1 into a vector (for shape, axis, perm,
 * begin/size and multiples inputs). Fails naming `what` on a non-integer
 * dtype, a higher rank, or more than `max` elements. */
grt_status* grt_kernel_read_int_vector(const grt_tensor* t, const char* what, int64_t* out,
                                       int32_t max, int32_t* out_n);

#ifdef __cplusplus
}
#endif

#endif  /* GRT_RUNTIME_OP_KERNEL_H_ */
