/* Shape functions of ReverseSequence, Where and MatrixDeterminant
 * (ops/defs_array_more.c), as TensorFlow's, and the checks their kernels
 * share on every backend (grt/op_semantics.h), in TensorFlow's kernels'
 * words. */
#include "ops/shape_array_more.h"

#include "base/status.h"
#include "grt/op_semantics.h"
#include "ops/shape_fns.h"

grt_status* grt_op_reverse_sequence_check(const grt_shape* in, int64_t seq_dim, int64_t batch_dim,
                                          const grt_shape* seq_lengths) {
  int32_t rank = in->rank;
  if (seq_dim == batch_dim)
    return GRT_ERROR(INVALID_ARGUMENT, "seq_dim == batch_dim == %lld", (long long)seq_dim);
  if (seq_dim < 0 || seq_dim >= rank)
    return GRT_ERROR(INVALID_ARGUMENT, "seq_dim must be < input rank ( %lld vs. %d)",
                     (long long)seq_dim, (int)rank);
  if (batch_dim < 0 || batch_dim >= rank)
    return GRT_ERROR(INVALID_ARGUMENT, "batch_dim must be < input rank ( %lld vs. %d)",
                     (long long)batch_dim, (int)rank);
  int64_t batch = in->dims[batch_dim];
  if (seq_lengths->rank != 1 || seq_lengths->dims[0] != batch)
    return GRT_ERROR(INVALID_ARGUMENT, "seq_lengths must be a vector of length %lld",
                     (long long)batch);
  return NULL;
}

grt_status* grt_op_reverse_sequence_length(const grt_shape* in, int64_t seq_dim, int64_t b,
                                           int64_t len) {
  if (len >= 0 && len <= in->dims[seq_dim]) return NULL;
  return GRT_ERROR(INVALID_ARGUMENT, "seq_lens(%lld) > input.dims(%lld) or negative: %lld",
                   (long long)b, (long long)seq_dim, (long long)len);
}

grt_status* grt_op_determinant_shape(const grt_shape* in, grt_shape* out) {
  int32_t rank = in->rank;
  if (rank < 2) return GRT_ERROR(INVALID_ARGUMENT, "Input must have rank >= 2, got %d", (int)rank);
  int64_t m = in->dims[rank - 1];
  if (in->dims[rank - 2] != m)
    return GRT_ERROR(INVALID_ARGUMENT, "Input matrices must be square, got %lld != %lld",
                     (long long)in->dims[rank - 2], (long long)m);
  grt_shape s = {0};
  s.rank = rank - 2;
  for (int32_t d = 0; d < rank - 2; d++) s.dims[d] = in->dims[d];
  *out = s;
  return NULL;
}

/* The input's shape; seq_lengths is a vector as long as the batch axis. */
grt_status* grt_infer_reverse_sequence(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 2, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank(c, 1, 1));
  int64_t seq_dim, batch_dim;
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "seq_dim", &seq_dim));
  GRT_RETURN_IF_ERROR(grt_infer_attr_int(c, "batch_dim", &batch_dim));
  const grt_shape* in = &c->input_shapes[0];
  c->output_shapes[0] = *in;
  if (in->rank < 0) return NULL;
  if (seq_dim == batch_dim)
    return GRT_ERROR(INVALID_ARGUMENT, "seq_dim and batch_dim must not be the same: %lld",
                     (long long)seq_dim);
  if (seq_dim < 0 || seq_dim >= in->rank || batch_dim < 0 || batch_dim >= in->rank)
    return GRT_ERROR(INVALID_ARGUMENT, "seq_dim %lld and batch_dim %lld must be in [0, %d)",
                     (long long)seq_dim, (long long)batch_dim, (int)in->rank);
  int64_t n = c->input_shapes[1].rank == 1 ? c->input_shapes[1].dims[0] : -1;
  int64_t b = in->dims[batch_dim];
  if (n >= 0 && b >= 0 && n != b)
    return GRT_ERROR(INVALID_ARGUMENT, "seq_lengths has %lld entries, the batch axis %lld",
                     (long long)n, (long long)b);
  return NULL;
}

/* [number of true elements (unknown), rank of the input] */
grt_status* grt_infer_where(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  int32_t rank = c->input_shapes[0].rank;
  int64_t dims[2] = {-1, rank};
  return grt_infer_make(2, dims, &c->output_shapes[0]);
}

/* [..., M, M] -> [...] */
grt_status* grt_infer_matrix_determinant(grt_shape_ctx* c) {
  GRT_RETURN_IF_ERROR(grt_infer_need(c, 1, 1));
  GRT_RETURN_IF_ERROR(grt_infer_with_rank_at_least(c, 0, 2));
  const grt_shape* in = &c->input_shapes[0];
  if (in->rank < 0) {
    c->output_shapes[0] = *in;
    return NULL;
  }
  int64_t m = in->dims[in->rank - 2], n = in->dims[in->rank - 1];
  if (m >= 0 && n >= 0 && m != n)
    return GRT_ERROR(INVALID_ARGUMENT, "Input matrices must be square, got %lld x %lld",
                     (long long)m, (long long)n);
  return grt_infer_make(in->rank - 2, in->dims, &c->output_shapes[0]);
}
