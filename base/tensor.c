#include "base/tensor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc_failure.h"
#include "base/checked.h"
#include "base/dtype.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"

static void release_allocated(grt_buffer* b) {
  grt_allocator_free((grt_allocator*)b->owner, b->data);
}

/* The bare fact, followed by the allocator's own reason when it left one
 * (its state: what is in use, the largest free chunk, its limit). */
static grt_status* out_of_memory(grt_allocator* a, size_t size) {
  grt_status* why = grt_allocator_take_failure();
  grt_status* s =
      GRT_ERROR(RESOURCE_EXHAUSTED, "%s allocator: out of memory allocating %zu bytes%s%s", a->name,
                size, why ? ": " : "", why ? grt_status_message(why) : "");
  grt_status_free(why);
  return s;
}

grt_status* grt_buffer_alloc(grt_allocator* a, size_t size, grt_buffer** out) {
  *out = NULL;
  grt_buffer* b = grt_malloc(sizeof *b);
  if (!b) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory allocating a buffer header");
  grt_allocator_clear_failure();
  b->data = grt_allocator_alloc(a, size, GRT_TENSOR_ALIGNMENT);
  if (!b->data) {
    grt_free(b);
    return out_of_memory(a, size);
  }
  b->refs = 1;
  b->size = size;
  b->release = release_allocated;
  b->owner = a;
  b->embedded = false;
  *out = b;
  return NULL;
}

grt_status* grt_buffer_wrap(void* data, size_t size, void (*release)(grt_buffer*), void* owner,
                            grt_buffer** out) {
  *out = NULL;
  grt_buffer* b = grt_malloc(sizeof *b);
  if (!b) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory allocating a buffer header");
  b->refs = 1;
  b->data = data;
  b->size = size;
  b->release = release;
  b->owner = owner;
  b->embedded = false;
  *out = b;
  return NULL;
}

/* Drops one reference; true when it was the last. A holder of the only
 * reference needs no atomic read-modify-write: nobody else can take one. */
static bool last_reference(int* refs) {
  if (__atomic_load_n(refs, __ATOMIC_ACQUIRE) == 1) return true;
  return __atomic_fetch_sub(refs, 1, __ATOMIC_ACQ_REL) == 1;
}

grt_buffer* grt_buffer_ref(grt_buffer* b) {
  if (b) __atomic_fetch_add(&b->refs, 1, __ATOMIC_RELAXED);
  return b;
}

void grt_buffer_unref(grt_buffer* b) {
  if (!b) return;
  if (!last_reference(&b->refs)) return;
  bool embedded = b->embedded;
  if (b->release) b->release(b);
  if (!embedded) grt_free(b);
}

bool grt_tensor_bytes_for(grt_dtype dtype, const grt_shape* shape, size_t* out) {
  if (!grt_dtype_valid(dtype)) return false;
  int64_t n = grt_shape_num_elements(shape);
  return n >= 0 && grt_checked_tensor_bytes(n, grt_dtype_size(dtype), out);
}

grt_status* grt_tensor_new_view(grt_dtype dtype, const grt_shape* shape, grt_buffer* buffer,
                                size_t offset, grt_tensor** out) {
  *out = NULL;
  size_t bytes;
  if (!grt_tensor_bytes_for(dtype, shape, &bytes))
    return GRT_ERROR(INVALID_ARGUMENT, "tensor of %s needs a known, non-overflowing shape",
                     grt_dtype_name(dtype));
  if (offset > buffer->size || bytes > buffer->size - offset)
    return GRT_ERROR(OUT_OF_RANGE,
                     "tensor of %zu bytes at offset %zu does not fit a %zu-byte buffer", bytes,
                     offset, buffer->size);
  grt_tensor* t = grt_malloc(sizeof *t);
  if (!t) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory allocating a tensor");
  t->refs = 1;
  t->dtype = dtype;
  t->shape = *shape;
  t->buffer = grt_buffer_ref(buffer);
  t->offset = offset;
  t->embedded = false;
  *out = t;
  return NULL;
}

