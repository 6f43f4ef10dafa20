/* Internal: shape functions (ops/shape_*.c) and the helpers they share.
 *
 * Every function follows grt_shape_fn's contract (ops/op_def.h): inputs with
 * rank -1 are unknown, unknown dimensions are -1, input_values[i] is set only
 * for constants; the result is as specific as the known facts allow and an
 * unknown never causes an error. Errors describe the fault; the caller puts
 * the node name in front. */
#ifndef GRT_OPS_SHAPE_FNS_H_
#define GRT_OPS_SHAPE_FNS_H_

#include <stdbool.h>
#include <stdint.h>

#include "ops/op_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- helpers (shape_util.c) ------------------------------------------- */

/* INTERNAL error unless the context has at least n_in inputs and n_out
 * outputs (guards every function against a signature it did not expect). */
GRT_MUST_USE grt_status* grt_infer_need(const grt_shape_ctx* c, int32_t n_in, int32_t n_out);

/* The attr set on the node, else the op's default, else NULL. */
const grt_attr_value* grt_infer_attr(const grt_shape_ctx* c, const char* name);
/* Typed attr reads; missing or mistyped attrs are INVALID_ARGUMENT. */
GRT_MUST_USE grt_status* grt_infer_attr_int(const grt_shape_ctx* c, const char* name, int64_t* out);
GRT_MUST_USE grt_status* grt_infer_attr_bool(const grt_shape_ctx* c, const char* name, bool* out);
GRT_MUST_USE grt_status* grt_infer_attr_string(const grt_shape_ctx* c, const char* name,
                                               const char** out);
GRT_MUST_USE grt_status* grt_infer_attr_shape(const grt_shape_ctx* c, const char* name,
                                              grt_shape* out);
GRT_MUST_USE grt_status* grt_infer_attr_int_list(const grt_shape_ctx* c, const char* name,
                                                 const int64_t** out, int32_t* out_n);

/* A constant integer input (NULL when not known). Fails when the constant is
 * not integer-typed or has a rank other than 0 or 1. */
GRT_MUST_USE grt_status* grt_infer_const_ints(const grt_shape_ctx* c, int32_t i,
                                              const grt_tensor** out);
int64_t grt_infer_value(const grt_tensor* t, int64_t k);
/* A constant input holding exactly one integer; *out_known false when the
 * input is not a constant. */
GRT_MUST_USE grt_status* grt_infer_const_scalar(const grt_shape_ctx* c, int32_t i, bool* out_known,
                                                int64_t* out);
int64_t grt_infer_value_count(const grt_tensor* t);

/* Input i must have the given rank (when its rank is known). */
GRT_MUST_USE grt_status* grt_infer_with_rank(const grt_shape_ctx* c, int32_t i, int32_t rank);
GRT_MUST_USE grt_status* grt_infer_with_rank_at_least(const grt_shape_ctx* c, int32_t i,
                                                      int32_t rank);

/* out = rank/dims, failing above GRT_MAX_RANK. */
GRT_MUST_USE grt_status* grt_infer_make(int32_t rank, const int64_t* dims, grt_shape* out);
/* rank known, every dimension unknown (rank -1: unknown rank). */
GRT_MUST_USE grt_status* grt_infer_unknown_dims(int32_t rank, grt_shape* out);

/* NumPy broadcasting of two shapes. Incompatible known dims fail with
 * "Incompatible shapes: [2,3] vs. [4]" unless `error_on_mismatch` is false,
 * in which case *out becomes unknown. */
GRT_MUST_USE grt_status* grt_infer_broadcast(const grt_shape* a, const grt_shape* b,
                                             bool error_on_mismatch, grt_shape* out);
/* Merges two shapes that must be equal, failing with both shapes named. */
GRT_MUST_USE grt_status* grt_infer_merge(const grt_shape* a, const grt_shape* b, grt_shape* out);
/* Merges two dims that must be equal (-1 matches anything). */
GRT_MUST_USE grt_status* grt_infer_merge_dim(int64_t a, int64_t b, const char* what, int64_t* out);

/* An axis in [-rank, rank) made non-negative; false when out of range. */
bool grt_infer_axis(int64_t axis, int32_t rank, int32_t* out);

/* ---- shape functions, by family --------------------------------------- */

/* shape_elementwise.c */
GRT_MUST_USE grt_status* grt_infer_unchanged(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_broadcast_binary(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_equal(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_merge_all(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_select(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_scalar(grt_shape_ctx* c);

/* shape_matmul.c */
GRT_MUST_USE grt_status* grt_infer_matmul(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_batch_matmul_v2(grt_shape_ctx* c);

/* shape_nn.c */
GRT_MUST_USE grt_status* grt_infer_bias_add(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_bias_add_grad(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_softmax(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_sparse_xent(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_xent(grt_shape_ctx* c);

/* shape_reduce.c */
GRT_MUST_USE grt_status* grt_infer_reduce(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_argmax(grt_shape_ctx* c);

/* shape_reshape.c */
GRT_MUST_USE grt_status* grt_infer_reshape(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_squeeze(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_expand_dims(grt_shape_ctx* c);

/* shape_concat.c */
GRT_MUST_USE grt_status* grt_infer_pack(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_unpack(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_concat_v2(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_split(grt_shape_ctx* c);

/* shape_slice.c, shape_strided_slice.c */
GRT_MUST_USE grt_status* grt_infer_slice(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_strided_slice(grt_shape_ctx* c);

/* shape_array.c */
GRT_MUST_USE grt_status* grt_infer_tile(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_transpose(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_fill(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_one_hot(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_broadcast_gradient_args(grt_shape_ctx* c);

/* shape_metadata.c */
GRT_MUST_USE grt_status* grt_infer_shape_op(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_size_op(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_rank_op(grt_shape_ctx* c);

/* shape_state.c */
GRT_MUST_USE grt_status* grt_infer_placeholder(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_const(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_variable(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_variable_legacy(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_assign(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_assign_update(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_from_shape_input(grt_shape_ctx* c);
GRT_MUST_USE grt_status* grt_infer_apply(grt_shape_ctx* c);

#ifdef __cplusplus
}
#endif

#endif /* GRT_OPS_SHAPE_FNS_H_ */
