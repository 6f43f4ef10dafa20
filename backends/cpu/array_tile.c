/* Tile: output[i] = input[i mod input.shape], dimension by dimension. Each
 * output row (all dimensions but the last) comes from one input row, copied
 * multiples[last] times side by side. */
#include <string.h>

#include "backends/cpu/array_kernels.h"
#include "base/dtype.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"

typedef struct {
  const char* src;
  char* dst;
  int32_t rank;
  const int64_t* in_dims;
  const int64_t* out_dims;
  int64_t in_strides[GRT_MAX_RANK];
  size_t in_row_bytes; /* one input row (last dimension) */
  int64_t reps;        /* multiples[last] */
} tile_job;

static void tile_shard(void* arg, int64_t begin, int64_t end) {
  const tile_job* j = arg;
  size_t out_row = j->in_row_bytes * (size_t)j->reps;
  for (int64_t r = begin; r < end; r++) {
    /* Source row: each output index of the outer dimensions, mod the input's. */
    int64_t rem = r, off = 0;
    for (int32_t d = j->rank - 2; d >= 0; d--) {
      int64_t i = rem % j->out_dims[d];
      rem /= j->out_dims[d];
      off += (i % j->in_dims[d]) * j->in_strides[d];
    }
    const char* src = j->src + off;
    char* dst = j->dst + (size_t)r * out_row;
    for (int64_t k = 0; k < j->reps; k++)
      memcpy(dst + (size_t)k * j->in_row_bytes, src, j->in_row_bytes);
  }
}

grt_status* grt_array_tile(grt_kernel_ctx* ctx) {
  const grt_tensor *in, *mult_t;
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 0, &in));
  GRT_RETURN_IF_ERROR(grt_array_input(ctx, 1, &mult_t));
  int32_t rank = in->shape.rank;
  char buf[GRT_SHAPE_STR_MAX];
  if (mult_t->shape.rank != 1)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Expected multiples argument to be a vector of length %d but got shape %s",
                     (int)rank, grt_shape_str(&mult_t->shape, buf, sizeof buf));
  if (mult_t->shape.dims[0] != rank)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "Expected multiples argument to be a vector of length %d but got length %lld",
                     (int)rank, (long long)mult_t->shape.dims[0]);
  int64_t mult[GRT_MAX_RANK];
  int32_t n;
  GRT_RETURN_IF_ERROR(grt_kernel_read_int_vector(mult_t, "multiples", mult, GRT_MAX_RANK, &n));
  grt_shape out_shape = in->shape;
  bool all_one = true;
  for (int32_t i = 0; i < rank; i++) {
    if (mult[i] < 0)
      return GRT_ERROR(INVALID_ARGUMENT, "Expected multiples[%d] >= 0, but got %lld", (int)i,
                       (long long)mult[i]);
    if (__builtin_mul_overflow(in->shape.dims[i], mult[i], &out_shape.dims[i]))
      return GRT_ERROR(INVALID_ARGUMENT, "tiled dimension %d overflows int64", (int)i);
    all_one &= mult[i] == 1;
  }
  if (all_one) return grt_array_set_view(ctx, 0, in, &out_shape, 0);
  grt_tensor* out;
  GRT_RETURN_IF_ERROR(grt_kernel_alloc_output(ctx, 0, in->dtype, &out_shape, &out));
  int64_t total = grt_shape_num_elements(&out_shape);
  if (total == 0) return NULL;
  size_t esize = grt_dtype_size(in->dtype);
  tile_job j = {.src = grt_tensor_data(in),
                .dst = grt_tensor_data(out),
                .rank = rank,
                .in_dims = in->shape.dims,
                .out_dims = out_shape.dims};
  grt_array_strides(&in->shape, j.in_strides);
  for (int32_t d = 0; d < rank; d++) j.in_strides[d] *= (int64_t)esize;
  j.in_row_bytes = (size_t)in->shape.dims[rank - 1] * esize;
  j.reps = mult[rank - 1];
  int64_t rows = total / out_shape.dims[rank - 1];
  grt_parallel_for(ctx->intra_op, rows, (int64_t)(j.in_row_bytes * (size_t)j.reps) / 16 + 16,
                   tile_shard, &j);
  return NULL;
}
