/* grt — element types, shapes and tensors. */
#ifndef GRT_TYPES_H_
#define GRT_TYPES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. The numeric values are stored in .grt files: never renumber. */
typedef enum grt_dtype {
  GRT_DTYPE_INVALID = 0,
  GRT_FLOAT16 = 1,
  GRT_BFLOAT16 = 2,
  GRT_FLOAT32 = 3,
  GRT_FLOAT64 = 4,
  GRT_INT8 = 5,
  GRT_INT16 = 6,
  GRT_INT32 = 7,
  GRT_INT64 = 8,
  GRT_UINT8 = 9,
  GRT_BOOL = 10,
} grt_dtype;

#define GRT_NUM_DTYPES 11

/* "float32", ... ; "invalid" for anything else. Static storage. */
GRT_API const char* grt_dtype_name(grt_dtype t);

/* Bytes per element; 0 for an invalid type. */
GRT_API size_t grt_dtype_size(grt_dtype t);

/* Looks up a dtype by its name in the text form ("float32"). Returns false if unknown. */
GRT_API bool grt_dtype_from_name(const char* name, grt_dtype* out);

/* Shapes: rank -1 is an unknown rank; a dimension -1 is unknown. */
#define GRT_MAX_RANK 8

typedef struct grt_shape {
  int32_t rank;
  int64_t dims[GRT_MAX_RANK];
} grt_shape;

/* Tensors: a dtype, a fully known shape and a reference-counted buffer. */
typedef struct grt_tensor grt_tensor;

/* A new zero-filled tensor, 64-byte aligned. Caller owns the reference. */
GRT_API GRT_MUST_USE grt_status* grt_tensor_new(grt_dtype dtype, int32_t rank, const int64_t* dims,
                                                grt_tensor** out);

/* A tensor over memory the caller hands over without a copy (TensorFlow's
 * TF_NewTensor): the elements of `dims` at `data`, row-major and
 * little-endian, len = grt_dtype_size(dtype) * the element count bytes.
 * `data` needs only the dtype's natural alignment (its grt_dtype_size: 2 for
 * float16, 4 for float32, 8 for int64, ...), not grt_tensor_new's 64 bytes;
 * it may be NULL only when the tensor has no elements. On success the
 * tensor owns the memory: deallocator(data, len, arg) runs once, when the
 * last reference to the tensor goes (the graph, a session's feeds and
 * fetches may hold references too), on whichever thread drops it;
 * `deallocator` may be NULL when nothing needs doing. On failure (a bad
 * dtype, rank or dims, misaligned data, out of memory) the deallocator is
 * NOT called and the caller keeps ownership of `data`. Caller owns the
 * reference in *out. */
GRT_API GRT_MUST_USE grt_status* grt_tensor_wrap(
    void* data, grt_dtype dtype, int32_t rank, const int64_t* dims,
    void (*deallocator)(void* data, size_t len, void* arg), void* arg, grt_tensor** out);

/* Takes another reference to `t` (returns `t`). */
GRT_API grt_tensor* grt_tensor_ref(grt_tensor* t);

/* Drops one reference; the last one frees the tensor. NULL is a no-op. */
GRT_API void grt_tensor_free(grt_tensor* t);

GRT_API grt_dtype grt_tensor_dtype(const grt_tensor* t);
GRT_API int32_t grt_tensor_rank(const grt_tensor* t);
GRT_API int64_t grt_tensor_dim(const grt_tensor* t, int32_t i);
GRT_API int64_t grt_tensor_num_elements(const grt_tensor* t);
GRT_API size_t grt_tensor_byte_size(const grt_tensor* t);
/* The elements, row-major, little-endian. Owned by the tensor. */
GRT_API void* grt_tensor_data(const grt_tensor* t);

#ifdef __cplusplus
}
#endif

#endif /* GRT_TYPES_H_ */
