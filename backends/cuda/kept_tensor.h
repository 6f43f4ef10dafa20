/* A device tensor a kernel keeps in its node's state from one run to the
 * next: the Const kernel's copy of its value on the GPU (made on the first
 * run, shared by every later one, as TensorFlow's GPU Const holds its
 * tensor on the device), and a convolution's filter transposed into
 * cuDNN's layout when the filter is a Const (the session's rewrite marks
 * such nodes `_grt_const_b`: runtime/session/REWRITE.md).
 *
 * The key says what the kept tensor was made from: the source's address,
 * dtype and shape. A lookup with another key misses, and the caller makes
 * the tensor again (a Const fed in place of its value reaches the kernel
 * unmarked, so this is a second line of defence). Every later use runs
 * on the device's compute stream after the run that made it, so the copy
 * or transpose that filled it is complete or ordered before the reader.
 *
 * The state's mutex is held across make-and-keep, so two runs of the same
 * node at once make the tensor once. The kept tensor is freed with the
 * state, when the session is freed (its block returns to the session's
 * account, which outlives its kernels' states). */
#ifndef GRT_BACKENDS_CUDA_KEPT_TENSOR_H_
#define GRT_BACKENDS_CUDA_KEPT_TENSOR_H_

#include <pthread.h>
#include <stdbool.h>

#include "grt/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_cuda_kept {
  pthread_mutex_t mu;
  grt_tensor* tensor; /* NULL until made; one reference held here */
  const void* src;    /* the key: what it was made from */
  grt_dtype dtype;
  grt_shape shape;
  int64_t uploads; /* times made (tests: a Const uploads once per session) */
} grt_cuda_kept;

/* The grt_op_kernel state hooks. */
GRT_MUST_USE grt_status* grt_cuda_kept_new(const grt_node* node, void** out_state);
void grt_cuda_kept_free(void* state);

/* Under k->mu: the kept tensor if it was made from (src, dtype, shape),
 * else NULL. */
grt_tensor* grt_cuda_kept_find(const grt_cuda_kept* k, const void* src, grt_dtype dtype,
                               const grt_shape* shape);
/* Under k->mu: keeps t (takes a reference) under the key, dropping any
 * tensor kept before. */
void grt_cuda_kept_store(grt_cuda_kept* k, grt_tensor* t, const void* src, grt_dtype dtype,
                         const grt_shape* shape);

/* Whether the node's kernel may keep a transposed filter: the rewrite's
 * mark that input 1 is a Const. */
bool grt_cuda_const_weights(const grt_kernel_ctx* ctx);

/* Tensors made by every kept state of the process so far (the GPU suite
 * checks that a second run uploads nothing: exported from the plugin, found
 * with dlsym). */
int64_t grt_cuda_kept_uploads(void);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_KEPT_TENSOR_H_ */
