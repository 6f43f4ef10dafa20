/* What the plugin chose for a cuDNN call, kept per device: a bounded map
 * from a key (the bytes of a struct that names everything the choice
 * depends on: the pass, shapes, strides, dilations, padding, groups, dtype,
 * layout, math) to a value the caller owns (descriptors and an algorithm),
 * least recently used out first. As TensorFlow's autotune cache: the first
 * call with a key chooses, every later one reuses. No CUDA in it, so CI
 * tests it (tests/cuda/dnn_cache_test.cc).
 *
 * Not locked: every use is under the device's cuDNN mutex (cudnn_handle.h),
 * which also keeps a value alive while the caller uses it (eviction happens
 * only in put, under the same mutex). */
#ifndef GRT_BACKENDS_CUDA_DNN_CACHE_H_
#define GRT_BACKENDS_CUDA_DNN_CACHE_H_

#include <stddef.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grt_dnn_cache grt_dnn_cache;

/* At most `capacity` entries (> 0); free_value destroys a value when it is
 * evicted, removed or the cache is freed. */
GRT_MUST_USE grt_status* grt_dnn_cache_new(size_t capacity, void (*free_value)(void* value),
                                           grt_dnn_cache** out);
void grt_dnn_cache_free(grt_dnn_cache* c); /* NULL is a no-op */

/* The value under the key (and it becomes the most recently used), or NULL. */
void* grt_dnn_cache_get(grt_dnn_cache* c, const void* key, size_t key_size);
/* Keeps `value` (taken, even on failure) under the key, replacing any value
 * there; evicts the least recently used entry when full. */
GRT_MUST_USE grt_status* grt_dnn_cache_put(grt_dnn_cache* c, const void* key, size_t key_size,
                                           void* value);
/* Drops the key's entry, if any (a choice that stopped working). */
void grt_dnn_cache_remove(grt_dnn_cache* c, const void* key, size_t key_size);
size_t grt_dnn_cache_size(const grt_dnn_cache* c);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_DNN_CACHE_H_ */
