/* How the CUDA reductions (reduce.cu) cut a reduction into kernel passes:
 * shape arithmetic only, no CUDA, so CI tests it on the host.
 *
 * As on the CPU (backends/cpu/reduce_engine.c), size-1 dimensions are
 * dropped and neighbours that are both reduced or both kept are merged;
 * what is left alternates kept / reduced and is reduced one reduced group
 * at a time, innermost first, each pass seeing its input as [A, B, C] and
 * reducing B. C == 1 is a row reduction (a warp or a block per row, a tree
 * of warp shuffles), C > 1 a column reduction (threads across C, a loop
 * down B). When the output is too small to fill the GPU, B is cut into
 * chunks whose partial results a second pass reduces. Every choice depends
 * on the shape alone, never on the device, so a result is bit-identical
 * between runs (what CUDA Graph replays and the suite's checks rely on).
 *
 * Internal to backends/cuda. */
#ifndef GRT_BACKENDS_CUDA_REDUCE_PLAN_H_
#define GRT_BACKENDS_CUDA_REDUCE_PLAN_H_

#include <stdbool.h>
#include <stdint.h>

#include "grt/status.h"
#include "grt/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GRT_CUDA_RED_SUM,
  GRT_CUDA_RED_MEAN, /* a sum, divided by the count at the last pass */
  GRT_CUDA_RED_PROD,
  GRT_CUDA_RED_MAX,
  GRT_CUDA_RED_MIN,
  GRT_CUDA_RED_NUM_OPS
} grt_cuda_red_op;

/* What the plan does with the input. */
typedef enum {
  GRT_CUDA_RED_NOTHING, /* the output is empty */
  GRT_CUDA_RED_FILL,    /* nothing to reduce from: every output is the identity */
  GRT_CUDA_RED_COPY,    /* only size-1 axes are reduced: the output is the input */
  GRT_CUDA_RED_PASSES   /* the passes below */
} grt_cuda_red_kind;

/* One kernel launch: its input as [A, B, C], B reduced in chunks of L
 * (L == B: whole), giving [A, S, C] with S = ceil(B / L) chunks. */
typedef struct {
  int64_t A, B, C, L;
} grt_cuda_red_pass;

/* One reduced group is at most two passes (chunks, then their partials). */
#define GRT_CUDA_RED_MAX_PASSES GRT_MAX_RANK

typedef struct {
  grt_cuda_red_kind kind;
  int32_t n_passes;
  grt_cuda_red_pass pass[GRT_CUDA_RED_MAX_PASSES];
  int64_t count; /* input elements reduced into each output (Mean's divisor) */
  int64_t n_out;
} grt_cuda_red_plan;

/* Cutting rules, exposed for the tests. A pass is cut into chunks when its
 * units of work (rows, or 32-column tiles times A) are fewer than
 * GRT_CUDA_RED_TARGET_BLOCKS; a chunk keeps at least
 * GRT_CUDA_RED_MIN_ROW_CHUNK elements of a row, or GRT_CUDA_RED_MIN_COL_CHUNK
 * rows of a column tile. */
#define GRT_CUDA_RED_TARGET_BLOCKS 1024
#define GRT_CUDA_RED_MIN_ROW_CHUNK 4096
#define GRT_CUDA_RED_MIN_COL_CHUNK 64
#define GRT_CUDA_RED_COL_TILE 32

/* The plan for reducing a tensor of shape `in` over the axes with
 * reduced[axis] set. */
void grt_cuda_reduce_plan(const grt_shape* in, const bool* reduced, grt_cuda_red_plan* out);

/* The output elements of one pass: A * S * C. */
int64_t grt_cuda_red_pass_outputs(const grt_cuda_red_pass* p);

/* The plan run on the host for int32 (the HostMemory registration of Sum,
 * Prod, Max, Min: TensorFlow keeps int32 out of GPU memory). Sum and Prod
 * wrap as the CPU's do. Fails for Mean (no int32 row) or out of memory. */
GRT_MUST_USE grt_status* grt_cuda_reduce_host_i32(const grt_cuda_red_plan* plan, grt_cuda_red_op op,
                                                  const int32_t* x, int32_t* out);

#ifdef __cplusplus
}
#endif

#endif /* GRT_BACKENDS_CUDA_REDUCE_PLAN_H_ */
