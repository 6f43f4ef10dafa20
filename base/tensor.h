/* The library's tensor layout: a typed view onto a reference-counted buffer. */
#ifndef GRT_BASE_TENSOR_H_
#define GRT_BASE_TENSOR_H_

#include "grt/types.h"
#include "base/allocator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes that belong to somebody else until the last reference goes: an
 * allocator's block, or a range of a mapped file kept alive by `owner`. */
typedef struct grt_buffer grt_buffer;
struct grt_buffer {
  int refs; /* atomic (__atomic builtins): shared across threads */
  void* data;
  size_t size;
  /* Called with the last reference; frees `data` and/or drops `owner`. */
  void (*release)(grt_buffer* self);
  void* owner;
  bool embedded; /* this header lives inside the block `release` frees */
};

/* A buffer of `size` bytes from `a` (64-byte aligned, not zeroed). */
GRT_MUST_USE grt_status* grt_buffer_alloc(grt_allocator* a, size_t size, grt_buffer** out);

/* A buffer over memory someone else owns; `release(self)` runs when the last
 * reference goes (it should drop whatever `owner` refers to). */
GRT_MUST_USE grt_status* grt_buffer_wrap(void* data, size_t size, void (*release)(grt_buffer*),
                                         void* owner, grt_buffer** out);

grt_buffer* grt_buffer_ref(grt_buffer* b);
void grt_buffer_unref(grt_buffer* b);

struct grt_tensor {
  int refs; /* atomic */
  grt_dtype dtype;
  grt_shape shape; /* always fully known */
  grt_buffer* buffer;
  size_t offset; /* of the first element within buffer->data */
  bool embedded; /* lives inside its buffer's block: freed with the buffer */
};

/* A tensor over `buffer` at `offset` (takes a new reference to the buffer).
 * Fails if the elements do not fit in the buffer. */
GRT_MUST_USE grt_status* grt_tensor_new_view(grt_dtype dtype, const grt_shape* shape,
                                             grt_buffer* buffer, size_t offset, grt_tensor** out);

/* A new tensor allocated from `a`, zero-filled. */
GRT_MUST_USE grt_status* grt_tensor_new_from(grt_allocator* a, grt_dtype dtype,
                                             const grt_shape* shape, grt_tensor** out);

/* A new tensor whose header, buffer header and data share one block from
 * `a` (data 64-byte aligned, not zeroed): one allocation and one free per
 * tensor, which is what the executor's per-node outputs want. */
GRT_MUST_USE grt_status* grt_tensor_new_packed(grt_allocator* a, grt_dtype dtype,
                                               const grt_shape* shape, grt_tensor** out);

/* A new tensor whose data alone comes from `a` (not zeroed, never touched
 * by the host): for device memory the host cannot address, such as a GPU's.
 * The headers live in host memory. */
GRT_MUST_USE grt_status* grt_tensor_new_device(grt_allocator* a, grt_dtype dtype,
                                               const grt_shape* shape, grt_tensor** out);

/* Bytes needed for `shape` elements of `dtype`; false if unknown or overflowing. */
bool grt_tensor_bytes_for(grt_dtype dtype, const grt_shape* shape, size_t* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BASE_TENSOR_H_ */