grt_status* grt_tensor_new_from(grt_allocator* a, grt_dtype dtype, const grt_shape* shape,
                                grt_tensor** out) {
  *out = NULL;
  size_t bytes;
  if (shape->rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "rank %d exceeds the maximum of %d", (int)shape->rank,
                     GRT_MAX_RANK);
  GRT_RETURN_IF_ERROR(grt_checked_shape_bytes(dtype, shape, &bytes));
  grt_buffer* b;
  GRT_RETURN_IF_ERROR(grt_buffer_alloc(a, bytes, &b));
  memset(b->data, 0, bytes);
  grt_status* s = grt_tensor_new_view(dtype, shape, b, 0, out);
  grt_buffer_unref(b);
  return s;
}

grt_status* grt_tensor_new_device(grt_allocator* a, grt_dtype dtype, const grt_shape* shape,
                                  grt_tensor** out) {
  *out = NULL;
  size_t bytes;
  if (shape->rank > GRT_MAX_RANK || !grt_tensor_bytes_for(dtype, shape, &bytes))
    return GRT_ERROR(INVALID_ARGUMENT, "tensor of %s needs a known, non-overflowing shape",
                     grt_dtype_name(dtype));
  grt_buffer* b;
  GRT_RETURN_IF_ERROR(grt_buffer_alloc(a, bytes, &b));
  grt_status* s = grt_tensor_new_view(dtype, shape, b, 0, out);
  grt_buffer_unref(b);
  return s;
}

grt_status* grt_tensor_new(grt_dtype dtype, int32_t rank, const int64_t* dims, grt_tensor** out) {
  if (rank < 0 || rank > GRT_MAX_RANK) {
    *out = NULL;
    return GRT_ERROR(INVALID_ARGUMENT, "tensor rank %d is outside 0..%d", (int)rank, GRT_MAX_RANK);
  }
  grt_shape s = grt_shape_make(rank, dims);
  return grt_tensor_new_from(grt_host_allocator(), dtype, &s, out);
}

/* A buffer over host memory handed over by grt_tensor_wrap: the buffer
 * header and the deallocator share one block, which release frees. */
typedef struct wrapped_buffer {
  grt_buffer b; /* first: release gets &b */
  void (*deallocator)(void* data, size_t len, void* arg);
  void* arg;
} wrapped_buffer;

static void release_wrapped(grt_buffer* b) {
  wrapped_buffer* w = (wrapped_buffer*)b;
  if (w->deallocator) w->deallocator(b->data, b->size, w->arg);
  grt_free(w);
}

grt_status* grt_tensor_wrap(void* data, grt_dtype dtype, int32_t rank, const int64_t* dims,
                            void (*deallocator)(void* data, size_t len, void* arg), void* arg,
                            grt_tensor** out) {
  *out = NULL;
  if (!grt_dtype_valid(dtype))
    return GRT_ERROR(INVALID_ARGUMENT, "grt_tensor_wrap: invalid dtype %d", (int)dtype);
  if (rank < 0 || rank > GRT_MAX_RANK)
    return GRT_ERROR(INVALID_ARGUMENT, "grt_tensor_wrap: tensor rank %d is outside 0..%d",
                     (int)rank, GRT_MAX_RANK);
  if (rank > 0 && !dims)
    return GRT_ERROR(INVALID_ARGUMENT, "grt_tensor_wrap: rank %d needs dims", (int)rank);
  grt_shape shape = grt_shape_make(rank, dims);
  size_t bytes;
  if (!grt_tensor_bytes_for(dtype, &shape, &bytes))
    return GRT_ERROR(INVALID_ARGUMENT,
                     "grt_tensor_wrap: a tensor of %s needs known, non-negative dims whose "
                     "byte size does not overflow",
                     grt_dtype_name(dtype));
  if (!data && bytes)
    return GRT_ERROR(INVALID_ARGUMENT, "grt_tensor_wrap: NULL data for %zu bytes of %s", bytes,
                     grt_dtype_name(dtype));
  size_t align = grt_dtype_size(dtype);
  if ((uintptr_t)data % align != 0)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "grt_tensor_wrap: data at %p is not aligned for %s (needs %zu bytes)", data,
                     grt_dtype_name(dtype), align);
  wrapped_buffer* w = grt_malloc(sizeof *w);
  if (!w) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory allocating a buffer header");
  w->b.refs = 1;
  w->b.data = data;
  w->b.size = bytes;
  w->b.release = release_wrapped;
  w->b.owner = NULL;
  w->b.embedded = true;
  w->deallocator = deallocator;
  w->arg = arg;
  grt_status* s = grt_tensor_new_view(dtype, &shape, &w->b, 0, out);
  if (s) {
    grt_free(w); /* never shared: the caller keeps `data` and no deallocator runs */
    return s;
  }
  grt_buffer_unref(&w->b); /* the tensor holds the only reference now */
  return NULL;
}

