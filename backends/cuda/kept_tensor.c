/* Tensors kept in a node's state across runs (kept_tensor.h). */
#include "kept_tensor.h"

#include <stdlib.h>
#include <string.h>

static int64_t g_uploads; /* atomic */

grt_status* grt_cuda_kept_new(const grt_node* node, void** out_state) {
  (void)node;
  grt_cuda_kept* k = calloc(1, sizeof *k);
  if (!k) return grt_status_new(GRT_RESOURCE_EXHAUSTED, "out of memory for a kernel's state");
  pthread_mutex_init(&k->mu, NULL);
  *out_state = k;
  return NULL;
}

void grt_cuda_kept_free(void* state) {
  grt_cuda_kept* k = state;
  if (!k) return;
  grt_tensor_free(k->tensor);
  pthread_mutex_destroy(&k->mu);
  free(k);
}

static bool same_shape(const grt_shape* a, const grt_shape* b) {
  if (a->rank != b->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

grt_tensor* grt_cuda_kept_find(const grt_cuda_kept* k, const void* src, grt_dtype dtype,
                               const grt_shape* shape) {
  if (!k->tensor || k->src != src || k->dtype != dtype || !same_shape(&k->shape, shape))
    return NULL;
  return k->tensor;
}

void grt_cuda_kept_store(grt_cuda_kept* k, grt_tensor* t, const void* src, grt_dtype dtype,
                         const grt_shape* shape) {
  grt_tensor_ref(t);
  grt_tensor_free(k->tensor);
  k->tensor = t;
  k->src = src;
  k->dtype = dtype;
  k->shape = *shape;
  k->uploads++;
  __atomic_add_fetch(&g_uploads, 1, __ATOMIC_RELAXED);
}

bool grt_cuda_const_weights(const grt_kernel_ctx* ctx) {
  bool b = false;
  grt_status* st = grt_kernel_attr_bool(ctx, "_grt_const_b", &b); /* absent: not marked */
  if (st) {
    grt_status_free(st);
    return false;
  }
  return b;
}

__attribute__((visibility("default"))) int64_t grt_cuda_kept_uploads(void) {
  return __atomic_load_n(&g_uploads, __ATOMIC_RELAXED);
}
