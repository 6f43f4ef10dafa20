/* Internal to the array CPU kernels (array*.c): the compute functions the
 * family table (array.c) lists, and the data-movement helpers they share.
 *
 * Array ops move bytes without looking at them, so every helper works on
 * element sizes (1, 2, 4 or 8 bytes) rather than dtypes. Where TensorFlow's
 * kernels hand back their input's buffer instead of copying (Reshape,
 * identity slices, aligned pieces of the first dimension), these do too:
 * the output is a new tensor view over the same grt_buffer. */
#ifndef GRT_BACKENDS_CPU_ARRAY_KERNELS_H_
#define GRT_BACKENDS_CPU_ARRAY_KERNELS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/op_kernel.h"

/* ---- compute functions, by file --------------------------------------- */

/* array_source.c */
GRT_MUST_USE grt_status* grt_array_const(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_placeholder(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_noop(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_identity(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_zeros_like(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_ones_like(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_fill(grt_kernel_ctx* ctx);
/* array_reshape.c */
GRT_MUST_USE grt_status* grt_array_reshape(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_squeeze(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_expand_dims(grt_kernel_ctx* ctx);
/* Shape, Size, Rank, BroadcastGradientArgs: grt_op_*_compute (grt/op_semantics.h,
 * kernels/op_metadata.c) */
/* array_concat.c */
GRT_MUST_USE grt_status* grt_array_concat_v2(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_pack(grt_kernel_ctx* ctx);
/* array_split.c */
GRT_MUST_USE grt_status* grt_array_split(grt_kernel_ctx* ctx);
GRT_MUST_USE grt_status* grt_array_unpack(grt_kernel_ctx* ctx);
/* array_slice.c */
GRT_MUST_USE grt_status* grt_array_slice(grt_kernel_ctx* ctx);
/* array_strided_slice.c */
GRT_MUST_USE grt_status* grt_array_strided_slice(grt_kernel_ctx* ctx);
/* array_tile.c */
GRT_MUST_USE grt_status* grt_array_tile(grt_kernel_ctx* ctx);
/* array_transpose.c */
GRT_MUST_USE grt_status* grt_array_transpose(grt_kernel_ctx* ctx);
/* array_one_hot.c */
GRT_MUST_USE grt_status* grt_array_one_hot(grt_kernel_ctx* ctx);

/* ---- helpers (array_util.c) ------------------------------------------- */

/* Input i, failing (INTERNAL) when the executor passed none. */
GRT_MUST_USE grt_status* grt_array_input(const grt_kernel_ctx* ctx, int32_t i,
                                         const grt_tensor** out);

/* Reads a tensor holding exactly one integer (a scalar or a 1-element vector). */
GRT_MUST_USE grt_status* grt_array_read_scalar(const grt_tensor* t, const char* what, int64_t* out);

/* Output k becomes a view of `in`'s buffer with `shape`, starting `byte_offset`
 * bytes after `in`'s first element. */
GRT_MUST_USE grt_status* grt_array_set_view(grt_kernel_ctx* ctx, int32_t k, const grt_tensor* in,
                                            const grt_shape* shape, size_t byte_offset);

/* Row-major element strides of `s` (innermost 1). */
void grt_array_strides(const grt_shape* s, int64_t* out);

/* dst (contiguous, dims[0..rank) row-major) = src[base + sum(i_d * strides[d])],
 * strides in elements and possibly negative or zero. Work is split over
 * `pool` (may be NULL). rank 0 copies one element. */
void grt_array_gather(grt_threadpool* pool, size_t esize, const void* src, int64_t base,
                      int32_t rank, const int64_t* dims, const int64_t* strides, void* dst);

/* Fills n elements of `esize` bytes at dst with copies of *elem. */
void grt_array_fill_elems(void* dst, int64_t n, const void* elem, size_t esize);

/* Copies `bytes` bytes with memcpy, split over the pool when large. */
void grt_array_copy(grt_threadpool* pool, void* dst, const void* src, size_t bytes);

/* Joins or cuts along an axis: `outer` rows, and for each of the n pieces a
 * contiguous run of piece_bytes[i] bytes per row. join: dst row o is the
 * pieces' row o side by side; cut (join == false): the reverse. */
void grt_array_join_rows(grt_threadpool* pool, int64_t outer, int32_t n, char* const* pieces,
                         const size_t* piece_bytes, char* whole, bool join);

/* Whether a view at this byte offset keeps the alignment every allocated
 * tensor has (TensorFlow shares slices only then, so downstream kernels can
 * count on aligned data). */
bool grt_array_aligned(const grt_tensor* in, size_t byte_offset);

#endif /* GRT_BACKENDS_CPU_ARRAY_KERNELS_H_ */