grt_tensor* grt_tensor_ref(grt_tensor* t) {
  if (t) __atomic_fetch_add(&t->refs, 1, __ATOMIC_RELAXED);
  return t;
}

void grt_tensor_free(grt_tensor* t) {
  if (!t) return;
  if (!last_reference(&t->refs)) return;
  bool embedded = t->embedded;
  grt_buffer_unref(t->buffer);
  if (!embedded) grt_free(t);
}

/* Layout of a packed block: [grt_buffer][grt_tensor] padded to kPackedHeader,
 * then the data. The buffer's release frees the block, tensor included (a
 * packed tensor always holds a reference, so it dies first). */
enum { kPackedHeader = 192 };
_Static_assert(sizeof(grt_buffer) + sizeof(grt_tensor) <= kPackedHeader, "packed header too small");
_Static_assert(kPackedHeader % GRT_TENSOR_ALIGNMENT == 0, "packed data must stay aligned");

static void release_packed(grt_buffer* b) { grt_allocator_free((grt_allocator*)b->owner, b); }

grt_status* grt_tensor_new_packed(grt_allocator* a, grt_dtype dtype, const grt_shape* shape,
                                  grt_tensor** out) {
  *out = NULL;
  size_t bytes;
  GRT_RETURN_IF_ERROR(grt_checked_shape_bytes(dtype, shape, &bytes));
  size_t block_bytes;
  if (!grt_checked_add_size(bytes, kPackedHeader, &block_bytes))
    return GRT_ERROR(INVALID_ARGUMENT, "a %s tensor of %zu bytes is too large to allocate",
                     grt_dtype_name(dtype), bytes);
  grt_allocator_clear_failure();
  char* block = grt_allocator_alloc(a, block_bytes, GRT_TENSOR_ALIGNMENT);
  if (!block) return out_of_memory(a, bytes);
  grt_buffer* b = (grt_buffer*)block;
  grt_tensor* t = (grt_tensor*)(block + sizeof(grt_buffer));
  b->refs = 1;
  b->data = block + kPackedHeader;
  b->size = bytes;
  b->release = release_packed;
  b->owner = a;
  b->embedded = true;
  t->refs = 1;
  t->dtype = dtype;
  t->shape = *shape;
  t->buffer = b;
  t->offset = 0;
  t->embedded = true;
  *out = t;
  return NULL;
}

grt_dtype grt_tensor_dtype(const grt_tensor* t) { return t->dtype; }
int32_t grt_tensor_rank(const grt_tensor* t) { return t->shape.rank; }
int64_t grt_tensor_dim(const grt_tensor* t, int32_t i) {
  return (i >= 0 && i < t->shape.rank) ? t->shape.dims[i] : -1;
}
int64_t grt_tensor_num_elements(const grt_tensor* t) { return grt_shape_num_elements(&t->shape); }
size_t grt_tensor_byte_size(const grt_tensor* t) {
  size_t b = 0;
  grt_tensor_bytes_for(t->dtype, &t->shape, &b);
  return b;
}
void* grt_tensor_data(const grt_tensor* t) { return (char*)t->buffer->data + t->offset; }
